"""A TCP proxy on loopback that misbehaves as a club's Wi-Fi does, for tests and benches.

Between a table and the broker, or between the hub and the broker, each direction has its own
:class:`Leg`: a fixed latency, a jitter around it, a bandwidth cap, and a silent *blackhole* (the
bytes vanish, nothing is closed: neither end learns anything, as when an access point hangs or
a table walks out of range). On top of that, connections can be reset (a TCP RST to both
ends), at a given rate or on demand, and the whole link can be partitioned for a while (both
directions blackholed, and new connections answered by silence, then healed by itself).

Why our own: toxiproxy needs its Go server, which is neither a Debian nor a PyPI package here;
faultlib needs Python 3.14; toxic-proxy does latency and bandwidth only, and no direction-wise
blackhole, reset or partition.

Every test states its schedule::

    proxy = FaultProxy("127.0.0.1", broker.port,
                       Schedule(up=Leg(latency=0.3, jitter=0.2), down=Leg(latency=0.3, jitter=0.2),
                                resets_per_minute=0.01)).start()
    ...                        # the table connects to 127.0.0.1:proxy.port
    proxy.blackhole()          # silent loss, both directions; or blackhole(down=False)
    proxy.heal()
    proxy.partition(5.0)       # a timed partition: heals itself after 5 s
    proxy.reset()              # every open connection reset
    proxy.stop()

All proxies share one asyncio loop in a daemon thread; every queue is bounded (a direction
holds at most ``max_buffer`` bytes in flight, then stops reading, as a full TCP window does),
and so is the number of connections. Only loopback addresses are accepted.

>>> proxy = FaultProxy("127.0.0.1", 9, Schedule(up=Leg(latency=0.1))).start()
>>> proxy.port > 0, proxy.open_connections, proxy.schedule.up.latency
(True, 0, 0.1)
>>> proxy.stop()
>>> FaultProxy("10.0.0.1", 1883)
Traceback (most recent call last):
  ...
ValueError: the fault proxy speaks to loopback only, not '10.0.0.1'
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import random
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Leg:
    """One direction of the link. ``latency`` and ``jitter`` in seconds (each chunk is delayed
    by ``latency`` ± up to ``jitter``, uniformly, never reordered); ``bandwidth`` in bytes per
    second (None: no cap); ``blackhole``: nothing passes, nothing is closed (the sockets stay
    open; what was sent is held, as TCP retransmits it, and arrives if the link heals before
    an end gives up)."""

    latency: float = 0.0
    jitter: float = 0.0
    bandwidth: float | None = None
    blackhole: bool = False

    def __post_init__(self) -> None:
        if (
            self.latency < 0
            or self.jitter < 0
            or (self.bandwidth is not None and self.bandwidth <= 0)
        ):
            raise ValueError(f"a leg needs latency, jitter ≥ 0 and bandwidth > 0: {self}")

    def delay(self, rng: random.Random) -> float:
        """This chunk's delay (seconds, ≥ 0).

        >>> Leg(latency=0.3, jitter=0.2).delay(random.Random(1)) == 0.3 + 0.2 * (2 * random.Random(1).random() - 1)
        True
        """
        if not self.jitter:
            return self.latency
        return max(0.0, self.latency + self.jitter * (2 * rng.random() - 1))


@dataclass(frozen=True)
class Schedule:
    """What the link does: ``up`` is client → server (table or hub → broker), ``down`` the
    reverse; ``resets_per_minute``: the fraction of open connections reset each minute (0.01:
    1 %), drawn per connection every ``reset_tick`` seconds with ``seed``."""

    up: Leg = Leg()
    down: Leg = Leg()
    resets_per_minute: float = 0.0
    reset_tick: float = 1.0
    seed: int = 0

    @classmethod
    def both(cls, leg: Leg, **kw: Any) -> Schedule:
        """The same leg in both directions."""
        return cls(up=leg, down=leg, **kw)


def _check_loopback(host: str) -> None:
    try:
        ok = ipaddress.ip_address(socket.gethostbyname(host)).is_loopback
    except (OSError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"the fault proxy speaks to loopback only, not {host!r}")


# ── the shared loop ──────────────────────────────────────────────────────────
_LOOP: asyncio.AbstractEventLoop | None = None
_LOOP_LOCK = threading.Lock()


def _loop() -> asyncio.AbstractEventLoop:
    """The one event loop every proxy runs on (a daemon thread, started on first use)."""
    global _LOOP
    with _LOOP_LOCK:
        if _LOOP is None or _LOOP.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="faultproxy", daemon=True).start()
            _LOOP = loop
        return _LOOP


def _run(coro: Coroutine[Any, Any, T], timeout: float = 10.0) -> T:
    return asyncio.run_coroutine_threadsafe(coro, _loop()).result(timeout)


def _rst(writer: asyncio.StreamWriter) -> None:
    """Close with a TCP RST (SO_LINGER 0), not a FIN."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


