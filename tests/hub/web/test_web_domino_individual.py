"""The individual domino format on the dashboard, in-process: players registered from the
registry in one form (in Spanish order), a round drawn with one player sitting out, fines the
records escalate, the wrong partner, a late arrival, the games recorded from the tables, and
the standings by player on the public page, the director's page, the printed list, CSV and
JSON. And the refusals that keep the formats apart."""

from __future__ import annotations

import csv
import io
import re
from datetime import datetime
from typing import Any

import httpx
import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from support.dominokit import FakeDominoTable
from support.hubkit import login

pytestmark = pytest.mark.anyio

# Registered out of order, accents first: the pages list them as Spanish sorts them.
NAMES = ["ÚRSULA", "BETO", "ÁLVARO", "ÑACO", "NURIA", "ÍÑIGO", "ÓSCAR", "CARLA", "ZOE"]
SPANISH = ["ÁLVARO", "BETO", "CARLA", "ÍÑIGO", "NURIA", "ÑACO", "ÓSCAR", "ÚRSULA", "ZOE"]


def _players(web: WebApp) -> dict[str, str]:
    def run(club: Any, now: datetime) -> dict[str, str]:
        return {n: club.registry.add_new(n).id for n in NAMES}

    return web.desk.call(run)


async def _act(client: httpx.AsyncClient, csrf: str, action: str, /, **fields: Any
               ) -> httpx.Response:
    return await client.post(f"/director/domino/actions/{action}", data=fields,
                             headers={"Accept": "application/json", "X-CSRF-Token": csrf})


async def _served(client: httpx.AsyncClient, csrf: str, table: FakeDominoTable, action: str,
                  **fields: Any) -> httpx.Response:
    """An action the table must answer (the desk awaits it): the table served meanwhile."""
    import threading

    stop = threading.Event()

    def serve() -> None:
        while not stop.wait(0.05):
            table.serve()

    helper = threading.Thread(target=serve)
    helper.start()
    try:
        return await _act(client, csrf, action, **fields)
    finally:
        stop.set()
        helper.join()


