"""Backups of the hub's store taken during a running evening, rotated, checked and restored."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest

from mesa.cli import main
from mesa.hub.backup import (
    BackupError,
    backup,
    backups,
    check_backup,
    hub_holds,
    restore,
)
from mesa.hub.ingest.app import Hub
from mesa.hub.settings import HubSettings
from mesa.hub.store_schema import hub_schema
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
        assert check_backup(path, hub_schema()) == []
        assert before <= event_ids(path) <= final
    # Restore the last one in place of the store: every event it held is back.
    before, path = made[-1]
    saved = restore(path, db, schema=hub_schema())
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
            restore(junk, db, schema=hub_schema())
        other = tmp_path / "other.sqlite3"
        sqlite3.connect(other).execute("CREATE TABLE unrelated (x)").connection.close()
        with pytest.raises(BackupError, match="events missing"):
            restore(other, db, schema=hub_schema())
        # The hub is running on it (this process has it open; a hub elsewhere is found by /proc).
        assert not hub_holds(db)  # our own descriptors do not count...
    finally:
        hub.close()
    assert restore(good, db, schema=hub_schema()) is not None


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
            restore(good, db, schema=hub_schema())
        assert restore(good, db, schema=hub_schema(), force=True) is not None
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
        assert check_backup(made, hub_schema()) == []
    finally:
        backups_module._settings = None
        desk.close()


# ── hostile files: each attack of issue 21, through `mesa restore` and `mesa backup` ─────────


def store_with_events(tmp_path: Path, n: int = 3) -> Path:
    """A hub store (every part of the hub opened on it) holding ``n`` events of table 3."""
    from mesa.hub.store_schema import create_store
    from mesa.protocol import EventEnvelope

    db = tmp_path / "hub.sqlite3"
    create_store(db)
    from mesa.hub.ingest.store import EventStore

    store = EventStore(db)
    with store.transaction():
        for seq in range(1, n + 1):
            env = EventEnvelope.build("3", "s1", seq, "clock.resumed", {"by": "players"}, ts=1.0, t=5.0)
            store.insert_event(env, committed=2.0)
    store.close()
    return db


def fingerprint(folder: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every entry under ``folder``: its kind and content (a link: its target)."""
    out: dict[str, tuple[str, bytes | str]] = {}
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        if p.is_symlink():
            out[rel] = ("link", os.readlink(p))
        elif p.is_file():
            out[rel] = ("file", p.read_bytes())
        else:
            out[rel] = ("dir" if p.is_dir() else "other", "")
    return out


