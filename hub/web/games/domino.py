"""The domino events on the dashboard, either format (fixed pairs, individual): their pages, the
director's actions, the exports.

Several domino events may be open at once (the desk runs them all); every page names the one
it shows with ``?t=<id>`` (``D2``), an unknown one is a 404:

- ``/domino`` (public): an event's round games, standings and byes (and ``/domino.json``);
  without ``t``, every open event together when several are open (else the newest);
- ``/director/domino`` (director): an event switcher (every domino event, the open ones
  first), create (choosing the format), register several pairs or players from the player
  registry in one form (Spanish alphabetical order, a search box; no page load), start a round
  (refused while one of its players sits at another table, unless the director confirms they
  will be late), call "TIEMPO" for the event's tables (one confirmation), the judge's fine
  (the hub escalates it from the records and the answer says the step in words; "fine and
  annul the hand" for a pass with a playable tile or a chivo), "arrived late" per player of a
  game not begun, absences, close (with a confirmation), the players' records and the
  tournament's audit in words; without ``t``, the newest open event. Every form carries ``t``;
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

>>> sorted(domino_actions(None))  # doctest: +NORMALIZE_WHITESPACE
['absence', 'close', 'create', 'late', 'penalty', 'register_pair', 'register_pairs',
 'register_players', 'remove_pair', 'remove_player', 'start_round', 'tiempo']
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from mesa.errors import MesaError
from mesa.games.domino.event import DominoEvent, FineResult
from mesa.games.domino.exports import final_csv, final_json, final_rows
from mesa.games.domino.individual import IndividualTournament
from mesa.games.domino.pairs import PairsError, PairsTournament
from mesa.games.domino.penalties import DEFAULT_PENALTY_POINTS, DIRECTOR_REASONS, PENALTIES
from mesa.games.domino.records import ANNULLABLE, LATE, RecordEntry
from mesa.games.domino.rules import members
from mesa.hub.desk.games.domino import GAME, DominoDesk, Elsewhere, PlayersBusy
from mesa.hub.desk.tables import free_tables_of
from mesa.hub.web.actions.endpoint import ActionEndpoint
from mesa.hub.web.actions.registry import Action, BadField, Context, Field, Refused
from mesa.hub.web.games.domino_said import and_names, clock_of, said_audit, said_fine, signed
from mesa.hub.web.http.paths import ROUTE_PATHS
from mesa.hub.web.i18n import STRINGS
from mesa.hub.web.i18n import text as t
from mesa.hub.web.pages.endpoint import Handler, page_endpoint, page_routes
from mesa.hub.web.site import Page, Site
from mesa.tournament.club import Club
from mesa.tournament.players import name_key

MAX_NAME = 80
LATE_STATES = ("assigned", "ready")  # the table's states that take a late arrival
SIDE_OF = {"n": "ns", "s": "ns", "e": "ew", "w": "ew"}
T = TypeVar("T")
# The reasons the fine form offers: the director names the offence, the record picks the step
# (talking's second and third time, a repeated late arrival: never picked by hand).
FORM_REASONS = tuple(r for r in DIRECTOR_REASONS
                     if r not in ("talking_second", "talking_third", *LATE))


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
    async def _read(self, fn: Callable[[Any], T], tid: str | None) -> T:
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
        registry = await self.site.read(_registry)
        taken = {p for r in data.get("pairs", []) + data.get("players", []) for p in r["players"]}
        data["registry"] = registry
        data["unregistered"] = [p for p in registry if p["id"] not in taken]
        data["reasons"] = [
            {"code": r, "points": DEFAULT_PENALTY_POINTS[r], "source": PENALTIES[r].source,
             "scope": PENALTIES[r].scope, "expels": PENALTIES[r].expels,
             "annul": r in ANNULLABLE}
            for r in FORM_REASONS
        ]
        audit = await self._read(_audit, tid) if tid else []
        names = await self._read(lambda x: x.player_names() if x else {}, tid) if tid else {}
        data["audit"] = said_audit_lines(lang, audit, names)
        data["free_tables"] = await asyncio.to_thread(self.desk.free_tables)
        # A late arrival is the table's to show: offered while its table waits for "TIEMPO" or
        # for the first hand (or between hands), as the table accepts it.
        waiting = set(free_tables_of(self.desk.hub, GAME, LATE_STATES))
        for rd in data["rounds"][-1:]:
            for g in rd["games"]:
                g["late_ok"] = g["status"] != "ended" and g["table"] in waiting
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
# A refusal is read in words when the catalog has its ``dom.err.<code>``; otherwise its code
# and the engine's message.
FORMATS = ("pairs", "individual")


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
            key = f"dom.err.{code}"
            said = getattr(e, "message", detail)
            why = t(ctx.lang, key, t=tid or "", detail=said) if key in STRINGS else detail
            raise Refused(t(ctx.lang, "dom.refused", why=why), code=code,
                          detail=detail) from None
        ctx.web.bump()
        return out

    def _refuse(self, ctx: Context, code: str, tid: str | None) -> Refused:
        return Refused(t(ctx.lang, "dom.refused", why=t(ctx.lang, f"dom.err.{code}", t=tid or "")),
                       code=code)

    async def create(self, ctx: Context, v: dict[str, Any]) -> str:
        title = v["name"]
        fmt = v["format"] or "pairs"
        if not 1 <= len(title) <= MAX_NAME:
            raise BadField("name")
        if fmt not in FORMATS:
            raise BadField("format")
        return await self._run(ctx, lambda: self.desk.create(title, actor=ctx.user,
                                                             format=fmt).id)

    async def register_pair(self, ctx: Context, v: dict[str, Any]) -> str:
        a, b, tid = v["a"], v["b"], v["t"]

        def run() -> str:
            names = ctx.web.desk.read(lambda club: _names(club, (a, b)))
            return str(self.desk.register_pair(a, b, (names[0], names[1]), actor=ctx.user,
                                               t=tid).id)

        return await self._run(ctx, run, tid)

    async def register_pairs(self, ctx: Context, v: dict[str, Any]) -> str:
        """Several pairs in one form: the players as ticked (``order``, the page's script
        keeps the order of the ticks; without it, the list's order), two by two."""
        tid = v["t"]
        ticked = list(v["players"] or [])
        order = [p for p in dict.fromkeys((v["order"] or "").split(",")) if p in ticked]
        ids = order + [p for p in ticked if p not in order]
        if not ids:
            raise self._refuse(ctx, "no_players", tid)
        if len(ids) % 2:
            raise self._refuse(ctx, "odd_players", tid)

        def run() -> list[str]:
            names = ctx.web.desk.read(lambda club: _names(club, ids))
            done = []
            for i in range(0, len(ids), 2):
                pair = self.desk.register_pair(ids[i], ids[i + 1], (names[i], names[i + 1]),
                                               actor=ctx.user, t=tid)
                done.append(f"{pair.id} {pair.name}")
            return done

        return ", ".join(await self._run(ctx, run, tid))

    async def register_players(self, ctx: Context, v: dict[str, Any]) -> str:
        """Several players of the registry at once (an individual event)."""
        tid = v["t"]
        ids = list(v["players"] or [])
        if not ids:
            raise self._refuse(ctx, "no_players", tid)

        def run() -> list[str]:
            names = ctx.web.desk.read(lambda club: _names(club, ids))
            for pid, name in zip(ids, names, strict=True):
                self.desk.register_player(pid, name, actor=ctx.user, t=tid)
            return names

        names = await self._run(ctx, run, tid)
        return t(ctx.lang, "dom.registered", n=len(names)) + ": " + ", ".join(names)

    async def remove_pair(self, ctx: Context, v: dict[str, Any]) -> str:
        tid, pair = v["t"], v["pair"]
        await self._run(ctx, lambda: self.desk.remove_pair(pair, actor=ctx.user, t=tid), tid)
        return pair

    async def remove_player(self, ctx: Context, v: dict[str, Any]) -> str:
        tid, player = v["t"], v["player"]
        await self._run(ctx, lambda: self.desk.remove_player(player, actor=ctx.user, t=tid),
                        tid)
        return player

    async def start_round(self, ctx: Context, v: dict[str, Any]) -> str:
        """The round; confirmed while some of its players sit elsewhere, the answer names who
        will be late."""
        tid, confirm = v["t"], bool(v["confirm"])

        def run() -> tuple[list[Any], list[Elsewhere]]:
            games = self.desk.start_round(actor=ctx.user, t=tid, confirm=confirm)
            return games, self.desk.elsewhere(tid) if confirm else []

        games, late = await self._run(ctx, run, tid)
        said = ", ".join(t(ctx.lang, "dom.audit.game_at", game=g.id, table=g.table, who="")
                         .rstrip(": ") for g in games)
        if late:
            said += " · " + t(ctx.lang, "dom.late", who=said_elsewhere(ctx.lang, late))
        return said

    async def tiempo(self, ctx: Context, v: dict[str, Any]) -> str:
        tid = v["t"]
        start = await self._run(ctx, lambda: self.desk.call_tiempo(actor=ctx.user, t=tid), tid)
        return datetime.fromtimestamp(start).strftime("%H:%M:%S")

    def _names_of(self, tid: str | None) -> dict[str, str]:
        return self.desk.read(lambda x: x.player_names() if x else {}, tid)

    async def penalty(self, ctx: Context, v: dict[str, Any]) -> str:
        """A player named as ``gp`` (``<game>|<player>``, the form's one list) or as ``game``
        and ``player``; no ``points``: the reason's own. ``annul``: the hand is annulled too
        (passing with a playable tile, a chivo). The answer says what the record made of it
        («segunda vez: −75 a Ana y a Beto»)."""
        game, _, player = (v["gp"] or "").partition("|")
        game, player = game or v["game"] or "", player or v["player"] or ""
        tid, annul = v["t"], bool(v["annul"])
        e = await self._run(ctx, lambda: self.desk.penalty(
            game, player, v["reason_code"] or "", v["points"], actor=ctx.user, t=tid,
            annul=annul), tid)  # fmt: skip
        return self._said(ctx, e, tid, annulled=annul)

    def _said(self, ctx: Context, e: FineResult, tid: str | None, *, annulled: bool = False
              ) -> str:
        names = self._names_of(tid)
        said = said_fine(ctx.lang, e.step, e.entries, names, expelled=e.expelled,
                         annulled=annulled)
        head = t(ctx.lang, f"dom.reason.{e.reason}")
        if not e.step.startswith(e.reason) and e.step != e.reason:
            said = f"{head} — {said}"
        warning = getattr(e, "warning", None)
        if warning:
            said += " · " + t(ctx.lang, "dom.said.table_warning", why=warning)
        return said

    async def late(self, ctx: Context, v: dict[str, Any]) -> str:
        """A player reached a game not begun after the two minutes (``gp``): the table's
        screen says it, the record decides (the first recorded, then −50)."""
        game, _, player = (v["gp"] or "").partition("|")
        tid = v["t"]
        e = await self._run(ctx, lambda: self.desk.late(game, player, actor=ctx.user, t=tid),
                            tid)
        return self._said(ctx, e, tid)

    async def absence(self, ctx: Context, v: dict[str, Any]) -> str:
        """``gp`` is ``<game>|<player>,<player>…`` (one of the form's choices)."""
        game, _, listed = v["gp"].partition("|")
        players = [p for p in listed.split(",") if p][:4]
        tid = v["t"]
        await self._run(ctx, lambda: self.desk.absence(game, players, actor=ctx.user, t=tid),
                        tid)
        names = self._names_of(tid)
        return f"{game}: " + t(ctx.lang, "dom.step.absence") + " " + and_names(
            ctx.lang, [names.get(p, p) for p in players])

    async def close(self, ctx: Context, v: dict[str, Any]) -> str:
        tid = v["t"]
        await self._run(ctx, lambda: self.desk.close_tournament(actor=ctx.user, t=tid), tid)
        return ""


def _target(v: dict[str, Any]) -> str:
    """What the audit line names: the event, then the game (``gp``: the answer names the
    player), the pair or the tournament's name."""
    what = str(v.get("gp") or "").partition("|")[0] or str(v.get("name") or v.get("pair") or "")
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
            Action("create", (S("name"), S("format", "choice", required=False, choices=FORMATS)),
                   d.create, target=_target),
            Action("register_pair", (event, S("a"), S("b")), d.register_pair, target=_target),
            Action("register_pairs", (event, S("players", "ids", required=False),
                                      S("order", required=False)),
                   d.register_pairs, target=_target),
            Action("register_players", (event, S("players", "ids", required=False)),
                   d.register_players, target=_target),
            Action("remove_pair", (event, S("pair")), d.remove_pair, target=_target),
            Action("remove_player", (event, S("player")), d.remove_player, target=_target),
            Action("start_round", (event, S("confirm", "bool", required=False)), d.start_round,
                   target=_target),
            Action("tiempo", (event,), d.tiempo, target=_target),
            Action(
                "penalty",
                (event, S("gp", required=False), S("game", required=False),
                 S("player", required=False), S("reason_code", required=False),
                 S("points", "int", required=False), S("annul", "bool", required=False)),
                d.penalty,
                target=_target,
            ),
            Action("late", (event, S("gp")), d.late, target=_target),
            Action("absence", (event, S("gp")), d.absence, target=_target),
            Action("close", (event,), d.close, target=_target),
        ]
    }


