"""The pairs tournament's engine: pairing, standings, penalties with audit, store, exports."""

from __future__ import annotations

import csv
import io
import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.games.domino.exports import final_csv, final_json, neutral
from mesa.games.domino.pairing import pair_round, rematch_free_possible
from mesa.games.domino.pairs import PairsError, PairsTournament
from mesa.games.domino.standings import GameLine, standings
from mesa.games.domino.store import PairsStore


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


# ── standings ──
@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.booleans(),
                          st.integers(-100, 300), st.integers(-100, 300)), max_size=20),
       st.lists(st.tuples(st.integers(0, 5), st.sampled_from([-25, -50, -75, -100])),
                max_size=6))
def test_standings_order_games_won_then_points(games, adjustments) -> None:  # type: ignore[no-untyped-def]
    pairs = {f"P{i}": f"pair {i}" for i in range(6)}
    lines = [GameLine(f"P{a}", f"P{b}", (int(w), int(not w)), (pa, pb))
             for a, b, w, pa, pb in games if a != b]
    adj = [(f"P{p}", pts) for p, pts in adjustments]
    rows = standings(pairs, lines, adjustments=adj)
    assert [r.rank for r in rows] == list(range(1, 7))
    for hi, lo in itertools.pairwise(rows):
        assert (hi.won, hi.points) >= (lo.won, lo.points)
    for r in rows:  # every point is accounted for
        own = sum(line.points[0] for line in lines if line.a == r.pair)
        own += sum(line.points[1] for line in lines if line.b == r.pair)
        assert r.points == own + sum(p for q, p in adj if q == r.pair)
        assert r.penalties == sum(p for q, p in adj if q == r.pair)


def test_a_bye_counts_as_a_game_won_with_100() -> None:
    t = _tournament(3)
    t.start_round(["1"], actor="dir", at="20:00")
    bye = t.byes[0]
    row = next(r for r in t.standings() if r.pair == bye)
    assert (row.won, row.points, row.byes) == (1, 100, 1)


# ── the judge's penalties ──
def test_penalties_in_play_go_to_the_table_after_the_game_are_counted_here() -> None:
    t = _tournament(4)
    g1, g2 = t.start_round(["1", "2"], actor="dir", at="20:00")
    live = t.penalty(g1.id, "a0", "chivo", points=None, actor="juez", at="20:10")
    assert live.at_table and live.records == [] and live.seat == "n" and live.points == -25
    _end(t, g1.id, True, 210, 90)
    # after the game: talking_second is −75 to the offender and −75 to the partner
    e = t.penalty(g1.id, "b1", "talking_second", points=None, actor="juez", at="21:10")
    assert e.seat == "w" and not e.at_table
    assert e.records == [("P2", "b1", -75), ("P2", "a1", -75)]
    rows = {r.pair: r for r in t.standings()}
    assert rows["P2"].points == 90 - 150 and rows["P2"].penalties == -150
    # a late/gestured pass gives +25 to each opponent
    g = t.penalty(g1.id, "a0", "gesture_pass", points=None, actor="juez", at="21:11")
    assert g.records == [("P2", "a1", 25), ("P2", "b1", 25)]
    # every penalty has its audit line, with who, when, reason and points
    lines = [a for a in t.audit if a.action == "penalty"]
    assert [(a.actor, a.details["reason"], a.details["points"]) for a in lines] == [
        ("juez", "chivo", -25), ("juez", "talking_second", -75), ("juez", "gesture_pass", 25)]
    with pytest.raises(PairsError) as err:
        t.penalty(g2.id, "a0", "chivo", points=None, actor="juez", at="21:12")
    assert err.value.code == "not_in_game"
    with pytest.raises(PairsError):
        t.penalty(g2.id, "a2", "slow_play", points=None, actor="juez", at="21:12")  # table's own


def test_expulsion_withdraws_the_pair_from_the_next_rounds() -> None:
    t = _tournament(4)
    g1, g2 = t.start_round(["1", "2"], actor="dir", at="20:00")
    _end(t, g1.id, True, 200, 0)
    _end(t, g2.id, True, 200, 0)
    t.penalty(g1.id, "a1", "marked_tiles", points=None, actor="juez", at="21:00")
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
    with pytest.raises(PairsError, match="round_in_play"):
        t.start_round(["1"], actor="dir", at="20:00")
    with pytest.raises(PairsError, match="bad_result"):
        t.record_game(g.id, winner="ns", how="points", score={"ns": "x", "ew": 1},  # type: ignore[dict-item]
                      games_won={"ns": 1, "ew": 0}, hands=1, actor="t", at="x")
    t.call_tiempo(1000.0, actor="dir", at="20:01")
    with pytest.raises(PairsError, match="tiempo_called"):
        t.call_tiempo(1001.0, actor="dir", at="20:02")


# ── store and exports ──
def test_store_round_trip_and_append_only_audit(tmp_path: Path) -> None:
    t = _tournament(4)
    t.start_round(["1", "2"], actor="dir", at="20:00")
    _end(t, "R1-M1", False, 80, 201)
    with PairsStore(tmp_path / "hub.sqlite3") as store:
        store.save(t)
        back = store.load("D1")
        assert back is not None and back.to_dict() == t.to_dict()
        import sqlite3

        with pytest.raises(sqlite3.DatabaseError):
            store.db.execute("DELETE FROM d_audit")


def test_final_list_csv_neutralises_formulas_and_json_has_every_game() -> None:
    t = PairsTournament("D1", "Prueba")
    t.register_pair("a", "b", ("=CMD()", "+SUM(1)"), actor="dir", at="20:00")
    t.register_pair("c", "d", ("@x", "Dani"), actor="dir", at="20:00")
    (g,) = t.start_round(["1"], actor="dir", at="20:00")
    _end(t, g.id, False, -25, 200)
    rows = list(csv.reader(io.StringIO(final_csv(t, "es")), delimiter=";"))
    assert rows[0][:3] == ["puesto", "pareja", "jugador_1"]
    assert rows[1][4:6] == ["'@x", "Dani"] and rows[2][4:6] == ["'=CMD()", "'+SUM(1)"]
    assert rows[2][8] == "-25"  # numbers stay numbers
    assert neutral("-3") == "'-3"
    data = final_json(t)
    assert [s["pair"] for s in data["standings"]] == ["P2", "P1"]
    assert data["games"][0]["score"] == {"P1": -25, "P2": 200}


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
