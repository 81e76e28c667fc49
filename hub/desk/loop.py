"""The one desk loop every game's desk runs on: its thread, its wakes, its cursor, its sync.

A game's desk (:mod:`mesa.hub.desk.games`) owns its tournament state and its store, and gives
the loop the few things a :class:`DeskGame` provides; the loop does the rest, the same for
every game:

- **one thread**: every action, read and sync runs on the desk's own single-thread pool
  (SQLite connections belong to the thread that opened them), in the order it was asked;
- **apply**: an action that raises is undone (the game reloads its last good state from its
  store), one that succeeds bumps :attr:`DeskLoop.version` and tells :attr:`DeskLoop.on_change`;
- **wake**: the ingest's commit listener calls :meth:`DeskLoop.wake` with the committed events
  (any thread); wakes that arrive while one is queued coalesce into it, and the events it was
  handed are folded without reading them again from SQLite. A wake without events (the
  periodic tick, a restart) catches up from the cursor in the hub's store;
- **the cursor**: the rowid of the last event folded, which the game stores with what the
  events changed. An event at or before the cursor is never folded again (handed twice, or
  handed after a catch-up read it); handed events that do not follow the cursor (some were
  committed before the listener was attached) make the loop read the gap from the store
  first. Nothing is lost, nothing is applied twice, whatever order the wakes come in.

>>> import logging
>>> class Counting:  # the smallest game: counts the events it is shown
...     log, refusals, seen, at = logging.getLogger("doc"), (), 0, 0
...     def cursor(self): return self.at
...     def on_event(self, e): self.seen += 1; return True
...     def advance(self, cursor): self.at = cursor
...     def settle(self): return False
...     def reload(self): pass
>>> class NoStore:  # a hub whose store has nothing to catch up
...     def events(self, table=None, *, since=0, limit=1000): return []
>>> game = Counting()
>>> loop = DeskLoop(game, NoStore(), thread="doc")
>>> loop.wake([{"rowid": 1, "table": "1", "type": "x"}]).result()
True
>>> loop.wake([{"rowid": 1, "table": "1", "type": "x"}]).result()   # handed twice: once
False
>>> game.seen, game.at
(1, 1)
>>> loop.close(shut=lambda: None)  # the game would close its store here
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol, TypeVar

from mesa.hub.desk.ports import CommittedEvent, DeskHub, EventSource

__all__ = ["CATCH_UP_LIMIT", "DeskGame", "DeskLoop", "EventSource", "OnDeskLoop"]

T = TypeVar("T")

# Events read from the store in one catch-up; the rest wait for the next wake (a restart after
# a long outage catches up page by page, never holding the desk's thread for long).
CATCH_UP_LIMIT = 2000


class DeskGame(Protocol):
    """What a game's desk part gives the loop (all called on the desk's thread)."""

    log: logging.Logger  # the game's own logger (its lines keep their name)
    # An event the game's rules refuse raises one of these: logged and skipped, the cursor
    # moves on (a broken table's event must not stop every later one).
    refusals: tuple[type[Exception], ...]

    def cursor(self) -> int:
        """The rowid of the last event folded (0: none yet), as the game stored it."""
        ...

    def on_event(self, event: CommittedEvent) -> bool:
        """Fold one committed event (any game's: ignore the others'); True if it changed the
        tournament."""
        ...

    def advance(self, cursor: int) -> None:
        """Store the new cursor together with whatever the events changed in the game's tail
        state (one write after a batch of events)."""
        ...

    def settle(self) -> bool:
        """After the events: the tables' work (take back stale matches, hand out ready ones).
        True if it changed anything."""
        ...

    def reload(self) -> None:
        """A failed action must not survive: go back to the store's last good state."""
        ...


