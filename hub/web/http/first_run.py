"""The first run: a hub with no director account offers, once, a page that creates one.

The page answers only while no director exists, and only to the hub's own machine (a loopback
client address) or to whoever types the one-time code the hub printed on its console::

    first = FirstRun(site)            # makes the code if the store has no director
    first.code                        # '4f9c1a2e' (printed by `mesa hub`), None once one exists
    Route("/first-run", first.form), Route("/first-run", first.post, methods=["POST"])

>>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("192.168.1.20"), is_loopback("x")
(True, True, False, False)
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
import secrets

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from mesa.hub.web.http.paths import path_for
from mesa.hub.web.http.request import address, read_form
from mesa.hub.web.http.response import set_flash
from mesa.hub.web.i18n import Translator
from mesa.hub.web.site import Page, Site

log = logging.getLogger("mesa.web")

MIN_PASSWORD = 8


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class FirstRun:
    """``GET``/``POST /first-run``. See the module docstring."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.code: str | None = None if site.store.has_directors() else secrets.token_hex(4)
        self._lock = asyncio.Lock()  # two browsers at once: only the first creates

    def open(self) -> bool:
        """The page is offered only while no director exists."""
        if self.code is not None and self.site.store.has_directors():
            self.code = None  # someone used `mesa director-password` meanwhile
        return self.code is not None

    def _allowed(self, request: Request, code: object) -> bool:
        if is_loopback(address(request)):
            return True
        return (
            isinstance(code, str)
            and self.code is not None
            and hmac.compare_digest(code.strip().lower(), self.code)
        )

    def _page(self, request: Request, lang: str, error: str = "", status: int = 200) -> Response:
        tr = Translator(lang)
        data = {
            "open": self.open(),
            "local": is_loopback(address(request)),
            "error": error,
            "default_user": self.site.settings.director,
        }
        page = Page("first_run.html", data, "login", tr("first.title"), refresh="", status=status)
        return self.site.respond(request, page, lang)

    async def form(self, request: Request) -> Response:
        lang = self.site.lang_of(request)
        return self._page(request, lang, status=200 if self.open() else 410)

    async def post(self, request: Request) -> Response:
        lang = self.site.lang_of(request)
        tr = Translator(lang)
        if not self.open():
            return self._page(request, lang, tr("first.closed"), 410)
        form = await read_form(request)
        if not self._allowed(request, form.get("code")):
            log.warning("first-run refused from %s: wrong code", address(request))
            return self._page(request, lang, tr("first.bad_code"), 403)
        user = str(form.get("user") or "").strip()[:50]
        password = form.get("password")
        if not user or not user.isprintable():
            return self._page(request, lang, tr("flash.bad_value", field="user"), 400)
        if not isinstance(password, str) or len(password) < MIN_PASSWORD:
            return self._page(request, lang, tr("first.short", n=MIN_PASSWORD), 400)
        if password != form.get("again"):
            return self._page(request, lang, tr("first.mismatch"), 400)
        async with self._lock:
            if not self.open():
                return self._page(request, lang, tr("first.closed"), 410)
            await asyncio.to_thread(self.site.store.set_password, user, password)
            self.code = None
        self.site.store.audit(user, "first_run", address=address(request))
        resp = RedirectResponse(path_for("login", next=path_for("director")), status_code=303)
        set_flash(resp, "ok", tr("first.done", user=user))
        return resp
