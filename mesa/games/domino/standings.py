"""The standings of a domino pairs tournament: games won, then points.

A pair's points are the scores its games ended with at the tables (the table's score already
holds the hands, the penalties given during the game, absences and forfeits) plus the penalties
the judge recorded on the hub after a game had ended, plus the award of a bye. Ties on both are
broken by fewer penalty points lost, then by registration order (stable, never random).

>>> rows = standings({"P1": "Ana / Beto", "P2": "Carla / Dani"},
...                  [GameLine("P1", "P2", won=(1, 0), points=(205, 130))],
...                  adjustments=[("P2", -25)])
>>> [(r.pair, r.won, r.points) for r in rows]
[('P1', 1, 205), ('P2', 0, 105)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class GameLine:
    """One ended game between pairs ``a`` and ``b`` (``won`` and ``points`` in that order)."""

    a: str
    b: str
    won: tuple[int, int]
    points: tuple[int, int]


@dataclass
class StandingRow:
    """One pair's line. ``penalties`` is the sum of the (negative) hub-recorded penalties."""

    pair: str
    name: str
    played: int = 0
    won: int = 0
    points: int = 0
    penalties: int = 0
    byes: int = 0
    opponents: list[str] = field(default_factory=list)
    rank: int = 0
    order: int = 0  # registration order: the last tie-break (never random)

    def key(self) -> tuple[int, int, int, int]:
        return (-self.won, -self.points, -self.penalties, self.order)


def standings(
    pairs: Mapping[str, str],
    games: Iterable[GameLine],
    *,
    adjustments: Iterable[tuple[str, int]] = (),
    byes: Iterable[str] = (),
    bye_points: int = 100,
) -> list[StandingRow]:
    """Every pair of ``pairs`` (id → name, in registration order), ranked."""
    rows = {pid: StandingRow(pid, name, order=i) for i, (pid, name) in enumerate(pairs.items())}
    for g in games:
        for pid, opp, won, pts in ((g.a, g.b, g.won[0], g.points[0]),
                                   (g.b, g.a, g.won[1], g.points[1])):
            row = rows.get(pid)
            if row is None:
                continue
            row.played += 1
            row.won += won
            row.points += pts
            row.opponents.append(opp)
    for pid, pts in adjustments:
        if pid in rows:
            rows[pid].points += pts
            if pts < 0:
                rows[pid].penalties += pts
    for pid in byes:
        if pid in rows:
            rows[pid].byes += 1
            rows[pid].won += 1
            rows[pid].points += bye_points
    ranked = sorted(rows.values(), key=StandingRow.key)
    for i, row in enumerate(ranked, 1):
        row.rank = i
    return ranked
