"""Backups of the hub's store taken during a running evening, rotated, checked and restored."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from mesa.hub.backup import (
    REQUIRED_TABLES,
    BackupError,
    backup,
    backups,
    check_backup,
    hub_holds,
    restore,
)
from mesa.hub.ingest.app import Hub
from mesa.hub.settings import HubSettings
from support.harness import wait_until
from support.hubkit import FakeTable


def event_ids(db: Path) -> set[str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT id FROM events")}
    finally:
        conn.close()


def test_a_backup_taken_while_events_arrive_holds_every_committed_event(tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite3"
    hub = Hub(HubSettings(db=db))
    tables = [FakeTable(hub, f"m{i}") for i in range(4)]
    for i, t in enumerate(tables):
        hub.register_table(t.id)
        t.online()
        t.play_to_running(match=f"G1-{i + 1}")
    stop = threading.Event()
    rounds = [0]

    def evening() -> None:
        # Four tables pressing their clocks, each press committed by the hub's ingest.
        while not stop.is_set() and rounds[0] < 2000:
            side = "a" if rounds[0] % 2 == 0 else "b"
            for t in tables:
                t.apply("press", {"side": side}, dt=0.5)
            rounds[0] += 1

    writer = threading.Thread(target=evening)
    writer.start()
    try:
        made = []
        assert wait_until(lambda: rounds[0] > 20, 30)
        for _ in range(3):
            before = event_ids(db)  # committed before this backup began
            made.append((before, backup(db, tmp_path / "backups", keep=2)))
    finally:
        stop.set()
        writer.join(60)
        hub.close()
    final = event_ids(db)
    assert rounds[0] > 0 and len(made[0][0]) < len(final)  # events kept arriving meanwhile
    # Rotation kept the newest two, named by time.
    kept = backups(tmp_path / "backups")
    assert kept == sorted(p for _, p in made[-2:])
    for before, path in made[-2:]:
        assert check_backup(path, REQUIRED_TABLES) == []
        assert before <= event_ids(path) <= final
    # Restore the last one in place of the store: every event it held is back.
    before, path = made[-1]
    saved = restore(path, db, required=REQUIRED_TABLES)
    assert saved is not None and event_ids(saved) == final
    assert before <= event_ids(db) == event_ids(path)
    reopened = Hub(HubSettings(db=db))
    assert reopened.store.event_count() == len(event_ids(path))
    reopened.close()


def test_restore_refuses_a_bad_file_and_a_store_in_use(tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite3"
    hub = Hub(HubSettings(db=db))
    try:
        good = backup(db, tmp_path / "b")
        junk = tmp_path / "junk.sqlite3"
        junk.write_bytes(b"not a database at all" * 100)
        with pytest.raises(BackupError, match="not a sound backup"):
            restore(junk, db, required=REQUIRED_TABLES)
        other = tmp_path / "other.sqlite3"
        sqlite3.connect(other).execute("CREATE TABLE unrelated (x)").connection.close()
        with pytest.raises(BackupError, match="events missing"):
            restore(other, db, required=REQUIRED_TABLES)
        # The hub is running on it (this process has it open; a hub elsewhere is found by /proc).
        assert not hub_holds(db)  # our own descriptors do not count...
    finally:
        hub.close()
    assert restore(good, db, required=REQUIRED_TABLES) is not None


def test_restore_refuses_while_another_process_holds_the_store(tmp_path: Path) -> None:
    import subprocess
    import sys

    db = tmp_path / "hub.sqlite3"
    Hub(HubSettings(db=db)).close()
    good = backup(db, tmp_path / "b")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT 1 FROM events');"
            " print('open', flush=True); sys.stdin.read()",
            str(db),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        assert hub_holds(db)
        with pytest.raises(BackupError, match="stop it first"):
            restore(good, db, required=REQUIRED_TABLES)
        assert restore(good, db, required=REQUIRED_TABLES, force=True) is not None
    finally:
        holder.communicate("", timeout=10)


def test_the_desk_backs_up_when_a_tournament_is_closed(tmp_path: Path) -> None:
    from datetime import date, datetime

    from mesa.hub import backup as backups_module
    from mesa.hub.desk.games.backgammon import TournamentDesk

    db = tmp_path / "hub.sqlite3"
    Hub(HubSettings(db=db)).close()
    desk = TournamentDesk(db, now=lambda: datetime(2025, 3, 7, 20, 0))
    backups_module.configure(db, tmp_path / "after", keep=3)
    try:
        t = desk.call(
            lambda club, now: club.create_tournament("2025-03", "Marzo", date(2025, 3, 7))
        )
        desk.call(lambda club, now: t.name)  # an action that closes nothing: no backup
        assert backups(tmp_path / "after") == []

        def close(club: object, now: datetime) -> None:
            t.phase = "closed"  # what Tournament.close does once the knockout is over

        desk.call(close)
        assert wait_until(lambda: len(backups(tmp_path / "after")) == 1, 10)
        (made,) = backups(tmp_path / "after")
        assert check_backup(made, REQUIRED_TABLES) == []
    finally:
        backups_module._settings = None
        desk.close()
