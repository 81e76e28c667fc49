"""The records a tournament keeps: entrants, the audit, withdrawals, forfeits, conflicts, drawn
brackets, and what an action reports (:class:`Outcome`) or the final list prints.

Each record round-trips through a plain dict (``to_dict``/``from_dict``): the snapshot the hub
persists is made of them (:mod:`mesa.tournament.snapshot`).

>>> from datetime import datetime
>>> e = Entrant("P0001", "ALEX", datetime(2014, 1, 31, 19, 30))
>>> e.to_dict()["registered_at"], Entrant.from_dict(e.to_dict()) == e
('2014-01-31T19:30:00', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from mesa.tournament.errors import TournamentError
from mesa.tournament.knockout import QualifiedSeed, Swap
from mesa.tournament.matches import from_iso, iso
from mesa.tournament.points import PointsBreakdown

TournamentPhase = Literal["registration", "groups", "knockout", "closed"]
Resolution = Literal["keep", "apply", "apply_keep_draw"]


def need_time(value: datetime | None) -> datetime:
    """A time a record must have (a snapshot's time that is missing is refused, not guessed)."""
    if value is None:
        raise TournamentError("this action needs the current time (now=...)", code="no_time",
                              reason="no_time")
    return value


@dataclass
class Entrant:
    """A registered player, with the name as it will be printed for this tournament."""

    player_id: str
    name: str
    registered_at: datetime
    override: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "name": self.name,
                "registered_at": iso(self.registered_at), "override": self.override}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Entrant:
        return cls(d["player_id"], d["name"], need_time(from_iso(d["registered_at"])),
                   bool(d.get("override", False)))


@dataclass(frozen=True)
class AuditEntry:
    """One recorded action: who, when, what. The list only grows."""

    seq: int
    at: datetime
    actor: str
    action: str
    details: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "at": iso(self.at), "actor": self.actor, "action": self.action,
                "details": self.details}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AuditEntry:
        return cls(int(d["seq"]), need_time(from_iso(d["at"])), d["actor"], d["action"],
                   dict(d["details"]))


@dataclass
class Withdrawal:
    """A player who left (HGV 2.3.5), did not come (HGV 2.3.6) or left Último Chance only."""

    player_id: str
    kind: Literal["left", "no_show", "consolation"]
    at: datetime
    actor: str

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "kind": self.kind, "at": iso(self.at),
                "actor": self.actor}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Withdrawal:
        return cls(d["player_id"], d["kind"], need_time(from_iso(d["at"])), d["actor"])


@dataclass
class KnockoutForfeit:
    """HGV 2.3.8: a knockout forfeit, and who took the forfeiting player's place."""

    player_id: str
    match_id: str
    replaced_by: str | None
    at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "match_id": self.match_id,
                "replaced_by": self.replaced_by, "at": iso(self.at)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> KnockoutForfeit:
        return cls(d["player_id"], d["match_id"], d.get("replaced_by"), need_time(from_iso(d["at"])))


@dataclass
class Conflict:
    """A director correction that later rounds already used, or a result a table reported that
    the hub did not apply (kind ``table``: a table that no longer holds the match, or a second
    result for a decided one); waits for a decision. ``old`` is the recorded result (None: the
    match had none when the conflict was opened)."""

    id: str
    match_id: str
    old: dict[str, Any] | None
    new: dict[str, Any]
    reason: str
    actor: str
    at: datetime
    kinds: list[str]
    affected: list[str]
    status: Literal["open", "kept", "applied", "applied_keep_draw"] = "open"
    resolved_by: str | None = None
    resolved_at: datetime | None = None
    annulled: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "match_id": self.match_id, "old": self.old, "new": self.new,
                "reason": self.reason, "actor": self.actor, "at": iso(self.at),
                "kinds": list(self.kinds), "affected": list(self.affected),
                "status": self.status, "resolved_by": self.resolved_by,
                "resolved_at": iso(self.resolved_at), "annulled": list(self.annulled)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Conflict:
        return cls(d["id"], d["match_id"], d.get("old"), d["new"], d["reason"], d["actor"],
                   need_time(from_iso(d["at"])), list(d["kinds"]), list(d["affected"]), d["status"],
                   d.get("resolved_by"), from_iso(d.get("resolved_at")),
                   list(d.get("annulled", [])))


@dataclass
class BracketState:
    """A drawn bracket: its seeds (after group separation), the swaps made, its matches."""

    kind: Literal["knockout", "consolation"]
    seeds: list[QualifiedSeed]
    swaps: list[Swap]
    size: int
    match_ids: list[str]

    @property
    def final_id(self) -> str | None:
        return self.match_ids[-1] if self.match_ids else None

    @property
    def players(self) -> list[str]:
        return [s.player_id for s in self.seeds]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "seeds": [s.to_dict() for s in self.seeds],
                "swaps": [s.to_dict() for s in self.swaps], "size": self.size,
                "match_ids": list(self.match_ids)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BracketState:
        return cls(d["kind"], [QualifiedSeed.from_dict(s) for s in d["seeds"]],
                   [Swap.from_dict(s) for s in d["swaps"]], int(d["size"]),
                   list(d["match_ids"]))


@dataclass
class Outcome:
    """What an action changed, so the hub knows what to republish."""

    action: str
    match_id: str | None = None
    changed: list[str] = field(default_factory=list)
    ready: list[str] = field(default_factory=list)
    groups_completed: list[int] = field(default_factory=list)
    draw_made: bool = False
    auto_forfeits: list[str] = field(default_factory=list)
    substitution: KnockoutForfeit | None = None
    conflict: Conflict | None = None
    champion: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "match_id": self.match_id, "changed": self.changed,
                "ready": self.ready, "groups_completed": self.groups_completed,
                "draw_made": self.draw_made, "auto_forfeits": self.auto_forfeits,
                "substitution": None if self.substitution is None else
                self.substitution.to_dict(),
                "conflict": None if self.conflict is None else self.conflict.to_dict(),
                "champion": self.champion}


@dataclass(frozen=True)
class FinalRow:
    """One line of the final list ("ASÍ QUEDÓ EL TORNEO")."""

    position: int
    player_id: str
    name: str
    points: PointsBreakdown

    @property
    def total(self) -> int:
        return self.points.total
