"""The tables' beats (protocol revision 3): who is still there, timed by the hub itself.

A table's MQTT will says it is lost only once the broker notices its silence, and Mosquitto
2.0 notices late (1.5 keepalives, checked every 6 s in whole seconds: up to 1.6 × the
keepalive and more). A table of revision 3 beats every ``keepalive / 3`` seconds; the hub keeps
the instant of each table's last beat, in memory only, and takes a table whose beats stopped
for ``BEATS_MISSED × every`` seconds (one keepalive) as lost, exactly as its will would.

:class:`Heartbeats` is that bookkeeping alone (no thread, no lock: its owner, the ingest,
serialises the calls and changes the projections with them). A table is watched from its first
beat; a status that is not a revision-3 ``online`` (a will, a clean ``offline``, a table that
starts a connection) stops the watch, so a table that never beats (revision 1 or 2) keeps the
will-only behaviour, and a table found silent is reported once.

>>> now = [0.0]
>>> hb = Heartbeats(clock=lambda: now[0])
>>> hb.beat("3", 5.0), hb.expired()
(False, [])
>>> now[0] = 15.0; hb.expired()          # 3 beats of 5 s missed: not yet more than that
[]
>>> now[0] = 15.1; hb.expired(), hb.expired(), hb.silent("3")
(['3'], [], True)
>>> hb.beat("3", 5.0)                    # it beats again: it is back
True
>>> now[0] = 40.0; hb.expired(), hb.status("3", "lost", 3)   # its will confirms: no news
(['3'], True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from mesa.protocol import BEAT_REVISION, BEATS_MISSED


@dataclass(slots=True)
class _Watch:
    every: float  # the seconds between beats, as the table's last beat said
    last: float  # the hub's monotonic clock at its last beat (or revision-3 online status)


class Heartbeats:
    """Each beating table's last beat, and the tables found silent since."""

    def __init__(
        self, *, clock: Callable[[], float] = time.monotonic, missed: int = BEATS_MISSED
    ) -> None:
        self._clock = clock
        self.missed = missed
        self._watch: dict[str, _Watch] = {}
        # Found silent and not heard from since: the next beat brings it back; its will (or
        # offline) only confirms what the grid already shows.
        self._silent: set[str] = set()

    def beat(self, table: str, every: float) -> bool:
        """A beat of ``table`` (a table the hub knows: the caller checks). True when it brings
        back a table found silent."""
        self._watch[table] = _Watch(every, self._clock())
        if table in self._silent:
            self._silent.discard(table)
            return True
        return False

    def status(self, table: str, state: str, revision: int) -> bool:
        """A status of ``table`` the hub accepted. An ``online`` of revision 3 or later counts
        as a beat for a watched table; anything else ends the watch (the table's next beats
        start it again). True when the table had been found silent and this is its will or
        its ``offline``: the loss is already on the grid, it is not news."""
        was_silent = table in self._silent
        self._silent.discard(table)
        watch = self._watch.get(table)
        if state == "online" and revision >= BEAT_REVISION:
            if watch is not None:
                watch.last = self._clock()
        else:
            self._watch.pop(table, None)
        return was_silent and state != "online"

    def expired(self) -> list[str]:
        """The watched tables silent for more than ``missed`` beats, each reported once (its
        watch ends: it is silent until it beats again or says a status)."""
        now = self._clock()
        gone = [t for t, w in self._watch.items() if now - w.last > self.missed * w.every]
        for table in gone:
            del self._watch[table]
            self._silent.add(table)
        return gone

    def silent(self, table: str) -> bool:
        """Whether ``table`` was found silent and has not been heard from since."""
        return table in self._silent

    def watched(self) -> dict[str, float]:
        """Each watched table's seconds since its last beat (the hub's metrics, the tests)."""
        now = self._clock()
        return {t: now - w.last for t, w in self._watch.items()}

    def clear(self) -> None:
        """Forget every beat (the hub lost the broker: no table could have reached it)."""
        self._watch.clear()
        self._silent.clear()