class DeskLoop:
    """See the module docstring. ``hub`` None: a desk without tables (it never syncs)."""

    def __init__(self, game: DeskGame, hub: EventSource | None, *, thread: str) -> None:
        self.game = game
        self.hub = hub
        self.version = 0
        # Called on the desk's thread after every change (the dashboard's live feed).
        self.on_change: list[Callable[[], None]] = []
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix=thread)
        self._lock = threading.Lock()  # guards version, the wake flag and the handed events
        self._wake_pending = False  # a wake is queued and has not started yet
        self._handed: dict[int, CommittedEvent] = {}  # rowid → event, not yet folded
        self._catch_up = False  # the next round reads the store (a wake without events)
        self._closed = False

    # ── the desk's thread ──
    def submit(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Run ``fn()`` on the desk's thread."""
        return self._pool.submit(fn)

    def call(self, fn: Callable[[], T]) -> T:
        """:meth:`submit` and wait for the result (or the exception)."""
        return self._pool.submit(fn).result()

    def apply(self, step: Callable[[], T]) -> T:
        """Run a change (on the desk's thread: the caller is there already). ``step`` saves
        what it changed; if it raises, the game reloads its last good state."""
        try:
            result = step()
        except BaseException:
            self.game.reload()
            raise
        with self._lock:
            self.version += 1
        self.changed()
        return result

    def changed(self) -> None:
        """Tell the change listeners (a listener's failure is logged, never the action's)."""
        for listener in list(self.on_change):
            try:
                listener()
            except Exception:
                self.game.log.exception("desk change listener failed")

    def bump(self) -> None:
        """A change made outside :meth:`apply` (a new tournament): readers see a new version."""
        with self._lock:
            self.version += 1

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self, shut: Callable[[], None]) -> None:
        """Run ``shut`` (the game closes its store) on the desk's thread, then stop it."""
        if self._closed:
            return
        self._closed = True
        self._pool.submit(shut).result()
        self._pool.shutdown(wait=True)

    # ── following the tables ──
    def wake(
        self, events: Sequence[CommittedEvent] | None = None
    ) -> concurrent.futures.Future[bool] | None:
        """Fold ``events`` (the ingest's committed events; None: catch up from the store) soon,
        on the desk's thread, without waiting. None when a queued wake will take them."""
        with self._lock:
            if self.hub is None or self._closed:
                return None
            for e in events or ():
                self._handed[int(e["rowid"])] = e
            self._catch_up |= events is None
            if self._wake_pending:
                return None
            self._wake_pending = True
        try:
            return self._pool.submit(self._woken)
        except RuntimeError:  # closed meanwhile
            return None

    def sync(self) -> bool:
        """Fold every new event (from the store) and settle the tables, waiting for it."""
        if self.hub is None or self._closed:
            return False
        with self._lock:
            self._catch_up = True
        return self._pool.submit(self._sync).result()

    def _woken(self) -> bool:
        with self._lock:
            self._wake_pending = False
        if self._closed:
            return False
        try:
            return self._sync()
        except Exception:
            self.game.log.exception("desk sync failed")
            return False

    def _sync(self) -> bool:
        cursor = self.game.cursor()
        events = self._next_events(cursor)
        changed = False
        try:
            for e in events:
                try:
                    changed = self.game.on_event(e) or changed
                except self.game.refusals as err:
                    self.game.log.warning(
                        "table %s: %s not applied: %s", e["table"], e["type"], err
                    )
                cursor = int(e["rowid"])
        except BaseException:
            # Not a refusal: a failure. What was not folded is read again from the store
            # next round (the handed events are gone), from the cursor last stored.
            with self._lock:
                self._catch_up = True
            raise
        if events:
            self.game.advance(cursor)
        return self.game.settle() or changed

    def _next_events(self, cursor: int) -> list[CommittedEvent]:
        """The events after ``cursor`` to fold now, in commit order: the handed ones when they
        follow the cursor without a gap, else (a catch-up asked for, or some missing) the
        store's; handed events past the store's page wait for the next round."""
        with self._lock:
            handed, self._handed = self._handed, {}
            catch_up, self._catch_up = self._catch_up, False
        fresh = [handed[r] for r in sorted(handed) if r > cursor]
        follows = all(int(e["rowid"]) == cursor + i for i, e in enumerate(fresh, start=1))
        if not catch_up and follows:
            return fresh
        assert self.hub is not None  # never woken without a hub
        read = list(self.hub.events(since=cursor, limit=CATCH_UP_LIMIT))
        last = int(read[-1]["rowid"]) if read else cursor
        later = {int(e["rowid"]): e for e in fresh if int(e["rowid"]) > last}
        if later:
            with self._lock:
                for rowid, e in later.items():
                    self._handed.setdefault(rowid, e)
        return read


class _Store(Protocol):
    def close(self) -> None: ...


class OnDeskLoop(DeskGame):
    """What every game's desk is on the one loop, written once: the loop's game (the desk gives
    the :class:`DeskGame` members), its start and close, and what it shows of the loop to the
    process and the dashboard. A game's desk calls :meth:`_open_loop` in its constructor and
    opens its ``store`` on the loop's thread."""

    _loop: DeskLoop
    hub: DeskHub | None
    store: _Store

    def _open_loop(
        self,
        hub: DeskHub | None,
        *,
        now: Callable[[], datetime],
        wall: Callable[[], float],
        language: str,
        thread: str,
    ) -> None:
        """Start the desk's loop (its thread named ``thread``) on ``hub`` (None: no tables),
        with the desk's clocks (``now`` for the records, ``wall`` the hub's wall clock) and the
        language the tables are assigned in."""
        self.hub = hub
        self._now = now
        self._wall = wall
        self.language = language
        self._loop = DeskLoop(self, hub, thread=thread)

    def close(self) -> None:
        """Close the desk's store on its thread, then stop the thread."""
        self._loop.close(self.store.close)

    @property
    def version(self) -> int:
        """Bumped by every change: the dashboard's pages refetch when it moves."""
        return self._loop.version

    @property
    def on_change(self) -> list[Callable[[], None]]:
        """Called on the desk's thread after every change (the dashboard's live feed)."""
        return self._loop.on_change

    def wake(
        self, events: Sequence[CommittedEvent] | None = None
    ) -> concurrent.futures.Future[bool] | None:
        """Fold ``events`` (the ingest's committed events; None: catch up from the cursor)
        soon, on the desk's thread, without waiting (:meth:`DeskLoop.wake`)."""
        return self._loop.wake(events)

    def sync(self) -> bool:
        """Fold new table events and settle the tables, waiting for it. True if it changed."""
        return self._loop.sync()
