"""In a real browser (headless Chromium): a hostile table snapshot published on the table's own
state topic (real Mosquitto) runs no script on the director's table page, and the
Content-Security-Policy breaks nothing on the normal pages (live grid, event stream, forms)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from mesa.games.backgammon.machine import Table
from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from mesa.hub.web.http.headers import CSP
from mesa.hub.web.http.server import BackgroundServer
from mesa.protocol import StateReport, TableStatus, table_topic
from support.harness import served_hub, wait_until
from support.mosquitto import have_mosquitto, table_password

pytestmark = [pytest.mark.browser, pytest.mark.broker]

PASSWORD = "clave-del-director"
PWN = "<img src=x onerror=window.__pwned=1>"


@dataclass
class Stack:
    hub: Hub
    web: WebApp
    server: BackgroundServer
    port: int

    @property
    def url(self) -> str:
        return self.server.url.rstrip("/")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    with served_hub(tmp_path_factory.mktemp("csp"), ("c1", "c2"), director_password=PASSWORD) as h:
        for tid in ("c1", "c2"):
            h.hub.register_table(tid)
        yield Stack(h.hub, h.web, h.server, h.broker.port)


def publish_as_table(port: int, table: str, snapshot: dict[str, Any]) -> None:
    """What a (hostile) table publishes: online, then its retained snapshot."""
    connected = threading.Event()
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=table, protocol=mqtt.MQTTv5)
    c.username_pw_set(table, table_password(table))
    c.on_connect = lambda *a: connected.set()
    c.connect("127.0.0.1", port, keepalive=10)
    c.loop_start()
    try:
        assert connected.wait(10)
        status = TableStatus(table, "online", 1, time.time())
        c.publish(table_topic(table, "status"), status.to_payload(), qos=1, retain=True)
        report = StateReport(table, f"s-{table}", 0, 0, time.time(), snapshot)
        info = c.publish(table_topic(table, "state"), report.to_payload(), qos=1, retain=True)
        info.wait_for_publish(10)
    finally:
        c.disconnect()
        c.loop_stop()


def snapshot(players: dict[str, str], score: dict[str, Any]) -> dict[str, Any]:
    t = Table()
    t.apply("tick", {}, now=1.0)
    assign = {"match_id": "X-1", "players": players, "length": 3, "clock": {"preset": "singles"}}
    t.apply("assign", assign, now=2.0)
    snap = t.snapshot()
    snap["match"]["score"] = score
    snap["match"]["winner"] = "a"  # an ended match: the table's view code reads the rest
    snap["match"]["ended_by"] = "score"
    return snap


def log_in(page: Any, stack: Stack) -> None:
    page.goto(stack.url + "/login")
    page.fill("input[name=user]", "director")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-form button[type=submit]")
    page.wait_for_url("**/director")


def watch(page: Any) -> list[str]:
    """Console messages and page errors (a CSP violation is reported on the console)."""
    seen: list[str] = []
    page.on("console", lambda m: seen.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: seen.append(f"pageerror: {e}"))
    return seen


def test_a_hostile_snapshot_runs_no_script_on_the_table_page(browser: Any, stack: Stack) -> None:
    refused = stack.hub.metrics.get("refused", reason="bad_snapshot")
    # Markup where a number belongs: the ingest refuses the snapshot (it is not a table's).
    publish_as_table(stack.port, "c2", snapshot({"a": "A", "b": "B"}, {"a": '0">' + PWN, "b": 0}))
    assert wait_until(
        lambda: stack.hub.metrics.get("refused", reason="bad_snapshot") > refused, 10
    )
    # Markup where text belongs (a player's name) is a valid snapshot: the page must escape it.
    publish_as_table(stack.port, "c2", snapshot({"a": PWN, "b": "B"}, {"a": 0, "b": 0}))
    assert wait_until(
        lambda: any(
            c["id"] == "c2" and PWN in str(c.get("players")) for c in stack.web.poller.current()
        ),
        10,
    )
    page = browser.new_page()
    seen = watch(page)
    log_in(page, stack)
    before = len(stack.web.store.audit_log())
    response = page.goto(stack.url + "/director/tables/c2")
    assert response.headers["content-security-policy"] == CSP
    assert response.headers["x-frame-options"] == "DENY"
    page.wait_for_timeout(500)  # let any injected handler fire
    assert page.evaluate("() => typeof window.__pwned") == "undefined"
    assert page.locator("main img").count() == 0
    assert PWN in page.inner_text("#table-c2")  # the name is shown, as text
    assert page.locator("input[name=a]").first.get_attribute("value") == "0"
    assert len(stack.web.store.audit_log()) == before  # nothing done on the director's behalf
    page.close()
    print("\n".join(seen))


def test_the_csp_breaks_nothing_on_the_normal_pages(browser: Any, stack: Stack) -> None:
    publish_as_table(stack.port, "c1", snapshot({"a": "ALBA", "b": "BRUNO"}, {"a": 1, "b": 0}))
    page = browser.new_page()
    seen = watch(page)
    page.goto(stack.url + "/live")
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'live'")
    log_in(page, stack)  # a form post
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'live'")
    for path in (
        "/",
        "/groups",
        "/draw",
        "/draw/print?paper=A3",
        "/rankings?kind=rating",
        "/players",
        "/exports",
        "/director/tournament",
        "/director/audit",
        "/director/tables/c1",
    ):
        page.goto(stack.url + path)
        page.wait_for_load_state("load")
    # an action posted by the page's script (the async form on the table page)
    page.goto(stack.url + "/director")
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'live'")
    violations = [s for s in seen if "Content Security Policy" in s or "pageerror" in s]
    print("\n".join(seen))
    assert violations == []
    assert [s for s in seen if "Failed to load resource" in s] == []  # e.g. no /favicon.ico
