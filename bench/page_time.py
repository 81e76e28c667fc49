"""How long the dashboard's pages take to build with a club evening under way: the pages every
browser refetches when the tournament changes, on a hub with tables playing.

    .venv/bin/python bench/page_time.py [--players 39] [--tables 10] [--events 2] [--runs 30]

In one process: a hub (no broker), the dashboard on an in-process ASGI client, ``--events``
backgammon events of ``--players`` players in all (the second a novatos one) with their groups
drawn, ``--tables`` tables online with matches assigned and started. For each page, the median
and the 90th percentile of ``--runs`` builds, in milliseconds: half of them right after a change
(a result: the desk's forecast is made again), half with nothing changed (cached). Prints
figures only; run it beside another checkout's copy to compare (same flags, same machine).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # support.hubkit

import httpx  # noqa: E402

from mesa.hub.ingest.app import Hub  # noqa: E402
from mesa.hub.settings import HubSettings  # noqa: E402
from mesa.hub.web.app import WebApp  # noqa: E402
from support.hubkit import NOW, PASSWORD, TODAY, FakeTable  # noqa: E402

PAGES = ("/groups.json", "/draw.json", "/llamadas.json", "/director.json", "/index.json")


def _evening(web: WebApp, players: int, events: int) -> None:
    def run(club: Any, now: datetime) -> None:
        per = players // events
        for e in range(events):
            tid, category = (f"e{e}", "open" if e == 0 else "novatos")
            club.create_tournament(tid, f"Evento {e}", TODAY, category=category)
            for i in range(per):
                pid = club.registry.add_new(f"J{e}-{i:03d}", category=category).id
                club.register(tid, pid, now=now)
            club.start(tid, seed=e + 1, now=now)

    web.desk.call(run)


async def _measure(client: httpx.AsyncClient, web: WebApp, runs: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {p: [] for p in PAGES}
    for i in range(runs):
        if i % 2 == 0:
            web.desk.call(lambda club, now: None)  # a change: the next read makes it again
        for page in PAGES:
            t0 = time.perf_counter()
            r = await client.get(page)
            out[page].append((time.perf_counter() - t0) * 1000)
            assert r.status_code == 200, (page, r.status_code)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--players", type=int, default=39)
    p.add_argument("--tables", type=int, default=10)
    p.add_argument("--events", type=int, default=2)
    p.add_argument("--runs", type=int, default=30)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        hub = Hub(HubSettings(db=Path(tmp) / "hub.sqlite3"))
        web = WebApp(hub, hub.settings.replace(director_password=PASSWORD), now=lambda: NOW)
        try:
            _evening(web, args.players, args.events)
            tables = []
            for i in range(1, args.tables + 1):
                hub.register_table(str(i))
                t = FakeTable(hub, str(i))
                t.online()
                tables.append(t)
            web.desk.sync()
            for t in tables:
                if t.serve() and t.table.state == "assigned":
                    t.apply("press", {"side": "a"})
                    t.apply("press", {"side": "b"})
            web.desk.sync()

            async def go() -> dict[str, list[float]]:
                transport = httpx.ASGITransport(web.asgi())
                async with httpx.AsyncClient(transport=transport, base_url="http://b") as c:
                    await c.post("/login", data={"user": "director", "password": PASSWORD})
                    await _measure(c, web, 4)  # warm the templates
                    return await _measure(c, web, args.runs)

            got = asyncio.run(go())
        finally:
            web.close()
    print(f"players={args.players} events={args.events} tables={args.tables} runs={args.runs}")
    for page, ms in got.items():
        ms.sort()
        p90 = ms[int(0.9 * (len(ms) - 1))]
        print(f"{page:18} median {statistics.median(ms):7.1f} ms   p90 {p90:7.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
