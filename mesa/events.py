"""The one event vocabulary: what a table emits, the wire carries and the hub stores.

Every event is a frozen dataclass registered under a dotted ``TYPE``. ``SCHEMA_VERSION`` is
raised whenever an event changes incompatibly; ``docs/events.md`` is generated from this module.

>>> e = TurnEnded(side="a", seconds=14.5, delay=10.0, charged=4.5, reserve=355.5)
>>> e.TYPE, e.to_data()["charged"]
('turn.ended', 4.5)
>>> parse_event("turn.ended", e.to_data()) == e
True
>>> parse_event("turn.ended", dict(e.to_data(), side="c"))
Traceback (most recent call last):
  ...
mesa.events.EventError: turn.ended: side must be 'a' or 'b', not 'c'
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from mesa.errors import MesaError
from mesa.validation import ValidationError, check_value

SCHEMA_VERSION = 1

SideName = Literal["a", "b"]


class EventError(MesaError):
    """An event payload that does not match the vocabulary."""


EVENT_TYPES: dict[str, type[Event]] = {}


@dataclass(frozen=True)
class Event:
    TYPE: ClassVar[str] = ""
    CATEGORY: ClassVar[str] = ""

    def to_data(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_dict(self) -> dict[str, Any]:
        """``{"type": ..., "data": {...}}``, the form printed by replay and sent on the wire."""
        return {"type": self.TYPE, "data": self.to_data()}


def _register(type_name: str, category: str) -> Any:
    def wrap(cls: type[Event]) -> type[Event]:
        if type_name in EVENT_TYPES:
            raise RuntimeError(f"event type {type_name} registered twice")
        cls.TYPE = type_name
        cls.CATEGORY = category
        EVENT_TYPES[type_name] = cls
        return cls

    return wrap


# ── assignment and check-in ─────────────────────────────────────────────────
@_register("table.assigned", "assignment")
@dataclass(frozen=True)
class TableAssigned(Event):
    """The hub assigned a match to this table; the table now waits for check-in."""

    match_id: str
    players: dict[str, str]
    length: int
    timed: bool
    clock: dict[str, Any] | None
    scheduled_start: float | None


@_register("table.unassigned", "assignment")
@dataclass(frozen=True)
class TableUnassigned(Event):
    """The hub withdrew the match from this table (moved elsewhere, or cancelled)."""

    match_id: str


@_register("player.checked_in", "assignment")
@dataclass(frozen=True)
class PlayerCheckedIn(Event):
    """A player checked in, by a press of their button or by their member card."""

    side: SideName
    card: str | None


@_register("card.rejected", "assignment")
@dataclass(frozen=True)
class CardRejected(Event):
    """A card was read that does not belong to either player of the match; nobody checked in.
    ``suppressed`` more unknown cards were read since the last such event (the reader's rate
    limit sums up a burst instead of sending every read)."""

    card: str
    reason: str
    suppressed: int = 0


@_register("lateness.point", "assignment")
@dataclass(frozen=True)
class LatenessPoint(Event):
    """A full lateness period passed with only ``side`` present: one point to ``side``."""

    side: SideName
    points: int


# ── match and games ─────────────────────────────────────────────────────────
@_register("match.started", "match")
@dataclass(frozen=True)
class MatchStarted(Event):
    """Both players are present; the match starts from ``score`` (lateness points included)."""

    score: dict[str, int]
    reserve: dict[str, float]


@_register("game.started", "match")
@dataclass(frozen=True)
class GameStarted(Event):
    """The lower die pressed: the opponent's clock runs and the game is on."""

    game: int
    first_on_move: SideName
    crawford: bool
    score: dict[str, int]


@_register("game.ended", "match")
@dataclass(frozen=True)
class GameEnded(Event):
    """A game finished. ``kind`` 1/2/3 is single/gammon/backgammon (0 for a passed double)."""

    game: int
    winner: SideName
    kind: int
    cube: int
    points: int
    how: str
    score: dict[str, int]


@_register("match.ended", "match")
@dataclass(frozen=True)
class MatchEnded(Event):
    """The match is over: ``how`` is score, timeout, lateness, penalty, forfeit or director."""

    winner: SideName
    score: dict[str, int]
    how: str


# ── clock ───────────────────────────────────────────────────────────────────
@_register("turn.ended", "clock")
@dataclass(frozen=True)
class TurnEnded(Event):
    """``side`` ended a turn of ``seconds`` (pauses excluded); ``charged`` came off the reserve."""

    side: SideName
    seconds: float
    delay: float
    charged: float
    reserve: float


@_register("clock.paused", "clock")
@dataclass(frozen=True)
class ClockPaused(Event):
    """Both clocks stopped. ``by`` is players or director."""

    reason: str
    by: str


