"""FIBS ratings: the check values of RULES §4 and the history per player."""

from __future__ import annotations

import random

import pytest

from mesa.tournament.rating import RatingBook, fibs_change, k_factor, p_upset


def test_check_values_from_the_rules() -> None:
    assert fibs_change(1500, 1500, 1, 0, 0) == pytest.approx((10.0, 10.0))
    assert fibs_change(1500, 1500, 1, 400, 400) == pytest.approx((2.0, 2.0))
    assert fibs_change(1500, 1500, 1, 1000, 1000) == pytest.approx((2.0, 2.0))
    fav, _ = fibs_change(1600, 1500, 3, 400, 400)
    dog, _ = fibs_change(1500, 1600, 3, 400, 400)
    assert round(fav, 6) == 3.119854 and round(dog, 6) == 3.808349


def test_each_player_has_their_own_k() -> None:
    gain, loss = fibs_change(1500, 1500, 1, 0, 400)
    assert gain == pytest.approx(10.0) and loss == pytest.approx(2.0)
    assert [k_factor(e) for e in (0, 100, 250, 400, 900)] == [5, 4, 2.5, 1, 1]
    assert p_upset(0, 5) == 0.5 and p_upset(200, 5) == pytest.approx(p_upset(-200, 5))


def test_book_history_and_experience() -> None:
    book = RatingBook()
    book.apply_match("T1", "G1-1", "A", "B", 3)
    book.apply_match("T1", "G1-2", "B", "A", 5)
    a, b = book.get("A"), book.get("B")
    assert a.experience == b.experience == 8
    assert [h.match_id for h in a.history] == ["G1-1", "G1-2"]
    assert a.history[0].before == 1500 and a.history[1].before == a.history[0].after
    assert a.rating + b.rating == pytest.approx(3000)  # equal K: zero-sum
    assert book.rating("nobody") == 1500
    assert RatingBook.from_dict(book.to_dict()) == book


def test_tournament_ratings_skip_forfeits(h, clock) -> None:
    t, _ = h.build(6)
    t.withdraw("P0006", "no_show", now=clock())
    h.play(t, random.Random(1), consolation=False)
    book = RatingBook()
    n = book.apply_tournament(t)
    played = [m for m in t.matches.values() if m.result and not m.result.forfeit]
    assert n == len(played) and "P0006" not in book.players
    assert book.apply_tournament(t) == 0  # once only
    again = RatingBook.rebuild([t])
    assert again.to_dict() == book.to_dict()
