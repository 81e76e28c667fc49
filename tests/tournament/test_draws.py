"""Reproducible draws: same seed, same outcome; fair dice."""

from __future__ import annotations

from collections import Counter

from mesa.tournament.draws import draw_key, draw_order, roll_die


def test_same_seed_same_order() -> None:
    items = [f"P{i:04d}" for i in range(20)]
    assert draw_order(5, items, "x") == draw_order(5, list(reversed(items)), "x")
    assert draw_order(5, items, "x") != draw_order(6, items, "x")
    assert sorted(draw_order(5, items, "x")) == items


def test_keys_depend_on_every_part() -> None:
    assert draw_key(1, "a", "b") != draw_key(1, "ab")
    assert draw_key("1", "a") == draw_key(1, "a")  # the seed is recorded as text


def test_die_is_fair_enough() -> None:
    faces = Counter(roll_die(2014, "G1", str(i)) for i in range(6000))
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert all(850 < n < 1150 for n in faces.values())
