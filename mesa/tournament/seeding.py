"""The seeding order: ranking points first, a recorded draw between equal points (HGV 7.2).

>>> d = seeding_order({"ana": 230, "bea": 0, "eva": 134, "ivo": 0}, seed=2014)
>>> d.order[:2]
['ana', 'eva']
>>> sorted(d.order[2:]) == ["bea", "ivo"] and d.tied_with("bea") == ("bea", "ivo")
True
>>> seeding_order({"ana": 230, "bea": 0, "eva": 134, "ivo": 0}, seed=2014).order == d.order
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mesa.tournament.draws import draw_key


@dataclass(frozen=True)
class SeedingEntry:
    """One player's seeding rank, the points behind it, and the draw key that broke a tie."""

    rank: int
    player_id: str
    points: int
    tie: tuple[str, ...] = ()
    key: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "player_id": self.player_id, "points": self.points,
                "tie": list(self.tie), "key": self.key}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SeedingEntry:
        return cls(int(d["rank"]), d["player_id"], int(d["points"]), tuple(d["tie"]), d["key"])


@dataclass(frozen=True)
class SeedingDraw:
    """The seeding of one tournament and the seed of its draw, enough to reproduce it."""

    seed: int | str
    entries: tuple[SeedingEntry, ...]

    @property
    def order(self) -> list[str]:
        return [e.player_id for e in self.entries]

    def rank_of(self, player_id: str) -> int:
        for e in self.entries:
            if e.player_id == player_id:
                return e.rank
        raise KeyError(player_id)

    def entry(self, player_id: str) -> SeedingEntry:
        return self.entries[self.rank_of(player_id) - 1]

    def tied_with(self, player_id: str) -> tuple[str, ...]:
        return self.entry(player_id).tie

    def to_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "entries": [e.to_dict() for e in self.entries]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SeedingDraw:
        return cls(d["seed"], tuple(SeedingEntry.from_dict(e) for e in d["entries"]))


def seeding_order(points: Mapping[str, int], seed: int | str) -> SeedingDraw:
    """Order players by ``points`` (hundredths, descending); draw lots between equal points.

    The draw sorts each set of equal points by ``draw_key(seed, "seeding", player)``; players
    missing from the ranking (debutants) should be passed with 0 points.
    """
    by_points: dict[int, list[str]] = {}
    for pid, pts in points.items():
        by_points.setdefault(int(pts), []).append(pid)
    entries: list[SeedingEntry] = []
    for pts in sorted(by_points, reverse=True):
        tied = sorted(by_points[pts])
        if len(tied) == 1:
            entries.append(SeedingEntry(len(entries) + 1, tied[0], pts))
            continue
        keyed = sorted((draw_key(seed, "seeding", pid), pid) for pid in tied)
        for key, pid in keyed:
            entries.append(SeedingEntry(len(entries) + 1, pid, pts, tuple(tied), key))
    return SeedingDraw(seed, tuple(entries))
