"""A page handler made a Starlette endpoint, the same for every page of every game: the reader's
language, the director's login for a director's page (:func:`~mesa.hub.web.http.guard.login_needed`),
404 for what does not exist, then the page or its JSON twin (:meth:`~mesa.hub.web.site.Site.respond`).

    Route("/groups", page_endpoint(site, pages.page_groups, director=False))

Each page ``/x`` is served with its JSON twin ``/x.json`` (``/`` with ``/index.json``):

>>> [r.path for r in page_routes([("groups", lambda request, lang: None, False)], None)]
['/groups', '/groups.json']
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mesa.hub.web.http.guard import login_needed
from mesa.hub.web.http.paths import ROUTE_PATHS
from mesa.hub.web.site import Page, Site
from mesa.tournament.errors import TournamentError

# The engine's refusals that mean "no such thing" (a page for it is a 404, not an error).
NOT_FOUND_CODES = ("unknown_player", "unknown_match", "unknown_tournament")

Handler = Callable[[Request, str], Awaitable[Page]]


def page_endpoint(
    site: Site, handler: Handler, director: bool
) -> Callable[[Request], Awaitable[Response]]:
    """See the module docstring."""

    async def endpoint(request: Request) -> Response:
        lang = site.lang_of(request)
        if director:
            answer = login_needed(site, request, lang)
            if answer is not None:
                return answer
        try:
            page = await handler(request, lang)
        except (KeyError, TournamentError) as e:
            if isinstance(e, TournamentError) and e.code not in NOT_FOUND_CODES:
                raise
            return site.not_found_page(request, lang)
        return site.respond(request, page, lang)

    return endpoint


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
