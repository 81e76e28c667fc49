"""The route table: every URL of the dashboard and the handler that answers it.

Each page ``/x`` is served with its JSON twin ``/x.json`` (``/`` with ``/index.json``).

>>> [r.path for r in page_routes([("groups", lambda request, lang: None, False)], None)]
['/groups', '/groups.json']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from mesa.hub.web.actions import ActionEndpoint
from mesa.hub.web.callpages import CallPages
from mesa.hub.web.exports import Exports
from mesa.hub.web.first_run import FirstRun
from mesa.hub.web.login import Login
from mesa.hub.web.pages import Pages
from mesa.hub.web.paths import ROUTE_PATHS, STATIC
from mesa.hub.web.sse import stream


def page_routes(
    table: list[tuple[str, Callable[..., Any], bool]], endpoint: Any
) -> list[BaseRoute]:
    """A route and its ``.json`` twin for each ``(name, handler, director only)``; ``endpoint``
    wraps a handler (:meth:`Pages.endpoint`), None keeps it as is (for the doctest)."""
    routes: list[BaseRoute] = []
    for name, handler, director in table:
        ep = handler if endpoint is None else endpoint(handler, director)
        path = ROUTE_PATHS[name]
        routes.append(Route(path, ep, name=name))
        twin = "/index.json" if path == "/" else path + ".json"
        routes.append(Route(twin, ep, name=name + "_json"))
    return routes


def routes(
    pages: Pages, login: Login, actions: ActionEndpoint, exports: Exports, first_run: FirstRun
) -> list[BaseRoute]:
    calls = CallPages(pages.site)
    return [
        # The call pages first: ``/players/qr`` must not be taken for a player's id.
        Route(ROUTE_PATHS["player_qr"], calls.qr, name="player_qr"),
        *page_routes(calls.table(), pages.endpoint),
        Route(ROUTE_PATHS["first_run"], first_run.form, methods=["GET"], name="first_run"),
        Route(ROUTE_PATHS["first_run"], first_run.post, methods=["POST"]),
        *page_routes(pages.table(), pages.endpoint),
        Route("/login", login.form, methods=["GET"], name="login"),
        Route("/login.json", login.form, methods=["GET"], name="login_json"),
        Route("/login", login.post, methods=["POST"]),
        Route("/logout", login.logout, methods=["POST"], name="logout"),
        Route("/lang/{code}", login.set_language, name="lang"),
        Route("/events", stream, name="events"),
        Route("/director/actions/{name}", actions.action, methods=["POST"], name="action"),
        Route("/healthz", pages.healthz, name="healthz"),
        *exports.routes(),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
