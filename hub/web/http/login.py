"""Sessions and the director's login: the login form and its POST (throttled, audited), logout
(CSRF-checked) and the language switch.

    login = Login(site)
    Route("/login", login.form), Route("/login", login.post, methods=["POST"])

The password hashing, the throttle and the CSRF comparison are :mod:`mesa.hub.web.http.auth`'s.
"""

from __future__ import annotations

import asyncio
import logging
import os

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from mesa.hub.web.http.auth import LoginThrottle, csrf_ok
from mesa.hub.web.http.paths import path_for
from mesa.hub.web.http.request import address, read_form, safe_next, wants_json
from mesa.hub.web.http.response import SESSION_COOKIE, refuse, set_flash
from mesa.hub.web.i18n import DEFAULT_LANGUAGE, LANGUAGES, Translator
from mesa.hub.web.site import Page, Site

log = logging.getLogger("mesa.web")


class Login:
    """The login, logout and language endpoints."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.throttle = LoginThrottle()

    async def form(self, request: Request) -> Response:
        lang = self.site.lang_of(request)
        tr = Translator(lang)
        data = {
            "next": safe_next(request.query_params.get("next")),
            "error": None,
            "hint": self.login_hint(lang),
            "first_run": not self.site.store.has_directors(),
        }
        if request.url.path.endswith(".json"):
            session = self.site.session_of(request)
            return JSONResponse({"user": None if session is None else session.user})
        return self.site.respond(
            request, Page("login.html", data, "login", tr("login.title"), refresh=""), lang
        )

    def login_hint(self, lang: str) -> str | None:
        """The demo prints its password on the login page; a real club's hub does not."""
        if os.environ.get("MESA_DEMO") == "1" and self.site.settings.director_password:
            return Translator(lang)(
                "dir.login_hint",
                user=self.site.settings.director,
                password=self.site.settings.director_password,
            )
        return None

    async def post(self, request: Request) -> Response:
        lang = self.site.lang_of(request)
        tr = Translator(lang)
        form = await read_form(request)
        user = str(form.get("user", "")).strip()[:100]
        password = str(form.get("password", ""))[:1000]
        nxt = safe_next(form.get("next"))
        addr = address(request)
        json_wanted = wants_json(request)

        def fail(message: str, status: int) -> Response:
            if json_wanted:
                return JSONResponse(
                    {"error": "login_failed", "message": message}, status_code=status
                )
            page = Page(
                "login.html",
                {"next": nxt, "error": message, "hint": self.login_hint(lang)},
                "login",
                tr("login.title"),
                refresh="",
                status=status,
            )
            return self.site.respond(request, page, lang)

        # The attempt is counted before the (slow) password check: concurrent guesses from one
        # address cannot all reach scrypt.
        wait = self.throttle.attempt(user, addr)
        if wait > 0:
            self.site.metrics.inc("web_login_throttled")
            return fail(tr("flash.throttled", seconds=wait), 429)
        self.site.metrics.inc("web_login_checks")
        ok = await asyncio.to_thread(self.site.store.check_password, user, password)
        if not ok:
            log.warning("failed director login for %r from %s", user, addr)
            return fail(tr("flash.bad_login"), 401)
        self.throttle.succeeded(user, addr)
        token, csrf = self.site.store.open_session(user)
        self.site.store.audit(user, "login", address=addr)
        if json_wanted:
            resp: Response = JSONResponse({"user": user, "csrf": csrf})
        else:
            resp = RedirectResponse(nxt or path_for("director"), status_code=303)
            set_flash(resp, "ok", tr("flash.logged_in", user=user))
        resp.set_cookie(
            SESSION_COOKIE,
            token,
            max_age=int(self.site.settings.session_hours * 3600),
            httponly=True,
            samesite="strict",
            secure=self.site.settings.secure_cookies,
            path="/",
        )
        return resp

    async def logout(self, request: Request) -> Response:
        lang = self.site.lang_of(request)
        session = self.site.session_of(request)
        form = await read_form(request)
        token = form.get("csrf") or request.headers.get("x-csrf-token")
        if session is not None and not csrf_ok(session.csrf, token):
            return refuse(request, lang, "csrf", Translator(lang)("flash.csrf"), 403)
        if session is not None:
            self.site.store.audit(session.user, "logout", address=address(request))
        self.site.store.close_session(request.cookies.get(SESSION_COOKIE))
        resp = RedirectResponse(path_for("live"), status_code=303)
        resp.delete_cookie(SESSION_COOKIE, path="/")
        set_flash(resp, "ok", Translator(lang)("flash.logged_out"))
        return resp

    async def set_language(self, request: Request) -> Response:
        code = request.path_params["code"]
        lang = code if code in LANGUAGES else DEFAULT_LANGUAGE
        resp = RedirectResponse(safe_next(request.query_params.get("next")) or "/", status_code=303)
        self.site.set_lang_cookie(resp, lang)
        return resp
