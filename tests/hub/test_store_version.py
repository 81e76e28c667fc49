"""Upgrades that lose nothing: every store a release made opens with this code, every part of
it reads; an older store is backed up before it is migrated; a newer one is refused as it is.

``tests/fixtures/store_v<N>.sqlite3`` are stores written by the release whose store version is
N (``tests/fixtures/write_store.py``): they are kept, and every later release runs this file.
"""

from __future__ import annotations

import gc
import shutil
import sqlite3
from pathlib import Path

import pytest

from mesa.cli import main
from mesa.games.domino.store import DominoStore
from mesa.hub.backup import backup, backups, check_backup
from mesa.hub.broker.enrolment import EnrolmentStore
from mesa.hub.ingest import store as store_module
from mesa.hub.ingest.app import Hub
from mesa.hub.ingest.store import EventStore
from mesa.hub.settings import HubSettings
from mesa.hub.store_schema import create_store, hub_schema
from mesa.hub.store_version import (
    STEPS,
    STORE_VERSION,
    StoreTooNew,
    file_version,
    migrate,
    upgrade,
)
from mesa.tournament.store import TournamentStore

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RELEASED = sorted(FIXTURES.glob("store_v*.sqlite3"))
PLAYERS = ["ALBA", "BRUNO", "CARMEN", "DIEGO", "ELENA", "FÉLIX"]
ENROL_AT = 1741377600.0  # when the fixtures' Pis announced themselves (write_store.py)
GAME = ["table.assigned", "player.checked_in", "player.checked_in", "match.started",
        "game.started", "turn.ended", "turn.ended", "turn.ended"]  # fmt: skip


def columns(db: Path, table: str) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
    finally:
        conn.close()


def test_this_release_keeps_a_store_of_its_version() -> None:
    """A release that raises the store version writes its fixture (write_store.py): the next
    releases must open it too."""
    assert FIXTURES / f"store_v{STORE_VERSION}.sqlite3" in RELEASED
    for path in RELEASED:
        version = int(path.stem.removeprefix("store_v"))
        assert file_version(path) == version <= STORE_VERSION


