"""The table: clock, match and lateness joined into one state machine. Pure: time is passed in.

>>> t = Table()
>>> t.apply("assign", {"match_id": "G1-1", "players": {"a": "Ana", "b": "Beto"},
...                    "length": 3, "clock": {"preset": "singles"}}, now=0.0).state
'assigned'
>>> _ = t.apply("press", {"side": "a"}, now=1.0); t.apply("press", {"side": "b"}, now=2.0).state
'between_games'
>>> [e.TYPE for e in t.apply("press", {"side": "a"}, now=5.0).events]   # a rolled lower
['game.started']
>>> t.apply("press", {"side": "a"}, now=6.0).refusal.code                 # b is on move
'not_on_move'
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import msgspec

from mesa import events as ev
from mesa.core.clock import Clock, ClockSettings
from mesa.core.lateness import Lateness
from mesa.core.match import KIND_NAMES, GameHow, Match
from mesa.core.sides import SIDES, Side, is_side, other
from mesa.engine.inputs import Input
from mesa.engine.machine import Machine
from mesa.engine.outcome import Outcome, Refusal, Refused
from mesa.engine.snapshot import state_from_dict
from mesa.errors import ConfigError, RuleError
from mesa.games.backgammon.inputs import INPUT_SPECS, RANGES
from mesa.games.backgammon.resume import Resume, parse_resume
from mesa.games.backgammon.transitions import STATES, TRANSITIONS

log = logging.getLogger(__name__)

GAME = "backgammon"  # this game's wire name (the registry's, a snapshot's ``game_name``)


MENU_IN_GAME = ("resume", "game_over", "concession", "fallen_die", "dispute", "director")
MENU_CUBE = ("resume", "fallen_die", "dispute", "director")
MENU_BETWEEN = ("resume", "break", "dispute", "director")


@dataclass(frozen=True)
class TableSettings:
    """Per-table tuning. ``bounce`` absorbs a second press of the same button; ``simultaneous``
    refuses a press by the player whose turn began that recently (both buttons slapped)."""

    bounce: float = 0.15
    simultaneous: float = 0.25


@dataclass
class TableState:
    """Everything the table knows; JSON-able through :meth:`to_dict` (journal and snapshot)."""

    state: str = "idle"
    game_name: str = GAME  # the game this state is of (an old snapshot has none: backgammon)
    match_id: str | None = None
    # The hub's fencing token for this assignment (``assign``'s ``epoch``); it only grows.
    epoch: int | None = None
    players: dict[str, str] = field(default_factory=dict)
    cards: dict[str, str] = field(default_factory=dict)
    language: str = "es"
    timed: bool = False
    clock: Clock | None = None
    # The director's clock for the match's next game, ordered during a game (HGV 9.1.1):
    # ``{"clock": <the order: settings, a preset, or None to take the clock off>}``; applied
    # when the game ends and the match goes on, dropped if the match ends first.
    clock_order: dict[str, Any] | None = None
    # A match moved here in the middle of a game: that game, to go on with at the first press
    # after check-in (``assign``'s ``resume``, :mod:`mesa.games.backgammon.resume`).
    resumed_game: dict[str, Any] | None = None
    match: Match | None = None
    lateness: Lateness | None = None
    checked_in: list[str] = field(default_factory=list)
    pause_reason: str | None = None
    paused_by: str | None = None
    resume_to: str | None = None
    menu: int = 0
    claim: dict[str, Any] | None = None
    director_call: str | None = None
    last_press: dict[str, float] = field(default_factory=dict)
    grace_game: dict[str, int] = field(default_factory=dict)
    penalties: dict[str, int] = field(default_factory=dict)
    last_flag: str | None = None
    last_now: float | None = None

    def to_dict(self) -> dict[str, Any]:
        # The plain dicts dataclasses.asdict would build (fresh containers all the way down),
        # built by msgspec in C: the runtime takes a snapshot after every input (~140 µs → 5).
        out: dict[str, Any] = msgspec.to_builtins(self)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableState:
        nested = {"clock": Clock.from_dict, "match": Match.from_dict,
                  "lateness": Lateness.from_dict}
        return state_from_dict(cls, data, GAME, STATES, "table", nested)


class Table(Machine[TableState]):
    """One table's state machine. Feed it inputs with :meth:`apply`; read :meth:`view`."""

    GAME: ClassVar[str] = GAME
    INPUTS = INPUT_SPECS
    RANGES = RANGES
    TRANSITIONS = TRANSITIONS

    def __init__(self, state: TableState | None = None, settings: TableSettings | None = None):
        super().__init__(state or TableState())
        self.settings = settings or TableSettings()

    # ── the one entry point: the engine's loop, stamped with the assignment's epoch ──
    def apply(
        self, name: str | Input, args: dict[str, Any] | None = None, *, now: float
    ) -> Outcome:
        """Apply one input at ``now`` (seconds on the table's monotonic clock)."""
        out = super().apply(name, args, now=now)
        out.epoch = self.s.epoch
        if out.accepted and any(isinstance(e, ev.ClockPending) for e in out.events):
            out.note = "clock_next_game"  # the answer says so: the clock waits for a new game
        return out

    def _settled_outcome(self, inp: Input, now: float, settled: list[ev.Event]) -> Outcome | None:
        if inp.name != "tick" and any(isinstance(e, ev.FlagFell) for e in settled):
            # The flag fell before this input arrived: the input is too late to count.
            return Outcome(inp, now, self.s.state, settled, Refusal(
                "flag_fell", f"the flag fell before this {inp.name}"))
        if inp.name == "tick" and (self.s.state, "tick") in TRANSITIONS:
            return Outcome(inp, now, self.s.state, settled)  # the hot path: nothing to undo
        return None

    def _kept_on_refusal(self, events: list[ev.Event]) -> list[ev.Event]:
        # A rejected card is reported even though its input is refused (the hub counts them).
        return [x for x in events if isinstance(x, ev.CardRejected)]

    # ── helpers ─────────────────────────────────────────────────────────
    @property
    def _clock(self) -> Clock:
        assert self.s.clock is not None
        return self.s.clock

    @property
    def _match(self) -> Match:
        assert self.s.match is not None
        return self.s.match

    def _settle(self, now: float) -> None:
        """Settle what time alone decides before the input: lateness marks and a fallen flag."""
        st = self.s.state
        if st in ("assigned", "checking_in") and self.s.lateness is not None:
            self._lateness_tick(now)
        elif st in ("running", "cube_offered") and self._clock.flagged(now):
            self._flag_fall(now)

    def _lateness_tick(self, now: float) -> None:
        late = self.s.lateness
        assert late is not None
        for side, points in late.tick(now):
            self._emit(ev.LatenessPoint(side=side, points=points))
        winner = late.forfeit_winner
        if winner is not None:
            self._start_match(now)

    def _start_match(self, now: float) -> None:
        """Both present (or a lateness forfeit): the match begins from the lateness score."""
        late = self.s.lateness
        m = self._match
        if late is not None:
            m.score = dict(late.points)
        winner = late.forfeit_winner if late is not None else None
        self._emit(ev.MatchStarted(score=dict(m.score), reserve=dict(self._clock.reserve)))
        if winner is not None:
            m.end_by(winner, "lateness")
            self._end_match()
        else:
            self._go("between_games")

    def _end_match(self) -> None:
        m = self._match
        assert m.winner is not None and m.ended_by is not None
        self._emit(ev.MatchEnded(winner=m.winner, score=dict(m.score), how=m.ended_by))
        self.s.claim = None
        self.s.clock_order = None  # no next game: a clock ordered for it lapses
        self._go("match_over")

    def _flag_fall(self, now: float) -> None:
        clock, m = self._clock, self._match
        was = self.s.state
        side = clock.expire(now)
        policy = clock.settings.timeout_policy
        expiry = clock.expiries[side]
        self.s.last_flag = side
        self._emit(ev.FlagFell(side=side, policy=policy, expiry=expiry))
        if policy == "lose_match" or (policy == "overtime" and expiry > 1):
            clock.stop(now)
            m.end_by(other(side), "timeout")
            self._end_match()
            return
        if policy == "overtime":
            clock.set_reserve(side, clock.settings.overtime)
            self._emit(ev.Overtime(side=side, seconds=clock.settings.overtime))
        else:  # penalty_points, DE 5.1
            grace = m.decides_match() and self.s.grace_game.get(side) != m.game_number
            points = 0
            if grace:
                self.s.grace_game[side] = m.game_number
            else:
                count = self.s.penalties.get(side, 0)
                points = 2 if count == 0 else 1
                self.s.penalties[side] = count + 1
            clock.set_reserve(side, clock.settings.penalty_reset)
            frozen = False
            if points:
                ended = m.award(other(side), points, "penalty")
                if not ended and m.away(other(side)) == 1:
                    m.freeze_cube(side)  # DE 5.2: this game and the next
                    frozen = True
            self._emit(
                ev.PenaltyPoints(
                    side=side,
                    points=points,
                    reserve=clock.reserve[side],
                    grace=grace,
                    frozen_cube=frozen,
                )
            )
            if m.over:
                clock.stop(now)
                self._end_match()
                return
        self._pause(now, "timeout", "table", resume_to=was)
        self._call_director("timeout")

    def _pause(self, now: float, reason: str, by: str, resume_to: str | None = None) -> None:
        self._clock.pause(now)
        self.s.resume_to = resume_to or self.s.state
        self.s.pause_reason = reason
        self.s.paused_by = by
        self.s.menu = 0
        self._emit(ev.ClockPaused(reason=reason, by=by))
        self._go("paused")

    def _resume(self, now: float, by: str) -> None:
        target = self.s.resume_to or "between_games"
        if target in ("running", "cube_offered"):
            self._clock.resume(now)
        self.s.pause_reason = self.s.paused_by = self.s.resume_to = None
        self.s.menu = 0
        self._emit(ev.ClockResumed(by=by))
        self._go(target)

    def _call_director(self, reason: str) -> None:
        self.s.director_call = reason
        self._emit(ev.DirectorCalled(reason=reason))

    def _game_over(self, now: float, record_fn: Callable[[], Any]) -> None:
        """Stop the clocks (charging the turn in progress) and record the game."""
        charge = self._clock.stop(now)
        if charge is not None:
            self._emit(
                ev.TurnEnded(
                    side=charge.side,
                    seconds=charge.seconds,
                    delay=charge.delay_allowed,
                    charged=charge.charged,
                    reserve=charge.reserve_left,
                )
            )
        rec = record_fn()
        self._emit(
            ev.GameEnded(
                game=rec.number,
                winner=rec.winner,
                kind=rec.kind,
                cube=rec.cube,
                points=rec.points,
                how=rec.how,
                score=dict(rec.score_after),
            )
        )
        self.s.claim = None
        self.s.pause_reason = self.s.paused_by = self.s.resume_to = None
        self.s.menu = 0
        if self._match.over:
            self._end_match()
        else:
            order = self.s.clock_order
            if order is not None:
                self.s.clock_order = None
                self._apply_clock_order(order)
            self._go("between_games")

    def _apply_clock_order(self, order: dict[str, Any]) -> None:
        """The clock ordered during the game starts now. It was checked when it was given; one
        that no longer builds (a snapshot from another version) is dropped, and never blocks
        the game's result."""
        try:
            self._set_clock(order.get("clock"))
        except Refused as e:
            log.warning("table: the clock ordered for the next game is dropped: %s", e)

    def _turn(self, side: Side, now: float) -> None:
        last = self.s.last_press.get(side)
        if last is not None and now - last < self.settings.bounce:
            raise Refused("bounce", f"{side} pressed again {1000 * (now - last):.0f} ms later")
        clock = self._clock
        if clock.on_move != side:
            raise Refused("not_on_move", f"{side} is not on move: a press does nothing")
        started = clock.running_since
        if (
            started is not None
            and clock.turn_elapsed == 0
            and now - started < self.settings.simultaneous
        ):
            raise Refused(
                "simultaneous",
                f"{side}'s turn began {1000 * (now - started):.0f} ms ago: both buttons "
                "were pressed together",
            )
        charge = clock.end_turn(side, now)
        self.s.last_press[side] = now
        self._emit(
            ev.TurnEnded(
                side=side,
                seconds=charge.seconds,
                delay=charge.delay_allowed,
                charged=charge.charged,
                reserve=charge.reserve_left,
            )
        )

    def _on_move_or_refuse(self, side: Side) -> None:
        if self._clock.on_move != side:
            raise Refused("not_on_move", f"{side} is not on move")

    def _setup_clock(self, spec: dict[str, Any] | None, scored: int) -> tuple[bool, Clock]:
        length = self._match.length if self.s.match else 1
        if spec is None:
            return False, Clock(ClockSettings(reserve=0.0, delay=0.0), timed=False)
        try:
            if "reserve" in spec:
                settings = ClockSettings.from_dict(spec)
            else:
                values = dict(spec)
                preset = values.pop("preset", "singles")
                settings = ClockSettings.for_match(length, scored=scored, preset=preset, **values)
        except (ConfigError, TypeError) as e:
            raise Refused("bad_clock", f"clock settings refused: {e}") from None
        return True, Clock(settings)

    # ── inputs ──────────────────────────────────────────────────────────
    def _on_tick(self, inp: Input, now: float) -> None:
        pass  # _settle already did the work

    def _on_assign(self, inp: Input, now: float) -> None:
        a = inp.args
        players = a["players"]
        if set(players) != set(SIDES) or not all(
            isinstance(n, str) and n.strip() for n in players.values()
        ):
            raise Refused("bad_players", "players must name both sides a and b")
        epoch = a["epoch"]
        if epoch is not None and (epoch < 0 or (self.s.epoch is not None and epoch < self.s.epoch)):
            # Epochs only grow: a smaller one is an assignment the hub has since replaced.
            raise Refused("stale_epoch", f"assignment epoch {epoch} is older than {self.s.epoch}")
        cards = a["cards"] or {}
        if set(cards) - set(SIDES):
            raise Refused("bad_cards", "cards are given per side a and b")
        try:
            match = Match(length=a["length"], crawford=a["crawford"])
        except RuleError as e:
            raise Refused(e.code, str(e)) from None
        resume = None if a["resume"] is None else parse_resume(a["resume"], length=match.length)
        fresh = TableState(language=a["language"], epoch=a["epoch"])
        old, self.s = self.s, fresh
        self.s.last_now = old.last_now
        self.s.match = match
        try:
            if resume is not None:
                self._resume_match(resume, a["clock"])
            else:
                self.s.timed, self.s.clock = self._setup_clock(a["clock"], 0)
            # A moved match has begun: its players were there, no lateness runs again.
            if a["scheduled_start"] is not None and resume is None:
                self.s.lateness = Lateness(
                    a["scheduled_start"], match.length, a["minutes_per_point"]
                )
        except (Refused, RuleError):
            self.s = old
            raise
        self.s.match_id, self.s.players, self.s.cards = a["match_id"], dict(players), dict(cards)
        self._emit(
            ev.TableAssigned(
                match_id=a["match_id"],
                players=dict(players),
                length=match.length,
                timed=self.s.timed,
                clock=self._clock.settings.to_dict() if self.s.timed else None,
                scheduled_start=a["scheduled_start"],
            )
        )
        self._go("assigned")

    def _resume_match(self, resume: Resume, clock: dict[str, Any] | None) -> None:
        """The match moved here as it stood: score, games, Crawford, reserves, the game in
        progress. A clock given as a preset gets the reserve for the points already scored
        (HGV 7.6.2) unless the old table's reserves came with it."""
        m = self._match
        m.score, m.game_number = dict(resume.score), resume.games
        m.crawford_played = resume.crawford_played or (
            resume.game is not None and resume.game["crawford"]
        )
        self.s.timed, self.s.clock = self._setup_clock(clock, sum(m.score.values()))
        if self.s.timed and resume.reserve is not None:
            self.s.clock.reserve = dict(resume.reserve)
        if self.s.timed and resume.expiries is not None:
            self.s.clock.expiries = {side: resume.expiries.get(side, 0) for side in SIDES}
        self.s.penalties = dict(resume.penalties or {})
        m.frozen_until = dict(resume.frozen_until or {})
        self.s.resumed_game = None if resume.game is None else dict(resume.game)
        if resume.game is not None:
            # Until the players go on, the game in progress counts as the next one (the
            # screen shows the game to come between games): it is the same game again.
            m.game_number -= 1

    def _start_resumed_game(self, side: Side) -> Side:
        """The first press after check-in of a match moved mid-game: the game goes on with
        its cube, and the player not on move presses (as after the opening roll). Returns
        the side on move."""
        game = self.s.resumed_game
        assert game is not None
        if game.get("on_move") == side:
            raise Refused(
                "resumed_on_move", f"{side} is on move in the game moved here: the other presses"
            )
        m = self._match
        m.in_game, m.cube_value, m.cube_owner = True, int(game["cube"]), game["owner"]
        m.cube_offered_by, m.crawford_game = None, bool(game["crawford"])
        m.game_number += 1
        self.s.resumed_game = None
        return other(side)

    def _on_refence(self, inp: Input, now: float) -> None:
        epoch = inp.args["epoch"]
        if epoch < 0 or (self.s.epoch is not None and epoch < self.s.epoch):
            raise Refused("stale_epoch", f"assignment epoch {epoch} is older than {self.s.epoch}")
        # No event: the hub already counts this epoch as the table's; what changes is the
        # epoch stamped on the events from now on (the journal keeps it through a restart).
        self.s.epoch = epoch

    def _on_unassign(self, inp: Input, now: float) -> None:
        match_id = self.s.match_id or ""
        # The epoch stays: the table.unassigned event belongs to the assignment it ends.
        self.s = TableState(language=self.s.language, last_now=now, epoch=self.s.epoch)
        self._emit(ev.TableUnassigned(match_id=match_id))

    def _check_in(self, side: Side, card: str | None, now: float) -> None:
        if side in self.s.checked_in:
            raise Refused("already_checked_in", f"{side} has already checked in")
        self.s.checked_in.append(side)
        if self.s.lateness is not None:
            self.s.lateness.check_in(side, now)
        self._emit(ev.PlayerCheckedIn(side=side, card=card))
        if len(self.s.checked_in) == 2:
            self._start_match(now)
        else:
            self._go("checking_in")

    def _on_checkin(self, inp: Input, now: float) -> None:
        self._check_in(inp.args["side"], inp.args["card"], now)

    def _on_card(self, inp: Input, now: float) -> None:
        card = inp.args["card"].strip()
        sides = [s for s, c in self.s.cards.items() if c == card and is_side(s)]
        if not card or not sides:
            reason = "card of neither player" if card else "empty card"
            self._emit(ev.CardRejected(card=card[:64], reason=reason,
                                       suppressed=inp.args.get("suppressed", 0)))
            raise Refused("unknown_card", f"card {card[:64]!r}: {reason}")
        self._check_in(sides[0], card, now)

    def _on_press(self, inp: Input, now: float) -> None:
        side: Side = inp.args["side"]
        st = self.s.state
        if st in ("assigned", "checking_in"):
            self._check_in(side, None, now)
        elif st == "between_games":
            last = self.s.last_press.get(side)
            if last is not None and now - last < self.settings.bounce:
                raise Refused("bounce", f"{side} pressed again {1000 * (now - last):.0f} ms later")
            if self.s.resumed_game is not None:
                on_move = self._start_resumed_game(side)
            else:
                self._match.start_game()
                on_move = other(side)
            self._clock.start_turn(on_move, now)
            self.s.last_press[side] = now
            self._emit(
                ev.GameStarted(
                    game=self._match.game_number,
                    first_on_move=on_move,
                    crawford=self._match.crawford_game,
                    score=dict(self._match.score),
                )
            )
            self._go("running")
        elif st == "running":
            self._turn(side, now)
        elif st == "cube_offered":
            self._take(side, now)
        elif st == "paused":
            self.s.menu = (self.s.menu + 1) % len(self._menu_items())
        elif st == "result_entry":
            if self.s.claim is not None:
                self._reject(side)
            else:
                self.s.menu = (self.s.menu + 1) % len(self._menu_items())

    def _on_hold(self, inp: Input, now: float) -> None:
        side: Side = inp.args["side"]
        st = self.s.state
        if st == "running":
            self._double(side, now)
        elif st == "cube_offered":
            self._drop(side, now)
        elif st == "paused":
            self._choose(side, now)
        elif st == "result_entry":
            if self.s.claim is not None:
                self._confirm(side, now)
            else:
                self._choose(side, now)

    def _on_cube(self, inp: Input, now: float) -> None:
        side = self._clock.on_move
        assert side is not None
        self._double(side, now)

    def _on_double(self, inp: Input, now: float) -> None:
        self._double(inp.args["side"], now)

    def _double(self, side: Side, now: float) -> None:
        self._on_move_or_refuse(side)
        refusal = self._match.double_refusal(side)
        if refusal:
            raise refusal
        self._turn(side, now)  # doubling hands the clock to the opponent
        self._match.double(side)
        self._emit(ev.CubeOffered(side=side, value=self._match.cube_value * 2))
        self._go("cube_offered")

    def _on_take(self, inp: Input, now: float) -> None:
        self._take(inp.args["side"], now)

    def _take(self, side: Side, now: float) -> None:
        m = self._match
        if m.cube_offered_by == side:
            raise Refused("not_responder", f"{side} doubled and waits for the answer")
        self._turn(side, now)  # a take hands the clock back to the doubler
        m.take(side)
        self._emit(ev.CubeTaken(side=side, value=m.cube_value))
        self._go("running")

    def _on_drop(self, inp: Input, now: float) -> None:
        self._drop(inp.args["side"], now)

    def _drop(self, side: Side, now: float) -> None:
        m = self._match
        if m.cube_offered_by == side:
            raise Refused("not_responder", f"{side} doubled and waits for the answer")
        if m.cube_offered_by is None:
            raise Refused("no_double", "no double is waiting for an answer")
        value = m.cube_value
        self._emit(ev.CubePassed(side=side, value=value))
        self._game_over(now, lambda: m.pass_(side))

    def _on_both_held(self, inp: Input, now: float) -> None:
        self._toggle_pause(now)

    def _on_pause_button(self, inp: Input, now: float) -> None:
        self._toggle_pause(now)

    def _toggle_pause(self, now: float) -> None:
        st = self.s.state
        if st == "paused":
            self._resume(now, "players")
        elif st == "result_entry":
            if self.s.claim is not None:
                raise Refused("claim_pending", "a result waits for confirmation")
            self.s.state = "paused"
            self.s.menu = 0
        else:
            reason = "break" if st == "between_games" else "unspecified"
            self._pause(now, reason, "players")

    def _on_pause(self, inp: Input, now: float) -> None:
        reason = inp.args["reason"]
        if self.s.state == "paused":
            self._set_reason(reason)
        else:
            self._pause(now, reason, "players")
            if reason == "director":
                self._call_director("players")

    def _set_reason(self, reason: str) -> None:
        self.s.pause_reason = reason
        self._emit(ev.PauseReason(reason=reason))

    def _on_resume(self, inp: Input, now: float) -> None:
        self._resume(now, "players")

    def _menu_items(self) -> tuple[str, ...]:
        if self.s.state == "result_entry":
            return (*(f"{w}{k}" for w in SIDES for k in KIND_NAMES), "back")
        if self.s.resume_to == "cube_offered":
            return MENU_CUBE
        if self.s.resume_to == "between_games":
            return MENU_BETWEEN
        return MENU_IN_GAME

    def _choose(self, side: Side, now: float) -> None:
        items = self._menu_items()
        item = items[self.s.menu % len(items)]
        if self.s.state == "result_entry":
            if item == "back":
                self.s.state = "paused"
                self.s.menu = 0
                return
            winner = item[0]
            assert is_side(winner)  # result items are built from SIDES × KIND_NAMES
            self._claim(side, winner, int(item[1:]), self.s.pause_reason == "concession", None)
            return
        if item == "resume":
            self._resume(now, "players")
        elif item in ("game_over", "concession"):
            self._set_reason(item)
            self.s.menu = 0
            self._go("result_entry")
        else:
            self._set_reason(item)
            if item == "director":
                self._call_director("players")

    def _on_claim(self, inp: Input, now: float) -> None:
        a = inp.args
        if self.s.state == "running":
            self._pause(now, "concession" if a["conceded"] else "game_over", "players")
        elif self.s.state == "paused" and self.s.resume_to != "running":
            raise Refused("no_game", "no game in progress to claim")
        self._go("result_entry")
        self._claim(a["side"], a["winner"], a["kind"], a["conceded"], a["points"])

    def _claim(
        self, side: Side, winner: Side, kind: int, conceded: bool, points: int | None
    ) -> None:
        if self.s.claim is not None:
            raise Refused("claim_pending", "a result already waits for confirmation")
        m = self._match
        refusal = m.result_refusal(winner, kind, points)
        if refusal:
            raise refusal
        self.s.claim = {"by": side, "winner": winner, "kind": kind, "conceded": conceded}
        self._emit(
            ev.ResultClaimed(
                by=side, winner=winner, kind=kind, points=kind * m.cube_value, conceded=conceded
            )
        )

    def _on_confirm(self, inp: Input, now: float) -> None:
        self._confirm(inp.args["side"], now)

    def _confirm(self, side: Side, now: float) -> None:
        claim = self.s.claim
        if claim is None:
            raise Refused("no_claim", "no result waits for confirmation")
        if claim["by"] == side:
            raise Refused("own_claim", "the claimant's opponent must confirm")
        how: GameHow = "conceded" if claim["conceded"] else "played"
        self._game_over(now, lambda: self._match.finish_game(claim["winner"], claim["kind"], how))

    def _on_reject(self, inp: Input, now: float) -> None:
        self._reject(inp.args["side"])

    def _reject(self, side: Side) -> None:
        claim = self.s.claim
        if claim is None:
            raise Refused("no_claim", "no result waits for confirmation")
        if claim["by"] == side:
            raise Refused("own_claim", "the claimant's opponent answers the claim")
        self.s.claim = None
        self.s.menu = 0
        self._emit(ev.ResultRejected(by=side))
        self._call_director("disputed_result")

    # ── director ────────────────────────────────────────────────────────
    def _on_director_pause(self, inp: Input, now: float) -> None:
        if self.s.state == "paused":
            self.s.paused_by = "director"
            self._set_reason(inp.args["reason"])
        elif self.s.state == "result_entry":
            raise Refused("not_running", "the clocks are already stopped")
        else:
            self._pause(now, inp.args["reason"], "director")

    def _on_director_resume(self, inp: Input, now: float) -> None:
        self._resume(now, "director")

    def _on_director_adjust(self, inp: Input, now: float) -> None:
        side, seconds = inp.args["side"], float(inp.args["seconds"])
        if not self.s.timed:
            raise Refused("no_clock", "this match has no clock")
        reserve = self._clock.adjust(side, seconds, now)
        self._emit(ev.ClockAdjusted(side=side, seconds=seconds, reserve=reserve))

    def _on_director_lose_delay(self, inp: Input, now: float) -> None:
        if not self.s.timed:
            raise Refused("no_clock", "this match has no clock")
        self._clock.forfeit_delay(inp.args["side"])
        self._emit(ev.DelayLost(side=inp.args["side"]))

    def _on_director_score(self, inp: Input, now: float) -> None:
        m = self._match
        before = dict(m.score)
        m.correct({"a": inp.args["a"], "b": inp.args["b"]})
        self._emit(ev.ScoreCorrected(before=before, score=dict(m.score), reason=inp.args["reason"]))
        if m.over and self.s.state != "match_over":
            self._clock.stop(now)
            self._end_match()
        elif not m.over and self.s.state == "match_over":
            self._go("between_games")

    def _on_director_result(self, inp: Input, now: float) -> None:
        m = self._match
        if m.cube_offered_by is not None:
            m.cube_offered_by = None  # the director's ruling replaces the pending double
        winner, kind = inp.args["winner"], inp.args["kind"]
        refusal = m.result_refusal(winner, kind)
        if refusal:
            raise refusal
        self._game_over(now, lambda: m.finish_game(winner, kind, "director"))

    def _on_director_clock(self, inp: Input, now: float) -> None:
        spec = inp.args["clock"]
        in_game = self.s.state in ("running", "cube_offered", "result_entry") or (
            self.s.state == "paused" and self.s.resume_to != "between_games"
        )
        if not in_game:
            self.s.clock_order = None  # a clock set now replaces any order for later
            self._set_clock(spec)
            return
        # HGV 9.1.1: a clock starts with a game. The order waits for the next one and the game
        # in progress keeps its clock (taking a clock off waits too: a director who sees a
        # mistake mid-game adjusts the reserves instead, and the players' rules do not change
        # under them). It is checked now, so a bad order is refused to the director at once.
        self._setup_clock(spec, sum(self._match.score.values()))
        self.s.clock_order = {"clock": spec}
        self._emit(ev.ClockPending(clock=spec, game=self._match.game_number + 1))

    def _set_clock(self, spec: dict[str, Any] | None) -> None:
        """Put the clock ``spec`` on the match now (HGV 7.6.2: the reserve for the points
        already scored, both players' added), or take it off (None)."""
        scored = sum(self._match.score.values()) if self.s.match else 0
        timed, clock = self._setup_clock(spec, scored)
        self.s.timed, self.s.clock = timed, clock
        self._emit(
            ev.ClockSet(
                clock=clock.settings.to_dict() if timed else None,
                reserve=dict(clock.reserve) if timed else {},
            )
        )

    def _on_director_clear_call(self, inp: Input, now: float) -> None:
        if self.s.director_call is None:
            raise Refused("no_call", "the director has not been called")
        self.s.director_call = None
        self._emit(ev.DirectorCallCleared())

    def _on_director_forfeit(self, inp: Input, now: float) -> None:
        m = self._match
        if self.s.state in ("assigned", "checking_in"):
            self._emit(ev.MatchStarted(score=dict(m.score), reserve=dict(self._clock.reserve)))
        if self._clock.on_move is not None:
            self._clock.stop(now)
        m.end_by(inp.args["winner"], "forfeit")
        self._end_match()

    # ── reading ─────────────────────────────────────────────────────────
    def menu_items(self) -> tuple[str, ...]:
        """The players' menu in ``paused`` and ``result_entry`` (empty elsewhere)."""
        if self.s.state in ("paused", "result_entry") and self.s.claim is None:
            return self._menu_items()
        return ()

    def snapshot(self) -> dict[str, Any]:
        """The full state, JSON-able; :meth:`restore` rebuilds the table from it."""
        return self.s.to_dict()

    @classmethod
    def restore(cls, data: dict[str, Any], settings: TableSettings | None = None) -> Table:
        return cls(TableState.from_dict(data), settings)
