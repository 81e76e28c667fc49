"""The director's door, the same for every page and every action of every game.

- a director's page without a session: ``401`` and ``{"error": "login_required", "message"}``
  for a script (a ``.json`` path or ``Accept: application/json``), else ``303`` to
  ``/login?next=<the page>`` (:func:`login_needed`);
- a director's POST: a session (``403 login_required``), a request from our own origin, and the
  session's CSRF token in the ``X-CSRF-Token`` header or the form's ``csrf`` field (``403
  csrf``, and a warning in the log that names the director, the action and the address)
  (:func:`director_post`).

    answer = login_needed(site, request, lang)      # None: go ahead
    got = await director_post(site, request, lang, "pause")
    if isinstance(got, Response): return got        # refused
    session, form = got
"""

from __future__ import annotations

import logging
import urllib.parse
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from mesa.hub.web.http.auth import csrf_ok
from mesa.hub.web.http.paths import path_for
from mesa.hub.web.http.request import address, read_form, wants_json
from mesa.hub.web.http.response import refuse
from mesa.hub.web.http.store import Session
from mesa.hub.web.i18n import Translator
from mesa.hub.web.site import Site

log = logging.getLogger("mesa.web")


def login_needed(site: Site, request: Request, lang: str) -> Response | None:
    """None when a director is logged in; else the answer that sends the visitor to log in."""
    if site.session_of(request) is not None:
        return None
    if request.url.path.endswith(".json") or wants_json(request):
        return JSONResponse(
            {"error": "login_required", "message": Translator(lang)("flash.login_required")},
            status_code=401,
        )
    return RedirectResponse(path_for("login", next=request.url.path), status_code=303)


def same_origin(request: Request) -> bool:
    """No ``Origin`` header (an old browser, a script), or one naming this very host."""
    origin = request.headers.get("origin")
    return not origin or urllib.parse.urlsplit(origin).netloc == request.headers.get("host")


async def director_post(
    site: Site, request: Request, lang: str, action: str
) -> tuple[Session, dict[str, Any]] | Response:
    """The session and the posted form of a director's POST that may go ahead, or the refusal
    to answer with (nothing read past the refusal, nothing changed)."""
    tr = Translator(lang)
    session = site.session_of(request)
    if session is None:
        return refuse(request, lang, "login_required", tr("flash.login_required"), 403)
    if not same_origin(request):
        return refuse(request, lang, "csrf", tr("flash.csrf"), 403)
    form = await read_form(request)
    token = request.headers.get("x-csrf-token") or form.get("csrf")
    if not csrf_ok(session.csrf, token):
        log.warning("CSRF refused for %s on %s from %s", session.user, action, address(request))
        return refuse(request, lang, "csrf", tr("flash.csrf"), 403)
    return session, form
