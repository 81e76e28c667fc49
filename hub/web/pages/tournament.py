"""The tournament's pages, public and the director's: each handler reads the club on the desk's thread and returns a
:class:`~mesa.hub.web.site.Page` (its template and the data its JSON twin serves).

    pages = Pages(site)
    page = await pages.page_groups(request, "es")   # Page("groups.html", {...}, ...)

:meth:`Pages.endpoint` turns a handler into a Starlette endpoint (language, the director's
login for director pages, 404 for what does not exist: :mod:`~mesa.hub.web.pages.endpoint`);
:meth:`Pages.table` is the list the route table serves, each page with its ``.json`` twin.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from datetime import date
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from mesa.hub.web.http.paths import export_list
from mesa.hub.web.i18n import Translator
from mesa.hub.web.pages.cards import table_warning
from mesa.hub.web.pages.door_views import (
    door_counts,
    draw_undo_state,
    group_preview,
    knockout_preview,
)
from mesa.hub.web.pages.endpoint import page_endpoint
from mesa.hub.web.pages.enrolment import pending_view
from mesa.hub.web.pages.views import (
    RANKING_KINDS,
    bracket_view,
    conflict_view,
    final_view,
    groups_view,
    match_view,
    player_view,
    players_view,
    ranking_view,
    rating_chart,
    tournament_info,
)
from mesa.hub.web.site import Page, Site, current_tournament
from mesa.tournament.club import Club
from mesa.tournament.players import name_key


class Pages:
    """Every page handler of the dashboard, public and director's."""

    def __init__(self, site: Site) -> None:
        self.site = site

    def table(self) -> list[tuple[str, Callable[..., Any], bool]]:
        """(route name, handler, director only) for every page."""
        return [
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
            ("director_preview", self.page_draw_preview, True),
            ("director_enrolments", self.page_enrolments, True),
            ("director_table", self.page_director_table, True),
            ("director_match", self.page_director_match, True),
        ]

    def endpoint(self, handler: Callable[..., Any], director: bool) -> Callable[..., Any]:
        """``handler`` as a Starlette endpoint (:func:`~mesa.hub.web.pages.endpoint.page_endpoint`)."""
        return page_endpoint(self.site, handler, director)

    async def not_found(self, request: Request, exc: Exception) -> Response:
        return self.site.not_found_page(request, self.site.lang_of(request))

    # ── public pages ────────────────────────────────────────────────────
    async def page_live(self, request: Request, lang: str) -> Page:
        info = await self.site.read(lambda club: tournament_info(current_tournament(club), lang))
        data = {"tournament": info, **self.site.live_data()}
        return Page("live.html", data, "live", Translator(lang)("live.title"), refresh="")

    async def page_groups(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            return {
                "tournament": tournament_info(t, lang),
                "groups": [] if t is None else groups_view(t, lang),
            }

        return Page(
            "groups.html", await self.site.read(build), "groups", Translator(lang)("nav.groups")
        )

    async def page_draw(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            return {
                "tournament": tournament_info(t, lang),
                "bracket": None if t is None else bracket_view(t, "knockout", lang),
            }

        return Page(
            "draw.html", await self.site.read(build), "draw", Translator(lang)("draw.title")
        )

    async def page_draw_print(self, request: Request, lang: str) -> Page:
        paper = "A3" if request.query_params.get("paper", "A4").upper() == "A3" else "A4"
        kind = "consolation" if request.query_params.get("kind") == "consolation" else "knockout"

        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            return {
                "tournament": tournament_info(t, lang),
                "paper": paper,
                "kind": kind,
                "bracket": None if t is None else bracket_view(t, kind, lang),
            }

        return Page(
            "draw_print.html",
            await self.site.read(build),
            "draw",
            Translator(lang)("draw.printable"),
        )

    async def page_consolation(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            return {
                "tournament": tournament_info(t, lang),
                "bracket": None if t is None else bracket_view(t, "consolation", lang),
            }

        return Page(
            "consolation.html",
            await self.site.read(build),
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
            t = current_tournament(club)
            y = year or (t.held_on.year if t is not None else date.today().year)
            view = ranking_view(club, t, kind, lang, year=y, category=category)
            chart = None
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
                "chart": chart,
            }

        return Page(
            "rankings.html", await self.site.read(build), "rankings", Translator(lang)("rank.title")
        )

    async def page_players(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            return {"tournament": tournament_info(t, lang), "players": players_view(club, t, lang)}

        return Page(
            "players.html",
            await self.site.read(build),
            "players",
            Translator(lang)("players.title"),
        )

    async def page_player(self, request: Request, lang: str) -> Page:
        pid = request.path_params["id"].removesuffix(".json")

        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            view = player_view(club, t, pid, lang)
            history = [h["after"] for h in view["rating_history"]]
            return {
                "tournament": tournament_info(t, lang),
                "player": view,
                "chart": rating_chart([(view["name"], history)], lang),
            }

        data = await self.site.read(build)
        return Page(
            "player.html",
            data,
            "players",
            Translator(lang)("player.title", name=data["player"]["name"]),
        )

    async def page_final(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            return {
                "tournament": tournament_info(t, lang),
                "rows": [] if t is None or t.knockout is None else final_view(t, lang),
            }

        return Page(
            "final.html", await self.site.read(build), "final", Translator(lang)("final.title")
        )

    async def page_exports(self, request: Request, lang: str) -> Page:
        info = await self.site.read(lambda club: tournament_info(current_tournament(club), lang))
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
            t = current_tournament(club)
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
            conflicts = [] if t is None else [conflict_view(t, c) for c in t.open_conflicts()]
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

        data = await self.site.read(build)
        data.update(self.site.live_data())
        data["table_warnings"] = {c["id"]: table_warning(c, lang) for c in data["tables"]}
        data["enrolment"] = await self._enrolment(lang)
        return Page(
            "director/home.html", data, "director", Translator(lang)("dir.title"), refresh=""
        )

    async def page_director_tournament(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            checkins = {} if t is None else self.site.store.checkins(t.id)
            ranked = (
                set() if t is None else set(club.season.seeding_points(t.category, t.held_on))
            )
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
                    for e in sorted(t.entrants.values(), key=lambda e: name_key(e.name))
                ]
            )
            others = (
                []
                if t is None
                else [
                    {"id": p.id, "name": p.name, "ranked": p.id in ranked}
                    for p in sorted(club.registry, key=lambda p: name_key(p.name))
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
                "tables": [d["table"] for d in self.site.hub.tables()],
                "conflicts": [] if t is None else [conflict_view(t, c) for c in t.conflicts],
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
                "door": {} if t is None else door_counts(t, checkins),
                "ranked_waiting": sum(1 for p in ranked if t is not None and p not in t.entrants),
                "undo": {} if t is None else draw_undo_state(t),
                "knockout_preview": {} if t is None else knockout_preview(t),
            }

        return Page(
            "director/tournament.html",
            await self.site.read(build),
            "director_tournament",
            Translator(lang)("nav.tournament"),
        )

    async def page_draw_preview(self, request: Request, lang: str) -> Page:
        """The group draw before it counts: the groups a seed gives, who is left out."""
        try:
            seed = int(request.query_params.get("seed", ""))
        except ValueError:
            seed = secrets.randbelow(10**6)
        try:
            n_groups: int | None = int(request.query_params.get("groups", ""))
        except ValueError:
            n_groups = None
        seed = min(max(seed, 0), 10**9)

        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            if t is None or t.phase != "registration":
                return {"tournament": tournament_info(t, lang), "preview": None}
            present = self.site.store.checkins(t.id)
            return {
                "tournament": tournament_info(t, lang),
                "preview": group_preview(club, t, present, seed=seed, n_groups=n_groups),
            }

        return Page(
            "director/preview.html",
            await self.site.read(build),
            "director_tournament",
            Translator(lang)("preview.title"),
            refresh="",
        )

    async def _enrolment(self, lang: str) -> dict[str, Any]:
        configured = self.site.settings.enrolment_credentials
        return await asyncio.to_thread(pending_view, self.site.enrolment, lang, configured)

    async def page_enrolments(self, request: Request, lang: str) -> Page:
        """ "Mesa nueva" alone: the director's home refetches it when a Pi announces itself."""
        data = {"enrolment": await self._enrolment(lang)}
        return Page(
            "director/enrolments.html",
            data,
            "director",
            Translator(lang)("enrol.title"),
            refresh="",
        )

    async def page_audit(self, request: Request, lang: str) -> Page:
        entries = [e.to_dict() for e in self.site.store.audit_log(limit=1000)]
        return Page(
            "director/audit.html",
            {"entries": entries},
            "director_audit",
            Translator(lang)("dir.audit_title"),
            refresh="",
        )

    async def page_director_table(self, request: Request, lang: str) -> Page:
        table = request.path_params["id"].removesuffix(".json")
        card = next((c for c in self.site.poller.current() if c["id"] == table), None)
        if card is None:
            raise KeyError(table)
        commands = await asyncio.to_thread(self.site.hub.store.commands, table, 50)
        stale = await self.site.read(lambda club: self.site.desk.stale_hold(table))
        hold = None if stale is None else {"match_id": stale[0], "why": stale[1]}
        return Page(
            "director/table.html",
            {"table": card, "commands": commands, "stale": hold},
            "director",
            Translator(lang)("live.table", id=table),
            refresh="",
        )

    async def page_director_match(self, request: Request, lang: str) -> Page:
        mid = request.path_params["id"].removesuffix(".json")
        cards = self.site.poller.current()

        def build(club: Club) -> dict[str, Any]:
            t = current_tournament(club)
            if t is None:
                raise KeyError(mid)
            m = t.match(mid)
            return {
                "tournament": tournament_info(t, lang),
                "match": match_view(t, m, lang),
                "tables": [d["table"] for d in self.site.hub.tables()],
                "conflicts": [conflict_view(t, c) for c in t.conflicts if c.match_id == mid],
                # Tables still holding this match although it is not theirs to play.
                "stale_tables": [
                    {"table": c["id"], "why": stale[1]}
                    for c in cards
                    if c.get("match_id") == mid
                    and (stale := self.site.desk.stale_hold(c["id"])) is not None
                    and stale[0] == mid
                ],
            }

        data = await self.site.read(build)
        by_id = {c["id"]: c for c in self.site.poller.current()}
        # every table the hub knows, also one that never spoke (marked offline, not hidden)
        data["tables"] = sorted(set(data["tables"]) | set(by_id))
        data["table_warnings"] = {
            tb: table_warning(by_id.get(tb), lang) for tb in data["tables"]
        }
        return Page(
            "director/match.html",
            data,
            "director_tournament",
            Translator(lang)("live.match", id=mid),
        )

    async def healthz(self, request: Request) -> Response:
        return JSONResponse(
            {
                "ok": True,
                "hub_online": bool(getattr(self.site.hub, "online", False)),
                "tables": len(self.site.poller.cards),
                "tournament_version": self.site.tournament_version,
            }
        )
