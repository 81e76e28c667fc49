"""The director's actions: each one named, its fields checked, run, and written to the audit log.

An action either does everything it says or nothing: tournament actions run on the desk's thread
and are rolled back from the store if the engine refuses; table actions are commands the table
itself accepts or refuses (its answer is awaited). Either way the audit log records who, what,
on what, why, and how it went.

>>> sorted(ACTIONS)[:4]
['adjust_clock', 'adopt_table', 'assign', 'check_in']
>>> parse_fields(ACTIONS["settle_game"], {"table": "3", "winner": "b", "kind": "2",
...                                       "reason": "disputa resuelta"})
{'table': '3', 'winner': 'b', 'kind': '2', 'reason': 'disputa resuelta'}
>>> parse_fields(ACTIONS["adjust_clock"], {"table": "3", "side": "a", "seconds": "-30",
...                                        "reason": "reloj mal puesto"})
{'table': '3', 'side': 'a', 'seconds': -30.0, 'reason': 'reloj mal puesto'}
>>> parse_fields(ACTIONS["adjust_clock"], {"table": "3", "side": "c", "seconds": "x"})
Traceback (most recent call last):
  ...
mesa.hub.web.actions.BadField: side
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from mesa.errors import MesaError, RuleError
from mesa.hub.web import enrolment
from mesa.hub.web.auth import csrf_ok
from mesa.hub.web.http import address, read_form, refuse, safe_next, set_flash, wants_json
from mesa.hub.web.i18n import Translator
from mesa.hub.web.i18n import text as t
from mesa.hub.web.paths import path_for
from mesa.hub.web.site import Site
from mesa.tournament.club import Club
from mesa.tournament.errors import TournamentError
from mesa.tournament.i18n import refusal_of
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.tournament import Tournament

log = logging.getLogger("mesa.web")


# How long a table command waits for the table's answer before the director is told so.
COMMAND_WAIT_SECONDS = 5.0


class BadField(MesaError):
    """A form field that is missing or malformed; ``str(e)`` is the field's name."""


