"""The dashboard's HTTP connections, bounded: a connection that does not finish sending a
request's headers in time is closed, and past a ceiling the oldest idle connections make room.

uvicorn closes a keep-alive connection that stays silent after a response
(``timeout_keep_alive``) but not one that never sends a request, nor one that dribbles its
headers a byte at a time: a few hundred of those used to hold every file descriptor and starve
``/healthz``. :class:`GuardedH11Protocol` is uvicorn's own h11 protocol with two additions:

* a *header timer*, armed when the connection opens and again after each response: if no new
  request has arrived (headers complete) when it fires, the connection is closed;
* a *ceiling* on open connections: when a new one would pass it, the oldest connections that
  are between requests are closed (an event stream or a request in flight is never cut).

    uvicorn.Config(app, http=guarded_protocol(header_timeout=10, max_connections=400))

>>> P = guarded_protocol(header_timeout=2.5, max_connections=10)
>>> P.header_timeout, P.max_connections
(2.5, 10)
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("mesa.web")

# Seconds a client has to send a complete request head (after connecting or after a response).
HEADER_TIMEOUT = 10.0
# Open connections at most: well under the process's file descriptors (1024 by default).
MAX_CONNECTIONS = 400


class GuardedH11Protocol(H11Protocol):
    """See the module docstring; tune with :func:`guarded_protocol`."""

    header_timeout: float = HEADER_TIMEOUT
    max_connections: int = MAX_CONNECTIONS
    # counters for the benchmark and the tests (per server process)
    closed_idle: int = 0
    shed: int = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._opened = self.loop.time()
        self._arm_header_timer(None)
        if len(self.connections) > self.max_connections:
            self._make_room()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_header_timer(self.cycle)

    # ── the header timer ──
    def _arm_header_timer(self, waiting_after: Any) -> None:
        self._cancel_header_timer()
        self._waiting_after = waiting_after  # the cycle that was current: "no new request yet"
        self._header_timer: asyncio.TimerHandle | None = self.loop.call_later(
            self.header_timeout, self._header_timeout
        )

    def _cancel_header_timer(self) -> None:
        timer = getattr(self, "_header_timer", None)
        if timer is not None:
            timer.cancel()
            self._header_timer = None

    def _between_requests(self) -> bool:
        cycle = self.cycle
        return cycle is self._waiting_after and (cycle is None or cycle.response_complete)

    def _header_timeout(self) -> None:
        self._header_timer = None
        if self._between_requests() and not self.transport.is_closing():
            type(self).closed_idle += 1
            self.transport.close()

    # ── the ceiling ──
    def _make_room(self) -> None:
        # connections already closing stay in the set until the loop reports them lost
        live = [p for p in self.connections if not p.transport.is_closing()]
        excess = len(live) - self.max_connections
        if excess <= 0:
            return
        idle = sorted(
            (
                p
                for p in live
                if isinstance(p, GuardedH11Protocol) and p is not self and p._between_requests()
            ),
            key=lambda p: p._opened,
        )
        for p in idle[:excess]:
            type(self).shed += 1
            p.transport.close()
        if excess > len(idle):  # every other connection is busy: this one waits its turn
            log.warning("dashboard at %d connections: refusing a new one", len(live))
            type(self).shed += 1
            self.transport.close()


def guarded_protocol(
    header_timeout: float = HEADER_TIMEOUT, max_connections: int = MAX_CONNECTIONS
) -> type[GuardedH11Protocol]:
    """A :class:`GuardedH11Protocol` class with these limits (uvicorn wants a class)."""
    return type(
        "GuardedH11Protocol",
        (GuardedH11Protocol,),
        {"header_timeout": header_timeout, "max_connections": max_connections},
    )
