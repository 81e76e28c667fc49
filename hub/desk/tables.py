"""Which tables a game's desk may give work to: online, free, and playing that game.

The game a table plays is what its live projection says (``kind``, a registered game's name;
a table that has not said yet counts as the registry's first game), never a guess by name here.
So a table is free only once its state report has been heard (``snapshot_ts``): its ``online``
status alone (it often arrives first, after the table or the hub starts) would show a domino
table as an idle backgammon one, and backgammon's desk would give it a match.

>>> from mesa.games.registry import game_named
>>> class Hub:
...     def tables(self):
...         return [{"table": "1", "status": "online", "state": "idle", "snapshot_ts": 1.0},
...                 {"table": "d1", "status": "online", "state": "idle", "kind": "domino",
...                  "snapshot_ts": 1.0},
...                 {"table": "d2", "status": "online", "state": "idle", "snapshot_ts": None},
...                 {"table": "2", "status": "offline", "state": "idle", "snapshot_ts": 1.0}]
>>> free_tables_of(Hub(), game_named("domino"), ("idle",))
['d1']
>>> free_tables_of(Hub(), game_named("backgammon"), ("idle", "match_over"))
['1']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mesa.games.registry import Game, games
from mesa.hub.desk.ports import LiveTables

__all__ = ["free_tables_of", "game_of_table"]


def game_of_table(live: Mapping[str, Any]) -> str:
    """The registered game's name a table's live projection says it plays."""
    return str(live.get("kind") or games()[0].name)


def free_tables_of(hub: LiveTables | None, game: Game, states: tuple[str, ...]) -> list[str]:
    """The ids of ``game``'s tables that are online, have reported their state, and are in one
    of ``states``, in the hub's order (none without a hub)."""
    if hub is None:
        return []
    return [
        str(live["table"])
        for live in hub.tables()
        if live.get("status") == "online"
        and live.get("snapshot_ts") is not None
        and live.get("state") in states
        and game_of_table(live) == game.name
    ]
