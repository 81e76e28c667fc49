"""The outbox under faults: a full disk loses nothing, a damaged file never stops the table.

The full disk is real where the test may mount a 2 MiB tmpfs (root); SQLite's
``max_page_count`` (which fails exactly like a full disk, with SQLITE_FULL) everywhere.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import json
import os
import random
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesa.controller.assembly import watch_storage
from mesa.controller.games.backgammon.oled import compose
from mesa.controller.i18n import text
from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox, OutboxError
from mesa.controller.runtime import ManualClock, TableRuntime
from mesa.engine.outcome import Outcome
from mesa.games.backgammon.machine import Table
from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.ingest.app import Hub
from support.checker import check
from support.harness import ASSIGN_ARGS, start_hub, wait_until
from support.mosquitto import table_password
from support.tables import SimRuntime, play

EV = ("clock.resumed", {"by": "players"}, 1.0)
_ids = itertools.count(1)


class Recorder:
    """Every event the table's machine emitted, in order: what the outbox must end up holding."""

    def __init__(self) -> None:
        self.types: list[str] = []

    def on_outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float) -> None:
        self.types += [e.TYPE for e in outcome.events]


def cap(box: Outbox, pages: int | None = None) -> None:
    """Make the outbox's database as full as a full disk (``pages`` None: lift the cap)."""
    with box._lock:
        if pages is None:
            box._db.execute("PRAGMA max_page_count = 1073741823")
        else:
            box._db.execute(f"PRAGMA max_page_count = {pages}")


def fill_pages(box: Outbox) -> None:
    with box._lock:
        count = box._db.execute("PRAGMA page_count").fetchone()[0]
    cap(box, count)


# ── the outbox alone ─────────────────────────────────────────────────────────
def test_a_failed_append_raises_the_full_error_and_keeps_the_sequence(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3", "t1")
    box.append([EV], ts=1.0)
    fill_pages(box)
    big = ("clock.resumed", {"by": "players"}, 1.0)
    with pytest.raises(sqlite3.OperationalError) as caught:
        for _ in range(200):  # the last free bytes of the page go first
            box.append([big] * 20, ts=1.0, snapshot={"pad": "x" * 3000})
    assert "full" in str(caught.value)  # never "cannot rollback": the first error shows
    before = box.last_seq
    cap(box, None)
    again = box.append([EV], ts=2.0)
    assert again[0].seq == before + 1  # no gap: the failed numbers were never used
    _, _, envs = Outbox.read_all(tmp_path / "o.sqlite3")
    assert [e.seq for e in envs] == list(range(1, before + 2))
    box.close()


@pytest.mark.parametrize(
    "damage",
    ["truncated", "random", "bad_last_seq", "other_table", "acked_beyond", "bad_snapshot"],
)
def test_a_damaged_outbox_is_moved_aside_and_a_fresh_one_started(
    tmp_path: Path, damage: str
) -> None:
    path = tmp_path / "outbox.sqlite3"
    box = Outbox(path, "t1" if damage != "other_table" else "t9")
    box.append([EV] * 50, ts=1.0, snapshot={"state": "idle"})
    old_stream = box.stream
    box.close()
    for suffix in ("-wal", "-shm"):  # make sure the damage is in the main file
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    if damage == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif damage == "random":
        path.write_bytes(random.Random(1).randbytes(8192))
    elif damage in ("bad_last_seq", "acked_beyond", "bad_snapshot"):
        conn = sqlite3.connect(path)
        key, value = {
            "bad_last_seq": ("last_seq", "abc"),
            "acked_beyond": ("acked", "999"),
            "bad_snapshot": ("snapshot", "{not json"),
        }[damage]
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))
        conn.commit()
        conn.close()
    if damage != "bad_snapshot":
        with pytest.raises((OutboxError, sqlite3.DatabaseError)):
            Outbox(path, "t1")
    box = Outbox.open(path, "t1")
    try:
        if damage == "bad_snapshot":  # the events are whole: only the snapshot is ignored
            assert box.rebuilt is None and box.snapshot() is None and box.last_seq == 50
            return
        assert box.rebuilt is not None and box.stream != old_stream and box.last_seq == 0
        moved = tmp_path / box.rebuilt["moved_to"]
        assert moved.exists() and moved.name.startswith("outbox.sqlite3.damaged-")
        assert box.append([EV], ts=2.0)[0].seq == 1
    finally:
        box.close()