class Refused(MesaError):
    """The action was refused; nothing changed. ``message`` is already in the user's language."""

    def __init__(
        self,
        message: str,
        *,
        code: str = "refused",
        status: int = 409,
        detail: str = "",
        said: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.detail = detail
        # What was refused, language-free ({"code", "reason", "params"}), so the audit log can
        # say it again in whichever language its reader chose.
        self.said = said or {"code": code}


@dataclass(frozen=True)
class Field:
    name: str
    kind: str = "str"  # str, text, int, float, bool, side, choice, date, ids (a list of ids)
    required: bool = True
    choices: tuple[str, ...] = ()
    default: Any = None


@dataclass(frozen=True)
class Action:
    name: str
    fields: tuple[Field, ...]
    run: Callable[[Context, dict[str, Any]], Awaitable[str]]
    reason_required: bool = False
    target: Callable[[dict[str, Any]], str] = lambda v: ""


@dataclass
class Context:
    """What an action runs with: the dashboard's shared state, who, in which language, from
    where, how to publish the static results; ``extra`` carries facts back to the answer."""

    web: Site
    user: str
    lang: str
    address: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    publish_static: Callable[[str], Awaitable[str | None]] | None = None


def parse_fields(action: Action, form: dict[str, Any]) -> dict[str, Any]:
    """Check and convert the submitted values; raise :class:`BadField` naming the bad one."""
    out: dict[str, Any] = {}
    for f in (*action.fields, Field("reason", "text", action.reason_required)):
        raw = form.get(f.name)
        if isinstance(raw, str):
            raw = raw.strip()
        if f.kind == "ids" and raw == "":
            # Sent, and empty: "none" is an answer (a confirmation that lists nothing), unlike
            # a field the form did not send at all.
            out[f.name] = []
            continue
        if raw in (None, "") or raw == []:
            if f.kind == "bool":
                out[f.name] = False
                continue
            if f.required:
                raise BadField(f.name)
            out[f.name] = f.default if f.default is not None else ("" if f.kind == "text" else None)
            continue
        try:
            out[f.name] = _convert(f, raw)
        except (ValueError, TypeError):
            raise BadField(f.name) from None
    return out


def _convert(f: Field, raw: Any) -> Any:
    if f.kind == "ids":
        # Repeated form fields (ticked checkboxes) or one comma/newline separated string.
        items = raw if isinstance(raw, list) else str(raw).replace(",", "\n").splitlines()
        ids = [str(x).strip() for x in items if str(x).strip()]
        if len(ids) > 500 or any(len(x) > 64 for x in ids):
            raise ValueError("too many or too long")
        return list(dict.fromkeys(ids))
    if isinstance(raw, list):
        raise ValueError("repeated field")
    if f.kind in ("str", "text"):
        value = str(raw)
        if len(value) > (20000 if f.kind == "text" else 200):
            raise ValueError("too long")
        return value
    if f.kind == "int":
        return int(str(raw))
    if f.kind == "float":
        number = float(str(raw).replace(",", "."))
        if number != number or number in (float("inf"), float("-inf")):
            raise ValueError("not finite")
        return number
    if f.kind == "bool":
        return str(raw).lower() in ("1", "on", "true", "yes", "sí", "si")
    if f.kind == "side":
        if raw not in ("a", "b"):
            raise ValueError(raw)
        return raw
    if f.kind == "choice":
        if raw not in f.choices:
            raise ValueError(raw)
        return raw
    if f.kind == "date":
        return date.fromisoformat(str(raw))
    raise ValueError(f.kind)


# ── turning engine and table errors into the director's language ───────────
def refusal_from(e: Exception, lang: str) -> Refused:
    """An engine or rule refusal said in ``lang``: the kind (``err.<code>``) and, for the
    engine, exactly what (its ``reason`` and ``params``); never the English ``str(e)``."""
    code = str(getattr(e, "code", "other"))
    head = t(lang, f"err.{code}") if f"err.{code}" in _known_errors() else t(lang, "err.other")
    detail = refusal_of(e, lang) if isinstance(e, TournamentError) else ""
    why = f"{head} ({detail})" if detail and detail != head else head
    said: dict[str, Any] = {"code": code}
    if isinstance(e, TournamentError):
        said |= {"reason": e.reason, "params": _plain(e.params)}
    return Refused(
        t(lang, "flash.refused", why=why), code=code, status=409, detail=detail, said=said
    )


def _plain(params: dict[str, object]) -> dict[str, Any]:
    """Params as JSON can keep them (numbers and strings)."""
    return {k: v if isinstance(v, (int, float, str)) else str(v) for k, v in params.items()}


# A form field's name as the director reads it in a refusal (the form's own label).
FIELD_LABELS = {"player_id": "form.player", "match_id": "col.match", "group": "col.group",
                "new_name": "form.name", "a": "form.score_a", "b": "form.score_b",
                "preset": "form.clock_preset", "seconds": "form.seconds"}  # fmt: skip


def field_label(field: str, lang: str) -> str:
    """``match_id`` → «Partida»; a field without a label keeps its name."""
    from mesa.hub.web.i18n import STRINGS

    key = FIELD_LABELS.get(field, f"form.{field}")
    return t(lang, key) if key in STRINGS else field


def _known_errors() -> set[str]:
    from mesa.hub.web.i18n import STRINGS

    return set(STRINGS)


async def _desk(ctx: Context, fn: Callable[[Club, datetime], Any]) -> Any:
    """Run a tournament change on the desk's thread; engine refusals become :class:`Refused`."""
    try:
        return await asyncio.wrap_future(ctx.web.desk.submit(fn))
    except (TournamentError, RuleError) as e:
        raise refusal_from(e, ctx.lang) from None
    except KeyError as e:
        raise Refused(
            t(ctx.lang, "flash.refused", why=t(ctx.lang, "err.other") + f" ({e.args[0]})"),
            code="unknown",
        ) from None


def _current(club: Club, lang: str) -> Tournament:
    desk_current = _current_of(club)
    if desk_current is None:
        raise Refused(
            t(lang, "flash.refused", why=t(lang, "err.no_tournament")), code="no_tournament"
        )
    return desk_current


def _current_of(club: Club) -> Tournament | None:
    ts = sorted(club.tournaments.values(), key=lambda x: (x.held_on, x.id))
    open_ = [x for x in ts if x.phase != "closed"]
    return open_[-1] if open_ else (ts[-1] if ts else None)


def _open(club: Club, lang: str) -> Tournament:
    tt = _current(club, lang)
    if tt.phase == "closed":
        raise Refused(t(lang, "flash.refused", why=t(lang, "err.closed")), code="closed")
    return tt


def _score_text(score_a: int, score_b: int, forfeit: bool) -> str:
    return f"{score_a}-{score_b}" + ("F" if forfeit else "")


def _release_stale(ctx: Context) -> None:
    """On the desk's thread, after the director decided or moved matches: a table still
    holding one of them is told to let it go (RULES: the director can always move on)."""
    released = ctx.web.desk.release_stale()
    if released:
        ctx.extra.setdefault("released", []).extend(released)


# ── table commands ──────────────────────────────────────────────────────────
async def table_command(ctx: Context, table: str, name: str, args: dict[str, Any]) -> None:
    """Send ``name`` to ``table`` and wait for the table's answer; refuse clearly otherwise."""
    web, lang = ctx.web, ctx.lang
    card = next((c for c in web.poller.current() if c["id"] == table), None)
    if card is None:
        raise Refused(t(lang, "flash.no_table", table=table), code="no_table", status=404)
    if card["state"] == "match_over" and name not in ("director_clear_call", "director_score"):
        raise Refused(
            t(lang, "flash.finished", match=card.get("match_id") or table), code="finished"
        )
    if card["link"] != "online":
        raise Refused(t(lang, "flash.refused", why=t(lang, "err.offline")), code="offline")
    try:
        txn = web.hub.command(table, name, args)
    except MesaError as e:
        raise Refused(
            t(lang, "flash.refused", why=t(lang, "err.bad_input")),
            code=getattr(e, "code", "bad_input"),
            detail=str(e),
        ) from None
    deadline = time.monotonic() + web.settings.command_wait
    while time.monotonic() < deadline:
        status = await asyncio.to_thread(web.hub.command_status, txn)
        if status is not None and status.get("accepted") is not None:
            if status["accepted"]:
                ctx.extra["txn"] = txn
                return
            code = status.get("code") or "other"
            key = f"err.{code}" if f"err.{code}" in _known_errors() else "err.other"
            # The table's ``reason`` is English prose for its log; the director reads the code.
            why = t(lang, key)
            raise Refused(
                t(lang, "flash.refused", why=why), code=code, detail=status.get("reason") or ""
            )
        await asyncio.sleep(0.05)
    # Sent but not confirmed (the table is offline or slow): not a failure of the hub. The
    # broker keeps the command for the table's session, so it applies when the table is back;
    # the director is told so, and the audit line says "pending".
    ctx.extra["txn"] = txn
    ctx.extra["pending"] = table


# ── the actions ─────────────────────────────────────────────────────────────
async def create_tournament(ctx: Context, v: dict[str, Any]) -> str:
    held_on: date = v["date"]
    tid = v["id"] or held_on.isoformat()
    settings = TournamentSettings(consolation=bool(v["consolation"]))

    def run(club: Club, now: datetime) -> str:
        club.create_tournament(
            tid,
            v["name"],
            held_on,
            category=v["category"],
            official=bool(v["official"]),
            settings=settings,
        )
        return tid

    return await _desk(ctx, run)


async def import_ranking(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        got = club.import_ranking(
            v["csv"],
            year=v["year"],
            category=v["category"],
            create_missing=bool(v["create_missing"]),
        )
        return f"{len(got.ranking.entries)}"

    return await _desk(ctx, run)


async def register_player(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = _open(club, ctx.lang)
        pid = v["player_id"]
        if not pid:
            if not v["new_name"]:
                raise BadField("new_name")
            found = club.registry.find_name(v["new_name"])
            pid = (
                found.id if found else club.registry.add_new(v["new_name"], category=tt.category).id
            )
        club.register(tt.id, pid, override=bool(v["override"]), actor=ctx.user, now=now)
        return tt.name_of(pid)

    return await _desk(ctx, run)


async def unregister_player(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = _open(club, ctx.lang)
        name = tt.name_of(v["player_id"])
        tt.unregister(v["player_id"], actor=ctx.user, now=now)
        return name

    return await _desk(ctx, run)


async def check_in(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club) -> tuple[str, str]:
        tt = _open(club, ctx.lang)
        if v["player_id"] not in tt.entrants:
            raise Refused(
                t(ctx.lang, "flash.refused", why=t(ctx.lang, "err.unknown_player")),
                code="unknown_player",
            )
        return tt.id, tt.name_of(v["player_id"])

    tid, name = await asyncio.wrap_future(ctx.web.desk.submit_read(run))
    present = v["present"] if v.get("present") is not None else True
    ctx.web.store.set_checkin(tid, v["player_id"], bool(present), ctx.user)
    ctx.web.bump()
    return name


async def start_consolation(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = _open(club, ctx.lang)
        tt.start_consolation(actor=ctx.user, now=now)
        return str(len(tt.consolation.players) if tt.consolation else 0)

    return await _desk(ctx, run)


async def assign(ctx: Context, v: dict[str, Any]) -> str:
    desk = ctx.web.desk
    _confirm_table(ctx, v["table"], bool(v["confirm_table"]))

    def run(club: Club, now: datetime) -> str:
        tt = _open(club, ctx.lang)
        _require_table(ctx, v["table"])
        a = desk.assign_match(tt, v["match_id"], v["table"], now, ctx.user)
        desk.publish_assignment(tt, a, now)
        return a.table

    return await _desk(ctx, run)


async def move(ctx: Context, v: dict[str, Any]) -> str:
    desk = ctx.web.desk

    def run(club: Club, now: datetime) -> str:
        tt = _open(club, ctx.lang)
        _require_table(ctx, v["table"])
        old = tt.match(v["match_id"]).table
        a = tt.move_match(v["match_id"], v["table"], actor=ctx.user, now=now)
        if old and old != a.table:
            desk.withdraw_assignment(old)
        desk.publish_assignment(tt, a, now)
        return f"{old} → {a.table}"

    return await _desk(ctx, run)


async def unassign(ctx: Context, v: dict[str, Any]) -> str:
    desk = ctx.web.desk

    def run(club: Club, now: datetime) -> str:
        tt = _open(club, ctx.lang)
        old = tt.match(v["match_id"]).table
        tt.unassign(v["match_id"], actor=ctx.user, now=now)
        if old:
            desk.withdraw_assignment(old)
        return old or ""

    return await _desk(ctx, run)


def table_warning(card: dict[str, Any] | None, lang: str) -> str:
    """Why a table is a bad choice for a new match ("" when it is free and connected).

    >>> table_warning({"id": "4", "link": "offline", "state": "idle"}, "es")
    'la mesa 4 está desconectada: ¿asignar igualmente?'
    >>> table_warning({"id": "4", "link": "online", "state": "idle"}, "es")
    ''
    """
    if card is None:
        return ""
    if card.get("link") != "online":
        return t(lang, "assign.offline", table=card["id"])
    if card.get("state") not in ("idle", "match_over"):
        return t(lang, "assign.busy", table=card["id"])
    return ""


def _confirm_table(ctx: Context, table: str, confirmed: bool) -> None:
    """An offline or busy table only with the director's confirmation."""
    card = next((c for c in ctx.web.poller.current() if c["id"] == table), None)
    warning = table_warning(card, ctx.lang)
    if warning and not confirmed:
        raise Refused(warning, code="table_not_free")


def _require_table(ctx: Context, table: str) -> None:
    if ctx.web.hub is None or not ctx.web.hub.store.known(table):
        raise Refused(t(ctx.lang, "flash.no_table", table=table), code="no_table", status=404)


async def set_clock(ctx: Context, v: dict[str, Any]) -> str:
    """On a table: the table's own formula for the points already played (HGV 7.6.2)."""
    preset = v["preset"]
    clock = None if preset == "none" else {"preset": preset}
    await table_command(ctx, v["table"], "director_clock", {"clock": clock})
    return preset


async def record_result(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = _open(club, ctx.lang)
        m = tt.match(v["match_id"])
        if m.status in ("assigned", "playing") and m.table:
            # The table is still running it: its result would arrive later and disagree.
            raise Refused(
                t(
                    ctx.lang,
                    "flash.refused",
                    why=t(ctx.lang, "err.table_unavailable") + f" ({m.id} @ {m.table})",
                ),
                code="at_table",
            )
        tt.record_result(
            v["match_id"],
            v["score_a"],
            v["score_b"],
            forfeit=bool(v["forfeit"]),
            source="director",
            actor=ctx.user,
            now=now,
        )
        _release_stale(ctx)
        return _score_text(v["score_a"], v["score_b"], bool(v["forfeit"]))

    return await _desk(ctx, run)


async def correct_result(ctx: Context, v: dict[str, Any]) -> str:
    """HGV 4.8. ``expected`` is the result the director was looking at: if another director
    changed it in between, nothing is applied and both see why."""

    def run(club: Club, now: datetime) -> str:
        tt = _current(club, ctx.lang)
        m = tt.match(v["match_id"])
        if m.result is None:
            raise Refused(
                t(ctx.lang, "flash.refused", why=t(ctx.lang, "err.match_not_ready")),
                code="match_not_ready",
            )
        r = m.result
        now_text = _score_text(r.score_a, r.score_b, r.forfeit)
        if v["expected"] and v["expected"] != now_text:
            raise Refused(t(ctx.lang, "flash.conflict", now=now_text), code="edit_conflict")
        out = tt.correct_result(
            v["match_id"],
            v["score_a"],
            v["score_b"],
            forfeit=bool(v["forfeit"]),
            actor=ctx.user,
            now=now,
            reason=v["reason"],
        )
        if out.conflict is not None:
            ctx.extra["conflict"] = out.conflict.id
        if tt.phase == "closed":
            club.refresh(tt.id)
        _release_stale(ctx)
        return f"{now_text} → {_score_text(v['score_a'], v['score_b'], bool(v['forfeit']))}"

    return await _desk(ctx, run)


async def resolve_conflict(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = _current(club, ctx.lang)
        expected = v["expected"]
        tt.resolve_conflict(
            v["conflict_id"], v["resolution"], actor=ctx.user, now=now, expected=expected
        )
        if tt.phase == "closed":
            club.refresh(tt.id)
        _release_stale(ctx)
        c = next(x for x in tt.conflicts if x.id == v["conflict_id"])
        annulled = [a["match_id"] for a in c.annulled if "match_id" in a]
        ctx.extra["annulled"] = annulled
        return v["resolution"] + (f": {', '.join(annulled)}" if annulled else "")

    return await _desk(ctx, run)


async def correct_score(ctx: Context, v: dict[str, Any]) -> str:
    await table_command(
        ctx, v["table"], "director_score", {"a": v["a"], "b": v["b"], "reason": v["reason"]}
    )
    return f"{v['a']}-{v['b']}"


# The table's own limit on one adjustment (a day): refused here, with the field named.
MAX_ADJUST_SECONDS = 86400.0


async def adjust_clock(ctx: Context, v: dict[str, Any]) -> str:
    if abs(v["seconds"]) > MAX_ADJUST_SECONDS:
        raise Refused(
            t(ctx.lang, "flash.bad_value", field=field_label("seconds", ctx.lang)),
            code="bad_value",
            status=400,
        )
    await table_command(
        ctx, v["table"], "director_adjust", {"side": v["side"], "seconds": v["seconds"]}
    )
    return f"{v['side'].upper()} {v['seconds']:+g} s"


async def lose_delay(ctx: Context, v: dict[str, Any]) -> str:
    await table_command(ctx, v["table"], "director_lose_delay", {"side": v["side"]})
    return str(v["side"]).upper()


async def pause(ctx: Context, v: dict[str, Any]) -> str:
    await table_command(ctx, v["table"], "director_pause", {"reason": v["why"] or "director"})
    return v["why"] or "director"


async def resume(ctx: Context, v: dict[str, Any]) -> str:
    await table_command(ctx, v["table"], "director_resume", {})
    return ""


async def clear_call(ctx: Context, v: dict[str, Any]) -> str:
    await table_command(ctx, v["table"], "director_clear_call", {})
    return ""


async def forfeit(ctx: Context, v: dict[str, Any]) -> str:
    """A match lost by forfeit: at its table (the table ends it) or, off the tables, directly."""
    desk = ctx.web.desk

    def where(club: Club) -> tuple[str | None, str | None]:
        tt = _open(club, ctx.lang)
        m = tt.match(v["match_id"])
        if m.status == "done":
            raise Refused(
                t(ctx.lang, "flash.refused", why=t(ctx.lang, "err.already_decided")),
                code="already_decided",
            )
        return (m.table if m.status in ("assigned", "playing") else None), m.status

    table, _ = await asyncio.wrap_future(desk.submit_read(where))
    if table is not None:
        await table_command(
            ctx, table, "director_forfeit", {"winner": v["winner"], "reason": v["reason"]}
        )
        return f"{v['match_id']} @ {table}"

    def run(club: Club, now: datetime) -> str:
        tt = _open(club, ctx.lang)
        m = tt.match(v["match_id"])
        score = (m.length, 0) if v["winner"] == "a" else (0, m.length)
        tt.record_result(m.id, *score, forfeit=True, source="director", actor=ctx.user, now=now)
        _release_stale(ctx)
        return _score_text(*score, True)

    return await _desk(ctx, run)


async def sanction(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = _open(club, ctx.lang)
        club.withdraw(tt.id, v["player_id"], v["kind"], actor=ctx.user, now=now, note=v["reason"])
        _release_stale(ctx)
        return f"{tt.name_of(v['player_id'])}: {v['kind']}"

    return await _desk(ctx, run)


async def release_table(ctx: Context, v: dict[str, Any]) -> str:
    """Liberar mesa: withdraw the retained assignment of a table that holds a match no longer
    its to play (decided, annulled, moved); the table goes back to idle."""
    desk = ctx.web.desk

    def run(club: Club, now: datetime) -> str:
        _require_table(ctx, v["table"])
        stale = desk.stale_hold(v["table"])
        foreign = desk.foreign_hold(v["table"]) if stale is None else None
        if foreign is not None:
            stale = (foreign, "foreign")
        if stale is None:
            live = ctx.web.hub.table(v["table"]) or {}
            held = live.get("match_id") if live.get("state") != "idle" else None
            key, code = ("err.match_live", "match_live") if held else ("err.nothing_held", "idle")
            raise Refused(
                t(ctx.lang, "flash.refused", why=t(ctx.lang, key) + (f" ({held})" if held else "")),
                code=code,
            )
        desk.release_table(v["table"])
        return f"{stale[0]}: {t(ctx.lang, 'hold.' + stale[1])}"

    return await _desk(ctx, run)


async def settle_game(ctx: Context, v: dict[str, Any]) -> str:
    """A disputed game settled by the director: the table records it (its ``director_result``),
    as if both players had confirmed; the match goes on (or ends) at the table as usual."""
    await table_command(
        ctx, v["table"], "director_result", {"winner": v["winner"], "kind": int(v["kind"])}
    )
    return f"{v['winner']} ×{v['kind']}"


async def roll_dice(ctx: Context, v: dict[str, Any]) -> str:
    """Criterion 4 of HGV 7.2.3: the director's dice, or the hub rolls them (recorded)."""

    def run(club: Club, now: datetime) -> str:
        tt = _open(club, ctx.lang)
        players = [p for p in (v["players"] or "").split(",") if p]
        if len(players) < 2:
            pending = [tie for g, tie in tt.pending_dice() if g == v["group"]]
            if not pending:
                raise Refused(
                    t(ctx.lang, "flash.refused", why=t(ctx.lang, "dir.no_ties")), code="no_tie"
                )
            players = list(pending[0])
        if v["values"]:
            numbers = [int(x) for x in v["values"].replace(";", ",").split(",") if x.strip()]
            if len(numbers) != len(players):
                raise BadField("values")
            values = dict(zip(players, numbers, strict=True))
        else:
            while True:  # equal dice decide nothing: roll again, as at the table
                values = {p: secrets.randbelow(6) + 1 for p in players}
                if len(set(values.values())) == len(values):
                    break
        tt.enter_dice(v["group"], values, actor=ctx.user, now=now)
        return ", ".join(f"{tt.name_of(p)} {d}" for p, d in values.items())

    return await _desk(ctx, run)


async def close(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = _open(club, ctx.lang)
        club.close(tt.id, actor=ctx.user, now=now)
        return tt.id

    tid = await _desk(ctx, run)
    if ctx.publish_static is not None:
        ctx.extra["published"] = await ctx.publish_static(tid)
    return tid


async def adopt_table(ctx: Context, v: dict[str, Any]) -> str:
    """ "Mesa nueva": give a waiting Pi its table number (hub/web/enrolment.py)."""
    try:
        table = await enrolment.adopt_table(ctx.web, ctx.lang, v["serial"], v["table"], bool(v["replace"]))
    except enrolment.AdoptRefused as r:
        raise Refused(
            t(ctx.lang, "flash.refused", why=r.message), code=r.code, status=r.status
        ) from None
    ctx.extra["table"] = table
    ctx.extra["serial"] = v["serial"]
    return ""


def _tgt(*keys: str) -> Callable[[dict[str, Any]], str]:
    def target(v: dict[str, Any]) -> str:
        # A side is a player's letter: "2 · A", never "2 a" (which reads as a preposition).
        return " · ".join(
            str(v[k]).upper() if k == "side" else str(v[k])
            for k in keys
            if v.get(k) not in (None, "")
        )

    return target


S = Field  # short for the table below
ACTIONS: dict[str, Action] = {
    a.name: a
    for a in [
        Action(
            "create_tournament",
            (
                S("name"),
                S("date", "date"),
                S("id", required=False),
                S(
                    "category",
                    "choice",
                    required=False,
                    choices=("open", "novatos"),
                    default="open",
                ),
                S("official", "bool", required=False),
                S("consolation", "bool", required=False),
            ),
            create_tournament,
            target=_tgt("name", "date"),
        ),
        Action(
            "import_ranking",
            (
                S("csv", "text"),
                S("year", "int"),
                S(
                    "category",
                    "choice",
                    required=False,
                    choices=("open", "novatos"),
                    default="open",
                ),
                S("create_missing", "bool", required=False),
            ),
            import_ranking,
            target=_tgt("year", "category"),
        ),
        Action(
            "register_player",
            (
                S("player_id", required=False),
                S("new_name", required=False),
                S("override", "bool", required=False),
            ),
            register_player,
            target=_tgt("player_id", "new_name"),
        ),
        Action("unregister_player", (S("player_id"),), unregister_player, target=_tgt("player_id")),
        Action(
            "check_in",
            (S("player_id"), S("present", "bool", required=False)),
            check_in,
            target=_tgt("player_id"),
        ),
        Action("start_consolation", (), start_consolation),
        Action(
            "assign",
            (S("match_id"), S("table"), S("confirm_table", "bool", required=False)),
            assign,
            target=_tgt("match_id", "table"),
        ),
        Action(
            "move",
            (S("match_id"), S("table")),
            move,
            reason_required=True,
            target=_tgt("match_id", "table"),
        ),
        Action("unassign", (S("match_id"),), unassign, target=_tgt("match_id")),
        Action(
            "set_clock",
            (S("table"), S("preset", "choice", choices=("singles", "usbgf", "standard", "none"))),
            set_clock,
            target=_tgt("table"),
        ),
        Action(
            "record_result",
            (
                S("match_id"),
                S("score_a", "int"),
                S("score_b", "int"),
                S("forfeit", "bool", required=False),
            ),
            record_result,
            target=_tgt("match_id"),
        ),
        Action(
            "correct_result",
            (
                S("match_id"),
                S("score_a", "int"),
                S("score_b", "int"),
                S("forfeit", "bool", required=False),
                S("expected", required=False),
            ),
            correct_result,
            reason_required=True,
            target=_tgt("match_id"),
        ),
        Action(
            "resolve_conflict",
            (
                S("conflict_id"),
                S("resolution", "choice", choices=("keep", "apply", "apply_keep_draw")),
                # What "apply" annuls, as the page showed it: a whole knockout can be listed.
                S("expected", "ids", required=False),
            ),
            resolve_conflict,
            target=_tgt("conflict_id"),
        ),
        Action(
            "correct_score",
            (S("table"), S("a", "int"), S("b", "int")),
            correct_score,
            reason_required=True,
            target=_tgt("table"),
        ),
        Action(
            "adjust_clock",
            (S("table"), S("side", "side"), S("seconds", "float")),
            adjust_clock,
            reason_required=True,
            target=_tgt("table", "side"),
        ),
        Action(
            "lose_delay",
            (S("table"), S("side", "side")),
            lose_delay,
            reason_required=True,
            target=_tgt("table", "side"),
        ),
        Action(
            "pause",
            (
                S("table"),
                S(
                    "why",
                    "choice",
                    required=False,
                    choices=("director", "dispute", "fallen_die", "break", "unspecified"),
                ),
            ),
            pause,
            target=_tgt("table"),
        ),
        Action("resume", (S("table"),), resume, target=_tgt("table")),
        Action("clear_call", (S("table"),), clear_call, target=_tgt("table")),
        Action(
            "forfeit",
            (S("match_id"), S("winner", "side")),
            forfeit,
            reason_required=True,
            target=_tgt("match_id"),
        ),
        Action(
            "sanction",
            (S("player_id"), S("kind", "choice", choices=("left", "no_show"))),
            sanction,
            reason_required=True,
            target=_tgt("player_id"),
        ),
        Action(
            "roll_dice",
            (S("group", "int"), S("players", required=False), S("values", required=False)),
            roll_dice,
            target=_tgt("group"),
        ),
        Action("release_table", (S("table"),), release_table, target=_tgt("table")),
        Action(
            "settle_game",
            (S("table"), S("winner", "side"), S("kind", "choice", choices=("1", "2", "3"))),
            settle_game,
            reason_required=True,
            target=_tgt("table"),
        ),
        Action("close", (), close),
        Action(
            "adopt_table",
            (S("serial"), S("table"), S("replace", "bool", required=False)),
            adopt_table,
            # The audit line reads "mesa nueva adoptada · <serial> → mesa 7".
            target=lambda v: f"{v['serial']} → mesa {v['table']}",
        ),
    ]
}


# ── the endpoint ────────────────────────────────────────────────────────────
class ActionEndpoint:
    """``POST /director/actions/<name>``; ``publish_static`` writes the results on ``close``."""

    def __init__(
        self,
        site: Site,
        publish_static: Callable[[str], Awaitable[str | None]] | None = None,
        actions: dict[str, Action] | None = None,
    ) -> None:
        self.site = site
        self.publish_static = publish_static
        self.actions = ACTIONS if actions is None else actions

    async def action(self, request: Request) -> Response:
        """POST /director/actions/<name>: login, CSRF, fields, run, audit, answer."""
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
        token = request.headers.get("x-csrf-token") or form.get("csrf")
        if not csrf_ok(session.csrf, token):
            log.warning("CSRF refused for %s on %s from %s", session.user, name, address(request))
            return refuse(request, lang, "csrf", tr("flash.csrf"), 403)
        spec = self.actions.get(name)
        if spec is None:
            return refuse(
                request, lang, "unknown_action", tr("flash.unknown_action", name=name[:50]), 404
            )
        try:
            values = parse_fields(spec, form)
        except BadField as e:
            field = str(e)
            key = "flash.reason_required" if field == "reason" else "flash.bad_value"
            return refuse(request, lang, "bad_value", tr(key, field=field_label(field, lang)), 400)
        ctx = Context(
            self.site, session.user, lang, address(request), publish_static=self.publish_static
        )
        target = spec.target(values)
        params = {k: v for k, v in values.items() if k not in ("reason", "csv", "names")}
        for text in ("csv", "names"):
            if text in values:
                params[f"{text}_lines"] = len(str(values[text] or "").splitlines())
        try:
            detail = await spec.run(ctx, values)
        except BadField as e:
            return refuse(
                request, lang, "bad_value",
                tr("flash.bad_value", field=field_label(str(e), lang)), 400,
            )  # fmt: skip
        except (Refused, TournamentError, RuleError) as e:
            # an engine refusal outside _desk (e.g. a read of an unknown match) is a refusal too
            r = e if isinstance(e, Refused) else refusal_from(e, lang)
            self.site.store.audit(
                session.user,
                name,
                target=target,
                reason=values.get("reason", ""),
                params=params | {"refused": r.said},
                outcome="refused",
                detail=r.detail or r.message,
                address=ctx.address,
            )
            return refuse(request, lang, r.code, r.message, r.status)
        what = (
            tr(f"act.{name}")
            + (f" · {target}" if target else "")
            + (f" ({detail})" if detail else "")
        )
        message = tr("flash.done", what=what)
        if ctx.extra.get("released"):
            message += " " + tr("flash.released", tables=", ".join(ctx.extra["released"]))
        if ctx.extra.get("conflict"):
            message = tr("flash.conflict_opened", match=values.get("match_id", ""))
        pending = ctx.extra.get("pending")
        if pending:
            message = tr("flash.table_pending", table=pending)
        self.site.store.audit(
            session.user,
            name,
            target=target,
            reason=values.get("reason", ""),
            params=params,
            outcome="pending" if pending else "ok",
            detail=str(detail or "")
            + (
                f" [released: {', '.join(ctx.extra['released'])}]"
                if ctx.extra.get("released")
                else ""
            ),
            address=ctx.address,
        )
        self.site.refresh_live()  # the grid shows the effect at once
        if wants_json(request) or request.headers.get("x-csrf-token") is not None:
            return JSONResponse(
                {
                    "ok": True,
                    "message": message,
                    "detail": detail,
                    **{k: v for k, v in ctx.extra.items() if k != "published"},
                },
                status_code=202 if pending else 200,
            )
        back = (
            safe_next(form.get("next"))
            or safe_next(request.headers.get("referer"), request.headers.get("host"))
            or path_for("director")
        )
        resp = RedirectResponse(back, status_code=303)
        set_flash(resp, "info" if pending else "ok", message)
        return resp