def _absence_options(tour: DominoEvent, g: Any) -> list[dict[str, str]]:
    """Who can be declared absent at once: one player, a whole pair, one of each pair."""
    seat, name = tour.seating(g), tour.seat_names(g)
    groups = [(s,) for s in ("n", "s", "e", "w")] + [("n", "s"), ("e", "w")]
    groups += [(a, b) for a in ("n", "s") for b in ("e", "w")]
    return [
        {"value": f"{g.id}|{','.join(seat[s] for s in grp)}",
         "label": f"{g.id} · " + " + ".join(f"{s.upper()} {name[s]}" for s in grp)}
        for grp in groups
    ]


def _audit(tour: DominoEvent | None) -> list[dict[str, Any]]:
    """The tournament's own audit, newest first (the last 200 lines), with the players'
    names the pages say it with."""
    if tour is None:
        return []
    return [{"seq": a.seq, "at": a.at, "actor": a.actor, "action": a.action,
             "details": a.details} for a in reversed(tour.audit[-200:])]


def said_audit_lines(lang: str, audit: list[dict[str, Any]], names: dict[str, str]
                     ) -> list[dict[str, Any]]:
    """The audit lines with their words (``said``) and the hour (``when``)."""
    return [{**a, "when": clock_of(a["at"]),
             "said": said_audit(lang, a["action"], a["details"], names)} for a in audit]


