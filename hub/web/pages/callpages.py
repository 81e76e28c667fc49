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

from mesa.hub.web.events import chosen_event, open_events
from mesa.hub.web.http.paths import path_for
from mesa.hub.web.i18n import Translator
from mesa.hub.web.pages.calls import (
    call_board_all,
    next_match_all,
    other_games,
    players_for_qr,
    qr_svg,
)
from mesa.hub.web.pages.views import tournament_info
from mesa.hub.web.site import Page, Site
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
        """Every open event's calls (the tables are shared); ``?t=``: that event's only."""
        cards = self.site.poller.current()
        venue = self.site.desk.venue
        seats = list(venue.busy(besides="backgammon").values())

        def build(club: Club) -> dict[str, Any]:
            t = chosen_event(club, request)
            named = request.query_params.get("t")
            events = [t] if named and t is not None else (open_events(club) or ([t] if t else []))
            board = call_board_all(events, cards, lang)
            et = self.site.desk.evening_time()
            for c in board["next"]:  # when each should start, by the forecast
                fc = et.match(c["event"]["id"], c["id"])
                c["expected"] = None if fc is None else fc["start"]
            # the other games' tables (the domino room), as the venue knows them
            names = club.names()
            return {
                "tournament": tournament_info(t, lang),
                **board,
                "other_games": [] if named else other_games(seats, names),
                # each event's header, for its forecast ("la final, hacia las 23:40")
                "sections": [{"tournament": tournament_info(e, lang)} for e in events],
            }

        return Page(
            "calls.html", await self.site.read(build), "calls", Translator(lang)("calls.title"),
            refresh="",
        )  # fmt: skip

    async def page_player_next(self, request: Request, lang: str) -> Page:
        """The player's next match in whichever open event holds it (the last closed one when
        none is open); where the domino room seats them, when it does."""
        pid = request.path_params["id"]
        cards = self.site.poller.current()
        venue = self.site.desk.venue
        seat = venue.busy(besides="backgammon").get(pid)
        elsewhere = None if seat is None else {
            "table": seat.table, "event": seat.event, "event_name": seat.event_name,
            "game": seat.game,
        }  # fmt: skip

        def build(club: Club) -> dict[str, Any]:
            events = open_events(club)
            if not any(pid in t.entrants for t in events):
                # in no open event: the newest one they played (a champion of an event closed
                # tonight), else only where another game seats them (a domino-only player)
                theirs = sorted((t for t in club.tournaments.values() if pid in t.entrants),
                                key=lambda t: (t.held_on, t.id))  # fmt: skip
                if not theirs:
                    if pid not in club.registry:
                        raise KeyError(pid)
                    return {"tournament": None, "match_event": None, "match": None,
                            "last": None, "out": False, "others": [], "elsewhere": elsewhere,
                            "player": {"id": pid, "name": club.registry.get(pid).name}}  # fmt: skip
                events = theirs[-1:]
            view = next_match_all(events, pid, cards, lang, elsewhere)
            shown = club.tournaments[view["match_event"]["id"]]
            m = view.get("match")
            if m and m.get("status") in ("waiting", "ready", "assigned"):
                view["expected"] = self.site.desk.evening_time().match(shown.id, m["id"])
            return {"tournament": tournament_info(shown, lang), **view}

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
            t = chosen_event(club, request)
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
        is not a player of the club (a domino-only player, a champion of an event closed
        tonight have their page too)."""
        pid = request.path_params["id"]

        def known(club: Club) -> bool:
            return pid in club.registry

        if not await self.site.read(known):
            return Response(status_code=404)
        url = str(request.base_url).rstrip("/") + path_for("player_next", id=pid)
        return Response(qr_svg(url), media_type="image/svg+xml")
