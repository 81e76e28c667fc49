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
import urllib.parse
from collections.abc import Callable
from datetime import date
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from mesa.hub.web.events import (
    chosen_event,
    event_label,
    event_param,
    label_for,
    open_events,
    seats_elsewhere,
    shown_events,
    switcher,
)
from mesa.hub.web.http.paths import export_list
from mesa.hub.web.i18n import Translator
from mesa.hub.web.i18n import text as tr
from mesa.hub.web.pages.cards import table_choice, table_warning
from mesa.hub.web.pages.door_views import (
    door_counts,
    draw_undo_state,
    group_preview,
    knockout_preview,
)
from mesa.hub.web.pages.endpoint import page_endpoint
from mesa.hub.web.pages.enrolment import pending_view
from mesa.hub.web.pages.registry_page import page_registry
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
from mesa.hub.web.site import Page, Site
from mesa.hub.web.timing import pace_view, table_labels
from mesa.tournament.club import Club
from mesa.tournament.matches import iso
from mesa.tournament.players import name_key
from mesa.tournament.tournament import Tournament

# A public page's sections: one per event it shows (several open events and no ``t``).
Part = Callable[[Tournament], dict[str, Any]]


def waiting_reason(
    t: Tournament, m: Any, seats: dict[str, dict[str, Any]], lang: str
) -> str:
    """Why a ready match has no table: a player sits at another table (another event of the
    evening, or the domino room). Empty when nobody does."""
    for pid in (m.a, m.b):
        seat = seats.get(pid or "")
        if seat is None or (seat.get("event"), seat.get("match")) == (t.id, m.id):
            continue
        where = tr(lang, "dir.domino") if seat["game"] == "domino" else seat["event_name"]
        return tr(lang, "dir.waits_for", name=t.name_of(pid or ""), table=seat["table"], where=where)
    return ""


def tls_notice(keeper: Any) -> dict[str, Any] | None:
    """What the director's page says of the venue's certificates (the hub's
    ``CertificateKeeper``): the CA's end from a year ahead, a renewal that failed; None when
    there is nothing to say.

    >>> tls_notice(None) is None
    True
    """
    state = getattr(keeper, "state", None)
    if state is None or not (state.ca_notice or state.error):
        return None
    return {
        "ca_notice": state.ca_notice,
        "ca_days": state.ca_days_left,
        "ca_date": state.ca_expires.date().isoformat() if state.ca_expires else "—",
        "cert_date": state.cert_expires.date().isoformat() if state.cert_expires else "—",
        "error": state.error,
    }


def label_cards(cards: list[dict[str, Any]], labels: dict[str, dict[str, Any]]) -> None:
    """Each card says the event whose match its table holds (read with the page: exact)."""
    for c in cards:
        label = label_for(c, labels.get(c["id"])) or c.get("event")
        if label:
            c["event"] = label


