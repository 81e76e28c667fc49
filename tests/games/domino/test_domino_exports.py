"""A domino event's final list, both formats (mesa.games.domino.exports)."""

from __future__ import annotations

import csv
import io
import json

from mesa.games.domino.exports import final_csv, final_json, final_rows, neutral
from mesa.games.domino.individual import IndividualTournament
from mesa.games.domino.pairs import PairsTournament


def test_pairs_list_csv_neutralises_formulas_and_json_has_every_game_and_entry() -> None:
    t = PairsTournament("D1", "Prueba")
    t.register_pair("a", "b", ("=CMD()", "+SUM(1)"), actor="dir", at="20:00")
    t.register_pair("c", "d", ("@x", "Dani"), actor="dir", at="20:00")
    (g,) = t.start_round(["1"], actor="dir", at="20:00")
    t.fine(g.id, "a", "wrong_lead", actor="juez", at="20:10")
    t.record_game(g.id, winner="ew", how="points", score={"ns": 0, "ew": 200},
                  games_won={"ns": 0, "ew": 1}, hands=4, actor="table", at="21:00")
    rows = list(csv.reader(io.StringIO(final_csv(t, "es")), delimiter=";"))
    assert rows[0][:3] == ["puesto", "pareja", "jugador_1"]
    assert rows[0][11:] == ["tantos_mano", "premios", "tantos_1", "tantos_2"]
    assert rows[1][4:6] == ["'@x", "Dani"] and rows[2][4:6] == ["'=CMD()", "'+SUM(1)"]
    assert rows[2][8:10] == ["-25", "-25"]  # numbers stay numbers
    assert rows[1][6:9] == ["1", "2", "400"] and rows[2][13:] == ["-25", "0"]
    en = list(csv.reader(io.StringIO(final_csv(t, "en"))))
    assert en[0][:2] == ["rank", "pair"] and len(en) == 3
    assert neutral("-3") == "'-3"
    data = json.loads(json.dumps(final_json(t)))
    assert data["format"] == "pairs" and data["byes"] == [None]
    assert [s["pair"] for s in data["standings"]] == ["P2", "P1"]
    assert [x["points"] for x in data["standings"][1]["records"]] == [-25, 0]
    game = data["games"][0]
    assert game["score"] == {"P1": 0, "P2": 200} and game["winner"] == "P2"
    assert game["seats"] == {"n": "a", "e": "c", "s": "b", "w": "d"}
    assert [(e["player"], e["points"], e["reason"], e["by"]) for e in data["entries"]] == [
        ("a", -25, "wrong_lead", "juez")]


def test_individual_list_one_line_per_player() -> None:
    t = IndividualTournament("D2", "Individual")
    for p in ("ana", "beto", "carla", "=dani"):
        t.register_player(p, p.title(), actor="dir", at="20:00")
    (g,) = t.start_round(["1"], actor="dir", at="20:00")
    t.record_game(g.id, winner="ns", how="points", score={"ns": 200, "ew": 50},
                  games_won={"ns": 1, "ew": 0}, hands=4, actor="table", at="21:00")
    t.fine(g.id, g.seats["e"], "abandoned", actor="juez", at="21:01")
    rows = list(csv.reader(io.StringIO(final_csv(t, "es")), delimiter=";"))
    assert rows[0] == ["puesto", "jugador", "nombre", "jugadas", "ganadas", "tantos_mano",
                       "multas", "premios", "tantos", "descansos", "expulsado"]
    assert len(rows) == 5 and rows[-1][1] == g.seats["e"] and rows[-1][-1] == "1"
    assert "'=dani" in [r[1] for r in rows]
    assert rows[-1][5:9] == ["50", "-200", "0", "-150"]
    fr = final_rows(t)
    assert [r["rank"] for r in fr] == [1, 2, 3, 4] and fr[-1]["withdrawn"]
    data = final_json(t)
    assert data["format"] == "individual" and data["sitouts"] == [[]]
    assert "ns" not in data["games"][0] and data["games"][0]["hand_score"] == {"ns": 200,
                                                                                "ew": 50}
