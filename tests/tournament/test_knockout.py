"""The knockout draw: seeding, play-ins, standard positions, same-group separation."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.tournament.errors import NotEnoughPlayersError
from mesa.tournament.groups import GroupResult, group_standings
from mesa.tournament.knockout import (
    QualifiedSeed,
    bracket_positions,
    ko_round_label,
    largest_power_of_two,
    plan_bracket,
    qualifier_seeding,
    same_group_first_matches,
    separate_groups,
)


def seeds_for(groups: int, per_group: int = 3) -> list[QualifiedSeed]:
    return [QualifiedSeed(i + 1, f"g{i % groups + 1}p{i // groups + 1}", i // groups + 1,
                          i % groups + 1) for i in range(groups * per_group)]


def test_largest_power_of_two() -> None:
    assert [largest_power_of_two(q) for q in (1, 2, 3, 16, 17, 30, 31, 32, 39, 1000)] == [
        1, 2, 2, 16, 16, 16, 16, 32, 32, 512]


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_standard_positions(size: int) -> None:
    pos = bracket_positions(size)
    assert sorted(pos) == list(range(1, size + 1))
    assert all(pos[i] + pos[i + 1] == size + 1 for i in range(0, size, 2))
    half = size // 2
    assert 1 in pos[:half] and 2 in pos[half:]  # 1 and 2 meet only in the final
    if size >= 4:
        q = size // 4
        quarters = [set(pos[i:i + q]) for i in range(0, size, q)]
        assert [next(s for s in range(1, 5) if s in quarter) for quarter in quarters] == [
            1, 4, 2, 3]


def test_30_qualifiers_play_in_to_16() -> None:
    plan = plan_bracket(30, "KO")
    rounds = Counter(m.round for m in plan.matches)
    assert rounds == {"PI": 14, "R16": 8, "QF": 4, "SF": 2, "F": 1}
    pis = [m for m in plan.matches if m.playin]
    pairs = sorted(tuple(sorted(int(s.ref) for s in m.sources)) for m in pis)
    assert pairs == [(s, 33 - s) for s in range(3, 17)]
    assert {m.loser_place for m in pis} == {(17, 30)}
    r16 = [m for m in plan.matches if m.round == "R16"]
    direct = sorted(int(s.ref) for m in r16 for s in m.sources if s.kind == "seed")
    assert direct == [1, 2]
    assert {m.loser_place for m in r16} == {(9, 16)}
    assert plan.final_id == "KO-F-1"
    assert [m.id for m in plan.matches if m.round == "R16"][4] == "KO-R16-5"


def test_39_qualifiers_play_in_to_32() -> None:
    plan = plan_bracket(39, "KO")
    pis = [m for m in plan.matches if m.playin]
    assert len(pis) == 7
    assert sorted(int(s.ref) for m in pis for s in m.sources) == list(range(26, 40))
    assert {m.loser_place for m in pis} == {(33, 39)}


def test_no_play_in_for_a_power_of_two() -> None:
    plan = plan_bracket(8, "KO")
    assert [m.round for m in plan.matches] == ["QF"] * 4 + ["SF"] * 2 + ["F"]


def test_two_players_is_a_final() -> None:
    plan = plan_bracket(2, "KO")
    assert [(m.id, m.loser_place) for m in plan.matches] == [("KO-F-1", (2, 2))]


def test_one_player_is_no_bracket() -> None:
    with pytest.raises(NotEnoughPlayersError):
        plan_bracket(1, "KO")


def test_round_labels() -> None:
    assert [ko_round_label(0, n, False) for n in (64, 32, 16, 8, 4, 2)] == [
        "R64", "R32", "R16", "QF", "SF", "F"]
    assert ko_round_label(1, 14, True) == "PI"


def test_seeding_by_place_then_group() -> None:
    def group(g: int, a: str, b: str, c: str):  # a beats b beats c
        return group_standings(g, [a, b, c], [
            GroupResult("1", b, c, 3, 0), GroupResult("2", a, b, 3, 0),
            GroupResult("3", c, a, 0, 3)])

    seeds = qualifier_seeding([group(2, "D", "E", "F"), group(1, "A", "B", "C")])
    assert [(s.seed, s.player_id, s.place, s.group) for s in seeds] == [
        (1, "A", 1, 1), (2, "D", 1, 2), (3, "B", 2, 1), (4, "E", 2, 2), (5, "C", 3, 1),
        (6, "F", 3, 2)]


def test_39_separation_swaps_only_equal_places() -> None:
    seeds = seeds_for(13)
    plan = plan_bracket(39, "KO")
    assert same_group_first_matches(seeds, plan) == 2  # 26 v 39 (G13), 10 v 23 (G10)
    new, swaps = separate_groups(seeds, plan)
    assert same_group_first_matches(new, plan) == 0
    assert swaps and all(seeds[a - 1].place == seeds[b - 1].place == sw.place
                         for sw in swaps for a, b in [sw.seeds])
    assert [s.seed for s in new] == list(range(1, 40))
    assert [s.place for s in new] == [s.place for s in seeds]
    assert sorted(s.player_id for s in new) == sorted(s.player_id for s in seeds)


def test_separation_cannot_help_one_group() -> None:
    seeds = [QualifiedSeed(i + 1, f"p{i}", i + 1, 1) for i in range(5)]
    plan = plan_bracket(5, "KO")
    new, swaps = separate_groups(seeds, plan)
    assert swaps == [] and new == seeds


@settings(max_examples=60, deadline=None)
@given(q=st.integers(min_value=2, max_value=200))
def test_every_bracket_is_valid(q: int) -> None:
    plan = plan_bracket(q, "KO")
    size = largest_power_of_two(q)
    assert len(plan.matches) == q - 1
    seeds = [int(s.ref) for m in plan.matches for s in m.sources if s.kind == "seed"]
    assert sorted(seeds) == list(range(1, q + 1))  # every seed enters exactly once
    fed = Counter(str(s.ref) for m in plan.matches for s in m.sources if s.kind == "winner")
    assert set(fed.values()) <= {1} and plan.final_id not in fed
    assert len(fed) == q - 2
    sizes = [m.size for m in plan.matches if not m.playin]
    counts = Counter(sizes)
    n = size
    while n >= 2:  # each round halves
        assert counts[n] == n // 2
        n //= 2
    assert sum(m.playin for m in plan.matches) == q - size
    places = sorted(m.loser_place for m in plan.matches)
    covered = sorted(p for lo, hi in {m.loser_place for m in plan.matches}
                     for p in range(lo, hi + 1))
    assert covered == list(range(2, q + 1))
    assert len(places) == q - 1


@settings(max_examples=40, deadline=None)
@given(groups=st.integers(min_value=2, max_value=60), per=st.integers(min_value=2, max_value=3))
def test_separation_never_makes_it_worse(groups: int, per: int) -> None:
    seeds = seeds_for(groups, per)
    plan = plan_bracket(len(seeds), "KO")
    new, _ = separate_groups(seeds, plan)
    assert same_group_first_matches(new, plan) <= same_group_first_matches(seeds, plan)
    if groups >= 3:
        assert same_group_first_matches(new, plan) == 0
