"""The director's actions at the door and at the draw: many players registered or checked in at
once, a member card at the reader, the group draw started from its preview, redrawn or undone.

They join backgammon's :data:`~mesa.hub.web.games.backgammon.ACTIONS` in the endpoint (see :data:`DOOR_ACTIONS`)::

    ActionEndpoint(site, publish_static, actions={**ACTIONS, **DOOR_ACTIONS})

>>> sorted(DOOR_ACTIONS)
['check_in_card', 'check_in_many', 'redraw_groups', 'register_many', 'start_groups', 'undo_groups']
>>> pasted_names("  Ana Pérez\\n\\nana perez\\nBEA;\\n")
['Ana Pérez', 'BEA']
"""

from __future__ import annotations

import asyncio
import secrets
from datetime import datetime
from typing import Any

from mesa.hub.web.actions.registry import Action, BadField, Context, Field, Refused
from mesa.hub.web.actions.tournament import on_desk, open_tournament
from mesa.hub.web.i18n import STRINGS
from mesa.hub.web.i18n import text as t
from mesa.tournament.club import Club
from mesa.tournament.errors import TournamentError
from mesa.tournament.players import normalize_card, normalize_name

# A pasted list longer than this is a mistake (a whole file pasted), not a club evening.
MAX_PASTED_NAMES = 300


def pasted_names(text: str) -> list[str]:
    """One name a line; blank lines, trailing separators and repeats (accents and case
    folded) dropped, the first spelling kept."""
    seen: set[str] = set()
    out: list[str] = []
    for line in text.splitlines():
        name = line.strip().strip(";,\t").strip()
        key = normalize_name(name)
        if not key or key in seen:
            continue
        seen.add(key)
        out.append(name[:100])
    if len(out) > MAX_PASTED_NAMES:
        raise BadField("names")
    return out


async def register_many(ctx: Context, v: dict[str, Any]) -> str:
    """Register a pasted list (matched against the registry, new names created), the players
    ticked in the registry list, or everyone in the seeding ranking; report what happened."""
    names = pasted_names(v["names"] or "")
    picked = list(v["player_ids"] or [])
    if not names and not picked and not v["all_ranked"]:
        raise BadField("names")

    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event)
        ids: list[str] = list(picked)
        created: list[str] = []
        for name in names:
            found = club.registry.find_name(name)
            if found is None:
                found = club.registry.add_new(name, category=tt.category)
                created.append(found.name)
            ids.append(found.id)
        if v["all_ranked"]:
            ranking = club.season.seeding_points(tt.category, tt.held_on)
            ids.extend(p for p in ranking if p in club.registry)
        added: list[str] = []
        already = 0
        refused: list[str] = []
        for pid in dict.fromkeys(ids):
            if pid in tt.entrants:
                already += 1
                continue
            try:
                club.register(tt.id, pid, override=bool(v["override"]), actor=ctx.user, now=now)
            except TournamentError as e:
                name = club.registry.get(pid).name if pid in club.registry else pid
                refused.append(f"{name}: {_why(e, ctx.lang)}")
                continue
            added.append(pid)
        ctx.extra.update(registered=added, created=created, refused=refused)
        return t(
            ctx.lang,
            "door.registered",
            added=t(ctx.lang, "door.n_registered", n=len(added)),
            created=t(ctx.lang, "door.n_new", n=len(created)),
            already=t(ctx.lang, "door.n_already", n=already),
            refused=t(ctx.lang, "door.n_refused", n=len(refused)),
        ) + ("" if not refused else " — " + "; ".join(refused))

    return str(await on_desk(ctx, run))


async def check_in_many(ctx: Context, v: dict[str, Any]) -> str:
    """Mark the ticked players (or, with ``all``, every entrant) present or absent."""
    present = True if v["present"] is None else v["present"] == "1"

    def run(club: Club) -> tuple[str, list[str]]:
        tt = open_tournament(club, ctx.lang, ctx.event)
        if v["all"]:
            return tt.id, list(tt.entrants)
        wanted = list(v["player_ids"] or [])
        unknown = [p for p in wanted if p not in tt.entrants]
        if unknown or not wanted:
            raise Refused(
                t(ctx.lang, "flash.refused", why=t(ctx.lang, "err.unknown_player")),
                code="unknown_player",
            )
        return tt.id, wanted

    tid, ids = await asyncio.wrap_future(ctx.web.desk.submit_read(run))
    ctx.web.store.set_checkins(tid, ids, present, ctx.user)
    ctx.web.bump()
    ctx.extra["marked"] = ids
    return t(ctx.lang, "door.marked" if present else "door.marked_absent", n=len(ids))


