"""The access point reboots: every table loses the broker at once, and comes back at once.

    .venv/bin/python bench/reconnect_storm.py          # 200 tables, 3 drops of 20 s; ~6 min

200 tables (real :class:`~mesa.controller.link.TableLink`s with their durable outboxes, 50 to a
process as in ``bench/hub_ingest.py``, playing matches at a realistic pace: an input every
2-12 s per table) reach a private Mosquitto through a TCP relay on loopback: the Wi-Fi. The hub
is connected to the broker directly (it is wired). The relay is killed (``kill -9``: every
table's connection drops at the same instant, the broker sends 200 wills) and started again on
the same port ``--outage`` seconds later, ``--drops`` times in a row, while the matches go on.

Two rounds in one run, the same tables and schedule: **fixed**, the reconnection schedule the
link had before (paho's doubling from 1 s to 30 s, the same for every table), and **jittered**,
the link's own (``reconnect_delay``: doubling from 1 s to 10 s, each wait shortened by up to
half at random). Printed for each drop: the time from the relay's return until the hub sees
every table online again, how many tables came back in the busiest second and over what window;
for the round: the hub's table → commit latency (p50 / p99 / max) of the events played while the
tables were connected, the backlog each outage left and how long it took to commit, the hub's
resident memory (before / peak / after), and the fault-run checker over every outbox: 0 lost,
0 duplicated, 0 out of order.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import heapq
import json
import logging
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the test helpers (support.*) are not installed

PER_PROCESS = 50  # paho's select() cannot watch descriptors past 1024 (see bench/hub_ingest.py)

# The two reconnection schedules compared: (reconnect_min, reconnect_max, reconnect_jitter).
FIXED = (1.0, 30.0, 0.0)  # what the link did before: paho's own doubling, the same everywhere
JITTERED = None  # the link's defaults (LinkSettings)


# ── the Wi-Fi: a relay killed and started again (its own process) ──────────
def relay_main(listen: int, target: int) -> int:
    async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        try:
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        except OSError:
            pass
        finally:
            dst.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, up_w), pipe(up_r, writer))

    async def serve() -> None:
        server = await asyncio.start_server(
            handle, "127.0.0.1", listen, reuse_address=True, backlog=1024
        )
        print("ready", flush=True)
        await server.serve_forever()

    asyncio.run(serve())
    return 0


class Relay:
    """The relay process on ``port``: :meth:`drop` kills it, :meth:`back` starts it again."""

    def __init__(self, port: int, target: int) -> None:
        self.port, self.target = port, target
        self.proc: subprocess.Popen[str] | None = None

    def back(self) -> None:
        for _ in range(50):
            proc = subprocess.Popen(
                [sys.executable, __file__, "--relay", str(self.port), str(self.target)],
                stdout=subprocess.PIPE,
                text=True,
            )
            assert proc.stdout is not None
            if proc.stdout.readline().strip() == "ready":
                self.proc = proc
                return
            proc.wait(5)  # the port was not free yet
            time.sleep(0.1)
        raise RuntimeError(f"the relay cannot listen on {self.port}")

    def drop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(5)
            self.proc = None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ── the tables (child processes) ─────────────────────────────────────────────
def tables_main(port: int, workdir: Path, names: list[str], schedule: str, seed: int) -> int:
    """Play until stdin says ``stop``; then wait for every ack and print a summary."""
    logging.basicConfig(level=logging.ERROR)
    from mesa.controller.link import LinkSettings, TableLink
    from mesa.controller.outbox import Outbox
    from mesa.games.backgammon.inputs import parse_input
    from mesa.games.backgammon.machine import Table
    from support.harness import wait_until
    from support.mosquitto import table_password
    from support.tables import SimRuntime, next_input

    reconnect = {}
    if schedule != "jittered":
        lo, hi, jitter = (float(x) for x in schedule.split(","))
        reconnect = {"reconnect_min": lo, "reconnect_max": hi, "reconnect_jitter": jitter}
    rng = random.Random(f"{seed}/{names[0]}")
    tables = []
    for name in names:
        outbox = Outbox(workdir / f"{name}.sqlite3", name)
        runtime = SimRuntime(Table())
        settings = LinkSettings(
            table=name,
            port=port,
            password=table_password(name),
            **reconnect,
        )
        link = TableLink(settings, outbox, runtime, clock=runtime.clock)
        runtime.sinks.append(link)
        link.start()
        tables.append((runtime, link, outbox))
    wait_until(lambda: all(link.hub_online for _, link, _ in tables), 120)
    for i, (runtime, _, _) in enumerate(tables):
        args = {
            "match_id": f"{names[i]}-M",
            "players": {"a": "A", "b": "B"},
            "length": 25,
            "clock": {"preset": "singles"},
        }
        runtime.apply(parse_input("assign", args), 0.0)
    print("playing", flush=True)
    stop = threading.Event()

    def wait_for_stop() -> None:
        sys.stdin.readline()
        stop.set()

    threading.Thread(target=wait_for_stop, daemon=True).start()
    start = time.monotonic()
    heap = [(start + rng.uniform(0, 5), i) for i in range(len(tables))]
    heapq.heapify(heap)
    while not stop.is_set():
        at, i = heapq.heappop(heap)
        stop.wait(max(0.0, at - time.monotonic()))
        if stop.is_set():
            break
        runtime = tables[i][0]
        step = next_input(runtime.table, rng, 10)
        if step is not None:
            runtime.now += 1.0 + (time.monotonic() - start) / 1000
            runtime.apply(parse_input(*step), runtime.now)
        heapq.heappush(heap, (at + rng.uniform(2.0, 12.0), i))
    drained = wait_until(lambda: all(box.pending == 0 for _, _, box in tables), 120)
    summary = {
        "drained": drained,
        "pending": sum(box.pending for _, _, box in tables),
        "connects": sum(link.metrics.get("connects") for _, link, _ in tables),
    }
    for _, link, outbox in tables:
        link.stop(timeout=1)
        outbox.close()
    print("SUMMARY " + json.dumps(summary), flush=True)
    return 0


# ── the storm (the bench's process: broker, hub, relay, the clock of the faults) ──
@dataclass
class Drop:
    dropped: float
    back: float
    all_online: float | None = None  # when the hub saw every table online again
    returns: list[float] = field(default_factory=list)  # each table's return, after ``back``

    def busiest_second(self) -> int:
        counts: dict[int, int] = {}
        for t in self.returns:
            counts[int(t)] = counts.get(int(t), 0) + 1
        return max(counts.values(), default=0)


@dataclass
class Round:
    name: str
    tables: int
    drops: list[Drop] = field(default_factory=list)
    live_ms: list[float] = field(default_factory=list)  # table → commit, played while connected
    baseline_ms: list[float] = field(default_factory=list)  # the same before the first drop
    backlog: list[int] = field(default_factory=list)  # events played during each outage
    backlog_done: list[float] = field(default_factory=list)  # their last commit, after ``back``
    rss_mb: tuple[float, float, float] = (0.0, 0.0, 0.0)  # before, peak, after
    check: str = ""
    ok: bool = False
    children: list[dict[str, Any]] = field(default_factory=list)


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def storm_round(
    name: str,
    schedule: tuple[float, float, float] | None,
    *,
    work: Path,
    tables: int,
    drops: int,
    outage: float,
    settle: float,
    warmup: float,
    seed: int = 1,
) -> Round:
    """One round: ``tables`` tables through the relay, ``drops`` outages of ``outage`` s, each
    followed by ``settle`` s once every table is back (or 60 s at most)."""
    from mesa.hub.ingest.app import Hub
    from support.checker import check
    from support.harness import hub_settings, wait_until
    from support.mosquitto import start_broker

    names = tuple(f"st{i}" for i in range(1, tables + 1))
    folder = work / name
    folder.mkdir(parents=True)
    broker = start_broker(folder / "broker", tables=names)
    db = folder / "hub.sqlite3"
    hub = Hub(hub_settings(db, broker)).start()
    relay = Relay(free_port(), broker.port)
    relay.back()
    text = "jittered" if schedule is None else ",".join(str(x) for x in schedule)
    procs = [
        subprocess.Popen(
            [
                *(sys.executable, __file__, "--tables", str(relay.port), str(folder), text),
                *(str(seed), ",".join(names[i : i + PER_PROCESS])),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(0, len(names), PER_PROCESS)
    ]
    result = Round(name, tables)
    rss = [_rss_mb()]
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.wait(0.25):
            rss.append(_rss_mb())

    sampler = threading.Thread(target=sample, daemon=True)
    try:
        for proc in procs:
            assert proc.stdout is not None
            if proc.stdout.readline().strip() != "playing":
                raise RuntimeError("a tables process did not start")
        time.sleep(warmup)
        t0 = time.time()
        rss_before = _rss_mb()
        sampler.start()

        def births() -> dict[str, int]:
            return {
                t: live.bdseq
                for t in names
                if (live := hub.projections.get(t)) is not None and live.status == "online"
            }

        for _ in range(drops):
            before = births()
            relay.drop()
            drop = Drop(time.time(), 0.0)
            time.sleep(outage)
            relay.back()
            drop.back = time.time()
            seen: dict[str, float] = {}
            deadline = time.monotonic() + 90
            while len(seen) < len(names) and time.monotonic() < deadline:
                now = time.time()
                for t, bd in births().items():
                    if t not in seen and bd > before.get(t, 0):
                        seen[t] = now - drop.back
                time.sleep(0.05)
            drop.returns = sorted(seen.values())
            if len(seen) == len(names):
                drop.all_online = drop.returns[-1]
            result.drops.append(drop)
            time.sleep(settle)
        rss_peak = max(rss)
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("stop\n")
            proc.stdin.flush()
        for proc in procs:
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.startswith("SUMMARY "):
                    result.children.append(json.loads(line[8:]))
            proc.wait(180)
        wait_until(lambda: hub.ingest.pending == 0, 10)
        sampling.set()
        result.rss_mb = (rss_before, rss_peak, _rss_mb())
    finally:
        sampling.set()
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        relay.drop()
        hub.stop()
        broker.stop()
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT ts, committed FROM events WHERE type != 'table.assigned'"
    ).fetchall()
    conn.close()
    # An event is "live" unless it was played during an outage, or in the two seconds before
    # one (on its way when the Wi-Fi went: it waits for the reconnection like the backlog).
    windows = [(d.dropped - 2.0, d.back + (d.all_online or 90.0)) for d in result.drops]
    for ts, committed in rows:
        inside = [i for i, (a, b) in enumerate(windows) if a <= ts <= b]
        if ts < t0:
            result.baseline_ms.append(1000 * (committed - ts))
        elif not inside:
            result.live_ms.append(1000 * (committed - ts))
    for d in result.drops:
        played = [c for ts, c in rows if d.dropped - 2.0 <= ts <= d.back]
        result.backlog.append(len(played))
        result.backlog_done.append(max(played, default=d.back) - d.back)
    report = check(sorted(folder.glob("st*.sqlite3")), db)
    result.check, result.ok = report.summary(), report.ok
    return result


def print_round(r: Round) -> None:
    print(f"{r.name}: {r.tables} tables")
    for i, (d, n, done) in enumerate(zip(r.drops, r.backlog, r.backlog_done, strict=True), 1):
        outage = d.back - d.dropped
        back = "NOT ALL" if d.all_online is None else f"{d.all_online:5.1f} s"
        window = f"{d.returns[0]:.1f}-{d.returns[-1]:.1f} s" if d.returns else "-"
        print(
            f"  drop {i}: {outage:4.1f} s out; every table online again {back} after the relay "
            f"returned; {len(d.returns)} back, over {window}, busiest second {d.busiest_second()}"
            f"; backlog {n} events (played from 2 s before the drop to the return), all committed "
            f"{done:.1f} s after the return"
        )
    b, live = r.baseline_ms, r.live_ms
    print(
        f"  table -> hub commit, before the storm ({len(b)} events): p50 {pct(b, 50):.0f} ms  "
        f"p99 {pct(b, 99):.0f} ms;  during it, played while connected ({len(live)}): "
        f"p50 {pct(live, 50):.0f} ms  p99 {pct(live, 99):.0f} ms  max {max(live, default=0):.0f} ms"
    )
    before, peak, after = r.rss_mb
    print(f"  hub process RSS: {before:.0f} MiB before, {peak:.0f} MiB peak, {after:.0f} MiB after")
    pending = sum(c["pending"] for c in r.children)
    print(f"  checker: {r.check}; unacknowledged at the end: {pending}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--relay", nargs=2, type=int, help=argparse.SUPPRESS)
    ap.add_argument("--tables", nargs=5, help=argparse.SUPPRESS)
    ap.add_argument("--count", type=int, default=200, help="tables")
    ap.add_argument("--drops", type=int, default=3)
    ap.add_argument("--outage", type=float, default=20.0, help="seconds without the Wi-Fi")
    ap.add_argument("--settle", type=float, default=10.0, help="seconds after all are back")
    ap.add_argument("--warmup", type=float, default=15.0, help="seconds of play before")
    ap.add_argument("--only", choices=("fixed", "jittered"), help="one round only")
    args = ap.parse_args()
    if args.relay:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        return relay_main(*args.relay)
    if args.tables:
        port, folder, schedule, seed, names = args.tables
        return tables_main(int(port), Path(folder), names.split(","), schedule, int(seed))
    # (The tables assign themselves, as in bench/hub_ingest.py: the hub's "missing_epoch"
    # warnings about it are not what this bench looks at.)
    logging.basicConfig(level=logging.ERROR)
    ok = True
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
        rounds = [("fixed", FIXED), ("jittered", JITTERED)]
        for name, schedule in rounds:
            if args.only and name != args.only:
                continue
            r = storm_round(
                name,
                schedule,
                work=Path(tmp),
                tables=args.count,
                drops=args.drops,
                outage=args.outage,
                settle=args.settle,
                warmup=args.warmup,
            )
            print_round(r)
            ok = ok and r.ok and all(d.all_online is not None for d in r.drops)
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
