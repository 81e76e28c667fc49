"""The hub store's schema version: one number for the whole file, and the steps between versions.

The hub's SQLite file holds several parts' tables (the ingest's event store, the tournament
desk's ``t_``, the dashboard's ``web_``, the domino desk's ``d_``, the enrolment desk's
``enrol_``), and it is backed up, restored and upgraded as one file, so it carries one version:
SQLite's ``PRAGMA user_version`` (in the file's header: it is written in the same transaction as
the change it counts, and a backup copies it). :data:`STORE_VERSION` is the version this code
writes; 0 is a store from before versions (it may lack any of the first steps' columns).

A change to any part's tables is one more :class:`Step` in :data:`STEPS`. A step takes a store
of the version before it to its own; it finds a part's table missing when that part never ran
on this store, and leaves it to the part's own ``CREATE TABLE IF NOT EXISTS``, which runs after
the steps and makes it in the newest shape. So the steps run first, then the ``CREATE``
statements (:class:`~mesa.hub.ingest.store.EventStore` does both when it opens a store).

``mesa hub`` calls :func:`upgrade` before anything opens the store: an older store is backed up
first (:func:`mesa.hub.backup.backup`, into the backup folder) and then migrated; a store of a
newer version than this code knows is refused (:class:`StoreTooNew`) and left as it is.

>>> import sqlite3
>>> db = sqlite3.connect(":memory:", isolation_level=None)
>>> _ = db.executescript("CREATE TABLE events (id TEXT); CREATE TABLE assignments (txn TEXT)")
>>> [s.version for s in migrate(db)], read_version(db) == STORE_VERSION
([1, 2, 3], True)
>>> sorted(r[1] for r in db.execute("PRAGMA table_info(events)"))
['fence', 'id']
>>> _ = db.execute(f"PRAGMA user_version = {STORE_VERSION + 1}")
>>> migrate(db)
Traceback (most recent call last):
  ...
mesa.hub.store_version.StoreTooNew: the store has version 4, newer than the 3 this Mesa knows: it was written by a newer release. Install that release again (or a newer one), or restore a backup this release made (mesa restore FILE)
"""

from __future__ import annotations

import logging
import sqlite3
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mesa.errors import MesaError

log = logging.getLogger(__name__)


class StoreVersionError(MesaError):
    """A store whose version this code cannot work with."""


class StoreTooNew(StoreVersionError):
    """The store was written by a newer release: this code does not know its tables."""

    def __init__(self, version: int, where: str = "the store") -> None:
        super().__init__(
            f"{where} has version {version}, newer than the {STORE_VERSION} this Mesa knows: "
            "it was written by a newer release. Install that release again (or a newer one), "
            "or restore a backup this release made (mesa restore FILE)"
        )
        self.version = version


@dataclass(frozen=True)
class Step:
    """What takes a store from version ``version - 1`` to ``version``."""

    version: int
    what: str
    apply: Callable[[sqlite3.Connection], None]


def _has_table(db: sqlite3.Connection, table: str) -> bool:
    row = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    return row is not None


def add_column(db: sqlite3.Connection, table: str, column: str, decl: str) -> None:
    """``ALTER TABLE table ADD COLUMN column decl``, unless the column is there already (a
    store of version 0 may have it) or the table is not (its part's ``CREATE`` makes it)."""
    if not _has_table(db, table):
        return
    have = {r[1] for r in db.execute(f'PRAGMA table_info("{table}")')}
    if column not in have:
        db.execute(f'ALTER TABLE "{table}" ADD COLUMN {column} {decl}')


# Step 3's tables, as the enrolment desk made them that release (frozen: a later change to the
# desk's tables is a later step, never an edit here).
_ENROL_V3 = (
    """CREATE TABLE IF NOT EXISTS enrol_pending (
    eid TEXT PRIMARY KEY,
    serial TEXT NOT NULL,
    pubkey TEXT NOT NULL,
    code TEXT NOT NULL,
    hwcheck TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    beats INTEGER NOT NULL,
    source TEXT NOT NULL,
    dismissed_at REAL
)""",
    """CREATE TABLE IF NOT EXISTS enrol_adopted (
    eid TEXT PRIMARY KEY,
    serial TEXT NOT NULL,
    code TEXT NOT NULL,
    table_id TEXT NOT NULL,
    adopted_at REAL NOT NULL,
    cleared_at REAL,
    replaced_at REAL
)""",
    """CREATE TABLE IF NOT EXISTS enrol_requests (
    code TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    replace TEXT,
    requested_at REAL NOT NULL,
    done_at REAL,
    outcome TEXT
)""",
)


