"""The domino events (either format) in the hub's SQLite file (tables prefixed ``d_``).

An event's state is one JSON row, written in the same transaction as its new audit lines; the
audit table is append-only (triggers refuse UPDATE and DELETE), as the backgammon one. The
format is in the JSON (``"format"``: ``pairs`` or ``individual``; none: a pairs tournament of
the first shape, read into records by :meth:`PairsTournament.from_dict`).
WAL journal and ``synchronous=FULL``: a recorded game survives a power cut.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "hub.sqlite3")
>>> t = PairsTournament("D1", "Dominó")
>>> _ = t.register_pair("a", "b", ("A", "B"), actor="director", at="20:00")
>>> with PairsStore(path) as store:
...     store.save(t)
...     [p.name for p in store.load("D1").pairs.values()], len(store.audit("D1"))
...     store.summaries()
(['A / B'], 1)
[('D1', 'Dominó', 'registration', 0)]
>>> i = IndividualTournament("D2", "Individual")
>>> _ = i.register_player("a", "A", actor="director", at="20:00")
>>> with PairsStore(path) as store:
...     store.save(i)
...     type(store.load("D2")).__name__, store.formats()
('IndividualTournament', {'D1': 'pairs', 'D2': 'individual'})
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from types import TracebackType
from typing import Any

from mesa.games.domino.event import DominoEvent
from mesa.games.domino.individual import IndividualTournament
from mesa.games.domino.pairs import PairsTournament

__all__ = ["DominoStore", "PairsStore", "event_from_dict"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS d_tournaments (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, phase TEXT NOT NULL, created REAL NOT NULL,
    state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS d_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS d_audit (
    tournament_id TEXT NOT NULL, seq INTEGER NOT NULL, at TEXT NOT NULL, actor TEXT NOT NULL,
    action TEXT NOT NULL, details TEXT NOT NULL, PRIMARY KEY (tournament_id, seq));
CREATE TRIGGER IF NOT EXISTS d_audit_no_update BEFORE UPDATE ON d_audit
    BEGIN SELECT RAISE(ABORT, 'd_audit is append-only'); END;
CREATE TRIGGER IF NOT EXISTS d_audit_no_delete BEFORE DELETE ON d_audit
    BEGIN SELECT RAISE(ABORT, 'd_audit is append-only'); END;
"""


def event_from_dict(d: dict[str, Any]) -> DominoEvent:
    """An event of either format from its JSON (no format: the pairs' first shape)."""
    if d.get("format") == "individual":
        return IndividualTournament.from_dict(d)
    return PairsTournament.from_dict(d)


class DominoStore:
    """See the module docstring. One connection: use it from one thread (the desk's)."""

    def __init__(self, path: str | Path) -> None:
        self.db = sqlite3.connect(str(path), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> DominoStore:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def save(self, t: DominoEvent) -> None:
        """The state and the audit lines not yet stored, in one transaction."""
        data = t.to_dict()
        audit = data.pop("audit")
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute(
                "INSERT INTO d_tournaments(id, name, phase, created, state) "
                "VALUES (?, ?, ?, julianday('now'), ?) ON CONFLICT(id) DO UPDATE SET "
                "name = excluded.name, phase = excluded.phase, state = excluded.state",
                (t.id, t.name, t.phase, json.dumps(data)),
            )
            (stored,) = self.db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM d_audit WHERE tournament_id = ?", (t.id,)
            ).fetchone()
            for a in audit[stored:]:
                self.db.execute(
                    "INSERT INTO d_audit VALUES (?, ?, ?, ?, ?, ?)",
                    (t.id, a["seq"], a["at"], a["actor"], a["action"], json.dumps(a["details"])),
                )
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def audit(self, tid: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT seq, at, actor, action, details FROM d_audit WHERE tournament_id = ? "
            "ORDER BY seq", (tid,)
        ).fetchall()
        return [
            {"seq": s, "at": at, "actor": ac, "action": an, "details": json.loads(d)}
            for s, at, ac, an, d in rows
        ]

    def load(self, tid: str) -> Any:
        """The event ``tid`` (a :class:`PairsTournament` or an :class:`IndividualTournament`;
        typed ``Any`` so the desk of pairs reads it as before), None if there is none."""
        row = self.db.execute("SELECT state FROM d_tournaments WHERE id = ?", (tid,)).fetchone()
        if row is None:
            return None
        data = json.loads(row[0])
        data["audit"] = self.audit(tid)
        return event_from_dict(data)

    def formats(self) -> dict[str, str]:
        """Every event's format by id, oldest first (the first shape's: ``pairs``)."""
        return {
            tid: fmt or "pairs"
            for tid, fmt in self.db.execute(
                "SELECT id, json_extract(state, '$.format') FROM d_tournaments "
                "ORDER BY created, id")
        }

    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM d_meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        self.db.execute(
            "INSERT INTO d_meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, json.dumps(value))
        )

    def summaries(self) -> list[tuple[str, str, str, int]]:
        """Every tournament's id, name, phase and rounds started, oldest first (without
        reading their states into tournaments)."""
        return [
            (tid, name, phase, int(rounds or 0))
            for tid, name, phase, rounds in self.db.execute(
                "SELECT id, name, phase, json_array_length(state, '$.rounds') "
                "FROM d_tournaments ORDER BY created, id")
        ]

    def ids(self) -> list[str]:
        """Every tournament, oldest first."""
        return [r[0] for r in self.db.execute("SELECT id FROM d_tournaments ORDER BY created, id")]


PairsStore = DominoStore  # the name of the pairs-only store, which the desk uses
