"""The domino pairs tournament on the dashboard: its pages, the director's actions, the exports.

Several domino events may be open at once (the desk runs them all); every page names the one
it shows with ``?t=<id>`` (``D2``), an unknown one is a 404:

- ``/domino`` (public): an event's round games, standings and byes (and ``/domino.json``);
  without ``t``, every open event together when several are open (else the newest);
- ``/director/domino`` (director): an event switcher (every domino event, the open ones
  first), create, register pairs from the player registry, start a round (refused while one of
  its players sits at another table, unless the director confirms they will be late), call
  "TIEMPO" for the event's tables (a button with a confirmation), the judge's penalties, close,
  and the tournament's audit; without ``t``, the newest open event. Every form carries ``t``;
- ``POST /director/domino/actions/<name>``: the domino's actions
  (:func:`domino_actions`) behind the same endpoint as backgammon's
  (:class:`~mesa.hub.web.actions.endpoint.ActionEndpoint`: login, origin, CSRF, fields checked,
  one line in the dashboard's audit log, the same answers), run on the domino desk (which keeps
  the tournament's own audit line);
- ``/domino/final.csv``, ``/domino/final.json``, ``/domino/final/print``: an event's final
  list (``?t=``; without it the newest open, else the newest).

The pages go through the same endpoint as every page (:func:`~mesa.hub.web.pages.endpoint.page_endpoint`:
language, the director's login, 404).

    pages = DominoPages(site, desk)
    starlette_routes = pages.routes()

>>> sorted(domino_actions(None))
['absence', 'close', 'create', 'penalty', 'register_pair', 'start_round', 'tiempo']
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from mesa.errors import MesaError
from mesa.games.domino.exports import final_csv, final_json, final_rows
from mesa.games.domino.pairs import PairsError, PairsTournament
from mesa.games.domino.penalties import DEFAULT_PENALTY_POINTS, DIRECTOR_REASONS, PENALTIES
from mesa.hub.desk.games.domino import DominoDesk, Elsewhere, PlayersBusy
from mesa.hub.web.actions.endpoint import ActionEndpoint
from mesa.hub.web.actions.registry import Action, BadField, Context, Field, Refused
from mesa.hub.web.http.paths import ROUTE_PATHS
from mesa.hub.web.i18n import text as t
from mesa.hub.web.pages.endpoint import Handler, page_endpoint, page_routes
from mesa.hub.web.site import Page, Site
from mesa.tournament.club import Club

MAX_NAME = 80
T = TypeVar("T")


class DominoPages:
    """See the module docstring."""

    def __init__(self, site: Site, desk: DominoDesk) -> None:
        self.site = site
        self.desk = desk
        self.actions = ActionEndpoint(
            site, actions=domino_actions(desk), home="director_domino", prefix="domino_"
        )

    def routes(self) -> list[BaseRoute]:
        def endpoint(handler: Handler, director: bool) -> Callable[[Request], Awaitable[Response]]:
            return page_endpoint(self.site, handler, director)

        return [
            *page_routes(
                [("domino", self.page_public, False),
                 ("director_domino", self.page_director, True)],
                endpoint,
            ),
            Route(ROUTE_PATHS["domino_action"], self.actions.action, methods=["POST"],
                  name="domino_action"),
            Route(ROUTE_PATHS["domino_final_csv"], self.export_csv, name="domino_final_csv"),
            Route(ROUTE_PATHS["domino_final_json"], self.export_json, name="domino_final_json"),
            Route(ROUTE_PATHS["domino_final_print"], endpoint(self.page_print, False),
                  name="domino_final_print"),
        ]

    # ── pages ──
    async def _read(self, fn: Callable[[PairsTournament | None], T], tid: str | None) -> T:
        """``fn`` over event ``tid`` (None: the desk's default); an unknown one is a 404."""
        try:
            return await asyncio.to_thread(self.desk.read, fn, tid)
        except PairsError as e:
            if e.code == "unknown_tournament":
                raise KeyError(tid) from None
            raise

    async def _boards(self, request: Request) -> dict[str, Any]:
        """What the public pages show: the event named, or every open one when several are
        open and none is named; ``boards`` lists them, and one alone is also at the top."""
        tid = event_of(request)
        events = self.desk.events()
        if tid is None and sum(e["open"] for e in events) > 1:
            boards = await asyncio.to_thread(self.desk.read_open, tournament_view)
        else:
            boards = [await self._read(tournament_view, tid)]
        data: dict[str, Any] = dict(boards[0]) if len(boards) == 1 else {}
        boards = [b for b in boards if b["tournament"] is not None]
        data.update(events=events, boards=boards, selected=tid)
        return data

    async def page_public(self, request: Request, lang: str) -> Page:
        data = await self._boards(request)
        return Page("domino/standings.html", data, "domino", t(lang, "dom.title"))

    async def page_print(self, request: Request, lang: str) -> Page:
        data = await self._boards(request)
        return Page("domino/final_print.html", data, "domino", t(lang, "dom.final"), refresh="")

    async def page_director(self, request: Request, lang: str) -> Page:
        data = await self._read(tournament_view, event_of(request))
        tour = data["tournament"]
        tid = tour["id"] if tour else None
        data["events"] = self.desk.events()
        data["registry"] = await self.site.read(_registry)
        data["reasons"] = [
            {"code": r, "points": DEFAULT_PENALTY_POINTS[r], "source": PENALTIES[r].source,
             "scope": PENALTIES[r].scope, "expels": PENALTIES[r].expels}
            for r in DIRECTOR_REASONS
        ]
        data["audit"] = await self._read(_audit, tid) if tid else []
        data["free_tables"] = await asyncio.to_thread(self.desk.free_tables)
        away: list[Elsewhere] = []
        if tour and tour["phase"] != "closed":
            with contextlib.suppress(PairsError):  # closed since: nobody to wait for
                away = await asyncio.to_thread(self.desk.elsewhere, tid)
        data["elsewhere"] = [_elsewhere(e) for e in away]
        # Of the round begun (its players will be late), or of the next (confirm to start).
        data["late"] = bool(tour) and any(g["status"] == "assigned" for rd in data["rounds"][-1:]
                                          for g in rd["games"])
        return Page("domino/director.html", data, "director_domino",
                    t(lang, "dom.director_title"))

    # ── exports ──
    async def export_csv(self, request: Request) -> Response:
        lang = self.site.lang_of(request)
        try:
            got = await self._read(lambda x: (x.id, final_csv(x, lang)) if x else None,
                                   event_of(request))
        except KeyError:
            got = None
        if got is None:
            return self.site.not_found_page(request, lang)
        tid, text = got
        return Response(
            "\ufeff" + text, media_type="text/csv; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="domino-{tid}.csv"'},
        )

    async def export_json(self, request: Request) -> Response:
        lang = self.site.lang_of(request)
        try:
            data = await self._read(lambda x: final_json(x) if x else None, event_of(request))
        except KeyError:
            data = None
        if data is None:
            return self.site.not_found_page(request, lang)
        return JSONResponse(data)


def event_of(request: Request) -> str | None:
    """The event a page names (``?t=``), None when it names none."""
    tid = (request.query_params.get("t") or "").strip()
    return tid[:40] or None


def _elsewhere(e: Elsewhere) -> dict[str, str]:
    return {"player": e.seat.player, "name": e.name, "table": e.seat.table,
            "event": e.seat.event, "event_name": e.seat.event_name, "game": e.seat.game}


def said_elsewhere(lang: str, away: list[Elsewhere]) -> str:
    """«ANA juega en la mesa 4 (Open de diciembre); …» in ``lang``."""
    return "; ".join(t(lang, "dom.elsewhere", name=e.name, table=e.seat.table,
                       event=e.seat.event_name) for e in away)


# ── the director's actions ──
# Refusals the director reads in words (the others: their code and the engine's message).
SAID_REFUSALS = ("unknown_tournament", "closed", "which_tournament")


class DominoActions:
    """What each domino action does, on the domino desk (a worker thread; the desk serialises),
    for the event the form names (``t``; none: the only one open). The domino engine's
    refusals (its ``code``) become :class:`Refused`; a change that went through bumps the
    dashboard's version (the pages refetch)."""

    def __init__(self, desk: DominoDesk) -> None:
        self.desk = desk

    async def _run(self, ctx: Context, fn: Callable[[], T], tid: str | None = None) -> T:
        try:
            out = await asyncio.to_thread(fn)
        except (Refused, BadField):
            raise
        except PlayersBusy as e:
            why = t(ctx.lang, "dom.err.players_busy", who=said_elsewhere(ctx.lang, e.elsewhere))
            raise Refused(t(ctx.lang, "dom.refused", why=why), code=e.code,
                          detail=str(e)) from None
        except (PairsError, MesaError) as e:
            detail = str(e)
            code = str(getattr(e, "code", "refused"))
            why = t(ctx.lang, f"dom.err.{code}", t=tid or "") if code in SAID_REFUSALS \
                else detail
            raise Refused(t(ctx.lang, "dom.refused", why=why), code=code,
                          detail=detail) from None
        ctx.web.bump()
        return out

    async def create(self, ctx: Context, v: dict[str, Any]) -> str:
        title = v["name"]
        if not 1 <= len(title) <= MAX_NAME:
            raise BadField("name")
        return await self._run(ctx, lambda: self.desk.create(title, actor=ctx.user).id)

    async def register_pair(self, ctx: Context, v: dict[str, Any]) -> str:
        a, b, tid = v["a"], v["b"], v["t"]

        def run() -> str:
            names = ctx.web.desk.read(lambda club: _names(club, (a, b)))
            return str(self.desk.register_pair(a, b, names, actor=ctx.user, t=tid).id)

        return await self._run(ctx, run, tid)

    async def start_round(self, ctx: Context, v: dict[str, Any]) -> str:
        """The round; confirmed while some of its players sit elsewhere, the answer names who
        will be late."""
        tid, confirm = v["t"], bool(v["confirm"])

        def run() -> tuple[list[Any], list[Elsewhere]]:
            games = self.desk.start_round(actor=ctx.user, t=tid, confirm=confirm)
            return games, self.desk.elsewhere(tid) if confirm else []

        games, late = await self._run(ctx, run, tid)
        said = ", ".join(f"{g.id}@{g.table}" for g in games)
        if late:
            said += " · " + t(ctx.lang, "dom.late", who=said_elsewhere(ctx.lang, late))
        return said

    async def tiempo(self, ctx: Context, v: dict[str, Any]) -> str:
        tid = v["t"]
        start = await self._run(ctx, lambda: self.desk.call_tiempo(actor=ctx.user, t=tid), tid)
        return datetime.fromtimestamp(start).isoformat(timespec="seconds")

    async def penalty(self, ctx: Context, v: dict[str, Any]) -> str:
        """A player named as ``gp`` (``<game>|<player>``, the form's one list) or as ``game``
        and ``player``; no ``points``: the reason's own."""
        game, _, player = (v["gp"] or "").partition("|")
        game, player = game or v["game"] or "", player or v["player"] or ""
        tid = v["t"]
        e = await self._run(ctx, lambda: self.desk.penalty(
            game, player, v["reason_code"] or "", v["points"], actor=ctx.user, t=tid),
            tid)  # fmt: skip
        return f"{e.player} {e.points} {e.reason}"

    async def absence(self, ctx: Context, v: dict[str, Any]) -> str:
        """``gp`` is ``<game>|<player>,<player>…`` (one of the form's choices)."""
        game, _, listed = v["gp"].partition("|")
        players = [p for p in listed.split(",") if p][:4]
        tid = v["t"]
        seats = await self._run(
            ctx, lambda: self.desk.absence(game, players, actor=ctx.user, t=tid), tid)
        return f"{game} {' '.join(seats)}"

    async def close(self, ctx: Context, v: dict[str, Any]) -> str:
        tid = v["t"]
        await self._run(ctx, lambda: self.desk.close_tournament(actor=ctx.user, t=tid), tid)
        return ""


def _target(v: dict[str, Any]) -> str:
    """What the audit line names: the event, then the game and player (``gp``) or the
    tournament's name."""
    what = str(v.get("gp") or v.get("name") or "")
    return " ".join(x for x in (str(v.get("t") or ""), what) if x)


def domino_actions(desk: DominoDesk) -> dict[str, Action]:
    """The domino director's actions, declared (fields, target) and run on ``desk``; each but
    ``create`` names its event (``t``, optional while only one is open)."""
    d = DominoActions(desk)
    S = Field
    event = S("t", required=False)
    return {
        a.name: a
        for a in [
            Action("create", (S("name"),), d.create, target=_target),
            Action("register_pair", (event, S("a"), S("b")), d.register_pair, target=_target),
            Action("start_round", (event, S("confirm", "bool", required=False)), d.start_round,
                   target=_target),
            Action("tiempo", (event,), d.tiempo, target=_target),
            Action(
                "penalty",
                (event, S("gp", required=False), S("game", required=False),
                 S("player", required=False), S("reason_code", required=False),
                 S("points", "int", required=False)),
                d.penalty,
                target=_target,
            ),
            Action("absence", (event, S("gp")), d.absence, target=_target),
            Action("close", (event,), d.close, target=_target),
        ]
    }


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
            raise PairsError("unknown_player", f"no player {pid[:40]!r} in the registry")
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
