"""The fault proxy itself (:mod:`support.faultproxy`): each fault does what it says, on loopback,
against a plain echo server, in well under a second each."""

from __future__ import annotations

import contextlib
import doctest
import socket
import threading
import time
from collections.abc import Iterator

import pytest

import support.faultproxy as faultproxy
from support.faultproxy import FaultProxy, Leg, Schedule


class Echo:
    """A loopback echo server; ``closing`` makes it close a connection after its first read."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.received = bytearray()
        self.closing = False
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _serve(self, c: socket.socket) -> None:
        try:
            while data := c.recv(65536):
                self.received += data
                if self.closing:
                    c.close()
                    return
                c.sendall(data)
        except OSError:
            return

    def close(self) -> None:
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.fixture
def echo() -> Iterator[Echo]:
    e = Echo()
    yield e
    e.close()


def proxy_for(echo: Echo, schedule: Schedule | None = None) -> FaultProxy:
    return FaultProxy("127.0.0.1", echo.port, schedule).start()


def connect(proxy: FaultProxy, timeout: float = 2.0) -> socket.socket:
    """A connection through ``proxy``, returned once the proxy has dealt with it (forwarded,
    held or refused under the schedule of that moment)."""
    before = proxy.seen
    s = socket.create_connection(("127.0.0.1", proxy.port), timeout=timeout)
    deadline = time.monotonic() + 2
    while proxy.seen == before and time.monotonic() < deadline:
        time.sleep(0.005)
    return s


def recv_exactly(s: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            break
        out += chunk
    return out


def silent(s: socket.socket, seconds: float) -> bool:
    """Nothing at all (no byte, no close, no reset) arrives on ``s`` for ``seconds``."""
    s.settimeout(seconds)
    try:
        s.recv(1)
    except TimeoutError:
        return True
    except OSError:
        return False
    return False


def test_the_module_doctests() -> None:
    assert doctest.testmod(faultproxy).failed == 0


def test_passes_bytes_both_ways(echo: Echo) -> None:
    proxy = proxy_for(echo)
    try:
        with connect(proxy) as s:
            s.sendall(b"hola" * 1000)
            assert recv_exactly(s, 4000) == b"hola" * 1000
        assert proxy.accepted == 1
    finally:
        proxy.stop()


def test_fixed_latency_each_way(echo: Echo) -> None:
    proxy = proxy_for(echo, Schedule.both(Leg(latency=0.15)))
    try:
        with connect(proxy) as s:
            t0 = time.monotonic()
            s.sendall(b"x")
            assert recv_exactly(s, 1) == b"x"
            rtt = time.monotonic() - t0
        assert 0.3 <= rtt < 1.0, rtt
    finally:
        proxy.stop()


def test_jitter_delays_within_bounds_and_never_reorders(echo: Echo) -> None:
    proxy = proxy_for(echo, Schedule(up=Leg(latency=0.1, jitter=0.08), seed=3))
    try:
        with connect(proxy) as s:
            rtts = []
            for i in range(8):
                t0 = time.monotonic()
                s.sendall(bytes([i]))
                assert recv_exactly(s, 1) == bytes([i])
                rtts.append(time.monotonic() - t0)
            # A burst of numbered chunks comes back in order whatever each one's delay.
            burst = b"".join(i.to_bytes(2, "big") for i in range(200))
            for k in range(0, len(burst), 20):
                s.sendall(burst[k : k + 20])
            assert recv_exactly(s, len(burst)) == burst
        assert all(0.02 - 0.005 <= r < 0.5 for r in rtts), rtts
        assert max(rtts) - min(rtts) > 0.02, rtts  # it does vary
    finally:
        proxy.stop()


def test_bandwidth_cap(echo: Echo) -> None:
    proxy = proxy_for(echo, Schedule(down=Leg(bandwidth=40_000)))
    try:
        with connect(proxy, timeout=5) as s:
            t0 = time.monotonic()
            s.sendall(b"b" * 20_000)
            assert recv_exactly(s, 20_000) == b"b" * 20_000
            took = time.monotonic() - t0
        assert 0.4 <= took < 2.0, took  # 20 kB at 40 kB/s: half a second
    finally:
        proxy.stop()


def test_blackhole_one_way_keeps_the_socket_open(echo: Echo) -> None:
    proxy = proxy_for(echo)
    try:
        with connect(proxy) as s:
            s.sendall(b"a")
            assert recv_exactly(s, 1) == b"a"
            proxy.blackhole(up=False)  # the server's answers never come; what we send arrives
            s.sendall(b"bb")
            assert silent(s, 0.3)
            assert echo.received.endswith(b"bb")
            proxy.heal()  # held in the air (TCP retransmitting), it arrives now, in order
            s.settimeout(2)
            s.sendall(b"c")
            assert recv_exactly(s, 3) == b"bbc"
    finally:
        proxy.stop()


def test_blackhole_upstream_only(echo: Echo) -> None:
    proxy = proxy_for(echo)
    try:
        with connect(proxy) as s:
            s.sendall(b"a")
            assert recv_exactly(s, 1) == b"a"
            proxy.blackhole(down=False)
            s.sendall(b"held")
            assert silent(s, 0.3)
            assert bytes(echo.received) == b"a"
            proxy.heal()
            s.settimeout(2)
            assert recv_exactly(s, 4) == b"held"
    finally:
        proxy.stop()


def test_blackhole_hides_the_far_end_closing_until_healed(echo: Echo) -> None:
    echo.closing = True
    proxy = proxy_for(echo)
    try:
        with connect(proxy) as s:
            proxy.blackhole()
            proxy.blackhole(up=False, down=False)  # (no-op: still both)
            proxy.heal()
            proxy.blackhole(up=False)
            s.sendall(b"bye")  # the server reads it and closes: the close is lost
            time.sleep(0.2)
            assert echo.received == b"bye"
            assert silent(s, 0.3)
            assert proxy.open_connections == 1
            proxy.heal()  # the link is back: this end learns the connection is gone
            s.settimeout(2)
            with contextlib.suppress(ConnectionResetError):
                assert s.recv(1) == b""
    finally:
        proxy.stop()


def test_reset_sends_an_rst(echo: Echo) -> None:
    proxy = proxy_for(echo)
    try:
        with connect(proxy) as s:
            s.sendall(b"a")
            assert recv_exactly(s, 1) == b"a"
            assert proxy.reset() == 1
            s.settimeout(2)
            with pytest.raises(ConnectionResetError):
                s.recv(1)
        assert proxy.resets == 1
    finally:
        proxy.stop()


def test_resets_at_a_rate(echo: Echo) -> None:
    # p = resets_per_minute × tick / 60 = 1: every connection is reset at the first tick.
    proxy = proxy_for(echo, Schedule(resets_per_minute=600.0, reset_tick=0.1))
    try:
        socks = [connect(proxy) for _ in range(3)]
        deadline = time.monotonic() + 2
        while proxy.resets < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proxy.resets == 3
        for s in socks:
            s.close()
    finally:
        proxy.stop()


def test_timed_partition_heals_by_itself(echo: Echo) -> None:
    proxy = proxy_for(echo)
    try:
        with connect(proxy) as s:
            proxy.partition(0.5)
            s.sendall(b"p")
            with connect(proxy) as newcomer:  # accepted, never answered
                newcomer.sendall(b"q")
                assert silent(newcomer, 0.2)
                assert silent(s, 0.1)
                time.sleep(0.4)
                assert not proxy.partitioned
                newcomer.settimeout(2)
                with pytest.raises(ConnectionResetError):
                    newcomer.recv(1)  # its connect never got through: given up
            s.settimeout(2)
            assert recv_exactly(s, 1) == b"p"  # held through the partition, the link is back
            s.sendall(b"r")
            assert recv_exactly(s, 1) == b"r"
            assert b"q" not in echo.received
    finally:
        proxy.stop()


def test_cut_and_restore_like_the_cut_proxy(echo: Echo) -> None:
    proxy = proxy_for(echo)
    try:
        s = connect(proxy)
        proxy.cut()
        assert proxy.cut_off
        s.settimeout(2)
        assert s.recv(1) == b""
        s.close()
        with connect(proxy) as refused:
            refused.settimeout(2)
            assert refused.recv(1) == b""
        proxy.restore()
        with connect(proxy) as again:
            again.sendall(b"z")
            assert recv_exactly(again, 1) == b"z"
    finally:
        proxy.stop()


def test_bounded_connections(echo: Echo) -> None:
    proxy = FaultProxy("127.0.0.1", echo.port, max_connections=2).start()
    try:
        a, b = connect(proxy), connect(proxy)
        for s in (a, b):
            s.sendall(b"1")
            assert recv_exactly(s, 1) == b"1"
        with connect(proxy) as third:
            third.settimeout(2)
            assert third.recv(1) == b""  # closed at once
        a.close()
        b.close()
    finally:
        proxy.stop()


def test_loopback_only() -> None:
    with pytest.raises(ValueError, match="loopback"):
        FaultProxy("192.0.2.1", 1883)
    with pytest.raises(ValueError):
        Leg(latency=-1)
