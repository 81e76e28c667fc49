"""Match model and result validation (HGV 5.3: over-length results are recorded in full)."""

from __future__ import annotations

from datetime import datetime

import pytest

from mesa.tournament.errors import InvalidResultError
from mesa.tournament.matches import ClockPreset, Match, Result, Source, validate_score

T = datetime(2014, 1, 31, 20, 0)


@pytest.mark.parametrize("length,a,b", [(3, 3, 0), (3, 0, 3), (3, 4, 2), (3, 2, 4),
                                        (5, 6, 4), (5, 7, 4), (7, 7, 6), (1, 1, 0),
                                        (3, 194, 2)])
def test_valid_scores(length: int, a: int, b: int) -> None:
    validate_score(length, a, b)


@pytest.mark.parametrize("length,a,b,why", [
    (3, 2, 2, "must reach 3"), (3, 3, 3, "ends when"), (3, 4, 3, "ends when"),
    (5, 4, 1, "must reach 5"), (3, -1, 3, "≥ 0"), (3, 195, 2, "impossible"),
    (3, 3.0, 1, "whole numbers"), (3, True, 3, "whole numbers")])
def test_invalid_scores(length: int, a: int, b: int, why: str) -> None:
    with pytest.raises(InvalidResultError, match=why):
        validate_score(length, a, b)


def test_status_follows_the_match() -> None:
    m = Match("KO-QF-1", "knockout", "QF", 2, 1, 5, ClockPreset.for_length(5))
    assert m.status == "waiting"
    m.a, m.b = "X", "Y"
    assert m.status == "ready"
    m.table = "T3"
    assert m.status == "assigned"
    m.started_at = T
    assert m.status == "playing"
    m.result = Result("X", "Y", 5, 2, False, "table", "T3", T)
    assert m.status == "done" and m.result.winner == "X" and m.result.loser == "Y"
    assert m.result.score_of("Y") == 2


def test_round_trip() -> None:
    m = Match("KO-SF-1", "knockout", "SF", 3, 1, 7, ClockPreset(840, 10, True), "X", "Y",
              sources=(Source("winner", "KO-QF-1"), Source("seed", 4)), loser_place=(3, 4),
              planned_start=T, table="T1", assigned_at=T, scheduled_start=T, started_at=T,
              started_players=("X", "Y"), result=Result("X", "Y", 7, 6, False, "table", "T1", T))
    d = m.to_dict()
    assert d["status"] == "done"
    assert Match.from_dict(d) == m


def test_default_clock_is_two_minutes_a_point() -> None:
    assert ClockPreset.for_length(3) == ClockPreset(360, 10, False)
