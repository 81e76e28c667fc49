"""The game a snapshot names: every game's state carries ``game_name`` (not ``game``, which a
domino state already uses for the game in play), and a state refuses a snapshot naming another.

A snapshot written before the field existed has no ``game_name`` and still reads.

>>> check_game({"state": "idle"}, "backgammon")
>>> check_game({GAME_KEY: "domino", "state": "idle"}, "backgammon")
Traceback (most recent call last):
  ...
mesa.errors.ConfigError: this snapshot is a 'domino' table's state, not a 'backgammon' table's
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mesa.errors import ConfigError

__all__ = ["GAME_KEY", "check_game"]

GAME_KEY = "game_name"  # the field of a snapshot that names its game


def check_game(data: Mapping[str, Any], game: str) -> None:
    """Refuse (:class:`ConfigError`) a snapshot that names a game other than ``game``."""
    named = data.get(GAME_KEY, game)
    if named != game:
        raise ConfigError(f"this snapshot is a {str(named)[:40]!r} table's state, "
                          f"not a {game!r} table's")