async def check_in_card(ctx: Context, v: dict[str, Any]) -> str:
    """A member card at the reader: that player is present (registered first if the
    registration is open and the card's player is not in yet). An unknown card says so."""
    card = normalize_card(v["card"])

    def run(club: Club, now: datetime) -> tuple[str, str, str]:
        tt = open_tournament(club, ctx.lang, ctx.event)
        try:
            player = club.registry.by_card(card)
        except TournamentError:
            raise Refused(
                t(ctx.lang, "door.unknown_card", card=card[:40]), code="unknown_card", status=404
            ) from None
        if player.id not in tt.entrants:
            club.register_card(tt.id, card, actor=ctx.user, now=now)
        return tt.id, player.id, player.name

    tid, pid, name = await on_desk(ctx, run)
    ctx.web.store.set_checkin(tid, pid, True, ctx.user)
    ctx.web.bump()
    ctx.extra["player_id"] = pid
    return t(ctx.lang, "door.card_ok", name=name)


def _why(e: TournamentError, lang: str) -> str:
    key = f"err.{e.code}"
    return t(lang, key) if key in STRINGS else t(lang, "err.other")


def _seed(v: dict[str, Any]) -> int:
    return int(v["seed"]) if v.get("seed") is not None else secrets.randbelow(10**6)


async def start_groups(ctx: Context, v: dict[str, Any]) -> str:
    """Start the groups as previewed: the players left out (absent) are taken out first, and
    only if the director confirmed exactly that list (undoing the draw brings them back)."""
    seed = _seed(v)
    leave_out = list(v["leave_out"] or [])

    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event)
        present = ctx.web.store.checkins(tt.id)
        absent = sorted(p for p in tt.entrants if any(present.values()) and not present.get(p))
        if sorted(leave_out) != absent:
            # The door changed since the preview (or no preview was seen): show it again.
            raise Refused(t(ctx.lang, "door.preview_stale"), code="preview_stale")
        if absent and not v["confirm_absent"]:
            raise Refused(t(ctx.lang, "door.confirm_absent_needed"), code="confirm_absent")
        tt.leave_out(absent, actor=ctx.user, now=now)
        club.start(tt.id, seed=seed, now=now, actor=ctx.user, n_groups=v["groups"])
        ctx.extra.update(seed=seed, left_out=absent)
        return t(ctx.lang, "door.started", groups=len(tt.groups), seed=seed, out=len(absent))

    return str(await on_desk(ctx, run))


async def undo_groups(ctx: Context, v: dict[str, Any]) -> str:
    """Take the group draw back (registration again) until a group match has begun."""
    desk = ctx.web.desk

    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event)
        seed = tt.seed
        for table in tt.undo_groups(actor=ctx.user, now=now, why=v["reason"] or "undo"):
            desk.withdraw_assignment(table)
        return t(ctx.lang, "door.undone", seed=seed)

    return str(await on_desk(ctx, run))


async def redraw_groups(ctx: Context, v: dict[str, Any]) -> str:
    """Draw the groups again with a new seed until a group match has begun."""
    desk = ctx.web.desk
    seed = _seed(v)

    def run(club: Club, now: datetime) -> str:
        tt = open_tournament(club, ctx.lang, ctx.event)
        n = len(tt.groups)
        for table in club.redraw(tt.id, seed=seed, now=now, actor=ctx.user, n_groups=n):
            desk.withdraw_assignment(table)
        ctx.extra["seed"] = seed
        return t(ctx.lang, "door.redrawn", seed=seed)

    return str(await on_desk(ctx, run))


S = Field
DOOR_ACTIONS: dict[str, Action] = {
    a.name: a
    for a in [
        Action(
            "register_many",
            (
                S("names", "text", required=False),
                S("player_ids", "ids", required=False),
                S("all_ranked", "bool", required=False),
                S("override", "bool", required=False),
            ),
            register_many,
        ),
        Action(
            "check_in_many",
            (
                S("player_ids", "ids", required=False),
                S("all", "bool", required=False),
                S("present", "choice", required=False, choices=("0", "1")),
            ),
            check_in_many,
        ),
        Action("check_in_card", (S("card"),), check_in_card, target=lambda v: str(v["card"])),
        Action(
            "start_groups",
            (
                S("seed", "int", required=False),
                S("groups", "int", required=False),
                S("leave_out", "ids", required=False),
                S("confirm_absent", "bool", required=False),
            ),
            start_groups,
        ),
        Action("undo_groups", (), undo_groups),
        Action("redraw_groups", (S("seed", "int", required=False),), redraw_groups),
    ]
}
