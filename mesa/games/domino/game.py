"""One domino pairs game: hands, the play timer, penalties, absence and the end of time. Pure.

Time is passed in as ``now``, seconds on a monotonic clock. A pair's score is the points of
the hands it won, nothing else (RULES §5: the 200, the tie at time and the winner count hand
points only). Fines and awards belong to the players' records, which the hub keeps; the game
notes the fines it knows per player (:attr:`DominoGame.penalties`) for the table's screen.

>>> g = DominoGame()
>>> g.start(now=0.0)                     # "TIEMPO"
>>> g.start_hand("n", now=60.0)          # n drew the highest tile and leads; w is on turn
>>> g.play("w", now=70.0).seconds
10.0
>>> g.pass_("s", now=77.0).penalties[0].points    # 7 s to say "paso": +25 to each of e and w
25
>>> _ = g.end_hand("e", "domino", now=80.0)       # e placed the last tile
>>> g.record_hand("ew", 37).score_after           # the +25s are e's and w's, not the game's
{'ns': 0, 'ew': 37}
>>> g.player_points("e"), g.player_points("w")
(25, 25)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from mesa.errors import RuleError
from mesa.games.domino.penalties import PENALTIES, REASONS
from mesa.games.domino.rules import (
    PAIRS,
    SEATS,
    DominoSettings,
    Pair,
    Seat,
    is_pair,
    is_seat,
    members,
    next_seat,
    opponents,
    other_pair,
    pair_of,
    partner,
)

Phase = Literal["waiting", "between", "playing", "counting", "over"]
HandHow = Literal["domino", "block", "annulled"]
GameEnd = Literal["points", "time", "absence", "expulsion"]
HAND_HOWS: tuple[str, ...] = ("domino", "block")  # how a hand's last tile ends it
# Why the director may annul a hand (seed: "pasar con ficha jugable", "chivo"): the hand
# scores nothing and the lead rotates.
ANNUL_REASONS: tuple[str, ...] = ("pass_with_playable", "chivo")


@dataclass(frozen=True)
class PenaltyRecord:
    """Points noted on one player (``seat``) because of ``offender``; negative is a penalty.

    Noted for the table's screen: the points belong to the player's record (kept by the hub),
    never to the game's score."""

    seat: Seat
    points: int
    reason: str
    offender: Seat
    hand: int  # the hand it happened in (0 before the first)


@dataclass(frozen=True)
class HandRecord:
    """One finished hand. ``pair`` is None for a tied block and an annulled hand (nobody wins
    it; ``by`` is then, for an annulled hand, the offender)."""

    number: int
    lead: Seat
    how: HandHow
    by: Seat  # who placed the last tile (domino) or called the block
    pair: Pair | None
    points: int
    score_after: dict[str, int]
    reason: str = ""  # why an annulled hand was annulled (mesa.games.domino.game.ANNUL_REASONS)


@dataclass(frozen=True)
class LateRecord:
    """``seat`` reached the table after the two minutes, with ``hand`` hands played."""

    seat: Seat
    hand: int


@dataclass(frozen=True)
class TurnResult:
    """One turn at the table: a play or a pass, how long it took and what that cost."""

    seat: Seat
    seconds: float
    passed: bool
    limit: float
    warning: bool
    penalties: tuple[PenaltyRecord, ...]


@dataclass(frozen=True)
class TimeCall:
    """ "TIEMPO" at the end of the game's time: ``final_hand`` is the last hand to be played.

    ``in_progress`` is True when a hand was being played (its last tile not yet placed): that
    hand is the last. Otherwise one more hand is played."""

    hand: int
    final_hand: int
    in_progress: bool


