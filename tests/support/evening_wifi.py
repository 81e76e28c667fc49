"""The room's Wi-Fi for a chaos evening (:mod:`support.evening`): how the tables reach the
broker, and the figures of a bad one.

``good``: each table's link goes through a :class:`~support.netcut.CutProxy` (a cable the
evening can pull). ``bad``: through a :class:`~support.faultproxy.FaultProxy` with
:func:`bad_wifi`: 300 ms ± 200 ms each way (uniform, never reordered) and 1 % of the
connections reset per minute of the evening's clock (an evening at ``speed`` 60 resets as many
in one wall minute as a real one does in an hour: the same count over the whole evening); it
can be cut like the cable too.

>>> s = bad_wifi(speed=60.0, seed=1)
>>> s.up.latency, s.up.jitter, s.down == s.up, s.resets_per_minute
(0.3, 0.2, True, 0.6)
>>> commit_figures([0.1, 0.2, 0.3, 1.0])
{'events': 4, 'p50_ms': 300.0, 'p99_ms': 1000.0, 'max_ms': 1000.0}
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from support.faultproxy import FaultProxy, Leg, Schedule
from support.netcut import CutProxy

WIFI = ("good", "bad")


def bad_wifi(speed: float, seed: int) -> Schedule:
    """300 ms ± 200 ms both ways; 1 % of connections reset per minute of table time."""
    return Schedule.both(Leg(latency=0.3, jitter=0.2), resets_per_minute=0.01 * speed, seed=seed)


def table_proxy(
    wifi: str, host: str, port: int, *, speed: float, seed: int
) -> CutProxy | FaultProxy:
    """A started proxy to the broker at ``host:port`` for one table, as the room's ``wifi``."""
    if wifi == "good":
        return CutProxy(host, port).start()
    if wifi == "bad":
        return FaultProxy(host, port, bad_wifi(speed, seed)).start()
    raise ValueError(f"wifi is one of {WIFI}, not {wifi!r}")


def resets(proxies: Any) -> int:
    """Connections the proxies reset (0 for a good Wi-Fi's)."""
    return sum(int(getattr(p, "resets", 0)) for p in proxies)


def commit_latencies(db: Path) -> list[float]:
    """Per event the hub committed: its commit time minus the time the table handed it to its
    link (seconds; tables and hub share this machine's clock)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        rows = conn.execute("SELECT committed - ts FROM events").fetchall()
    finally:
        conn.close()
    return [float(r[0]) for r in rows]


def commit_figures(latencies: list[float]) -> dict[str, Any]:
    """Count, p50, p99 and max (ms, nearest rank) of commit latencies in seconds."""
    if not latencies:
        return {"events": 0}
    v = sorted(latencies)

    def at(p: float) -> float:
        return round(1000 * v[min(len(v) - 1, int(p * len(v)))], 1)

    return {"events": len(v), "p50_ms": at(0.5), "p99_ms": at(0.99), "max_ms": round(1000 * v[-1], 1)}
