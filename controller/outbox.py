"""The table's durable outbox: every event it emits, numbered, on disk before it is sent.

paho keeps its session only in memory and Mosquitto drops QoS 1 messages beyond its queue limit,
so this file is the source of truth for what the hub still has to receive. One SQLite file in WAL
mode with ``synchronous=FULL``: a committed append survives ``kill -9`` and a power cut (an
acknowledgement is committed without a sync of its own and made durable by the next append's: a
power cut may forget the last acks, and the hub drops the events sent again). Each
outbox has a random ``stream`` id, so a new SD card (a fresh outbox, seq back to 1) is never
mistaken for a replay. Acknowledged events are kept (up to ``retain_acked`` of them) for audits
and for the fault-run checker.

>>> import tempfile, pathlib
>>> box = Outbox(pathlib.Path(tempfile.mkdtemp()) / "outbox.sqlite3", table="3")
>>> [e.seq for e in box.append([("clock.resumed", {"by": "players"}, 12.5)] * 2, ts=1.0)]
[1, 2]
>>> box.ack(box.stream, 1), [e.seq for e in box.unacked()]
(1, [2])
>>> box.close()
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from mesa.errors import ConfigError, MesaError
from mesa.protocol import EventEnvelope, check_table_id, decode, new_id

log = logging.getLogger(__name__)


class OutboxError(MesaError):
    """The outbox file is unusable (another table's, or not an outbox)."""


class OutboxInUse(ConfigError):
    """Another running table program holds this outbox: it is not damaged, and must not be
    moved aside (two simulators started from one folder once set each other's copies aside)."""


def _hold(path: Path) -> int:
    """An exclusive lock on ``<path>.lock`` for as long as the outbox is open; the kernel drops
    it when the process dies (kill -9 included), so a restarted table always gets it back."""
    import fcntl

    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise OutboxInUse(
            f"{path} is in use by another table program: give each table its own folder "
            "(--journal) or table id"
        ) from None
    return fd


STORAGE_ERRORS = (sqlite3.Error, OSError)  # what a failed append raises: retry it later


def is_disk_full(error: BaseException) -> bool:
    """Whether ``error`` says the disk (or the database's page limit) is full.

    >>> is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
    True
    >>> is_disk_full(sqlite3.OperationalError("database or disk is full"))
    True
    """
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if isinstance(error, sqlite3.Error):
        code = getattr(error, "sqlite_errorcode", None)
        return code == sqlite3.SQLITE_FULL or "full" in str(error).lower()
    return False


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    payload BLOB NOT NULL
);
"""
# No UNIQUE index on ``id`` (outboxes made before had one, and keep it): ids are random and made
# here, nothing looks an event up by id, and the index cost a page in the WAL at every append, at a
# random place in the file (the id is in the payload too). bench/table_writes.py measures it.


def _connect_checked(path: Path) -> sqlite3.Connection:
    """A connection in WAL mode, after a quick integrity check (a truncated or scribbled file
    fails it)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    try:
        _setup(conn)
        row = conn.execute("PRAGMA quick_check").fetchone()
        if row is None or row[0] != "ok":
            raise sqlite3.DatabaseError(f"integrity check: {row[0] if row else 'no answer'}")
    except BaseException:
        conn.close()
        raise
    return conn


def _check_meta(path: Path, table: str, meta: dict[str, str], top: Any) -> tuple[str, int, int]:
    """``(stream, acked, last_seq)`` of a whole outbox's meta, or :class:`OutboxError`."""
    if meta.get("table") != table:
        raise OutboxError(f"{path} is table {meta.get('table')!r}'s outbox, not {table!r}'s")
    stream = meta.get("stream")
    if not isinstance(stream, str) or not 0 < len(stream) <= 64:
        raise OutboxError(f"{path}: no usable stream id ({stream!r})")
    numbers = {}
    for key in ("acked", "last_seq", "bdseq"):
        text = meta.get(key, "")
        if not (isinstance(text, str) and text.isascii() and text.isdigit() and len(text) < 19):
            raise OutboxError(f"{path}: {key} is {text!r}, not a count")
        numbers[key] = int(text)
    if numbers["acked"] > numbers["last_seq"]:
        raise OutboxError(
            f"{path}: acked {numbers['acked']} is beyond last_seq {numbers['last_seq']}"
        )
    if top is not None and (not isinstance(top, int) or top > numbers["last_seq"]):
        raise OutboxError(f"{path}: holds event {top!r} beyond last_seq {numbers['last_seq']}")
    return stream, numbers["acked"], numbers["last_seq"]


