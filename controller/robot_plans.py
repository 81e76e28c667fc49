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

Each game's players (:class:`~mesa.controller.games.backgammon.robots.RobotPlayers`,
:class:`~mesa.controller.games.domino.robots.DominoRobots`) say what a view means and what to do.
"""

from __future__ import annotations

import math
import random
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from mesa.engine.inputs import Input

if TYPE_CHECKING:
    from mesa.controller.runtime import ManualClock, TableRuntime

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
    and :meth:`_make_plan`, and may watch every view in :meth:`_new_view`.

    Every game's players are built alike, ``Players(seats, seed=, style=)`` (what
    :meth:`~mesa.controller.games.TableGame.robots` calls): the players of ``seats`` (None:
    ``all_seats``), their random generator's ``seed``, their ``style`` (None: ``default_style``),
    and their counts (a fresh ``stats_type``); a game sets up its own memory in :meth:`_begin`.
    """

    retry_after = 15.0  # a planned input that changed nothing is planned again after this
    all_seats: ClassVar[tuple[str, ...]] = ()
    default_style: ClassVar[Any] = None
    stats_type: ClassVar[type[InputCounts]] = InputCounts
    think_cap: ClassVar[float] = 90.0  # the longest ordinary think, in seconds

    def __init__(
        self,
        seats: Iterable[str] | None = None,
        *,
        seed: int | None = 0,
        style: Any = None,
        stats: InputCounts | None = None,
    ) -> None:
        self.seats = tuple(self.all_seats if seats is None else seats)
        self.style = self.default_style if style is None else style
        self.rng = random.Random(seed)
        self.stats = self.stats_type() if stats is None else stats
        self._key: Any = None
        self._plan: Plan | None = None
        self._turns = 0  # turns played in this game (or hand): the robots end it after some
        self._begin()

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

    def _mine(self, seat: str | None) -> bool:
        """Whether these robots play ``seat``."""
        return seat in self.seats

    # ── what the games fill in ──────────────────────────────────────────
    def _begin(self) -> None:
        """Set up the game's own memory of the match or game (once, when built)."""

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

    def _think(self) -> float:
        """How long a player thinks before a move: now and then a slow think (the style's
        ``slow_chance``, within ``slow_range``), else log-normal around ``think_median``
        (``think_sigma``), at most ``think_cap``."""
        s = self.style
        if self.rng.random() < s.slow_chance:
            self._thought_slowly()
            return self._between(s.slow_range)
        return min(self.think_cap, s.think_median * math.exp(self.rng.gauss(0.0, s.think_sigma)))

    def _thought_slowly(self) -> None:
        """A slow think was drawn (for a game that counts them)."""

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


# ── drivers ────────────────────────────────────────────────────────────────
class RobotDriver:
    """Runs robots beside a running :class:`TableRuntime`, in their own thread.

    The demo: ``RobotDriver(runtime, RobotPlayers(seed=i)).start()`` for each simulated table;
    any game's robots (a :class:`PlannedPlayers`) are driven alike.
    """

    def __init__(
        self, runtime: TableRuntime, robots: PlannedPlayers[Any], *, poll: float = 0.05
    ) -> None:
        self.runtime = runtime
        self.robots = robots
        self.poll_interval = poll
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        version = -1
        while not self._stop.is_set():
            now = self.runtime.now()
            inp = self.robots.poll(self.runtime.view(now), now)
            if inp is not None:
                self.runtime.submit(inp, now)
                continue
            nxt = self.robots.next_time()
            wait = self.poll_interval
            if nxt is not None:
                wait = min(wait, max(0.001, (nxt - now) / self.runtime.speed))
            version = self.runtime.wait_for_change(version, wait)

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, name="mesa-robots", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None


def play(
    runtime: TableRuntime,
    robots: PlannedPlayers[Any],
    clock: ManualClock,
    *,
    until: Callable[[Any], bool] = lambda v: v.state == "match_over",
    max_step: float = 1.0,
    max_time: float = 6 * 3600.0,
) -> Any:
    """Play in virtual time: advance ``clock`` to each robot action (at most ``max_step`` at a
    time, so ticks and heartbeats happen as they would), until ``until(view)``. Returns the view.
    """
    start = clock()
    while True:
        runtime.step()
        now = runtime.now()
        view = runtime.view(now)
        if until(view):
            return view
        if clock() - start > max_time:
            raise TimeoutError(f"no end after {max_time:.0f} s of table time: {view.state}")
        inp = robots.poll(view, now)
        if inp is not None:
            runtime.submit(inp, now)
            continue
        nxt = robots.next_time()
        target = now + max_step if nxt is None else min(nxt, now + max_step)
        clock.set(max(target, now + 0.001))
