"""The director calls "TIEMPO" in a real browser and the domino tables' clocks start on the grid;
then opens a second domino event beside the first and switches between them.

Headless Chromium (Playwright) against the dashboard served by uvicorn; the hub on a real
Mosquitto; two real domino table runtimes (``SimTable``) with their real hub links.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from mesa.controller.app import make_link
from mesa.controller.sim import SimTable
from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from mesa.hub.web.http.server import BackgroundServer
from support.harness import hub_settings, wait_until
from support.mosquitto import have_mosquitto, start_broker, table_password
from support.shots import SHOTS

pytestmark = [pytest.mark.browser, pytest.mark.broker]

PASSWORD = "clave-del-director"
TABLES = ("d1", "d2")


@pytest.fixture(scope="module")
def room(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Hub, WebApp, str, list[SimTable]]]:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    tmp = tmp_path_factory.mktemp("domino-browser")
    broker = start_broker(tmp / "broker", tables=TABLES)
    hub = Hub(hub_settings(tmp / "hub.sqlite3", broker)).start()
    web = WebApp(hub, hub.settings.replace(director_password=PASSWORD, auto_assign=False))
    server = BackgroundServer(web).start()
    sims = []
    for tid in TABLES:
        def link(runtime: Any, snapshot: dict[str, Any], tid: str = tid) -> Any:
            return make_link(runtime, table_id=tid, host=broker.host, port=broker.port,
                             password=table_password(tid), outbox=tmp / f"{tid}.sqlite3",
                             snapshot=snapshot)

        sim = SimTable(tid, game="domino", robots=(), link=link)
        sim.start()
        sims.append(sim)
    assert wait_until(lambda: sorted(web.domino.free_tables()) == list(TABLES), 20)
    yield hub, web, server.url.rstrip("/"), sims
    for sim in sims:
        sim.stop()
    server.stop()
    web.close()
    hub.stop()
    broker.stop()


def _clock_seconds(text: str) -> int:
    m, s = text.strip().split(":")[-2:]
    return int(m) * 60 + int(s)


def test_the_director_calls_tiempo_and_the_clocks_start_on_the_grid(
    browser: Any, room: tuple[Hub, WebApp, str, list[SimTable]]
) -> None:
    _hub, web, url, sims = room

    def players(club: Any, now: datetime) -> list[str]:
        return [club.registry.add_new(n).id for n in
                ("ANA", "BETO", "CARLA", "DANI", "EVA", "FIDEL", "GEMA", "HUGO")]

    ids = web.desk.call(players)
    web.domino.create("Dominó del viernes", actor="director")
    names = dict(zip(ids, ("ANA", "BETO", "CARLA", "DANI", "EVA", "FIDEL", "GEMA", "HUGO"),
                     strict=True))
    for a, b in zip(ids[0::2], ids[1::2], strict=True):
        web.domino.register_pair(a, b, (names[a], names[b]), actor="director")
    games = web.domino.start_round(actor="director")
    assert sorted(g.table for g in games) == list(TABLES)
    assert wait_until(lambda: all(s.runtime.view().state == "assigned" for s in sims), 20)

    page = browser.new_page()
    page.goto(url + "/login")
    page.fill("input[name=user]", "director")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-form button[type=submit]")
    page.wait_for_url("**/director")
    # the grid before: both domino tables wait for "TIEMPO"
    page.goto(url + "/live")
    for tid in TABLES:
        page.wait_for_selector(f"#table-{tid}[data-kind=domino] [data-game-clock-waiting]")
    page.goto(url + "/director/domino")
    dialogs: list[str] = []

    def accept(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.accept()

    page.on("dialog", accept)
    with page.expect_navigation():
        page.click("#domino-tiempo button[type=submit]")
    assert len(dialogs) == 1 and "TIEMPO" in dialogs[0]  # asked once (it asked twice)
    assert "TIEMPO" in page.inner_text("main")
    # the tables start their games from the hub's one instant
    assert wait_until(lambda: all(s.runtime.view().state == "ready" for s in sims), 20)
    starts = {s.runtime.table.s.start_wall for s in sims}  # type: ignore[attr-defined]
    assert len(starts) == 1
    # the grid: both clocks running down from 35:00, and the two minutes to reach the table
    page.goto(url + "/live")
    shown = {}
    for tid in TABLES:
        clock = page.wait_for_selector(f"#table-{tid} [data-game-clock]")
        shown[tid] = _clock_seconds(clock.inner_text())
        assert 34 * 60 <= shown[tid] <= 35 * 60
        assert page.query_selector(f"#table-{tid} [data-reach]") is not None
    page.wait_for_timeout(2200)
    for tid in TABLES:
        later = _clock_seconds(page.inner_text(f"#table-{tid} [data-game-clock]"))
        assert later < shown[tid]  # the browser counts it down
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "domino-live.png"), full_page=True)
    # the audit line of the call
    page.goto(url + "/director/domino")
    assert page.query_selector("#domino-audit tr[data-action=tiempo]") is not None
    # A second domino event opens beside the first: the page goes to it, the switcher lists
    # both, and the first is one click away, its round still there.
    page.fill("#domino-create input[name=name]", "Parejas novatos")
    with page.expect_navigation():
        page.click("#domino-create button[type=submit]")
    assert page.get_attribute("#domino-event", "data-event") == "D2"
    assert page.input_value("#domino-start_round input[name=t]") == "D2"
    with page.expect_navigation():
        page.click("#domino-events a[data-event=D1]")
    assert page.get_attribute("#domino-event", "data-event") == "D1"
    assert page.query_selector("#domino-audit tr[data-action=tiempo]") is not None
    page.goto(url + "/domino")
    assert len(page.query_selector_all("section.domino-event")) == 2
    page.close()