def _registry(club: Club) -> list[dict[str, str]]:
    """The club's players in Spanish alphabetical order (Á with A, Ñ after N)."""
    return sorted(({"id": p.id, "name": p.name} for p in club.registry),
                  key=lambda p: name_key(p["name"]))


def _names(club: Club, ids: Sequence[str]) -> list[str]:
    """The players' names from the club's registry; an unknown id is refused."""
    out = []
    for pid in ids:
        if pid not in club.registry:
            raise PairsError("unknown_player", f"no player {pid[:40]!r} in the registry")
        out.append(club.registry.get(pid).name)
    return out


def _side_name(names: dict[str, str], g: Any, side: str) -> str:
    return " / ".join(names.get(g.seats[s], g.seats[s]) for s in members(side))  # type: ignore[arg-type]


def _game_view(tour: DominoEvent, g: Any) -> dict[str, Any]:
    names = tour.player_names()
    pairs = isinstance(tour, PairsTournament)
    ns = g.ns if pairs else "ns"
    ew = g.ew if pairs else "ew"
    if isinstance(tour, PairsTournament):
        side_names = {"ns": tour.pairs[g.ns].name, "ew": tour.pairs[g.ew].name}
    else:
        side_names = {side: _side_name(names, g, side) for side in ("ns", "ew")}
    return {
        "id": g.id, "table": g.table, "status": g.status,
        "ns": ns, "ew": ew, "ns_name": side_names["ns"], "ew_name": side_names["ew"],
        "score": [g.hand_score.get("ns"), g.hand_score.get("ew")],
        "winner": (g.winner if pairs else g.winner_side), "winner_side": g.winner_side,
        "winner_name": side_names.get(g.winner_side or ""),
        "how": g.how, "hands": g.hands,
        "seats": [{"seat": s, "player": pid, "name": names.get(pid, pid), "side": SIDE_OF[s]}
                  for s, pid in tour.seating(g).items()],
        "absence_options": _absence_options(tour, g),
    }


