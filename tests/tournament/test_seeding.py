"""Seeding order: ranking points, then a recorded draw between equal points (HGV 7.2)."""

from __future__ import annotations

from mesa.tournament.seeding import SeedingDraw, seeding_order


def test_points_first_then_recorded_draw() -> None:
    pts = {"A": 230, "B": 0, "C": 134, "D": 0, "E": 0, "F": 134}
    d = seeding_order(pts, seed=99)
    assert d.order[0] == "A" and set(d.order[1:3]) == {"C", "F"} and set(d.order[3:]) == {
        "B", "D", "E"}
    assert d.entry("B").tie == ("B", "D", "E") and d.entry("A").tie == ()
    assert d.entry("A").key is None and d.entry("B").key is not None
    keys = [d.entry(p).key for p in d.order[3:]]
    assert keys == sorted(keys)  # the order is the order of the recorded keys
    assert [d.rank_of(p) for p in d.order] == [1, 2, 3, 4, 5, 6]


def test_reproducible_from_the_seed() -> None:
    pts = {f"P{i}": 0 for i in range(12)}
    assert seeding_order(pts, 1).order == seeding_order(dict(reversed(pts.items())), 1).order
    assert seeding_order(pts, 1).order != seeding_order(pts, 2).order


def test_round_trip() -> None:
    d = seeding_order({"A": 5, "B": 5, "C": 1}, "2014-01")
    assert SeedingDraw.from_dict(d.to_dict()) == d
