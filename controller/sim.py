"""The table on a laptop: the same runtime, journal and screen, with robots or keys for players.

>>> import tempfile
>>> from mesa.controller.games.backgammon.robots import FAST
>>> sim = SimTable("demo-1", speed=50, seed=3, auto_assign=True, style=FAST)
>>> sim.start()
>>> sim.wait_matches(1, timeout=60)
True
>>> sim.stop(); sim.runtime.view().state
'match_over'

:class:`SimTable` is what ``mesa sim`` runs and what the demo runs eight of: a
:class:`~mesa.controller.runtime.TableRuntime` on an accelerated clock (``speed``), robot players
(:mod:`mesa.controller.games.backgammon.robots`), optionally a journal (so a killed simulator resumes like a real
table) and any sinks (the hub link). With ``auto_assign`` the table assigns itself matches
between robots, as a hub would.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from mesa.controller.assembly import CoreSpec, JournalSpec, LinkFactory, TableCore
from mesa.controller.games import table_game
from mesa.controller.ports import OutcomeSink
from mesa.controller.robot_plans import RobotDriver
from mesa.controller.runtime import ScaledClock, TableRuntime
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome

__all__ = ["NAMES", "Assigner", "EndCounter", "SimTable", "WindowKeys"]

log = logging.getLogger(__name__)

NAMES = (
    "Ana", "Beto", "Carmen", "Diego", "Elena", "Félix", "Gloria", "Hugo",
    "Inés", "Jorge", "Lucía", "Manuel", "Nuria", "Óscar", "Paula", "Ramón",
)  # fmt: skip


@dataclass
class Assigner:
    """The hub's part in a simulator, whatever the game: a view listener that assigns the next
    match (or game) when the table is idle, or its last one has been over for ``gap`` s, up to
    ``matches``. Each game's subclass says what an assignment is (its ``__call__``)."""

    runtime: TableRuntime
    table_id: str
    language: str = "es"
    gap: float = 20.0
    matches: int | None = None  # stop assigning after this many
    players: tuple[str, ...] | None = None
    seed: int = 0
    assigned: int = 0
    _over_since: float | None = None
    _sent: str | None = None

    def due(self, state: str, over: str, now: float) -> bool:
        """Whether the table (in ``state``; ``over``: its game's finished state) wants the next."""
        if self.matches is not None and self.assigned >= self.matches:
            return False
        if state == over:
            if self._over_since is None:
                self._over_since = now
            return now - self._over_since >= self.gap
        if state != "idle":
            self._over_since = None
            return False
        return True

    def next_id(self, held: str | None, letter: str) -> str | None:
        """The next assignment's id (``<table>-<letter><n>``), or None when it was sent already;
        a restarted simulator continues the numbering it left (``held``, the id on the table)."""
        number = self.assigned + 1
        m = re.search(rf"-{letter}(\d+)$", held or "")
        if m:
            number = max(number, int(m.group(1)) + 1)
        new = f"{self.table_id}-{letter}{number}"
        if self._sent == new:
            return None
        self._sent = new
        return new

    def next_due(self, state: str, over: str, held: str | None, letter: str, now: float
                 ) -> str | None:
        """The next assignment's id when the table wants one (:meth:`due`) and it has not been
        sent yet (:meth:`next_id`), else None."""
        return self.next_id(held, letter) if self.due(state, over, now) else None

    def names(self, k: int, count: int) -> tuple[str, ...]:
        """``count`` players' names: ``players``, or the ``count`` names from the ``k``-th."""
        return self.players or tuple(NAMES[(k + i) % len(NAMES)] for i in range(count))

    def sent(self) -> None:
        """Note an assignment made (the listener's next calls wait for it to end)."""
        self.assigned += 1
        self._over_since = None


class EndCounter:
    """A sink that counts the outcomes that end something (a match; a domino game once its
    sheet is signed) and lets a caller wait for a number of them."""

    def __init__(self, ends: Callable[[Outcome], bool]) -> None:
        self.ends = ends
        self.ended = 0
        self.cond = threading.Condition()

    def on_outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float) -> None:
        if self.ends(outcome):
            with self.cond:
                self.ended += 1
                self.cond.notify_all()

    def wait(self, count: int, timeout: float) -> bool:
        """Block until ``count`` have ended (real ``timeout`` seconds); False on timeout."""
        with self.cond:
            return self.cond.wait_for(lambda: self.ended >= count, timeout)


