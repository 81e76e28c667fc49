"""The duration model: the HGV 2.4 norm, the seeded spread, the clock's bound."""

from __future__ import annotations

import statistics

from mesa.tournament.durations import (
    clock_bound_s,
    drawn_s,
    expected_s,
    match_expected_s,
    moves_left,
    spread,
)
from mesa.tournament.matches import ClockPreset, Match


def test_the_norm_is_ten_minutes_a_point() -> None:
    assert expected_s(3) == 30 * 60
    assert expected_s(5, minutes_per_point=12) == 60 * 60


def test_a_running_clock_bounds_the_expected_duration() -> None:
    final = ClockPreset(840, 10, True)
    assert clock_bound_s(7, final) == 2 * 840 + 10 * 50 * 7
    assert expected_s(7, minutes_per_point=20, clock=final) == clock_bound_s(7, final)
    assert expected_s(7, clock=final) == 70 * 60


def test_fewer_games_and_reserves_left_bound_the_rest() -> None:
    c = ClockPreset(600, 10, True)
    assert moves_left(5, 3) == 100
    assert clock_bound_s(5, c, 3, (100.0, 50.0)) == 150 + 10 * 100


def test_only_a_mandatory_clock_bounds_a_match() -> None:
    free = Match("G1-1", "group", "1", 1, 1, 3, ClockPreset.for_length(3), "A", "B")
    assert match_expected_s(free, 20) == 60 * 60  # no clock: the norm, however slow
    on = Match("KO-F-1", "knockout", "F", 5, 1, 7, ClockPreset(840, 10, True), "A", "B")
    assert match_expected_s(on, 20) == clock_bound_s(7, on.clock)


def test_the_spread_is_seeded_by_match_and_keeps_the_mean() -> None:
    assert drawn_s("G1-1", 3, seed=4) == drawn_s("G1-1", 3, seed=4)
    assert drawn_s("G1-1", 3, seed=4) != drawn_s("G1-1", 3, seed=5)
    factors = [spread(1, f"M{i}") for i in range(4000)]
    assert abs(statistics.mean(factors) - 1) < 0.02
    assert 0.28 < statistics.stdev(factors) < 0.34


def test_a_drawn_duration_never_passes_the_clock() -> None:
    c = ClockPreset(840, 10, True)
    assert all(drawn_s(f"X{i}", 7, seed=1, clock=c) <= clock_bound_s(7, c) for i in range(500))


def test_the_moments_are_those_of_the_drawn_durations() -> None:
    import statistics

    from mesa.tournament.durations import drawn_s, moments_s
    from mesa.tournament.matches import ClockPreset

    for clock in (None, ClockPreset(840, 10, True), ClockPreset(600, 10, True)):
        xs = [drawn_s(str(i), 7, seed="moments", clock=clock) for i in range(20000)]
        mean, var = moments_s(7, clock=clock)
        assert abs(statistics.fmean(xs) - mean) < 0.01 * mean
        assert abs(statistics.pstdev(xs) - var ** 0.5) < 0.03 * var ** 0.5
    assert moments_s(7, clock=ClockPreset(840, 10, True))[0] < 70 * 60    # the bound cuts
    assert moments_s(3, sigma=0) == (1800.0, 0.0)