PAGE_SIZE = 1024
"""The page size of a new outbox. Each commit writes every page it touched to the WAL, whole: an
append touches two or three (the event's leaf, the meta row with the snapshot), so 4 KiB pages
wrote ~18 KiB per event and 1 KiB pages write ~8 KiB (bench/table_writes.py). Set before the
file has its first page; an outbox made earlier keeps its own."""


def _setup(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA page_size={PAGE_SIZE}")  # (a no-op on a file that exists)
    conn.execute("PRAGMA journal_mode=WAL")
    # FULL: the WAL is fsynced at every commit, so a power cut never loses a committed event.
    conn.execute("PRAGMA synchronous=FULL")
    # Checkpoint every 256 KiB of WAL and cut the WAL back after it: left to its defaults
    # (4 MiB before a checkpoint) the WAL alone would fill a small partition, and a WAL that
    # filled the disk can never be checkpointed out of it. (In pages of this file's size.)
    page = int(conn.execute("PRAGMA page_size").fetchone()[0])
    conn.execute(f"PRAGMA wal_autocheckpoint={max(16, 256 * 1024 // page)}")
    conn.execute("PRAGMA journal_size_limit=524288")


class Outbox:
    """The events a table has produced, in order, with what the hub has acknowledged."""

    # What :meth:`open` found wrong with a damaged outbox it moved aside (None when whole).
    rebuilt: dict[str, Any] | None = None

    def __init__(self, path: str | Path, table: str, *, retain_acked: int = 10_000) -> None:
        self.path = Path(path)
        self.table = check_table_id(table)
        self.retain_acked = retain_acked
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._held = _hold(self.path)
        try:
            self._db = _connect_checked(self.path)
        except BaseException:
            os.close(self._held)
            raise
        try:
            with self._lock:
                self._db.executescript(_SCHEMA)
                with self._transaction():
                    meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
                    if not meta:
                        meta = {
                            "table": table,
                            "stream": new_id()[:16],
                            "acked": "0",
                            "last_seq": "0",
                            "bdseq": "0",
                        }
                        self._db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
                top = self._db.execute("SELECT MAX(seq) FROM outbox").fetchone()[0]
            self.stream, self._acked, self._last_seq = _check_meta(self.path, table, meta, top)
        except BaseException:
            self._db.close()
            os.close(self._held)
            raise

    @classmethod
    def open(
        cls, path: str | Path, table: str, *, retain_acked: int = 10_000, wall: float | None = None
    ) -> Outbox:
        """The outbox at ``path``; a damaged one (not SQLite, truncated, inconsistent, another
        table's) is moved aside as ``<name>.damaged-<UTC time>`` and a fresh one (a new stream)
        takes its place, with :attr:`rebuilt` saying why. A table always starts.

        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "outbox.sqlite3"
        >>> _ = path.write_bytes(b"not a database at all" * 100)
        >>> box = Outbox.open(path, "3")
        >>> box.rebuilt["reason"], box.last_seq
        ('not an outbox (file is not a database)', 0)
        >>> box.close()
        """
        path = Path(path)
        try:
            return cls(path, table, retain_acked=retain_acked)
        except (OutboxError, sqlite3.Error) as e:
            reason = str(e) if isinstance(e, OutboxError) else f"not an outbox ({e})"
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(wall))
        aside = path.with_name(f"{path.name}.damaged-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(f"{path}{suffix}")
            if src.exists():
                os.replace(src, Path(f"{aside}{suffix}"))
        log.error(
            "outbox %s is damaged (%s): moved to %s, starting a fresh one", path, reason, aside
        )
        box = cls(path, table, retain_acked=retain_acked)
        box.rebuilt = {"reason": reason[:200], "moved_to": aside.name}
        return box

    # ── writing ─────────────────────────────────────────────────────────
    def append(
        self,
        events: Sequence[tuple[str, dict[str, Any], float]],
        *,
        ts: float,
        snapshot: dict[str, Any] | None = None,
        epoch: int | None = None,
    ) -> list[EventEnvelope]:
        """Number and store ``(type, data, t)`` events (and the snapshot after them) in one
        transaction; return their envelopes, ready to publish. ``epoch`` is the fencing token
        of the assignment they belong to, carried on each envelope."""
        with self._lock:
            seq = self._last_seq
            out = []
            for type_name, data, t in events:
                seq += 1
                out.append(
                    EventEnvelope.build(
                        self.table, self.stream, seq, type_name, data, ts=ts, t=t, epoch=epoch
                    )
                )
            # All or nothing: on failure (a full disk) the sequence does not advance, and the
            # caller appends the same events again later under the same numbers.
            with self._transaction():
                self._db.executemany(
                    "INSERT INTO outbox (seq, id, payload) VALUES (?, ?, ?)",
                    [(e.seq, e.id, e.to_payload()) for e in out],
                )
                self._set("last_seq", str(seq))
                if snapshot is not None:
                    self._set("snapshot", json.dumps(snapshot, separators=(",", ":")))
            self._last_seq = seq
            return out

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """(With the lock.) BEGIN IMMEDIATE … COMMIT; ROLLBACK on any error, and a ROLLBACK that
        fails too (SQLite already rolled back after SQLITE_FULL) never hides the first error."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException as error:
            if self._db.in_transaction:
                try:
                    self._db.execute("ROLLBACK")
                except sqlite3.Error as second:
                    error.add_note(f"the ROLLBACK after it failed too: {second}")
            raise

    def ack(self, stream: str, seq: int) -> int:
        """Record that the hub committed ``stream`` up to ``seq``; return the acked mark.

        Acks for another stream, or beyond what was ever appended, change nothing.
        """
        with self._lock:
            if stream != self.stream or seq <= self._acked or seq > self._last_seq:
                return self._acked
            # Not fsynced on its own (synchronous=NORMAL for this commit): the WAL keeps it in
            # order and the next append's sync (FULL) makes it durable with it. A power cut in
            # between loses only the mark; the table then sends those events again and the hub
            # drops what it already holds. A commit fewer per event on the SD card.
            self._db.execute("PRAGMA synchronous=NORMAL")
            try:
                with self._transaction():
                    self._set("acked", str(seq))
                    if self.retain_acked >= 0:
                        self._db.execute(
                            "DELETE FROM outbox WHERE seq <= ?", (seq - self.retain_acked,)
                        )
            finally:
                self._db.execute("PRAGMA synchronous=FULL")
            self._acked = seq
            return seq

    def next_bdseq(self) -> int:
        """Count one more connection (birth/death sequence), durably."""
        with self._lock:
            value = int(self._get("bdseq") or 0) + 1
            try:
                with self._transaction():
                    self._set("bdseq", str(value))
            except STORAGE_ERRORS as e:
                # A full disk: this connection's count is not durable, the next one will be;
                # the hub only compares counts, so reusing one after a restart is harmless.
                log.warning("outbox: the connection count is not stored (%s)", e)
            return value

    def set_meta(self, key: str, value: str) -> None:
        with self._lock, self._transaction():
            self._set(key, value)

    def get_meta(self, key: str) -> str | None:
        with self._lock:
            return self._get(key)

    def _set(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def _get(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    # ── reading ─────────────────────────────────────────────────────────
    @property
    def acked(self) -> int:
        return self._acked

    @property
    def last_seq(self) -> int:
        return self._last_seq

    @property
    def pending(self) -> int:
        """How many events the hub has not acknowledged yet."""
        return self._last_seq - self._acked

    def unacked(self, from_seq: int | None = None, limit: int = -1) -> list[EventEnvelope]:
        """Unacknowledged events from ``from_seq`` on, in order."""
        start = max(self._acked + 1, from_seq or 0)
        with self._lock:
            rows = self._db.execute(
                "SELECT payload FROM outbox WHERE seq >= ? ORDER BY seq LIMIT ?", (start, limit)
            ).fetchall()
        return [decode(EventEnvelope, row[0]) for row in rows]

    def unacked_payloads(self, from_seq: int, limit: int) -> list[tuple[int, bytes]]:
        """``(seq, payload)`` of unacknowledged events from ``from_seq`` on (no decoding)."""
        start = max(self._acked + 1, from_seq)
        with self._lock:
            return self._db.execute(
                "SELECT seq, payload FROM outbox WHERE seq >= ? ORDER BY seq LIMIT ?",
                (start, limit),
            ).fetchall()

    def snapshot(self) -> dict[str, Any] | None:
        """The table's snapshot as of the last stored event (None before the first)."""
        text = self.get_meta("snapshot")
        try:
            value = json.loads(text) if text else None
        except ValueError:
            return None  # a scribbled snapshot: the journal knows the table's state anyway
        return value if isinstance(value, dict) else None

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._held >= 0:
                os.close(self._held)
                self._held = -1

    @staticmethod
    def read_all(path: str | Path) -> tuple[str, str, list[EventEnvelope]]:
        """``(table, stream, every stored envelope)`` of an outbox file, read-only; safe while
        its table runs (the checker of the fault runs uses it)."""
        conn = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True, timeout=30)
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            rows = conn.execute("SELECT payload FROM outbox ORDER BY seq").fetchall()
        finally:
            conn.close()
        return meta["table"], meta["stream"], [decode(EventEnvelope, r[0]) for r in rows]
