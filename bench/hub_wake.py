"""From a commit to the browser: how long a table's event takes to reach a browser's live feed,
and what the hub spends on it, now that the ingest's commit listener wakes the feed (no polling).

    .venv/bin/python bench/hub_wake.py [--rounds 200] [--tables 12]

In one process: a hub (no broker: a table's messages go straight into its ingest, as in the
tests), the dashboard served by uvicorn on its thread, ``--tables`` tables in play, and one
browser: an HTTP client reading ``/events`` (server-sent events) on a thread of its own. Each
round table 1 ends a turn (one event and its new snapshot); the figure is the time from handing
the message to the ingest (its commit, fsync included) to the browser's receipt of table 1's card
that shows it. The other tables stay quiet, as most of a room does between two presses.

Printed: the latency's p50 / p99 / max in milliseconds, and the hub's CPU per event in
microseconds of thread CPU per round: the ingest (its commit and the listeners it calls, on the
committing thread), the web's event loop (the cards, the feed, the rendering for the stream) and
the hub's other threads (the desks woken by the commit); the fake table's own work and the
browser's are left out.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # support.hubkit's FakeTable

from mesa.hub.ingest.app import Hub  # noqa: E402
from mesa.hub.settings import HubSettings  # noqa: E402
from mesa.hub.web.app import WebApp  # noqa: E402
from mesa.hub.web.http.server import BackgroundServer  # noqa: E402
from support.hubkit import FakeTable  # noqa: E402


class Browser:
    """Reads the public event stream; remembers the last card of each table and when it came."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.seen: dict[str, tuple[int, float]] = {}  # table → (its card's events, when)
        self.ready = threading.Event()
        self.cond = threading.Condition()
        self._stop = False
        self.thread = threading.Thread(target=self._read, name="bench-browser", daemon=True)

    def _read(self) -> None:
        with httpx.Client(timeout=None) as client, client.stream("GET", self.url) as r:
            for line in r.iter_lines():
                if self._stop:
                    return
                if not line.startswith("data:"):
                    continue
                msg = json.loads(line[5:])
                if msg.get("kind") == "hello":
                    self.ready.set()
                elif msg.get("kind") == "table":
                    with self.cond:
                        self.seen[msg["key"]] = (msg["data"]["events"], time.perf_counter())
                        self.cond.notify_all()

    def wait_for(self, table: str, events: int, timeout: float = 10.0) -> float:
        """When the browser first held a card of ``table`` showing ``events`` events."""
        with self.cond:
            ok = self.cond.wait_for(
                lambda: self.seen.get(table, (-1, 0.0))[0] >= events, timeout
            )
            if not ok:
                raise TimeoutError(f"table {table}'s card never showed {events} events")
            return self.seen[table][1]


def thread_cpu(thread: threading.Thread | None) -> float:
    """That thread's CPU seconds so far."""
    assert thread is not None and thread.ident is not None
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


def timed(fn: Callable[..., Any], spent: list[float]) -> Callable[..., Any]:
    def run(*args: Any) -> Any:
        t0 = time.thread_time()
        try:
            return fn(*args)
        finally:
            spent[0] += time.thread_time() - t0

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--tables", type=int, default=12, help="tables in play (one presses)")
    args = parser.parse_args()
    # The fake tables assign themselves (no fencing token): the hub's warnings are expected.
    logging.getLogger("mesa").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        hub = Hub(HubSettings(db=Path(tmp) / "hub.sqlite3"))
        web = WebApp(hub, hub.settings.replace(auto_assign=False))
        server = BackgroundServer(web).start()
        browser = Browser(server.url.rstrip("/") + "/events")
        try:
            tables = []
            for i in range(1, args.tables + 1):
                hub.register_table(str(i))
                table = FakeTable(hub, str(i))
                table.online()
                table.play_to_running(match=f"G1-{i}")
                tables.append(table)
            browser.thread.start()
            browser.ready.wait(10)
            time.sleep(0.5)
            ingest_cpu = [0.0]
            one = tables[0]
            one._ingest = timed(one._ingest, ingest_cpu)  # type: ignore[method-assign]
            web_cpu0 = thread_cpu(server.thread)
            main_cpu0, browser_cpu0, all_cpu0 = (
                time.thread_time(), thread_cpu(browser.thread), time.process_time()
            )
            delays = []
            side = "a"  # a's clock runs (play_to_running)
            for _ in range(args.rounds):
                t0 = time.perf_counter()
                one.apply("press", {"side": side}, dt=0.5)
                events = (hub.table("1") or {})["events"]
                delays.append((browser.wait_for("1", events) - t0) * 1000)
                side = "b" if side == "a" else "a"
                time.sleep(0.01)
            web_cpu = thread_cpu(server.thread) - web_cpu0
            # Everything but this thread (the table and the ingest it calls) and the browser's.
            other_cpu = (
                time.process_time() - all_cpu0
                - (time.thread_time() - main_cpu0)
                - (thread_cpu(browser.thread) - browser_cpu0)
                - web_cpu
            )
        finally:
            browser._stop = True
            server.stop()
            web.close()
            hub.close()
    delays.sort()
    p99 = delays[max(0, int(len(delays) * 0.99) - 1)]
    n = len(delays)
    print(
        f"commit → browser, {n} rounds, {args.tables} tables: p50 "
        f"{statistics.median(delays):.2f} ms, p99 {p99:.2f} ms, max {delays[-1]:.2f} ms"
    )
    total = ingest_cpu[0] + web_cpu + other_cpu
    print(
        f"hub CPU per event: ingest {ingest_cpu[0] / n * 1e6:.0f} µs + web loop "
        f"{web_cpu / n * 1e6:.0f} µs + other threads {other_cpu / n * 1e6:.0f} µs "
        f"= {total / n * 1e6:.0f} µs"
    )


if __name__ == "__main__":
    main()
