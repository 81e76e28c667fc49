"""Groups: snake fill (HGV 7.2.1), Berger schedules, standings and tie-breaks (HGV 7.2.3)."""

from __future__ import annotations

import itertools

import pytest

from mesa.tournament.errors import NotEnoughPlayersError, TournamentError
from mesa.tournament.groups import (
    GroupResult,
    berger_rounds,
    group_count,
    group_standings,
    snake_fill,
    voided_players,
)

# HGV 7.2.1, verbatim: the groups for 39 players.
HGV_7_2_1 = {
    1: [1, 26, 27], 2: [2, 25, 28], 3: [3, 24, 29], 4: [4, 23, 30], 5: [5, 22, 31],
    6: [6, 21, 32], 7: [7, 20, 33], 8: [8, 19, 34], 9: [9, 18, 35], 10: [10, 17, 36],
    11: [11, 16, 37], 12: [12, 15, 38], 13: [13, 14, 39],
}


def R(mid: str, a: str, b: str, sa: int, sb: int, forfeit: bool = False) -> GroupResult:
    return GroupResult(mid, a, b, sa, sb, forfeit)


def order(st) -> list[str]:
    return [r.player_id for r in st.rows]


class TestSnake:
    def test_39_players_reproduce_hgv_7_2_1_exactly(self) -> None:
        groups = snake_fill(39, group_count(39))
        assert {i + 1: g for i, g in enumerate(groups)} == HGV_7_2_1

    def test_extra_players_continue_the_snake(self) -> None:
        groups = snake_fill(41, group_count(41))
        assert groups[12] == [13, 14, 39, 40]
        assert groups[11] == [12, 15, 38, 41]
        assert sum(map(len, groups)) == 41

    @pytest.mark.parametrize("n", range(2, 60))
    def test_every_rank_placed_once(self, n: int) -> None:
        for g in range(1, n // 2 + 1):
            groups = snake_fill(n, g)
            assert sorted(itertools.chain(*groups)) == list(range(1, n + 1))
            assert max(map(len, groups)) - min(map(len, groups)) <= 1

    def test_group_count(self) -> None:
        assert [group_count(n) for n in (2, 3, 5, 6, 30, 39, 40)] == [1, 1, 1, 2, 10, 13, 13]
        assert group_count(12, requested=3) == 3

    def test_fewer_than_two_players(self) -> None:
        with pytest.raises(NotEnoughPlayersError):
            group_count(1)

    @pytest.mark.parametrize("g", [0, 7, -1])
    def test_director_group_count_must_leave_two_per_group(self, g: int) -> None:
        with pytest.raises(TournamentError) as e:
            group_count(12, requested=g)
        assert e.value.code == "bad_group_count"


class TestBerger:
    def test_six_players_match_the_fide_table(self) -> None:
        assert berger_rounds(6) == [
            [(1, 6), (2, 5), (3, 4)],
            [(6, 4), (5, 3), (1, 2)],
            [(2, 6), (3, 1), (4, 5)],
            [(6, 5), (1, 4), (2, 3)],
            [(3, 6), (4, 2), (5, 1)],
        ]

    @pytest.mark.parametrize("n", range(2, 13))
    def test_round_robin_is_complete(self, n: int) -> None:
        rounds = berger_rounds(n)
        pairs = [frozenset(p) for r in rounds for p in r]
        assert len(pairs) == n * (n - 1) // 2 == len(set(pairs))
        for r in rounds:
            players = [x for p in r for x in p]
            assert len(players) == len(set(players))
        whites = [p[0] for r in rounds for p in r]
        for player in range(1, n + 1):  # colours stay balanced
            assert abs(2 * whites.count(player) - (n - 1)) <= 2


class TestStandings:
    def test_match_points_first(self) -> None:
        st = group_standings(1, ["A", "B", "C"], [
            R("G1-1", "B", "C", 3, 1), R("G1-2", "A", "B", 0, 3), R("G1-3", "C", "A", 3, 2)])
        assert order(st) == ["B", "C", "A"]
        assert [r.decided_by for r in st.rows] == ["wins", "wins", "wins"]
        assert st.complete and st.qualifiers == ["B", "C", "A"]

    def test_three_way_cycle_criterion_2_then_criterion_1_again(self) -> None:
        # A beats B 3-0, B beats C 3-1, C beats A 3-2: one win each, criterion 1 ties;
        # criterion 2: A +2, B -1, C -1 puts A first; {B, C} restart at criterion 1: B beat C.
        st = group_standings(1, ["A", "B", "C"], [
            R("G1-1", "B", "C", 3, 1), R("G1-2", "A", "B", 3, 0), R("G1-3", "C", "A", 3, 2)])
        assert order(st) == ["A", "B", "C"]
        a, b, _ = st.rows
        assert a.decided_by == "h2h_diff"
        assert [s.criterion for s in b.steps] == ["wins", "h2h_wins", "h2h_diff", "h2h_wins"]
        assert b.steps[-1].among == ("B", "C") and b.decided_by == "h2h_wins"

    def test_tie_split_by_criterion_1_then_rebroken_from_criterion_1(self) -> None:
        # A, B, C, D all on 3 wins. Among them A and B won 2, C and D 1 (criterion 1 splits
        # 2 + 2). {A, B} restarts at criterion 1: A beat B 3-2, although criterion 2 over the
        # four (A -1, B +5) would have put B first.
        res = [
            R("1", "A", "B", 3, 2), R("2", "A", "C", 3, 2), R("3", "D", "A", 3, 0),
            R("4", "B", "C", 3, 0), R("5", "B", "D", 3, 0), R("6", "C", "D", 3, 1),
            R("7", "A", "E", 3, 0), R("8", "F", "A", 3, 0), R("9", "E", "B", 3, 0),
            R("10", "B", "F", 3, 0), R("11", "C", "E", 3, 0), R("12", "C", "F", 3, 0),
            R("13", "D", "E", 3, 0), R("14", "D", "F", 3, 0), R("15", "E", "F", 3, 0),
        ]
        st = group_standings(1, list("ABCDEF"), res)
        assert order(st) == list("ABCDEF")
        b = st.row("B")
        first = b.steps[1]
        assert (first.criterion, first.among, first.split) == ("h2h_wins", tuple("ABCD"), True)
        assert first.values == {"A": 2, "B": 2, "C": 1, "D": 1}
        assert (b.steps[2].criterion, b.steps[2].among) == ("h2h_wins", ("A", "B"))
        assert st.row("C").decided_by == "h2h_wins"

    def test_forfeit_drops_out_of_the_tie(self) -> None:
        # A and B on 2 wins and A beat B, but A lost to D by forfeit: B goes above (HGV 2.3.2).
        res = [R("1", "A", "B", 3, 0), R("2", "A", "C", 3, 1), R("3", "D", "A", 3, 0, True),
               R("4", "B", "C", 3, 0), R("5", "B", "D", 3, 0), R("6", "C", "D", 3, 0)]
        st = group_standings(1, list("ABCD"), res)
        assert order(st) == ["B", "A", "C", "D"]
        assert st.row("A").decided_by == "forfeit" and st.row("B").decided_by == "forfeit"
        assert st.row("A").forfeit_losses == 1
        assert st.row("C").decided_by == "h2h_wins"

    def test_forfeit_players_tie_is_broken_among_themselves(self) -> None:
        # B, C, D on 1 win; B and C have a forfeit loss each (and a normal loss, so they are
        # not voided): D first of the three, then C beat B.
        res = [R("1", "A", "B", 3, 0), R("2", "A", "C", 3, 0), R("3", "A", "D", 3, 0),
               R("4", "C", "B", 3, 0, True), R("5", "D", "C", 3, 0, True), R("6", "B", "D", 3, 1)]
        st = group_standings(1, list("ABCD"), res)
        assert not st.voided
        assert order(st) == ["A", "D", "C", "B"]
        assert st.row("B").steps[-1].among == ("B", "C")
        assert st.row("B").decided_by == "h2h_wins"

    def test_voided_player_hgv_2_3_3(self) -> None:
        # C beat A, then lost to B by forfeit: C's results are all removed, as if absent.
        res = [R("G1-1", "B", "C", 3, 0, True), R("G1-2", "A", "B", 3, 2),
               R("G1-3", "C", "A", 3, 1)]
        assert voided_players(["A", "B", "C"], res) == {"C"}
        st = group_standings(1, ["A", "B", "C"], res)
        assert order(st) == ["A", "B", "C"]
        c = st.row("C")
        assert c.voided and not c.qualified and c.decided_by == "void"
        assert (c.wins, c.played) == (0, 0)
        assert st.row("A").wins == 1 and st.row("A").played == 1
        assert set(st.removed_matches) == {"G1-1", "G1-3"}
        assert st.qualifiers == ["A", "B"]

    def test_no_void_until_all_matches_are_decided(self) -> None:
        res = [R("G1-1", "B", "C", 3, 0, True), R("G1-2", "A", "B", 3, 1)]
        assert voided_players(["A", "B", "C"], res) == set()
        res.append(R("G1-3", "C", "A", 3, 1))
        assert voided_players(["A", "B", "C"], res) == {"C"}

    def test_two_wins_and_a_forfeit_is_not_voided(self) -> None:
        res = [R("1", "A", "B", 3, 0), R("2", "A", "C", 3, 0), R("3", "D", "A", 3, 0, True),
               R("4", "B", "C", 3, 0), R("5", "B", "D", 3, 0), R("6", "C", "D", 3, 0)]
        assert voided_players(list("ABCD"), res) == set()

    def test_dice_roll_breaks_a_perfect_tie(self) -> None:
        res = [R("1", "B", "C", 3, 0), R("2", "A", "B", 3, 0), R("3", "C", "A", 3, 0)]
        rolls = {"A": 2, "B": 6, "C": 4}
        calls: list[tuple[tuple[str, ...], int]] = []

        def dice(tied: tuple[str, ...], attempt: int) -> dict[str, int]:
            calls.append((tied, attempt))
            return {p: rolls[p] for p in tied}

        st = group_standings(1, ["A", "B", "C"], res, dice=dice)
        assert order(st) == ["B", "C", "A"]
        assert calls == [(("A", "B", "C"), 0)]
        assert [r.decided_by for r in st.rows] == ["dice", "dice", "dice"]
        assert st.dice[0].values == rolls

    def test_equal_dice_roll_again(self) -> None:
        res = [R("1", "B", "C", 3, 0), R("2", "A", "B", 3, 0), R("3", "C", "A", 3, 0)]

        def dice(tied: tuple[str, ...], attempt: int) -> dict[str, int]:
            return {p: 3 for p in tied} if attempt == 0 else {"A": 1, "B": 5, "C": 4}

        st = group_standings(1, ["A", "B", "C"], res, dice=dice)
        assert order(st) == ["B", "C", "A"]
        assert [d.attempt for d in st.dice] == [0, 1]

    def test_dice_split_into_smaller_tie_restarts_at_criterion_1(self) -> None:
        res = [R("1", "B", "C", 3, 0), R("2", "A", "B", 3, 0), R("3", "C", "A", 3, 0)]
        seen = []

        def dice(tied: tuple[str, ...], attempt: int) -> dict[str, int]:
            seen.append(tied)
            return {"A": 6, "B": 2, "C": 2} if len(tied) == 3 else None  # type: ignore[return-value]

        st = group_standings(1, ["A", "B", "C"], res, dice=dice)
        # {B, C} restart at criterion 1: B beat C.
        assert order(st) == ["A", "B", "C"]
        assert seen == [("A", "B", "C")]
        assert st.row("C").decided_by == "h2h_wins"

    def test_without_dice_the_tie_is_pending(self) -> None:
        res = [R("1", "B", "C", 3, 0), R("2", "A", "B", 3, 0), R("3", "C", "A", 3, 0)]
        st = group_standings(1, ["A", "B", "C"], res)
        assert st.pending_dice and order(st) == ["A", "B", "C"]
        assert all(r.decided_by == "pending" for r in st.rows)

    def test_wrong_dice_players_are_refused(self) -> None:
        res = [R("1", "B", "C", 3, 0), R("2", "A", "B", 3, 0), R("3", "C", "A", 3, 0)]
        with pytest.raises(TournamentError):
            group_standings(1, ["A", "B", "C"], res, dice=lambda tied, n: {"A": 1, "B": 2})

    def test_criterion_3_uses_the_whole_group(self) -> None:
        # A cycle of 3-0 wins ties criteria 1 and 2; the margins against D decide (3).
        res = [R("1", "A", "B", 3, 0), R("2", "B", "C", 3, 0), R("3", "C", "A", 3, 0),
               R("4", "A", "D", 3, 2), R("5", "B", "D", 3, 0), R("6", "C", "D", 3, 1)]
        st = group_standings(1, list("ABCD"), res)
        assert order(st) == ["B", "C", "A", "D"]
        assert st.row("B").decided_by == "diff"
        assert st.row("C").decided_by == "diff"

    def test_partial_standings_are_provisional(self) -> None:
        st = group_standings(1, ["A", "B", "C"], [R("G1-1", "B", "C", 3, 1)])
        assert not st.complete
        assert order(st)[0] == "B"

    def test_qualifiers_setting(self) -> None:
        res = [R("1", "A", "B", 3, 0), R("2", "A", "C", 3, 0), R("3", "A", "D", 3, 0),
               R("4", "B", "C", 3, 0), R("5", "B", "D", 3, 0), R("6", "C", "D", 3, 0)]
        st = group_standings(1, list("ABCD"), res, qualifiers=2)
        assert st.qualifiers == ["A", "B"]
        assert st.to_dict()["rows"][0]["decided_by"] == "wins"
