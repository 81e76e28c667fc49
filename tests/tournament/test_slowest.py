"""Clark's maximum of uncertain ends, against a Monte Carlo."""

from __future__ import annotations

import random
import statistics

import pytest

from mesa.tournament.slowest import clark_max, expected_starts, fold_max


def test_clark_matches_a_monte_carlo() -> None:
    rng = random.Random(3)
    xs = [max(rng.gauss(60, 10), rng.gauss(55, 20)) for _ in range(40000)]
    m, v = clark_max((60, 100), (55, 400))
    assert m == pytest.approx(statistics.mean(xs), abs=0.3)
    assert v ** 0.5 == pytest.approx(statistics.stdev(xs), abs=0.3)


def test_a_certain_later_end_wins() -> None:
    assert clark_max((10, 0), (20, 0)) == (20, 0)
    assert fold_max([]) == (0.0, 0.0)


def test_starts_follow_the_slowest_and_never_before_now() -> None:
    preds = {"A": [], "B": [], "C": ["A", "B"], "D": ["C"]}
    dur = {"A": (30.0, 0.0), "B": (20.0, 0.0), "C": (10.0, 0.0), "D": (5.0, 0.0)}
    s = expected_starts(preds, dur)
    assert s["A"] == (0.0, 0.0) and s["C"][0] == 30 and s["D"][0] == 40
    s = expected_starts(preds, dur, fixed={"A": (3.0, 0.0)})  # A under way: ends in 3
    assert s["C"][0] == 20
