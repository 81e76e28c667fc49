"""The director's commands to a table: sent through the hub, the table's own answer awaited
(:func:`table_command`), and the actions that are one command each (clock, score, pause …).

A command the table does not confirm in time is not a failure of the hub: the broker keeps it
for the table's session, and the director is told it is pending.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from mesa.errors import MesaError
from mesa.hub.web.actions.registry import Context, Refused, field_label, known_errors
from mesa.hub.web.i18n import text as t
from mesa.hub.web.pages.cards import table_warning
from mesa.tournament.matches import ClockPreset

# How long a table command waits for the table's answer before the director is told so.
COMMAND_WAIT_SECONDS = 5.0


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
                if status.get("code"):
                    # Accepted with a note the director must hear (clock_next_game: a clock
                    # ordered during a game starts with the match's next game, HGV 9.1.1).
                    ctx.extra["note"] = status["code"]
                return
            code = status.get("code") or "other"
            key = f"err.{code}" if f"err.{code}" in known_errors() else "err.other"
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



def confirm_table(ctx: Context, table: str, confirmed: bool) -> None:
    """An offline or busy table only with the director's confirmation."""
    card = next((c for c in ctx.web.poller.current() if c["id"] == table), None)
    warning = table_warning(card, ctx.lang)
    if warning and not confirmed:
        raise Refused(warning, code="table_not_free")


def require_table(ctx: Context, table: str) -> None:
    """A table the hub has heard of, else :class:`Refused` (404)."""
    if ctx.web.hub is None or not ctx.web.hub.store.known(table):
        raise Refused(t(ctx.lang, "flash.no_table", table=table), code="no_table", status=404)


async def set_clock(ctx: Context, v: dict[str, Any]) -> str:
    """On a table: the table's own formula for the points already played (HGV 7.6.2). Before
    the match or between games at once; during a game the table keeps it for the next game
    (HGV 9.1.1) and says so in its answer (the note ``clock_next_game``)."""
    preset = v["preset"]
    clock = None if preset == "none" else {"preset": preset}
    await table_command(ctx, v["table"], "director_clock", {"clock": clock})
    if clock is None and ctx.extra.get("note") == "clock_next_game":
        ctx.extra["note"] = "clock_off_next_game"  # taken off, also from the next game
    if clock is not None:
        await _mark_clocked(ctx, v["table"])
    return preset


async def _mark_clocked(ctx: Context, table: str) -> None:
    """The match at ``table`` now has a clock in the tournament too (as the match page's
    "Imponer reloj" records it): its pace, its flag and its page say so."""
    desk = ctx.web.desk

    def mark(club: Any, now: Any) -> None:
        held = desk.event_at(table)
        if held is None or held[1].clock.mandatory:
            return
        tt, m = held
        tt.set_match_format(m.id, clock=ClockPreset(m.clock.reserve_s, m.clock.delay_s, True),
                            actor=ctx.user, now=now)  # fmt: skip

    await asyncio.wrap_future(desk.submit(mark))



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
    why = v["why"] or "director"
    await table_command(ctx, v["table"], "director_pause", {"reason": why})
    return t(ctx.lang, f"reason.{why}")  # the reason in words ("disputa"), never its code


async def resume(ctx: Context, v: dict[str, Any]) -> str:
    await table_command(ctx, v["table"], "director_resume", {})
    return ""


async def clear_call(ctx: Context, v: dict[str, Any]) -> str:
    await table_command(ctx, v["table"], "director_clear_call", {})
    return ""



async def settle_game(ctx: Context, v: dict[str, Any]) -> str:
    """A disputed game settled by the director: the table records it (its ``director_result``),
    as if both players had confirmed; the match goes on (or ends) at the table as usual."""
    await table_command(
        ctx, v["table"], "director_result", {"winner": v["winner"], "kind": int(v["kind"])}
    )
    return f"{v['winner']} ×{v['kind']}"

