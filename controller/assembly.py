"""One builder for a table's core, whatever its game: the runtime, its journal, and the order
they start and stop in.

Both ``mesa controller`` (:class:`~mesa.controller.app.TableApp`) and ``mesa sim``
(:class:`~mesa.controller.sim.SimTable`) build their table here, so the journal ↔ runtime wiring
exists once:

>>> import tempfile
>>> from mesa.controller.runtime import ManualClock
>>> folder = tempfile.mkdtemp()
>>> core = TableCore(CoreSpec(table_id="7", clock=ManualClock(), journal=JournalSpec(folder)))
>>> core.boot()               # nothing to restore the first time
>>> core.recovery is None, core.runtime.table.state
(True, 'idle')
>>> core.close()
>>> again = TableCore(CoreSpec(table_id="7", clock=ManualClock(), journal=JournalSpec(folder)))
>>> again.boot(); again.recovery is not None, again.runtime.status.restored
(True, True)
>>> again.close()

Start-up order (:meth:`TableCore.boot`): the journal recovers the table and becomes a sink; then
the hub link is made (``link(runtime, snapshot)``) with the recovered snapshot, so that it sees
the restore's ``table.restored`` event like every other; then the restore is applied (a running
clock resumes paused). :meth:`TableCore.close` stops the loop, then the link (which stores what
is queued), then the journal.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mesa.controller.games import table_game
from mesa.controller.journal import Journal, Recovery
from mesa.controller.ports import OutcomeSink
from mesa.controller.runtime import TableRuntime
from mesa.games.backgammon.machine import TableSettings

log = logging.getLogger(__name__)

# Makes the hub link for a runtime, given the snapshot it starts from; returns the link (an
# object with ``stop()``), already a sink of the runtime.
LinkFactory = Callable[[TableRuntime, dict[str, Any]], Any]


@dataclass(frozen=True)
class JournalSpec:
    """Where and how the table journals (see :class:`~mesa.controller.journal.Journal`)."""

    directory: str | Path
    heartbeat: float = 1.0
    sync_interval: float = 5.0
    compact_bytes: int = 256 * 1024
    fsync: bool = True


@dataclass(frozen=True)
class CoreSpec:
    """What the core of one table is made of; everything optional has the Pi's default."""

    table_id: str = ""
    clock: Callable[[], float] = time.monotonic
    speed: float | None = None  # the clock's rate against real time (default: clock.speed)
    settings: TableSettings | None = None
    buttons: Any = None  # the game's gesture recognizer (None: inputs only)
    tick_interval: float = 0.1
    extra_buttons: frozenset[str] = frozenset()
    language: str | None = None
    journal: JournalSpec | None = None
    game: str = "backgammon"  # a registered game's name (mesa.games.registry)


class TableCore:
    """The runtime and its journal, built from a :class:`CoreSpec` (see the module)."""

    def __init__(self, spec: CoreSpec, sinks: Iterable[OutcomeSink] = ()) -> None:
        self.spec = spec
        settings = spec.settings or TableSettings()
        game = table_game(spec.game)
        self.runtime = TableRuntime(
            game.new_table(settings),
            game=game,
            clock=spec.clock,
            speed=spec.speed,
            sinks=sinks,
            buttons=spec.buttons,
            tick_interval=spec.tick_interval,
            table_id=spec.table_id,
            extra_buttons=spec.extra_buttons,
            language=spec.language,
        )
        self.journal: Journal | None = None
        if spec.journal is not None:
            j = spec.journal
            self.journal = Journal(
                j.directory,
                heartbeat=j.heartbeat,
                sync_interval=j.sync_interval,
                compact_bytes=j.compact_bytes,
                fsync=j.fsync,
                settings=settings,
                game=game,
            )
        self.recovery: Recovery | None = None
        self.link: Any = None

    def boot(self, link: LinkFactory | None = None, sinks: Iterable[OutcomeSink] = ()) -> None:
        """Recover from the journal, add ``sinks``, make the link, apply the restore."""
        if self.journal is not None:
            self.recovery = self.journal.prepare(self.runtime)
        for sink in sinks:
            self.runtime.add_sink(sink)
        table = self.recovery.table if self.recovery is not None else self.runtime.table
        if link is not None:
            self.link = link(self.runtime, table.snapshot())
        watch_storage(self.runtime, [self.journal, self.link])
        if self.recovery is not None:
            self.runtime.restore(self.recovery)
            for problem in self.recovery.problems:
                log.warning("journal: %s", problem)
            log.info(
                "restored %s from the journal in %.0f ms (%d records)",
                self.runtime.table.state,
                1000 * self.recovery.seconds,
                self.recovery.records,
            )

    def known_cards(self) -> tuple[str, ...]:
        """The current match's member cards (the card reader's rate limit spares them)."""
        return tuple(getattr(self.runtime.table.s, "cards", {}).values())

    def close(self) -> None:
        """Stop the loop, then the link (it stores what is queued), then the journal."""
        self.runtime.stop()
        if self.link is not None:
            try:
                self.link.stop()
            except Exception:
                log.exception("stopping the hub link failed")
        if self.journal is not None:
            self.journal.close()


def once_a_second(check: Callable[[], None]) -> Callable[[float], None]:
    """An iteration hook that runs ``check`` at most once a real second (the loop runs ten times
    as often: what the screen shows of the link and the disk needs no more)."""
    last = [0.0]

    def hook(now: float) -> None:
        t = time.monotonic()
        if t - last[0] < 1.0:
            return
        last[0] = t
        check()

    return hook


def watch_storage(runtime: TableRuntime, sources: Iterable[Any]) -> None:
    """Show "disk full" while any of ``sources`` (the journal, the hub link: objects with a
    ``storage_error``) cannot write; checked from the loop once a real second."""
    watched = [s for s in sources if s is not None]

    def check() -> None:
        full = any(getattr(s, "storage_error", None) is not None for s in watched)
        if runtime.status.disk_full != full:
            runtime.update_status(disk_full=full)

    if watched:
        runtime.add_iteration_hook(once_a_second(check))
