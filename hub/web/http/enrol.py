"""``POST /enrol/hello``: a new table's Pi calls the hub (the enrolment desk's door on the web).

The one endpoint of the dashboard for Pis, not people: no login, no cookie, no CSRF token; the
venue's enrolment token instead (``Authorization: Bearer <token>``, from the bundle on every
new table's SD card, compared in constant time). It keeps out a phone on the club's Wi-Fi
without that SD card; whoever has the bundle gets past it, and obtains nothing by it: the
answer is sealed to the key the Pi made itself (docs/broker.md, "Adopting a table").

Request: ``Content-Type: application/json``, a body of at most the desk's
``max_hello_bytes`` (4096) bytes, the Pi's announcement ``{"serial", "key", "hwcheck"}``. Answers, JSON:

===== ==========================================================================
202   ``{"state": "waiting", "every": 5.0}``: listed (or refreshed); call again
200   ``{"state": "adopted", "answer": "<base64 of the sealed link file>"}``
400   ``{"state": "refused", "error": "malformed", "reason": "bad_key"}``
401   ``{"state": "refused", "error": "token"}``
413   ``{"state": "refused", "error": "too_large"}``
429   ``{"state": "refused", "error": "full|serial|source|dismissed"}`` + ``Retry-After``
503   ``{"state": "refused", "error": "off"}``: the hub runs no enrolment desk
===== ==========================================================================

The caller's address, as the server sees it (no proxy is trusted: ``proxy_headers`` off), is
the announcement's source for the waiting list's per-address limits. The desk's work runs on a
worker thread, never on the server's event loop. The desk
(:class:`~mesa.hub.broker.enrolment.EnrolmentDesk`) is known here by what it does only
(``token_ok``, ``refuse``, ``hello``, ``max_hello_bytes``): this layer imports no broker code.
"""

from __future__ import annotations

import base64
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

HELLO_PATH = "/enrol/hello"
_STATUS = {"waiting": 202, "adopted": 200, "malformed": 400, "token": 401, "too_large": 413}


def reply_response(reply: Any) -> Response:
    """The HTTP answer to a call (a desk's ``HelloReply``; the table in the module docstring)."""
    if reply.state == "waiting":
        return JSONResponse({"state": "waiting", "every": reply.every}, status_code=202)
    if reply.state == "adopted" and reply.answer is not None:
        answer = base64.b64encode(reply.answer).decode("ascii")
        return JSONResponse({"state": "adopted", "answer": answer}, status_code=200)
    body: dict[str, Any] = {"state": "refused", "error": reply.state}
    if reply.state == "malformed" and reply.detail:
        body["reason"] = reply.detail
    headers = {}
    status = _STATUS.get(reply.state, 429)
    if status == 429:
        headers["Retry-After"] = str(max(1, reply.retry_after))
    return JSONResponse(body, status_code=status, headers=headers)


class EnrolEndpoint:
    """``POST /enrol/hello`` over the site's enrolment desk (``site.enrolment``)."""

    def __init__(self, site: Any) -> None:
        self.site = site

    async def hello(self, request: Request) -> Response:
        desk = self.site.enrolment
        if desk is None:
            return JSONResponse(
                {"state": "refused", "error": "off"}, status_code=503, headers={"Retry-After": "60"}
            )
        source = request.client.host if request.client is not None else ""
        auth = request.headers.get("authorization", "")
        scheme, _, presented = auth.partition(" ")
        if scheme.lower() != "bearer" or not desk.token_ok(presented.strip()):
            return reply_response(desk.refuse("token"))
        limit = int(desk.max_hello_bytes)
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            return reply_response(desk.refuse("too_large"))
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return reply_response(desk.refuse("content_type"))
        body = bytearray()
        try:
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    return reply_response(desk.refuse("too_large"))
        except ClientDisconnect:
            return Response(status_code=400)
        reply = await run_in_threadpool(desk.hello, bytes(body), source)
        return reply_response(reply)
