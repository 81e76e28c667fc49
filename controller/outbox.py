"""The table's durable outbox: every event it emits, numbered, on disk before it is sent.

paho keeps its session only in memory and Mosquitto drops QoS 1 messages beyond its queue limit,
so this file is the source of truth for what the hub still has to receive. One SQLite file in WAL
mode with ``synchronous=FULL``: a committed append survives ``kill -9`` and a power cut. Each
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

import json
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mesa.errors import MesaError
from mesa.protocol import EventEnvelope, check_table_id, decode, new_id


class OutboxError(MesaError):
    """The outbox file is unusable (another table's, or not an outbox)."""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    payload BLOB NOT NULL
);
"""


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    # FULL: the WAL is fsynced at every commit, so a power cut never loses a committed event.
    conn.execute("PRAGMA synchronous=FULL")
    return conn


class Outbox:
    """The events a table has produced, in order, with what the hub has acknowledged."""

    def __init__(self, path: str | Path, table: str, *, retain_acked: int = 10_000) -> None:
        self.path = Path(path)
        self.table = check_table_id(table)
        self.retain_acked = retain_acked
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = _connect(self.path)
        with self._lock:
            self._db.executescript(_SCHEMA)
            self._db.execute("BEGIN IMMEDIATE")
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
            self._db.execute("COMMIT")
        if meta["table"] != table:
            self._db.close()
            raise OutboxError(f"{self.path} is table {meta['table']!r}'s outbox, not {table!r}'s")
        self.stream: str = meta["stream"]
        self._acked = int(meta["acked"])
        self._last_seq = int(meta["last_seq"])

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
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT INTO outbox (seq, id, payload) VALUES (?, ?, ?)",
                    [(e.seq, e.id, e.to_payload()) for e in out],
                )
                self._set("last_seq", str(seq))
                if snapshot is not None:
                    self._set("snapshot", json.dumps(snapshot, separators=(",", ":")))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._last_seq = seq
            return out

    def ack(self, stream: str, seq: int) -> int:
        """Record that the hub committed ``stream`` up to ``seq``; return the acked mark.

        Acks for another stream, or beyond what was ever appended, change nothing.
        """
        with self._lock:
            if stream != self.stream or seq <= self._acked or seq > self._last_seq:
                return self._acked
            self._db.execute("BEGIN IMMEDIATE")
            self._set("acked", str(seq))
            if self.retain_acked >= 0:
                self._db.execute("DELETE FROM outbox WHERE seq <= ?", (seq - self.retain_acked,))
            self._db.execute("COMMIT")
            self._acked = seq
            return seq

    def next_bdseq(self) -> int:
        """Count one more connection (birth/death sequence), durably."""
        with self._lock:
            value = int(self._get("bdseq") or 0) + 1
            self._db.execute("BEGIN IMMEDIATE")
            self._set("bdseq", str(value))
            self._db.execute("COMMIT")
            return value

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            self._set(key, value)
            self._db.execute("COMMIT")

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
        return json.loads(text) if text else None

    def close(self) -> None:
        with self._lock:
            self._db.close()

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
