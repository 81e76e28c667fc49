"""What one game's room is to the demo: robot tables, and a director playing its part.

The demo (:mod:`mesa.hub.demo.run`) starts the hub and the dashboard once, then one room per
game asked for (``--game``); each room module (:mod:`~mesa.hub.demo.backgammon`,
:mod:`~mesa.hub.demo.domino`) builds its :class:`Room` from the same :class:`RoomContext`.

>>> stopped = []
>>> stop_each([lambda: stopped.append(1), lambda: 1 / 0, lambda: stopped.append(3)])
>>> stopped
[1, 3]
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from mesa.hub.demo.config import DemoConfig

__all__ = ["Room", "RoomContext", "stop_each"]

log = logging.getLogger("mesa.hub.demo.run")


@dataclass(frozen=True)
class RoomContext:
    """What every room is given: the running hub and dashboard, a work directory, the demo's
    settings (speed, seed, language, the room's own numbers)."""

    hub: Any  # mesa.hub.ingest.app.Hub, with its embedded broker
    web: Any  # mesa.hub.web.app.WebApp: its desks are the rooms' director
    workdir: Path
    config: DemoConfig


class Room(Protocol):
    """One game's part of the demo."""

    # Tournaments this room has finished and closed since it started.
    played: int

    def start(self) -> Room:
        """Prepare its tournament, start its tables and its director; return once they run."""
        ...

    def stop(self) -> None:
        """Stop its director and its tables, each step even if one before it failed."""
        ...


def stop_each(steps: Iterable[Callable[[], Any]]) -> None:
    """Run every step, logging (never raising) a failure, so nothing is left running."""
    for step in steps:
        try:
            step()
        except Exception:
            log.exception("demo: stopping failed at %s", getattr(step, "__qualname__", step))
