"""Request bodies refused past a limit *while they stream in*, before they fill the memory.

    app = BodyLimit(starlette_app, max_bytes=1_000_000)

A declared ``Content-Length`` over the limit is answered 413 at once, without reading a byte.
Otherwise the middleware counts the ``http.request`` chunks as the app reads them; the chunk
that passes the limit is never handed to the app: the client gets 413 there and then (also when
``Content-Length`` lies or is absent, as with chunked uploads). The server then closes the
connection, so the rest of the body is never read. A body that stops arriving (a chunk awaited
longer than ``chunk_timeout``) is answered 408: a slow upload cannot hold a connection forever.
Only a request that has a body (``Content-Length`` above 0, or chunked) is timed: a GET has none,
and an event stream waits on ``receive`` for the client's disconnect for hours (timing those
tore every live page's stream down after ten seconds, and uvicorn logged each one as
"ASGI callable returned without completing response").

>>> import asyncio
>>> async def app(scope, receive, send):
...     while (await receive()).get("more_body"):
...         pass
...     await send({"type": "http.response.start", "status": 200, "headers": []})
...     await send({"type": "http.response.body", "body": b"ok"})
>>> sent = []
>>> chunks = [{"type": "http.request", "body": b"x" * 600, "more_body": True}] * 3
>>> async def receive():
...     return chunks.pop()
>>> async def send(message):
...     sent.append(message)
>>> asyncio.run(BodyLimit(app, max_bytes=1000)({"type": "http", "headers": []}, receive, send))
>>> sent[0]["status"]
413
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mesa.words import DEFAULT_LANGUAGE, Catalog

# The dashboard's largest legitimate body is a ranking import pasted into a form (tens of KB).
MAX_BODY_BYTES = 1_000_000
# Seconds to wait for the next piece of a body that has not finished arriving.
CHUNK_TIMEOUT = 10.0


class BodyTooLarge(Exception):
    """Raised into the app when the body passes the limit (the 413 is sent after it)."""


class BodyTooSlow(Exception):
    """Raised into the app when the body stops arriving (the 408 is sent after it)."""


class BodyLimit:
    """See the module docstring. ``on_refused`` is called once per refused request."""

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int = MAX_BODY_BYTES,
        on_refused: Callable[[], None] | None = None,
        chunk_timeout: float = CHUNK_TIMEOUT,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.on_refused = on_refused
        self.chunk_timeout = chunk_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        lang = _language(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(send, 413, lang)
            return
        seen = 0
        started = False
        refused = 0  # the status the app's failure stands for
        # No body to wait for: every receive is the app's wait for a disconnect, never timed.
        body_done = not _has_body(scope, declared)

        async def counting_receive() -> Message:
            nonlocal seen, refused, body_done
            if body_done:  # later receives wait for a disconnect (event streams): no timer
                message = await receive()
                if message["type"] == "http.request":  # counted all the same
                    seen += len(message.get("body", b""))
                    if seen > self.max_bytes:
                        refused = 413
                        raise BodyTooLarge
                return message
            try:
                message = await asyncio.wait_for(receive(), self.chunk_timeout)
            except TimeoutError:
                refused = 408
                raise BodyTooSlow from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                body_done = not message.get("more_body", False)
                if seen > self.max_bytes:
                    refused = 413
                    raise BodyTooLarge
            return message

        async def watching_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, watching_send)
        except Exception:
            if not refused:
                raise
            # ours, or the app's own wrapping it: the refusal is still the answer
            if not started:
                await self._refuse(send, refused, lang)

    async def _refuse(self, send: Send, status: int, lang: str = DEFAULT_LANGUAGE) -> None:
        if self.on_refused is not None:
            self.on_refused()
        error = "too_large" if status == 413 else "too_slow"
        message = REFUSALS.text(lang, error)
        body = json.dumps({"ok": False, "error": error, "message": message}, ensure_ascii=False)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json; charset=utf-8"),
                    (b"content-length", str(len(body.encode("utf-8"))).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body.encode("utf-8")})


# Said before any page code runs, so in the reader's language from the cookie alone.
REFUSALS = Catalog({
    "too_large": {
        "es": "El envío es demasiado grande (más de 1 MB). No se ha cambiado nada.",
        "en": "The request is too large (over 1 MB). Nothing was changed.",
    },
    "too_slow": {
        "es": "El envío llegó demasiado despacio. No se ha cambiado nada.",
        "en": "The request arrived too slowly. Nothing was changed.",
    },
})


def _language(scope: Scope) -> str:
    """``es`` or ``en`` from the language cookie (``mesa_lang``); Spanish by default."""
    for name, value in scope.get("headers", []):
        if name == b"cookie" and b"mesa_lang=en" in value:
            return "en"
    return DEFAULT_LANGUAGE


def _has_body(scope: Scope, declared: int | None) -> bool:
    """Whether the request carries a body (RFC 9112 §6.3: a length above 0, or chunked)."""
    if declared is not None:
        return declared > 0
    return any(name == b"transfer-encoding" and b"chunked" in value.lower()
               for name, value in scope.get("headers", []))


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
