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
        if not (math.isfinite(self.scheduled_start) and math.isfinite(self.period)):
            raise RuleError("bad_setting", "the scheduled start and the period must be finite")

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
        """Settle every mark up to ``now``; returns ``(side, new points)`` per point awarded.

        Arithmetic, not a walk over the marks: a start far in the past costs what a recent one
        does (a point is awarded at most ``length`` times, whatever the number of marks).
        """
        awards: list[tuple[Side, int]] = []
        if self.done:
            return awards
        due = self._marks_until(now)
        if due <= self.marks_done:
            return awards
        # Check-ins only accumulate, so the marks that find exactly one player present are one
        # run: from the first mark at or after the first check-in to the last one before the
        # second check-in.
        arrivals = sorted((t, s) for s, t in self.present.items())
        if arrivals:
            first_t, side = arrivals[0]
            begin = max(self.marks_done + 1, self._first_mark_at_or_after(first_t))
            end = due
            if len(arrivals) > 1:
                end = min(end, self._first_mark_at_or_after(arrivals[1][0]) - 1)
            if begin <= end:
                wanted = end - begin + 1
                for k in range(begin, begin + min(wanted, self.length - self.points[side])):
                    self.points[side] += 1
                    awards.append((side, self.points[side]))
                    if self.points[side] >= self.length:
                        self.done = True
                        self.marks_done = k  # marks after the forfeit are nobody's
                        return awards
        self.marks_done = due
        return awards

    def _mark(self, k: int) -> float:
        return self.scheduled_start + k * self.period

    def _marks_until(self, now: float) -> int:
        """How many marks are at or before ``now`` (0 before the start)."""
        if not now > self.scheduled_start:
            return 0
        q = (now - self.scheduled_start) / self.period
        if not math.isfinite(q):
            return self.marks_done  # an instant no clock reaches: settle nothing rather than crash
        k = math.floor(q)
        # The division may round across a mark; the comparison the rules mean is ``mark <= now``.
        # (A step or two at most; bounded, so a period below the float's resolution cannot spin.)
        for _ in range(3):
            if k > 0 and self._mark(k) > now:
                k -= 1
            elif self._mark(k + 1) <= now:
                k += 1
        return max(k, 0)

    def _first_mark_at_or_after(self, t: float) -> int:
        """The index of the first mark at or after instant ``t`` (1 or more)."""
        q = (t - self.scheduled_start) / self.period
        if not math.isfinite(q):
            return 1 if q < 0 else 2**62
        k = max(1, math.ceil(q))
        for _ in range(3):
            if k > 1 and self._mark(k - 1) >= t:
                k -= 1
            elif self._mark(k) < t:
                k += 1
        return k

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
