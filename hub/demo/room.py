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
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def stop_each(steps: Iterable[Callable[[], Any]]) -> None:
    """Run every step, logging (never raising) a failure, so nothing is left running."""
    for step in steps:
        try:
            step()
        except Exception:
            log.exception("demo: stopping failed at %s", getattr(step, "__qualname__", step))


class Room(ABC):
    """One game's part of the demo, the shape both rooms share: prepare the tournament, start
    the robot tables, then the director on a thread of its own; stopping, the director first
    (nothing new is started while the tables stop), then every table, each step even if one
    before it failed. ``played`` counts the tournaments it has finished and closed."""

    thread_name = "demo-room"

    def __init__(self) -> None:
        self.played = 0
        self._stopping = threading.Event()
        self._director: threading.Thread | None = None

    def start(self) -> Room:
        """Prepare, start the tables and the director; return once they run."""
        self._prepare()
        self._start_tables()
        self._director = threading.Thread(
            target=self._direct, name=self.thread_name, daemon=True
        )
        self._director.start()
        return self

    def stop(self) -> None:
        """Stop the director, then the tables."""
        self._stopping.set()
        if self._director is not None:
            self._director.join(10)
            self._director = None
        stop_each(self._stop_tables())

    @abstractmethod
    def _prepare(self) -> None:
        """The tournament and its players, on the desks (before any table starts)."""

    @abstractmethod
    def _start_tables(self) -> None:
        """Start the robot tables with their links (each kept as it starts, to be stopped)."""

    @abstractmethod
    def _direct(self) -> None:
        """The director's part, until ``_stopping`` is set."""

    @abstractmethod
    def _stop_tables(self) -> list[Callable[[], Any]]:
        """The steps that stop the tables (the room forgets them)."""
