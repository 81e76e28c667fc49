"""The pages that tell players where to go: the call board (``/llamadas``, for a big screen),
each player's next match (``/players/{id}/next``, for a phone) and the printable list of
players with a QR code to that page (``/players/qr``). Each has its JSON twin.

>>> [name for name, _, director in CallPages(None).table()]  # type: ignore[arg-type]
['calls', 'players_qr', 'player_next']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from mesa.hub.web.http.paths import path_for
from mesa.hub.web.i18n import Translator
from mesa.hub.web.pages.calls import call_board_view, next_match_view, players_for_qr, qr_svg
from mesa.hub.web.pages.views import tournament_info
from mesa.hub.web.site import Page, Site, current_tournament
from mesa.tournament.club import Club


class CallPages:
    """Page handlers; the routes come from :meth:`table` like :class:`Pages`'."""

    def __init__(self, site: Site) -> None:
        self.site = site

    def table(self) -> list[tuple[str, Callable[..., Any], bool]]:
        # ``players_qr`` before ``player_next``, and both before ``/players/{id}``.
        return [
            ("calls", self.page_calls, False),
            ("players_qr", self.page_players_qr, False),
            ("player_next", self.page_player_next, False),
        ]

    async def page_calls(self, request: Request, lang: str) -> Page:
        cards = self.site.poller.current()

        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            board = (
                {"calls": [], "playing": [], "next": [], "waiting": 0}
                if t is None
                else call_board_view(t, cards, lang)
            )
            return {"tournament": tournament_info(t, lang), **board}

        return Page(
            "calls.html", await self.site.read(build), "calls", Translator(lang)("calls.title"),
            refresh="",
        )  # fmt: skip

    async def page_player_next(self, request: Request, lang: str) -> Page:
        pid = request.path_params["id"]
        cards = self.site.poller.current()

        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            return {
                "tournament": tournament_info(t, lang),
                **next_match_view(t, pid, cards, lang),
            }

        data = await self.site.read(build)
        return Page(
            "next.html",
            data,
            "players",
            Translator(lang)("next.title", name=data["player"]["name"]),
            refresh="",
        )

    async def page_players_qr(self, request: Request, lang: str) -> Page:
        base = str(request.base_url).rstrip("/")

        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            players = []
            for p in players_for_qr(t):
                url = base + path_for("player_next", id=p["id"])
                # The code is an image of its own (never markup pasted into the page).
                players.append({**p, "url": url, "qr": path_for("player_qr", id=p["id"])})
            return {"tournament": tournament_info(t, lang), "players": players}

        return Page(
            "players_qr.html",
            await self.site.read(build),
            "players",
            Translator(lang)("qr.title"),
            refresh="",
        )

    async def qr(self, request: Request) -> Response:
        """A player's QR code (SVG) leading to their "mi próxima partida"; 404 for an id that
        is not a player of the current tournament."""
        pid = request.path_params["id"]

        def known(club: Club) -> bool:
            t = current_tournament(club)
            return t is not None and pid in t.entrants

        if not await self.site.read(known):
            return Response(status_code=404)
        url = str(request.base_url).rstrip("/") + path_for("player_next", id=pid)
        return Response(qr_svg(url), media_type="image/svg+xml")
