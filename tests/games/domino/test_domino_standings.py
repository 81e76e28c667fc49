"""Standings from the players' records (mesa.games.domino.standings): by player, by pair."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.games.domino.records import PlayerRecord
from mesa.games.domino.standings import pair_standings, player_standings

record = st.builds(PlayerRecord, st.just(""), st.integers(0, 5), st.integers(0, 5),
                   st.integers(0, 900), st.integers(-300, 0), st.integers(0, 300))


@settings(max_examples=80, deadline=None)
@given(st.lists(record, min_size=8, max_size=8))
def test_pairs_rows_are_their_players_sums_ranked_by_won_points_fines_order(recs) -> None:  # type: ignore[no-untyped-def]
    records = {f"p{i}": PlayerRecord(f"p{i}", r.played, r.won, r.hand_points, r.fines,
                                     r.awards) for i, r in enumerate(recs)}
    pairs = {f"P{i}": (f"pair {i}", (f"p{2 * i}", f"p{2 * i + 1}")) for i in range(4)}
    rows = pair_standings(pairs, records)
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    for hi, lo in itertools.pairwise(rows):
        assert hi.key() < lo.key()
        assert (hi.won, hi.points) >= (lo.won, lo.points)
    for r in rows:
        a, b = (records[p] for p in r.players)
        assert (r.won, r.points, r.penalties, r.fines, r.awards, r.hand_points) == (
            a.won + b.won, a.points + b.points, a.fines + b.fines, a.fines + b.fines,
            a.awards + b.awards, a.hand_points + b.hand_points)


@settings(max_examples=80, deadline=None)
@given(st.lists(record, min_size=1, max_size=10))
def test_player_rows_ranked_by_won_points_fewer_fines_then_registration(recs) -> None:  # type: ignore[no-untyped-def]
    records = {f"p{i}": PlayerRecord(f"p{i}", r.played, r.won, r.hand_points, r.fines,
                                     r.awards) for i, r in enumerate(recs)}
    names = {p: p.upper() for p in records}
    rows = player_standings(names, records)
    assert sorted(r.player for r in rows) == sorted(records)
    for hi, lo in itertools.pairwise(rows):
        assert (-hi.won, -hi.points, -hi.fines, hi.order) < (-lo.won, -lo.points, -lo.fines,
                                                              lo.order)
    for r in rows:
        assert r.points == records[r.player].points and r.name == r.player.upper()


def test_ties_fewer_fines_first_then_registration_order() -> None:
    records = {"a": PlayerRecord("a", 1, 1, 125, -25), "b": PlayerRecord("b", 1, 1, 150, -50),
               "c": PlayerRecord("c", 1, 1, 100)}
    rows = player_standings({"a": "A", "b": "B", "c": "C"}, records)
    assert [r.player for r in rows] == ["c", "a", "b"]
    rows = player_standings({"b": "B", "a": "A"}, {"a": PlayerRecord("a"),
                                                   "b": PlayerRecord("b")})
    assert [r.player for r in rows] == ["b", "a"]
    assert [r.player for r in player_standings({"z": "Z"}, {})] == ["z"]  # no record yet
