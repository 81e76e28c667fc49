"""Tournament points (HGV 7.5) in hundredths, and the breakdown that explains them.

>>> scale = PointsScale()
>>> b = PointsBreakdown("ALEX", place=(1, 1), place_points=scale.band_points(1, 1),
...                     participation=10, consolation_finalist=0, wins_group=1,
...                     wins_knockout=4, wins_consolation=0, per_win=4)
>>> b.total, format_points(b.total, "es"), format_points(b.total, "en")
(230, '2,30', '2.30')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from mesa.tournament.settings import PointsScale
from mesa.words import format_points  # the one points format (grouped past a thousand)

__all__ = ["PointsBreakdown", "PointsScale", "RemovedWin", "format_points", "parse_points"]

Lang = Literal["es", "en"]


def parse_points(text: str) -> int:
    """``"2,30"`` or ``"2.30"`` (or ``"2"``) to hundredths; at most two decimals.

    >>> parse_points("2,30"), parse_points("0.08"), parse_points("7")
    (230, 8, 700)
    """
    t = text.strip().replace(",", ".")
    m = re.fullmatch(r"([+-]?)(\d+)?(?:\.(\d+))?", t)
    if not m or (m.group(2) is None and m.group(3) is None):
        raise ValueError(f"{text!r} is not a number")
    frac = m.group(3) or ""
    if len(frac) > 2:
        raise ValueError(f"{text!r} has more than two decimals")
    value = int(m.group(2) or "0") * 100 + int((frac + "00")[:2])
    neg = m.group(1) == "-"
    return -value if neg else value


@dataclass(frozen=True)
class RemovedWin:
    """A win that earns nothing, and the rule that removed it."""

    match_id: str
    rule: Literal["HGV 2.3.3", "HGV 2.3.8"]

    def to_dict(self) -> dict[str, Any]:
        return {"match_id": self.match_id, "rule": self.rule}


@dataclass(frozen=True)
class PointsBreakdown:
    """Everything behind one player's tournament points (all in hundredths)."""

    player_id: str
    place: tuple[int, int] | None
    place_points: int
    participation: int
    consolation_finalist: int
    wins_group: int
    wins_knockout: int
    wins_consolation: int
    per_win: int
    place_round: str | None = None
    knockout_forfeit: bool = False
    removed: tuple[RemovedWin, ...] = field(default_factory=tuple)

    @property
    def wins(self) -> int:
        return self.wins_group + self.wins_knockout + self.wins_consolation

    @property
    def win_points(self) -> int:
        return self.wins * self.per_win

    @property
    def total(self) -> int:
        return self.place_points + self.participation + self.consolation_finalist + self.win_points

    def to_dict(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "place": None if self.place is None else list(self.place),
            "place_round": self.place_round, "place_points": self.place_points,
            "participation": self.participation,
            "consolation_finalist": self.consolation_finalist,
            "wins_group": self.wins_group, "wins_knockout": self.wins_knockout,
            "wins_consolation": self.wins_consolation, "wins": self.wins,
            "per_win": self.per_win, "win_points": self.win_points,
            "knockout_forfeit": self.knockout_forfeit,
            "removed": [r.to_dict() for r in self.removed], "total": self.total,
        }
