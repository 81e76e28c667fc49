"""The director's actions on the club's registry and on the files brought to it: a ranking
file previewed before anything is created (its bytes decoded here, on the hub), a player
renamed, merged into another, or removed. Each goes through the one endpoint (session, CSRF,
audit), and each refusal says why in the director's language.

>>> sorted(REGISTRY_ACTIONS)
['merge_players', 'preview_ranking', 'remove_player', 'rename_player']
>>> file_bytes("Sm9zw6k=")
b'Jos\\xc3\\xa9'
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

from mesa.hub.web.actions.registry import Action, BadField, Context, Field
from mesa.hub.web.actions.tournament import on_desk
from mesa.hub.web.events import seats_elsewhere
from mesa.hub.web.i18n import text as t
from mesa.tournament.club import Club
from mesa.tournament.ranking_csv import RankingPreview, preview_ranking
from mesa.tournament.registry_upkeep import merge_players, remove_player, rename_player
from mesa.tournament.text_files import decode_text
from mesa.words import format_points

# The preview lists this many rows, and this many of the names it would create.
PREVIEW_ROWS = 10
PREVIEW_NEW_NAMES = 60


def file_bytes(encoded: str) -> bytes:
    """A picked file's bytes, sent by the page as base64 (a form carries text, not bytes)."""
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise BadField("file") from None


async def preview_ranking_file(ctx: Context, v: dict[str, Any]) -> str:
    """What importing the file (``file``, base64) or the text (``csv``) would do: the text as
    read, how it was read, its first rows and the players it would create. Creates nothing.

    Decoding happens here: a Windows-1252 file read as UTF-8 by the browser has already lost
    its accents, so the page sends the bytes as they are."""
    encoding = ""
    if v["file"]:
        decoded = decode_text(file_bytes(v["file"]))  # a refusal names the broken line
        text, encoding = decoded.text, decoded.encoding_name
    elif v["csv"]:
        text = v["csv"]
    else:
        raise BadField("csv")

    def read(club: Club) -> RankingPreview:
        return preview_ranking(text, club.registry, create_missing=bool(v["create_missing"]),
                               first=PREVIEW_ROWS)

    preview = await asyncio.wrap_future(ctx.web.desk.submit_read(read))
    lang = ctx.lang
    summary = t(lang, "import.summary", rows=preview.total, known=preview.matched,
                new=len(preview.new_names))
    ctx.extra.update(
        text=text,
        encoding=encoding,
        summary=(t(lang, "import.read_as", encoding=encoding) + " " if encoding else "") + summary,
        rows=[{"line": r.line, "name": r.name, "points": format_points(r.points, lang),
               "player_id": r.player_id} for r in preview.rows],
        total=preview.total,
        new_names=list(preview.new_names[:PREVIEW_NEW_NAMES]),
        new_count=len(preview.new_names),
    )
    return summary


def domino_events_naming(db: Path | str, player_id: str) -> list[str]:
    """The domino events (their names) whose pairs name ``player_id``, read from the hub's
    file without writing to it (the domino desk owns those tables)."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    try:
        rows = con.execute("SELECT name, state FROM d_tournaments ORDER BY created, id").fetchall()
    except sqlite3.Error:
        return []  # no domino tables yet
    finally:
        con.close()
    return [name for name, state in rows
            if any(player_id in p.get("players", ()) for p in json.loads(state).get("pairs", ()))]


def _domino(ctx: Context, player_id: str) -> list[str]:
    return [t(ctx.lang, "nav.domino") + f" · {name}"
            for name in domino_events_naming(ctx.web.hub.settings.db, player_id)]


async def rename(ctx: Context, v: dict[str, Any]) -> str:
    venue = ctx.web.desk.venue

    def run(club: Club, now: datetime) -> str:
        old = club.registry.get(v["player_id"]).name
        seated = seats_elsewhere(club, venue)
        new = rename_player(club, v["player_id"], v["name"], seated=seated).name
        return f"{old} → {new}"

    return str(await on_desk(ctx, run))


async def merge(ctx: Context, v: dict[str, Any]) -> str:
    elsewhere = _domino(ctx, v["drop"])

    def run(club: Club, now: datetime) -> str:
        done = merge_players(club, keep=v["keep"], drop=v["drop"], actor=ctx.user, now=now,
                             elsewhere=elsewhere)
        ctx.extra.update(kept=done.kept.id, tournaments=list(done.tournaments))
        return f"{done.dropped.name} → {done.kept.name}"

    return str(await on_desk(ctx, run))


async def remove(ctx: Context, v: dict[str, Any]) -> str:
    elsewhere = _domino(ctx, v["player_id"])

    def run(club: Club, now: datetime) -> str:
        return remove_player(club, v["player_id"], elsewhere=elsewhere).name

    return str(await on_desk(ctx, run))


S = Field
REGISTRY_ACTIONS: dict[str, Action] = {
    a.name: a
    for a in [
        Action(
            "preview_ranking",
            (S("file", "text", required=False), S("csv", "text", required=False),
             S("create_missing", "bool", required=False)),
            preview_ranking_file,
        ),
        Action("rename_player", (S("player_id"), S("name")), rename,
               target=lambda v: str(v["player_id"])),
        Action("merge_players", (S("drop"), S("keep")), merge,
               target=lambda v: f"{v['drop']} → {v['keep']}"),
        Action("remove_player", (S("player_id"),), remove, target=lambda v: str(v["player_id"])),
    ]
}
