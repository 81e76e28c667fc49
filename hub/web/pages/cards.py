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



def table_choice(table: str, card: dict[str, Any] | None, held: str | None, lang: str) -> dict[str, Any]:
    """One table in the form that moves a match: free ("3 ✓"), offline (offered, marked), or
    busy, with the match it holds when the tournament knows it (marked and not offered: the
    move would be refused after the click).

    >>> table_choice("5", {"id": "5", "link": "online", "state": "running"}, "G2-1", "es")
    {'id': '5', 'label': '5 · ocupada (G2-1)', 'busy': True}
    >>> table_choice("3", {"id": "3", "link": "online", "state": "idle"}, None, "es")["label"]
    '3 ✓'
    """
    if held is not None:
        return {"id": table, "label": f"{table} · {t(lang, 'assign.busy_short')} ({held})",
                "busy": True}  # fmt: skip
    if card is not None and card.get("link") != "online":
        return {"id": table, "label": f"{table} · {t(lang, 'assign.offline_short')}",
                "busy": False}  # fmt: skip
    if table_warning(card, lang):
        return {"id": table, "label": f"{table} · {t(lang, 'assign.busy_short')}", "busy": True}
    return {"id": table, "label": f"{table} ✓", "busy": False}
