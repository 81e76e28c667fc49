"""The domino table: four seat buttons and the rules core joined into one state machine. Pure.

>>> t = DominoTable()
>>> players = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}
>>> t.apply("assign", {"game_id": "R1-M3", "players": players}, now=0.0).state
'assigned'
>>> t.apply("tiempo", {"start_wall": 1000.0, "wall": 1000.0}, now=5.0).state
'ready'
>>> [e.TYPE for e in t.apply("press", {"seat": "n"}, now=60.0).events]   # n leads
['domino.hand.started']
>>> t.apply("press", {"seat": "s"}, now=62.0).refusal.code                 # w is on turn
'not_on_turn'
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mesa import events as ev
from mesa.engine.inputs import Input
from mesa.engine.machine import Machine
from mesa.engine.outcome import Outcome, Refused
from mesa.engine.snapshot import state_from_dict
from mesa.errors import ConfigError
from mesa.games.domino.game import DominoGame, HandHow, PenaltyRecord, TurnResult
from mesa.games.domino.inputs import INPUT_SPECS
from mesa.games.domino.penalties import PENALTIES
from mesa.games.domino.rules import SEATS, DominoSettings, Pair, Seat, other_pair, pair_of
from mesa.games.domino.transitions import STATES, TRANSITIONS

__all__ = ["GAME", "DominoState", "DominoTable"]

GAME = "domino"  # this game's wire name (the registry's, a snapshot's ``game_name``)


@dataclass
class DominoState:
    """Everything the domino table knows; JSON-able through :meth:`to_dict` (journal, snapshot).

    ``entry`` is the hand's points being entered: ``{"pair", "by", "tens", "units"}`` (``pair``
    is None until a block's first press picks it; after a block it follows the pair of the
    seat that last entered, ``by``). ``claim`` is the entered result waiting for the other
    pair: ``{"by", "pair", "points"}`` (``pair`` None for a tied block). ``unsigned_before``
    are the pairs that left the previous game's sheet unsigned (shown until the next game)."""

    state: str = "idle"
    game_name: str = GAME  # the game this state is of (an old snapshot has none: domino)
    game_id: str | None = None
    players: dict[str, str] = field(default_factory=dict)
    language: str = "es"
    game: DominoGame | None = None
    start_wall: float | None = None
    entry: dict[str, Any] | None = None
    claim: dict[str, Any] | None = None
    last_now: float | None = None
    unsigned_before: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        # The game is written by its own to_dict (never deep-copied only to be replaced).
        game = self.game.to_dict() if self.game is not None else None
        return {f.name: game if f.name == "game" else copy.deepcopy(getattr(self, f.name))
                for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DominoState:
        return state_from_dict(cls, data, GAME, STATES, "domino", {"game": DominoGame.from_dict})


class DominoTable(Machine[DominoState]):
    """One domino table's state machine. Feed it inputs with :meth:`apply` (the engine's loop);
    read its view with :func:`mesa.games.domino.view.domino_view`."""

    GAME: ClassVar[str] = GAME
    INPUTS = INPUT_SPECS
    TRANSITIONS = TRANSITIONS
    LABEL = "domino table"

    def __init__(self, state: DominoState | None = None) -> None:
        super().__init__(state or DominoState())

    def _settled_outcome(self, inp: Input, now: float, settled: list[ev.Event]) -> Outcome | None:
        # A tick only settles time ("TIEMPO" stands even if the next input is refused).
        return Outcome(inp, now, self.s.state, settled) if inp.name == "tick" else None

    @property
    def _game(self) -> DominoGame:
        assert self.s.game is not None
        return self.s.game

    # ── time ────────────────────────────────────────────────────────────
    def _settle(self, now: float) -> None:
        # "TIEMPO" is time's doing, not the input's: it stands even if the input is refused.
        if self.s.state not in ("ready", "playing", "hand_entry", "hand_confirm"):
            return
        call = self._game.settle_time(now)
        if call is not None:
            self._emit(ev.DominoTimeCalled(hand=call.hand, final_hand=call.final_hand,
                                           in_progress=call.in_progress))

    def _elapsed(self, inp: Input) -> float:
        # A start announced in the future is clock skew between hub and table: it counts as now.
        return max(0.0, float(inp.args["wall"]) - float(inp.args["start_wall"]))

    def _on_tiempo(self, inp: Input, now: float) -> None:
        g = self._game
        elapsed = self._elapsed(inp)
        if self.s.state == "assigned":
            g.start(now - elapsed)
            self.s.start_wall = float(inp.args["start_wall"])
            self._emit(ev.DominoGameStarted(start_wall=self.s.start_wall, elapsed=elapsed,
                                            time_left=g.time_left(now) or 0.0))
            self._go("ready")
        else:
            g.anchor(now - elapsed, now)
            self.s.start_wall = float(inp.args["start_wall"])
            self._emit(ev.DominoTimeSynced(start_wall=self.s.start_wall, elapsed=elapsed,
                                           time_left=g.time_left(now) or 0.0))
        self._settle(now)

    # ── assignment ──────────────────────────────────────────────────────
    def _on_assign(self, inp: Input, now: float) -> None:
        a = inp.args
        players: dict[str, str] = a["players"]
        if set(players) != set(SEATS) or not all(p.strip() for p in players.values()):
            raise Refused("bad_players", "players must name the four seats n, e, s and w")
        try:
            settings = DominoSettings.from_dict(a["settings"] or {})
        except (ConfigError, TypeError) as e:
            raise Refused("bad_settings", str(e)) from None
        unsigned = self._report_unsigned()
        self.s = DominoState(language=a["language"], last_now=self.s.last_now,
                             game_id=a["game_id"], players=dict(players),
                             game=DominoGame(settings), unsigned_before=unsigned)
        self._emit(ev.DominoTableAssigned(game_id=a["game_id"], players=dict(players),
                                          settings=settings.to_dict()))
        self._go("assigned")

    def _on_unassign(self, inp: Input, now: float) -> None:
        game_id = self.s.game_id or ""
        unsigned = self._report_unsigned()
        self.s = DominoState(language=self.s.language, last_now=now, unsigned_before=unsigned)
        self._emit(ev.DominoTableUnassigned(game_id=game_id))

    def _report_unsigned(self) -> list[str]:
        """The game over leaves the table: a pair that did not sign its sheet is reported (the
        hub fines each of its players) before the table moves on."""
        g = self.s.game
        if self.s.state != "game_over" or g is None or not g.unsigned:
            return []
        unsigned = g.unsigned
        self._emit(ev.DominoSheetUnsigned(game_id=self.s.game_id or "", pairs=list(unsigned)))
        return [str(p) for p in unsigned]

    # ── the buttons ─────────────────────────────────────────────────────
    def _on_press(self, inp: Input, now: float) -> None:
        seat: Seat = inp.args["seat"]
        st = self.s.state
        if st == "ready":
            self._game.start_hand(seat, now)
            self._emit(ev.DominoHandStarted(hand=self._game.hand, lead=seat))
            self._go("playing")
        elif st == "playing":
            self._turn_events(self._game.play(seat, now))
        elif st == "hand_entry":
            entry = self._entering(seat)
            entry["units"] = (entry["units"] + 1) % 10
        elif st == "hand_confirm":
            self._reject(seat)
        elif st == "game_over":
            self._sign(seat)

    def _on_hold(self, inp: Input, now: float) -> None:
        seat: Seat = inp.args["seat"]
        st = self.s.state
        if st == "playing":
            self._turn_events(self._game.pass_(seat, now))
        elif st == "hand_entry":
            entry = self._entering(seat)
            tens = self._game.settings.max_hand_points // 10 + 1
            entry["tens"] = (entry["tens"] + 1) % tens
        elif st == "hand_confirm":
            self._confirm(seat, now)

    def _on_long_hold(self, inp: Input, now: float) -> None:
        seat: Seat = inp.args["seat"]
        if self.s.state == "playing":
            g = self._game
            how: HandHow = "domino" if seat == g.on_turn else "block"
            turn = g.end_hand(seat, how, now)
            if turn is not None:
                self._turn_events(turn)
            self._emit(ev.DominoHandOver(hand=g.hand, how=how, seat=seat))
            pair = pair_of(seat) if how == "domino" else None
            self.s.entry = {"pair": pair, "by": seat if pair else None, "tens": 0, "units": 0}
            self._go("hand_entry")
        else:  # hand_entry: the entering pair accepts what the wheel shows
            entry = self._entering(seat)
            points = entry["tens"] * 10 + entry["units"]
            self._claim(seat, points, tie=points == 0 and self._game.hand_how == "block")

    def _turn_events(self, turn: TurnResult) -> None:
        self._emit(ev.DominoTurnEnded(seat=turn.seat, seconds=turn.seconds, passed=turn.passed))
        if turn.warning:
            self._emit(ev.DominoPlayWarning(seat=turn.seat, seconds=turn.seconds,
                                            limit=turn.limit))
        self._penalty_events(list(turn.penalties))

    # ── the hand's points ───────────────────────────────────────────────
    def _entering(self, seat: Seat) -> dict[str, Any]:
        """The entry, for a seat of the pair that enters it.

        A dominoed hand is the dominoing pair's. A block is won by either pair (the one with
        fewer points in hand), so its entry follows the pair of the seat that last entered:
        the other pair's button takes the entry over, its wheel from 0. After a refused claim
        either pair may therefore claim; the entry is never locked to the first pair."""
        self._check_entering(seat)
        entry = self.s.entry
        assert entry is not None
        if entry["pair"] != pair_of(seat):  # a block's entry taken over by the other pair
            entry.update(pair=pair_of(seat), tens=0, units=0)
        entry["by"] = seat
        return entry

    def _check_entering(self, seat: Seat) -> None:
        entry = self.s.entry
        assert entry is not None
        if self._game.hand_how != "block" and pair_of(seat) != entry["pair"]:
            raise Refused("not_entering_pair",
                           f"{entry['pair']} enter this hand's points; {seat} confirms them")

    def _on_claim(self, inp: Input, now: float) -> None:
        seat: Seat = inp.args["seat"]
        points: int = inp.args["points"]
        tie: bool = inp.args["tie"]
        if tie and points != 0:
            raise Refused("bad_points", "a tied block scores 0")
        # Checked first: a refused claim changes nothing, not even whose the entry is.
        self._check_entering(seat)
        refusal = self._game.record_refusal(None if tie else pair_of(seat), points)
        if refusal:
            raise refusal
        entry = self._entering(seat)
        entry["tens"], entry["units"] = divmod(points, 10)
        self._claim(seat, points, tie)

    def _claim(self, seat: Seat, points: int, tie: bool) -> None:
        g = self._game
        pair: Pair | None = None if tie else pair_of(seat)
        refusal = g.record_refusal(pair, points)
        if refusal:
            raise refusal
        self.s.claim = {"by": seat, "pair": pair, "points": points}
        self._emit(ev.DominoHandClaimed(hand=g.hand, by=seat, pair=pair, points=points))
        self._go("hand_confirm")

    def _answering(self, seat: Seat) -> dict[str, Any]:
        claim = self.s.claim
        assert claim is not None
        if pair_of(seat) == pair_of(claim["by"]):
            raise Refused("own_claim", f"a player of {other_pair(pair_of(claim['by']))} "
                                        "answers this claim")
        return claim

    def _on_confirm(self, inp: Input, now: float) -> None:
        self._confirm(inp.args["seat"], now)

    def _confirm(self, seat: Seat, now: float) -> None:
        claim = self._answering(seat)
        g = self._game
        final_before = g.final_hand
        record = g.record_hand(claim["pair"], claim["points"])
        self.s.claim = self.s.entry = None
        self._emit(ev.DominoHandEnded(hand=record.number, how=record.how, pair=record.pair,
                                      points=record.points, confirmed_by=seat,
                                      score=dict(record.score_after)))
        self._after_hand(final_before)

    def _after_hand(self, final_before: int | None) -> None:
        """A hand is over (recorded or annulled): the game ends, or time's tie plays another
        hand, or the next hand is led."""
        g = self._game
        if g.over:
            self._end_game()
            return
        if final_before is not None and g.final_hand is not None and g.final_hand > final_before:
            # Time's last hand ended in a tie: the rules play another.
            self._emit(ev.DominoTimeExtended(final_hand=g.final_hand, score=g.score))
        self._go("ready")

    def _on_annul(self, inp: Input, now: float) -> None:
        g = self._game
        seat: Seat = inp.args["seat"]
        final_before = g.final_hand
        record = g.annul_hand(seat, inp.args["reason"])
        self.s.claim = self.s.entry = None
        self._emit(ev.DominoHandAnnulled(hand=record.number, seat=seat, reason=inp.args["reason"],
                                         score=dict(record.score_after)))
        self._after_hand(final_before)

    def _on_reject(self, inp: Input, now: float) -> None:
        self._reject(inp.args["seat"])

    def _reject(self, seat: Seat) -> None:
        self._answering(seat)
        self.s.claim = None
        self._emit(ev.DominoHandRejected(hand=self._game.hand, by=seat))
        self._go("hand_entry")

    # ── penalties, absence, the end ─────────────────────────────────────
    def _penalty_events(self, records: list[PenaltyRecord]) -> None:
        for r in records:
            self._emit(ev.DominoPenalty(seat=r.seat, points=r.points, reason=r.reason,
                                        offender=r.offender, hand=r.hand))

    def _on_penalty(self, inp: Input, now: float) -> None:
        g = self._game
        seat: Seat = inp.args["seat"]
        reason: str = inp.args["reason"]
        was_over = g.over
        self._penalty_events(g.penalize(seat, reason, inp.args["points"]))
        if PENALTIES[reason].expels:
            self._emit(ev.DominoPlayerExpelled(seat=seat, reason=reason))
        if g.over and not was_over:
            self.s.entry = self.s.claim = None
            self._end_game()

    def _on_late(self, inp: Input, now: float) -> None:
        seat: Seat = inp.args["seat"]
        self._game.note_late(seat)
        self._emit(ev.DominoPlayerLate(seat=seat, hand=self._game.hand))

    def _on_absence(self, inp: Input, now: float) -> None:
        g = self._game
        seats: list[Seat] = list(inp.args["seats"])
        records = g.declare_absent(seats)
        self._emit(ev.DominoAbsence(absent=list(seats), winner=g.winner))
        self._penalty_events(records)
        self._end_game()

    def _end_game(self) -> None:
        g = self._game
        assert g.ended_by is not None
        self._emit(ev.DominoGameEnded(winner=g.winner, how=g.ended_by, score=g.score,
                                      games_won=dict(g.games_won), hands=len(g.hands),
                                      absent=list(g.absent), expelled=list(g.expelled)))
        self._go("game_over")

    def _on_sign(self, inp: Input, now: float) -> None:
        self._sign(inp.args["seat"])

    def _sign(self, seat: Seat) -> None:
        g = self._game
        if not g.sign(seat):
            raise Refused("already_signed",
                           f"{pair_of(seat)} already signed (by {g.signed[pair_of(seat)]})")
        self._emit(ev.DominoSheetSigned(pair=pair_of(seat), seat=seat, complete=g.sheet_signed))

    # ── persistence ─────────────────────────────────────────────────────
    def snapshot(self) -> dict[str, Any]:
        """The full state, JSON-able; :meth:`restore` rebuilds the table from it."""
        return self.s.to_dict()

    @classmethod
    def restore(cls, data: dict[str, Any], now: float | None = None) -> DominoTable:
        """Rebuild a table from :meth:`snapshot`. ``now`` is the new monotonic clock's reading
        after a reboot: stored instants are moved onto it as if no time had passed, until the
        hub's "TIEMPO" (sent again on reconnection) re-anchors the game's start exactly."""
        table = cls(DominoState.from_dict(data))
        if now is not None and table.s.last_now is not None:
            shift = now - table.s.last_now
            g = table.s.game
            if g is not None:
                if g.started_at is not None:
                    g.started_at += shift
                if g.turn_started is not None:
                    g.turn_started += shift
            table.s.last_now = now
        return table

