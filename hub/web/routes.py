"""The route table: every URL of the dashboard and the handler that answers it.

Each page ``/x`` is served with its JSON twin ``/x.json`` (``/`` with ``/index.json``, see
:func:`~mesa.hub.web.pages.endpoint.page_routes`); each game adds its own pages and actions
(:mod:`~mesa.hub.web.games`).
"""

from __future__ import annotations

from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from mesa.hub.web.actions.endpoint import ActionEndpoint
from mesa.hub.web.http.enrol import HELLO_PATH, EnrolEndpoint
from mesa.hub.web.http.first_run import FirstRun
from mesa.hub.web.http.login import Login
from mesa.hub.web.http.paths import ROUTE_PATHS, STATIC
from mesa.hub.web.http.sse import stream
from mesa.hub.web.pages.callpages import CallPages
from mesa.hub.web.pages.endpoint import page_routes
from mesa.hub.web.pages.exports import Exports
from mesa.hub.web.pages.tournament import Pages


def routes(
    pages: Pages, login: Login, actions: ActionEndpoint, exports: Exports, first_run: FirstRun
) -> list[BaseRoute]:
    calls = CallPages(pages.site)
    enrol = EnrolEndpoint(pages.site)
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
        # New tables' Pis calling the hub (no login: the venue's enrolment token).
        Route(HELLO_PATH, enrol.hello, methods=["POST"], name="enrol_hello"),
        *exports.routes(),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
