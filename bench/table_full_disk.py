"""The table's outbox on a 2 MiB filesystem filled for a few seconds mid-match (root only).

Usage: sudo .venv/bin/python bench/table_full_disk.py [--seconds 6] [--pace 0.02] [--seed 7]

Mounts a 2 MiB tmpfs, plays a match with a real :class:`TableLink` (no broker: only the outbox
matters), fills the filesystem for ``--seconds`` once ten events are stored, frees it, lets the
match finish, and compares every event the machine emitted with what the outbox holds: lost,
gaps, order, and how many events waited in memory at the peak.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.engine.outcome import Outcome
from mesa.games.backgammon.inputs import parse_input
from mesa.games.backgammon.machine import Table
from support.harness import ASSIGN_ARGS
from support.tables import SimRuntime, play


class Recorder:
    def __init__(self) -> None:
        self.types: list[str] = []

    def on_outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float) -> None:
        self.types += [e.TYPE for e in outcome.events]


def fill(folder: Path) -> Path:
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (65536, 4096, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    return filler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--pace", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    mnt = Path(tempfile.mkdtemp(prefix="mesa-full-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mnt)], check=True)
    try:
        rec = Recorder()
        box = Outbox(mnt / "outbox.sqlite3", "t1")
        runtime = SimRuntime(Table(), [rec])
        link = TableLink(
            LinkSettings(table="t1", port=9),
            box,
            runtime,
            snapshot=runtime.table.snapshot(),
            clock=runtime.clock,
        )
        runtime.sinks.append(link)
        link.start()
        runtime.submit(parse_input("assign", dict(ASSIGN_ARGS)), 0.0)
        runtime.drain()
        player = threading.Thread(
            target=play, args=(runtime, random.Random(args.seed)), kwargs={"pace": args.pace}
        )
        player.start()
        while box.last_seq < 10:
            time.sleep(0.01)
        filler = fill(mnt)
        started, peak = time.monotonic(), 0
        while time.monotonic() - started < args.seconds:
            peak = max(peak, link.unstored)
            time.sleep(0.05)
        filler.unlink()
        player.join()
        link.flush(10)
        while link.unstored:
            time.sleep(0.05)
        link.stop()
        _, _, envs = Outbox.read_all(mnt / "outbox.sqlite3")
        box.close()
        print(
            f"events emitted {len(rec.types)}, in the outbox {len(envs)}, "
            f"lost {len(rec.types) - len(envs)}, "
            f"gapless {[e.seq for e in envs] == list(range(1, len(envs) + 1))}, "
            f"order kept {[e.type for e in envs] == rec.types}, "
            f"waiting in memory at the peak {peak}, "
            f"game.ended {rec.types.count('game.ended')}"
        )
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)
        with contextlib.suppress(OSError):
            mnt.rmdir()


if __name__ == "__main__":
    main()
