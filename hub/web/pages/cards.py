"""What the pages say about a live table's card when the director picks a table for a match
(the director's home and a match's page show it; the ``assign`` action asks to confirm it)."""

from __future__ import annotations

from typing import Any

from mesa.hub.web.i18n import text as t


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