def enrolment_keys(db: sqlite3.Connection) -> None:
    """Step 3: adoption by the Pi's own key and pairing code. An announcement from before has no
    key to answer to, so the waiting list starts empty (the Pi announces itself again); the
    adoptions stay, as the Pis the numbers have (``eid`` ``v1-<serial>``, no code). A store whose
    enrolment desk never ran is left to the desk's own ``CREATE``."""
    if not _has_table(db, "enrol_pending"):
        return
    if "eid" in {r[1] for r in db.execute('PRAGMA table_info("enrol_pending")')}:
        return  # the desk of this release migrated it already
    db.execute("DROP TABLE enrol_pending")
    db.execute("DROP TABLE IF EXISTS enrol_requests")
    old = []
    if _has_table(db, "enrol_adopted"):
        old = db.execute(
            "SELECT serial, table_id, adopted_at, cleared_at FROM enrol_adopted").fetchall()
        db.execute("DROP TABLE enrol_adopted")
    for create in _ENROL_V3:
        db.execute(create)
    db.executemany(
        "INSERT INTO enrol_adopted (eid, serial, code, table_id, adopted_at, cleared_at, "
        "replaced_at) VALUES (?, ?, '', ?, ?, ?, NULL)",
        [(f"v1-{s}", s, t, a, c) for s, t, a, c in old],
    )


# Every step ever, in order; never edit a released one (a store of its version exists), add.
STEPS: tuple[Step, ...] = (
    Step(1, "events.fence: why the hub did not apply an event (a stale epoch)",
         lambda db: add_column(db, "events", "fence", "TEXT")),
    Step(2, "assignments.epoch: the fencing token of a table's assignment",
         lambda db: add_column(db, "assignments", "epoch", "INTEGER")),
    Step(3, "enrolment by the Pi's key and pairing code (the waiting list starts again)",
         enrolment_keys),
)  # fmt: skip
STORE_VERSION = STEPS[-1].version
assert [s.version for s in STEPS] == list(range(1, STORE_VERSION + 1))


def read_version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def is_fresh(db: sqlite3.Connection) -> bool:
    """Whether the file holds no table yet (a new store: made at the newest version at once)."""
    row = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchone()
    return row is None


def check_known(version: int, where: str = "the store") -> None:
    """Refuse (:class:`StoreTooNew`) a version newer than this code's."""
    if version > STORE_VERSION:
        raise StoreTooNew(version, where)


def pending(version: int) -> list[Step]:
    """The steps a store of ``version`` still needs (none: it is current)."""
    return [s for s in STEPS if s.version > version]


def migrate(db: sqlite3.Connection) -> list[Step]:
    """Take the store on ``db`` (autocommit: ``isolation_level=None``) to :data:`STORE_VERSION`,
    each step in its own transaction with the version it reaches, so a store cut off half-way
    is at a version and its next step runs again. A fresh store is only stamped (its parts'
    ``CREATE`` statements make the newest shape). Returns the steps applied."""
    if read_version(db) == STORE_VERSION:
        return []  # the usual case: no write lock taken
    db.execute("BEGIN IMMEDIATE")
    try:
        version = read_version(db)
        check_known(version)
        if version < STORE_VERSION and is_fresh(db):
            db.execute(f"PRAGMA user_version = {STORE_VERSION}")
            version = STORE_VERSION
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    done = []
    for step in pending(version):
        db.execute("BEGIN IMMEDIATE")
        try:
            step.apply(db)
            db.execute(f"PRAGMA user_version = {step.version}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        log.info("store migrated to version %d: %s", step.version, step.what)
        done.append(step)
    return done


def file_version(path: str | Path) -> int | None:
    """The version of the store at ``path`` (read-only), None when there is no store yet (no
    file, or a file without tables)."""
    p = Path(path)
    if not p.exists():
        return None
    conn = sqlite3.connect(f"file:{urllib.parse.quote(str(p))}?mode=ro", uri=True, timeout=30)
    try:
        return None if is_fresh(conn) else read_version(conn)
    finally:
        conn.close()


@dataclass(frozen=True)
class Upgrade:
    """What :func:`upgrade` did: the version found, the one reached, the backup taken first."""

    found: int
    reached: int
    backup: Path | None


def upgrade(db: str | Path, backup: Callable[[], Path]) -> Upgrade | None:
    """Before the hub opens its store: refuse a newer one (:class:`StoreTooNew`), and back up
    (``backup()``: :func:`mesa.hub.backup.backup` into the backup folder, which returns the copy)
    then migrate an older one. None when there was nothing to do (no store yet, or a current
    one). A backup that fails stops the upgrade (its error is raised): no store is migrated
    without a copy of it as it was."""
    found = file_version(db)
    if found is None:
        return None
    check_known(found, f"the store {db}")
    if found == STORE_VERSION:
        return None
    made = backup()
    log.info("store %s is at version %d: backed up to %s before migrating", db, found, made)
    conn = sqlite3.connect(db, isolation_level=None, timeout=30)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        migrate(conn)
    finally:
        conn.close()
    return Upgrade(found, STORE_VERSION, made)
