"""The table's durable outbox: numbering, acks, restarts, and kill -9 in the middle of writes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mesa.controller.outbox import Outbox, OutboxError

EV = ("clock.resumed", {"by": "players"}, 1.0)


def test_numbers_events_and_releases_them_on_ack(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3", "t1")
    envs = box.append([EV, EV, EV], ts=5.0, snapshot={"state": "running"})
    assert [e.seq for e in envs] == [1, 2, 3]
    assert len({e.id for e in envs}) == 3
    assert all(e.stream == box.stream and e.table == "t1" and e.ts == 5.0 for e in envs)
    assert box.pending == 3
    assert box.ack(box.stream, 2) == 2
    assert [e.seq for e in box.unacked()] == [3]
    assert box.ack("another-stream", 3) == 2  # not ours: ignored
    assert box.ack(box.stream, 9) == 2  # beyond what exists: ignored
    assert box.ack(box.stream, 1) == 2  # backwards: ignored
    assert box.snapshot() == {"state": "running"}
    box.close()


def test_survives_a_reopen_with_the_same_stream(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3", "t1")
    stream = box.stream
    box.append([EV, EV], ts=1.0)
    box.ack(stream, 1)
    assert box.next_bdseq() == 1
    box.close()
    again = Outbox(tmp_path / "o.sqlite3", "t1")
    assert (again.stream, again.acked, again.last_seq) == (stream, 1, 2)
    assert again.next_bdseq() == 2
    assert [e.seq for e in again.append([EV], ts=2.0)] == [3]
    again.close()
    table, s, envs = Outbox.read_all(tmp_path / "o.sqlite3")
    assert (table, s, [e.seq for e in envs]) == ("t1", stream, [1, 2, 3])


def test_a_new_file_is_a_new_stream(tmp_path: Path) -> None:
    a = Outbox(tmp_path / "a.sqlite3", "t1")
    b = Outbox(tmp_path / "b.sqlite3", "t1")
    assert a.stream != b.stream
    a.close()
    b.close()


def test_refuses_another_tables_outbox(tmp_path: Path) -> None:
    Outbox(tmp_path / "o.sqlite3", "t1").close()
    with pytest.raises(OutboxError):
        Outbox(tmp_path / "o.sqlite3", "t2")


def test_keeps_only_so_many_acknowledged_events(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3", "t1", retain_acked=2)
    box.append([EV] * 6, ts=1.0)
    box.ack(box.stream, 5)
    _, _, envs = Outbox.read_all(tmp_path / "o.sqlite3")
    assert [e.seq for e in envs] == [4, 5, 6]
    box.close()


def test_uses_wal_and_full_sync(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.sqlite3", "t1")
    assert box._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert box._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    box.close()


WRITER = textwrap.dedent(
    """
    import sys
    from mesa.controller.outbox import Outbox
    box = Outbox(sys.argv[1], "t1")
    while True:
        envs = box.append([("clock.resumed", {"by": "players"}, 1.0)] * 3, ts=1.0)
        print(envs[-1].seq, flush=True)   # printed only after the commit returned
    """
)


def test_committed_events_survive_kill_9(tmp_path: Path) -> None:
    path = tmp_path / "o.sqlite3"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        reported = 0
        assert proc.stdout is not None
        deadline = time.monotonic() + 30
        while reported < 150 and time.monotonic() < deadline:
            reported = int(proc.stdout.readline())
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        if proc.stdout:
            proc.stdout.close()
    box = Outbox(path, "t1")
    # Everything the writer saw committed is there, contiguous, and numbering goes on after it.
    assert box.last_seq >= reported
    assert [e.seq for e in box.unacked()] == list(range(1, box.last_seq + 1))
    assert box.append([EV], ts=2.0)[0].seq == box.last_seq
    box.close()


def test_a_second_program_on_the_same_outbox_is_refused_and_moves_nothing_aside(
    tmp_path: Path,
) -> None:
    """Two simulators started from one folder once shared one outbox and set each other's
    copies aside as damaged; the second now refuses to start and the first keeps its file."""
    from mesa.controller.outbox import OutboxInUse

    path = tmp_path / "outbox-sim.sqlite3"
    first = Outbox.open(path, "3")
    first.append([EV], ts=1.0)
    holder = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(f"""
            from mesa.controller.outbox import Outbox, OutboxInUse
            try:
                Outbox.open({str(path)!r}, "4")
            except OutboxInUse as e:
                print("in use:", e)
            """)],
        capture_output=True, text=True, timeout=60,
    )
    assert "in use:" in holder.stdout and "another table program" in holder.stdout, holder
    assert sorted(p.name for p in tmp_path.iterdir() if "damaged" in p.name) == []
    with pytest.raises(OutboxInUse):
        Outbox(path, "3")  # in the same process too
    assert first.append([EV], ts=2.0)[0].seq == 2  # the first table writes on
    first.close()
    again = Outbox.open(path, "3")  # closed (or killed): the next start gets it back
    assert again.last_seq == 2 and again.rebuilt is None
    again.close()


def test_a_new_outbox_has_small_pages_and_stays_fully_synced_after_an_ack(tmp_path: Path) -> None:
    """1 KiB pages (a commit writes whole pages to the WAL: less than half the bytes of 4 KiB
    ones per event), a WAL checkpointed every 256 KiB, and an ack's commit left to the next
    append's sync: the connection is back to synchronous=FULL for every append after it."""
    from mesa.controller.outbox import PAGE_SIZE

    box = Outbox(tmp_path / "o.sqlite3", "t1")
    assert box._db.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE == 1024
    assert box._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 256
    box.append([EV, EV], ts=1.0)
    box.ack(box.stream, 1)
    assert box._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    box.close()
    again = Outbox(tmp_path / "o.sqlite3", "t1")
    assert again.acked == 1  # the ack's commit is in the WAL, read back like any other
    again.close()


def test_an_outbox_made_with_4k_pages_and_a_unique_id_still_works(tmp_path: Path) -> None:
    """Outboxes written by earlier releases (4 KiB pages, a UNIQUE index on the event id) open,
    keep their page size and go on numbering."""
    import sqlite3

    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size=4096")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE outbox (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,"
        " payload BLOB NOT NULL);"
    )
    conn.close()
    box = Outbox(path, "t1")
    assert box._db.execute("PRAGMA page_size").fetchone()[0] == 4096
    assert box._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 64
    assert [e.seq for e in box.append([EV, EV], ts=1.0)] == [1, 2]
    box.ack(box.stream, 2)
    box.close()
    _, _, envs = Outbox.read_all(path)
    assert [e.seq for e in envs] == [1, 2]
