"""The pace of a match under way: progress, behind the norm, the flag, the expected end."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from mesa.tournament.matches import ClockPreset, Match
from mesa.tournament.pace import ClockState, pace_of, pace_of_match


def test_at_the_start_the_norm() -> None:
    p = pace_of(3, 0, 0, 0)
    assert p.expected_remaining_s == 30 * 60 and p.behind_s == 0 and not p.flagged
    assert p.minutes_per_point is None


def test_on_the_norm_the_rest_at_the_norm() -> None:
    p = pace_of(5, 2, 1, 20 * 60)
    assert p.minutes_per_point == 10
    assert p.expected_remaining_s == pytest.approx(30 * 60)
    assert p.behind_s == 0 and not p.flagged


def test_a_slow_match_is_behind_and_flagged_a_point_late() -> None:
    assert pace_of(3, 2, 1, 39 * 60).flagged is False     # due at 30, 9 minutes behind
    p = pace_of(3, 2, 1, 40 * 60)
    assert p.behind_s == 10 * 60 and p.flagged
    assert p.expected_total_s > 40 * 60  # the observed pace counts: later than the norm


def test_a_fast_match_ends_sooner_than_the_norm() -> None:
    p = pace_of(7, 5, 2, 25 * 60)
    assert p.expected_total_s < 70 * 60
    assert p.expected_remaining_s >= 0.25 * 10 * 60 * 2  # something is always left


def test_a_running_clock_bounds_and_never_flags() -> None:
    clock = ClockState(ClockPreset(840, 10, True), 30.0, 40.0)
    p = pace_of(7, 2, 0, 60 * 60, clock=clock)
    assert p.bound_s == 70 + 10 * 50 * 5
    assert p.expected_remaining_s <= p.bound_s
    assert p.behind_s > 0 and not p.flagged


def test_without_reserves_the_whole_bound_less_the_elapsed() -> None:
    p = pace_of(7, 0, 0, 60 * 60, clock=ClockState(ClockPreset(840, 10, True)))
    assert p.bound_s == 2 * 840 + 10 * 350 - 3600


def test_a_finished_score_leaves_nothing() -> None:
    p = pace_of(3, 3, 1, 1000)
    assert p.expected_remaining_s == 0 and p.expected_total_s == 1000


def test_what_the_page_reads() -> None:
    d = pace_of(3, 1, 0, 600, minutes_per_point=12).to_dict()
    assert d["norm_minutes_per_point"] == 12
    assert set(d) >= {"minutes_per_point", "expected_end_offset_s", "behind_s", "flagged"}


def test_a_match_of_the_draw_its_clock_when_mandatory() -> None:
    t0 = datetime(2026, 12, 4, 21, 0)
    m = Match("KO-F-1", "knockout", "F", 5, 1, 7, ClockPreset(840, 10, True), "A", "B")
    assert pace_of_match(m, t0) is None            # not started
    m.started_at = t0
    p = pace_of_match(m, t0 + timedelta(minutes=30), score=(2, 1), reserves_s=(500.0, 400.0))
    assert p is not None and p.bound_s == 900 + 10 * 50 * 5 and not p.flagged
