"""One match of a tournament: players, length, clock, table, schedule and result.

>>> m = Match(id="G1-1", phase="group", round="1", round_no=1, number=1, length=3,
...           clock=ClockPreset.for_length(3), a="P1", b="P2")
>>> m.status
'ready'
>>> validate_score(3, 4, 2)   # over-length results are valid (HGV 5.3)
>>> validate_score(3, 2, 2)
Traceback (most recent call last):
...
mesa.tournament.errors.InvalidResultError: 2–2 does not finish a 3-point match: one player must reach 3
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from mesa.tournament.errors import InvalidResultError

Phase = Literal["group", "knockout", "consolation"]
Status = Literal["waiting", "ready", "assigned", "playing", "done"]
ResultSource = Literal["table", "director", "auto"]

# The largest a single game can score: backgammon (3) with the cube on 64.
MAX_GAME_POINTS = 3 * 64


def iso(dt: datetime | None) -> str | None:
    return None if dt is None else dt.isoformat()


def from_iso(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


@dataclass(frozen=True)
class ClockPreset:
    """The clock a match uses: reserve and simple delay, and whether it is mandatory.

    >>> ClockPreset.for_length(5)
    ClockPreset(reserve_s=600, delay_s=10, mandatory=False)
    """

    reserve_s: int
    delay_s: int
    mandatory: bool = False

    @classmethod
    def for_length(cls, length: int, per_point_s: int = 120, delay_s: int = 10) -> ClockPreset:
        return cls(reserve_s=per_point_s * length, delay_s=delay_s, mandatory=False)

    def to_dict(self) -> dict[str, Any]:
        return {"reserve_s": self.reserve_s, "delay_s": self.delay_s, "mandatory": self.mandatory}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ClockPreset:
        return cls(int(d["reserve_s"]), int(d["delay_s"]), bool(d["mandatory"]))


@dataclass(frozen=True)
class Source:
    """Where a bracket slot's player comes from: a seed, or a match's winner or loser.

    >>> Source("winner", "KO-PI-1").to_list()
    ['winner', 'KO-PI-1']
    """

    kind: Literal["seed", "winner", "loser"]
    ref: int | str

    def to_list(self) -> list[Any]:
        return [self.kind, self.ref]

    @classmethod
    def from_list(cls, v: list[Any]) -> Source:
        return cls(v[0], v[1])


def validate_score(length: int, score_a: int, score_b: int) -> None:
    """Check a final score fits a match to ``length`` points (HGV 5.3, 7.2.1, 7.3.1).

    The winner has reached the length (more is fine: the cube can overshoot), the loser has not,
    and the last game cannot have been worth more than a backgammon on a 64 cube.
    """
    for s in (score_a, score_b):
        if not isinstance(s, int) or isinstance(s, bool) or s < 0:
            raise InvalidResultError(f"scores must be whole numbers ≥ 0, got {s!r}",
                                     reason="score_whole", value=repr(s))
    hi, lo = max(score_a, score_b), min(score_a, score_b)
    if hi < length:
        raise InvalidResultError(
            f"{score_a}–{score_b} does not finish a {length}-point match: "
            f"one player must reach {length}",
            reason="score_unfinished", a=score_a, b=score_b, length=length,
        )
    if lo >= length:
        raise InvalidResultError(
            f"{score_a}–{score_b} cannot happen in a {length}-point match: "
            f"the match ends when the first player reaches {length}",
            reason="score_both", a=score_a, b=score_b, length=length,
        )
    if hi > length - 1 + MAX_GAME_POINTS:
        raise InvalidResultError(
            f"{score_a}–{score_b} is impossible in a {length}-point match: the last game "
            f"started below {length} and no game scores more than {MAX_GAME_POINTS}",
            reason="score_too_high", a=score_a, b=score_b, length=length, most=MAX_GAME_POINTS,
        )


@dataclass(frozen=True)
class Result:
    """A decided match: who played (a is white), the score, and who recorded it."""

    a: str
    b: str
    score_a: int
    score_b: int
    forfeit: bool
    source: ResultSource
    actor: str
    at: datetime

    @property
    def winner(self) -> str:
        return self.a if self.score_a > self.score_b else self.b

    @property
    def loser(self) -> str:
        return self.b if self.score_a > self.score_b else self.a

    def score_of(self, player: str) -> int:
        return self.score_a if player == self.a else self.score_b

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a, "b": self.b, "score_a": self.score_a, "score_b": self.score_b,
            "forfeit": self.forfeit, "source": self.source, "actor": self.actor,
            "at": iso(self.at),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Result:
        at = from_iso(d["at"])
        assert at is not None
        return cls(d["a"], d["b"], int(d["score_a"]), int(d["score_b"]), bool(d["forfeit"]),
                   d["source"], d["actor"], at)


@dataclass
class Match:
    """A match and everything a table or the dashboard needs to know about it."""

    id: str
    phase: Phase
    round: str
    round_no: int
    number: int
    length: int
    clock: ClockPreset
    a: str | None = None
    b: str | None = None
    group: int | None = None
    sources: tuple[Source, Source] | None = None
    # Place range of the loser in a knockout match, e.g. (9, 16) in the round of 16.
    loser_place: tuple[int, int] | None = None
    planned_start: datetime | None = None
    table: str | None = None
    assigned_at: datetime | None = None
    scheduled_start: datetime | None = None
    started_at: datetime | None = None
    started_players: tuple[str, str] | None = None
    result: Result | None = None
    history: list[dict[str, Any]] = field(default_factory=list)

    @property
    def status(self) -> Status:
        if self.result is not None:
            return "done"
        if self.started_at is not None:
            return "playing"
        if self.table is not None:
            return "assigned"
        if self.a is not None and self.b is not None:
            return "ready"
        return "waiting"

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p for p in (self.a, self.b) if p is not None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "phase": self.phase, "round": self.round, "round_no": self.round_no,
            "number": self.number, "length": self.length, "clock": self.clock.to_dict(),
            "a": self.a, "b": self.b, "group": self.group,
            "sources": None if self.sources is None else [s.to_list() for s in self.sources],
            "loser_place": None if self.loser_place is None else list(self.loser_place),
            "planned_start": iso(self.planned_start), "table": self.table,
            "assigned_at": iso(self.assigned_at), "scheduled_start": iso(self.scheduled_start),
            "started_at": iso(self.started_at),
            "started_players": None if self.started_players is None else list(
                self.started_players),
            "result": None if self.result is None else self.result.to_dict(),
            "history": list(self.history),
            "status": self.status,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Match:
        src = d.get("sources")
        sp = d.get("started_players")
        lp = d.get("loser_place")
        return cls(
            id=d["id"], phase=d["phase"], round=d["round"], round_no=int(d["round_no"]),
            number=int(d["number"]), length=int(d["length"]),
            clock=ClockPreset.from_dict(d["clock"]), a=d.get("a"), b=d.get("b"),
            group=d.get("group"),
            sources=None if src is None else (Source.from_list(src[0]), Source.from_list(src[1])),
            loser_place=None if lp is None else (int(lp[0]), int(lp[1])),
            planned_start=from_iso(d.get("planned_start")), table=d.get("table"),
            assigned_at=from_iso(d.get("assigned_at")),
            scheduled_start=from_iso(d.get("scheduled_start")),
            started_at=from_iso(d.get("started_at")),
            started_players=None if sp is None else (sp[0], sp[1]),
            result=None if d.get("result") is None else Result.from_dict(d["result"]),
            history=list(d.get("history", [])),
        )
