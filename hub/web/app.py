"""The hub's web app: the director's dashboard, the players' public view, and their JSON twins.

One Starlette app on top of the running :class:`~mesa.hub.ingest.app.Hub`. Every page ``/x`` has a JSON
twin ``/x.json`` built from the very same view model; the live grid updates by server-sent
events (``/events``); the director's actions are POSTs behind a login, a CSRF token and the
audit log (:mod:`mesa.hub.web.actions`). Tested in-process through ``httpx.ASGITransport``::

    web = WebApp(hub, WebSettings(director_password="secret"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(web.asgi()), base_url="http://m") as c:
        (await c.get("/groups.json")).json()

>>> WebSettings.from_env({"MESA_WEB_PORT": "9000", "MESA_WEB_LANGUAGE": "en"}).port
9000
>>> sorted(s.name for s in WEB_SETTINGS)[:3]
['auto_assign', 'command_wait', 'director']
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import os
import threading
import time
import urllib.parse
import zipfile
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from mesa.errors import ConfigError
from mesa.hub.desk.desk import TournamentDesk
from mesa.hub.settings import Setting, values_from_env
from mesa.hub.web.actions import ACTIONS, BadField, Context, Refused, parse_fields
from mesa.hub.web.auth import LoginThrottle, csrf_ok
from mesa.hub.web.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGE_NAMES,
    LANGUAGES,
    Translator,
    format_clock,
    pick_language,
)
from mesa.hub.web.live import LiveFeed, LivePoller, summarize
from mesa.hub.web.store import WebStore
from mesa.hub.web.views import (
    RANKING_KINDS,
    bracket_view,
    final_view,
    groups_view,
    match_view,
    player_view,
    players_view,
    ranking_view,
    rating_chart,
    tournament_info,
)
from mesa.tournament.club import Club
from mesa.tournament.errors import TournamentError

log = logging.getLogger("mesa.web")
HERE = Path(__file__).parent
SESSION_COOKIE = "mesa_session"
LANG_COOKIE = "mesa_lang"
FLASH_COOKIE = "mesa_flash"

# ── settings ────────────────────────────────────────────────────────────────
WEB_SETTINGS: tuple[Setting, ...] = (
    Setting("host", "MESA_WEB_HOST", "the address the dashboard listens on"),
    Setting("port", "MESA_WEB_PORT", "the dashboard's HTTP port"),
    Setting("director", "MESA_WEB_DIRECTOR", "the director's user name"),
    Setting(
        "director_password",
        "MESA_WEB_DIRECTOR_PASSWORD",
        "sets the director's password at start (stored as an scrypt hash); "
        "or use `mesa web passwd`",
    ),
    Setting("secure_cookies", "MESA_WEB_SECURE_COOKIES", "1: cookies only over HTTPS"),
    Setting("session_hours", "MESA_WEB_SESSION_HOURS", "how long a director stays logged in"),
    Setting("language", "MESA_WEB_LANGUAGE", "default language of pages and exports (es or en)"),
    Setting(
        "time_scale",
        "MESA_WEB_TIME_SCALE",
        "how many times faster than real time the tables' clocks run (the demo's acceleration)",
    ),
    Setting("low_time", "MESA_WEB_LOW_TIME", "reserve in seconds below which a clock is flagged"),
    Setting(
        "timed_matches",
        "MESA_WEB_TIMED_MATCHES",
        "all: every match gets a clock; mandatory: only semifinals and final",
    ),
    Setting("auto_assign", "MESA_WEB_AUTO_ASSIGN", "1: hand ready matches to free tables"),
    Setting(
        "publish_dir",
        "MESA_WEB_PUBLISH_DIR",
        "closing a tournament writes the static HTML results here (the club's website)",
    ),
    Setting(
        "command_wait",
        "MESA_WEB_COMMAND_WAIT",
        "seconds a director's table command waits for the table's answer",
    ),
)


@dataclass(frozen=True)
class WebSettings:
    host: str = "127.0.0.1"
    port: int = 8080
    director: str = "director"
    director_password: str | None = None
    secure_cookies: bool = False
    session_hours: float = 12.0
    language: str = DEFAULT_LANGUAGE
    time_scale: float = 1.0
    low_time: float = 60.0
    timed_matches: str = "all"
    auto_assign: bool = True
    publish_dir: Path | None = None
    command_wait: float = 5.0

    def __post_init__(self) -> None:
        if self.language not in LANGUAGES:
            raise ConfigError(f"language must be one of {LANGUAGES}, not {self.language!r}")
        if self.timed_matches not in ("all", "mandatory"):
            raise ConfigError("timed_matches must be 'all' or 'mandatory'")
        if not self.time_scale > 0:
            raise ConfigError("time_scale must be > 0")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> WebSettings:
        """Defaults, then ``MESA_WEB_*`` variables, then ``overrides``."""
        values = values_from_env(cls, WEB_SETTINGS, os.environ if env is None else env)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


# ── paths ───────────────────────────────────────────────────────────────────
ROUTE_PATHS: dict[str, str] = {
    "home": "/",
    "live": "/live",
    "groups": "/groups",
    "draw": "/draw",
    "draw_print": "/draw/print",
    "consolation": "/consolation",
    "rankings": "/rankings",
    "players": "/players",
    "player": "/players/{id}",
    "final": "/final",
    "exports": "/exports",
    "login": "/login",
    "logout": "/logout",
    "director": "/director",
    "director_tournament": "/director/tournament",
    "director_audit": "/director/audit",
    "director_table": "/director/tables/{id}",
    "director_match": "/director/matches/{id}",
    "action": "/director/actions/{name}",
    "events": "/events",
}

# Pages of the static snapshot for the club's website: page → file name.
STATIC_PAGES = {
    "final": "index.html",
    "groups": "groups.html",
    "draw": "draw.html",
    "consolation": "consolation.html",
    "rankings": "rankings.html",
    "players": "players.html",
}


def path_for(route: str, /, **params: Any) -> str:
    """``path_for("player", id="P0001")`` → ``/players/P0001``; extra params become the query."""
    template = ROUTE_PATHS[route]
    path_params = {k: v for k, v in params.items() if "{" + k + "}" in template}
    query = {k: v for k, v in params.items() if k not in path_params and v is not None}
    path = template.format(
        **{k: urllib.parse.quote(str(v), safe="") for k, v in path_params.items()}
    )
    if query:
        path += "?" + urllib.parse.urlencode(query)
    return path


@dataclass
class Page:
    """What a handler returns: the template, its data (also the JSON twin), and page facts."""

    template: str
    data: dict[str, Any]
    section: str
    title: str
    refresh: str = "tournament"
    status: int = 200


class WebApp:
    """The dashboard around a hub. See the module docstring."""

    def __init__(
        self,
        hub: Any,
        settings: WebSettings | None = None,
        *,
        desk: TournamentDesk | None = None,
        store: WebStore | None = None,
        clock: Callable[[], float] = time.time,
        now: Callable[[], datetime] = datetime.now,
    ) -> None:
        self.hub = hub
        self.settings = settings or WebSettings()
        db = hub.settings.db
        self.store = store or WebStore(db, session_hours=self.settings.session_hours, now=clock)
        self.desk = desk or TournamentDesk(
            db,
            hub=hub,
            now=now,
            wall=clock,
            rate=self.settings.time_scale,
            timed=self.settings.timed_matches,
            auto_assign=self.settings.auto_assign,
            language=self.settings.language,
        )
        self._clock = clock
        self.feed = LiveFeed()
        self.poller = LivePoller(
            hub,
            self.feed,
            rate=self.settings.time_scale,
            low_time=self.settings.low_time,
            clock=clock,
            extra=self._publish_tournament_version,
        )
        self.throttle = LoginThrottle()
        self.command_wait = self.settings.command_wait
        self.stopping = threading.Event()
        self.stream_generation = 0  # bumped by drop_streams(): every open stream ends
        self._tv_published = -1
        self._bumps = 0
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(HERE / "templates")),
            autoescape=jinja2.select_autoescape(["html"]),
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.globals.update(
            format_clock=format_clock, path_for=path_for, low_time=self.settings.low_time
        )
        if self.settings.director_password:
            self.store.set_password(self.settings.director, self.settings.director_password)
        self._app: Starlette | None = None
        self.loop: asyncio.AbstractEventLoop | None = None  # the server's, once it runs

    # ── lifecycle ───────────────────────────────────────────────────────
    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self.loop = asyncio.get_running_loop()
        tasks = [
            asyncio.create_task(self.poller.run(0.1)),
            asyncio.create_task(self._sync_loop(0.25)),
        ]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _sync_loop(self, period: float) -> None:
        while True:
            try:
                await asyncio.to_thread(self.desk.sync)
            except Exception:
                log.exception("tournament sync failed")
            await asyncio.sleep(period)

    def close(self) -> None:
        """Stop streams and close the desk and the store (the hub is the caller's)."""
        self.stopping.set()
        self.desk.close()
        self.store.close()

    def drop_streams(self) -> None:
        """End every open event stream (browsers reconnect and catch up); for tests and
        for a hub that is about to restart its web server."""
        self.stream_generation += 1
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # another thread: the streams notice within a second anyway
        self.feed.wake()

    def bump(self) -> None:
        """Something the pages show changed outside the desk (a check-in)."""
        self._bumps += 1

    @property
    def tournament_version(self) -> int:
        return self.desk.version * 1000 + self._bumps

    def _publish_tournament_version(self) -> None:
        v = self.tournament_version
        if v != self._tv_published:
            self._tv_published = v
            self.feed.publish("tournament", "current", {"version": v})

    # ── requests ────────────────────────────────────────────────────────
    def asgi(self) -> Starlette:
        if self._app is None:
            self._app = Starlette(
                routes=self._routes(),
                lifespan=self.lifespan,
                exception_handlers={404: self._not_found},
            )
            self._app.state.web = self
        return self._app

    def _routes(self) -> list[BaseRoute]:
        pages: list[tuple[str, Callable[..., Any], bool]] = [
            ("home", self.page_live, False),
            ("live", self.page_live, False),
            ("groups", self.page_groups, False),
            ("draw", self.page_draw, False),
            ("draw_print", self.page_draw_print, False),
            ("consolation", self.page_consolation, False),
            ("rankings", self.page_rankings, False),
            ("players", self.page_players, False),
            ("player", self.page_player, False),
            ("final", self.page_final, False),
            ("exports", self.page_exports, False),
            ("director", self.page_director, True),
            ("director_tournament", self.page_director_tournament, True),
            ("director_audit", self.page_audit, True),
            ("director_table", self.page_director_table, True),
            ("director_match", self.page_director_match, True),
        ]
        routes: list[BaseRoute] = []
        for name, handler, director in pages:
            endpoint = self._page_endpoint(handler, director)
            path = ROUTE_PATHS[name]
            routes.append(Route(path, endpoint, name=name))
            twin = "/index.json" if path == "/" else path + ".json"
            routes.append(Route(twin, endpoint, name=name + "_json"))
        from mesa.hub.web.exports import export_routes
        from mesa.hub.web.sse import stream

        routes += [
            Route("/login", self.login_form, methods=["GET"], name="login"),
            Route("/login.json", self.login_form, methods=["GET"], name="login_json"),
            Route("/login", self.login_post, methods=["POST"]),
            Route("/logout", self.logout, methods=["POST"], name="logout"),
            Route("/lang/{code}", self.set_language, name="lang"),
            Route("/events", stream, name="events"),
            Route("/director/actions/{name}", self.action, methods=["POST"], name="action"),
            Route("/healthz", self.healthz, name="healthz"),
            *export_routes(self),
            Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
        ]
        return routes

    # ── who is asking ───────────────────────────────────────────────────
    def lang_of(self, request: Request) -> str:
        return pick_language(
            request.query_params.get("lang"),
            request.cookies.get(LANG_COOKIE),
            self.settings.language,
        )

    def session_of(self, request: Request) -> Any:
        return self.store.session(request.cookies.get(SESSION_COOKIE))

    @staticmethod
    def wants_json(request: Request) -> bool:
        return request.url.path.endswith(".json") or (
            "application/json" in request.headers.get("accept", "")
            and "text/html" not in request.headers.get("accept", "")
        )

    @staticmethod
    def address(request: Request) -> str:
        return request.client.host if request.client else ""

    # ── reading the club ────────────────────────────────────────────────
    async def read(self, fn: Callable[[Club], Any]) -> Any:
        return await asyncio.wrap_future(self.desk.submit_read(fn))

    # ── rendering ───────────────────────────────────────────────────────
    def base_context(
        self,
        request: Request | None,
        lang: str,
        *,
        section: str,
        title: str,
        refresh: str = "",
        static_site: bool = False,
    ) -> dict[str, Any]:
        session = self.session_of(request) if request is not None else None
        query = dict(request.query_params) if request is not None else {}
        path = request.url.path if request is not None else "/"
        twin_path = (
            "/index.json" if path == "/" else (path if path.endswith(".json") else path + ".json")
        )
        json_url = twin_path + ("?" + urllib.parse.urlencode(query) if query else "")

        def url(route: str, /, **params: Any) -> str:
            if static_site:
                if route == "player":
                    return f"player-{params['id']}.html"
                if route == "rankings" and params.get("kind", "tournament") != "tournament":
                    return f"rankings-{params['kind']}.html"
                return STATIC_PAGES.get(route, "#")
            return path_for(route, **params)

        def lang_url(code: str) -> str:
            if static_site:
                return "#"
            return (
                path_for("home").rstrip("/")
                + f"/lang/{code}?next="
                + urllib.parse.quote(
                    path
                    + (
                        "?"
                        + urllib.parse.urlencode({k: v for k, v in query.items() if k != "lang"})
                        if query
                        else ""
                    )
                )
            )

        def static_url(name: str) -> str:
            return name if static_site else f"/static/{name}"

        return {
            "_": Translator(lang),
            "lang": lang,
            "languages": [(c, LANGUAGE_NAMES[c]) for c in LANGUAGES],
            "user": None if session is None else session.user,
            "csrf": None if session is None else session.csrf,
            "section": section,
            "page_title": title,
            "refresh": refresh,
            "server_now": self._clock(),
            "stream_url": ""
            if static_site
            else path_for(
                "events",
                lang=lang,
                mode=(
                    "director" if session is not None and section.startswith("director") else None
                ),
            ),
            "tournament_version": self.tournament_version,
            "json_url": json_url,
            "url": url,
            "lang_url": lang_url,
            "static_url": static_url,
            "static_site": static_site,
            "flashes": [],
            "fragment": False,
        }

    def render(self, template: str, context: dict[str, Any]) -> str:
        return self.env.get_template(template).render(**context)

    def respond(self, request: Request, page: Page, lang: str) -> Response:
        if request.url.path.endswith(".json"):
            return JSONResponse(_jsonable(page.data), status_code=page.status)
        ctx = self.base_context(
            request, lang, section=page.section, title=page.title, refresh=page.refresh
        )
        ctx["flashes"] = _read_flash(request)
        ctx["fragment"] = request.headers.get("x-mesa-fragment") == "main"
        ctx.update(page.data)
        ctx["data"] = page.data
        resp = HTMLResponse(self.render(page.template, ctx), status_code=page.status)
        if ctx["flashes"]:
            resp.delete_cookie(FLASH_COOKIE, path="/")
        if request.query_params.get("lang") in LANGUAGES:
            self._set_lang_cookie(resp, request.query_params["lang"])
        return resp

    def _set_lang_cookie(self, resp: Response, lang: str) -> None:
        resp.set_cookie(
            LANG_COOKIE,
            lang,
            max_age=365 * 24 * 3600,
            path="/",
            samesite="lax",
            secure=self.settings.secure_cookies,
        )

    def _page_endpoint(self, handler: Callable[..., Any], director: bool) -> Callable[..., Any]:
        async def endpoint(request: Request) -> Response:
            lang = self.lang_of(request)
            if director:
                session = self.session_of(request)
                if session is None:
                    if request.url.path.endswith(".json") or self.wants_json(request):
                        return JSONResponse(
                            {
                                "error": "login_required",
                                "message": Translator(lang)("flash.login_required"),
                            },
                            status_code=401,
                        )
                    return RedirectResponse(
                        path_for("login", next=request.url.path), status_code=303
                    )
            try:
                page = await handler(request, lang)
            except (KeyError, TournamentError) as e:
                if isinstance(e, TournamentError) and e.code not in (
                    "unknown_player",
                    "unknown_match",
                    "unknown_tournament",
                ):
                    raise
                return self._not_found_page(request, lang)
            return self.respond(request, page, lang)

        return endpoint

    async def _not_found(self, request: Request, exc: Exception) -> Response:
        return self._not_found_page(request, self.lang_of(request))

    def _not_found_page(self, request: Request, lang: str) -> Response:
        tr = Translator(lang)
        if self.wants_json(request):
            return JSONResponse(
                {"error": "not_found", "message": tr("app.not_found_text")}, status_code=404
            )
        page = Page(
            "error.html",
            {"title": tr("app.not_found"), "message": tr("app.not_found_text")},
            "",
            tr("app.not_found"),
            refresh="",
            status=404,
        )
        return self.respond(request, page, lang)

    # ── public pages ────────────────────────────────────────────────────
    def live_data(self, lang: str) -> dict[str, Any]:
        cards = self.poller.current()
        return {"tables": cards, "summary": summarize(cards), "now": self._clock()}

    async def page_live(self, request: Request, lang: str) -> Page:
        info = await self.read(lambda club: tournament_info(_current(club), lang))
        data = {"tournament": info, **self.live_data(lang)}
        return Page("live.html", data, "live", Translator(lang)("live.title"), refresh="")

    async def page_groups(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = _current(club)
            return {
                "tournament": tournament_info(t, lang),
                "groups": [] if t is None else groups_view(t, lang),
            }

        return Page("groups.html", await self.read(build), "groups", Translator(lang)("nav.groups"))

    async def page_draw(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = _current(club)
            return {
                "tournament": tournament_info(t, lang),
                "bracket": None if t is None else bracket_view(t, "knockout", lang),
            }

        return Page("draw.html", await self.read(build), "draw", Translator(lang)("draw.title"))

    async def page_draw_print(self, request: Request, lang: str) -> Page:
        paper = "A3" if request.query_params.get("paper", "A4").upper() == "A3" else "A4"
        kind = "consolation" if request.query_params.get("kind") == "consolation" else "knockout"

        def build(club: Club) -> dict[str, Any]:
            t = _current(club)
            return {
                "tournament": tournament_info(t, lang),
                "paper": paper,
                "kind": kind,
                "bracket": None if t is None else bracket_view(t, kind, lang),
            }

        return Page(
            "draw_print.html", await self.read(build), "draw", Translator(lang)("draw.printable")
        )

    async def page_consolation(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = _current(club)
            return {
                "tournament": tournament_info(t, lang),
                "bracket": None if t is None else bracket_view(t, "consolation", lang),
            }

        return Page(
            "consolation.html",
            await self.read(build),
            "consolation",
            Translator(lang)("consolation.title"),
        )

    async def page_rankings(self, request: Request, lang: str) -> Page:
        kind = request.query_params.get("kind", "tournament")
        if kind not in RANKING_KINDS:
            kind = "tournament"
        category = "novatos" if request.query_params.get("category") == "novatos" else "open"
        try:
            year = int(request.query_params.get("year", ""))
        except ValueError:
            year = 0

        def build(club: Club) -> dict[str, Any]:
            t = _current(club)
            y = year or (t.held_on.year if t is not None else date.today().year)
            view = ranking_view(club, t, kind, lang, year=y, category=category)
            chart = ""
            if kind == "rating":
                top = [(e["name"], e["history"]) for e in view["entries"][:8] if e["history"]]
                chart = rating_chart(top, lang)
            years = sorted(
                {r.held_on.year for r in club.season.records.values()}
                | {y2 for (y2, _c) in club.season.bases}
                | {y}
            )
            return {
                "tournament": tournament_info(t, lang),
                "ranking": view,
                "kinds": list(RANKING_KINDS),
                "years": years,
                "chart_svg": chart,
            }

        return Page(
            "rankings.html", await self.read(build), "rankings", Translator(lang)("rank.title")
        )

    async def page_players(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = _current(club)
            return {"tournament": tournament_info(t, lang), "players": players_view(club, t, lang)}

        return Page(
            "players.html", await self.read(build), "players", Translator(lang)("players.title")
        )

    async def page_player(self, request: Request, lang: str) -> Page:
        pid = request.path_params["id"].removesuffix(".json")

        def build(club: Club) -> dict[str, Any]:
            t = _current(club)
            view = player_view(club, t, pid, lang)
            history = [h["after"] for h in view["rating_history"]]
            return {
                "tournament": tournament_info(t, lang),
                "player": view,
                "chart_svg": rating_chart([(view["name"], history)], lang),
            }

        data = await self.read(build)
        return Page(
            "player.html",
            data,
            "players",
            Translator(lang)("player.title", name=data["player"]["name"]),
        )

    async def page_final(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = _current(club)
            return {
                "tournament": tournament_info(t, lang),
                "rows": [] if t is None or t.knockout is None else final_view(t, lang),
            }

        return Page("final.html", await self.read(build), "final", Translator(lang)("final.title"))

    async def page_exports(self, request: Request, lang: str) -> Page:
        from mesa.hub.web.exports import export_list

        info = await self.read(lambda club: tournament_info(_current(club), lang))
        return Page(
            "exports.html",
            {"tournament": info, "exports": export_list(lang)},
            "exports",
            Translator(lang)("exp.title"),
            refresh="",
        )

    # ── director pages ──────────────────────────────────────────────────
    async def page_director(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = _current(club)
            ready = (
                []
                if t is None
                else [
                    match_view(t, m, lang)
                    for m in sorted(
                        t.ready_matches(), key=lambda m: (m.phase != "group", m.round_no, m.id)
                    )
                ]
            )
            conflicts = [] if t is None else [c.to_dict() for c in t.open_conflicts()]
            return {
                "tournament": tournament_info(t, lang),
                "ready": ready,
                "conflicts": conflicts,
                "pending_dice": []
                if t is None
                else [
                    {"group": g, "players": list(p), "names": [t.name_of(x) for x in p]}
                    for g, p in t.pending_dice()
                ],
            }

        data = await self.read(build)
        data.update(self.live_data(lang))
        return Page(
            "director/home.html", data, "director", Translator(lang)("dir.title"), refresh=""
        )

    async def page_director_tournament(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = _current(club)
            checkins = {} if t is None else self.store.checkins(t.id)
            entrants = (
                []
                if t is None
                else [
                    {
                        "id": e.player_id,
                        "name": e.name,
                        "override": e.override,
                        "present": checkins.get(e.player_id, False),
                        "group": t.group_of(e.player_id),
                    }
                    for e in sorted(t.entrants.values(), key=lambda e: e.name.casefold())
                ]
            )
            others = (
                []
                if t is None
                else [
                    {"id": p.id, "name": p.name}
                    for p in sorted(club.registry, key=lambda p: p.name.casefold())
                    if p.id not in t.entrants
                ]
            )
            matches = (
                []
                if t is None
                else [
                    match_view(t, m, lang)
                    for m in sorted(
                        t.matches.values(),
                        key=lambda m: (
                            ["group", "knockout", "consolation"].index(m.phase),
                            m.round_no,
                            m.group or 0,
                            m.number,
                        ),
                    )
                ]
            )
            return {
                "tournament": tournament_info(t, lang),
                "entrants": entrants,
                "others": others,
                "matches": matches,
                "tables": [d["table"] for d in self.hub.tables()],
                "conflicts": [] if t is None else [c.to_dict() for c in t.conflicts],
                "pending_dice": []
                if t is None
                else [
                    {"group": g, "players": list(p), "names": [t.name_of(x) for x in p]}
                    for g, p in t.pending_dice()
                ],
                "withdrawals": []
                if t is None
                else [
                    w.to_dict() | {"name": t.name_of(w.player_id)} for w in t.withdrawals.values()
                ],
                "engine_audit": []
                if t is None
                else [a.to_dict() for a in reversed(t.audit[-200:])],
                "today": date.today().isoformat(),
                "year": date.today().year,
            }

        return Page(
            "director/tournament.html",
            await self.read(build),
            "director_tournament",
            Translator(lang)("nav.tournament"),
        )

    async def page_audit(self, request: Request, lang: str) -> Page:
        entries = [e.to_dict() for e in self.store.audit_log(limit=1000)]
        return Page(
            "director/audit.html",
            {"entries": entries},
            "director_audit",
            Translator(lang)("dir.audit_title"),
            refresh="",
        )

    async def page_director_table(self, request: Request, lang: str) -> Page:
        table = request.path_params["id"].removesuffix(".json")
        card = next((c for c in self.poller.current() if c["id"] == table), None)
        if card is None:
            raise KeyError(table)
        commands = await asyncio.to_thread(self.hub.store.commands, table, 50)
        return Page(
            "director/table.html",
            {"table": card, "commands": commands},
            "director",
            Translator(lang)("live.table", id=table),
            refresh="",
        )

    async def page_director_match(self, request: Request, lang: str) -> Page:
        mid = request.path_params["id"].removesuffix(".json")

        def build(club: Club) -> dict[str, Any]:
            t = _current(club)
            if t is None:
                raise KeyError(mid)
            m = t.match(mid)
            return {
                "tournament": tournament_info(t, lang),
                "match": match_view(t, m, lang),
                "tables": [d["table"] for d in self.hub.tables()],
                "conflicts": [c.to_dict() for c in t.conflicts if c.match_id == mid],
            }

        data = await self.read(build)
        return Page(
            "director/match.html",
            data,
            "director_tournament",
            Translator(lang)("live.match", id=mid),
        )

    # ── login ───────────────────────────────────────────────────────────
    async def login_form(self, request: Request) -> Response:
        lang = self.lang_of(request)
        tr = Translator(lang)
        data = {
            "next": _safe_next(request.query_params.get("next")),
            "error": None,
            "hint": self.login_hint(lang),
        }
        if request.url.path.endswith(".json"):
            session = self.session_of(request)
            return JSONResponse({"user": None if session is None else session.user})
        return self.respond(
            request, Page("login.html", data, "login", tr("login.title"), refresh=""), lang
        )

    def login_hint(self, lang: str) -> str | None:
        """The demo prints its password on the login page; a real club's hub does not."""
        if os.environ.get("MESA_DEMO") == "1" and self.settings.director_password:
            return Translator(lang)(
                "dir.login_hint",
                user=self.settings.director,
                password=self.settings.director_password,
            )
        return None

    async def login_post(self, request: Request) -> Response:
        lang = self.lang_of(request)
        tr = Translator(lang)
        form = await _form(request)
        user = str(form.get("user", "")).strip()[:100]
        password = str(form.get("password", ""))[:1000]
        nxt = _safe_next(form.get("next"))
        addr = self.address(request)
        json_wanted = self.wants_json(request)

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
            return self.respond(request, page, lang)

        wait = self.throttle.wait_seconds(user, addr)
        if wait > 0:
            return fail(tr("flash.throttled", seconds=wait), 429)
        ok = await asyncio.to_thread(self.store.check_password, user, password)
        if not ok:
            self.throttle.failed(user, addr)
            log.warning("failed director login for %r from %s", user, addr)
            return fail(tr("flash.bad_login"), 401)
        self.throttle.succeeded(user, addr)
        token, csrf = self.store.open_session(user)
        self.store.audit(user, "login", address=addr)
        if json_wanted:
            resp: Response = JSONResponse({"user": user, "csrf": csrf})
        else:
            resp = RedirectResponse(nxt or path_for("director"), status_code=303)
            _set_flash(resp, "ok", tr("flash.logged_in", user=user))
        resp.set_cookie(
            SESSION_COOKIE,
            token,
            max_age=int(self.settings.session_hours * 3600),
            httponly=True,
            samesite="strict",
            secure=self.settings.secure_cookies,
            path="/",
        )
        return resp

    async def logout(self, request: Request) -> Response:
        lang = self.lang_of(request)
        session = self.session_of(request)
        form = await _form(request)
        token = form.get("csrf") or request.headers.get("x-csrf-token")
        if session is not None and not csrf_ok(session.csrf, token):
            return self._refuse(request, lang, "csrf", Translator(lang)("flash.csrf"), 403)
        if session is not None:
            self.store.audit(session.user, "logout", address=self.address(request))
        self.store.close_session(request.cookies.get(SESSION_COOKIE))
        resp = RedirectResponse(path_for("live"), status_code=303)
        resp.delete_cookie(SESSION_COOKIE, path="/")
        _set_flash(resp, "ok", Translator(lang)("flash.logged_out"))
        return resp

    async def set_language(self, request: Request) -> Response:
        code = request.path_params["code"]
        lang = code if code in LANGUAGES else DEFAULT_LANGUAGE
        resp = RedirectResponse(
            _safe_next(request.query_params.get("next")) or "/", status_code=303
        )
        self._set_lang_cookie(resp, lang)
        return resp

    async def healthz(self, request: Request) -> Response:
        return JSONResponse(
            {
                "ok": True,
                "hub_online": bool(getattr(self.hub, "online", False)),
                "tables": len(self.poller.cards),
                "tournament_version": self.tournament_version,
            }
        )

    # ── actions ─────────────────────────────────────────────────────────
    def _refuse(
        self, request: Request, lang: str, code: str, message: str, status: int
    ) -> Response:
        if self.wants_json(request) or request.headers.get("x-csrf-token") is not None:
            return JSONResponse(
                {"ok": False, "error": code, "message": message}, status_code=status
            )
        back = _safe_next(request.headers.get("referer"), request.headers.get("host")) or path_for(
            "director"
        )
        if code == "login_required":
            back = path_for("login", next=back)
        resp = RedirectResponse(back, status_code=303)
        _set_flash(resp, "error", message)
        return resp

    async def action(self, request: Request) -> Response:
        """POST /director/actions/<name>: login, CSRF, fields, run, audit, answer."""
        lang = self.lang_of(request)
        tr = Translator(lang)
        name = request.path_params["name"]
        session = self.session_of(request)
        if session is None:
            return self._refuse(request, lang, "login_required", tr("flash.login_required"), 403)
        origin = request.headers.get("origin")
        if origin and urllib.parse.urlsplit(origin).netloc != request.headers.get("host"):
            return self._refuse(request, lang, "csrf", tr("flash.csrf"), 403)
        form = await _form(request)
        token = request.headers.get("x-csrf-token") or form.get("csrf")
        if not csrf_ok(session.csrf, token):
            log.warning(
                "CSRF refused for %s on %s from %s", session.user, name, self.address(request)
            )
            return self._refuse(request, lang, "csrf", tr("flash.csrf"), 403)
        spec = ACTIONS.get(name)
        if spec is None:
            return self._refuse(
                request, lang, "unknown_action", tr("flash.unknown_action", name=name[:50]), 404
            )
        try:
            values = parse_fields(spec, form)
        except BadField as e:
            field = str(e)
            key = "flash.reason_required" if field == "reason" else "flash.bad_value"
            return self._refuse(request, lang, "bad_value", tr(key, field=field), 400)
        ctx = Context(self, session.user, lang, self.address(request))
        target = spec.target(values)
        params = {k: v for k, v in values.items() if k not in ("reason", "csv")}
        if "csv" in values:
            params["csv_lines"] = len(str(values["csv"]).splitlines())
        try:
            detail = await spec.run(ctx, values)
        except BadField as e:
            return self._refuse(
                request, lang, "bad_value", tr("flash.bad_value", field=str(e)), 400
            )
        except Refused as r:
            self.store.audit(
                session.user,
                name,
                target=target,
                reason=values.get("reason", ""),
                params=params,
                outcome="refused",
                detail=r.detail or r.message,
                address=ctx.address,
            )
            return self._refuse(request, lang, r.code, r.message, r.status)
        what = (
            tr(f"act.{name}")
            + (f" · {target}" if target else "")
            + (f" ({detail})" if detail else "")
        )
        message = tr("flash.done", what=what)
        if ctx.extra.get("conflict"):
            message = tr("flash.conflict_opened", match=values.get("match_id", ""))
        self.store.audit(
            session.user,
            name,
            target=target,
            reason=values.get("reason", ""),
            params=params,
            outcome="ok",
            detail=str(detail or ""),
            address=ctx.address,
        )
        self.poller.poll()  # the grid shows the effect without waiting for the next period
        self._publish_tournament_version()
        if self.wants_json(request) or request.headers.get("x-csrf-token") is not None:
            return JSONResponse(
                {
                    "ok": True,
                    "message": message,
                    "detail": detail,
                    **{k: v for k, v in ctx.extra.items() if k != "published"},
                }
            )
        back = (
            _safe_next(form.get("next"))
            or _safe_next(request.headers.get("referer"), request.headers.get("host"))
            or path_for("director")
        )
        resp = RedirectResponse(back, status_code=303)
        _set_flash(resp, "ok", message)
        return resp

    # ── publishing ──────────────────────────────────────────────────────
    async def publish_static(self, tournament_id: str) -> str | None:
        """Write the static results into ``publish_dir`` (if set); returns the folder."""
        folder = self.settings.publish_dir
        if folder is None:
            return None
        data = await self.static_site(self.settings.language)
        target = Path(folder) / tournament_id
        target.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            z.extractall(target)
        return str(target)

    async def static_site(self, lang: str) -> bytes:
        from mesa.hub.web.exports import static_site

        return await static_site(self, lang)


class BackgroundServer:
    """The dashboard served by uvicorn on its own thread (the demo, ``mesa web``, browser tests).

    Signals stay with the caller's main thread, so Ctrl-C is handled once, by the caller.
    ``port=0`` picks a free port; :attr:`url` tells which.
    """

    def __init__(self, web: WebApp, host: str = "127.0.0.1", port: int = 0) -> None:
        import uvicorn

        self.web = web
        self.server = uvicorn.Server(
            uvicorn.Config(
                web.asgi(),
                host=host,
                port=port,
                log_level="warning",
                lifespan="on",
                timeout_graceful_shutdown=3,
            )
        )
        self.thread: threading.Thread | None = None
        self.url = ""

    def start(self, timeout: float = 15.0) -> BackgroundServer:
        self.thread = threading.Thread(target=self.server.run, name="mesa-web", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise ConfigError("the dashboard did not start (is the port free?)")
            time.sleep(0.02)
        host, port = self.server.servers[0].sockets[0].getsockname()[:2]
        self.url = f"http://{host}:{port}/"
        return self

    def stop(self) -> None:
        """End the event streams, then the server (open streams would hold it up)."""
        self.web.stopping.set()
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(10)
            self.thread = None


def _current(club: Club) -> Any:
    ts = sorted(club.tournaments.values(), key=lambda t: (t.held_on, t.id))
    open_ = [t for t in ts if t.phase != "closed"]
    return open_[-1] if open_ else (ts[-1] if ts else None)


def _jsonable(data: Any) -> Any:
    return json.loads(json.dumps(data, default=str))


async def _form(request: Request) -> dict[str, Any]:
    """The posted fields, from a urlencoded form or a JSON object (no multipart needed)."""
    body = await request.body()
    if len(body) > 1_000_000:
        return {}
    ctype = request.headers.get("content-type", "")
    if "application/json" in ctype:
        try:
            data = json.loads(body or b"{}")
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}
    try:
        pairs = urllib.parse.parse_qsl(body.decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError:
        return {}
    return dict(pairs)


def _safe_next(value: Any, host: str | None = None) -> str | None:
    """A local path to go back to; anything pointing elsewhere is dropped (open redirects).

    An absolute URL is accepted only on ``host`` (the Referer of our own pages).

    >>> _safe_next("/groups?lang=en"), _safe_next("//evil.example/x"), _safe_next("https://x/y")
    ('/groups?lang=en', None, None)
    >>> _safe_next("http://mesa.local/draw", host="mesa.local")
    '/draw'
    """
    if not isinstance(value, str) or not value:
        return None
    parts = urllib.parse.urlsplit(value)
    if (parts.scheme or parts.netloc) and (host is None or parts.netloc != host):
        return None
    path = parts.path or "/"
    if not path.startswith("/") or path.startswith("//"):
        return None
    return path + ("?" + parts.query if parts.query else "")


def _set_flash(resp: Response, level: str, text: str) -> None:
    payload = urllib.parse.quote(json.dumps({"level": level, "text": text}))
    resp.set_cookie(FLASH_COOKIE, payload, max_age=60, path="/", samesite="strict", httponly=True)


def _read_flash(request: Request) -> list[dict[str, str]]:
    raw = request.cookies.get(FLASH_COOKIE)
    if not raw:
        return []
    try:
        data = json.loads(urllib.parse.unquote(raw))
        return [{"level": str(data["level"]), "text": str(data["text"])[:1000]}]
    except (ValueError, KeyError, TypeError):
        return []
