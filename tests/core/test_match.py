"""The match: scoring, the cube, Crawford, results (RULES §2)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.core.match import MAX_CUBE, Match
from mesa.errors import RuleError


def _at(length: int, a: int, b: int, **kw: object) -> Match:
    m = Match(length=length, **kw)  # type: ignore[arg-type]
    m.score = {"a": a, "b": b}
    return m


def _code(m: Match, side: str) -> str | None:
    refusal = m.double_refusal(side)  # type: ignore[arg-type]
    return refusal.code if refusal else None


def test_hgv_7_3_2_crawford_examples() -> None:
    """5-point match: at 4–2 the Crawford game; at 4–3 the cube is back; at 4–4 nobody doubles."""
    m = Match(length=5)
    m.start_game()
    m.finish_game("a", kind=2)  # 2–0
    m.start_game()
    m.finish_game("a", kind=2)  # 4–0 … reaches length − 1
    m.start_game()
    assert m.crawford_state == "crawford"
    assert _code(m, "a") == _code(m, "b") == "crawford"
    m.finish_game("b", kind=2)  # 4–2: the Crawford game was this one
    m.start_game()
    assert m.crawford_state == "post"
    assert _code(m, "b") is None  # the trailer may double again
    m.finish_game("b", kind=1)  # 4–3
    m.start_game()
    assert m.crawford_state == "post" and _code(m, "b") is None
    m.finish_game("b", kind=1)  # 4–4
    m.start_game()
    assert m.double_match_point
    assert _code(m, "a") == _code(m, "b") == "double_match_point"
    m.finish_game("a", kind=1)
    assert m.winner == "a" and m.score == {"a": 5, "b": 4}


def test_crawford_game_when_reached_at_4_2() -> None:
    m = _at(5, 4, 2)
    m.start_game()
    assert m.crawford_game  # the first game played at 4–2 is the Crawford game


def test_crawford_can_be_switched_off() -> None:
    m = _at(5, 4, 0, crawford=False)
    m.start_game()
    assert m.crawford_state == "off" and _code(m, "b") is None


def test_cube_rules() -> None:
    m = Match(length=9)
    assert _code(m, "a") == "no_game"
    m.start_game()
    m.double("a")
    assert _code(m, "b") == "cube_pending"
    with pytest.raises(RuleError):
        m.take("a")  # the doubler cannot answer
    m.take("b")
    assert (m.cube_value, m.cube_owner) == (2, "b")
    assert _code(m, "a") == "not_cube_owner"
    m.double("b")
    m.take("a")
    assert (m.cube_value, m.cube_owner) == (4, "a")
    assert m.finish_game("a", kind=3).points == 12  # backgammon × 4
    assert m.winner == "a" and m.score["a"] == 12  # over-length results recorded in full (HGV 5.3)


def test_cube_stops_at_64() -> None:
    m = Match(length=99)
    m.start_game()
    side = "a"
    while m.cube_value < MAX_CUBE:
        m.double(side)  # type: ignore[arg-type]
        side = "b" if side == "a" else "a"
        m.take(side)  # type: ignore[arg-type]
    assert _code(m, side) == "cube_max"


def test_pass_scores_the_cube_before_the_double() -> None:
    m = Match(length=7)
    m.start_game()
    m.double("a")
    m.take("b")
    m.double("b")
    record = m.pass_("a")
    assert (record.winner, record.points, record.how) == ("b", 2, "pass")
    assert m.score == {"a": 0, "b": 2}
    with pytest.raises(RuleError):
        m.pass_("a")  # no double is pending any more


@pytest.mark.parametrize(("kind", "points", "code"), [(4, None, "bad_kind"), (0, None, "bad_kind"),
                                                     (2, 3, "bad_points")])
def test_results_that_do_not_fit_are_refused(kind: int, points: int | None, code: str) -> None:
    m = Match(length=5)
    m.start_game()
    with pytest.raises(RuleError) as e:
        m.finish_game("a", kind, points=points)
    assert e.value.code == code
    assert m.score == {"a": 0, "b": 0} and m.in_game


def test_no_result_outside_a_game_or_after_the_match() -> None:
    m = Match(length=1)
    with pytest.raises(RuleError):
        m.finish_game("a", 1)
    m.start_game()
    m.finish_game("a", 1)
    with pytest.raises(RuleError):
        m.start_game()


def test_frozen_cube_de_5_2() -> None:
    m = Match(length=5)
    m.start_game()
    m.award("a", 4, "penalty")  # a is 1 away through penalty points
    m.freeze_cube("b")
    assert _code(m, "b") == "cube_frozen"
    m.finish_game("b", 1)
    m.start_game()  # the next game: the Crawford game anyway, and b is still frozen
    assert _code(m, "b") in ("crawford", "cube_frozen")
    m.finish_game("b", 1)
    m.start_game()
    assert _code(m, "b") is None


def test_decides_match() -> None:
    assert _at(5, 4, 4).decides_match()
    assert not _at(5, 4, 3).decides_match()
    m = _at(5, 3, 3)
    m.start_game()
    m.double("a")
    m.take("b")
    assert m.decides_match()  # any win is worth 2 now


def test_director_correction() -> None:
    m = Match(length=5)
    m.correct({"a": 5, "b": 2})
    assert m.winner == "a" and m.ended_by == "director"
    m.correct({"a": 3, "b": 2})
    assert m.winner is None  # reopened
    for bad in ({"a": -1, "b": 0}, {"a": 5, "b": 5}, {"a": 1}, {"a": 1.5, "b": 0}, {"a": True, "b": 0}):
        with pytest.raises(RuleError):
            m.correct(bad)  # type: ignore[arg-type]


def test_bad_length() -> None:
    with pytest.raises(RuleError):
        Match(length=0)


def test_round_trip() -> None:
    m = Match(length=5)
    m.start_game()
    m.double("a")
    m.take("b")
    m.finish_game("b", 2)
    assert Match.from_dict(m.to_dict()) == m


@settings(max_examples=300, deadline=None)
@given(length=st.integers(1, 15),
       games=st.lists(st.tuples(st.sampled_from("ab"), st.integers(1, 3), st.integers(0, 3)),
                      min_size=1, max_size=40))
def test_crawford_happens_exactly_once(length: int, games: list[tuple[str, int, int]]) -> None:
    """Whatever the results, the Crawford game is played exactly once when a player reaches
    length − 1 with the match still open, never otherwise, and nobody doubles in it.
    (A 1-point match starts at double match point and has no Crawford game.)"""
    m = Match(length=length)
    crawford_games = 0
    reached_one_away = False
    for winner, kind, doubles in games:
        if m.over:
            break
        m.start_game()
        if m.crawford_game:
            crawford_games += 1
            assert reached_one_away
            assert m.double_refusal("a") is not None and m.double_refusal("b") is not None
        for i in range(doubles):
            side = "a" if i % 2 == 0 else "b"
            if m.double_refusal(side) is None:  # type: ignore[arg-type]
                m.double(side)  # type: ignore[arg-type]
                m.take("b" if side == "a" else "a")
        m.finish_game(winner, kind)  # type: ignore[arg-type]
        if not m.over and any(m.away(s) == 1 for s in ("a", "b")):
            reached_one_away = True
    assert crawford_games <= 1
    if reached_one_away and not m.over:
        # Once the next game starts, it is the Crawford game or Crawford was already played.
        m.start_game()
        assert crawford_games + (1 if m.crawford_game else 0) == 1
