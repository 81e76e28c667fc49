"""Lateness (HGV 2.3.1): a present player gains a point at every full 10 minutes past the
scheduled start while the opponent is absent, up to the match length (a forfeit win).

Points are awarded at each mark ``start + k × minutes_per_point`` at which exactly one player
has checked in; with nobody present, nothing is awarded.

>>> late = Lateness(scheduled_start=0.0, length=3)
>>> late.check_in("a", now=60.0)
[]
>>> late.tick(now=1250.0)          # 20 min 50 s: marks at 10 and 20 minutes
[('a', 1), ('a', 2)]
>>> late.check_in("b", now=1300.0) # b starts the match 0–2 down
[]
>>> late.points, late.done
({'a': 2, 'b': 0}, True)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from mesa.core.sides import SIDES, Side
from mesa.errors import RuleError


@dataclass
class Lateness:
    scheduled_start: float
    length: int
    minutes_per_point: float = 10.0
    present: dict[Side, float] = field(default_factory=dict)  # side → check-in time
    points: dict[str, int] = field(default_factory=lambda: {"a": 0, "b": 0})
    marks_done: int = 0  # marks already evaluated
    done: bool = False  # both present, or a forfeit

    def __post_init__(self) -> None:
        if not self.minutes_per_point > 0:
            raise RuleError("bad_setting", "minutes per point must be > 0")

    @property
    def period(self) -> float:
        return self.minutes_per_point * 60.0

    @property
    def forfeit_winner(self) -> Side | None:
        for side in SIDES:
            if self.points[side] >= self.length:
                return side
        return None

    def check_in(self, side: Side, now: float) -> list[tuple[Side, int]]:
        """Record ``side`` as present. Marks passed before ``now`` are settled first."""
        if side in self.present:
            raise RuleError("already_checked_in", f"{side} has already checked in")
        if self.done:
            raise RuleError("lateness_closed", "check-in is closed for this match")
        awards = self.tick(now)
        if self.done:  # the tick ended the match by forfeit
            return awards
        self.present[side] = now
        if len(self.present) == 2:
            self.done = True
        return awards

    def tick(self, now: float) -> list[tuple[Side, int]]:
        """Settle every mark up to ``now``; returns ``(side, new points)`` per point awarded."""
        awards: list[tuple[Side, int]] = []
        if self.done:
            return awards
        due = (
            math.floor((now - self.scheduled_start) / self.period)
            if now > self.scheduled_start
            else 0
        )
        while self.marks_done < due and not self.done:
            self.marks_done += 1
            at = self.scheduled_start + self.marks_done * self.period
            here = [s for s, t in self.present.items() if t <= at]
            if len(here) == 1:
                side = here[0]
                self.points[side] += 1
                awards.append((side, self.points[side]))
                if self.points[side] >= self.length:
                    self.done = True
        return awards

    def next_mark(self) -> float | None:
        """When the next point would be awarded, while it can be."""
        if self.done or len(self.present) != 1:
            return None
        return self.scheduled_start + (self.marks_done + 1) * self.period

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Lateness:
        return cls(**data)
