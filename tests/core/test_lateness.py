"""Lateness (HGV 2.3.1, RULES §3)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mesa.core.lateness import Lateness
from mesa.errors import RuleError

MIN = 60.0


def test_hgv_example_3_point_match() -> None:
    """8:00 start; the rival arrives 20 minutes late and starts 0–2 down; at 30 it is a forfeit."""
    late = Lateness(scheduled_start=0.0, length=3)
    late.check_in("a", now=0.0)
    assert late.tick(9 * MIN + 59) == []
    assert late.tick(10 * MIN) == [("a", 1)]  # a full 10 minutes
    assert late.next_mark() == 20 * MIN
    late.check_in("b", now=20 * MIN + 30)
    assert late.points == {"a": 2, "b": 0} and late.done


def test_forfeit_at_match_length() -> None:
    late = Lateness(scheduled_start=0.0, length=5)
    late.check_in("b", now=1.0)
    awards = late.tick(3 * 3600.0)
    assert awards[-1] == ("b", 5) and len(awards) == 5  # capped at the match length
    assert late.forfeit_winner == "b" and late.done
    with pytest.raises(RuleError):
        late.check_in("a", now=3 * 3600.0)


def test_nobody_present_nothing_awarded() -> None:
    late = Lateness(scheduled_start=0.0, length=3)
    assert late.tick(25 * MIN) == []
    # a arrives at 25 minutes: only the 30-minute mark finds a alone.
    late.check_in("a", now=25 * MIN)
    assert late.tick(31 * MIN) == [("a", 1)]


def test_early_check_in_and_no_lateness_before_start() -> None:
    late = Lateness(scheduled_start=1000.0, length=3)
    late.check_in("a", now=0.0)
    assert late.tick(999.0) == [] and late.next_mark() == 1000.0 + 10 * MIN


def test_both_on_time() -> None:
    late = Lateness(scheduled_start=0.0, length=3)
    late.check_in("a", now=0.0)
    late.check_in("b", now=9 * MIN)
    assert late.done and late.points == {"a": 0, "b": 0}
    with pytest.raises(RuleError):
        late.check_in("a", now=10 * MIN)


def test_minutes_per_point_is_a_setting() -> None:
    late = Lateness(scheduled_start=0.0, length=3, minutes_per_point=5)
    late.check_in("a", now=0.0)
    assert late.tick(10 * MIN) == [("a", 1), ("a", 2)]
    with pytest.raises(RuleError):
        Lateness(scheduled_start=0.0, length=3, minutes_per_point=0)


def test_round_trip() -> None:
    late = Lateness(scheduled_start=0.0, length=3)
    late.check_in("a", now=0.0)
    late.tick(11 * MIN)
    assert Lateness.from_dict(late.to_dict()) == late


def test_a_start_far_in_the_past_is_arithmetic_not_a_walk() -> None:
    """Ten billion seconds of marks are settled at once: the first run awards to the length."""
    late = Lateness(scheduled_start=-1e10, length=5)
    late.check_in("a", now=0.0)  # the marks before are settled first: nobody was there
    assert late.points == {"a": 0, "b": 0}
    assert late.tick(1e10) == [("a", k) for k in range(1, 6)]
    assert late.points == {"a": 5, "b": 0} and late.done and late.forfeit_winner == "a"


def test_marks_without_anyone_then_one_player() -> None:
    late = Lateness(scheduled_start=-1e9, length=3)
    assert late.tick(0.0) == []  # nobody there: nothing, however many marks
    late.check_in("b", now=1.0)
    mark = late.next_mark()
    assert mark is not None and 1.0 <= mark <= 601.0
    assert late.tick(mark - 0.5) == []
    assert late.tick(mark) == [("b", 1)]


def test_tiny_period_never_spins() -> None:
    late = Lateness(scheduled_start=0.0, length=3, minutes_per_point=1e-300)
    late.check_in("a", now=0.0)
    late.tick(1.0)  # returns: whatever it settles, it does not walk 1e300 marks
    assert late.points["a"] <= 3


@given(
    start=st.floats(-1e6, 1e6),
    mpp=st.floats(1.0, 120.0),
    length=st.integers(1, 9),
    arrivals=st.lists(st.floats(0.0, 2e4), min_size=0, max_size=2),
    ticks=st.lists(st.floats(0.0, 4e4), min_size=1, max_size=6),
)
def test_arithmetic_agrees_with_walking_every_mark(
    start: float, mpp: float, length: int, arrivals: list[float], ticks: list[float]
) -> None:
    """The arithmetic tick awards exactly what a mark-by-mark walk (the rule's words) awards."""
    fast = Lateness(scheduled_start=start, length=length, minutes_per_point=mpp)
    slow = Lateness(scheduled_start=start, length=length, minutes_per_point=mpp)
    events = sorted(
        [(t, "in", s) for t, s in zip(arrivals, "ab", strict=False)]
        + [(t, "tick", "") for t in ticks]
    )
    for t, kind, side in events:
        if fast.done:
            break
        if kind == "in":
            got = fast.check_in(side, t)  # type: ignore[arg-type]
            assert got == _walk(slow, t)
            if not slow.done:
                slow.present[side] = t
                slow.done = len(slow.present) == 2
        else:
            assert fast.tick(t) == _walk(slow, t)
        assert (fast.points, fast.done) == (slow.points, slow.done)


def _walk(late: Lateness, now: float) -> list[tuple[str, int]]:
    """The old definition: visit every mark up to ``now``."""
    awards: list[tuple[str, int]] = []
    if late.done:
        return awards
    due = (
        math.floor((now - late.scheduled_start) / late.period) if now > late.scheduled_start else 0
    )
    while late.marks_done < due and not late.done:
        late.marks_done += 1
        at = late.scheduled_start + late.marks_done * late.period
        here = [s for s, t in late.present.items() if t <= at]
        if len(here) == 1:
            late.points[here[0]] += 1
            awards.append((here[0], late.points[here[0]]))
            if late.points[here[0]] >= late.length:
                late.done = True
    return awards
