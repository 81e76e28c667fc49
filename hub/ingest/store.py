"""The hub's event store: one SQLite file in WAL mode with ``synchronous=FULL``.

One writer (the ingest thread) batches many messages into one transaction; readers (the
dashboard, tests, the checker) use their own connections and never block it. Events are unique by
``id`` and by ``(table, stream, seq)``, and only a stream's next ``seq`` is ever inserted, so what
is stored is, per table, a gap-free prefix of what it sent, in order.

>>> import tempfile, pathlib
>>> from mesa.protocol import EventEnvelope
>>> store = EventStore(pathlib.Path(tempfile.mkdtemp()) / "hub.sqlite3")
>>> env = EventEnvelope.build("3", "s1", 1, "clock.resumed", {"by": "players"}, ts=1.0, t=5.0)
>>> with store.transaction():
...     store.insert_event(env, committed=2.0)
True
>>> [(e["table"], e["seq"], e["type"]) for e in store.events("3")]
[('3', 1, 'clock.resumed')]
>>> store.close()
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mesa.errors import MesaError
from mesa.hub import store_version
from mesa.protocol import EventEnvelope, Response, StateReport, TableStatus


class StoreError(MesaError):
    """The store cannot be opened or written."""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    table_id TEXT NOT NULL,
    stream TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    ts REAL NOT NULL,
    t REAL NOT NULL,
    payload BLOB NOT NULL,
    committed REAL NOT NULL,
    fence TEXT,
    UNIQUE (table_id, stream, seq)
);
CREATE TABLE IF NOT EXISTS streams (
    table_id TEXT NOT NULL,
    stream TEXT NOT NULL,
    contiguous INTEGER NOT NULL,
    floor INTEGER NOT NULL DEFAULT 0,
    first_seen REAL NOT NULL,
    PRIMARY KEY (table_id, stream)
);
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY,
    registered REAL NOT NULL,
    status TEXT,
    bdseq INTEGER,
    status_ts REAL,
    state_stream TEXT,
    state_seq INTEGER,
    state_ts REAL,
    snapshot TEXT
);
CREATE TABLE IF NOT EXISTS commands (
    txn TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    input TEXT NOT NULL,
    args TEXT,
    sent REAL NOT NULL,
    accepted INTEGER,
    code TEXT,
    reason TEXT,
    answered REAL
);
CREATE INDEX IF NOT EXISTS commands_by_table ON commands (table_id, sent);
CREATE TABLE IF NOT EXISTS assignments (
    table_id TEXT PRIMARY KEY,
    txn TEXT NOT NULL,
    args TEXT,
    ts REAL NOT NULL,
    epoch INTEGER
);
"""
# The columns added since the first release (events.fence, assignments.epoch) are the first
# steps of the store's version: mesa.hub.store_version.STEPS.


def _connect(path: Path, readonly: bool = False) -> sqlite3.Connection:
    if readonly:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    else:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit is on disk before the hub acknowledges it; an ack is a promise.
        conn.execute("PRAGMA synchronous=FULL")
    conn.row_factory = sqlite3.Row
    return conn


def _event_row(row: sqlite3.Row) -> dict[str, Any]:
    envelope = json.loads(row["payload"])
    return {
        "rowid": row["rowid"],
        "id": row["id"],
        "table": row["table_id"],
        "stream": row["stream"],
        "seq": row["seq"],
        "type": row["type"],
        "ts": row["ts"],
        "t": row["t"],
        "data": envelope["data"],
        "committed": row["committed"],
        # The assignment's fencing token the table put on it, and the hub's verdict when it
        # was committed: None (applied) or why not (stale_epoch, missing_epoch).
        "epoch": envelope.get("epoch"),
        "fence": row["fence"],
    }


