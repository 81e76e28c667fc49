"""Several domino events open at once on the dashboard: each page per event (``?t=``), every
open one together on the public page, the director's switcher and forms that name their event,
exports and the printed final list per event, an unknown event a 404, and a round refused (in
the director's language) while one of its players plays backgammon, started once confirmed.

In-process: a real hub (SQLite, ingest), the web app, the domino desk on a venue shared with a
backgammon desk's seats, domino tables whose machines run in the test."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from typing import Any

import httpx
import pytest

from mesa.hub.desk.games.domino import DominoDesk
from mesa.hub.desk.venue import Seat, Venue
from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from support.dominokit import FakeDominoTable
from support.hubkit import NOW, PASSWORD, login

pytestmark = pytest.mark.anyio

NAMES = ["ANA", "BETO", "CARLA", "DANI", "EVA", "FIDEL", "GEMA", "HUGO",
         "IRENE", "JUAN", "KIKE", "LOLA"]


@pytest.fixture
def venue() -> Venue:
    return Venue()


@pytest.fixture
def web(hub: Hub, venue: Venue) -> Iterator[WebApp]:
    desk = DominoDesk(hub.settings.db, hub=hub, venue=venue, now=lambda: NOW, command_wait=1.0)
    w = WebApp(
        hub,
        hub.settings.replace(director_password=PASSWORD, command_wait=1.0, auto_assign=False),
        domino=desk, now=lambda: NOW,
    )
    yield w
    w.close()
    desk.close()


@pytest.fixture
async def client(web: WebApp) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(web.asgi()), base_url="http://mesa.test"
    ) as c:
        yield c


def _players(web: WebApp) -> list[str]:
    def run(club: Any, now: datetime) -> list[str]:
        return [club.registry.add_new(n).id for n in NAMES]

    return web.desk.call(run)


async def _act(client: httpx.AsyncClient, csrf: str, action: str, /, **fields: Any
               ) -> httpx.Response:
    return await client.post(f"/director/domino/actions/{action}", data=fields,
                             headers={"Accept": "application/json", "X-CSRF-Token": csrf})


async def _two_events(client: httpx.AsyncClient, csrf: str, ids: list[str]) -> None:
    """D1 "Dominó de marzo" with ANA…HUGO (four pairs), D2 "Parejas novatos" with ANA / IRENE
    and JUAN / KIKE: ANA plays both."""
    assert (await _act(client, csrf, "create", name="Dominó de marzo")).json()["ok"]
    assert (await _act(client, csrf, "create", name="Parejas novatos")).json()["ok"]
    for a, b in zip(ids[0:8:2], ids[1:8:2], strict=True):
        r = await _act(client, csrf, "register_pair", t="D1", a=a, b=b)
        assert r.json()["ok"], r.text
    for a, b in ((ids[0], ids[8]), (ids[9], ids[10])):
        r = await _act(client, csrf, "register_pair", t="D2", a=a, b=b)
        assert r.json()["ok"], r.text


async def test_two_events_each_with_its_pages_forms_and_exports(
    hub: Hub, web: WebApp, client: httpx.AsyncClient
) -> None:
    ids = _players(web)
    tables = [FakeDominoTable(hub, t) for t in ("1", "2", "3")]
    for t in tables:
        t.online()
    csrf = await login(client)
    await _two_events(client, csrf, ids)
    # A form naming no event while two are open is refused, in words.
    r = await _act(client, csrf, "start_round")
    assert r.status_code == 409 and r.json()["error"] == "which_tournament"
    assert "hay varios torneos de dominó abiertos" in r.json()["message"]
    r = await _act(client, csrf, "start_round", t="D9")
    assert r.json()["error"] == "unknown_tournament" and "«D9»" in r.json()["message"]
    r = await _act(client, csrf, "start_round", t="D1")
    assert r.json()["ok"], r.text
    assert sorted(r.json()["detail"].split(", ")) == ["R1-M1 en la mesa 1", "R1-M2 en la mesa 2"]
    # ANA is at D1's table now: D2's round waits for her, and the director is told.
    r = await _act(client, csrf, "start_round", t="D2")
    assert r.status_code == 409 and r.json()["error"] == "players_busy"
    assert "ANA juega en la mesa 1 (Dominó de marzo)" in r.json()["message"]

    # The public page: both open events together, each with its own exports.
    page = (await client.get("/domino")).text
    assert page.count('class="domino-event"') == 2
    assert "Dominó de marzo" in page and "Parejas novatos" in page
    assert "/domino/final.csv?t=D1" in page and "/domino/final.csv?t=D2" in page
    assert 'id="domino-events"' in page and "Todos los abiertos" in page
    data = (await client.get("/domino.json")).json()
    assert [b["tournament"]["id"] for b in data["boards"]] == ["D1", "D2"]
    assert [e["id"] for e in data["events"]] == ["D1", "D2"] and "tournament" not in data
    # One event per page with ?t=
    data = (await client.get("/domino.json?t=D2")).json()
    assert data["tournament"]["name"] == "Parejas novatos" and data["rounds"] == []
    assert [b["tournament"]["id"] for b in data["boards"]] == ["D2"]
    page = (await client.get("/domino?t=D1")).text
    assert page.count('class="domino-event"') == 1 and "R1-M1" in page

    # The director's page: the switcher, the newest open by default, every form names it.
    page = (await client.get("/director/domino")).text
    assert 'href="/director/domino?t=D1"' in page and 'href="/director/domino?t=D2"' in page
    assert 'id="domino-event" data-event="D2"' in page
    assert page.count('name="t" value="D2"') >= 3 and 'name="t" value="D1"' not in page
    assert "ANA juega en la mesa 1 (Dominó de marzo)" in page and 'name="confirm"' in page
    page = (await client.get("/director/domino?t=D1")).text
    assert 'id="domino-event" data-event="D1"' in page and 'name="t" value="D1"' in page
    director = (await client.get("/director/domino.json?t=D1")).json()
    assert [e["id"] for e in director["events"]] == ["D1", "D2"]
    assert director["audit"][0]["action"] == "start_round"

    # D1's round ends, it is closed: its final list stays, per event, beside the open D2.
    for t in tables:
        t.serve()
    assert (await _act(client, csrf, "tiempo", t="D1")).json()["ok"]
    live = (await client.get("/live")).text  # the grid's cards say whose game each table has
    assert re.search(r'id="table-1"[^>]*data-event="D1"', live)
    for t in tables[:2]:
        t.serve()
        t.win_game("ns")
    web.domino.sync()
    r = await _act(client, csrf, "close", t="D1")
    assert r.json()["ok"], r.text
    r = await _act(client, csrf, "register_pair", t="D1", a=ids[11], b=ids[10])
    assert r.status_code == 409 and r.json()["error"] == "closed"
    assert "el torneo de dominó D1 está cerrado" in r.json()["message"]
    rows = list(csv.reader(io.StringIO((await client.get("/domino/final.csv?t=D1")).text
                                       .lstrip("\ufeff")), delimiter=";"))
    assert len(rows) == 5 and rows[1][0] == "1"
    r = await client.get("/domino/final.csv?t=D2")
    assert 'filename="domino-D2.csv"' in r.headers["content-disposition"]
    assert len(list(csv.reader(io.StringIO(r.text.lstrip("\ufeff")), delimiter=";"))) == 3
    assert (await client.get("/domino/final.json?t=D1")).json()["id"] == "D1"
    page = (await client.get("/domino/final/print?t=D1")).text
    assert "Dominó de marzo" in page and "Parejas novatos" not in page
    # Only D2 open now: /domino shows it alone, the switcher lists the closed one after it.
    data = (await client.get("/domino.json")).json()
    assert data["tournament"]["id"] == "D2"
    assert [(e["id"], e["open"]) for e in data["events"]] == [("D2", True), ("D1", False)]
    # ANA is free: D2's round starts.
    r = await _act(client, csrf, "start_round", t="D2")
    assert r.json()["ok"] and r.json()["detail"] == "R1-M1 en la mesa 1", r.text


async def test_an_unknown_event_is_a_404_everywhere(
    web: WebApp, client: httpx.AsyncClient
) -> None:
    await login(client)
    web.domino.create("Dominó de marzo", actor="director")
    for path in ("/domino", "/domino.json", "/director/domino", "/director/domino.json",
                 "/domino/final.csv", "/domino/final.json", "/domino/final/print"):
        assert (await client.get(path + "?t=D1")).status_code == 200, path
        assert (await client.get(path + "?t=D7")).status_code == 404, path
    r = await client.get("/domino?t=%3Cscript%3E")
    assert r.status_code == 404 and "<script>" not in r.text


async def test_a_round_refused_for_a_player_at_a_backgammon_table_then_confirmed(
    hub: Hub, web: WebApp, venue: Venue, client: httpx.AsyncClient
) -> None:
    ids = _players(web)
    for tid in ("1", "2"):
        FakeDominoTable(hub, tid).online()
    csrf = await login(client)
    assert (await _act(client, csrf, "create", name="Dominó de marzo")).json()["ok"]
    for a, b in zip(ids[0:8:2], ids[1:8:2], strict=True):
        assert (await _act(client, csrf, "register_pair", a=a, b=b)).json()["ok"]
    venue.publish("backgammon", [Seat(ids[0], "4", "2026-12", "Open de diciembre",
                                      "backgammon")])
    r = await _act(client, csrf, "start_round", t="D1")
    assert r.status_code == 409 and r.json()["error"] == "players_busy"
    assert r.json()["message"].startswith(
        "Rechazado: ANA juega en la mesa 4 (Open de diciembre). Para empezar la ronda")
    r = await client.post("/director/domino/actions/start_round?lang=en", data={"t": "D1"},
                          headers={"Accept": "application/json", "X-CSRF-Token": csrf})
    assert r.json()["message"] == ("Refused: ANA plays at table 4 (Open de diciembre). To start "
                                   "the round anyway, tick «Start anyway».")
    page = (await client.get("/director/domino?t=D1")).text
    assert "Ocupados en otra mesa ahora:" in page and 'name="confirm"' in page
    page = (await client.get("/director/domino?t=D1&lang=en")).text
    assert "ANA plays at table 4 (Open de diciembre)" in page and "Start anyway" in page
    await client.get("/director/domino?lang=es")  # the language chosen sticks: back to Spanish
    # Confirmed: it starts, and the director reads who will be late.
    r = await _act(client, csrf, "start_round", t="D1", confirm="1")
    assert r.json()["ok"], r.text
    assert "llegarán tarde: ANA juega en la mesa 4 (Open de diciembre)" in r.json()["message"]
    page = (await client.get("/director/domino?t=D1")).text
    assert "Llegarán tarde (juegan en otra mesa):" in page and 'name="confirm"' not in page
    director = (await client.get("/director/domino.json?t=D1")).json()
    assert [a["action"] for a in director["audit"][:2]] == ["late", "start_round"]
    assert director["elsewhere"][0]["event_name"] == "Open de diciembre"
    # The backgammon side sees ANA's and the others' domino seats.
    seats = venue.busy(besides="backgammon")
    assert seats[ids[0]].game == "domino" and seats[ids[0]].event == "D1" and len(seats) == 8


async def test_the_forms_go_back_to_their_event(web: WebApp, client: httpx.AsyncClient) -> None:
    """A form posted from ``?t=D1`` comes back to D1 with its flash; a new event's form goes
    to the new one (the newest open)."""
    csrf = await login(client)
    web.domino.create("Dominó de marzo", actor="director")
    page = (await client.get("/director/domino?t=D1")).text
    assert 'name="next" value="/director/domino"' in page
    r = await client.post("/director/domino/actions/create",
                          data={"name": "Parejas novatos", "csrf": csrf, "t": "D1",
                                "next": "/director/domino"},
                          headers={"Referer": "http://mesa.test/director/domino?t=D1"},
                          follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/director/domino"
    page = (await client.get("/director/domino")).text
    assert 'id="domino-event" data-event="D2"' in page and "Parejas novatos" in page
    r = await client.post("/director/domino/actions/start_round", data={"t": "D1", "csrf": csrf},
                          headers={"Referer": "http://mesa.test/director/domino?t=D1"},
                          follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/director/domino?t=D1"
    page = (await client.get("/director/domino?t=D1")).text
    assert "Rechazado: hacen falta al menos dos parejas" in page and 'data-event="D1"' in page
