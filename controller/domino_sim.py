"""The domino table on a laptop: the same runtime, journal and screen, with four robot players.

>>> sim = DominoSimTable("dom-1", speed=400, seed=3, auto_assign=True, style=FAST, games=1)
>>> sim.start()
>>> sim.wait_games(1, timeout=60)
True
>>> sim.stop(); sim.runtime.view().state
'game_over'

:class:`DominoSimTable` is what ``mesa sim --game domino`` runs: a
:class:`~mesa.controller.domino_runtime.DominoRuntime` on an accelerated clock (``speed``),
robot players (:mod:`mesa.controller.domino_robots`), optionally a journal (a killed simulator
resumes like a real table) and any sinks. With ``auto_assign`` the table plays the hub's part:
it assigns itself a game between robots and calls "TIEMPO".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mesa.controller.domino_journal import DominoJournal
from mesa.controller.domino_robots import FAST, DominoRobots, DominoRobotStyle
from mesa.controller.domino_runtime import DominoRuntime
from mesa.controller.gestures import GestureSettings, SeatGestureRecognizer
from mesa.controller.journal import Recovery
from mesa.controller.ports import OutcomeSink
from mesa.controller.robots import RobotDriver
from mesa.controller.runtime import ScaledClock, TableRuntime
from mesa.controller.sim import NAMES, EndCounter
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome
from mesa.games.domino.rules import SEATS
from mesa.games.domino.view import DominoView

__all__ = ["FAST", "DominoAutoAssign", "DominoSimTable"]


@dataclass
class DominoAutoAssign:
    """The hub's part: assigns the next game when the table is idle or a game has been over and
    signed for ``gap`` s, then calls "TIEMPO" ``tiempo_after`` s later."""

    runtime: TableRuntime
    table_id: str
    language: str = "es"
    gap: float = 20.0
    tiempo_after: float = 5.0
    games: int | None = None  # stop assigning after this many
    players: tuple[str, str, str, str] | None = None
    seed: int = 0
    settings: dict[str, Any] | None = None
    assigned: int = 0
    _over_since: float | None = None
    _assigned_at: float | None = None
    _sent: str | None = None

    def __call__(self, view: DominoView, now: float) -> None:
        """A view listener (runs in the loop)."""
        if view.state == "assigned":
            if self._assigned_at is None:
                self._assigned_at = now
            if now - self._assigned_at >= self.tiempo_after:
                self._assigned_at = float("inf")  # once
                # The sim's "hub" shares the table's clock: the game starts now.
                wall = time.time()
                self.runtime.submit(Input("tiempo", {"start_wall": wall, "wall": wall}), now)
            return
        if self.games is not None and self.assigned >= self.games:
            return
        if view.state == "game_over":
            if self._over_since is None:
                self._over_since = now
            if now - self._over_since < self.gap:
                return
        elif view.state != "idle":
            self._over_since = None
            return
        number = self.assigned + 1
        if view.game_id and view.game_id.rsplit("-G", 1)[-1].isdigit():
            number = max(number, int(view.game_id.rsplit("-G", 1)[-1]) + 1)  # a restarted sim
        game_id = f"{self.table_id}-G{number}"
        if self._sent == game_id:
            return
        self._sent = game_id
        k = (self.seed * 5 + self.assigned * 4) % len(NAMES)
        names = self.players or tuple(NAMES[(k + i) % len(NAMES)] for i in range(4))
        self.assigned += 1
        self._over_since = None
        self._assigned_at = None
        args: dict[str, Any] = {
            "game_id": game_id,
            "players": dict(zip(SEATS, names, strict=True)),
            "language": self.language,
        }
        if self.settings:
            args["settings"] = dict(self.settings)
        self.runtime.submit(Input("assign", args), now)


def _game_signed(outcome: Outcome) -> bool:
    # A game counts once its sheet is signed by both pairs (the robots' last gesture).
    return any(
        e.TYPE == "domino.sheet.signed" and getattr(e, "complete", False) for e in outcome.events
    )


class DominoSimTable:
    """One simulated domino table (see the module). ``robots`` are the seats the robots play;
    ``buttons`` puts the seat gesture recognizer between keys and the table."""

    def __init__(
        self,
        table_id: str = "sim",
        *,
        speed: float = 1.0,
        seed: int = 0,
        robots: Iterable[str] = SEATS,
        style: DominoRobotStyle | None = None,
        sinks: Iterable[OutcomeSink] = (),
        journal_dir: str | Path | None = None,
        heartbeat: float = 1.0,
        sync_interval: float = 5.0,
        fsync: bool = True,
        auto_assign: bool = False,
        language: str = "es",
        games: int | None = None,
        players: tuple[str, str, str, str] | None = None,
        settings: dict[str, Any] | None = None,
        buttons: bool = False,
        tick_interval: float = 0.1,
        link: Callable[[TableRuntime, dict[str, Any]], Any] | None = None,
    ) -> None:
        self.table_id = table_id
        self.speed = speed
        self.clock = ScaledClock(speed)
        self.counter = EndCounter(_game_signed)
        self.journal: DominoJournal | None = None
        self.recovery: Recovery | None = None
        recognizer = SeatGestureRecognizer(GestureSettings()) if buttons else None
        self.runtime = DominoRuntime(
            clock=self.clock,
            speed=speed,
            sinks=[self.counter],
            buttons=recognizer,
            tick_interval=tick_interval,
            table_id=table_id,
            language=language,
        )
        if journal_dir is not None:
            self.journal = DominoJournal(
                journal_dir, heartbeat=heartbeat, sync_interval=sync_interval, fsync=fsync
            )
            self.recovery = self.journal.prepare(self.runtime)
        for sink in sinks:
            self.runtime.add_sink(sink)
        table = self.recovery.table if self.recovery is not None else self.runtime.table
        self.link = link(self.runtime, table.snapshot()) if link is not None else None
        if self.recovery is not None:
            self.runtime.restore(self.recovery)
        seats = tuple(robots)
        self.robots = DominoRobots(seats, seed=seed, style=style) if seats else None
        self.driver = (
            RobotDriver(self.runtime, self.robots) if self.robots else None  # type: ignore[arg-type]
        )
        self.assigner: DominoAutoAssign | None = None
        if auto_assign:
            self.assigner = DominoAutoAssign(
                self.runtime,
                table_id,
                language=language,
                games=games,
                players=players,
                seed=seed,
                settings=settings,
            )
            self.runtime.add_view_listener(self.assigner)  # type: ignore[arg-type]

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
        self.runtime.stop()
        if self.link is not None:
            self.link.stop()
        if self.journal is not None:
            self.journal.close()

    def wait_games(self, count: int, timeout: float) -> bool:
        """Block until ``count`` games have ended and been signed (real ``timeout`` seconds)."""
        return self.counter.wait(count, timeout)

    @property
    def games_ended(self) -> int:
        return self.counter.ended