def restore_refused(
    capsys: pytest.CaptureFixture[str], file: Path, db: Path, *watched: Path
) -> str:
    """`mesa restore FILE --db DB` refuses, changes nothing in DB's folder (nor ``watched``),
    and says why (returned)."""
    before = [fingerprint(d) for d in (db.parent, *watched)]
    code = main(["restore", str(file), "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert [fingerprint(d) for d in (db.parent, *watched)] == before
    assert err.startswith("mesa restore: ") and len(err) > 30
    return err


def hostile_copy(tmp_path: Path, db: Path, *sql: str) -> Path:
    """A backup of ``db`` with ``sql`` run on it (what an attacker hands over)."""
    made = backup(db, tmp_path / "made")
    bad = tmp_path / "incoming" / made.name
    bad.parent.mkdir(exist_ok=True)
    made.rename(bad)
    conn = sqlite3.connect(bad)
    for statement in sql:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return bad


def test_restore_refuses_the_store_table_names_with_other_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = store_with_events(tmp_path / "hub")
    conn = sqlite3.connect(db)
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
    conn.close()
    fake = tmp_path / "fake.sqlite3"
    conn = sqlite3.connect(fake)
    for name in names:
        conn.execute(f"CREATE TABLE {name} (anything TEXT, at_all BLOB)")
    conn.commit()
    conn.close()
    err = restore_refused(capsys, fake, db)
    assert "table assignments has the columns (anything, at_all), the hub's (table_id" in err


def test_restore_refuses_a_real_backup_carrying_a_trigger_or_a_view(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = store_with_events(tmp_path / "hub")
    trap = hostile_copy(
        tmp_path, db,
        "CREATE TRIGGER wipe AFTER INSERT ON events BEGIN DELETE FROM events; END",
    )
    err = restore_refused(capsys, trap, db)
    assert "trigger wipe" in err and "not one the hub creates" in err
    view = hostile_copy(tmp_path, db, "CREATE VIEW peek AS SELECT * FROM events")
    assert "view peek" in restore_refused(capsys, view, db)
    index = hostile_copy(tmp_path, db, "CREATE INDEX slow ON events (payload)")
    assert "index slow" in restore_refused(capsys, index, db)
    # An object the hub creates, redefined: the audit log's guard that lets everything through.
    guard = hostile_copy(
        tmp_path, db, "DROP TRIGGER t_audit_no_delete",
        "CREATE TRIGGER t_audit_no_delete BEFORE DELETE ON t_audit BEGIN SELECT 1; END",
    )
    assert "t_audit_no_delete" in restore_refused(capsys, guard, db)
    # A virtual table, the planner's statistics: objects the hub never makes.
    virtual = hostile_copy(tmp_path, db, "CREATE VIRTUAL TABLE v USING fts5(x)")
    assert "table v is not one the hub creates" in restore_refused(capsys, virtual, db)
    stats = hostile_copy(tmp_path, db, "ANALYZE")
    assert "table sqlite_stat1 is not one the hub creates" in restore_refused(capsys, stats, db)
    # A column added to a table the hub creates.
    extra = hostile_copy(tmp_path, db, "ALTER TABLE events ADD COLUMN note TEXT")
    assert "events" in restore_refused(capsys, extra, db)


def test_restore_refuses_broken_foreign_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = store_with_events(tmp_path / "hub")
    orphan = hostile_copy(
        tmp_path, db, "INSERT INTO t_player_cards (card_id, player_id) VALUES ('c1', 'nobody')"
    )
    assert "foreign key" in restore_refused(capsys, orphan, db)


def test_restore_refuses_a_named_pipe_without_hanging(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = store_with_events(tmp_path / "hub")
    fifo = tmp_path / "incoming" / "hub-20260101T000000000000Z.sqlite3"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    outcome: list[int] = []
    worker = threading.Thread(
        target=lambda: outcome.append(main(["restore", str(fifo), "--db", str(db)])),
        daemon=True,
    )
    worker.start()
    worker.join(15)
    if worker.is_alive():  # it blocked on the pipe: let it go, then fail
        with open(fifo, "wb"):
            pass
        worker.join(15)
        pytest.fail("mesa restore hung on a named pipe")
    assert outcome == [1]
    assert "named pipe" in capsys.readouterr().err


def test_restore_refuses_a_symlink_as_the_backup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = store_with_events(tmp_path / "hub")
    good = backup(db, tmp_path / "b")
    link = tmp_path / "link.sqlite3"
    link.symlink_to(good)
    assert "symbolic link" in restore_refused(capsys, link, db)


def test_restore_refuses_planted_links_where_it_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = store_with_events(tmp_path / "hub")
    good = backup(db, tmp_path / "b")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious").write_text("keep me")
    # <store>.restoring planted as a link to a file elsewhere: it would be overwritten.
    staging = db.with_name(db.name + ".restoring")
    staging.symlink_to(victim / "precious")
    err = restore_refused(capsys, good, db, victim)
    assert "hub.sqlite3.restoring" in err and "symbolic link" in err
    staging.unlink()
    # before-restore/ planted as a link to a folder elsewhere: the old store would land there.
    (db.parent / "before-restore").symlink_to(victim)
    err = restore_refused(capsys, good, db, victim)
    assert "before-restore" in err and "symbolic link" in err
    (db.parent / "before-restore").unlink()
    assert main(["restore", str(good), "--db", str(db)]) == 0
    assert (victim / "precious").read_text() == "keep me"


def test_restore_accepts_a_store_made_by_an_earlier_version(tmp_path: Path) -> None:
    """A store from before ``events.fence`` and ``assignments.epoch`` existed, opened (and so
    migrated) by this hub: its tables' text differs from a fresh one's, their shape does not."""
    from mesa.hub.ingest import store as store_module

    db = tmp_path / "hub" / "hub.sqlite3"
    db.parent.mkdir()
    old_schema = store_module._SCHEMA.replace("    fence TEXT,\n", "").replace(
        "    ts REAL NOT NULL,\n    epoch INTEGER\n", "    ts REAL NOT NULL\n"
    )
    assert old_schema != store_module._SCHEMA
    conn = sqlite3.connect(db)
    conn.executescript(old_schema)
    conn.close()
    from mesa.hub.store_schema import create_store

    create_store(db)  # the hub opens it: the columns are added
    made = backup(db, tmp_path / "b")
    assert main(["restore", str(made), "--db", str(db)]) == 0


def test_backup_rotation_ignores_what_is_not_its_own(tmp_path: Path) -> None:
    db = store_with_events(tmp_path / "hub")
    folder = tmp_path / "backups"
    folder.mkdir()
    # Named like backups (and older than any new one): a folder, a link to a file elsewhere.
    (folder / "hub-20000101T000000000000Z.sqlite3").mkdir()
    elsewhere = tmp_path / "elsewhere.sqlite3"
    elsewhere.write_bytes(b"not mine")
    (folder / "hub-20000102T000000000000Z.sqlite3").symlink_to(elsewhere)
    (folder / "notes.txt").write_text("the director's")
    args = ["backup", "--db", str(db), "--dir", str(folder), "--keep", "2"]
    for _ in range(4):
        assert main(args) == 0
    own = backups(folder)
    assert len(own) == 2 and all(p.is_file() and not p.is_symlink() for p in own)
    assert (folder / "hub-20000101T000000000000Z.sqlite3").is_dir()
    assert (folder / "hub-20000102T000000000000Z.sqlite3").is_symlink()
    assert elsewhere.read_bytes() == b"not mine"
    assert (folder / "notes.txt").read_text() == "the director's"


def test_one_folder_and_one_count_for_every_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mesa backup`` without ``--dir``/``--keep`` uses the hub's settings, the ones the
    backup after each closed tournament uses: one policy, neither prunes the other's (the
    nightly unit once kept 30 while every publication pruned the same folder to 14)."""
    db = store_with_events(tmp_path / "hub")
    folder = tmp_path / "shared"
    monkeypatch.setenv("MESA_HUB_BACKUP_DIR", str(folder))
    monkeypatch.setenv("MESA_HUB_BACKUP_KEEP", "3")
    for _ in range(5):
        assert main(["backup", "--db", str(db)]) == 0
    assert len(backups(folder)) == 3
    root = Path(__file__).parents[2] / "systemd"

    def env(unit: str) -> dict[str, str]:
        text = (root / unit).read_text()
        lines = [ln for ln in text.splitlines() if ln.startswith("Environment=")]
        pairs = dict(ln.removeprefix("Environment=").split("=", 1) for ln in lines)
        return {k: v for k, v in pairs.items() if k.startswith("MESA_HUB_BACKUP_")}

    nightly, hub = env("mesa-backup.service"), env("mesa-hub.service")
    assert nightly == hub and set(hub) == {"MESA_HUB_BACKUP_DIR", "MESA_HUB_BACKUP_KEEP"}
    assert "--keep" not in (root / "mesa-backup.service").read_text()


def test_restore_migrates_a_backup_of_the_first_release_and_refuses_a_newer_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A backup without a store version (the first release's, before ``events.fence`` and
    ``assignments.epoch``) is migrated as `mesa hub` would migrate it, in its copy only; a
    backup a newer release made is refused with what to do, and nothing changes."""
    from mesa.hub.ingest import store as store_module
    from mesa.hub.store_version import STORE_VERSION, file_version

    db = store_with_events(tmp_path / "hub")
    old = tmp_path / "incoming" / "first-release.sqlite3"
    old.parent.mkdir()
    conn = sqlite3.connect(old)
    conn.executescript(
        store_module._SCHEMA.replace("    fence TEXT,\n", "").replace(
            "    ts REAL NOT NULL,\n    epoch INTEGER\n", "    ts REAL NOT NULL\n"
        )
    )
    conn.execute(
        "INSERT INTO events (id, table_id, stream, seq, type, ts, t, payload, committed) "
        "VALUES ('old-1', '3', 's', 1, 'clock.resumed', 1.0, 1.0, x'7b7d', 2.0)"
    )
    conn.commit()
    conn.close()
    given = old.read_bytes()
    assert main(["restore", str(old), "--db", str(db)]) == 0
    assert old.read_bytes() == given  # the file handed over is not touched
    assert file_version(db) == STORE_VERSION and event_ids(db) == {"old-1"}
    assert check_backup(db, hub_schema()) == []
    newer = tmp_path / "incoming" / "newer.sqlite3"
    newer.write_bytes(backup(db, tmp_path / "b").read_bytes())
    conn = sqlite3.connect(newer)
    conn.execute(f"PRAGMA user_version = {STORE_VERSION + 1}")
    conn.close()
    err = restore_refused(capsys, newer, db)
    assert f"has version {STORE_VERSION + 1}, newer than the {STORE_VERSION}" in err
    assert "written by a newer release" in err