# ── one direction of one connection ──────────────────────────────────────────
class _Pipe:
    """Bytes from ``reader`` to ``writer`` under the proxy's current leg for ``direction``.

    A blackhole holds what was sent instead of passing it on, as TCP keeps retransmitting over a
    dead link: nothing arrives, nothing is closed. When the link heals, what was held arrives
    in order if both ends still listen; an end that gave up meanwhile gets the close then."""

    def __init__(self, proxy: FaultProxy, direction: str) -> None:
        self.proxy, self.direction = proxy, direction
        self.queue: deque[tuple[float, bytes]] = deque()
        self.queued = 0  # bytes in ``queue``
        self.wake = asyncio.Event()  # something queued, or the end
        self.room = asyncio.Event()  # the queue has room again
        self.room.set()
        self.last_due = 0.0  # chunks leave in order: never before the one ahead
        self.next_free = 0.0  # the bandwidth cap's clock
        self.eof = False  # the sender closed its side

    def leg(self) -> Leg:
        s = self.proxy.schedule
        return s.up if self.direction == "up" else s.down

    def blocked(self) -> bool:
        return self.leg().blackhole or self.proxy.partitioned

    async def read(self, reader: asyncio.StreamReader) -> None:
        p = self.proxy
        while True:
            await self.room.wait()  # full: stop reading, the sender's window fills up
            try:
                data = await reader.read(65536)
            except (ConnectionError, OSError):
                data = b""
            if not data:
                self.eof = True
                self.wake.set()
                return
            now = time.monotonic()
            due = max(self.last_due, now + self.leg().delay(p.rng))
            self.last_due = due
            self.queue.append((due, data))
            self.queued += len(data)
            if self.queued >= p.max_buffer:
                self.room.clear()
            self.wake.set()

    async def write(self, writer: asyncio.StreamWriter) -> None:
        p = self.proxy
        while True:
            while self.blocked():  # held in the air (polled: cheap, and no cross-thread events)
                await asyncio.sleep(0.05)
            if not self.queue:
                if self.eof:
                    with contextlib.suppress(OSError, RuntimeError):
                        if writer.can_write_eof():
                            writer.write_eof()
                    return
                self.wake.clear()
                await self.wake.wait()
                continue
            due, data = self.queue[0]
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            leg = self.leg()
            if leg.bandwidth is not None:
                now = time.monotonic()
                start = max(now, self.next_free)
                self.next_free = start + len(data) / leg.bandwidth
                if self.next_free > now:
                    await asyncio.sleep(self.next_free - now)
            if self.blocked():
                continue  # the link went down while this chunk waited: held with the rest
            self.queue.popleft()
            self.queued -= len(data)
            if self.queued < p.max_buffer:
                self.room.set()
            writer.write(data)
            p.delivered[self.direction] += len(data)
            await writer.drain()


class _Conn:
    def __init__(
        self,
        proxy: FaultProxy,
        client: tuple[asyncio.StreamReader, asyncio.StreamWriter],
        server: tuple[asyncio.StreamReader, asyncio.StreamWriter],
    ) -> None:
        self.proxy = proxy
        self.client, self.server = client, server
        self.up = _Pipe(proxy, "up")
        self.down = _Pipe(proxy, "down")
        self.done = asyncio.Event()

    async def run(self) -> None:
        tasks = [
            asyncio.create_task(self.up.read(self.client[0])),
            asyncio.create_task(self.up.write(self.server[1])),
            asyncio.create_task(self.down.read(self.server[0])),
            asyncio.create_task(self.down.write(self.client[1])),
        ]
        writers = {tasks[1], tasks[3]}
        done_wait = asyncio.create_task(self.done.wait())
        pending: set[asyncio.Task[Any]] = {*writers, done_wait}
        try:
            # Over when both directions have ended, one of them failed (a reset end), or the
            # proxy closed the connection.
            while True:
                finished, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                failed = any(not t.cancelled() and t.exception() for t in finished & writers)
                if done_wait in finished or failed or all(t.done() for t in writers):
                    break
        finally:
            for t in (*tasks, done_wait):
                t.cancel()
            self.close()

    def close(self, rst: bool = False) -> None:
        for _, w in (self.client, self.server):
            if rst:
                _rst(w)
            else:
                w.close()
        self.done.set()


