"""Último Chance bracket helpers (HGV 7.4.13)."""

from __future__ import annotations

from datetime import datetime

from mesa.tournament.consolation import (
    consolation_seeds,
    finalists,
    first_knockout_losers,
    plan_consolation,
)
from mesa.tournament.matches import ClockPreset, Match, Result

T = datetime(2014, 1, 31, 22, 0)


def test_plan_numbers_rounds() -> None:
    plan = plan_consolation(6)
    assert [(m.id, m.playin) for m in plan.matches] == [
        ("UC-R1-1", True), ("UC-R1-2", True), ("UC-R2-1", False), ("UC-R2-2", False),
        ("UC-R3-1", False)]
    assert plan_consolation(2).final_id == "UC-R1-1"


def test_seeds_follow_the_tournament_seeding() -> None:
    assert consolation_seeds(["x", "y", "z"], {"z": 1, "x": 7}) == ["z", "x", "y"]


def m(mid: str, rnd: int, a: str, b: str, winner: str | None) -> Match:
    res = None
    if winner:
        res = Result(a, b, 5 if winner == a else 1, 1 if winner == a else 5, False, "table",
                     "t", T)
    return Match(mid, "knockout", "R", rnd, 1, 5, ClockPreset.for_length(5), a, b, result=res)


def test_first_knockout_losers() -> None:
    ms = [m("PI-1", 1, "C", "D", "C"), m("R-1", 2, "A", "C", "C"), m("R-2", 2, "B", "E", None)]
    assert first_knockout_losers(ms) == ["D", "A"]


def test_finalists_once_known() -> None:
    final = Match("UC-R3-1", "consolation", "R3", 3, 1, 3, ClockPreset.for_length(3), "A")
    assert finalists(final) == () and finalists(None) == ()
    final.b = "B"
    assert finalists(final) == ("A", "B")
