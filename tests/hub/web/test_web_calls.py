"""Players know where to go: the call board, a player's next match (and their JSON twins), the
printable QR list; in a real browser, the pages follow the tournament live and fit a phone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import httpx
import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.settings import HubSettings
from mesa.hub.web.app import WebApp
from mesa.hub.web.http.server import BackgroundServer
from support.browser import chromium, chromium_path
from support.hubkit import FakeTable, make_tournament
from support.shots import SHOTS


def assign(web: WebApp, tables: list[str]) -> list[Any]:
    def run(club: Any, now: datetime) -> list[Any]:
        t = club.tournament("2025-03")
        return t.assign_tables(tables, now=now)

    return web.desk.call(run)


@pytest.mark.anyio
async def test_the_call_board_and_a_players_next_match(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    ids = make_tournament(web, 6)
    board = (await client.get("/llamadas.json")).json()
    assert board["calls"] == [] and board["playing"] == [] and len(board["next"]) >= 2
    plan = assign(web, ["4"])
    board = (await client.get("/llamadas.json")).json()
    call = board["calls"][0]
    assert call["table"] == "4" and call["called"] and call["id"] == plan[0].match_id
    page = (await client.get("/llamadas")).text
    assert "Mesa 4" in page and 'data-called="1"' in page and "board.js" in page
    player = call["a"]["id"]
    mine = (await client.get(f"/players/{player}/next.json")).json()
    assert mine["match"]["table"] == "4" and mine["match"]["opponent"]["id"] == call["b"]["id"]
    page = (await client.get(f"/players/{player}/next")).text
    assert "Mesa 4" in page and call["b"]["name"] in page and "mi próxima partida" in page
    en = (await client.get(f"/players/{player}/next?lang=en")).text
    assert "Table 4" in en and "my next match" in en
    # Someone with no match called yet waits for a table.
    idle = next(p for p in ids if p not in (call["a"]["id"], call["b"]["id"]))
    wait = (await client.get(f"/players/{idle}/next.json")).json()
    assert wait["match"]["table"] is None and wait["match"]["status"] in ("ready", "waiting")
    assert (await client.get("/players/P9999/next")).status_code == 404
    qr = (await client.get("/players/qr")).text
    assert qr.count('<img class="qr"') == 6 and f"/players/{ids[0]}/next" in qr
    svg = await client.get(f"/players/{ids[0]}/qr.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.text.startswith("<svg")
    assert (await client.get("/players/P9999/qr.svg")).status_code == 404
    assert "<script>" not in qr and "onclick" not in qr


@pytest.mark.anyio
async def test_the_next_match_shows_the_live_score_from_the_table(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    ids = make_tournament(web, 6)

    def put_on_table(club: Any, now: datetime) -> tuple[str, str, str]:
        t = club.tournament("2025-03")
        m = next(m for m in t.ready_matches() if ids[0] in m.players)
        t.assign_match(m.id, "3", now=now)
        return m.id, t.name_of(m.a), t.name_of(m.b)

    match_id, a, b = web.desk.call(put_on_table)
    fake_table.play_to_running(match=match_id, names=(a, b))
    web.poller.poll()
    mine = (await client.get(f"/players/{ids[0]}/next.json")).json()
    assert mine["match"]["table"] == "3"
    assert mine["match"]["live"] == {**mine["match"]["live"], "a": 0, "b": 0, "state": "running"}
    page = (await client.get(f"/players/{ids[0]}/next")).text
    assert 'id="live-score"' in page and "0–0" in page and "jugando" in page
    board = (await client.get("/llamadas.json")).json()
    assert [c["live"]["state"] for c in board["calls"]] == ["running"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebApp, str]]:
    db = tmp_path_factory.mktemp("calls") / "hub.sqlite3"
    hub = Hub(HubSettings(db=db))
    web = WebApp(hub, hub.settings.replace(auto_assign=False))
    server = BackgroundServer(web, "127.0.0.1", 0).start()
    try:
        yield web, server.url.rstrip("/")
    finally:
        server.stop()
        web.close()
        hub.close()


@pytest.mark.browser
def test_the_pages_follow_the_tournament_live_and_fit_a_phone(
    served: tuple[WebApp, str],
) -> None:
    if chromium_path() is None:
        pytest.skip("chromium not installed")
    web, url = served
    ids = make_tournament(web, 8)
    with chromium() as browser:
        phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
        errors: list[str] = []
        phone.on("pageerror", lambda e: errors.append(str(e)))
        # A player's own page leads to "mi próxima partida" (only the QR list used to).
        phone.goto(url + f"/players/{ids[0]}")
        phone.click("#next-link")
        phone.wait_for_url(f"**/players/{ids[0]}/next")
        assert phone.locator("#next-match").count() == 1
        # The phone menu is one line (it scrolls sideways), not a third of the screen.
        header = phone.locator("header.top").bounding_box()
        assert header is not None and header["height"] < 60, header
        big = browser.new_page(viewport={"width": 1600, "height": 900})
        big.goto(url + "/llamadas")
        assert big.locator(".call").count() == 0
        # The director's desk puts matches on tables: both pages show it without a reload.
        plan = assign(web, ["1", "2", "3"])
        big.wait_for_function("() => document.querySelectorAll('.call').length === 3",
                              timeout=15000)  # fmt: skip
        mine = next(a for a in plan if ids[0] in (a.a, a.b))
        phone.wait_for_function(
            f"() => document.querySelector('#next-match .next-where')?.textContent.includes("
            f"'Mesa {mine.table}')",
            timeout=15000,
        )
        # The switch is readable while off (a button's white text on the white panel was not).
        colours = big.eval_on_selector(
            "#chime", "b => [getComputedStyle(b).color, getComputedStyle(b).backgroundColor]"
        )
        assert colours[0] != colours[1], colours
        big.click("#chime")
        assert big.get_attribute("#chime", "aria-pressed") == "true"
        phone.screenshot(path=str(SHOTS / "next-match-phone.png"))
        big.screenshot(path=str(SHOTS / "calls-board.png"))
        # On a phone the call board's scores stay on one line ("0–0", never "0–" over "0"):
        # a row as the board writes it, with long names beside the score.
        phone.goto(url + "/llamadas")
        lines = phone.evaluate(
            """() => {
                const body = document.querySelector('#playing tbody') ||
                    document.querySelector('#playing').appendChild(document.createElement('tbody'));
                const row = body.insertRow();
                row.innerHTML = '<td class="num">12</td><td>MARÍA JOSÉ FERNÁNDEZ DE LA TORRE</td>' +
                    '<td class="num score">10–10</td><td>JUAN CARLOS RODRÍGUEZ ZAPATERO</td>' +
                    '<td class="muted">a 7 puntos</td>';
                // The lines the score's text takes (the cell is as tall as its row).
                const range = document.createRange();
                range.selectNodeContents(row.cells[2]);
                return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
            }"""
        )
        assert lines == 1, lines
        qr = browser.new_page(viewport={"width": 1200, "height": 900})
        qr.goto(url + "/players/qr")
        qr.emulate_media(media="print")
        qr.screenshot(path=str(SHOTS / "players-qr.png"))
        assert not errors, errors
