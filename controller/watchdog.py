"""systemd integration through sd_notify: READY once the table is up, WATCHDOG from the loop.

>>> sent = []
>>> class Notifier:
...     def notify(self, state):
...         sent.append(state)
>>> dog = Watchdog(Notifier(), interval=10.0, clock=iter([0.0, 1.0, 6.0]).__next__)
>>> dog.ready("table 7 up")
>>> dog(0.0); dog(0.0); dog(0.0)          # called by the loop at every iteration
>>> sent
['READY=1\\nSTATUS=table 7 up', 'WATCHDOG=1', 'WATCHDOG=1']

The ping comes from the table's consumer loop itself (an iteration hook), so a loop that hangs
stops the pings and systemd restarts the service (``WatchdogSec`` in the unit); the journal then
brings the table back, paused.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


def systemd_notifier() -> Any:
    """sdnotify's notifier, or None when the package or the socket is missing."""
    if not os.environ.get("NOTIFY_SOCKET"):
        return None
    try:
        import sdnotify
    except ImportError:
        log.warning("sdnotify is not installed: no systemd watchdog")
        return None
    return sdnotify.SystemdNotifier()


def watchdog_interval() -> float | None:
    """The ``WatchdogSec`` systemd gave this process, in seconds."""
    usec = os.environ.get("WATCHDOG_USEC")
    if not usec:
        return None
    try:
        pid = os.environ.get("WATCHDOG_PID")
        if pid and int(pid) != os.getpid():
            return None
        return int(usec) / 1e6
    except ValueError:
        return None


class Watchdog:
    """Pings systemd at most every ``interval / 2`` seconds (real time)."""

    def __init__(
        self,
        notifier: Any = None,
        *,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.notifier = notifier
        self.interval = interval
        self._clock = clock
        self._last = float("-inf")

    def ready(self, status: str = "") -> None:
        self._send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def status(self, status: str) -> None:
        self._send(f"STATUS={status}")

    def stopping(self) -> None:
        self._send("STOPPING=1")

    def __call__(self, now: float) -> None:
        if self.notifier is None or self.interval is None:
            return
        t = self._clock()
        if t - self._last >= self.interval / 2:
            self._last = t
            self._send("WATCHDOG=1")

    def _send(self, state: str) -> None:
        if self.notifier is None:
            return
        try:
            self.notifier.notify(state)
        except Exception:
            log.debug("sd_notify failed", exc_info=True)
