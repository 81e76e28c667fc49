"""Pairing a pairs round: the fewest repeated meetings, checked against every possible round."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.games.domino import pairing
from mesa.games.domino.pairing import Pairing, max_matching, pair_round


def _matchings(ids: list[int]) -> Iterator[list[tuple[int, int]]]:
    """Every pairing of ``ids``, each game (lower index, higher index), games by first index."""
    if not ids:
        yield []
        return
    first, rest = ids[0], ids[1:]
    for k, other in enumerate(rest):
        for tail in _matchings(rest[:k] + rest[k + 1 :]):
            yield [(first, other), *tail]


def _brute(order: list[str], met: Counter[frozenset[str]], byes: list[str]) -> Pairing:
    """The module's criteria written out plainly: fewest rematches, fewest earlier meetings,
    the bye to the lowest pair among those with the fewest byes, then the Swiss order (the
    lexicographically first round, games listed by their higher pair)."""
    n = len(order)
    had = Counter(byes)
    if n % 2:
        fewest = min(had[p] for p in order)
        candidates: list[int | None] = [i for i in reversed(range(n)) if had[order[i]] == fewest]
    else:
        candidates = [None]
    best: tuple[tuple[int, int, int, list[tuple[int, int]]], int | None] | None = None
    for rank, bye in enumerate(candidates):
        for games in _matchings([i for i in range(n) if i != bye]):
            counts = [met[frozenset({order[a], order[b]})] for a, b in games]
            key = (sum(c > 0 for c in counts), sum(counts), rank, games)
            if best is None or key < best[0]:
                best = (key, bye)
    assert best is not None
    (rem, _, _, games), bye = best
    return Pairing(
        games=[(order[a], order[b]) for a, b in games],
        bye=None if bye is None else order[bye],
        rematches=rem,
    )


def _history(rnd: random.Random, order: list[str], games: int) -> Counter[frozenset[str]]:
    met: Counter[frozenset[str]] = Counter()
    for _ in range(games):
        a, b = rnd.sample(order, 2)
        met[frozenset({a, b})] += 1
    return met


@settings(max_examples=150, deadline=None, derandomize=True)
@given(n=st.integers(2, 10), density=st.integers(0, 40), seed=st.integers(0, 2**32))
def test_the_round_is_the_best_of_all_rounds(n: int, density: int, seed: int) -> None:
    """Random histories (sparse to every pair met several times), odd fields with random byes:
    the round is exactly the one the brute force picks."""
    rnd = random.Random(seed)
    order = [f"P{i}" for i in range(n)]
    met = _history(rnd, order, density)
    byes = rnd.sample(order, rnd.randint(0, n)) * rnd.randint(1, 2) if n % 2 else []
    assert pair_round(order, met, byes) == _brute(order, met, byes)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(n=st.integers(2, 10), density=st.integers(0, 40), seed=st.integers(0, 2**32))
def test_out_of_steps_the_rematches_are_still_the_fewest(n: int, density: int, seed: int) -> None:
    """With almost no search budget the round falls back to maximum matchings: the number of
    rematches stays exact, every pair plays once, and a round without a rematch is exactly the
    one the criteria pick."""
    rnd = random.Random(seed)
    order = [f"P{i}" for i in range(n)]
    met = _history(rnd, order, density)
    byes = rnd.sample(order, rnd.randint(0, n)) if n % 2 else []
    with pytest.MonkeyPatch.context() as m:
        m.setattr(pairing, "MAX_STEPS", 3)
        got = pair_round(order, met, byes)
    want = _brute(order, met, byes)
    assert got.rematches == want.rematches
    seated = [p for g in got.games for p in g] + ([got.bye] if got.bye else [])
    assert sorted(seated) == sorted(order)
    assert all(order.index(a) < order.index(b) for a, b in got.games)
    if want.rematches == 0:
        assert got == want


def test_the_issue_case_repeats_one_game_not_two() -> None:
    met = [frozenset(p) for p in (("Q0", "Q1"), ("Q0", "Q2"), ("Q1", "Q2"), ("Q2", "Q3"))]
    plan = pair_round(["Q0", "Q1", "Q2", "Q3"], met)
    assert plan.rematches == 1
    assert plan.games == [("Q0", "Q2"), ("Q1", "Q3")]


def test_a_third_meeting_is_avoided_before_a_second() -> None:
    met = Counter({frozenset({"A", "B"}): 2, frozenset({"C", "D"}): 2,
                   frozenset({"A", "C"}): 1, frozenset({"B", "D"}): 1,
                   frozenset({"A", "D"}): 1, frozenset({"B", "C"}): 1})
    plan = pair_round(["A", "B", "C", "D"], met)
    assert plan.games == [("A", "C"), ("B", "D")] and plan.rematches == 2


def test_the_bye_moves_up_when_the_lowest_would_force_a_rematch() -> None:
    # E's bye leaves A B C D, where A has met the other three: a rematch. D's bye leaves
    # A–E and B–C, none of them played before.
    met = [frozenset(p) for p in (("A", "B"), ("C", "D"), ("A", "C"), ("B", "D"), ("A", "D"))]
    plan = pair_round(["A", "B", "C", "D", "E"], met)
    assert plan.rematches == 0 and plan.bye == "D"
    assert plan.games == [("A", "E"), ("B", "C")]
    # Nobody gets a second bye while another pair has had none, rematch or not.
    plan = pair_round(["A", "B", "C", "D", "E"], met, byes=["A", "B", "C", "D"])
    assert plan.bye == "E" and plan.rematches == 1


def test_max_matching_is_maximum() -> None:
    # An odd cycle with a tail: the greedy start leaves an augmenting path through a blossom.
    adj = [[1, 2], [0, 2], [0, 1, 3], [2, 4], [3, 5], [4]]
    mate = max_matching(6, adj)
    assert all(m >= 0 for m in mate) and all(mate[m] == v for v, m in enumerate(mate))


def test_tiny_fields() -> None:
    assert pair_round([], []) == Pairing(games=[], bye=None, rematches=0)
    assert pair_round(["A"], [], byes=["A"]) == Pairing(games=[], bye="A", rematches=0)
    assert pair_round(["A", "B", "A"], []) == Pairing(games=[("A", "B")], bye=None, rematches=0)