def test_the_link_tells_the_hub_first_thing_that_the_outbox_was_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "outbox.sqlite3"
    path.write_bytes(b"\0" * 4096)
    box = Outbox.open(path, "t1")
    link = TableLink(LinkSettings(table="t1", port=9), box, snapshot={"state": "idle"})
    envs = box.unacked()
    assert [e.type for e in envs] == ["table.outbox_rebuilt"] and envs[0].seq == 1
    assert envs[0].data["moved_to"] == box.rebuilt["moved_to"]  # type: ignore[index]
    assert link.storage_error is None
    box.close()


# ── the link keeps what the outbox cannot take, in order ────────────────────
def _offline_link(box: Outbox) -> tuple[SimRuntime, TableLink, Recorder]:
    """A table whose link never reaches a broker (port 9): only the outbox matters here."""
    rec = Recorder()
    runtime = SimRuntime(Table(), [rec])
    link = TableLink(
        LinkSettings(table=box.table, port=9),
        box,
        runtime,
        snapshot=runtime.table.snapshot(),
        clock=runtime.clock,
    )
    runtime.sinks.append(link)
    link.start()
    return runtime, link, rec


def test_a_full_outbox_keeps_events_in_memory_and_appends_them_in_order(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3", "t1", retain_acked=-1)
    runtime, link, rec = _offline_link(box)
    try:
        runtime.submit(_assign(), 0.0)
        runtime.drain()
        assert link.flush(5) and box.last_seq >= 1
        fill_pages(box)
        stop = threading.Event()
        player = threading.Thread(
            target=play, args=(runtime, random.Random(3)), kwargs={"pace": 0.002, "stop": stop}
        )
        player.start()
        assert wait_until(lambda: link.storage_error is not None, 20)
        assert link.disk_full
        frozen = box.last_seq
        assert wait_until(lambda: link.unstored > 20, 20)
        assert box.last_seq == frozen  # nothing numbered while full: no gap to hide
        cap(box, None)  # room again
        player.join(120)
        assert not player.is_alive() and runtime.table.state == "match_over"
        assert link.flush(10)
        assert wait_until(lambda: link.unstored == 0 and link.storage_error is None, 10)
    finally:
        link.stop()
    _, _, envs = Outbox.read_all(tmp_path / "o.sqlite3")
    assert [e.seq for e in envs] == list(range(1, len(envs) + 1))  # no gap, no duplicate
    assert [e.type for e in envs] == rec.types  # nothing lost, order kept
    assert "game.ended" in rec.types and rec.types[-1] == "match.ended"
    box.close()


def test_the_screen_and_the_status_say_disk_full_while_it_lasts() -> None:
    class FakeLink:
        storage_error: str | None = "database or disk is full"

    clock = ManualClock()
    rt = TableRuntime(clock=clock, language="es")
    link = FakeLink()
    watch_storage(rt, [None, link])
    time.sleep(1.01)  # the hook looks once a real second
    rt.step()
    assert rt.status.disk_full
    screen = compose(rt.view(), rt.status, rt.now())
    assert text("es", "notice.disk_full") in screen.lines
    link.storage_error = None
    time.sleep(1.01)
    rt.step()
    assert not rt.status.disk_full
    assert text("es", "notice.disk_full") not in compose(rt.view(), rt.status, rt.now()).lines


def _assign() -> Any:
    from mesa.games.backgammon.inputs import parse_input

    return parse_input("assign", dict(ASSIGN_ARGS))


# ── a real full disk, with the hub and the checker ──────────────────────────
@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs (root only; skipped where mounting is not allowed)."""
    mnt = tmp_path / "fs"
    mnt.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mnt)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode()[:100]}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def fill(folder: Path) -> Path:
    """Write a file until the filesystem is full; return it (delete it to free the room)."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (65536, 4096, 512, 1):  # down to the last byte
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    return filler


def hub_storage(db: Path, table: str) -> str | None:
    """The ``storage`` flag of the snapshot the hub last stored for ``table``."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        row = conn.execute("SELECT snapshot FROM tables WHERE table_id = ?", (table,)).fetchone()
    finally:
        conn.close()
    if not row or not row[0]:
        return None
    value = json.loads(row[0]).get("storage")
    return value if isinstance(value, str) else None


@pytest.mark.broker
def test_a_real_full_disk_mid_match_loses_nothing(
    small_fs: Path, tmp_path: Path, mosquitto: PrivateMosquitto
) -> None:
    """The issue's run: the outbox on a 2 MiB filesystem filled for 6 s mid-match; then the
    checker: zero lost, zero duplicated, order kept; and every event the machine emitted is in
    the outbox."""
    table = f"df{next(_ids)}"
    mosquitto.add_user(table, table_password(table))
    hub: Hub = start_hub(tmp_path / "hub.sqlite3", mosquitto)
    path = small_fs / "outbox.sqlite3"
    box = Outbox(path, table)
    rec = Recorder()
    runtime = SimRuntime(Table(), [rec])
    settings = LinkSettings(
        table=table,
        port=mosquitto.port,
        password=table_password(table),
        keepalive=5,
        resend_after=2.0,
    )
    link = TableLink(settings, box, runtime, snapshot=runtime.table.snapshot(), clock=runtime.clock)
    runtime.sinks.append(link)
    stop = threading.Event()
    player: threading.Thread | None = None
    try:
        hub.register_table(table)
        hub.assign(table, ASSIGN_ARGS)
        link.start()

        def pump() -> None:
            while runtime.table.state == "idle" and not stop.is_set():
                runtime.drain()
                time.sleep(0.01)

        pump()
        assert wait_until(lambda: runtime.table.state == "assigned", 10)
        player = threading.Thread(
            target=play, args=(runtime, random.Random(5)), kwargs={"pace": 0.01, "stop": stop}
        )
        player.start()
        assert wait_until(lambda: box.last_seq >= 8, 20)
        filler = fill(small_fs)
        assert wait_until(lambda: link.storage_error is not None, 20), "the disk never filled"
        assert link.disk_full
        full_since = time.monotonic()
        db = tmp_path / "hub.sqlite3"
        # The hub hears it: the retained state report says so while it lasts.
        assert wait_until(lambda: hub_storage(db, table) == "disk_full", 6)
        time.sleep(max(0.0, 6.0 - (time.monotonic() - full_since)))
        assert link.unstored > 0
        filler.unlink()
        player.join(120)
        assert runtime.table.state == "match_over"
        assert link.flush(10)
        ok = wait_until(lambda: link.unstored == 0 and link.storage_error is None, 15)
        assert ok, (link.storage_error, sorted(p.stat().st_size for p in small_fs.iterdir()))
        assert wait_until(lambda: box.pending == 0, 30), box.pending
        assert wait_until(lambda: hub_storage(db, table) is None, 10)
    finally:
        stop.set()
        if player is not None:
            player.join(10)
        link.stop()
        box.close()
        hub.stop()
    _, _, envs = Outbox.read_all(path)
    assert [e.type for e in envs] == rec.types  # nothing lost between the machine and the box
    assert "game.ended" in rec.types
    report = check([path], tmp_path / "hub.sqlite3")
    assert report.ok and report.sent == report.stored == len(rec.types), report.summary()


def test_enospc_counts_as_disk_full() -> None:
    from mesa.controller.outbox import is_disk_full

    assert is_disk_full(OSError(errno.ENOSPC, "full"))
    assert not is_disk_full(OSError(errno.EIO, "io"))


def test_a_table_with_a_damaged_outbox_starts_and_says_so(tmp_path: Path) -> None:
    """``mesa controller`` and ``mesa sim`` make their link with ``make_link``: a scribbled
    outbox no longer stops them; the hub's first event on the new stream says why."""
    from mesa.controller.app import make_link

    path = tmp_path / "outbox.sqlite3"
    path.write_bytes(random.Random(2).randbytes(3000))
    rt = TableRuntime(clock=ManualClock())
    link = make_link(rt, table_id="t1", host="127.0.0.1", port=9, outbox=path)
    try:
        envs = link.outbox.unacked()
        assert [e.type for e in envs] == ["table.outbox_rebuilt"]
        assert list(tmp_path.glob("outbox.sqlite3.damaged-*"))
    finally:
        link.stop()
        link.outbox.close()


def test_the_journal_on_a_full_disk_keeps_its_records_and_recovers_whole(small_fs: Path) -> None:
    """Records the disk cannot take wait in memory and are written in order once there is room:
    recovery afterwards finds no hole and rebuilds exactly the live table."""
    from mesa.controller.games.backgammon.robots import RobotPlayers
    from mesa.controller.games.backgammon.robots import play as robot_play
    from mesa.controller.journal import Journal

    folder = small_fs / "journal"
    clock = ManualClock()
    journal = Journal(folder, fsync=False, heartbeat=1.0)
    rt = TableRuntime(clock=clock)
    assert journal.attach(rt) is None
    rt.submit(_assign_with_clock(), clock())
    robots = RobotPlayers(seed=4)
    robot_play(rt, robots, clock, until=lambda v: v.state == "running")
    filler = fill(small_fs)
    robot_play(rt, robots, clock, until=lambda v: v.game >= 2 or v.state == "match_over")
    assert journal.storage_error is not None and journal.stats.write_errors > 0
    filler.unlink()
    robot_play(rt, robots, clock)  # the rest of the match, with room again
    assert journal.storage_error is None
    journal.close()
    rec = Journal(folder, fsync=False).recover()
    assert rec.problems == []
    assert rec.table.snapshot() == {**rt.table.snapshot(), "last_now": rec.table.s.last_now}


def _assign_with_clock() -> Any:
    from mesa.games.backgammon.inputs import parse_input

    return parse_input("assign", {**ASSIGN_ARGS, "clock": {"preset": "singles"}})


def test_a_rollback_that_fails_too_never_hides_the_first_error(tmp_path: Path) -> None:
    """The issue's trace: COMMIT failed with "disk is full", then the ROLLBACK raised and the
    log showed only the ROLLBACK's error. The first error is the one raised now, noted."""
    box = Outbox(tmp_path / "o.sqlite3", "t1")
    real = box._db

    class Failing:
        in_transaction = True

        def execute(self, sql: str, *args: Any) -> Any:
            if sql == "COMMIT":
                raise sqlite3.OperationalError("database or disk is full")
            if sql == "ROLLBACK":
                raise sqlite3.OperationalError("cannot rollback - no transaction is active")
            return real.execute(sql, *args)

        def executemany(self, sql: str, rows: Any) -> Any:
            return real.executemany(sql, rows)

    box._db = Failing()  # type: ignore[assignment]
    with pytest.raises(sqlite3.OperationalError, match="disk is full") as caught:
        box.append([EV], ts=1.0)
    assert any("ROLLBACK" in note for note in getattr(caught.value, "__notes__", []))
    assert box.last_seq == 0
    real.execute("ROLLBACK")
    box._db = real
    assert box.append([EV], ts=2.0)[0].seq == 1
    box.close()