def _entry_view(tour: DominoEvent, e: RecordEntry) -> dict[str, Any]:
    names = tour.player_names()
    g = tour.games.get(e.game_id)
    seat = next((s for s, p in (g.seats.items() if g else ()) if p == e.player), "")
    return {"seq": e.seq, "game": e.game_id, "player": e.player,
            "name": names.get(e.player, e.player), "seat": seat, "reason": e.reason,
            "points": e.points, "signed": signed(e.points), "games": e.games,
            "step": e.note, "offender": e.offender or e.player,
            "step_key": f"dom.step.{e.note}" if e.note != e.reason
            and f"dom.step.{e.note}" in STRINGS else "",
            "offender_name": names.get(e.offender or e.player, e.offender or e.player),
            "source": e.source, "by": e.actor, "at": e.at, "when": clock_of(e.at),
            # the first pairs pages' name: every fine is the hub's now
            "at_table": False}


def tournament_view(tour: DominoEvent | None) -> dict[str, Any]:
    """What the domino pages show (also their JSON twin), either format."""
    if tour is None:
        return {"tournament": None, "standings": [], "rounds": [], "penalties": [],
                "entries": []}
    names = tour.player_names()
    pairs = isinstance(tour, PairsTournament)
    rounds = []
    for n in range(1, tour.current_round + 1):
        at = tour.tiempo.get(n)
        rd: dict[str, Any] = {
            "n": n, "games": [_game_view(tour, g) for g in tour.round_games(n)], "tiempo": at,
            "tiempo_at": None if at is None else datetime.fromtimestamp(at).strftime("%H:%M:%S"),
            "bye": None, "sitting_out": []}
        if isinstance(tour, PairsTournament):
            bye = tour.byes[n - 1] if n - 1 < len(tour.byes) else None
            rd["bye"] = tour.pairs[bye].name if bye else None
        elif isinstance(tour, IndividualTournament) and n - 1 < len(tour.sitouts):
            rd["sitting_out"] = [names.get(p, p) for p in tour.sitouts[n - 1]]
        rounds.append(rd)
    registered = (
        [{"id": p.id, "name": p.name, "players": list(p.players), "withdrawn": p.withdrawn}
         for p in tour.pairs.values()] if isinstance(tour, PairsTournament) else
        [{"id": p.id, "name": p.name, "players": [p.id], "withdrawn": p.withdrawn}
         for p in tour.players.values()] if isinstance(tour, IndividualTournament) else [])
    entries = [_entry_view(tour, e) for e in tour.entries]
    return {
        "tournament": {"id": tour.id, "name": tour.name, "phase": tour.phase,
                       "format": tour.format, "round": tour.current_round,
                       "tiempo": tour.tiempo.get(tour.current_round)},
        "pairs": registered if pairs else [],
        "players": [] if pairs else registered,
        "standings": final_rows(tour),
        "rounds": rounds,
        "entries": entries,
        "penalties": entries,
    }
