"""The domino pairs tournament on the dashboard: its pages, the director's actions, the exports.

- ``/domino`` (public): the round's games, the standings, the byes (and ``/domino.json``);
- ``/director/domino`` (director): create, register pairs from the player registry, start a
  round, call "TIEMPO" for the whole room (a button with a confirmation), the judge's penalties,
  close, and the tournament's audit;
- ``POST /director/domino/actions/<name>``: login, CSRF, fields checked, run on the domino desk,
  one line in the dashboard's audit log (and the tournament's own audit line);
- ``/domino/final.csv``, ``/domino/final.json``, ``/domino/final/print``: the final list.

    pages = DominoPages(site, desk)
    starlette_routes = pages.routes()
"""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from mesa.domino.exports import final_csv, final_json, final_rows
from mesa.domino.pairs import PairsError, PairsTournament
from mesa.domino.penalties import DEFAULT_PENALTY_POINTS, DIRECTOR_REASONS, PENALTIES
from mesa.errors import MesaError
from mesa.hub.desk.domino import DominoDesk
from mesa.hub.web.auth import csrf_ok
from mesa.hub.web.http import address, read_form, refuse, safe_next, set_flash, wants_json
from mesa.hub.web.i18n import Translator
from mesa.hub.web.i18n import text as t
from mesa.hub.web.site import Page, Site
from mesa.tournament.club import Club

ACTION_NAMES = (
    "create", "register_pair", "start_round", "tiempo", "penalty", "absence", "close"
)
MAX_NAME = 80


