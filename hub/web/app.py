"""The hub's web app: the director's dashboard, the players' public view, and their JSON twins.

This module only puts the pieces together: the shared state (:mod:`~mesa.hub.web.site`), the
pages (:mod:`~mesa.hub.web.pages`), the login (:mod:`~mesa.hub.web.http.login`), the
director's actions (:mod:`~mesa.hub.web.actions`) as each game declares them
(:mod:`~mesa.hub.web.games`), the exports (:mod:`~mesa.hub.web.pages.exports`), the live feed
(:mod:`~mesa.hub.web.live`, :mod:`~mesa.hub.web.http.sse`) and the route table
(:mod:`~mesa.hub.web.routes`). Tested in-process through ``httpx.ASGITransport``::

    web = WebApp(hub, HubSettings(director_password="secret"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(web.asgi()), base_url="http://m") as c:
        (await c.get("/groups.json")).json()

While the server runs, the live feed is driven by the ingest: after each commit the hub calls
:meth:`WebApp.on_commit` (on the committing thread), which hands the news to the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp

from mesa.hub.desk.games.backgammon import TournamentDesk
from mesa.hub.desk.games.domino import DominoDesk
from mesa.hub.desk.make import make_desk
from mesa.hub.ingest.ports import Commit, HubPort
from mesa.hub.settings import HubSettings
from mesa.hub.web.actions.door import DOOR_ACTIONS
from mesa.hub.web.actions.endpoint import ActionEndpoint
from mesa.hub.web.actions.registry_admin import REGISTRY_ACTIONS
from mesa.hub.web.games.backgammon import ACTIONS
from mesa.hub.web.games.domino import DominoPages
from mesa.hub.web.http.body_limit import MAX_BODY_BYTES, BodyLimit
from mesa.hub.web.http.first_run import FirstRun
from mesa.hub.web.http.headers import SecurityHeaders
from mesa.hub.web.http.login import Login
from mesa.hub.web.http.store import WebStore
from mesa.hub.web.live import LiveFeed, LivePoller
from mesa.hub.web.pages.exports import Exports
from mesa.hub.web.pages.tournament import Pages
from mesa.hub.web.routes import routes
from mesa.hub.web.site import Site, template_env
from mesa.metrics import Metrics

log = logging.getLogger("mesa.web")

# Only for what changes with time alone, not with an event: the cards' "silent for", lateness
# and low-time badges, a table whose link went quiet. Everything an event changes is pushed at
# once by on_commit.
TICK_SECONDS = 1.0


class _WithSecurityHeaders(Starlette):
    """Starlette with the security headers outside everything, its own 500 page included."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())


