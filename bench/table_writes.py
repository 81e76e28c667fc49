"""What one table writes to its SD card in an evening: bytes, fsyncs, files, memory.

    .venv/bin/python bench/table_writes.py                     # 3 h of play, ~8 min
    .venv/bin/python bench/table_writes.py --compare a8e9c12   # the same beside an older revision

One table plays ``--hours`` of matches at ``--speed`` times real time: the real controller
runtime (:class:`~mesa.controller.sim.SimTable`) with its journal, its outbox and its
:class:`~mesa.controller.link.TableLink` to a private Mosquitto and a real hub, which assigns
5-point clocked matches one after the other; robots with the human pace of
:class:`~mesa.controller.games.backgammon.robots.RobotStyle` (a 7 s median turn) play them.

The table runs in its own process, so that ``/proc/self/io`` counts the table only:
``write_bytes`` is what it handed to the block layer (a page each time a clean page is dirtied),
``wchar`` what it passed to ``write()``. Its fsyncs are counted by a tiny ``LD_PRELOAD`` shim
(compiled here with ``cc``) that wraps ``fsync`` and ``fdatasync`` for Python and SQLite alike.

Time that runs on the wall, not on the table's clock, is scaled with the speed so that an hour
of play is measured as an hour: the journal's periodic sync (``sync_interval`` 5 s of play) and
the runtime's tick (a tick per second of play at most).

``--compare REV`` runs the same evening a second time with ``controller/{outbox,journal,link}.py``
as they were at ``REV`` (the rest of the code as it is now) and prints both side by side.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the test helpers (support.*) are not installed

TABLE = "w1"
OVERRIDDEN = ("outbox", "journal", "link")  # the modules --compare takes from an older revision

SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
static atomic_long n_fsync, n_fdatasync;
int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    atomic_fetch_add(&n_fsync, 1);
    return real(fd);
}
int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    atomic_fetch_add(&n_fdatasync, 1);
    return real(fd);
}
long mesa_fsyncs(void) { return n_fsync; }
long mesa_fdatasyncs(void) { return n_fdatasync; }
"""


# ── the table (its own process) ─────────────────────────────────────────────
def _override(code: Path) -> None:
    """Import ``mesa.controller.<name>`` from ``code/<name>.py`` for the names in it."""
    import importlib.abc
    import importlib.util

    files = {f"mesa.controller.{p.stem}": p for p in code.glob("*.py")}

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
            f = files.get(name)
            return importlib.util.spec_from_file_location(name, f) if f else None

    sys.meta_path.insert(0, Finder())


def _io() -> dict[str, int]:
    out = {}
    for line in Path("/proc/self/io").read_text().splitlines():
        key, _, value = line.partition(":")
        out[key] = int(value)
    return out