@pytest.mark.parametrize("fixture", RELEASED, ids=lambda p: p.stem)
def test_a_store_a_release_made_opens_and_every_part_reads(fixture: Path, tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite3"
    shutil.copyfile(fixture, db)
    found = file_version(db)
    done = upgrade(db, lambda: backup(db, tmp_path / "backups", keep=5))
    if found == STORE_VERSION:
        assert done is None and backups(tmp_path / "backups") == []
    else:  # a later release: the store as that release left it is kept first
        assert done is not None and done.backup is not None
        assert file_version(done.backup) == file_version(fixture)
    create_store(db)  # every part opens it as `mesa hub` does
    assert file_version(db) == STORE_VERSION
    assert check_backup(db, hub_schema()) == []  # exactly what this code makes
    # The ingest's events, tables and assignment.
    store = EventStore(db)
    events = store.events("3")
    assert [e["type"] for e in events] == GAME
    assert [e["seq"] for e in events] == list(range(1, 9))
    assert {e["fence"] for e in events} == {None} and {e["epoch"] for e in events} == {1}
    (row,) = store.tables()
    assert (row["table"], row["status"], row["state_seq"]) == ("3", "online", 8)
    assert row["snapshot"]["state"] == "running"
    (assignment,) = store.assignments()
    assert assignment["args"]["match_id"] == "G1-1" and assignment["epoch"] == 1
    store.close()
    hub = Hub(HubSettings(db=db))  # its projections rebuilt from the store
    live = hub.projections.get("3")
    assert live is not None and (live.match_id, live.events) == ("G1-1", 8)
    hub.close()
    # The tournament desk's club.
    with TournamentStore(db) as club_store:
        club = club_store.load_club()
    assert [p.name for p in club.registry] == PLAYERS
    tournament = club.tournaments["2025-03"]
    groups = tournament.to_dict()["groups"]
    assert tournament.name == "Marzo" and tournament.phase == "groups"
    assert sorted(tournament.name_of(p) for g in groups for p in g) == sorted(PLAYERS)
    assert [len(tournament.group_matches(g + 1)) for g in range(len(groups))] == [3, 3]
    # The domino events, either format.
    with DominoStore(db) as domino:
        assert domino.formats() == {"D1": "pairs", "D2": "individual"}
        assert [p.name for p in domino.load("D1").pairs.values()] == ["ANA / BETO"]
        assert len(domino.audit("D2")) == 2
    # The enrolment desk's tables. Announcements from before pairing codes (version 3) have no
    # key to answer to: the list starts again; every adoption stays.
    enrol = EnrolmentStore(db)
    try:
        waiting = [p.serial for p in enrol.pending(now=ENROL_AT + 5)]
        assert waiting == (["fixture-pi-1"] if found >= 3 else [])
        assert [(a.serial, a.table_id) for a in enrol.adoptions()] == [("fixture-pi-2", "9")]
    finally:
        enrol.close()


def version_0_store(path: Path) -> None:
    """A store of the first release: no version, no ``events.fence``, no ``assignments.epoch``,
    with one event and one assignment in it."""
    old = store_module._SCHEMA.replace("    fence TEXT,\n", "").replace(
        "    ts REAL NOT NULL,\n    epoch INTEGER\n", "    ts REAL NOT NULL\n"
    )
    assert old != store_module._SCHEMA
    conn = sqlite3.connect(path)
    conn.executescript(old)
    conn.execute(
        "INSERT INTO events (id, table_id, stream, seq, type, ts, t, payload, committed) "
        "VALUES ('e1', '3', 's', 1, 'clock.resumed', 1.0, 1.0, ?, 2.0)",
        (b'{"v":1,"id":"e1","table":"3","stream":"s","seq":1,"ts":1.0,"t":1.0,'
         b'"type":"clock.resumed","data":{"by":"players"}}',),
    )  # fmt: skip
    conn.execute("INSERT INTO assignments VALUES ('3', 'x1', 'null', 1.0)")
    conn.commit()
    conn.close()


def test_an_older_store_is_backed_up_then_migrated(tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite3"
    version_0_store(db)
    done = upgrade(db, lambda: backup(db, tmp_path / "backups", keep=5))
    assert done is not None and (done.found, done.reached) == (0, STORE_VERSION)
    assert done.backup is not None and backups(tmp_path / "backups") == [done.backup]
    # The backup is the store as it was: its version, its columns, its rows.
    assert file_version(done.backup) == 0 and "fence" not in columns(done.backup, "events")
    kept = sqlite3.connect(done.backup)
    assert kept.execute("SELECT id, seq FROM events").fetchall() == [("e1", 1)]
    kept.close()
    assert file_version(db) == STORE_VERSION
    assert columns(db, "events")[-1] == "fence" and "epoch" in columns(db, "assignments")
    store = EventStore(db)
    assert [e["id"] for e in store.events()] == ["e1"]
    assert store.assignments()[0]["epoch"] is None
    store.close()
    create_store(db)
    gc.collect()
    assert check_backup(db, hub_schema()) == []
    assert upgrade(db, lambda: backup(db, tmp_path / "backups", keep=5)) is None  # current: nothing more


def test_no_migration_without_its_backup(tmp_path: Path) -> None:
    """A backup folder that cannot be written stops the upgrade: the store stays as it was."""
    db = tmp_path / "hub.sqlite3"
    version_0_store(db)
    before = db.read_bytes()
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the backups go")
    with pytest.raises(Exception, match="no backup made"):
        upgrade(db, lambda: backup(db, blocked, keep=5))
    assert db.read_bytes() == before and file_version(db) == 0


def test_each_step_commits_with_its_version(tmp_path: Path) -> None:
    """A store cut off between two steps is at the first one's version; its next step runs
    when it is opened again."""
    db = tmp_path / "hub.sqlite3"
    version_0_store(db)
    conn = sqlite3.connect(db, isolation_level=None)
    STEPS[0].apply(conn)
    conn.execute(f"PRAGMA user_version = {STEPS[0].version}")
    applied = migrate(conn)
    conn.close()
    assert [s.version for s in applied] == [s.version for s in STEPS[1:]]
    assert file_version(db) == STORE_VERSION


def newer_store(tmp_path: Path) -> Path:
    db = tmp_path / "newer" / "hub.sqlite3"
    db.parent.mkdir()
    shutil.copyfile(FIXTURES / f"store_v{STORE_VERSION}.sqlite3", db)
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {STORE_VERSION + 1}")
    conn.execute("CREATE TABLE from_the_future (x)")
    conn.close()
    return db


def test_a_newer_store_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    db = newer_store(tmp_path)
    before = db.read_bytes()
    with pytest.raises(StoreTooNew, match="written by a newer release"):
        upgrade(db, lambda: backup(db, tmp_path / "backups", keep=5))
    with pytest.raises(StoreTooNew):
        EventStore(db)
    assert db.read_bytes() == before and not (tmp_path / "backups").exists()


def test_mesa_hub_refuses_a_newer_store_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = newer_store(tmp_path)
    before = db.read_bytes()
    # Refused before any broker is reached (port 9: nothing listens there).
    code = main(["hub", "--db", str(db), "--broker-port", "9", "--no-web", "--wait", "1"])
    err = capsys.readouterr().err
    assert code == 1
    assert f"has version {STORE_VERSION + 1}, newer than the {STORE_VERSION} this Mesa knows" in err
    assert "mesa restore" in err and db.read_bytes() == before