@_register("clock.pause_reason", "clock")
@dataclass(frozen=True)
class PauseReason(Event):
    """The players recorded why the clocks are stopped."""

    reason: str


@_register("clock.resumed", "clock")
@dataclass(frozen=True)
class ClockResumed(Event):
    """The clocks run again; the frozen turn continues where it stopped."""

    by: str


@_register("clock.flag_fell", "clock")
@dataclass(frozen=True)
class FlagFell(Event):
    """``side``'s turn exceeded delay + reserve; what follows depends on ``policy``."""

    side: SideName
    policy: str
    expiry: int


@_register("clock.overtime", "clock")
@dataclass(frozen=True)
class Overtime(Event):
    """Overtime policy, first expiry: ``seconds`` added to ``side``'s reserve."""

    side: SideName
    seconds: float


@_register("clock.penalty", "clock")
@dataclass(frozen=True)
class PenaltyPoints(Event):
    """Penalty-points policy (DE 5.1): points to the opponent, the expired clock reset."""

    side: SideName
    points: int
    reserve: float
    grace: bool
    frozen_cube: bool


@_register("clock.adjusted", "clock")
@dataclass(frozen=True)
class ClockAdjusted(Event):
    """The director added (or removed) ``seconds`` to ``side``'s reserve."""

    side: SideName
    seconds: float
    reserve: float


@_register("clock.delay_lost", "clock")
@dataclass(frozen=True)
class DelayLost(Event):
    """HGV 9.4.1: ``side`` picked up the dice early and loses the delay of their next turn."""

    side: SideName


@_register("clock.set", "clock")
@dataclass(frozen=True)
class ClockSet(Event):
    """The director put a clock on the match (or took it off: ``clock`` is null)."""

    clock: dict[str, Any] | None
    reserve: dict[str, float]


@_register("clock.pending", "clock")
@dataclass(frozen=True)
class ClockPending(Event):
    """The director put a clock on the match (or took it off: ``clock`` is null) during a game:
    it starts with game number ``game``, the match's next (HGV 9.1.1), with the HGV 7.6.2
    reserve for the score then; the game in progress keeps its clock. ``clock`` is the order as
    given (a preset, or settings). A ``clock.set`` follows when this game ends and the match
    goes on; if the match ends first, the order lapses. A later order replaces this one."""

    clock: dict[str, Any] | None
    game: int


# ── cube ────────────────────────────────────────────────────────────────────
@_register("cube.offered", "cube")
@dataclass(frozen=True)
class CubeOffered(Event):
    """``side`` doubled to ``value``; the opponent's clock runs while they decide."""

    side: SideName
    value: int


@_register("cube.taken", "cube")
@dataclass(frozen=True)
class CubeTaken(Event):
    """``side`` took: the cube is on ``value``, owned by ``side``."""

    side: SideName
    value: int


@_register("cube.passed", "cube")
@dataclass(frozen=True)
class CubePassed(Event):
    """``side`` passed; the game ends for the cube value before the double."""

    side: SideName
    value: int


# ── results ─────────────────────────────────────────────────────────────────
@_register("result.claimed", "result")
@dataclass(frozen=True)
class ResultClaimed(Event):
    """A game result entered at the table by ``by``; it waits for the opponent's confirmation."""

    by: SideName
    winner: SideName
    kind: int
    points: int
    conceded: bool


@_register("result.rejected", "result")
@dataclass(frozen=True)
class ResultRejected(Event):
    """The opponent refused the claimed result; nothing was recorded."""

    by: SideName


@_register("score.corrected", "result")
@dataclass(frozen=True)
class ScoreCorrected(Event):
    """The director corrected the score (HGV 4.8)."""

    before: dict[str, int]
    score: dict[str, int]
    reason: str


# ── director ────────────────────────────────────────────────────────────────
@_register("director.called", "director")
@dataclass(frozen=True)
class DirectorCalled(Event):
    """The table calls the director (players' request, a timeout, a disputed result)."""

    reason: str


@_register("director.call_cleared", "director")
@dataclass(frozen=True)
class DirectorCallCleared(Event):
    """The director answered the call."""


@_register("table.restored", "table")
@dataclass(frozen=True)
class TableRestored(Event):
    """The table restarted and restored its state from the journal: a backgammon table paused
    (``reserve`` its clocks), a domino table with its game's time running on (``reserve`` empty)."""

    state: str
    reserve: dict[str, float]


# ── domino pairs tables (RULES §5) ─────────────────────────────────────────
SeatName = Literal["n", "e", "s", "w"]
PairName = Literal["ns", "ew"]


