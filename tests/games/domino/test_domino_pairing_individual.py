"""The individual format's draw: checked against every possible draw on small fields, and a club
field over an evening keeps every partnership new."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.games.domino.individual_pairing import IndividualDraw, draw_individual

Table = tuple[int, int, int, int]


def _partitions(ranks: list[int]) -> Iterator[list[Table]]:
    if not ranks:
        yield []
        return
    first, rest = ranks[0], ranks[1:]
    for i in range(len(rest)):
        for j in range(i + 1, len(rest)):
            for k in range(j + 1, len(rest)):
                left = [r for x, r in enumerate(rest) if x not in (i, j, k)]
                for tail in _partitions(left):
                    yield [(first, rest[i], rest[j], rest[k]), *tail]


# a+d / b+c, a+c / b+d, a+b / c+d: the module docstring's order of preference.
SPLITS = (((0, 3), (1, 2)), ((0, 2), (1, 3)), ((0, 1), (2, 3)))


def _brute(
    order: list[str], partnered: Counter[frozenset[str]], faced: Counter[frozenset[str]],
    out: list[str],
) -> IndividualDraw:
    """The module docstring's criteria written out plainly over every draw of the seated
    players. The split of each table is the best for that table alone: every criterion is a sum
    over the tables, so the best draw has each table at its best split."""
    seated = [p for p in order if p not in out]

    known: dict[tuple[Table, int], tuple[int, ...]] = {}

    def table_key(t: Table, split: int) -> tuple[int, ...]:
        if (t, split) not in known:
            known[t, split] = _table_key(t, split)
        return known[t, split]

    def _table_key(t: Table, split: int) -> tuple[int, ...]:
        (a, b), (c, d) = SPLITS[split]
        pairs = [frozenset({seated[t[a]], seated[t[b]]}), frozenset({seated[t[c]], seated[t[d]]})]
        opp = [frozenset({seated[t[x]], seated[t[y]]}) for x in (a, b) for y in (c, d)]
        spread = 4 * sum(r * r for r in t) - sum(t) ** 2
        return (sum(partnered[p] > 0 for p in pairs), sum(partnered[p] for p in pairs),
                sum(faced[o] > 0 for o in opp), sum(faced[o] for o in opp), spread)

    best = None
    for draw in _partitions(list(range(len(seated)))):
        splits = [min(range(3), key=lambda s, t=t: (table_key(t, s), s)) for t in draw]  # type: ignore[misc]
        keys = [table_key(t, s) for t, s in zip(draw, splits, strict=True)]
        total = tuple(sum(k[i] for k in keys) for i in range(5))
        cand = (total, draw, splits)
        if best is None or cand < best:
            best = cand
    assert best is not None
    total, draw, splits = best
    tables = []
    for t, s in zip(draw, splits, strict=True):
        (a, b), (c, d) = SPLITS[s]
        tables.append({"n": seated[t[a]], "e": seated[t[c]], "s": seated[t[b]],
                       "w": seated[t[d]]})
    return IndividualDraw(tables, out, total[0], total[2])


def _history(
    rnd: random.Random, order: list[str], games: int
) -> tuple[Counter[frozenset[str]], Counter[frozenset[str]]]:
    """``games`` random earlier games among ``order`` (four players each)."""
    partnered: Counter[frozenset[str]] = Counter()
    faced: Counter[frozenset[str]] = Counter()
    for _ in range(games):
        n, e, s, w = rnd.sample(order, 4)
        partnered.update([frozenset({n, s}), frozenset({e, w})])
        faced.update(frozenset({x, y}) for x in (n, s) for y in (e, w))
    return partnered, faced


def _check(n: int, games: int, seed: int) -> None:
    rnd = random.Random(seed)
    order = [f"J{i}" for i in range(n)]
    partnered, faced = _history(rnd, order, games)
    sat_out = rnd.sample(order, rnd.randint(0, n))
    got = draw_individual(order, list(partnered.elements()), list(faced.elements()), sat_out)
    # the sit-outs: the lowest among those who sat out the fewest times
    fewest = sorted(order, key=lambda p: (sat_out.count(p), -order.index(p)))[: n % 4]
    assert got.sitting_out == [p for p in order if p in fewest]
    assert got == _brute(order, partnered, faced, got.sitting_out)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(n=st.integers(8, 11), games=st.integers(0, 14), seed=st.integers(0, 2**32))
def test_eight_seated_the_draw_is_the_best_of_all_draws(n: int, games: int, seed: int) -> None:
    _check(n, games, seed)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(n=st.integers(12, 15), games=st.integers(0, 30), seed=st.integers(0, 2**32))
def test_twelve_seated_the_draw_is_the_best_of_all_draws(n: int, games: int, seed: int) -> None:
    _check(n, games, seed)


def test_forty_players_over_seven_rounds_never_partner_twice() -> None:
    """A club evening: 40 players, 7 rounds, standings from random results (games won)."""
    rnd = random.Random(19)
    ids = [f"J{i:02}" for i in range(40)]
    won: Counter[str] = Counter()
    partnered: list[frozenset[str]] = []
    faced: list[frozenset[str]] = []
    for _ in range(7):
        order = sorted(ids, key=lambda p: (-won[p], p))
        d = draw_individual(order, partnered, faced)
        assert d.partner_repeats == 0 and d.opponent_repeats == 0 and d.sitting_out == []
        seated = [t[s] for t in d.tables for s in "nesw"]
        assert sorted(seated) == ids
        for t in d.tables:
            partnered += [frozenset({t["n"], t["s"]}), frozenset({t["e"], t["w"]})]
            faced += [frozenset({x, y}) for x in (t["n"], t["s"]) for y in (t["e"], t["w"])]
            for seat in rnd.choice(("ns", "ew")):
                won[t[seat]] += 1
    assert max(Counter(partnered).values()) == 1


def test_leaders_sit_with_leaders_and_the_best_partners_the_weakest() -> None:
    order = [f"J{i}" for i in range(8)]
    d = draw_individual(order, [], [])
    assert d.tables == [{"n": "J0", "e": "J1", "s": "J3", "w": "J2"},
                        {"n": "J4", "e": "J5", "s": "J7", "w": "J6"}]


def test_a_partner_repeat_is_avoided_before_an_opponent_repeat() -> None:
    # Four players: each split repeats something; the draw repeats opponents, never partners.
    order = ["A", "B", "C", "D"]
    partnered = [frozenset({"A", "D"}), frozenset({"B", "C"}), frozenset({"A", "C"})]
    faced = [frozenset({"A", "C"})]
    d = draw_individual(order, partnered, faced)
    assert d.tables == [{"n": "A", "e": "C", "s": "B", "w": "D"}]
    assert (d.partner_repeats, d.opponent_repeats) == (0, 1)


def test_a_small_field_sits_out_whole() -> None:
    d = draw_individual(["A", "B", "C"], [], [])
    assert d.tables == [] and d.sitting_out == ["A", "B", "C"]


def test_the_sit_out_goes_to_the_lowest_of_those_who_sat_out_least() -> None:
    order = ["A", "B", "C", "D", "E"]
    assert draw_individual(order, [], [], sat_out=["E", "D", "E"]).sitting_out == ["C"]
    # everyone sat out once: the lowest again
    assert draw_individual(order, [], [], sat_out=order).sitting_out == ["E"]
    # ten players, two sit out; a name given twice in the order counts once
    d = draw_individual([*order, "F", "G", "H", "I", "J", "A"], [], [], sat_out=["I"])
    assert d.sitting_out == ["H", "J"] and len(d.tables) == 2
