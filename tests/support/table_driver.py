"""The driver of every game's table tests: a game's machine plus a clock that only moves forward.

Each game's builders (``support.backgammon_builders``, ``support.domino_builders``) subclass it,
naming their machine and adding what reads that game's state; the stepping is the same for every
game, because every machine takes its inputs the same way: ``apply(name, args, now=)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mesa.engine.outcome import Outcome


class Driver:
    """A table plus a clock that only moves forward; ``do`` asserts acceptance, ``try_`` not."""

    new_table: Callable[[], Any]  # the game's machine (its class): set by each game's subclass

    def __init__(self, table: Any = None, now: float = 0.0) -> None:
        self.table = table or self.new_table()
        self.now = now

    def do(self, name: str, after: float = 1.0, **args: Any) -> Outcome:
        self.now += after
        out = self.table.apply(name, args, now=self.now)
        assert out.accepted, (name, args, out.refusal)
        return out

    def try_(self, name: str, after: float = 1.0, **args: Any) -> Outcome:
        self.now += after
        out: Outcome = self.table.apply(name, args, now=self.now)
        return out

    @property
    def state(self) -> str:
        state: str = self.table.state
        return state
