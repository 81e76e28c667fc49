"""The demo's settings: how many tables and players, how fast, which game's rooms.

>>> cfg = DemoConfig(tables=2, players=6)
>>> cfg.table_ids(), cfg.games()
(['1', '2'], ('backgammon',))
>>> DemoConfig(game="both").games()
('backgammon', 'domino')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mesa.games.registry import game_named, names

__all__ = ["ALL_GAMES", "DemoConfig"]

ALL_GAMES = "both"  # ``--game both``: a room for every registered game


@dataclass
class DemoConfig:
    tables: int = 8
    players: int = 24
    # A second category on the same evening and tables (RULES §4, "novatos"); 0: none.
    novatos: int = 8
    # Table seconds per real second: a 3-point group match takes a few real seconds.
    speed: float = 30.0
    host: str = "127.0.0.1"
    port: int = 8080
    workdir: Path | None = None
    password: str = "mesa"
    seed: int = 2025
    history: bool = True  # play last season's tournament first (rankings and ratings)
    keep: bool = False  # keep the work directory after stopping
    language: str = "es"
    # Real seconds a finished tournament stays on show before it is closed and the next starts.
    pause: float = 20.0
    extra_env: dict[str, str] = field(default_factory=dict)
    game: str = "backgammon"  # a registered game's name, or "both" rooms
    domino_tables: int = 4
    domino_rounds: int = 3

    def table_ids(self) -> list[str]:
        """The backgammon room's table ids."""
        return [str(i) for i in range(1, self.tables + 1)]

    def games(self) -> tuple[str, ...]:
        """The games whose rooms run, in the registry's order."""
        if self.game == ALL_GAMES:
            return names()
        return (game_named(self.game).name,)