class SimTable:
    """One simulated table of ``game`` (a registered game's name; see the module). The demo's
    use::

        sim = SimTable(table_id, speed=20, seed=i, robots=("a", "b"), style=FAST)
        sim.runtime.add_sink(link); sim.start(); ...; sim.stop()

    ``robots`` are the seats the robots play (default: every seat); ``buttons`` puts the game's
    gesture recognizer between keys and the table. ``link(runtime, snapshot)``, when given,
    makes the hub link before a journal restore (so the link reports it) and is stopped with
    the table. With ``auto_assign`` the table plays the hub's part and assigns itself
    ``matches`` matches (or games) between robots; ``length`` is a backgammon match's,
    ``settings`` a domino game's.

    >>> sim = SimTable("dom-1", game="domino", speed=400, seed=3, auto_assign=True, matches=1,
    ...                style=table_game("domino").robot_style(True, "buttons"))
    >>> sim.start()
    >>> sim.wait_matches(1, timeout=60)
    True
    >>> sim.stop(); sim.runtime.view().state
    'game_over'
    """

    def __init__(
        self,
        table_id: str = "sim",
        *,
        game: str = "backgammon",
        speed: float = 1.0,
        seed: int = 0,
        robots: Iterable[str] | None = None,
        style: Any = None,
        sinks: Iterable[OutcomeSink] = (),
        journal_dir: str | Path | None = None,
        heartbeat: float = 1.0,
        sync_interval: float = 5.0,
        fsync: bool = True,
        auto_assign: bool = False,
        length: int = 3,
        language: str = "es",
        matches: int | None = None,
        players: tuple[str, ...] | None = None,
        settings: dict[str, Any] | None = None,
        buttons: bool = False,
        tick_interval: float = 0.1,
        link: LinkFactory | None = None,
    ) -> None:
        self.table_id = table_id
        self.speed = speed
        self.game = plug = table_game(game)
        self.clock = ScaledClock(speed)
        self.counter = EndCounter(plug.ended)
        journal = (
            JournalSpec(journal_dir, heartbeat=heartbeat, sync_interval=sync_interval, fsync=fsync)
            if journal_dir is not None
            else None
        )
        spec = CoreSpec(
            table_id=table_id,
            clock=self.clock,
            speed=speed,
            buttons=plug.recognizer(None) if buttons else None,
            tick_interval=tick_interval,
            language=language,
            journal=journal,
            game=game,
        )
        self.core = TableCore(spec, sinks=[self.counter])
        self.runtime = self.core.runtime
        self.journal = self.core.journal
        self.core.boot(link, sinks=sinks)
        self.recovery = self.core.recovery
        self.link = self.core.link
        seats = plug.seats if robots is None else tuple(robots)
        self.robots = plug.robots(seats, seed, style) if seats else None
        self.driver = RobotDriver(self.runtime, self.robots) if self.robots else None
        self.assigner: Callable[..., None] | None = None
        if auto_assign:
            options: dict[str, Any] = {"length": length, "settings": settings}
            self.assigner = plug.auto_assign(
                self.runtime,
                table_id,
                language=language,
                matches=matches,
                players=players,
                seed=seed,
                **{k: v for k, v in options.items() if v is not None},
            )
            self.runtime.add_view_listener(self.assigner)

    @property
    def restored(self) -> bool:
        return self.runtime.status.restored

    def start(self) -> None:
        self.runtime.start()
        if self.driver is not None:
            self.driver.start()

    def stop(self) -> None:
        if self.driver is not None:
            self.driver.stop()
        self.core.close()

    def wait_matches(self, count: int, timeout: float) -> bool:
        """Block until ``count`` matches (domino: signed games) have ended at this table (real
        ``timeout`` seconds)."""
        return self.counter.wait(count, timeout)

    @property
    def matches_ended(self) -> int:
        return self.counter.ended

    wait_games = wait_matches  # a domino table's word for the same count


class WindowKeys:
    """The simulator window's keyboard as the table's buttons: real press and release edges.

    >>> from mesa.controller.runtime import ManualClock, TableRuntime
    >>> rt = TableRuntime(clock=ManualClock())
    >>> keys = WindowKeys(rt)
    >>> keys.key("a", "a", True); keys.key("a", "a", True); keys.key("a", "a", False)
    >>> [(e.button, e.pressed) for _, _, e in rt.take_queued()]   # the repeat is no edge
    [('a', True), ('a', False)]

    ``a`` and ``l`` are the clock buttons (hold them for a hold), ``c`` CUBE, ``p`` PAUSE,
    ``1``/``2`` swipe player a's/b's card, Escape quits. Key auto-repeat sends release/press
    pairs while a key is held: the gesture lockout absorbs them like contact bounce.
    """

    BUTTONS: ClassVar[dict[str, str]] = {"a": "a", "l": "b", "c": "cube", "p": "pause"}

    def __init__(self, runtime: TableRuntime, stop: threading.Event | None = None) -> None:
        self.runtime = runtime
        self.stop = stop or threading.Event()
        self.down: set[str] = set()

    def key(self, char: str, keysym: str, pressed: bool) -> None:
        rt = self.runtime
        name = self.BUTTONS.get(char)
        if name is not None:
            if pressed == (name in self.down):
                return
            (self.down.add if pressed else self.down.discard)(name)
            rt.submit_edge(name, pressed, rt.now())
        elif pressed and char in ("1", "2"):
            card = rt.table.s.cards.get("a" if char == "1" else "b")
            if card:
                rt.submit(Input("card", {"card": card}), rt.now())
        elif pressed and keysym == "Escape":
            self.stop.set()
