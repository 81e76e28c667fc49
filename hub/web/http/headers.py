"""Security headers on every response of the dashboard (pages, JSON, exports, static files,
errors, the event stream): a strict Content-Security-Policy, no framing, no MIME sniffing.

    app = SecurityHeaders(starlette_app)

The policy allows scripts and style sheets from the hub only: no inline ``<script>``, no
``on…=`` handlers, no ``style=`` attributes and no ``<style>`` blocks, so even markup that got
into a page by mistake cannot run. The pages' scripts live in ``static/*.js``.

>>> "script-src 'self'" in CSP and "frame-ancestors 'none'" in CSP
True
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",  # the live feed (SSE) and the actions' fetch()
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

HEADERS: dict[str, str] = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


class SecurityHeaders:
    """Adds :data:`HEADERS` to every HTTP response (a pure ASGI middleware: it does not buffer
    bodies, so the event stream flows as before)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)
