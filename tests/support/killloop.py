"""What the kill-loop tests of both games share: ``mesa sim --headless`` as a child process whose
JSON status lines are read in a thread, killed with SIGKILL at random instants and started again
on its journal (:class:`KillLoop`); and the journal read independently of the table's own
reader, to check what the restarted table restored."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


class SimChild:
    """``mesa sim --headless <args>``: ``lines`` holds every status line printed so far."""

    def __init__(self, args: Sequence[str]) -> None:
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mesa", "sim", "--headless", *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[dict[str, Any]] = []
        self.first_line_after: float | None = None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                data = json.loads(raw)
            except ValueError:
                continue
            if self.first_line_after is None:
                self.first_line_after = time.monotonic() - self.started
            self.lines.append(data)

    def wait_start(self, timeout: float = 30.0) -> dict[str, Any]:
        """The first status line (the ``start`` one, with what was restored)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.lines:
                return self.lines[0]
            if self.proc.poll() is not None:
                err = self.proc.stderr.read() if self.proc.stderr else ""
                raise AssertionError(f"the simulator died: {err[-2000:]}")
            time.sleep(0.01)
        raise AssertionError("no start line from the simulator")

    def kill9(self) -> dict[str, Any]:
        """SIGKILL, then the last status line the table printed before it died."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._close()
        return self.lines[-1]

    def stop(self) -> None:
        """SIGTERM, as systemd would; SIGKILL after 10 s."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self._close()

    def _close(self) -> None:
        self._reader.join(5)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()


def journal_records(folder: Path) -> list[dict[str, Any]]:
    """The newest journal generation that starts with a whole snapshot line, with its records up
    to the first bad one (a line cut by the kill, or a CRC that does not match)."""
    recs: list[dict[str, Any]] = []
    for path in sorted(folder.glob("journal-*.jsonl"), reverse=True):
        recs = []
        for line in path.read_bytes().split(b"\n"):
            crc, _, body = line.partition(b" ")
            if not body or int(crc, 16) != zlib.crc32(body):
                break
            recs.append(json.loads(body))
        if recs and recs[0]["k"] == "s":
            break
    assert recs, "no readable journal"
    return recs


def replay(table: Any, recs: list[dict[str, Any]]) -> float:
    """Apply to ``table`` (restored from ``recs[0]``, the snapshot) the input records after it;
    returns the last instant the journal knows of, whatever its records' kinds."""
    last_t: float = recs[0]["t"]
    for r in recs[1:]:
        last_t = max(last_t, r["t"])
        if r["k"] == "i":
            table.apply(r["i"], r.get("a", {}), now=r["t"])
    return last_t


class KillLoop:
    """A simulated table (``spawn()`` starts it on its journal) killed with SIGKILL at random
    instants and started again: ``child`` is the one running now, ``startups`` how long each
    restart took to print its first line."""

    def __init__(self, spawn: Callable[[], SimChild], seed: int) -> None:
        self.spawn = spawn
        self.rng = random.Random(seed)  # seeded: a failing run's kill instants come again
        self.child = spawn()
        self.child.wait_start()
        self.startups: list[float | None] = []

    def restart(self, read: Callable[[], T]) -> tuple[dict[str, Any], T, dict[str, Any]]:
        """Let the table run a random while, kill -9 it, ``read()`` the journal as the kill left
        it (before the restarted table writes to it), start the table again and check that it
        says it restored. Returns the last line before the kill, what ``read`` gave, and the
        restarted table's start line."""
        time.sleep(self.rng.uniform(0.4, 1.6))
        last = self.child.kill9()
        expected = read()
        self.child = self.spawn()
        start = self.child.wait_start()
        self.startups.append(self.child.first_line_after)
        assert start["event"] == "start" and start["restored"] is True
        return last, expected, start
