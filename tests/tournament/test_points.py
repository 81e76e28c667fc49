"""Points in hundredths (HGV 7.5): formatting, parsing, bands, breakdown."""

from __future__ import annotations

import pytest

from mesa.tournament.points import PointsBreakdown, RemovedWin, format_points, parse_points
from mesa.tournament.settings import PointsScale


@pytest.mark.parametrize("value,es,en", [(230, "2,30", "2.30"), (8, "0,08", "0.08"),
                                         (0, "0,00", "0.00"), (1318, "13,18", "13.18"),
                                         (-15, "-0,15", "-0.15")])
def test_format(value: int, es: str, en: str) -> None:
    assert format_points(value, "es") == es and format_points(value, "en") == en
    assert parse_points(es) == value == parse_points(en)


@pytest.mark.parametrize("bad", ["", "x", "1,2,3", "0.123", "1.", "--1", "1e3"])
def test_parse_refuses(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_points(bad)


def test_bands() -> None:
    s = PointsScale()
    assert [s.band_points(lo, hi) for lo, hi in [(1, 1), (2, 2), (3, 4), (5, 8), (9, 16),
                                                  (17, 32), (17, 30), (33, 39), (9, 12),
                                                  (5, 7), (3, 3), (16, 17)]] == [
        200, 100, 50, 25, 15, 8, 8, 0, 15, 25, 50, 0]


def test_breakdown_is_exact() -> None:
    b = PointsBreakdown("X", (17, 30), 8, 10, 15, 2, 0, 2, 4,
                        removed=(RemovedWin("G1-1", "HGV 2.3.3"),))
    assert (b.wins, b.win_points, b.total) == (4, 16, 49)
    d = b.to_dict()
    assert d["total"] == 49 and d["removed"] == [{"match_id": "G1-1", "rule": "HGV 2.3.3"}]
    # 0.1 + 0.2 style float errors cannot happen: 100 wins of 0.04 are exactly 4.00.
    assert PointsBreakdown("Y", None, 0, 0, 0, 100, 0, 0, 4).total == 400