async def test_an_individual_round_from_the_registry_to_the_exports(
    hub: Hub, web: WebApp, client: httpx.AsyncClient
) -> None:
    ids = _players(web)
    names = {v: k for k, v in ids.items()}
    tables = [FakeDominoTable(hub, t) for t in ("1", "2")]
    for t in tables:
        t.online()
    csrf = await login(client)
    r = await _act(client, csrf, "create", name="Individual de abril", format="individual")
    assert r.json()["ok"], r.text
    assert (await _act(client, csrf, "create", name="X", format="swiss")).status_code == 400
    page = (await client.get("/director/domino")).text
    listed = re.findall(r'<label class="check" data-name="([^"]+)"', page)
    assert listed == SPANISH  # Á with A, Í with I, Ñ after N, Ó with O, Ú with U
    # pairs are refused in an individual event, in words
    r = await _act(client, csrf, "register_pairs", players=[ids["BETO"], ids["CARLA"]])
    assert r.status_code == 409 and r.json()["error"] == "wrong_format"
    assert "no es de ese formato" in r.json()["message"]
    assert (await _act(client, csrf, "register_players")).json()["error"] == "no_players"
    # nine players in one form
    r = await _act(client, csrf, "register_players", players=list(ids.values()))
    assert r.json()["ok"], r.text
    assert "9 inscritos" in r.json()["message"]
    page = (await client.get("/director/domino")).text
    assert 'id="domino-players"' in page and "No queda nadie del registro" in page

    r = await _act(client, csrf, "start_round")
    assert r.json()["ok"], r.text
    assert (await _act(client, csrf, "tiempo")).json()["ok"]
    for t in tables:
        t.serve()
        assert t.table.state == "ready"
    data = (await client.get("/domino.json")).json()
    assert data["tournament"]["format"] == "individual"
    rd = data["rounds"][0]
    assert len(rd["games"]) == 2 and len(rd["sitting_out"]) == 1
    g1, g2 = rd["games"]
    seats = {s["seat"]: s["player"] for s in g1["seats"]}
    assert g1["ns_name"] == f"{names[seats['n']]} / {names[seats['s']]}"  # partners by seat
    # a late arrival before the first hand: the table says it, the first one is recorded
    late = next(s["player"] for s in g2["seats"] if s["seat"] == "e")
    r = await _served(client, csrf, tables[1], "late", gp=f"{g2['id']}|{late}")
    assert r.json()["ok"], r.text
    assert f"primera llegada tarde: anotada a {names[late]}, sin tantos" in r.json()["message"]
    # talking by n, then by his partner of this game: −75 to each of the two
    r = await _act(client, csrf, "penalty", gp=f"{g1['id']}|{seats['n']}", reason_code="talking")
    assert "primera vez: −25 a " + names[seats["n"]] in r.json()["message"]
    r = await _act(client, csrf, "penalty", gp=f"{g1['id']}|{seats['s']}", reason_code="talking")
    said = f"segunda vez: −75 a {names[seats['s']]} y a {names[seats['n']]}"
    assert said in r.json()["message"], r.text
    # the wrong partner: −100 to each of the four
    r = await _act(client, csrf, "penalty", gp=f"{g2['id']}|{late}", reason_code="wrong_seats")
    assert r.json()["ok"] and r.json()["message"].count("a ") >= 4, r.text
    # annulling is for a pass with a playable tile or a chivo only
    r = await _act(client, csrf, "penalty", gp=f"{g2['id']}|{late}", reason_code="wrong_lead",
                   annul="1")
    assert r.status_code == 409 and r.json()["error"] == "not_annullable"

    tables[0].win_game("ns")
    tables[1].win_game("ew")
    web.domino.sync()
    data = (await client.get("/domino.json")).json()
    rows = {r["player"]: r for r in data["standings"]}
    assert len(rows) == 9
    out = rd["sitting_out"][0]
    resting = next(p for p, n in names.items() if n == out)
    assert (rows[resting]["won"], rows[resting]["awards"], rows[resting]["played"]) == (1, 100, 0)
    assert (rows[seats["n"]]["won"], rows[seats["n"]]["fines"]) == (1, -100)
    assert rows[seats["n"]]["points"] == rows[seats["n"]]["hand_points"] - 100
    assert rows[late]["fines"] == -100 and rows[late]["late"] == 1
    keys = [(r["won"], r["points"]) for r in data["standings"]]
    assert keys == sorted(keys, reverse=True)

    # the public page, the director's, the print: by player, the record's columns
    for path in ("/domino", "/director/domino", "/domino/final/print"):
        html = (await client.get(path)).text
        assert 'data-format="individual"' in html and "Multas" in html and "Premios" in html
        assert html.count('<tr data-player="') == 9, path
    html = (await client.get("/director/domino")).text
    history = html[html.index('id="domino-audit"'):]
    assert said in history and "Inscrito: ÁLVARO" in history
    assert not re.search(r"\\u00|\{&#34;|\d{4}-\d\d-\d\dT", history)
    # CSV (a BOM for Spanish Excel) and JSON, by player
    r = await client.get("/domino/final.csv")
    assert r.text.startswith("\ufeffpuesto;jugador;nombre")
    lines = list(csv.reader(io.StringIO(r.text.lstrip("\ufeff")), delimiter=";"))
    assert len(lines) == 10 and {x[2] for x in lines[1:]} == set(NAMES)
    final = (await client.get("/domino/final.json")).json()
    assert final["format"] == "individual" and len(final["standings"]) == 9
    assert {"talking_first", "talking_second", "late_first", "wrong_seats"} <= {
        e["step"] for e in final["entries"]}


async def test_several_pairs_in_one_form_in_the_order_ticked(
    web: WebApp, client: httpx.AsyncClient
) -> None:
    ids = _players(web)
    csrf = await login(client)
    assert (await _act(client, csrf, "create", name="Parejas")).json()["ok"]
    four = [ids["ZOE"], ids["ÁLVARO"], ids["BETO"], ids["CARLA"]]
    r = await _act(client, csrf, "register_pairs", players=four[:3])
    assert r.status_code == 409 and r.json()["error"] == "odd_players"
    assert "número par" in r.json()["message"]
    assert web.domino.read(lambda t: t.pairs == {})  # nothing registered
    r = await _act(client, csrf, "register_players", players=four)
    assert r.json()["error"] == "wrong_format"
    # the page's script sends the ticks' order; the list's order is the fallback
    r = await _act(client, csrf, "register_pairs", players=sorted(four), order=",".join(four))
    assert r.json()["ok"], r.text
    pairs = web.domino.read(lambda t: [p.names for p in t.pairs.values()])
    assert pairs == [("ZOE", "ÁLVARO"), ("BETO", "CARLA")]
    page = (await client.get("/director/domino")).text
    assert "Pareja P1 inscrita: ZOE / ÁLVARO" in page
    r = await _act(client, csrf, "remove_pair", pair="P2")
    assert r.json()["ok"], r.text
    assert web.domino.read(lambda t: list(t.pairs)) == ["P1"]