def _status_kb(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def _syncs() -> int:
    import ctypes

    lib = ctypes.CDLL(None)
    try:
        f, d = lib.mesa_fsyncs, lib.mesa_fdatasyncs
    except AttributeError:
        return -1  # no shim: not counted
    f.restype = d.restype = ctypes.c_long
    return int(f()) + int(d())


def _sizes(folder: Path) -> dict[str, int]:
    return {
        str(p.relative_to(folder)): p.stat().st_size
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def table_main(port: int, folder: Path, speed: float, hours: float, seed: int) -> int:
    logging.basicConfig(level=logging.WARNING, format="table %(levelname)s %(message)s")
    from mesa.controller.games.backgammon.robots import RobotPlayers
    from mesa.controller.link import LinkSettings, TableLink
    from mesa.controller.outbox import Outbox
    from mesa.controller.robot_plans import RobotDriver
    from mesa.controller.sim import SimTable
    from support.mosquitto import table_password

    boxes: list[Any] = []

    def make_link(runtime: Any, snapshot: dict[str, Any]) -> Any:
        box = Outbox(folder / "outbox.sqlite3", table=TABLE)
        boxes.append(box)
        link = TableLink(
            LinkSettings(TABLE, port=port, password=table_password(TABLE)),
            box,
            submitter=runtime,
            snapshot=snapshot,
            clock=runtime.now,
        )
        runtime.add_sink(link)
        link.start()
        return link

    sim = SimTable(
        TABLE,
        speed=speed,
        seed=seed,
        robots=(),
        journal_dir=folder / "journal",
        sync_interval=5.0 / speed,
        tick_interval=min(0.1, 1.0 / speed),
        link=make_link,
    )
    driver = RobotDriver(sim.runtime, RobotPlayers(("a", "b"), seed=seed))
    io0, syncs0 = _io(), _syncs()
    sim.start()
    driver.start()
    start = sim.runtime.now()
    hourly = []
    next_hour = 1
    while True:
        time.sleep(0.2)
        played = (sim.runtime.now() - start) / 3600
        if played >= next_hour:
            io = _io()
            hourly.append(
                {
                    "write_bytes": io["write_bytes"] - io0["write_bytes"],
                    "syncs": _syncs() - syncs0,
                    "rss_kb": _status_kb("VmRSS"),
                }
            )
            next_hour += 1
        if played >= hours:
            break
    driver.stop()
    link, box = sim.link, boxes[0]
    deadline = time.monotonic() + 30
    while box.pending and time.monotonic() < deadline:
        time.sleep(0.1)
    io, syncs = _io(), _syncs()
    journal = sim.journal
    assert journal is not None
    report = {
        "hours": hours,
        "write_bytes": io["write_bytes"] - io0["write_bytes"],
        "wchar": io["wchar"] - io0["wchar"],
        "syscw": io["syscw"] - io0["syscw"],
        "cancelled": io["cancelled_write_bytes"] - io0["cancelled_write_bytes"],
        "syncs": syncs - syncs0 if syncs >= 0 else -1,
        "journal_bytes": journal.stats.bytes_written,
        "journal_records": journal.stats.records,
        "journal_heartbeats": journal.stats.heartbeats,
        "journal_syncs": journal.stats.syncs,
        "journal_compactions": journal.stats.compactions,
        "events": box.last_seq,
        "pending": box.pending,
        "matches": sim.matches_ended,
        "rss_kb": _status_kb("VmRSS"),
        "hwm_kb": _status_kb("VmHWM"),
        "hourly": hourly,
        "sizes": _sizes(folder),
        "link_connects": link.metrics.get("connects"),
    }
    sim.stop()
    print("REPORT " + json.dumps(report), flush=True)
    return 0


# ── the evening (the bench's process: broker, hub, the assigner) ───────────
def _assign_loop(hub: Any, proc: subprocess.Popen[str], speed: float, seed: int) -> list[str]:
    """Assign the next match whenever the table is free; return the child's output lines."""
    import random
    import select

    rng = random.Random(seed)
    names = ["Ana", "Beto", "Carmen", "Diego", "Elena", "Félix", "Gloria", "Hugo"]
    n = 0
    over_since: float | None = None
    lines: list[str] = []
    assert proc.stdout is not None
    while proc.poll() is None:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            line = proc.stdout.readline()
            if line:
                lines.append(line.rstrip("\n"))
        live = hub.projections.get(TABLE)
        if live is None or live.status != "online":
            continue
        if live.state == "match_over":
            over_since = over_since or time.monotonic()
            if time.monotonic() - over_since < 60 / speed:  # a minute between matches
                continue
        elif not (live.state == "idle" and n == 0):
            over_since = None
            continue
        n += 1
        a, b = rng.sample(names, 2)
        args = {
            "match_id": f"W{n}",
            "players": {"a": a, "b": b},
            "length": 5,
            "clock": {"preset": "singles"},
        }
        hub.assign(TABLE, args)
        over_since = None
        # Wait for the table to take it before looking at its state again.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            live = hub.projections.get(TABLE)
            if live is not None and live.match_id == f"W{n}":
                break
            time.sleep(0.05)
    assert proc.stdout is not None
    lines += [line.rstrip("\n") for line in proc.stdout]
    return lines


def _shim(work: Path) -> Path | None:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    src, lib = work / "fsyncs.c", work / "fsyncs.so"
    src.write_text(SHIM)
    done = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(lib), str(src), "-ldl"])
    return lib if done.returncode == 0 else None


