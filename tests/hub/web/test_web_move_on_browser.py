"""What the director sees when a table keeps a match that is no longer its own: the table page
says so and offers "Liberar mesa"; one click frees the table (headless Chromium, the dashboard
served by uvicorn, a table answering through the hub's real ingest path)."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.settings import HubSettings
from mesa.hub.web.app import WebApp
from mesa.hub.web.http.server import BackgroundServer
from support.hubkit import NOW, PASSWORD, FakeTable, make_tournament

pytestmark = [pytest.mark.browser]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@dataclass
class Served:
    web: WebApp
    server: BackgroundServer
    table: FakeTable

    @property
    def url(self) -> str:
        return self.server.url.rstrip("/")

    def live(self) -> dict[str, Any]:
        return self.web.hub.table("3") or {}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed")
    hub = Hub(HubSettings(db=tmp_path / "hub.sqlite3"))
    web = WebApp(
        hub,
        hub.settings.replace(director_password=PASSWORD, command_wait=3.0, auto_assign=False),
        now=lambda: NOW,
    )
    server = BackgroundServer(web).start()
    table = FakeTable(hub, "3")
    hub.register_table("3")
    table.online()
    stop = threading.Event()

    def answer() -> None:  # the table takes what the hub sends it, as a real one would
        while not stop.is_set():
            table.serve()
            stop.wait(0.02)

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    yield Served(web, server, table)
    stop.set()
    thread.join(5)
    server.stop()
    web.close()
    hub.close()


def wait_for(check: Any) -> None:
    deadline = time.monotonic() + 10
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_the_table_page_offers_liberar_mesa_and_it_frees_the_table(served: Served) -> None:
    from playwright.sync_api import sync_playwright

    web = served.web
    make_tournament(web, 6)

    def give(club: Any, now: datetime) -> None:
        t = club.tournament("2025-03")
        web.desk.publish_assignment(t, web.desk.assign_match(t, "G1-1", "3", now, "test"), now)

    web.desk.call(give)
    wait_for(lambda: served.live().get("state") == "assigned")
    # Decided behind the table's back: the table would wait for the players all evening.
    web.desk.call(
        lambda club, now: club.tournament("2025-03").record_result(
            "G1-1", 3, 0, source="director", actor="otro", now=now
        )
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(served.url + "/login")
        page.fill("input[name=user]", "director")
        page.fill("input[name=password]", PASSWORD)
        page.click("#login-form button[type=submit]")
        page.wait_for_url("**/director")
        page.goto(served.url + "/director/tables/3")
        hint = page.locator(".release").inner_text()
        assert "Esta mesa sigue con G1-1, que ya tiene resultado" in hint
        button = page.locator("[data-act=release_table]")
        assert button.inner_text() == "Liberar mesa" and button.is_visible()
        with page.expect_navigation():
            button.click()
        flashes = page.locator(".flash").all_inner_texts()
        assert any("Hecho: Liberar mesa · 3 (G1-1: ya tiene resultado)" in f for f in flashes)
        wait_for(lambda: served.live().get("state") == "idle")
        page.goto(served.url + "/director/tables/3")
        assert page.locator("[data-act=release_table]").count() == 0
        assert errors == []
        browser.close()
    line = web.store.audit_log()[0]
    assert (line.action, line.outcome, line.target) == ("release_table", "ok", "3")
