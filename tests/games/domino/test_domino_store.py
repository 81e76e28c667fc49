"""Both formats in the hub's SQLite (mesa.games.domino.store), and the first JSON shape."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from mesa.games.domino.individual import IndividualTournament
from mesa.games.domino.pairs import PairsTournament
from mesa.games.domino.store import DominoStore, PairsStore


def _pairs() -> PairsTournament:
    t = PairsTournament("D1", "Parejas")
    for i in range(4):
        t.register_pair(f"a{i}", f"b{i}", (f"A{i}", f"B{i}"), actor="dir", at="20:00")
    t.start_round(["1", "2"], actor="dir", at="20:00")
    t.fine("R1-M1", "a0", "talking", actor="juez", at="20:10")
    t.table_fine("R1-M1", "e", "slow_play", -25, key="event:9", actor="table 1", at="20:11")
    t.record_game("R1-M1", winner="ew", how="points", score={"ns": 80, "ew": 201},
                  games_won={"ns": 0, "ew": 1}, hands=5, actor="table", at="21:00")
    return t


def test_store_round_trip_both_formats_and_append_only_audit(tmp_path: Path) -> None:
    t = _pairs()
    i = IndividualTournament("D2", "Individual")
    for p in "abcde":
        i.register_player(p, p.upper(), actor="dir", at="20:00")
    assert PairsStore is DominoStore
    with DominoStore(tmp_path / "hub.sqlite3") as store:
        store.save(t)
        store.save(i)
        back = store.load("D1")
        assert isinstance(back, PairsTournament) and back.to_dict() == t.to_dict()
        assert back.records() == t.records()
        again = store.load("D2")
        assert isinstance(again, IndividualTournament) and again.to_dict() == i.to_dict()
        assert store.formats() == {"D1": "pairs", "D2": "individual"}
        assert store.summaries() == [("D1", "Parejas", "playing", 1),
                                     ("D2", "Individual", "registration", 0)]
        assert len(store.audit("D1")) == len(t.audit)
        with pytest.raises(sqlite3.DatabaseError):
            store.db.execute("DELETE FROM d_audit")
        assert store.load("D9") is None


def test_a_stored_pairs_tournament_of_the_first_shape_loads_into_records(tmp_path: Path) -> None:
    old = {
        "id": "D1", "name": "Viejo", "settings": {}, "phase": "playing",
        "pairs": [{"id": "P1", "players": ["a", "b"], "names": ["A", "B"], "withdrawn": False},
                  {"id": "P2", "players": ["c", "d"], "names": ["C", "D"], "withdrawn": False}],
        "games": [{"id": "R1-M1", "round": 1, "table": "1", "ns": "P1", "ew": "P2",
                   "status": "ended", "winner": "P1", "how": "points",
                   "score": {"P1": 175, "P2": 90}, "won": {"P1": 1, "P2": 0}, "hands": 6}],
        "rounds": [["R1-M1"]], "byes": [None], "tiempo": {},
        "penalties": [{"seq": 1, "game_id": "R1-M1", "player": "b", "seat": "s",
                       "reason": "wrong_lead", "points": -25, "at_table": True,
                       "actor": "juez", "at": "20:10", "records": []}],
    }
    with DominoStore(tmp_path / "hub.sqlite3") as store:
        store.db.execute(
            "INSERT INTO d_tournaments VALUES (?, ?, ?, julianday('now'), ?)",
            ("D1", "Viejo", "playing", json.dumps(old)))
        assert store.formats() == {"D1": "pairs"}
        t = store.load("D1")
        assert isinstance(t, PairsTournament)
        assert t.games["R1-M1"].hand_score == {"ns": 200, "ew": 90}
        rec = t.records()
        assert (rec["b"].points, rec["a"].points, rec["c"].points) == (175, 200, 90)
        store.save(t)  # written in the new shape from now on
        assert store.load("D1").to_dict() == t.to_dict()
