"""Benchmark of ``mesa backup``: how long a copy of the hub's store takes, and what it holds up.

    .venv/bin/python bench/backup.py [events ...]

For stores of a season's size (default 100,000 and 400,000 events, a few hundred bytes each),
prints the store's size, the time of one online backup, and the longest time a writer committing
events meanwhile waited for one commit. It only prints figures (nothing is asserted).
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

from mesa.hub.backup import backup
from mesa.hub.ingest.store import EventStore

PAYLOAD = b'{"type": "clock.pressed", "data": {"side": "a", "left_ms": 123456}}' * 3


def fill(store: EventStore, n: int, start: int = 0) -> None:
    rows = [
        (f"e{i}", f"t{i % 20}", "s", i, "clock.pressed", 1.0, 1.0, PAYLOAD, None, 1.0)
        for i in range(start, start + n)
    ]
    with store.transaction():
        store.insert_rows(rows)  # (id, table, stream, seq, type, ts, t, payload, fence, committed)


def run(events: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        db = Path(d) / "hub.sqlite3"
        store = EventStore(db)
        for i in range(0, events, 10_000):
            fill(store, 10_000, i)
        size = db.stat().st_size + Path(f"{db}-wal").stat().st_size
        stop = threading.Event()
        waits: list[float] = []

        def writer() -> None:
            i = events
            while not stop.is_set():
                t0 = time.perf_counter()
                fill(store, 20, i)
                waits.append(time.perf_counter() - t0)
                i += 20

        w = threading.Thread(target=writer)
        w.start()
        time.sleep(0.2)
        t0 = time.perf_counter()
        backup(db, Path(d) / "backups", keep=2)
        took = time.perf_counter() - t0
        stop.set()
        w.join()
        store.close()
        print(
            f"  {events:>8,} events  store {size / 1e6:6.1f} MB  backup {took * 1000:7.0f} ms"
            f"  writer commits meanwhile {len(waits):>5}, longest {max(waits) * 1000:6.1f} ms"
        )


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [100_000, 400_000]
    print("mesa backup: online copy of the hub's store (SQLite backup API) while events commit")
    for n in sizes:
        run(n)


if __name__ == "__main__":
    main()
