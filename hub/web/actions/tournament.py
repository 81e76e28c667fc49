"""The director's tournament actions: each runs on the desk's thread (:func:`on_desk`), which
rolls the change back from the store if the engine refuses, and says the refusal in the
director's language.

Also what any game's tournament action needs: the tournament the form names (its ``t``; without
one, the default), refused when there is none or ``t`` names none (:func:`current_or_refuse`) or
when it is closed (:func:`open_tournament`).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from mesa.errors import MesaError, RuleError
from mesa.hub.web.actions.registry import BadField, Context, Refused, refusal_from
from mesa.hub.web.actions.tables import confirm_table, require_table, table_command
from mesa.hub.web.events import UnknownEvent, chosen_event, default_id, open_events
from mesa.hub.web.http.paths import path_for
from mesa.hub.web.i18n import text as t
from mesa.tournament.club import Club
from mesa.tournament.errors import TournamentError
from mesa.tournament.matches import ClockPreset
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.tournament import Tournament
from mesa.words import format_clock


async def on_desk(ctx: Context, fn: Callable[[Club, datetime], Any]) -> Any:
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


def current_or_refuse(
    club: Club, lang: str, event: str | None = None, *, match_id: str | None = None
) -> Tournament:
    """The tournament ``event`` names (the form's ``t``), else the one a page without ``t``
    shows (:func:`~mesa.hub.web.events.default_event`) or, for a ``match_id`` that one does
    not have, the newest open event that has it (a script that names no event); :class:`Refused`
    when there is none or ``event`` names no tournament (never another one)."""
    try:
        chosen: Tournament | None = chosen_event(club, event)
        if event is None and match_id and (chosen is None or match_id not in chosen.matches):
            chosen = next(
                (x for x in reversed(open_events(club)) if match_id in x.matches), chosen
            )
    except UnknownEvent:
        raise Refused(
            t(lang, "flash.refused", why=t(lang, "err.unknown_tournament") + f" ({(event or '')[:40]})"),
            code="unknown_tournament", status=404,
        ) from None  # fmt: skip
    if chosen is None:
        raise Refused(
            t(lang, "flash.refused", why=t(lang, "err.no_tournament")), code="no_tournament"
        )
    return chosen


def open_tournament(
    club: Club, lang: str, event: str | None = None, *, match_id: str | None = None
) -> Tournament:
    """:func:`current_or_refuse`, refused too when that tournament is closed."""
    tt = current_or_refuse(club, lang, event, match_id=match_id)
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

async def create_tournament(ctx: Context, v: dict[str, Any]) -> str:
    held_on: date = v["date"]
    settings = TournamentSettings(consolation=bool(v["consolation"]))

    def run(club: Club, now: datetime) -> str:
        # several events share an evening: the default id says the category and never collides
        tid = v["id"] or default_id(club, held_on, v["category"] or "open")
        club.create_tournament(
            tid,
            v["name"],
            held_on,
            category=v["category"],
            official=bool(v["official"]),
            settings=settings,
        )
        return tid

    made = await on_desk(ctx, run)
    ctx.extra["goto"] = path_for("director_tournament", t=made)  # the new event's own page
    return str(made)


async def import_ranking(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        got = club.import_ranking(
            v["csv"],
            year=v["year"],
            category=v["category"],
            create_missing=bool(v["create_missing"]),
        )
        return f"{len(got.ranking.entries)}"

    return await on_desk(ctx, run)


async def register_player(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event)
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

    return await on_desk(ctx, run)


async def unregister_player(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event)
        name = tt.name_of(v["player_id"])
        tt.unregister(v["player_id"], actor=ctx.user, now=now)
        return name

    return await on_desk(ctx, run)


async def check_in(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club) -> tuple[str, str]:
        tt = open_tournament(club, ctx.lang, ctx.event)
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


async def reserve_tables(ctx: Context, v: dict[str, Any]) -> str:
    """The tables this event keeps for its own matches ("4, 5"; empty: none), RULES §4."""
    wanted = [x for x in str(v["tables"] or "").replace(";", ",").replace(" ", ",").split(",")]
    cards = {c["id"]: c for c in ctx.web.poller.current()}
    for table in (x.strip() for x in wanted if x.strip()):
        # A table the hub knows, and a backgammon one: a typo or a domino table reserved
        # would only keep a table from the evening silently.
        if ctx.web.hub is None or not ctx.web.hub.store.known(table[:40]):
            raise Refused(t(ctx.lang, "flash.no_table", table=table[:40]), code="no_table")
        if (cards.get(table) or {}).get("kind") not in (None, "backgammon"):
            raise Refused(t(ctx.lang, "flash.refused", why=t(ctx.lang, "err.table_other_game",
                                                             table=table)),
                          code="table_other_game")  # fmt: skip

    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event)
        for other in club.tournaments.values():
            taken = set(other.settings.reserved_tables) & {x.strip() for x in wanted}
            if other.id != tt.id and other.phase != "closed" and taken:
                raise Refused(t(ctx.lang, "flash.refused", why=t(
                    ctx.lang, "err.reserved_elsewhere", table=", ".join(sorted(taken)),
                    event=other.name)), code="reserved_elsewhere")  # fmt: skip
        kept = tt.reserve_tables(wanted, actor=ctx.user, now=now)
        return ", ".join(kept) or "—"

    return await on_desk(ctx, run)


async def start_consolation(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event)
        tt.start_consolation(actor=ctx.user, now=now)
        return str(len(tt.consolation.players) if tt.consolation else 0)

    return await on_desk(ctx, run)


async def assign(ctx: Context, v: dict[str, Any]) -> str:
    desk = ctx.web.desk
    confirm_table(ctx, v["table"], bool(v["confirm_table"]))

    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event, match_id=v["match_id"])
        require_table(ctx, v["table"])
        a = desk.assign_match(tt, v["match_id"], v["table"], now, ctx.user)
        desk.publish_assignment(tt, a, now)
        return a.table

    return await on_desk(ctx, run)


async def move(ctx: Context, v: dict[str, Any]) -> str:
    desk = ctx.web.desk

    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event, match_id=v["match_id"])
        require_table(ctx, v["table"])
        # Before anything is withdrawn: a table of another game or event is refused here,
        # not once the old table has been told to let the match go (it would stay "playing").
        desk.refuse_table(tt, v["table"])
        old = tt.match(v["match_id"]).table
        # What the match takes with it, read before the old table is told to let it go: its
        # score, cube, Crawford state and reserves (a moved match never restarts at 0–0
        # unless the director says so, when the old table's state is not known).
        carry = None
        if old != v["table"]:
            carry = desk.carried(tt, v["match_id"], old, unknown_ok=bool(v["from_zero"]))
        a = tt.move_match(v["match_id"], v["table"], actor=ctx.user, now=now)
        if old and old != a.table:
            desk.withdraw_assignment(old)
        desk.publish_assignment(tt, a, now, carry=carry)
        score = desk.carried_score(carry)
        if score:
            return f"{old} → {a.table}, " + t(ctx.lang, "move.carried", score=score)
        if tt.match(a.match_id).status == "playing":
            return f"{old} → {a.table}, " + t(ctx.lang, "move.from_zero")
        return f"{old} → {a.table}"

    return await on_desk(ctx, run)


async def unassign(ctx: Context, v: dict[str, Any]) -> str:
    desk = ctx.web.desk

    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event, match_id=v["match_id"])
        old = tt.match(v["match_id"]).table
        tt.unassign(v["match_id"], actor=ctx.user, now=now)
        if old:
            desk.withdraw_assignment(old)
        return old or ""

    return await on_desk(ctx, run)



async def record_result(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event, match_id=v["match_id"])
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

    return await on_desk(ctx, run)


async def correct_result(ctx: Context, v: dict[str, Any]) -> str:
    """HGV 4.8. ``expected`` is the result the director was looking at: if another director
    changed it in between, nothing is applied and both see why."""

    def run(club: Club, now: datetime) -> str:
        tt = current_or_refuse(club, ctx.lang, ctx.event, match_id=v["match_id"])
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
        ctx.extra["corrected"] = tt.id
        return f"{now_text} → {_score_text(v['score_a'], v['score_b'], bool(v['forfeit']))}"

    detail = await on_desk(ctx, run)
    if ctx.extra.pop("corrected", None) is not None and "conflict" not in ctx.extra:
        await tell_table_result(ctx, ctx.event, v["match_id"], v["reason"])
    return str(detail)


async def tell_table_result(ctx: Context, event: str | None, match_id: str, reason: str) -> None:
    """The table that ended ``match_id`` still shows its end ("Partido terminado", its score
    and winner) until its next match: a corrected result is sent to it (its own
    ``director_score``, HGV 4.8), so the table, its card and the public pages show what the
    tournament holds. A table that cannot be told now is said in the answer, never a failure
    of the correction (it is recorded)."""
    desk = ctx.web.desk

    def look(club: Club) -> tuple[str, int, int] | None:
        tt = current_or_refuse(club, ctx.lang, event, match_id=match_id)
        m = tt.match(match_id)
        if m.result is None or not m.table:
            return None
        return m.table, m.result.score_a, m.result.score_b

    held = await asyncio.wrap_future(desk.submit_read(look))
    if held is None:
        return
    table, a, b = held
    card = next((c for c in ctx.web.poller.current() if c["id"] == table), None)
    if card is None or card.get("match_id") != match_id or card.get("state") != "match_over":
        return  # the table has moved on: it shows its next match, not this one
    if card.get("score") == {"a": a, "b": b}:
        return
    args = {"a": a, "b": b, "reason": reason}
    if card.get("link") != "online":
        # The broker keeps the command for the table's session: it shows the result once back.
        try:
            ctx.web.hub.command(table, "director_score", args)
        except MesaError:
            ctx.extra["note"] = "result_not_at_table"
        else:
            ctx.extra["note"] = "result_to_table_pending"
        return
    try:
        await table_command(ctx, table, "director_score", args)
    except Refused:
        ctx.extra["note"] = "result_not_at_table"
        return
    if ctx.extra.pop("pending", None) is not None:
        ctx.extra["note"] = "result_to_table_pending"


async def resolve_conflict(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = current_or_refuse(club, ctx.lang, ctx.event)
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
        if v["resolution"] != "keep":
            ctx.extra["corrected"] = c.match_id
        return resolution_text(v["resolution"], annulled, ctx.lang)

    detail = await on_desk(ctx, run)
    corrected = ctx.extra.pop("corrected", None)
    if corrected is not None:
        await tell_table_result(ctx, ctx.event, corrected, v.get("reason") or "")
    return str(detail)


def resolution_text(resolution: str, annulled: list[str], lang: str) -> str:
    """A conflict's resolution as the director chose it, in words, with what it annulled.

    >>> resolution_text("apply", ["KO-QF-3"], "es")
    'Aplicar y anular lo afectado: KO-QF-3'
    >>> resolution_text("keep", [], "en")
    'Keep the recorded result'
    """
    said = t(lang, f"conflict.{resolution}")
    return said + (f": {', '.join(annulled)}" if annulled else "")



async def forfeit(ctx: Context, v: dict[str, Any]) -> str:
    """A match lost by forfeit: at its table (the table ends it) or, off the tables, directly."""
    desk = ctx.web.desk

    def where(club: Club) -> tuple[str | None, str | None]:
        tt = open_tournament(club, ctx.lang, ctx.event, match_id=v["match_id"])
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
        tt = open_tournament(club, ctx.lang, ctx.event, match_id=v["match_id"])
        m = tt.match(v["match_id"])
        score = (m.length, 0) if v["winner"] == "a" else (0, m.length)
        tt.record_result(m.id, *score, forfeit=True, source="director", actor=ctx.user, now=now)
        _release_stale(ctx)
        return _score_text(*score, True)

    return await on_desk(ctx, run)


async def impose_clock(ctx: Context, v: dict[str, Any]) -> str:
    """"Imponer reloj" on a match (HGV 2.4): its clock becomes mandatory in the tournament, so
    an assignment carries it even where only mandatory clocks are given. A table that already
    holds the match without a clock is told (``director_clock`` with the club's formula: at
    once before the match or between games, from the next game during one, HGV 9.1.1, with
    the HGV 7.6.2 reserve); an assignment published without a clock and not yet taken is
    published again with it. The table is told first: if it refuses, nothing is recorded."""
    desk = ctx.web.desk
    mid = v["match_id"]

    def look(club: Club) -> tuple[str | None, ClockPreset]:
        tt = open_tournament(club, ctx.lang, ctx.event, match_id=mid)
        m = tt.match(mid)
        if m.status == "done":
            raise Refused(
                t(ctx.lang, "flash.refused", why=t(ctx.lang, "err.already_decided")),
                code="already_decided",
            )
        return (m.table if m.status in ("assigned", "playing") else None), m.clock

    table, clock = await asyncio.wrap_future(desk.submit_read(look))
    card = next((c for c in ctx.web.poller.current() if c["id"] == table), None)
    held = table is not None and card is not None and card.get("match_id") == mid
    if held and not (card or {}).get("timed"):
        order = {"preset": "singles", "delay": float(clock.delay_s)}
        await table_command(ctx, table or "", "director_clock", {"clock": order})
    mandatory = ClockPreset(clock.reserve_s, clock.delay_s, True)

    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event, match_id=mid)
        was = tt.match(mid).clock
        m = tt.set_match_format(mid, clock=mandatory, actor=ctx.user, now=now)
        if m.status == "assigned" and m.table and not held and not (
                desk.timed == "all" or was.mandatory):
            desk.publish_assignment(tt, tt.assignment(mid), now)  # it went out without a clock
        return f"{format_clock(float(m.clock.reserve_s))} + {m.clock.delay_s} s"

    return await on_desk(ctx, run)


async def sanction(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event)
        club.withdraw(tt.id, v["player_id"], v["kind"], actor=ctx.user, now=now, note=v["reason"])
        _release_stale(ctx)
        return f"{tt.name_of(v['player_id'])}: {t(ctx.lang, 'sanction.' + v['kind'])}"

    return await on_desk(ctx, run)


async def release_table(ctx: Context, v: dict[str, Any]) -> str:
    """Liberar mesa: withdraw the retained assignment of a table that holds a match no longer
    its to play (decided, annulled, moved); the table goes back to idle."""
    desk = ctx.web.desk

    def run(club: Club, now: datetime) -> str:
        require_table(ctx, v["table"])
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

    return await on_desk(ctx, run)



async def roll_dice(ctx: Context, v: dict[str, Any]) -> str:
    """Criterion 4 of HGV 7.2.3: the director's dice, or the hub rolls them (recorded)."""

    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event)
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

    return await on_desk(ctx, run)


async def close(ctx: Context, v: dict[str, Any]) -> str:
    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event)
        club.close(tt.id, actor=ctx.user, now=now)
        return tt.id

    tid = await on_desk(ctx, run)
    if ctx.publish_static is not None:
        ctx.extra["published"] = await ctx.publish_static(tid)
    return tid