def sections(club: Club, request: Request, lang: str, part: Part, empty: dict[str, Any]) -> dict[str, Any]:
    """A public page's data: the event ``t`` names (else the default one) as always —
    ``tournament`` and its ``part`` — and, when no ``t`` is given and several events are open,
    ``sections``: each open event's ``tournament`` and ``part``, headed by its name."""
    shown = shown_events(club, request)
    chosen = chosen_event(club, request)
    main = {"tournament": tournament_info(chosen, lang), **(empty if chosen is None else part(chosen))}
    if len(shown) > 1:
        main["sections"] = [{"tournament": tournament_info(t, lang), **part(t)} for t in shown]
    else:
        main["sections"] = []
    return main


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
            ("director_players", partial(page_registry, self.site), True),
        ]

    def endpoint(self, handler: Callable[..., Any], director: bool) -> Callable[..., Any]:
        """``handler`` as a Starlette endpoint (:func:`~mesa.hub.web.pages.endpoint.page_endpoint`)."""
        return page_endpoint(self.site, handler, director)

    async def not_found(self, request: Request, exc: Exception) -> Response:
        return self.site.not_found_page(request, self.site.lang_of(request))

    # ── public pages ────────────────────────────────────────────────────
    async def _switch(
        self, request: Request, data: dict[str, Any], *, spans_all: bool = False
    ) -> dict[str, Any]:
        """The event switcher's entries (template only, not the JSON twin); ``spans_all``: the
        page shows every open event without ``t`` (then "Todos" is offered, and is here)."""
        info = data.get("tournament") or {}
        all_here = spans_all and event_param(request) is None

        def build(club: Club) -> list[dict[str, Any]]:
            return switcher(club, None if all_here else club.tournaments.get(info.get("id", "")))

        return {"event_switch": await self.site.read(build), "switch_all": spans_all,
                "switch_all_here": all_here}  # fmt: skip

    async def page_live(self, request: Request, lang: str) -> Page:
        tid = event_param(request)

        def build(club: Club) -> dict[str, Any]:
            t = chosen_event(club, request)
            return {
                "tournament": tournament_info(t, lang),
                "open_events": [event_label(x) for x in open_events(club)],
                "labels": self._labels(club),
            }

        got = await self.site.read(build)
        live = self.site.live_data()
        label_cards(live["tables"], got["labels"])
        if tid is not None:
            # one event's live view: the tables playing its matches
            live["tables"] = [c for c in live["tables"] if (c.get("event") or {}).get("id") == tid]
        data = {"tournament": got["tournament"], "open_events": got["open_events"], **live}
        context = await self._switch(request, data) | {"request_event": tid}
        return Page("live.html", data, "live", Translator(lang)("live.title"), refresh="",
                    context=context)  # fmt: skip

    async def page_groups(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            return sections(
                club, request, lang, lambda t: {"groups": groups_view(t, lang)}, {"groups": []}
            )

        return Page(
            "groups.html", await self.site.read(build), "groups", Translator(lang)("nav.groups")
        )

    async def page_draw(self, request: Request, lang: str) -> Page:
        def build(club: Club) -> dict[str, Any]:
            return sections(
                club, request, lang, lambda t: {"bracket": bracket_view(t, "knockout", lang)},
                {"bracket": None},
            )  # fmt: skip

        return Page(
            "draw.html", await self.site.read(build), "draw", Translator(lang)("draw.title")
        )

    async def page_draw_print(self, request: Request, lang: str) -> Page:
        paper = "A3" if request.query_params.get("paper", "A4").upper() == "A3" else "A4"
        kind = "consolation" if request.query_params.get("kind") == "consolation" else "knockout"

        def build(club: Club) -> dict[str, Any]:
            t = chosen_event(club, request)
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
            return sections(
                club, request, lang, lambda t: {"bracket": bracket_view(t, "consolation", lang)},
                {"bracket": None},
            )  # fmt: skip

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
        asked = request.query_params.get("category")
        try:
            year = int(request.query_params.get("year", ""))
        except ValueError:
            year = 0

        def build(club: Club) -> dict[str, Any]:
            t = chosen_event(club, request)
            # the category asked for, else the event's own (the novatos' ranking for theirs)
            category = (
                asked if asked in ("open", "novatos")
                else (t.category if t is not None and t.category == "novatos" else "open")
            )  # fmt: skip
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
            t = chosen_event(club, request)
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
            t = chosen_event(club, request)
            if event_param(request) is None and t is not None and pid not in t.entrants:
                # no event named: the open one the player is in (several may be open)
                t = next((x for x in reversed(open_events(club)) if pid in x.entrants), t)
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
            return sections(
                club, request, lang,
                lambda t: {"rows": [] if t.knockout is None else final_view(t, lang)},
                {"rows": []},
            )  # fmt: skip

        return Page(
            "final.html", await self.site.read(build), "final", Translator(lang)("final.title")
        )

    async def page_exports(self, request: Request, lang: str) -> Page:
        info = await self.site.read(lambda club: tournament_info(chosen_event(club, request), lang))
        exports = export_list(lang)
        if info is not None:
            for e in exports:
                e["href"] += "&" + urllib.parse.urlencode({"t": info["id"]})
        return Page(
            "exports.html",
            {"tournament": info, "exports": exports},
            "exports",
            Translator(lang)("exp.title"),
            refresh="",
        )

    # ── director pages ──────────────────────────────────────────────────
    async def page_director(self, request: Request, lang: str) -> Page:
        """The grid: every table, each labelled with its event; the ready matches, conflicts
        and ties of every open event (``?t=``: that event's only, and its tables first)."""
        tid = event_param(request)
        venue = self.site.desk.venue

        def build(club: Club) -> dict[str, Any]:
            t = chosen_event(club, request)
            events = [t] if tid is not None and t is not None else open_events(club)
            if not events and t is not None:
                events = [t]  # nothing open: the last closed one, as before
            seats = seats_elsewhere(club, venue)
            ready, conflicts, dice = [], [], []
            for ev in events:
                label = event_label(ev)
                for m in sorted(
                    ev.ready_matches(), key=lambda m: (m.phase != "group", m.round_no, m.id)
                ):
                    ready.append({**match_view(ev, m, lang), "event": label,
                                  "waits": waiting_reason(ev, m, seats, lang)})  # fmt: skip
                conflicts += [conflict_view(ev, c) | {"event": label} for c in ev.open_conflicts()]
                dice += [
                    {"group": g, "players": list(p), "names": [ev.name_of(x) for x in p],
                     "event": label}
                    for g, p in ev.pending_dice()
                ]  # fmt: skip
            return {
                "tournament": tournament_info(t, lang),
                "events_shown": [event_label(ev) for ev in events],
                # each event's header, for its forecast ("la final, hacia las 23:40")
                "sections": [{"tournament": tournament_info(ev, lang)} for ev in events],
                "ready": ready,
                "conflicts": conflicts,
                "pending_dice": dice,
                "labels": self._labels(club),
            }

        data = await self.site.read(build)
        labels = data.pop("labels")
        data.update(self.site.live_data())
        label_cards(data["tables"], labels)
        if tid is not None:
            # the event's own tables first; the others stay (they are shared: a free one serves)
            data["tables"].sort(key=lambda c: (c.get("event") or {}).get("id") != tid)
        data["table_warnings"] = {c["id"]: table_warning(c, lang) for c in data["tables"]}
        data["enrolment"] = await self._enrolment(lang)
        data["tls"] = tls_notice(self.site.tls)
        return Page(
            "director/home.html", data, "director", Translator(lang)("dir.title"), refresh="",
            context=await self._switch(request, data, spans_all=True),
        )  # fmt: skip

    async def page_director_tournament(self, request: Request, lang: str) -> Page:
        venue = self.site.desk.venue

        def build(club: Club) -> dict[str, Any]:
            t = chosen_event(club, request)
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
            seats = seats_elsewhere(club, venue)
            matches = (
                []
                if t is None
                else [
                    match_view(t, m, lang)
                    | ({"waits": waiting_reason(t, m, seats, lang)} if m.status == "ready" else {})
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
                # left out of the draw as absent: a no-show can still be sanctioned (HGV 2.3.6)
                "absent": []
                if t is None
                else [
                    {"id": e.player_id, "name": e.name}
                    for e in sorted(t.left_out, key=lambda e: name_key(e.name))
                ],
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

        data = await self.site.read(build)
        return Page(
            "director/tournament.html",
            data,
            "director_tournament",
            Translator(lang)("nav.tournament"),
            context=await self._switch(request, data),
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
            t = chosen_event(club, request)
            if t is None or t.phase != "registration":
                return {"tournament": tournament_info(t, lang), "preview": None}
            present = self.site.store.checkins(t.id)
            return {
                "tournament": tournament_info(t, lang),
                "preview": group_preview(club, t, present, seed=seed, n_groups=n_groups),
            }

        data = await self.site.read(build)
        return Page(
            "director/preview.html",
            data,
            "director_tournament",
            Translator(lang)("preview.title"),
            refresh="",
            context=await self._switch(request, data),
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

        def build(club: Club) -> tuple[Any, dict[str, Any] | None, dict[str, Any] | None]:
            label = self._labels(club).get(table)
            # the event whose match the table holds (its forms act on that event)
            t = club.tournaments[label["id"]] if label else chosen_event(club, request)
            return self.site.desk.stale_hold(table), tournament_info(t, lang), label

        stale, info, label = await self.site.read(build)
        label_cards([card], {table: label} if label else {})
        hold = (
            None
            if stale is None
            else {"match_id": stale[0], "why": stale[1], "auto": self._takes_next(card, stale[1])}
        )
        data = {"table": card, "commands": commands, "stale": hold, "tournament": info}
        return Page(
            "director/table.html",
            data,
            "director",
            Translator(lang)("live.table", id=table),
            refresh="",
            context=await self._switch(request, data),
        )

    async def page_director_match(self, request: Request, lang: str) -> Page:
        mid = request.path_params["id"].removesuffix(".json")
        cards = self.site.poller.current()
        venue = self.site.desk.venue

        def build(club: Club) -> dict[str, Any]:
            t = chosen_event(club, request)
            if event_param(request) is None and (t is None or mid not in t.matches):
                # no event named: the open one that has this match (ids repeat across events)
                t = next((x for x in reversed(open_events(club)) if mid in x.matches), t)
            if t is None:
                raise KeyError(mid)
            m = t.match(mid)
            waits = waiting_reason(t, m, seats_elsewhere(club, venue), lang)
            # the tables the open events hold a match at (a move there is refused)
            held = {
                x.table: x.id if ev.id == t.id else f"{x.id} · {ev.name}"
                for ev in open_events(club)
                for x in ev.matches.values()
                if x.table and x.status in ("assigned", "playing")
            }
            return {
                "held": held,
                "time": self._match_time(t.id, m, cards),
                "tournament": tournament_info(t, lang),
                "match": match_view(t, m, lang) | ({"waits": waits} if m.status == "ready" else {}),
                "tables": [d["table"] for d in self.site.hub.tables()],
                "conflicts": [conflict_view(t, c) for c in t.conflicts if c.match_id == mid],
                # Tables still holding this match although it is not theirs to play.
                "stale_tables": [
                    {"table": c["id"], "why": stale[1], "auto": self._takes_next(c, stale[1])}
                    for c in cards
                    if c.get("match_id") == mid
                    and (stale := self.site.desk.stale_hold(c["id"])) is not None
                    and stale[0] == mid
                ],
            }

        data = await self.site.read(build)
        by_id = {c["id"]: c for c in self.site.poller.current()}
        # every table the hub knows, also one that never spoke (marked offline, not hidden);
        # not another game's (a domino table cannot take a backgammon match)
        data["tables"] = sorted(
            tb
            for tb in set(data["tables"]) | set(by_id)
            if (by_id.get(tb) or {}).get("kind", "backgammon") == "backgammon"
        )
        data["table_warnings"] = {
            tb: table_warning(by_id.get(tb), lang) for tb in data["tables"]
        }
        held = data.pop("held")
        here = data["match"]["table"]
        data["move_tables"] = [
            table_choice(tb, by_id.get(tb), held.get(tb), lang)
            for tb in data["tables"]
            if tb != here
        ]
        return Page(
            "director/match.html",
            data,
            "director_tournament",
            Translator(lang)("live.match", id=mid),
            context=await self._switch(request, data),
        )

    def _takes_next(self, card: dict[str, Any], why: str) -> bool:
        """Whether a table holding a decided match gets its next match by itself (the hub
        hands one to a connected table that finished its own): then it needs no freeing."""
        return why == "decided" and bool(self.site.desk.takes_next_match(str(card.get("id"))))

    def _labels(self, club: Club) -> dict[str, dict[str, Any]]:
        """Table → its event, with the pace of the match under way (desk's thread)."""
        return table_labels(club, self.site.desk.evening_time())

    def _match_time(self, tid: str, m: Any, cards: list[dict[str, Any]]) -> dict[str, Any] | None:
        """A match's page: its live score, start, pace and expected end (desk's thread)."""
        if m.status == "done":
            return None
        et = self.site.desk.evening_time()
        card = next(
            (c for c in cards if c.get("match_id") == m.id and c.get("id") == m.table), None
        )
        pace = et.pace(tid, m.id)
        return {
            "live": None if card is None or m.status != "playing" else {
                "a": (card.get("score") or {}).get("a", 0),
                "b": (card.get("score") or {}).get("b", 0),
            },
            "started": iso(m.started_at),
            "pace": None if pace is None else pace_view(pace, et.made_at),
            "expected": et.match(tid, m.id),
        }

    async def healthz(self, request: Request) -> Response:
        return JSONResponse(
            {
                "ok": True,
                "hub_online": bool(getattr(self.site.hub, "online", False)),
                "tables": len(self.site.poller.cards),
                "tournament_version": self.site.tournament_version,
            }
        )
