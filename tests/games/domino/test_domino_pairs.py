"""The fixed-pairs tournament: pairing over its standings, byes, records summed per pair,
expulsion, and the first JSON shape read into records."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.games.domino.pairing import pair_round, rematch_free_possible
from mesa.games.domino.pairs import PairsError, PairsTournament


def _tournament(n_pairs: int) -> PairsTournament:
    t = PairsTournament("D1", "Prueba")
    for i in range(n_pairs):
        t.register_pair(f"a{i}", f"b{i}", (f"A{i}", f"B{i}"), actor="dir", at="20:00")
    return t


def _end(t: PairsTournament, gid: str, ns_wins: bool, ns: int, ew: int) -> None:
    t.record_game(gid, winner="ns" if ns_wins else "ew", how="points",
                  score={"ns": ns, "ew": ew},
                  games_won={"ns": int(ns_wins), "ew": int(not ns_wins)}, hands=5,
                  actor="table", at="21:00")


# ── pairing ──
@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 10), rounds=st.integers(1, 6), seed=st.randoms(use_true_random=False))
def test_no_rematch_while_one_can_be_avoided(n: int, rounds: int, seed) -> None:  # type: ignore[no-untyped-def]
    """Round after round with random results: a rematch only when no pairing avoids one."""
    t = _tournament(n)
    tables = [str(i) for i in range(1, n)]
    for _ in range(rounds):
        order = [r.pair for r in t.standings()]
        bye_before = {b for b in t.byes if b}
        plan = pair_round(order, t.met(), bye_before)
        ids = [p for p in order if p != plan.bye]
        if plan.rematches:
            assert not rematch_free_possible(ids, t.met())
        games = t.start_round(tables, actor="dir", at="20:00")
        assert [(g.ns, g.ew) for g in games] == plan.games
        for g in games:
            _end(t, g.id, seed.random() < 0.5, seed.randint(0, 250), seed.randint(0, 250))
    # every pair plays at most once per round, the bye pair not at all
    for r in range(1, t.current_round + 1):
        seen = list(itertools.chain.from_iterable((g.ns, g.ew) for g in t.round_games(r)))
        assert len(seen) == len(set(seen))
        assert t.byes[r - 1] not in seen


def test_swiss_pairs_leaders_together_and_avoids_the_rematch() -> None:
    plan = pair_round(["A", "B", "C", "D", "E", "F"], [frozenset({"A", "B"})])
    assert plan.games == [("A", "C"), ("B", "D"), ("E", "F")]
    # C and D have met everyone they could: backtracking finds the one rematch-free round
    met = [frozenset(p) for p in ({"A", "B"}, {"C", "D"}, {"A", "C"}, {"B", "D"})]
    plan = pair_round(["A", "B", "C", "D"], met)
    assert plan.games == [("A", "D"), ("B", "C")] and plan.rematches == 0


def test_a_rematch_when_none_can_be_avoided_and_the_bye_rotates() -> None:
    met = [frozenset({"A", "B"})]
    assert pair_round(["A", "B"], met).rematches == 1
    assert pair_round(["A", "B", "C"], [], byes={"C"}).bye == "B"
    assert pair_round(["A", "B", "C"], [], byes={"A", "B", "C"}).bye == "C"


# ── byes, standings and records ──
def test_a_bye_counts_as_a_game_won_with_100_for_each_player() -> None:
    t = _tournament(3)
    t.start_round(["1"], actor="dir", at="20:00")
    bye = t.byes[0]
    assert bye is not None
    row = next(r for r in t.standings() if r.pair == bye)
    assert (row.won, row.points, row.byes, row.played) == (2, 200, 1, 0)
    a, b = t.pairs[bye].players
    assert t.records()[a].won == 1 and t.records()[b].points == 100


def test_a_pairs_row_is_its_two_players_records_added() -> None:
    t = _tournament(2)
    (g,) = t.start_round(["1"], actor="dir", at="20:00")
    t.fine(g.id, "a0", "wrong_lead", actor="juez", at="20:10")
    t.fine(g.id, "a1", "gesture_pass", actor="juez", at="20:11")  # +25 to a0 and b0
    _end(t, g.id, False, 150, 200)
    rows = {r.pair: r for r in t.standings()}
    rec = t.records()
    for pid, row in rows.items():
        x, y = (rec[p] for p in t.pairs[pid].players)
        assert (row.won, row.points, row.penalties, row.awards, row.hand_points) == (
            x.won + y.won, x.points + y.points, x.fines + y.fines, x.awards + y.awards,
            x.hand_points + y.hand_points)
    assert [(r.pair, r.won, r.points, r.penalties) for r in t.standings()] == [
        ("P2", 2, 400, 0), ("P1", 0, 325, -25)]
    assert rows["P1"].opponents == ["P2"] and rows["P1"].played == 1


def test_registration_numbers_pairs_on_after_a_removal() -> None:
    t = _tournament(2)
    t.remove_pair("P1", actor="dir", at="20:00")
    assert t.register_pair("x", "y", ("X", "Y"), actor="dir", at="20:00").id == "P3"


def test_expulsion_withdraws_the_pair_from_the_next_rounds() -> None:
    t = _tournament(4)
    g1, g2 = t.start_round(["1", "2"], actor="dir", at="20:00")
    _end(t, g1.id, True, 200, 0)
    _end(t, g2.id, True, 200, 0)
    t.fine(g1.id, "a1", "marked_tiles", actor="juez", at="21:00")
    assert t.next_players() and "a1" not in t.next_players()
    games = t.start_round(["1", "2"], actor="dir", at="21:05")
    assert len(games) == 1 and t.byes[-1] is not None
    assert "P2" not in {games[0].ns, games[0].ew, t.byes[-1]}


def test_refusals() -> None:
    t = _tournament(2)
    with pytest.raises(PairsError, match="already_paired"):
        t.register_pair("a0", "zz", ("X", "Y"), actor="dir", at="20:00")
    with pytest.raises(PairsError, match="not_enough_tables"):
        t.start_round([], actor="dir", at="20:00")
    (g,) = t.start_round(["1"], actor="dir", at="20:00")
    with pytest.raises(PairsError, match="registration_closed"):
        t.register_pair("x", "y", ("X", "Y"), actor="dir", at="20:00")
    with pytest.raises(PairsError, match="round_in_play"):
        t.start_round(["1"], actor="dir", at="20:00")
    with pytest.raises(PairsError, match="bad_result"):
        t.record_game(g.id, winner="ns", how="points", score={"ns": "x", "ew": 1},  # type: ignore[dict-item]
                      games_won={"ns": 1, "ew": 0}, hands=1, actor="t", at="x")
    t.call_tiempo(1000.0, actor="dir", at="20:01")
    with pytest.raises(PairsError, match="tiempo_called"):
        t.call_tiempo(1001.0, actor="dir", at="20:02")
    _end(t, g.id, True, 200, 10)
    with pytest.raises(PairsError, match="game_ended"):
        _end(t, g.id, True, 200, 10)


# ── the first JSON shape ──
# Written by the first pairs tournament: two fines given during the game (at_table, so inside
# the game's score: ns 230 − 25 = 205, ew 140 − 2 × 75 = −10) and one after it (+25 to each
# of P2's players), and a bye. Old standings: P1 205, P3 100 (the bye), P2 −10 + 50 = 40.
OLD: dict = {  # type: ignore[type-arg]
    "id": "D1", "name": "Viejo", "settings": {}, "phase": "playing",
    "pairs": [
        {"id": "P1", "players": ["ana", "beto"], "names": ["Ana", "Beto"], "withdrawn": False},
        {"id": "P2", "players": ["carla", "dani"], "names": ["Carla", "Dani"],
         "withdrawn": False},
        {"id": "P3", "players": ["eva", "fede"], "names": ["Eva", "Fede"], "withdrawn": False}],
    "games": [{"id": "R1-M1", "round": 1, "table": "1", "ns": "P1", "ew": "P2",
               "status": "ended", "winner": "P1", "how": "points",
               "score": {"P1": 205, "P2": -10}, "won": {"P1": 1, "P2": 0}, "hands": 8}],
    "rounds": [["R1-M1"]], "byes": ["P3"], "tiempo": {"1": 1000.0},
    "penalties": [
        {"seq": 1, "game_id": "R1-M1", "player": "ana", "seat": "n", "reason": "chivo",
         "points": -25, "at_table": True, "actor": "juez", "at": "20:10", "records": []},
        {"seq": 2, "game_id": "R1-M1", "player": "dani", "seat": "w",
         "reason": "talking_second", "points": -75, "at_table": True, "actor": "juez",
         "at": "20:11", "records": []},
        {"seq": 3, "game_id": "R1-M1", "player": "beto", "seat": "s", "reason": "gesture_pass",
         "points": 25, "at_table": False, "actor": "juez", "at": "20:55",
         "records": [["P2", "carla", 25], ["P2", "dani", 25]]}],
    "audit": [{"seq": 1, "at": "20:00", "actor": "dir", "action": "register_pair",
               "details": {"pair": "P1", "players": ["ana", "beto"],
                           "names": ["Ana", "Beto"]}}],
}


def test_the_first_shape_takes_the_tables_fines_out_of_the_score_into_the_records() -> None:
    t = PairsTournament.from_dict(OLD)
    g = t.games["R1-M1"]
    assert g.hand_score == {"ns": 230, "ew": 140} and g.winner == "P1"
    assert g.seats == {"n": "ana", "e": "carla", "s": "beto", "w": "dani"}
    assert [(e.player, e.points, e.reason, e.offender) for e in t.entries] == [
        ("ana", -25, "chivo", ""),
        ("dani", -75, "talking_second", ""), ("carla", -75, "talking_second", "dani"),
        ("carla", 25, "gesture_pass", "beto"), ("dani", 25, "gesture_pass", "beto")]
    rec = t.records()
    # nothing lost, nothing twice: the fined player's total is what his game gave him before
    assert rec["ana"].points == 205 and rec["beto"].points == 230
    assert rec["dani"].points == -10 + 150 - 75 + 25 and rec["dani"].talking == 1
    assert rec["carla"].talking == 0
    assert (rec["eva"].won, rec["eva"].points) == (1, 100)
    assert t.tiempo == {1: 1000.0} and t.audit[0].action == "register_pair"
    # and it is written in the new shape, read back the same
    again = PairsTournament.from_dict(t.to_dict())
    assert again.to_dict() == t.to_dict() and again.records() == rec
    # the record goes on: dani's pair has talked once, the next is the second time
    assert t.fine("R1-M1", "carla", "talking", actor="juez", at="21:00").step == "talking_second"


def test_the_first_shape_keeps_an_absence_games_win() -> None:
    old = {**OLD, "penalties": [], "games": [{
        **OLD["games"][0], "how": "absence", "score": {"P1": 100, "P2": -100}, "hands": 0}]}
    t = PairsTournament.from_dict(old)
    rec = t.records()
    assert (rec["ana"].won, rec["ana"].points) == (1, 100)
    assert (rec["carla"].won, rec["carla"].points) == (0, -100)
    assert [r.pair for r in t.standings()] == ["P1", "P3", "P2"]


# ── the two minutes to reach the table ──
def test_the_view_counts_the_two_minutes_to_reach_the_table_until_the_first_hand() -> None:
    from mesa.games.domino.machine import DominoTable
    from mesa.games.domino.view import REACH_SECONDS, domino_view

    t = DominoTable()
    t.apply("assign", {"game_id": "R1", "players": {"n": "A", "e": "B", "s": "C", "w": "D"}},
            now=0.0)
    assert domino_view(t, 1.0).reach_left is None  # no "TIEMPO" yet
    t.apply("tiempo", {"start_wall": 1000.0, "wall": 1030.0}, now=10.0)  # joined 30 s late
    assert domino_view(t, 10.0).reach_left == REACH_SECONDS - 30.0
    assert domino_view(t, 110.0).reach_left is None  # the two minutes are over
    t.apply("press", {"seat": "n"}, now=20.0)  # the first hand started
    assert domino_view(t, 21.0).reach_left is None
