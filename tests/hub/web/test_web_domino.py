"""The domino pairs tournament on the dashboard, in-process: pairs from the registry, a round at
two domino tables, "TIEMPO" for the room, the games recorded from the tables' events, the judge's
penalty with its audit lines, the grid, and the final list's exports."""

from __future__ import annotations

import csv
import io
import logging
import re
import threading
from datetime import datetime
from typing import Any

import httpx
import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from mesa.hub.web.games.domino import domino_actions
from mesa.hub.web.http import paths as PATHS
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

    # The judge's fines while the game runs are recorded on the hub at once (the game's score
    # never holds them); the record escalates talking: the partner's second time is −75 to both.
    eva, fidel = ids[4], ids[5]  # P3, at R1-M2's n and s
    r = await _act(client, csrf, "penalty", gp=f"R1-M2|{eva}", reason_code="talking")
    assert r.json()["ok"], r.text
    assert "primera vez: −25 a EVA" in r.json()["message"]
    r = await _act(client, csrf, "penalty", gp=f"R1-M2|{fidel}", reason_code="talking")
    assert "segunda vez: −75 a FIDEL y a EVA" in r.json()["message"], r.text
    assert tables[1].table.s.game.penalties == []  # nothing sent: the game does not change
    # "fine and annul the hand" (a chivo, in a hand): the table must take the annulment first
    lead = tables[1].table.s.game.next_lead or "n"
    tables[1].apply("press", {"seat": lead})
    assert tables[1].table.state == "playing"
    gema = ids[6]
    serving = threading.Event()

    def serve() -> None:  # the table answers while the action waits for it
        while not serving.wait(0.05):
            tables[1].serve()

    server = threading.Thread(target=serve)
    server.start()
    try:
        r = await _act(client, csrf, "penalty", gp=f"R1-M2|{gema}", reason_code="chivo",
                       annul="1")
    finally:
        serving.set()
        server.join()
    assert r.json()["ok"], r.text
    assert "Chivo: −25 a GEMA; mano anulada" in r.json()["message"]
    assert [h.how for h in tables[1].table.s.game.hands] == ["annulled"]
    # a table that does not answer an annulment: refused, and nothing recorded
    before = web.domino.read(lambda x: len(x.entries))
    r = await _act(client, csrf, "penalty", gp=f"R1-M2|{gema}", reason_code="chivo",
                   annul="1")
    assert r.status_code == 409 and r.json()["error"] == "table_timeout"
    assert web.domino.read(lambda x: len(x.entries)) == before
    tables[1].applied.update(c["txn"] for c in hub.store.commands("2"))  # lost on the way
    r = await _act(client, csrf, "penalty", gp=f"R1-M2|{gema}", reason_code="slow_play")
    assert r.status_code == 409

    tables[0].win_game("ns")
    tables[1].win_game("ew")
    await _wait_sync(web)
    data = (await client.get("/domino.json")).json()
    games = data["rounds"][0]["games"]
    assert [g["status"] for g in games] == ["ended", "ended"]
    assert games[1]["score"][0] == 0  # hand points only: the fines are on the records
    # after the game: recorded on the hub, −25 to each of the pair (an unsigned sheet)
    r = await _act(client, csrf, "penalty", gp=f"R1-M1|{ids[2]}", reason_code="sheet_unsigned")
    assert r.json()["ok"], r.text
    data = (await client.get("/domino.json")).json()
    by_pair = {s["pair"]: s for s in data["standings"]}
    # a pair's line is its two players' records added: a win is 2 games won
    assert by_pair["P1"]["won"] == 2 and by_pair["P4"]["won"] == 2
    assert by_pair["P2"]["points"] == 2 * games[0]["score"][1] - 50
    assert by_pair["P3"]["points"] == 2 * games[1]["score"][0] - 25 - 150
    assert by_pair["P4"]["points"] == 2 * games[1]["score"][1] - 25
    eva_rec = next(p for p in by_pair["P3"]["records"] if p["player"] == eva)
    assert (eva_rec["fines"], eva_rec["talking"]) == (-100, 1)
    assert [s["won"] for s in data["standings"]] == [2, 2, 0, 0]

    # audit: the tournament's lines and the dashboard's log
    director = (await client.get("/director/domino.json")).json()
    actions = [a["action"] for a in director["audit"]]
    assert actions.count("fine") == 4 and "tiempo" in actions and "record_game" in actions
    said = {a["action"]: a["said"] for a in reversed(director["audit"])}
    assert "segunda vez: −75 a FIDEL y a EVA" in (await client.get("/director/domino")).text
    assert said["tiempo"].startswith("TIEMPO de la ronda 1 a las ")
    log = [e.action for e in web.store.audit_log()]
    assert "domino_penalty" in log and "domino_tiempo" in log

    # exports
    r = await client.get("/domino/final.csv")
    rows = list(csv.reader(io.StringIO(r.text.lstrip("\ufeff")), delimiter=";"))
    assert rows[0][0] == "puesto" and len(rows) == 5
    assert (await client.get("/domino/final.json")).json()["standings"][0]["won"] == 2
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
    assert g["status"] == "ended" and g["how"] == "absence"
    assert g["score"] == [0, 0]  # hand points only: the ±100 are on the players' records
    records = {p["player"]: p for r in data["standings"] for p in r["records"]}
    assert all(records[p]["awards"] >= 100 for p in [s["player"] for s in g["seats"]
                                                     if s["seat"] in ("n", "s")])
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