# ── the proxy ────────────────────────────────────────────────────────────────
class FaultProxy:
    """Listens on ``127.0.0.1:<port>`` and forwards to ``target_host:target_port`` under
    ``schedule`` (changed at any time with :meth:`set`, :meth:`blackhole`, :meth:`heal`)."""

    def __init__(
        self,
        target_host: str,
        target_port: int,
        schedule: Schedule | None = None,
        *,
        max_connections: int = 64,
        max_buffer: int = 1 << 20,
    ) -> None:
        _check_loopback(target_host)
        self.target = (target_host, target_port)
        self.schedule = schedule or Schedule()
        self.max_connections = max_connections
        self.max_buffer = max_buffer
        self.rng = random.Random(self.schedule.seed)
        self.port = 0
        self.partitioned = False
        self.refusing = False  # cut(): new connections closed at once
        self.seen = 0  # connections the proxy has dealt with (forwarded, held or refused)
        self.accepted = 0  # ... and forwarded
        self.resets = 0
        self.delivered = {"up": 0, "down": 0}
        self._conns: set[_Conn] = set()
        self._silent: set[asyncio.StreamWriter] = set()  # accepted while the link is down
        self._server: asyncio.Server | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._heal_at: asyncio.TimerHandle | None = None

    # ── lifecycle ──
    def start(self) -> FaultProxy:
        _run(self._start())
        return self

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0, backlog=64)
        self.port = int(self._server.sockets[0].getsockname()[1])
        self._ticker = asyncio.create_task(self._reset_ticker())

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            _run(self._stop())

    async def _stop(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
        if self._heal_at is not None:
            self._heal_at.cancel()
        if self._server is not None:
            self._server.close()
        self._drop_all(rst=False)
        for w in list(self._silent):
            w.close()
        self._silent.clear()

    # ── what a test does ──
    def set(self, schedule: Schedule) -> None:
        """Use ``schedule`` from now on (the chunks in flight keep their delay)."""
        self.schedule = schedule
        self._on_loop(self._healed)

    def blackhole(self, *, up: bool = True, down: bool = True) -> None:
        """Nothing passes in the chosen directions from now on, and nothing is closed."""
        s = self.schedule
        self.set(
            dataclasses.replace(
                s,
                up=dataclasses.replace(s.up, blackhole=up or s.up.blackhole),
                down=dataclasses.replace(s.down, blackhole=down or s.down.blackhole),
            )
        )

    def heal(self) -> None:
        """End every blackhole and partition (latency, jitter and bandwidth stay)."""
        s = self.schedule
        self.partitioned = False
        self.set(
            dataclasses.replace(
                s,
                up=dataclasses.replace(s.up, blackhole=False),
                down=dataclasses.replace(s.down, blackhole=False),
            )
        )

    def partition(self, seconds: float) -> None:
        """Nothing passes either way for ``seconds`` (open connections go silent, new ones are
        accepted and never answered, then reset); then the link heals by itself."""

        def begin() -> None:
            self.partitioned = True
            if self._heal_at is not None:
                self._heal_at.cancel()
            self._heal_at = _loop().call_later(seconds, self.heal)

        _run(self._call(begin))

    def reset(self, count: int | None = None) -> int:
        """Reset ``count`` open connections (all: None) with an RST to both ends; how many."""
        return _run(self._reset(count))

    def cut(self) -> None:
        """Pull the cable (as :class:`support.netcut.CutProxy`): every connection closed, new
        ones refused until :meth:`restore`."""
        self.refusing = True
        _run(self._call(lambda: self._drop_all(rst=False)))

    def restore(self) -> None:
        self.refusing = False

    @property
    def cut_off(self) -> bool:
        return self.refusing

    @property
    def open_connections(self) -> int:
        return len(self._conns)

    # ── on the loop ──
    def _on_loop(self, fn: Any) -> None:
        with contextlib.suppress(RuntimeError):
            _loop().call_soon_threadsafe(fn)

    async def _call(self, fn: Any) -> None:
        fn()

    def _healed(self) -> None:
        s = self.schedule
        if not (self.partitioned or s.up.blackhole or s.down.blackhole):
            for w in list(self._silent):  # the connect that never got through: given up
                _rst(w)
            self._silent.clear()

    def _drop_all(self, *, rst: bool) -> None:
        for c in list(self._conns):
            c.close(rst=rst)

    async def _reset(self, count: int | None) -> int:
        victims = sorted(self._conns, key=id)
        if count is not None:
            victims = self.rng.sample(victims, min(count, len(victims)))
        for c in victims:
            c.close(rst=True)
        self.resets += len(victims)
        return len(victims)

    async def _reset_ticker(self) -> None:
        while True:
            s = self.schedule
            await asyncio.sleep(s.reset_tick)
            p = s.resets_per_minute * s.reset_tick / 60.0
            if p <= 0:
                continue
            for c in sorted(self._conns, key=id):
                if self.rng.random() < p:
                    c.close(rst=True)
                    self.resets += 1

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refusing or len(self._conns) >= self.max_connections:
            writer.close()
            self.seen += 1
            return
        s = self.schedule
        if self.partitioned or s.up.blackhole or s.down.blackhole:
            self._silent.add(writer)  # the SYN got through, nothing else will
            self.seen += 1
            return
        try:
            server = await asyncio.wait_for(asyncio.open_connection(*self.target), 5.0)
        except (TimeoutError, OSError):
            writer.close()
            self.seen += 1
            return
        self.accepted += 1
        self.seen += 1
        conn = _Conn(self, (reader, writer), server)
        self._conns.add(conn)
        try:
            await conn.run()
        finally:
            self._conns.discard(conn)
