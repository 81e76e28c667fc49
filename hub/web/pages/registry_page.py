"""The director's page of the club's registry (``/director/players``): every player with what
names him (tournaments, rankings), a rename form on each row, a remove button for a player
without results, and one form to merge a duplicate into the player kept
(:mod:`~mesa.hub.web.actions.registry_admin` runs them).

>>> suspect_name("JOS\\ufffd LUIS"), suspect_name("JOSÉ LUIS"), suspect_name("Elena MuÃ±iz")
(True, False, True)
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from mesa.hub.web.i18n import Translator
from mesa.hub.web.site import Page, Site
from mesa.tournament.club import Club
from mesa.tournament.players import name_key
from mesa.tournament.registry_upkeep import uses_of

# What a name broken by a wrong encoding looks like: U+FFFD, or UTF-8 read as Windows-1252
# ("Ã±" for "ñ", "Ã©" for "é").
_BROKEN = ("\ufffd", "Ã", "Â")


def suspect_name(name: str) -> bool:
    return any(mark in name for mark in _BROKEN)


def registry_view(club: Club) -> dict[str, Any]:
    players: list[dict[str, Any]] = []
    for p in sorted(club.registry, key=lambda p: name_key(p.name)):
        uses = uses_of(club, p.id)
        players.append({
            "id": p.id, "name": p.name, "category": p.category, "cards": list(p.card_ids),
            "tournaments": len(uses.tournaments), "rankings": list(uses.rankings),
            "open": list(uses.open_events), "has_results": uses.has_results,
            "suspect": suspect_name(p.name),
        })
    # The suspect names first in the merge form's first list: they are the ones to drop.
    drop_order = sorted(players, key=lambda p: (not p["suspect"], name_key(str(p["name"]))))
    return {"players": players, "drop_choices": [{"id": p["id"], "name": p["name"]}
                                                 for p in drop_order]}


async def page_registry(site: Site, request: Request, lang: str) -> Page:
    data = await site.read(registry_view)
    return Page("director/players.html", data, "director_players",
                Translator(lang)("reg.title"), refresh="")
