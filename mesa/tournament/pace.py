"""The pace of a match under way against the norm (HGV 2.4), its expected end and its flag.

:func:`pace_of` is pure: the dashboard calls it with what the table reports (score, elapsed
time, the clock's reserves) and shows its :class:`Pace`; the forecast uses its expected
remaining time. The rules (``docs/schedule.md``):

- **Progress** is the leader's points against the length (a match ends when the leader
  reaches it). ``minutes_per_point`` so far is the elapsed time over the leader's points.
- **Behind the norm.** Under the norm the leader's next point is due at
  ``(leader + 1) × minutes_per_point``; ``behind_s`` is how far the elapsed time is past it
  (0 on pace). At 0–0 a 3-point match is behind only after its first 10 minutes.
- **The flag.** A match is ``flagged`` when it is behind by a whole point's norm or more
  (``behind_s ≥ minutes_per_point`` minutes: at 0–0 after 20 minutes, at 2–1 after 40) and no
  clock runs on it: that is when the director imposes the clock (HGV 2.4, 7.6.1). A match on
  the clock is bounded already and never flagged.
- **Expected total.** The norm, blended with the pace so far by progress:
  ``T = (1 − w) × norm + w × L × elapsed / leader`` with ``w = leader / L`` (0 at 0–0: the norm;
  the observed pace counts more as the match goes on). It is at least
  ``min(L × elapsed / (leader + 1), elapsed + (L − leader) × minutes_per_point)``: at its pace so
  far the leader has not reached the next point yet, but nobody is expected slower than the
  norm for all the points still needed. A little always remains while the match is under way
  (a quarter of a point's norm for each point the leader still needs, ``MIN_SHARE``).
- **The clock's bound.** When a clock runs the remaining time is at most both reserves left
  plus the delay of the moves left (:func:`mesa.tournament.durations.clock_bound_s`); without the
  reserves reported, the whole match's bound less the elapsed time.

>>> p = pace_of(3, 1, 0, 600)         # 1–0 after 10 minutes: on the norm
>>> p.minutes_per_point, round(p.expected_remaining_s / 60), p.behind_s, p.flagged
(10.0, 20, 0.0, False)
>>> p = pace_of(3, 0, 0, 20 * 60)     # 0–0 after 20 minutes: a point's norm behind
>>> p.behind_s / 60, p.flagged, round(p.expected_remaining_s / 60)
(10.0, True, 30)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mesa.tournament.durations import MINUTES_PER_POINT, clock_bound_s, norm_s
from mesa.tournament.matches import ClockPreset, Match

# The least a match under way is still expected to take, per point the leader needs, as a
# share of a point's norm.
MIN_SHARE = 0.25
# Behind by this many points' norm: flagged.
FLAG_POINTS = 1.0


@dataclass(frozen=True)
class ClockState:
    """A running clock as its table reports it: the reserves left, the preset it runs."""

    preset: ClockPreset
    reserve_a_s: float | None = None
    reserve_b_s: float | None = None

    @property
    def reserves(self) -> tuple[float, float] | None:
        if self.reserve_a_s is None or self.reserve_b_s is None:
            return None
        return (self.reserve_a_s, self.reserve_b_s)


@dataclass(frozen=True)
class Pace:
    """What the page shows of a match under way (seconds unless said).

    ``expected_end_offset_s`` is the expected remaining time from now (the page adds it to the
    clock on the wall); ``bound_s`` the most the clock allows (None without a clock).
    """

    length: int
    leader: int
    elapsed_s: float
    minutes_per_point: float | None
    norm_minutes_per_point: float
    expected_total_s: float
    expected_remaining_s: float
    behind_s: float
    flagged: bool
    bound_s: float | None

    @property
    def expected_end_offset_s(self) -> float:
        return self.expected_remaining_s

    def to_dict(self) -> dict[str, Any]:
        return {"length": self.length, "leader": self.leader, "elapsed_s": self.elapsed_s,
                "minutes_per_point": self.minutes_per_point,
                "norm_minutes_per_point": self.norm_minutes_per_point,
                "expected_total_s": self.expected_total_s,
                "expected_end_offset_s": self.expected_remaining_s,
                "behind_s": self.behind_s, "flagged": self.flagged, "bound_s": self.bound_s}


def remaining_bound_s(length: int, leader: int, elapsed_s: float,
                      clock: ClockState) -> float:
    """The most the rest of the match can last on a running clock.

    >>> from mesa.tournament.matches import ClockPreset, Match
    >>> remaining_bound_s(7, 6, 0, ClockState(ClockPreset(840, 10), 100, 200))   # one game left
    800.0
    """
    reserves = clock.reserves
    if reserves is not None:
        return clock_bound_s(length, clock.preset, leader, reserves)
    return max(0.0, clock_bound_s(length, clock.preset) - elapsed_s)


def pace_of(length: int, score_a: int, score_b: int, elapsed_s: float, *,
            minutes_per_point: float = MINUTES_PER_POINT,
            clock: ClockState | None = None) -> Pace:
    """The pace of a match to ``length`` at ``score_a``–``score_b`` after ``elapsed_s``
    seconds (see the module docstring for the rules); ``clock`` when one runs.

    >>> from mesa.tournament.matches import ClockPreset, Match
    >>> p = pace_of(7, 3, 1, 50 * 60, clock=ClockState(ClockPreset(840, 10, True), 60, 90))
    >>> p.flagged, p.behind_s / 60, p.bound_s, p.expected_remaining_s   # bounded by the clock
    (False, 10.0, 2150.0, 2150.0)
    """
    length = max(1, length)
    elapsed = max(0.0, float(elapsed_s))
    leader = min(max(score_a, score_b, 0), length)
    per_point = 60.0 * minutes_per_point
    norm = norm_s(length, minutes_per_point)
    due = per_point * min(leader + 1, length)
    behind = max(0.0, elapsed - due)
    need = max(0, length - leader)
    if leader >= length:
        total, remaining = elapsed, 0.0
    else:
        w = leader / length
        observed = length * elapsed / leader if leader else norm
        total = (1 - w) * norm + w * observed
        total = max(total, min(length * elapsed / (leader + 1), elapsed + need * per_point))
        remaining = max(total - elapsed, MIN_SHARE * per_point * need)
    bound = None
    if clock is not None and leader < length:
        bound = remaining_bound_s(length, leader, elapsed, clock)
        remaining = min(remaining, bound)
    return Pace(length=length, leader=leader, elapsed_s=elapsed,
                minutes_per_point=elapsed / 60 / leader if leader else None,
                norm_minutes_per_point=float(minutes_per_point),
                expected_total_s=elapsed + remaining, expected_remaining_s=remaining,
                behind_s=behind, flagged=clock is None and behind >= FLAG_POINTS * per_point,
                bound_s=bound)


def pace_of_match(m: Match, now: datetime, *, score: tuple[int, int] = (0, 0),
                  reserves_s: tuple[float, float] | None = None,
                  minutes_per_point: float = MINUTES_PER_POINT) -> Pace | None:
    """:func:`pace_of` for a match of the draw at ``now`` (None unless it is being played):
    its length, its start, its clock when one runs (mandatory or imposed), the score and
    reserves its table reports.

    >>> from datetime import datetime, timedelta
    >>> from mesa.tournament.matches import ClockPreset, Match
    >>> t0 = datetime(2026, 12, 4, 21, 0)
    >>> m = Match("G1-1", "group", "1", 1, 1, 3, ClockPreset.for_length(3), "A", "B",
    ...           started_at=t0)
    >>> p = pace_of_match(m, t0 + timedelta(minutes=25), score=(1, 0))
    >>> p.flagged, p.behind_s / 60
    (False, 5.0)
    """
    if m.status != "playing" or m.started_at is None:
        return None
    clock = ClockState(m.clock, *(reserves_s or (None, None))) if m.clock.mandatory else None
    return pace_of(m.length, *score, (now - m.started_at).total_seconds(),
                   minutes_per_point=minutes_per_point, clock=clock)
