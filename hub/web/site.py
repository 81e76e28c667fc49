"""What every part of the dashboard shares: the hub, the tournament desk, the web store, the live
feed, the settings, the clock, the templates, and how a :class:`Page` becomes a response.

The route handlers (:mod:`~mesa.hub.web.pages`, :mod:`~mesa.hub.web.http.login`,
:mod:`~mesa.hub.web.actions.endpoint`, :mod:`~mesa.hub.web.http.sse`, each game's
:mod:`~mesa.hub.web.games`) each take a :class:`Site`; :mod:`mesa.hub.web.app` builds one and
wires them together.

>>> current_tournament(type("Club", (), {"tournaments": {}})()) is None
True
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from mesa.hub.desk.games.backgammon import TournamentDesk
from mesa.hub.ingest.ports import HubPort
from mesa.hub.settings import HubSettings
from mesa.hub.web.events import default_event, label_for
from mesa.hub.web.http.paths import ROUTE_PATHS, STATIC_PAGES, TEMPLATES, path_for
from mesa.hub.web.http.request import wants_json
from mesa.hub.web.http.response import (
    FLASH_COOKIE,
    LANG_COOKIE,
    SESSION_COOKIE,
    jsonable,
    read_flash,
    set_lang_cookie,
)
from mesa.hub.web.http.store import WebStore
from mesa.hub.web.http.stream_slots import StreamSlots
from mesa.hub.web.i18n import LANGUAGE_NAMES, LANGUAGES, Translator, format_clock, pick_language
from mesa.hub.web.live import LiveFeed, LivePoller, summarize
from mesa.hub.web.timing import add_forecasts, table_labels
from mesa.metrics import Metrics
from mesa.tournament.club import Club


@dataclass
class Page:
    """What a handler returns: the template, its data (also the JSON twin), and page facts."""

    template: str
    data: dict[str, Any]
    section: str
    title: str
    refresh: str = "tournament"
    status: int = 200
    # What only the HTML needs (the director's event switcher), not the JSON twin.
    context: dict[str, Any] = field(default_factory=dict)


def current_tournament(club: Club) -> Any:
    """The tournament a page without ``t`` shows (:func:`~mesa.hub.web.events.default_event`)."""
    return default_event(club)


# The routes whose links keep the event the page is about (``?t=``); the others (the login,
# the audit log, the call board and a player's next match, which span every event) do not.
# Seconds between two reads of the cards' labels when nothing changed: a match's pace moves.
PACE_REFRESH_S = 30.0

EVENT_ROUTES = frozenset(
    {
        "home", "live", "groups", "draw", "draw_print", "consolation", "rankings", "players",
        "player", "final", "exports", "director", "director_tournament", "director_preview",
        "director_table", "director_match", "action", "export",
    }
)  # fmt: skip


def template_env(low_time: float) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(format_clock=format_clock, path_for=path_for, low_time=low_time)
    return env


@dataclass
class Site:
    """The dashboard's shared state. Only the event loop's thread touches :attr:`feed`."""

    hub: HubPort
    desk: TournamentDesk
    store: WebStore
    settings: HubSettings
    feed: LiveFeed
    poller: LivePoller
    clock: Callable[[], float] = time.time
    env: jinja2.Environment = field(default_factory=lambda: template_env(60.0))
    stopping: threading.Event = field(default_factory=threading.Event)
    stream_generation: int = 0  # bumped by drop_streams(): every open stream ends
    streams: StreamSlots = field(default_factory=StreamSlots)
    metrics: Metrics = field(default_factory=Metrics)
    # The hub's EnrolmentDesk ("Mesa nueva"), None when enrolment_credentials is not set.
    enrolment: Any = None
    # The hub's CertificateKeeper (mesa.hub.broker.tls): the CA's end, a failed renewal.
    tls: Any = None
    _enrolment_version: int = 0
    _bumps: int = 0
    _tv_published: int = -1
    # Table → the event whose match it holds (read on the desk's thread when the tournament's
    # version changes; the cards carry it, see :meth:`event_at`).
    event_labels: dict[str, dict[str, Any]] = field(default_factory=dict)
    _labels_at: float = 0.0

    def __post_init__(self) -> None:
        self.poller.label = self.event_at

    def event_at(self, table: str, card: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """The event a table serves now: another game's seat there (the venue), else the
        backgammon match the desk gave it; a domino table without one says its game."""
        for seat in self.desk.venue.busy(besides="backgammon").values():
            if seat.table == table:
                return {"id": seat.event, "name": seat.event_name, "category": "",
                        "game": seat.game}  # fmt: skip
        label = label_for(card, self.event_labels.get(table))
        if label is None and card is not None and card.get("kind") == "domino":
            return {"id": "", "name": "", "category": "", "game": "domino"}
        return label

    def set_event_labels(self, labels: dict[str, dict[str, Any]]) -> None:
        """New table labels (event loop): the cards whose label changed are sent again."""
        changed = {k for k in set(labels) | set(self.event_labels)
                   if labels.get(k) != self.event_labels.get(k)}  # fmt: skip
        self.event_labels = labels
        if changed:
            self.poller.relabel(changed)
            self.poller.poll()

    def _read_labels(self) -> None:
        """Read the table labels on the desk's thread; applied back on this loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._labels_at = time.monotonic()
        desk = self.desk
        future = desk.submit_read(lambda club: table_labels(club, desk.evening_time()))

        def done(f: Any) -> None:
            if f.cancelled() or f.exception() is not None:
                return
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self.set_event_labels, f.result())

        future.add_done_callback(done)

    # ── the tournament's version (pages refetch when it changes) ──
    def bump(self) -> None:
        """Something the pages show changed outside the desk (a check-in)."""
        self._bumps += 1

    @property
    def tournament_version(self) -> int:
        return self.desk.version * 1000 + self._bumps

    def publish_tournament_version(self) -> None:
        v = self.tournament_version
        if v != self._tv_published:
            self._tv_published = v
            self.feed.publish("tournament", "current", {"version": v})
            self._read_labels()
        elif time.monotonic() - self._labels_at >= PACE_REFRESH_S:
            self._read_labels()  # a match's pace moves with the clock, not only with events

    def publish_enrolment(self) -> None:
        """The pending tables changed: the feed says how many (the director's page refetches
        the list; the public feed learns only the count). Event loop only."""
        if self.enrolment is None:
            return
        self._enrolment_version += 1
        count = len(self.enrolment.pending())
        self.feed.publish(
            "enrolment", "pending", {"count": count, "version": self._enrolment_version}
        )

    def refresh_live(self) -> None:
        """Publish the cards that changed and the tournament's version (event loop only)."""
        self.poller.poll()  # its ``extra`` publishes the tournament's version

    # ── who is asking ──
    def lang_of(self, request: Request) -> str:
        return pick_language(
            request.query_params.get("lang"),
            request.cookies.get(LANG_COOKIE),
            self.settings.language,
        )

    def session_of(self, request: Request) -> Any:
        return self.store.session(request.cookies.get(SESSION_COOKIE))

    async def read(self, fn: Callable[[Club], Any]) -> Any:
        """``fn(club)`` on the desk's thread (a page never sees half an action); every
        tournament header in what it returns gets its event's forecast."""
        def run(club: Club) -> Any:
            out = fn(club)
            add_forecasts(out, self.desk.evening_time)
            return out

        return await asyncio.wrap_future(self.desk.submit_read(run))

    def live_data(self) -> dict[str, Any]:
        cards = self.poller.current()
        return {"tables": cards, "summary": summarize(cards), "now": self.clock()}

    # ── rendering ──
    def base_context(
        self,
        request: Request | None,
        lang: str,
        *,
        section: str,
        title: str,
        refresh: str = "",
        static_site: bool = False,
        event: str | None = None,
    ) -> dict[str, Any]:
        """``event``: the event the page is about (the links keep it); by default the
        request's ``t``."""
        session = self.session_of(request) if request is not None else None
        query = dict(request.query_params) if request is not None else {}
        event = event or query.get("t") or None
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
            if event and route in EVENT_ROUTES and "t" not in params:
                params["t"] = event
            return path_for(route, **params)

        def event_url(tid: str | None) -> str:
            """This page for another event (a match's page: that event's tournament page);
            None: this page for no event in particular (every open one)."""
            here = path if path.startswith("/director") or path in ROUTE_PATHS.values() else "/"
            if here.startswith("/director/matches/") or here.startswith("/director/tables/"):
                here = path_for("director_tournament")
            rest = {k: v for k, v in query.items() if k not in ("t", "lang")}
            if tid is not None:
                rest["t"] = tid
            return here + ("?" + urllib.parse.urlencode(rest) if rest else "")

        def lang_url(code: str) -> str:
            if static_site:
                return "#"
            rest = {k: v for k, v in query.items() if k != "lang"}
            back = path + ("?" + urllib.parse.urlencode(rest) if query else "")
            return path_for("home").rstrip("/") + f"/lang/{code}?next=" + urllib.parse.quote(back)

        def static_url(name: str) -> str:
            return name if static_site else f"/static/{name}"

        director = session is not None and section.startswith("director")
        return {
            "_": Translator(lang),
            "lang": lang,
            "languages": [(c, LANGUAGE_NAMES[c]) for c in LANGUAGES],
            "user": None if session is None else session.user,
            "csrf": None if session is None else session.csrf,
            "section": section,
            "page_title": title,
            "refresh": refresh,
            "server_now": self.clock(),
            "stream_url": ""
            if static_site
            else path_for("events", lang=lang, mode="director" if director else None),
            "tournament_version": self.tournament_version,
            "json_url": json_url,
            "url": url,
            "event_url": event_url,
            "event_id": event,
            "event_switch": [],  # the director's switcher (a page's own "events" are its own)
            "switch_all": False,
            "switch_all_here": False,
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
            return JSONResponse(jsonable(page.data), status_code=page.status)
        info = page.data.get("tournament")
        # a director's page about one event keeps it even when the address named none; the
        # grid of every event ("Todos") pins none
        director = page.section.startswith("director") and not page.context.get("switch_all_here")
        ctx = self.base_context(
            request, lang, section=page.section, title=page.title, refresh=page.refresh,
            event=(info or {}).get("id") if director and isinstance(info, dict) else None,
        )  # fmt: skip
        ctx.update(page.context)
        ctx["flashes"] = read_flash(request)
        ctx["fragment"] = request.headers.get("x-mesa-fragment") == "main"
        ctx.update(page.data)
        ctx["data"] = page.data
        resp = HTMLResponse(self.render(page.template, ctx), status_code=page.status)
        if ctx["flashes"]:
            resp.delete_cookie(FLASH_COOKIE, path="/")
        if request.query_params.get("lang") in LANGUAGES:
            self.set_lang_cookie(resp, request.query_params["lang"])
        return resp

    def set_lang_cookie(self, resp: Response, lang: str) -> None:
        set_lang_cookie(resp, lang, secure=self.settings.secure_cookies)

    def not_found_page(self, request: Request, lang: str) -> Response:
        tr = Translator(lang)
        if wants_json(request):
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