@dataclass
class DominoGame:
    """Score, hands, timer and penalties of one game between the pairs ``ns`` and ``ew``."""

    settings: DominoSettings = field(default_factory=DominoSettings)
    started_at: float | None = None
    phase: Phase = "waiting"
    hand: int = 0  # the number of the last hand begun
    lead: Seat | None = None  # who led the hand in progress (or the last one)
    on_turn: Seat | None = None
    turn_started: float | None = None
    ended_by_seat: Seat | None = None  # the hand being counted: last tile / block caller
    hand_how: HandHow | None = None
    time_called: bool = False
    final_hand: int | None = None
    hands: list[HandRecord] = field(default_factory=list)
    penalties: list[PenaltyRecord] = field(default_factory=list)
    breaches: dict[str, int] = field(default_factory=dict)  # seat → slow plays this game
    expelled: list[Seat] = field(default_factory=list)
    absent: list[Seat] = field(default_factory=list)
    late: list[LateRecord] = field(default_factory=list)  # late arrivals noted, in order
    winner: Pair | None = None
    ended_by: GameEnd | None = None
    games_won: dict[str, int] = field(default_factory=lambda: {p: 0 for p in PAIRS})
    signed: dict[str, str] = field(default_factory=dict)  # pair → the seat that signed

    # ── reading ─────────────────────────────────────────────────────────
    @property
    def over(self) -> bool:
        return self.phase == "over"

    @property
    def score(self) -> dict[str, int]:
        """Each pair's points: the hands it won, only (fines are the players' records)."""
        out: dict[str, int] = {p: 0 for p in PAIRS}
        for h in self.hands:
            if h.pair is not None:
                out[h.pair] += h.points
        return out

    def player_points(self, seat: Seat) -> int:
        """The fines (and late-pass bonuses) noted on one player at this table, for the
        sheet's per-player column; the player's record is the hub's."""
        return sum(p.points for p in self.penalties if p.seat == seat)

    @property
    def end_at(self) -> float | None:
        """The instant "TIEMPO" is called again, on the table's monotonic clock."""
        if self.started_at is None:
            return None
        return self.started_at + self.settings.game_seconds

    def time_left(self, now: float) -> float | None:
        end = self.end_at
        return None if end is None else max(0.0, end - now)

    def turn_elapsed(self, now: float) -> float | None:
        if self.turn_started is None:
            return None
        return max(0.0, now - self.turn_started)

    @property
    def next_lead(self) -> Seat | None:
        """Who leads the next hand; None before the first (the highest drawn tile decides)."""
        return None if self.lead is None else next_seat(self.lead)

    @property
    def sheet_signed(self) -> bool:
        return all(p in self.signed for p in PAIRS)

    # ── the game's time ─────────────────────────────────────────────────
    def start(self, now: float) -> None:
        """ "TIEMPO": the game's 35 minutes start at ``now`` (which may lie in the past)."""
        if self.phase != "waiting":
            raise RuleError("already_started", "the game has already started")
        self.started_at = now
        self.phase = "between"

    def anchor(self, started_at: float, now: float) -> None:
        """Move the game's start (a restarted table re-learns it from the hub's wall clock).

        The turn in progress restarts its timer at ``now``: the power cut was nobody's turn."""
        if self.phase == "waiting":
            raise RuleError("not_started", "the game has not started")
        if self.over:
            raise RuleError("game_over", "the game is over")
        self.started_at = started_at
        if self.on_turn is not None:
            self.turn_started = now

    def settle_time(self, now: float) -> TimeCall | None:
        """Call "TIEMPO" once ``now`` reaches the end of the game's time (RULES §5).

        The hand in progress is the last if its last tile is not yet placed; otherwise (the
        points are being counted, or no hand is on) one more hand is played."""
        end = self.end_at
        if end is None or self.over or self.time_called or now < end:
            return None
        self.time_called = True
        in_progress = self.phase == "playing"
        self.final_hand = self.hand if in_progress else self.hand + 1
        return TimeCall(self.hand, self.final_hand, in_progress)

    # ── hands and turns ─────────────────────────────────────────────────
    def _need(self, phase: Phase, code: str, message: str) -> None:
        if self.over:
            raise RuleError("game_over", "the game is over")
        if self.phase != phase:
            raise RuleError(code, message)

    def start_hand(self, lead: Seat, now: float) -> None:
        """``lead`` placed the first tile: the hand is on and the next seat's timer runs."""
        if not is_seat(lead):
            raise RuleError("bad_seat", f"unknown seat {lead!r}")
        self._need("between", "not_between_hands", "a hand starts only between hands")
        expected = self.next_lead
        if expected is not None and lead != expected:
            raise RuleError("not_lead", f"the lead rotates: {expected} leads this hand, not {lead}")
        self.hand += 1
        self.lead = lead
        self.on_turn = next_seat(lead)
        self.turn_started = now
        self.phase = "playing"

    def _turn(self, seat: Seat, now: float) -> float:
        if not is_seat(seat):
            raise RuleError("bad_seat", f"unknown seat {seat!r}")
        self._need("playing", "no_hand", "no hand is being played")
        if seat != self.on_turn:
            raise RuleError("not_on_turn", f"{seat} is not on turn ({self.on_turn} is)")
        assert self.turn_started is not None
        return max(0.0, now - self.turn_started)

    def _slow_play(self, seat: Seat, seconds: float) -> tuple[bool, tuple[PenaltyRecord, ...]]:
        """Seed: over 15 s, the first time a warning ("amonestación"), then −25 each time."""
        if seconds <= self.settings.play_seconds:
            return False, ()
        self.breaches[seat] = self.breaches.get(seat, 0) + 1
        if self.breaches[seat] <= self.settings.play_warnings:
            return True, ()
        return False, tuple(self.penalize(seat, "slow_play"))

    def play(self, seat: Seat, now: float) -> TurnResult:
        """``seat`` placed a tile: the turn passes to the right."""
        seconds = self._turn(seat, now)
        warning, penalties = self._slow_play(seat, seconds)
        self.on_turn, self.turn_started = next_seat(seat), now
        return TurnResult(seat, seconds, False, self.settings.play_seconds, warning, penalties)

    def pass_(self, seat: Seat, now: float) -> TurnResult:
        """``seat`` said "paso": over 5 s gives +25 to each player of the other pair."""
        seconds = self._turn(seat, now)
        penalties: tuple[PenaltyRecord, ...] = ()
        if seconds > self.settings.pass_seconds:
            penalties = tuple(self.penalize(seat, "late_pass"))
        self.on_turn, self.turn_started = next_seat(seat), now
        return TurnResult(seat, seconds, True, self.settings.pass_seconds, False, penalties)

    def end_hand(self, seat: Seat, how: HandHow, now: float) -> TurnResult | None:
        """The last tile is down: ``seat`` dominoed (on turn, timed as a play) or called a block.

        From here the points are counted; the hand's winner is entered with :meth:`record_hand`."""
        if how not in HAND_HOWS:
            raise RuleError("bad_how", f"a hand ends by domino or block, not {how!r}")
        result = None
        if how == "domino":
            seconds = self._turn(seat, now)
            warning, penalties = self._slow_play(seat, seconds)
            result = TurnResult(seat, seconds, False, self.settings.play_seconds, warning,
                                penalties)
        else:
            if not is_seat(seat):
                raise RuleError("bad_seat", f"unknown seat {seat!r}")
            self._need("playing", "no_hand", "no hand is being played")
        self.phase = "counting"
        self.on_turn = self.turn_started = None
        self.ended_by_seat, self.hand_how = seat, how
        return result

    def record_refusal(self, pair: Pair | None, points: int) -> RuleError | None:
        """Why this hand result cannot be recorded now, or None."""
        if self.over:
            return RuleError("game_over", "the game is over")
        if self.phase != "counting":
            return RuleError("no_hand_to_count", "no hand is waiting for its points")
        if pair is not None and not is_pair(pair):
            return RuleError("bad_pair", f"unknown pair {pair!r}")
        if not isinstance(points, int) or isinstance(points, bool):
            return RuleError("bad_points", f"hand points are a whole number, not {points!r}")
        if not 0 <= points <= self.settings.max_hand_points:
            return RuleError("bad_points",
                             f"hand points are 0…{self.settings.max_hand_points}, not {points}")
        if pair is None and (self.hand_how != "block" or points != 0):
            return RuleError("no_winner", "only a tied block has no winner, and scores 0")
        if self.hand_how == "domino" and self.ended_by_seat is not None and pair is not None \
                and pair != pair_of(self.ended_by_seat):
            return RuleError("not_winner",
                             f"{self.ended_by_seat} dominoed: the hand is {pair_of(self.ended_by_seat)}'s")
        return None

    def record_hand(self, pair: Pair | None, points: int) -> HandRecord:
        """The hand's points, as the winning pair announced and the other pair confirmed.

        A block is won by the pair with fewer points in hand; a tied block (``pair=None``)
        gives the hand to nobody. The lead rotates either way."""
        refusal = self.record_refusal(pair, points)
        if refusal:
            raise refusal
        assert self.lead is not None and self.hand_how is not None
        assert self.ended_by_seat is not None
        score = self.score
        if pair is not None:
            score[pair] += points
        record = HandRecord(self.hand, self.lead, self.hand_how, self.ended_by_seat, pair,
                            points, score)
        self.hands.append(record)
        self.phase = "between"
        self.ended_by_seat = self.hand_how = None
        self._check_end()
        return record

    def annul_hand(self, seat: Seat, reason: str) -> HandRecord:
        """The director annuls the hand on (being played, or its points being entered): ``seat``
        passed with a playable tile or made a "chivo". The hand scores nothing, the lead
        rotates, and the end of the game is settled as after any hand. (The fine is the
        hub's: it lands on the offender's record.)"""
        if not is_seat(seat):
            raise RuleError("bad_seat", f"unknown seat {seat!r}")
        if reason not in ANNUL_REASONS:
            raise RuleError("bad_reason", f"a hand is annulled for {' or '.join(ANNUL_REASONS)}, "
                                          f"not {reason!r}")
        if self.over:
            raise RuleError("game_over", "the game is over")
        if self.phase not in ("playing", "counting"):
            raise RuleError("no_hand", "no hand is being played")
        assert self.lead is not None
        record = HandRecord(self.hand, self.lead, "annulled", seat, None, 0, self.score, reason)
        self.hands.append(record)
        self.phase = "between"
        self.on_turn = self.turn_started = None
        self.ended_by_seat = self.hand_how = None
        self._check_end()
        return record

    def _check_end(self) -> None:
        """After each hand: 200 reached, or time's last hand played, ends the game — unless the
        pairs are tied, which always plays another hand."""
        score = self.score
        tied = score["ns"] == score["ew"]
        reached = max(score.values()) >= self.settings.target_points
        last = self.time_called and self.final_hand is not None and self.hand >= self.final_hand
        if tied:
            if last:
                self.final_hand = self.hand + 1
            return
        leader: Pair = "ns" if score["ns"] > score["ew"] else "ew"
        if reached:
            self._finish(leader, "points")
        elif last:
            self._finish(leader, "time")

    def _finish(self, winner: Pair | None, how: GameEnd) -> None:
        self.winner, self.ended_by = winner, how
        if winner is not None:
            self.games_won[winner] += self.settings.absence_games if how == "absence" else 1
        self.phase = "over"
        self.on_turn = self.turn_started = None
        self.ended_by_seat = self.hand_how = None

    # ── penalties, absence, expulsion ───────────────────────────────────
    def penalize(self, offender: Seat, reason: str, points: int | None = None) -> list[PenaltyRecord]:
        """Record a penalty on the seats the reason touches; returns one record per seat.

        An expelling reason ends a game in progress: the other pair wins it by forfeit (its
        award is the hub's, on its players' records)."""
        if not is_seat(offender):
            raise RuleError("bad_seat", f"unknown seat {offender!r}")
        if reason not in REASONS:
            raise RuleError("bad_reason", f"unknown penalty reason {reason!r}")
        if points is not None and (not isinstance(points, int) or isinstance(points, bool)):
            raise RuleError("bad_points", f"penalty points are a whole number, not {points!r}")
        rule = PENALTIES[reason]
        value = self.settings.penalty_points[reason] if points is None else points
        seats: tuple[Seat, ...]
        if rule.scope == "offender":
            seats = (offender,)
        elif rule.scope == "offender_and_partner":
            seats = (offender, partner(offender))
        elif rule.scope == "offender_pair":
            seats = members(pair_of(offender))
        elif rule.scope == "other_pair":
            seats = opponents(pair_of(offender))
        else:
            seats = SEATS
        records = [PenaltyRecord(s, value, reason, offender, self.hand) for s in seats if value]
        self.penalties.extend(records)
        if rule.expels and offender not in self.expelled:
            self.expelled.append(offender)
            if not self.over and self.phase != "waiting":
                self._finish(other_pair(pair_of(offender)), "expulsion")
        return records

    def declare_absent(self, seats: list[Seat]) -> list[PenaltyRecord]:
        """Absent players: −100 each, noted; a complete present pair wins the game (the +100
        to each present player is the hub's award, on their records)."""
        if self.over:
            raise RuleError("game_over", "the game is over")
        if self.hand > 0 or self.phase not in ("waiting", "between"):
            raise RuleError("game_under_way", "absence is declared before the first hand")
        if not seats or len(set(seats)) != len(seats) or not all(is_seat(s) for s in seats):
            raise RuleError("bad_seats", f"absent seats are distinct seats of n, e, s, w: {seats!r}")
        records: list[PenaltyRecord] = []
        for seat in seats:
            records += self.penalize(seat, "absent")
        self.absent = list(seats)
        present = [p for p in PAIRS if not set(members(p)) & set(seats)]
        winner: Pair | None = present[0] if len(present) == 1 else None
        self._finish(winner, "absence")
        return records

    def note_late(self, seat: Seat) -> int:
        """``seat`` reached the table after the two minutes; returns how many times this game.

        Only noted (and shown): the second late arrival's −50 is the hub's, from the record."""
        if not is_seat(seat):
            raise RuleError("bad_seat", f"unknown seat {seat!r}")
        if self.over:
            raise RuleError("game_over", "the game is over")
        if self.phase not in ("waiting", "between"):
            raise RuleError("not_between_hands", "a late arrival is noted between hands")
        self.late.append(LateRecord(seat, self.hand))
        return sum(1 for r in self.late if r.seat == seat)

    @property
    def unsigned(self) -> list[Pair]:
        """The pairs that have not signed the sheet, of those with a player left to sign it
        (a pair absent or expelled whole cannot)."""
        gone = set(self.absent) | set(self.expelled)
        return [p for p in PAIRS if p not in self.signed and not set(members(p)) <= gone]

    def sign(self, seat: Seat) -> bool:
        """A player signs the score sheet for their pair; True when it is that pair's first."""
        if not is_seat(seat):
            raise RuleError("bad_seat", f"unknown seat {seat!r}")
        if not self.over:
            raise RuleError("game_not_over", "the score sheet is signed when the game is over")
        pair = pair_of(seat)
        if pair in self.signed:
            return False
        self.signed[pair] = seat
        return True

    # ── persistence ─────────────────────────────────────────────────────
    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["settings"] = self.settings.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DominoGame:
        values = dict(data)
        values["settings"] = DominoSettings.from_dict(values["settings"])
        values["hands"] = [HandRecord(**h) for h in values.get("hands", [])]
        values["penalties"] = [PenaltyRecord(**p) for p in values.get("penalties", [])]
        values["late"] = [LateRecord(**r) for r in values.get("late", [])]
        # A snapshot from before the records moved to the hub held the pairs' awards here: the
        # hub gives them now, and they were never part of a hand.
        values.pop("awards", None)
        return cls(**values)
