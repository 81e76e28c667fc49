"""The domino pairs tournament on the dashboard, in-process: pairs from the registry, a round at
two domino tables, "TIEMPO" for the room, the games recorded from the tables' events, the judge's
penalty with its audit lines, the grid, and the final list's exports."""

from __future__ import annotations

import csv
import io
import threading
from datetime import datetime
from typing import Any

import httpx
import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from support.dominokit import FakeDominoTable
from support.hubkit import login

pytestmark = pytest.mark.anyio

NAMES = ["ANA", "BETO", "CARLA", "DANI", "EVA", "FIDEL", "GEMA", "HUGO"]


def _players(web: WebApp) -> list[str]:
    def run(club: Any, now: datetime) -> list[str]:
        return [club.registry.add_new(n).id for n in NAMES]

    return web.desk.call(run)


async def _act(client: httpx.AsyncClient, csrf: str, action: str, /, **fields: Any) -> httpx.Response:
    return await client.post(f"/director/domino/actions/{action}", data=fields,
                             headers={"Accept": "application/json", "X-CSRF-Token": csrf})


async def test_a_round_from_pairs_to_the_final_list(
    hub: Hub, web: WebApp, client: httpx.AsyncClient
) -> None:
    ids = _players(web)
    tables = [FakeDominoTable(hub, t) for t in ("1", "2")]
    for t in tables:
        t.online()
    csrf = await login(client)
    assert (await client.get("/director/domino")).status_code == 200
    r = await _act(client, csrf, "create", name="Dominó de marzo")
    assert r.json()["ok"], r.text
    for a, b in zip(ids[0::2], ids[1::2], strict=True):
        assert (await _act(client, csrf, "register_pair", a=a, b=b)).json()["ok"]
    r = await _act(client, csrf, "register_pair", a=ids[0], b=ids[3])
    assert r.status_code == 409 and r.json()["error"] == "already_paired"
    r = await _act(client, csrf, "register_pair", a="P9999", b=ids[3])
    assert r.status_code == 409 and r.json()["error"] == "unknown_player"
    # without a session or a token nothing happens
    r = await client.post("/director/domino/actions/start_round", data={},
                          headers={"Accept": "application/json"})
    assert r.status_code == 403

    r = await _act(client, csrf, "start_round")
    assert r.json()["ok"], r.text
    for t in tables:
        t.serve()
        assert t.table.state == "assigned"
    page = (await client.get("/director/domino")).text
    assert 'data-confirm="' in page and "domino.js" in page and "onclick" not in page

    r = await _act(client, csrf, "tiempo")
    assert r.json()["ok"], r.text
    assert (await _act(client, csrf, "tiempo")).json()["error"] == "tiempo_called"
    starts = set()
    for t in tables:
        t.serve()
        assert t.table.state == "ready"
        starts.add(t.table.s.start_wall)
    assert len(starts) == 1  # one instant for the whole room

    # the grid shows both domino tables with their clocks running and the 2 minutes to sit
    grid = (await client.get("/live.json")).json()
    cards = {c["id"]: c for c in grid["tables"]}
    for tid in ("1", "2"):
        d = cards[tid]["domino"]
        assert cards[tid]["kind"] == "domino" and d["clock_running"]
        assert 2000 < d["time_left"] <= 2100 and 0 < d["reach_left"] <= 120
    html = (await client.get("/live")).text
    assert "data-game-clock" in html and "data-reach" in html

    # the judge's penalty while the game runs goes to the table
    gp = f"R1-M2|{ids[4]}"
    serving = threading.Event()

    def serve() -> None:  # the table answers while the action waits for it
        while not serving.wait(0.05):
            tables[1].serve()

    server = threading.Thread(target=serve)
    server.start()
    try:
        r = await _act(client, csrf, "penalty", gp=gp, reason_code="chivo", points="")
    finally:
        serving.set()
        server.join()
    assert r.json()["ok"], r.text
    assert tables[1].table.s.game.penalties[-1].reason == "chivo"
    # a table that does not answer: refused, and nothing recorded
    r = await _act(client, csrf, "penalty", gp=gp, reason_code="talking", points="-30")
    assert r.status_code == 409 and r.json()["error"] == "table_timeout"
    tables[1].applied.update(c["txn"] for c in hub.store.commands("2"))  # lost on the way
    r = await _act(client, csrf, "penalty", gp=gp, reason_code="slow_play")
    assert r.status_code == 409

    tables[0].win_game("ns")
    tables[1].win_game("ew")
    await _wait_sync(web)
    data = (await client.get("/domino.json")).json()
    games = data["rounds"][0]["games"]
    assert [g["status"] for g in games] == ["ended", "ended"]
    # after the game: recorded on the hub, −25 to each of the pair (an unsigned sheet)
    r = await _act(client, csrf, "penalty", gp=f"R1-M1|{ids[2]}", reason_code="sheet_unsigned")
    assert r.json()["ok"], r.text
    data = (await client.get("/domino.json")).json()
    by_pair = {s["pair"]: s for s in data["standings"]}
    assert by_pair["P1"]["won"] == 1 and by_pair["P4"]["won"] == 1
    assert by_pair["P2"]["points"] == games[0]["score"][1] - 50
    assert by_pair["P3"]["points"] == games[1]["score"][0] == -25  # the table counted the chivo
    assert [s["won"] for s in data["standings"]] == [1, 1, 0, 0]

    # audit: the tournament's lines and the dashboard's log
    director = (await client.get("/director/domino.json")).json()
    actions = [a["action"] for a in director["audit"]]
    assert actions.count("penalty") == 2 and "tiempo" in actions and "record_game" in actions
    log = [e.action for e in web.store.audit_log()]
    assert "domino_penalty" in log and "domino_tiempo" in log

    # exports
    r = await client.get("/domino/final.csv")
    rows = list(csv.reader(io.StringIO(r.text.lstrip("\ufeff")), delimiter=";"))
    assert rows[0][0] == "puesto" and len(rows) == 5
    assert (await client.get("/domino/final.json")).json()["standings"][0]["won"] == 1
    page = (await client.get("/domino/final/print")).text
    assert "domino-standings" in page and "ANA / BETO" in page

    # absence in the next round: a whole pair missing, the present pair wins with +100
    r = await _act(client, csrf, "start_round")
    assert r.json()["ok"], r.text
    for t in tables:
        t.serve()
    data = (await client.get("/domino.json")).json()
    g = data["rounds"][1]["games"][0]
    table = next(t for t in tables if t.id == g["table"])
    absent = [s["player"] for s in g["seats"] if s["seat"] in ("e", "w")]
    stop = threading.Event()

    def answer() -> None:
        while not stop.wait(0.05):
            table.serve()

    helper = threading.Thread(target=answer)
    helper.start()
    try:
        r = await _act(client, csrf, "absence", gp=f"{g['id']}|{','.join(absent)}")
    finally:
        stop.set()
        helper.join()
    assert r.json()["ok"], r.text
    web.domino.sync()
    data = (await client.get("/domino.json")).json()
    g = data["rounds"][1]["games"][0]
    assert g["status"] == "ended" and g["how"] == "absence" and g["winner"] == g["ns"]
    assert g["score"] == [100, -200]
    director = (await client.get("/director/domino.json")).json()
    assert director["audit"][0]["action"] in ("record_game", "absence")
    assert any(a["action"] == "absence" and a["details"]["seats"] == ["e", "w"]
               for a in director["audit"])
    first = {frozenset((x["ns"], x["ew"])) for x in data["rounds"][0]["games"]}
    second = {frozenset((x["ns"], x["ew"])) for x in data["rounds"][1]["games"]}
    assert not first & second  # no rematch


async def _wait_sync(web: WebApp) -> None:
    web.domino.sync()


async def test_public_page_without_a_tournament(client: httpx.AsyncClient) -> None:
    r = await client.get("/domino")
    assert r.status_code == 200 and "dom.none" not in r.text
    assert (await client.get("/domino.json")).json()["tournament"] is None
    assert (await client.get("/domino/final.csv")).status_code == 404
    r = await client.get("/director/domino", follow_redirects=False)
    assert r.status_code == 303