def evening(
    work: Path,
    name: str,
    speed: float,
    hours: float,
    seed: int,
    code: Path | None,
    shim: Path | None,
) -> dict[str, Any]:
    from mesa.hub.ingest.app import Hub
    from support.harness import hub_settings
    from support.mosquitto import start_broker

    folder = work / name
    broker = start_broker(work / f"broker-{name}", tables=(TABLE,))
    hub = Hub(hub_settings(work / f"hub-{name}.sqlite3", broker)).start()
    env = dict(os.environ)
    if shim is not None:
        env["LD_PRELOAD"] = str(shim)
    cmd = [sys.executable, __file__, "--table", str(broker.port), str(folder), str(speed)]
    cmd += ["--hours", str(hours), "--seed", str(seed)]
    if code is not None:
        cmd += ["--code", str(code)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    try:
        lines = _assign_loop(hub, proc, speed, seed)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
        hub.stop()
        broker.stop()
    import sqlite3

    conn = sqlite3.connect(work / f"hub-{name}.sqlite3")
    committed = conn.execute("SELECT COUNT(*) FROM events WHERE table_id = ?", (TABLE,)).fetchone()
    conn.close()
    reports = [json.loads(x[7:]) for x in lines if x.startswith("REPORT ")]
    if not reports:
        raise RuntimeError(f"the table process gave no report: {lines[-5:]}")
    report: dict[str, Any] = reports[0]
    report["hub_committed"] = int(committed[0])
    return report


def _old_code(work: Path, rev: str) -> Path:
    code = work / f"code-{rev}"
    code.mkdir()
    for name in OVERRIDDEN:
        text = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:controller/{name}.py"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        (code / f"{name}.py").write_text(text)
    return code


def _print(reports: list[tuple[str, dict[str, Any]]]) -> None:
    def row(label: str, fn: Any) -> None:
        cells = "".join(f"{fn(r):>18}" for _, r in reports)
        print(f"  {label:<34}{cells}")

    print(f"  {'':<34}" + "".join(f"{name:>18}" for name, _ in reports))
    h = reports[0][1]["hours"]
    row("hours of play", lambda r: f"{r['hours']:.1f}")
    row("matches ended / events", lambda r: f"{r['matches']} / {r['events']}")
    row("events at the hub / unacked", lambda r: f"{r['hub_committed']} / {r['pending']}")
    row("write_bytes per hour (KiB)", lambda r: f"{r['write_bytes'] / h / 1024:.0f}")
    row("wchar per hour (KiB)", lambda r: f"{r['wchar'] / h / 1024:.0f}")
    row("write() calls per hour", lambda r: f"{r['syscw'] / h:.0f}")
    row("fsyncs per hour (all)", lambda r: f"{r['syncs'] / h:.0f}")
    row("  of them the journal's", lambda r: f"{r['journal_syncs'] / h:.0f}")
    row("journal bytes per hour (KiB)", lambda r: f"{r['journal_bytes'] / h / 1024:.0f}")
    row(
        "journal records / heartbeats",
        lambda r: f"{r['journal_records']}/{r['journal_heartbeats']}",
    )

    def journal(r: dict[str, Any]) -> str:
        sizes = [v for k, v in r["sizes"].items() if k.startswith("journal/")]
        return f"{len(sizes)} / {sum(sizes) / 1024:.0f}"

    row("journal files / KiB on disk", journal)
    for key in sorted({k for _, r in reports for k in r["sizes"] if k.startswith("outbox")}):
        row(f"file {key} (KiB)", lambda r, k=key: f"{r['sizes'].get(k, 0) / 1024:.0f}")
    row("RSS after the evening (MiB)", lambda r: f"{r['rss_kb'] / 1024:.1f}")
    row("peak RSS (MiB)", lambda r: f"{r['hwm_kb'] / 1024:.1f}")

    def hour(r: dict[str, Any], i: int) -> str:
        if i >= len(r["hourly"]):
            return "-"
        now, before = r["hourly"][i], r["hourly"][i - 1] if i else {"write_bytes": 0, "syncs": 0}
        return f"{(now['write_bytes'] - before['write_bytes']) / 1024:.0f} / " + str(
            now["syncs"] - before["syncs"]
        )

    for i in range(int(h)):
        row(f"hour {i + 1}: KiB written / fsyncs", lambda r, i=i: hour(r, i))
    row(
        "RSS at each hour's end (MiB)",
        lambda r: "/".join(f"{x['rss_kb'] / 1024:.0f}" for x in r["hourly"]),
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--code", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--hours", type=float, default=3.0, help="hours of play")
    ap.add_argument("--speed", type=float, default=25.0, help="table time against real time")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--compare", metavar="REV", help="also run with these modules at REV")
    ap.add_argument("--dir", type=Path, help="where to play (default: a temporary folder)")
    args = ap.parse_args()
    if args.code is not None:
        _override(args.code)
    if args.table:
        return table_main(
            int(args.table[0]), Path(args.table[1]), float(args.table[2]), args.hours, args.seed
        )
    logging.basicConfig(level=logging.WARNING)
    base = args.dir or Path(tempfile.mkdtemp(prefix="mesa-writes-", dir="/var/tmp"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        # Both evenings at once (the same seed plays the same matches): each table is its own
        # process and what it writes is counted for it alone.
        from concurrent.futures import ThreadPoolExecutor

        shim = _shim(base)
        plans: list[tuple[str, str, Path | None]] = [("now", "now", None)]
        if args.compare:
            plans.insert(0, (args.compare[:10], "before", _old_code(base, args.compare)))
        with ThreadPoolExecutor(len(plans)) as pool:
            futures = [
                (
                    label,
                    pool.submit(evening, base, name, args.speed, args.hours, args.seed, code, shim),
                )
                for label, name, code in plans
            ]
            runs = [(label, f.result()) for label, f in futures]
        fs = subprocess.run(["df", "-T", str(base)], capture_output=True, text=True).stdout
        print(
            f"one table, {args.hours:g} h of play at {args.speed:g}x, files on "
            f"{fs.splitlines()[-1].split()[1] if fs else '?'}; fsyncs counted "
            + ("by an LD_PRELOAD shim" if runs[0][1]["syncs"] >= 0 else "not (no C compiler)")
        )
        _print(runs)
    finally:
        if args.dir is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
