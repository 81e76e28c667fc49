"""What a registry saved before names were checked may hold: a player whose name lost its
accents to a wrong encoding ("JOS� LUIS", as the club evening's Excel import made 27 of them).
The registry refuses such a name today, so tests put one in as a saved registry would load it."""

from __future__ import annotations

from typing import Any

from mesa.tournament.players import Player, PlayerRegistry


def add_legacy_player(club: Any, name: str, card_ids: tuple[str, ...] = ()) -> str:
    """Add ``name`` to ``club``'s registry as loaded from an old store; returns its id."""
    saved = club.registry.to_dict()
    pid = club.registry.next_id()
    saved["players"].append(Player(pid, name, card_ids).to_dict())
    club.registry = PlayerRegistry.from_dict(saved)
    return pid