class WebApp:
    """The dashboard around a hub. See the module docstring.

    ``settings`` defaults to the hub's; ``desk`` to a new desk (then the web app owns it: it
    wakes it after each commit while serving, and closes it). ``enrolment`` is the running
    :class:`~mesa.hub.broker.enrolment.EnrolmentDesk` (None: no "Mesa nueva"; the caller owns it).
    """

    site: Site

    def __init__(
        self,
        hub: HubPort,
        settings: HubSettings | None = None,
        *,
        desk: TournamentDesk | None = None,
        domino: DominoDesk | None = None,
        store: WebStore | None = None,
        enrolment: Any = None,
        clock: Callable[[], float] = time.time,
        now: Callable[[], datetime] = datetime.now,
    ) -> None:
        settings = settings or hub.settings
        self.hub = hub
        self.owns_desk = desk is None
        desk = desk or make_desk(hub, settings, now=now, wall=clock)
        store = store or WebStore(hub.settings.db, session_hours=settings.session_hours, now=clock)
        feed = LiveFeed()
        poller = LivePoller(
            hub,
            feed,
            rate=settings.time_scale,
            low_time=settings.low_time,
            clock=clock,
            # each round also announces a new tournament version (pages refetch)
            extra=lambda: self.site.publish_tournament_version(),
        )
        self.site = Site(
            hub=hub,
            desk=desk,
            store=store,
            settings=settings,
            feed=feed,
            poller=poller,
            clock=clock,
            env=template_env(settings.low_time),
            metrics=hub.metrics
            if isinstance(getattr(hub, "metrics", None), Metrics)
            else Metrics(),
            enrolment=enrolment,
        )
        poller.metrics = self.site.metrics
        self.pages = Pages(self.site)
        self.login = Login(self.site)
        self.exports = Exports(self.site, self.pages)
        self.actions = ActionEndpoint(
            self.site,
            self.exports.publish_static,
            actions={**ACTIONS, **DOOR_ACTIONS, **REGISTRY_ACTIONS},
        )
        self.owns_domino = domino is None
        # One venue for every game's desk: a player seated at one game's table is busy for
        # the others (RULES §4: never called to two tables at once).
        self.domino = domino or DominoDesk(
            hub.settings.db, hub=hub, wall=clock, now=now, language=settings.language,
            command_wait=settings.command_wait, venue=desk.venue,
        )
        self.domino_pages = DominoPages(self.site, self.domino)
        if settings.director_password:
            store.set_password(settings.director, settings.director_password)
        self.first_run = FirstRun(self.site)
        self._app: Starlette | None = None
        self.loop: asyncio.AbstractEventLoop | None = None  # the server's, once it runs

    # ── what the parts share, for the callers (demo, tests) ──
    @property
    def desk(self) -> TournamentDesk:
        return self.site.desk

    @property
    def store(self) -> WebStore:
        return self.site.store

    @property
    def poller(self) -> LivePoller:
        return self.site.poller

    @property
    def feed(self) -> LiveFeed:
        return self.site.feed

    @property
    def stopping(self) -> threading.Event:
        return self.site.stopping

    @property
    def settings(self) -> HubSettings:
        return self.site.settings

    @settings.setter
    def settings(self, value: HubSettings) -> None:
        self.site.settings = value

    @property
    def tournament_version(self) -> int:
        return self.site.tournament_version

    def bump(self) -> None:
        self.site.bump()

    # ── lifecycle ──
    def asgi(self) -> Starlette:
        if self._app is None:
            self._app = _WithSecurityHeaders(
                routes=[
                    *self.domino_pages.routes(),
                    *routes(self.pages, self.login, self.actions, self.exports, self.first_run),
                ],
                lifespan=self.lifespan,
                exception_handlers={404: self._not_found},
                middleware=[
                    Middleware(
                        BodyLimit,
                        max_bytes=MAX_BODY_BYTES,
                        on_refused=lambda: self.site.metrics.inc("web_body_refused"),
                    ),
                ],
            )
            self._app.state.site = self.site
        return self._app

    async def _not_found(self, request: Request, exc: Exception) -> Response:
        return await self.pages.not_found(request, exc)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self.loop = asyncio.get_running_loop()
        self.site.desk.on_change.append(self._desk_changed)
        self.hub.ingest.listeners.append(self.on_commit)
        enrolment = self.site.enrolment
        if enrolment is not None:
            enrolment.listeners.append(self._enrolment_changed)
        ticker = asyncio.create_task(self._tick(TICK_SECONDS))
        self.site.refresh_live()
        if self.owns_desk:
            self.site.desk.wake()  # events committed before the server started
        if self.owns_domino:
            self.domino.wake()
        try:
            yield
        finally:
            self.hub.ingest.listeners.remove(self.on_commit)
            if enrolment is not None:
                enrolment.listeners.remove(self._enrolment_changed)
            self.site.desk.on_change.remove(self._desk_changed)
            ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticker
            self.loop = None

    def on_commit(self, commit: Commit) -> None:
        """The ingest committed (any thread): hand the desks its events (folded as committed,
        not read back from SQLite), refresh the grid on the loop."""
        if self.owns_desk:
            self.site.desk.wake(commit.rows)
        if self.owns_domino:
            self.domino.wake(commit.rows)
        self.site.poller.committed(commit)  # the snapshots it validated: read once, not again
        self._on_loop(self.site.refresh_live)

    def _enrolment_changed(self) -> None:
        """A new table announced itself or was adopted (paho's thread): tell the browsers."""
        self._on_loop(self.site.publish_enrolment)

    def _desk_changed(self) -> None:
        self._on_loop(self.site.publish_tournament_version)

    def _on_loop(self, fn: Callable[[], None]) -> None:
        loop = self.loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._safely, fn)

    @staticmethod
    def _safely(fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception:  # a bad row must not stop the dashboard
            log.exception("live update failed")

    async def _tick(self, period: float) -> None:
        """The slow clock for time-only changes (see TICK_SECONDS)."""
        while True:
            await asyncio.sleep(period)
            self._safely(self.site.refresh_live)

    def close(self) -> None:
        """Stop streams and close the desk (if ours) and the store (the hub is the caller's)."""
        self.site.stopping.set()
        if self.owns_desk:
            self.site.desk.close()
        if self.owns_domino:
            self.domino.close()
        self.site.store.close()

    def drop_streams(self) -> None:
        """End every open event stream (browsers reconnect and catch up); for tests and
        for a hub that is about to restart its web server."""
        self.site.stream_generation += 1
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # another thread: the streams notice within a second anyway
        self.site.feed.wake()
