"""How every robot player works, whatever the game: it plans one input at a time (what, and
when), hands it over when due, and plans again when the table's view changes, or when an input
it handed over changed nothing for a while (a press lost to a bounce, a refusal).

>>> from mesa.engine.inputs import Input
>>> class Presser(PlannedPlayers[str]):
...     def _key_of(self, view): return view
...     def _make_plan(self, view, now): return Plan(now + 2.0, Input("press", {"side": "a"}))
>>> p = Presser(seed=1, stats=InputCounts())
>>> p.poll("running", 10.0) is None, p.next_time()
(True, 12.0)
>>> p.poll("running", 12.0).name, p.stats.inputs, p.next_time()
('press', 1, 27.0)

Each game's players (:class:`~mesa.controller.robots.RobotPlayers`,
:class:`~mesa.controller.domino_robots.DominoRobots`) say what a view means and what to do.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from mesa.engine.inputs import Input

V = TypeVar("V")


@dataclass
class Plan:
    at: float
    input: Input
    done_at: float | None = None


@dataclass
class InputCounts:
    """What the robots handed over, by input name."""

    inputs: int = 0
    by_name: dict[str, int] = field(default_factory=dict)


class PlannedPlayers(ABC, Generic[V]):
    """The planning loop; subclasses give :meth:`_key_of` (what in a view calls for a new plan)
    and :meth:`_make_plan`, and may watch every view in :meth:`_new_view`."""

    retry_after = 15.0  # a planned input that changed nothing is planned again after this

    def __init__(self, *, seed: int | None, stats: InputCounts) -> None:
        self.rng = random.Random(seed)
        self.stats = stats
        self._key: Any = None
        self._plan: Plan | None = None
        self._turns = 0  # turns played in this game (or hand): the robots end it after some

    # ── the interface ───────────────────────────────────────────────────
    def poll(self, view: V, now: float) -> Input | None:
        """The input to submit at ``now``, if one is due."""
        self._observe(view, now)
        p = self._plan
        if p is None:
            return None
        if p.done_at is None:
            if p.at <= now:
                p.done_at = now
                self.stats.inputs += 1
                self.stats.by_name[p.input.name] = self.stats.by_name.get(p.input.name, 0) + 1
                return p.input
            return None
        if now - p.done_at >= self.retry_after:
            self._key = None  # nothing changed: think again
        return None

    def next_time(self) -> float | None:
        """When :meth:`poll` may next return something without the view changing."""
        p = self._plan
        if p is None:
            return None
        return p.at if p.done_at is None else p.done_at + self.retry_after

    # ── what the games fill in ──────────────────────────────────────────
    def _new_view(self, view: V) -> None:
        """Every view, before its key is compared: a new match, game or hand starts here."""

    @abstractmethod
    def _key_of(self, view: V) -> Any:
        """What in ``view`` calls for a new plan when it changes."""

    def _turn_passed(self, old: Any, view: V) -> bool:
        """Whether the step from the view keyed ``old`` to ``view`` ended a turn."""
        return False

    @abstractmethod
    def _make_plan(self, view: V, now: float) -> Plan | None:
        """The next input for ``view`` and when to hand it over (None: nothing to do)."""

    # ── thinking ────────────────────────────────────────────────────────
    def _between(self, bounds: tuple[float, float]) -> float:
        return self.rng.uniform(*bounds)

    def _observe(self, view: V, now: float) -> None:
        self._new_view(view)
        key = self._key_of(view)
        if key == self._key:
            return
        old = self._key
        self._key = key
        if old is not None and self._turn_passed(old, view):
            self._turns += 1
        self._plan = self._make_plan(view, now)