class DominoPages:
    """See the module docstring."""

    def __init__(self, site: Site, desk: DominoDesk) -> None:
        self.site = site
        self.desk = desk

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/domino", self._page(self.page_public, False), name="domino"),
            Route("/domino.json", self._page(self.page_public, False), name="domino_json"),
            Route("/director/domino", self._page(self.page_director, True),
                  name="director_domino"),
            Route("/director/domino.json", self._page(self.page_director, True),
                  name="director_domino_json"),
            Route("/director/domino/actions/{name}", self.action, methods=["POST"],
                  name="domino_action"),
            Route("/domino/final.csv", self.export_csv, name="domino_final_csv"),
            Route("/domino/final.json", self.export_json, name="domino_final_json"),
            Route("/domino/final/print", self._page(self.page_print, False),
                  name="domino_final_print"),
        ]

    # ── pages ──
    def _page(self, handler: Callable[[Request, str], Awaitable[Page]], director: bool
              ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            lang = self.site.lang_of(request)
            if director and self.site.session_of(request) is None:
                if request.url.path.endswith(".json") or wants_json(request):
                    return JSONResponse({"error": "login_required"}, status_code=401)
                return RedirectResponse(
                    "/login?" + urllib.parse.urlencode({"next": request.url.path}),
                    status_code=303,
                )
            return self.site.respond(request, await handler(request, lang), lang)

        return endpoint

    async def _view(self) -> dict[str, Any]:
        return await asyncio.to_thread(self.desk.read, tournament_view)

    async def page_public(self, request: Request, lang: str) -> Page:
        data = await self._view()
        return Page("domino/standings.html", data, "domino", t(lang, "dom.title"))

    async def page_print(self, request: Request, lang: str) -> Page:
        data = await self._view()
        return Page("domino/final_print.html", data, "domino", t(lang, "dom.final"), refresh="")

    async def page_director(self, request: Request, lang: str) -> Page:
        data = await self._view()
        registry = await self.site.read(_registry)
        data["registry"] = registry
        data["reasons"] = [
            {"code": r, "points": DEFAULT_PENALTY_POINTS[r], "source": PENALTIES[r].source,
             "scope": PENALTIES[r].scope, "expels": PENALTIES[r].expels}
            for r in DIRECTOR_REASONS
        ]
        data["audit"] = await asyncio.to_thread(self.desk.read, _audit)
        data["free_tables"] = await asyncio.to_thread(self.desk.free_tables)
        return Page("domino/director.html", data, "director_domino",
                    t(lang, "dom.director_title"))

    # ── exports ──
    async def export_csv(self, request: Request) -> Response:
        lang = self.site.lang_of(request)
        tour = self.desk.t
        if tour is None:
            return self.site.not_found_page(request, lang)
        text = await asyncio.to_thread(self.desk.read, lambda x: final_csv(x, lang) if x else "")
        return Response(
            "\ufeff" + text, media_type="text/csv; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="domino-{tour.id}.csv"'},
        )

    async def export_json(self, request: Request) -> Response:
        lang = self.site.lang_of(request)
        if self.desk.t is None:
            return self.site.not_found_page(request, lang)
        data = await asyncio.to_thread(self.desk.read, lambda x: final_json(x) if x else {})
        return JSONResponse(data)

    # ── actions ──
    async def action(self, request: Request) -> Response:
        lang = self.site.lang_of(request)
        tr = Translator(lang)
        name = request.path_params["name"]
        session = self.site.session_of(request)
        if session is None:
            return refuse(request, lang, "login_required", tr("flash.login_required"), 403)
        origin = request.headers.get("origin")
        if origin and urllib.parse.urlsplit(origin).netloc != request.headers.get("host"):
            return refuse(request, lang, "csrf", tr("flash.csrf"), 403)
        form = await read_form(request)
        if not csrf_ok(session.csrf, request.headers.get("x-csrf-token") or form.get("csrf")):
            return refuse(request, lang, "csrf", tr("flash.csrf"), 403)
        if name not in ACTION_NAMES:
            return refuse(request, lang, "unknown_action",
                          tr("flash.unknown_action", name=name[:50]), 404)
        values = {k: str(v).strip()[:200] for k, v in form.items() if k != "csrf"}
        actor = session.user
        try:
            detail = await asyncio.to_thread(self._run, name, values, actor)
            outcome, code = "ok", ""
        except (PairsError, BadValue, MesaError) as e:
            detail, outcome = str(e), "refused"
            code = getattr(e, "code", "refused")
        self.site.store.audit(actor, f"domino_{name}", target=values.get("gp") or values.get("name", ""),
                              reason=values.get("reason", ""), params=values, outcome=outcome,
                              detail=detail, address=address(request))
        if outcome == "refused":
            return refuse(request, lang, str(code), tr("dom.refused", why=detail), 409)
        self.site.bump()
        self.site.refresh_live()
        message = tr("dom.done", what=tr(f"act.domino_{name}") + (f" ({detail})" if detail else ""))
        if wants_json(request) or request.headers.get("x-csrf-token") is not None:
            return JSONResponse({"ok": True, "message": message, "detail": detail})
        back = safe_next(form.get("next")) or "/director/domino"
        resp = RedirectResponse(back, status_code=303)
        set_flash(resp, "ok", message)
        return resp

    def _run(self, name: str, v: dict[str, str], actor: str) -> str:
        """One action on the domino desk (a worker thread; the desk serialises)."""
        d = self.desk
        if name == "create":
            title = v.get("name", "")
            if not 1 <= len(title) <= MAX_NAME:
                raise BadValue("bad_value", "name")
            return d.create(title, actor=actor).id
        if name == "register_pair":
            a, b = v.get("a", ""), v.get("b", "")
            names = self.site.desk.read(lambda club: _names(club, (a, b)))
            return str(d.register_pair(a, b, names, actor=actor).id)
        if name == "start_round":
            games = d.start_round(actor=actor)
            return ", ".join(f"{g.id}@{g.table}" for g in games)
        if name == "tiempo":
            start = d.call_tiempo(actor=actor)
            return datetime.fromtimestamp(start).isoformat(timespec="seconds")
        if name == "penalty":
            reason = v.get("reason_code", "")
            raw = v.get("points", "")
            try:
                points = int(raw) if raw else None
            except ValueError:
                raise BadValue("bad_value", "points") from None
            game, _, player = v.get("gp", "").partition("|")
            game, player = game or v.get("game", ""), player or v.get("player", "")
            e = d.penalty(game, player, reason, points, actor=actor)
            return f"{e.player} {e.points} {e.reason}"
        if name == "absence":
            game, _, listed = v.get("gp", "").partition("|")
            players = [p for p in listed.split(",") if p][:4]
            seats = d.absence(game, players, actor=actor)
            return f"{game} {' '.join(seats)}"
        d.close_tournament(actor=actor)
        return ""


class BadValue(MesaError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


def _absence_options(tour: PairsTournament, g: Any) -> list[dict[str, str]]:
    """Who can be declared absent at once: one player, a whole pair, one of each pair."""
    seat, name = tour.seating(g), tour.seat_names(g)
    groups = [(s,) for s in ("n", "s", "e", "w")] + [("n", "s"), ("e", "w")]
    groups += [(a, b) for a in ("n", "s") for b in ("e", "w")]
    return [
        {"value": f"{g.id}|{','.join(seat[s] for s in grp)}",
         "label": f"{g.id} · " + " + ".join(f"{s.upper()} {name[s]}" for s in grp)}
        for grp in groups
    ]


def _audit(tour: PairsTournament | None) -> list[dict[str, Any]]:
    """The tournament's own audit, newest first (the last 200 lines)."""
    if tour is None:
        return []
    return [{"seq": a.seq, "at": a.at, "actor": a.actor, "action": a.action,
             "details": a.details} for a in reversed(tour.audit[-200:])]


def _registry(club: Club) -> list[dict[str, str]]:
    return sorted(({"id": p.id, "name": p.name} for p in club.registry),
                  key=lambda p: p["name"])


def _names(club: Club, ids: tuple[str, str]) -> tuple[str, str]:
    """The players' names from the club's registry; an unknown id is refused."""
    out = []
    for pid in ids:
        if pid not in club.registry:
            raise BadValue("unknown_player", f"no player {pid[:40]!r} in the registry")
        out.append(club.registry.get(pid).name)
    return out[0], out[1]


def tournament_view(tour: PairsTournament | None) -> dict[str, Any]:
    """What the domino pages show (also their JSON twin)."""
    if tour is None:
        return {"tournament": None, "standings": [], "rounds": [], "penalties": []}
    rounds = []
    for n in range(1, tour.current_round + 1):
        games = []
        for g in tour.round_games(n):
            games.append({
                "id": g.id, "table": g.table, "status": g.status,
                "ns": g.ns, "ew": g.ew,
                "ns_name": tour.pairs[g.ns].name, "ew_name": tour.pairs[g.ew].name,
                "score": [g.score.get(g.ns), g.score.get(g.ew)],
                "winner": g.winner, "how": g.how, "hands": g.hands,
                "seats": [{"seat": s, "player": pid, "name": nm}
                          for (s, pid), nm in zip(tour.seating(g).items(),
                                                  tour.seat_names(g).values(), strict=True)],
                "absence_options": _absence_options(tour, g),
            })
        bye = tour.byes[n - 1]
        at = tour.tiempo.get(n)
        rounds.append({"n": n, "games": games, "tiempo": at,
                       "tiempo_at": None if at is None else
                       datetime.fromtimestamp(at).strftime("%H:%M:%S"),
                       "bye": tour.pairs[bye].name if bye else None})
    return {
        "tournament": {"id": tour.id, "name": tour.name, "phase": tour.phase,
                       "round": tour.current_round,
                       "tiempo": tour.tiempo.get(tour.current_round)},
        "pairs": [{"id": p.id, "name": p.name, "players": list(p.players),
                   "withdrawn": p.withdrawn} for p in tour.pairs.values()],
        "standings": final_rows(tour),
        "rounds": rounds,
        "penalties": [
            {"seq": e.seq, "game": e.game_id, "player": e.player, "seat": e.seat,
             "reason": e.reason, "points": e.points, "at_table": e.at_table, "by": e.actor,
             "at": e.at}
            for e in tour.penalties
        ],
    }