@_register("domino.table.assigned", "domino")
@dataclass(frozen=True)
class DominoTableAssigned(Event):
    """The hub assigned a domino game: ``players`` by seat (pairs ns and ew) and the game's
    ``settings`` (the seed's numbers unless the director changed them)."""

    game_id: str
    players: dict[str, str]
    settings: dict[str, Any]


@_register("domino.table.unassigned", "domino")
@dataclass(frozen=True)
class DominoTableUnassigned(Event):
    """The hub withdrew the domino game from this table."""

    game_id: str


@_register("domino.game.started", "domino")
@dataclass(frozen=True)
class DominoGameStarted(Event):
    """ "TIEMPO": the game's time started at ``start_wall`` (hub wall clock); the table joined
    ``elapsed`` seconds later and ``time_left`` seconds remain."""

    start_wall: float
    elapsed: float
    time_left: float


@_register("domino.time.synced", "domino")
@dataclass(frozen=True)
class DominoTimeSynced(Event):
    """ "TIEMPO" received again (a restarted table): the game's start re-anchored; the turn in
    progress restarts its timer."""

    start_wall: float
    elapsed: float
    time_left: float


@_register("domino.hand.started", "domino")
@dataclass(frozen=True)
class DominoHandStarted(Event):
    """``lead`` placed the first tile of hand ``hand``; the next seat's timer runs."""

    hand: int
    lead: SeatName


@_register("domino.turn.ended", "domino")
@dataclass(frozen=True)
class DominoTurnEnded(Event):
    """``seat`` placed a tile (or said "paso": ``passed``) after ``seconds``."""

    seat: SeatName
    seconds: float
    passed: bool


@_register("domino.play.warning", "domino")
@dataclass(frozen=True)
class DominoPlayWarning(Event):
    """A play took longer than ``limit`` seconds: the first time a warning, no points."""

    seat: SeatName
    seconds: float
    limit: float


@_register("domino.penalty", "domino")
@dataclass(frozen=True)
class DominoPenalty(Event):
    """``points`` noted at the table on ``seat`` because of ``offender`` (negative: a penalty;
    a late pass gives +25 to each opponent). ``reason`` is a code of the seed's list. Never in
    the game's score: the hub records the table's own timer fines (``slow_play``,
    ``late_pass``) on the player's record; any other reason echoes the hub's own command."""

    seat: SeatName
    points: int
    reason: str
    offender: SeatName
    hand: int


@_register("domino.player.expelled", "domino")
@dataclass(frozen=True)
class DominoPlayerExpelled(Event):
    """``seat`` was expelled (``reason``); a game in progress ends, won by the other pair."""

    seat: SeatName
    reason: str


@_register("domino.time.called", "domino")
@dataclass(frozen=True)
class DominoTimeCalled(Event):
    """ "TIEMPO" at the end of the game's time, during hand ``hand``: ``final_hand`` is the last
    (``in_progress``: the hand's last tile was not yet placed, so it is the last)."""

    hand: int
    final_hand: int
    in_progress: bool


@_register("domino.time.extended", "domino")
@dataclass(frozen=True)
class DominoTimeExtended(Event):
    """Time's last hand ended with the pairs tied in hand points: another hand is played."""

    final_hand: int
    score: dict[str, int]


@_register("domino.hand.over", "domino")
@dataclass(frozen=True)
class DominoHandOver(Event):
    """The last tile of hand ``hand`` is down: ``seat`` dominoed (``how`` domino) or called a
    block (``how`` block). The points are counted and entered."""

    hand: int
    how: str
    seat: SeatName


@_register("domino.hand.claimed", "domino")
@dataclass(frozen=True)
class DominoHandClaimed(Event):
    """``by`` entered ``points`` for ``pair`` (null: a tied block); the other pair confirms."""

    hand: int
    by: SeatName
    pair: PairName | None
    points: int


@_register("domino.hand.rejected", "domino")
@dataclass(frozen=True)
class DominoHandRejected(Event):
    """A player of the other pair refused the claimed points; the entry is reopened."""

    hand: int
    by: SeatName


@_register("domino.hand.ended", "domino")
@dataclass(frozen=True)
class DominoHandEnded(Event):
    """Hand ``hand`` recorded: ``pair`` (null for a tied block) won ``points``; ``score`` is
    both pairs' hand points after it (a game counts hand points only: fines and awards are the
    players' records)."""

    hand: int
    how: str
    pair: PairName | None
    points: int
    confirmed_by: SeatName
    score: dict[str, int]


@_register("domino.hand.annulled", "domino")
@dataclass(frozen=True)
class DominoHandAnnulled(Event):
    """The director annulled hand ``hand``: ``seat`` passed with a playable tile or made a
    "chivo" (``reason``). The hand scores nothing and the lead rotates; ``score`` is both pairs'
    hand points, unchanged. The offender's fine is the hub's, on the player's record."""

    hand: int
    seat: SeatName
    reason: str
    score: dict[str, int]


