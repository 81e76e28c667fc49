"""From a commit to the browsers' live feed: how long a committed table message takes to be
published on the dashboard's feed, now that the ingest's commit listener wakes it (no polling).

    .venv/bin/python bench/hub_wake.py [--rounds 300]

In one process: a hub (no broker: a table's messages go straight into its ingest, as in the
tests), the dashboard served by uvicorn on its thread, one table. Each round the table sends a
new snapshot; the figure is the time from the start of the ingest's commit to the feed's next
sequence number (seen from this thread). Printed: p50 / p99 / max in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # support.hubkit's FakeTable

from mesa.hub.ingest.app import Hub  # noqa: E402
from mesa.hub.settings import HubSettings  # noqa: E402
from mesa.hub.web.app import WebApp  # noqa: E402
from mesa.hub.web.http.server import BackgroundServer  # noqa: E402
from support.hubkit import FakeTable  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        hub = Hub(HubSettings(db=Path(tmp) / "hub.sqlite3"))
        web = WebApp(hub, hub.settings.replace(auto_assign=False))
        server = BackgroundServer(web).start()
        try:
            hub.register_table("1")
            table = FakeTable(hub, "1")
            table.online()
            time.sleep(0.5)
            delays = []
            for _ in range(args.rounds):
                before = web.feed.seq
                t0 = time.perf_counter()
                table.publish_state()
                while web.feed.seq == before:
                    time.sleep(0.0002)
                delays.append((time.perf_counter() - t0) * 1000)
                time.sleep(0.01)
        finally:
            server.stop()
            web.close()
            hub.close()
    delays.sort()
    p99 = delays[int(len(delays) * 0.99) - 1]
    print(
        f"commit → live feed, {len(delays)} rounds: p50 {statistics.median(delays):.2f} ms, "
        f"p99 {p99:.2f} ms, max {delays[-1]:.2f} ms"
    )


if __name__ == "__main__":
    main()
