"""Lateness (HGV 2.3.1, RULES §3)."""

from __future__ import annotations

import pytest

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
