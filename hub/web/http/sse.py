"""``GET /events``: the live feed as server-sent events, with catch-up after a reconnection.

Each message is one of ``table`` (a table's card, rendered in the client's language), ``summary``
(the grid's header counts) or ``tournament`` (the standings or the draw changed: pages refetch).
Every message carries an id ``<epoch>:<seq>``; a browser that lost its connection reconnects with
``Last-Event-ID`` and receives only what changed since, each item in its latest version; after a
hub restart (a new epoch) it receives everything. Nothing is lost, nothing is sent twice.

>>> message_data("tournament", "current", {"version": 3}, now=5.0)["version"]
3
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from sse_starlette.sse import AppStatus, EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from mesa.hub.web.http.request import address
from mesa.hub.web.i18n import Translator
from mesa.hub.web.site import Site

# Browsers retry after this many milliseconds when the connection drops.
RETRY_MS = 1000
# The generator wakes at least this often to notice a shutdown or a gone client.
WAKE_SECONDS = 1.0


def message_data(
    kind: str, key: str, data: Any, *, now: float, html: str | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": kind, "key": key, "now": now}
    if kind == "tournament":
        out["version"] = data.get("version") if isinstance(data, dict) else None
    else:
        out["data"] = data
    if html is not None:
        out["html"] = html
    return out


def render_item(
    web: Site, kind: str, key: str, data: Any, lang: str, director: bool, csrf: str | None
) -> str | None:
    """The HTML a browser swaps in for one feed item, in the client's language."""
    if kind not in ("table", "summary") or data is None:
        return None
    ctx = {"_": Translator(lang), "lang": lang, "director": director, "csrf": csrf}
    if kind == "table":
        return web.render("_card.html", {**ctx, "c": data})
    return web.render("_summary.html", {**ctx, "summary": data})


class _SlotHoldingResponse(EventSourceResponse):
    """An event stream that gives its slot back however it ends (also if it never started)."""

    def __init__(self, *args: Any, release: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


async def stream(request: Request) -> Response:
    web: Site = request.app.state.site
    client = address(request)
    if not web.streams.take(client):
        web.metrics.inc("web_streams_refused")
        return JSONResponse(
            {"error": "too_many_streams", "retry_ms": RETRY_MS},
            status_code=429,
            headers={"Retry-After": "1"},
        )
    lang = web.lang_of(request)
    session = web.session_of(request)
    director = request.query_params.get("mode") == "director" and session is not None
    csrf = session.csrf if director and session is not None else None
    last_id = request.headers.get("last-event-id") or request.query_params.get("last_id")
    feed = web.feed

    def to_event(seq: int, kind: str, key: str, data: Any) -> ServerSentEvent:
        html = render_item(web, kind, key, data, lang, director, csrf)
        payload = message_data(kind, key, data, now=web.clock(), html=html)
        return ServerSentEvent(
            data=json.dumps(payload, default=str), event=kind, id=feed.event_id(seq)
        )

    async def events() -> AsyncIterator[ServerSentEvent]:
        yield ServerSentEvent(
            data=json.dumps({"kind": "hello", "now": web.clock(), "epoch": feed.epoch}),
            event="hello",
            retry=RETRY_MS,
        )
        since_id = last_id
        generation = web.stream_generation
        while (
            not web.stopping.is_set()
            and not AppStatus.should_exit
            and generation == web.stream_generation
        ):
            changes = feed.changes_since(since_id)
            for seq, kind, key, data in changes:
                yield to_event(seq, kind, key, data)
            since_id = feed.event_id(
                changes[-1][0] if changes else max(feed.parse_last_id(since_id), 0)
            )
            if await request.is_disconnected():
                break
            await feed.wait(feed.parse_last_id(since_id), WAKE_SECONDS)

    return _SlotHoldingResponse(
        events(),
        ping=15,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        release=lambda: web.streams.give_back(client),
    )