# ── the domino endpoint is backgammon's: the same door, registry and answers ──────────────


async def test_a_director_page_without_a_session_answers_like_backgammons(
    client: httpx.AsyncClient,
) -> None:
    """401 with a ``message`` for a script (it had none), 303 to ``/login?next=`` for a browser,
    exactly as ``/director`` answers."""
    message = "Hace falta entrar como director para hacer esto. No se ha cambiado nada."
    for path in ("/director/domino.json", "/director.json"):
        r = await client.get(path)
        assert r.status_code == 401, path
        assert r.json() == {"error": "login_required", "message": message}, path
    r = await client.get("/director/domino", headers={"Accept": "application/json"})
    assert r.status_code == 401 and r.json()["message"] == message
    r = await client.get("/director/domino?lang=en", headers={"Accept": "application/json"})
    assert r.json()["message"].startswith("You must be logged in as the director")
    for path in ("/director/domino", "/director"):
        r = await client.get(path, follow_redirects=False)
        assert r.status_code == 303
        assert r.headers["location"] == "/login?next=" + path.replace("/", "%2F"), path


async def test_a_refused_csrf_token_is_logged_and_answered_like_backgammons(
    web: WebApp, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    await login(client)
    with caplog.at_level(logging.WARNING, logger="mesa.web"):
        r = await _act(client, "forged-token", "create", name="Dominó")
        bg = await client.post("/director/actions/close", data={},
                               headers={"Accept": "application/json", "X-CSRF-Token": "forged"})
    assert r.status_code == bg.status_code == 403
    assert r.json() == bg.json() == {
        "ok": False, "error": "csrf",
        "message": "El formulario ha caducado o no es válido (falta el token CSRF). Recargue la "
                   "página; no se ha cambiado nada.",
    }
    said = [rec.getMessage() for rec in caplog.records]
    assert any(m.startswith("CSRF refused for director on domino_create from ") for m in said)
    assert any(m.startswith("CSRF refused for director on close from ") for m in said)
    assert web.domino.events() == [] and [e.action for e in web.store.audit_log()] == ["login"]


async def test_another_origin_and_no_session_are_refused(
    web: WebApp, client: httpx.AsyncClient
) -> None:
    r = await client.post("/director/domino/actions/create", data={"name": "X"},
                          headers={"Accept": "application/json"})
    assert r.status_code == 403 and r.json()["error"] == "login_required" and r.json()["message"]
    csrf = await login(client)
    r = await client.post("/director/domino/actions/create", data={"name": "X"},
                          headers={"Accept": "application/json", "X-CSRF-Token": csrf,
                                   "Origin": "http://evil.example"})
    assert r.status_code == 403 and r.json()["error"] == "csrf"
    assert web.domino.events() == []


async def test_the_actions_are_picked_and_checked_by_the_declared_registry(
    web: WebApp, client: httpx.AsyncClient
) -> None:
    csrf = await login(client)
    r = await _act(client, csrf, "drop_tables")
    assert r.status_code == 404
    assert r.json() == {"ok": False, "error": "unknown_action",
                        "message": r.json()["message"]} and "drop_tables" in r.json()["message"]
    # a field the action declares, missing or malformed: 400 and the field named
    r = await _act(client, csrf, "create")
    assert r.status_code == 400 and r.json()["error"] == "bad_value"
    assert r.json()["message"] == "Dato no válido en «Nombre». No se ha cambiado nada."
    r = await _act(client, csrf, "create", name="x" * 81)
    assert r.status_code == 400 and r.json()["error"] == "bad_value"
    assert web.domino.events() == []
    assert (await _act(client, csrf, "create", name="Dominó")).json()["ok"]
    r = await _act(client, csrf, "penalty", gp="R1-M1|P0001", reason_code="chivo", points="x")
    assert r.status_code == 400 and r.json()["error"] == "bad_value"
    # refused by the domino engine: 409, its code, the reason, and an audit line that says so
    r = await _act(client, csrf, "penalty", gp="R9-M9|P0001", reason_code="chivo")
    assert r.status_code == 409 and r.json()["error"] == "no_game"
    assert r.json()["ok"] is False and "no hay ninguna partida así" in r.json()["message"]
    refused = web.store.audit_log(action="domino_penalty")[0]
    assert refused.outcome == "refused" and refused.target == "R9-M9"
    assert refused.params["refused"] == {"code": "no_game"}
    done = web.store.audit_log(action="domino_create")[0]
    assert done.outcome == "ok" and done.target == "Dominó" and done.detail


def test_every_field_the_directors_page_posts_is_declared() -> None:
    """The page's forms post only what the registry declares (and ``csrf``)."""
    page = (PATHS.TEMPLATES / "domino" / "director.html").read_text(encoding="utf-8")
    forms = dict(re.findall(r"call form\('(\w+)'.*?%\}(.*?)\{% endcall %\}", page, re.S))
    registry = domino_actions(None)
    assert set(forms) <= set(registry) and {"create", "penalty", "absence", "tiempo"} <= set(forms)
    for name, body in forms.items():
        posted = set(re.findall(r'name="(\w+)"', body))
        declared = {f.name for f in registry[name].fields}
        assert posted <= declared, (name, posted - declared)


async def test_a_form_without_a_page_to_go_back_to_returns_to_the_domino_director(
    web: WebApp, client: httpx.AsyncClient
) -> None:
    csrf = await login(client)
    r = await client.post("/director/domino/actions/create",
                          data={"name": "Dominó de abril", "csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/director/domino"
    assert "mesa_flash" in r.cookies
    page = (await client.get("/director/domino")).text
    assert "Hecho: Crear torneo de dominó" in page and "Dominó de abril" in page
    # refused: back to the page it came from (its Referer), with the reason in a flash
    r = await client.post("/director/domino/actions/register_pair",
                          data={"a": "P9999", "b": "P9998", "csrf": csrf},
                          headers={"Referer": "http://mesa.test/director/domino"},
                          follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/director/domino"
    page = (await client.get("/director/domino")).text
    assert "Rechazado: ese jugador no está en el registro" in page
    assert web.domino.read(lambda x: x is not None and x.pairs == {})


def test_the_pairs_tournament_phase_reads_in_the_directors_language() -> None:
    """The director page names the phase in words, never the engine's code ("closed")."""
    from typing import get_args

    from mesa.games.domino.pairs import Phase
    from mesa.hub.web.i18n import text

    for phase in get_args(Phase):
        es, en = text("es", f"dom.phase.{phase}"), text("en", f"dom.phase.{phase}")
        assert es != f"dom.phase.{phase}" and en != f"dom.phase.{phase}"
    assert text("es", "dom.phase.closed") == "cerrado"