@_register("domino.player.late", "domino")
@dataclass(frozen=True)
class DominoPlayerLate(Event):
    """``seat`` reached the table after the two minutes, before hand ``hand + 1`` (0: before
    the first). Noted and shown; the second late arrival's −50 is the hub's, from the record."""

    seat: SeatName
    hand: int


@_register("domino.absence", "domino")
@dataclass(frozen=True)
class DominoAbsence(Event):
    """Players absent at the start: ``winner`` (the complete present pair, if any) wins the
    game; each absent player's −100 is noted (see the ``domino.penalty`` events). The awards to
    the present players are the hub's, on their records."""

    absent: list[SeatName]
    winner: PairName | None


@_register("domino.game.ended", "domino")
@dataclass(frozen=True)
class DominoGameEnded(Event):
    """The game is over: ``how`` is points (200), time, absence or expulsion; ``score`` is each
    pair's hand points (fines never change a game); ``games_won`` per pair is the game's own
    result. ``absent`` and ``expelled`` are the seats declared absent or expelled in it."""

    winner: PairName | None
    how: str
    score: dict[str, int]
    games_won: dict[str, int]
    hands: int
    absent: list[SeatName] = dataclasses.field(default_factory=list)
    expelled: list[SeatName] = dataclasses.field(default_factory=list)


@_register("domino.sheet.signed", "domino")
@dataclass(frozen=True)
class DominoSheetSigned(Event):
    """``seat`` signed the score sheet for ``pair``; ``complete`` once both pairs have signed."""

    pair: PairName
    seat: SeatName
    complete: bool


@_register("domino.sheet.unsigned", "domino")
@dataclass(frozen=True)
class DominoSheetUnsigned(Event):
    """The table was given its next game (or freed) while the sheet of game ``game_id`` lacked
    the signature of ``pairs`` (no player of the pair confirmed it): −25 to each of their
    players, on the hub's records. Emitted before ``domino.table.assigned`` / ``unassigned``."""

    game_id: str
    pairs: list[PairName]


@_register("table.outbox_rebuilt", "table")
@dataclass(frozen=True)
class OutboxRebuilt(Event):
    """The table found its outbox damaged at start (``reason``), moved it aside as ``moved_to``
    and began a new stream from the journal's state: what the old stream held and the hub had
    not acknowledged is in the moved file for the director, not sent again."""

    reason: str
    moved_to: str


# ── fencing ─────────────────────────────────────────────────────────────────
# Events that claim or change a match's result. Each carries (in its envelope) the epoch of the
# assignment it belongs to; the hub applies one only from the table holding the match's current
# assignment, and counts the others as fenced (a stale table's result becomes a conflict).
FENCED_TYPES: frozenset[str] = frozenset(
    {"table.assigned", "match.started", "game.ended", "match.ended", "score.corrected"}
)


# ── parsing and validation ──────────────────────────────────────────────────
@functools.cache
def _hints(type_name: str) -> dict[str, Any]:
    # get_type_hints re-evaluates annotations on every call; the vocabulary never changes.
    # (Keyed by name: mypy takes a dataclass's class object for unhashable.)
    return typing.get_type_hints(EVENT_TYPES[type_name])


def parse_event(type_name: str, data: Any) -> Event:
    """Validate ``data`` against ``type_name`` and build the event, or raise :class:`EventError`."""
    cls = EVENT_TYPES.get(type_name) if isinstance(type_name, str) else None
    if cls is None:
        raise EventError(f"unknown event type {type_name!r}")
    if not isinstance(data, dict):
        raise EventError(f"{type_name}: data must be an object, not {type(data).__name__}")
    hints = _hints(type_name)
    fields = {f.name for f in dataclasses.fields(cls)}
    unknown = set(data) - fields
    if unknown:
        raise EventError(f"{type_name}: unknown fields {sorted(unknown)}")
    missing = {
        f.name
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    } - set(data)  # a field added later with a default: older payloads still parse
    if missing:
        raise EventError(f"{type_name}: missing fields {sorted(missing)}")
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue  # a defaulted field an older payload does not carry
        try:
            check_value(f.name, hints[f.name], data[f.name])
        except ValidationError as e:
            raise EventError(f"{type_name}: {e}") from None
    return cls(**data)


def describe(cls: type[Event]) -> list[tuple[str, str]]:
    """``(field, type)`` pairs for the docs."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        text = str(hints[f.name]).replace("typing.", "")
        text = text.replace("<class '", "").replace("'>", "")
        out.append((f.name, text))
    return out