class EventStore:
    """Write side for the ingest thread, read side (own connections) for everyone else."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # A store of a newer release is refused before this code writes a byte of it.
        store_version.check_known(store_version.file_version(self.path) or 0, str(self.path))
        try:
            self._db = _connect(self.path)
        except sqlite3.Error as e:
            raise StoreError(f"cannot open the event store {self.path}: {e}") from None
        try:
            # The steps first (a newer store is refused before a table is made), then the
            # CREATE statements: they make what a step left to them in the newest shape.
            # `mesa hub` has backed an older store up and migrated it already (upgrade()).
            store_version.migrate(self._db)
            self._db.executescript(_SCHEMA)
        except (sqlite3.Error, store_version.StoreVersionError) as e:
            self._db.close()
            if isinstance(e, store_version.StoreVersionError):
                raise
            raise StoreError(f"cannot open the event store {self.path}: {e}") from None
        self._lock = threading.RLock()
        self._local = threading.local()
        self._closed = False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._db.close()

    # ── writing (one thread) ────────────────────────────────────────────
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction; committed (and fsynced) when the block ends."""
        with self._lock:
            self.begin()
            try:
                yield
            except BaseException:
                self.rollback()
                raise
            self.commit()

    def begin(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self._db.execute("COMMIT")

    def rollback(self) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    def insert_event(
        self,
        env: EventEnvelope,
        committed: float,
        payload: bytes | None = None,
        fence: str | None = None,
    ) -> bool:
        """Insert one event; False (nothing written) if its id or seq is already taken.

        ``payload`` is the envelope exactly as received (kept byte for byte, for audits);
        ``fence`` why the hub does not apply it (a stale epoch), None when it does.
        """
        cur = self._db.execute(
            "INSERT INTO events (id, table_id, stream, seq, type, ts, t, payload, fence, "
            "committed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (
                env.id,
                env.table,
                env.stream,
                env.seq,
                env.type,
                env.ts,
                env.t,
                payload if payload is not None else env.to_payload(),
                fence,
                committed,
            ),
        )
        return cur.rowcount == 1

    def insert_rows(self, rows: list[tuple[Any, ...]]) -> int:
        """Insert event rows ``(id, table, stream, seq, type, ts, t, payload, fence,
        committed)``; return how many went in (a row whose id or seq is taken is skipped)."""
        cur = self._db.executemany(
            "INSERT INTO events (id, table_id, stream, seq, type, ts, t, payload, fence, "
            "committed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            rows,
        )
        return cur.rowcount

    def last_rowid(self) -> int:
        """The rowid of the last row this (the writer's) connection inserted: the ingest is the
        events table's one writer, so the rows of one ``insert_rows`` end here, in order."""
        return int(self._db.execute("SELECT last_insert_rowid()").fetchone()[0])

    def savepoint(self) -> None:
        self._db.execute("SAVEPOINT rows")

    def release(self) -> None:
        self._db.execute("RELEASE rows")

    def rollback_to(self) -> None:
        self._db.execute("ROLLBACK TO rows")
        self._db.execute("RELEASE rows")

    def set_contiguous(
        self, table: str, stream: str, seq: int, *, floor: int | None = None
    ) -> None:
        self._db.execute(
            "INSERT INTO streams (table_id, stream, contiguous, floor, first_seen) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_id, stream) DO UPDATE SET "
            "contiguous = excluded.contiguous, floor = max(floor, excluded.floor)",
            (table, stream, seq, floor or 0, time.time()),
        )

    def register_table(self, table: str) -> None:
        self._db.execute(
            "INSERT INTO tables (table_id, registered) VALUES (?, ?) ON CONFLICT DO NOTHING",
            (table, time.time()),
        )

    def set_status(self, status: TableStatus) -> None:
        self.register_table(status.table)
        self._db.execute(
            "UPDATE tables SET status = ?, bdseq = ?, status_ts = ? WHERE table_id = ?",
            (status.state, status.bdseq, status.ts, status.table),
        )

    def set_state(self, report: StateReport) -> None:
        self.register_table(report.table)
        self._db.execute(
            "UPDATE tables SET state_stream = ?, state_seq = ?, state_ts = ?, snapshot = ? "
            "WHERE table_id = ?",
            (
                report.stream,
                report.seq,
                report.ts,
                json.dumps(report.snapshot, separators=(",", ":")),
                report.table,
            ),
        )

    def record_command(
        self, txn: str, table: str, kind: str, input: str, args: dict[str, Any] | None
    ) -> None:
        self._db.execute(
            "INSERT INTO commands (txn, table_id, kind, input, args, sent) VALUES (?,?,?,?,?,?)",
            (txn, table, kind, input, json.dumps(args), time.time()),
        )

    def record_response(self, resp: Response) -> bool:
        """Store the answer to a command; False if no such command went to that table."""
        cur = self._db.execute(
            "UPDATE commands SET accepted = ?, code = ?, reason = ?, answered = ? "
            "WHERE txn = ? AND table_id = ?",
            (int(resp.accepted), resp.code, resp.reason, resp.ts, resp.txn, resp.table),
        )
        return cur.rowcount == 1

    def set_assignment(
        self, table: str, txn: str, args: dict[str, Any] | None, epoch: int | None = None
    ) -> None:
        """Record ``table``'s current assignment and its fencing token (None: no match)."""
        self._db.execute(
            "INSERT INTO assignments (table_id, txn, args, ts, epoch) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (table_id) DO UPDATE SET txn = excluded.txn, args = excluded.args, "
            "ts = excluded.ts, epoch = excluded.epoch",
            (table, txn, json.dumps(args), time.time(), epoch),
        )

    def next_epoch(self) -> int:
        """A fencing token larger than every one given before (inside the caller's write
        transaction, so the token and the assignment it fences commit together)."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'epoch'").fetchone()
        value = int(row[0]) + 1 if row else 1
        self._db.execute(
            "INSERT INTO meta (key, value) VALUES ('epoch', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(value),),
        )
        return value

    def assignment_epochs(self) -> dict[str, int | None]:
        """Each table's current fencing token (None: its match was withdrawn)."""
        with self._lock:
            rows = self._db.execute("SELECT table_id, epoch FROM assignments").fetchall()
        return {r[0]: r[1] for r in rows}

    def clear_snapshot(self, table: str) -> None:
        """Forget a stored snapshot the hub no longer accepts (an ill-typed one)."""
        with self.transaction():
            self._db.execute(
                "UPDATE tables SET snapshot = NULL, state_stream = NULL, state_seq = NULL "
                "WHERE table_id = ?",
                (table,),
            )

    def next_session(self) -> int:
        """Count one more start of the hub (carried in its retained status)."""
        with self.transaction():
            row = self._db.execute("SELECT value FROM meta WHERE key = 'session'").fetchone()
            value = int(row[0]) + 1 if row else 1
            self._db.execute(
                "INSERT INTO meta (key, value) VALUES ('session', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(value),),
            )
        return value

    # ── reading for the writer (same connection, sees its own transaction) ──
    def event_id_at(self, table: str, stream: str, seq: int) -> str | None:
        row = self._db.execute(
            "SELECT id FROM events WHERE table_id = ? AND stream = ? AND seq = ?",
            (table, stream, seq),
        ).fetchone()
        return row[0] if row else None

    def contiguous_all(self) -> dict[tuple[str, str], int]:
        with self._lock:
            rows = self._db.execute("SELECT table_id, stream, contiguous FROM streams").fetchall()
        return {(r[0], r[1]): r[2] for r in rows}

    def table_bdseqs(self) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute(
                "SELECT table_id, bdseq FROM tables WHERE bdseq IS NOT NULL"
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    # ── reading (any thread; each has its own connection) ───────────────
    def _reader(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = _connect(self.path, readonly=True)
            self._local.conn = conn
        return conn

    def events(
        self, table: str | None = None, *, since: int = 0, limit: int = 1000
    ) -> list[dict[str, Any]]:
        """Events in commit order (``rowid``), optionally of one table, after rowid ``since``."""
        sql = "SELECT * FROM events WHERE rowid > ?"
        params: list[Any] = [since]
        if table is not None:
            sql += " AND table_id = ?"
            params.append(table)
        sql += " ORDER BY rowid LIMIT ?"
        params.append(limit)
        return [_event_row(r) for r in self._reader().execute(sql, params).fetchall()]

    def event_count(self, table: str | None = None) -> int:
        if table is None:
            row = self._reader().execute("SELECT count(*) FROM events").fetchone()
        else:
            row = (
                self._reader()
                .execute("SELECT count(*) FROM events WHERE table_id = ?", (table,))
                .fetchone()
            )
        return int(row[0])

    def tables(self) -> list[dict[str, Any]]:
        """Every known table with its last status and snapshot."""
        out = self.table_rows()
        for d in out:
            text = d.pop("snapshot_json")
            d["snapshot"] = json.loads(text) if text else None
        return out

    def table_rows(self) -> list[dict[str, Any]]:
        """:meth:`tables` with each snapshot as its stored JSON text, under ``snapshot_json``
        (None: no snapshot): a reader that keeps parsed snapshots parses only the new ones."""
        rows = self._reader().execute("SELECT * FROM tables ORDER BY table_id").fetchall()
        out = []
        for r in rows:
            d = dict(r)
            d["snapshot_json"] = d.pop("snapshot") or None
            d["table"] = d.pop("table_id")
            out.append(d)
        return out

    def known(self, table: str) -> bool:
        row = self._reader().execute("SELECT 1 FROM tables WHERE table_id = ?", (table,)).fetchone()
        return row is not None

    def streams(self) -> list[dict[str, Any]]:
        rows = self._reader().execute("SELECT * FROM streams ORDER BY table_id, first_seen")
        return [dict(r) | {"table": r["table_id"]} for r in rows.fetchall()]

    def commands(self, table: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """The audit log of what the hub told tables, newest first, with their answers."""
        sql = "SELECT * FROM commands"
        params: list[Any] = []
        if table is not None:
            sql += " WHERE table_id = ?"
            params.append(table)
        sql += " ORDER BY sent DESC LIMIT ?"
        params.append(limit)
        out = []
        for r in self._reader().execute(sql, params).fetchall():
            d = dict(r)
            d["args"] = json.loads(d["args"]) if d["args"] else None
            d["accepted"] = None if d["accepted"] is None else bool(d["accepted"])
            d["table"] = d.pop("table_id")
            out.append(d)
        return out

    def command(self, txn: str) -> dict[str, Any] | None:
        rows = self._commands_by_txn(txn)
        return rows[0] if rows else None

    def _commands_by_txn(self, txn: str) -> list[dict[str, Any]]:
        rows = self._reader().execute("SELECT * FROM commands WHERE txn = ?", (txn,)).fetchall()
        out = []
        for r in rows:
            d = dict(r)
            d["args"] = json.loads(d["args"]) if d["args"] else None
            d["accepted"] = None if d["accepted"] is None else bool(d["accepted"])
            d["table"] = d.pop("table_id")
            out.append(d)
        return out

    def assignments(self) -> list[dict[str, Any]]:
        rows = self._reader().execute("SELECT * FROM assignments ORDER BY table_id").fetchall()
        return [
            {
                "table": r["table_id"],
                "txn": r["txn"],
                "args": json.loads(r["args"]),
                "ts": r["ts"],
                "epoch": r["epoch"],
            }
            for r in rows
        ]
