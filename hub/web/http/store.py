"""What the web layer keeps in SQLite: director accounts, sessions and the audit log.

The tables live in the hub's database file (prefixed ``web_``) so a backup of that one file
holds everything; the web layer opens its own connection and never touches the event log.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "hub.sqlite")
>>> ws = WebStore(path, now=lambda: 1000.0)
>>> ws.set_password("director", "tablero", cost=2**10)
>>> ws.check_password("director", "tablero"), ws.check_password("director", "x")
(True, False)
>>> token, csrf = ws.open_session("director")
>>> ws.session(token).user
'director'
>>> ws.audit("director", "pause", target="table 3", reason="disputa", params={"table": "3"})
1
>>> [(e.user, e.action, e.reason) for e in ws.audit_log()]
[('director', 'pause', 'disputa')]
>>> ws.close()
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mesa.hub.web.http.auth import SCRYPT_N, hash_password, new_token, token_digest, verify_password

SCHEMA = """
CREATE TABLE IF NOT EXISTS web_directors (
    name TEXT PRIMARY KEY,
    password TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS web_sessions (
    token TEXT PRIMARY KEY,          -- sha256 of the cookie value
    user TEXT NOT NULL,
    csrf TEXT NOT NULL,
    created REAL NOT NULL,
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS web_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,                -- ISO 8601, UTC
    user TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    params TEXT NOT NULL DEFAULT '{}',
    outcome TEXT NOT NULL DEFAULT 'ok',  -- ok or refused
    detail TEXT NOT NULL DEFAULT '',
    address TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS web_checkins (
    tournament_id TEXT NOT NULL,
    player_id TEXT NOT NULL,
    present INTEGER NOT NULL,
    at TEXT NOT NULL,
    by TEXT NOT NULL,
    PRIMARY KEY (tournament_id, player_id)
);
"""


@dataclass(frozen=True)
class Session:
    user: str
    csrf: str
    expires: float


@dataclass(frozen=True)
class AuditEntry:
    """One director action: who, what, on what, why, with which values, and how it went."""

    id: int
    at: str
    user: str
    action: str
    target: str
    reason: str
    params: dict[str, Any]
    outcome: str
    detail: str
    address: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class WebStore:
    """Director accounts, sessions and the audit log in one SQLite file (WAL, thread-safe)."""

    def __init__(
        self,
        path: str | Path,
        *,
        session_hours: float = 12.0,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.path = str(path)
        self.session_seconds = session_hours * 3600.0
        self._now = now
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ── director accounts ──
    def set_password(self, name: str, password: str, *, cost: int = SCRYPT_N) -> None:
        """Create the account ``name`` or change its password."""
        if not name.strip() or not password:
            raise ValueError("a director needs a name and a password")
        hashed = hash_password(password, cost=cost)
        with self._lock:
            self._db.execute(
                "INSERT INTO web_directors(name, password, created_at) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET password = excluded.password",
                (name.strip(), hashed, _iso(self._now())),
            )

    def has_directors(self) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM web_directors LIMIT 1").fetchone() is not None

    def check_password(self, name: str, password: str) -> bool:
        with self._lock:
            row = self._db.execute(
                "SELECT password FROM web_directors WHERE name = ?", (name.strip(),)
            ).fetchone()
        # Hash anyway when the user is unknown, so timing does not reveal which names exist.
        stored = row[0] if row else _DUMMY_HASH
        ok = verify_password(password, stored)
        return ok and row is not None

    # ── sessions ──
    def open_session(self, user: str) -> tuple[str, str]:
        """A new session for ``user``: ``(cookie value, CSRF token)``."""
        token, csrf = new_token(), new_token()
        now = self._now()
        with self._lock:
            self._db.execute("DELETE FROM web_sessions WHERE expires < ?", (now,))
            self._db.execute(
                "INSERT INTO web_sessions(token, user, csrf, created, expires) VALUES (?,?,?,?,?)",
                (token_digest(token), user, csrf, now, now + self.session_seconds),
            )
        return token, csrf

    def session(self, token: str | None) -> Session | None:
        if not token:
            return None
        with self._lock:
            row = self._db.execute(
                "SELECT user, csrf, expires FROM web_sessions WHERE token = ?",
                (token_digest(token),),
            ).fetchone()
        if row is None or row[2] < self._now():
            return None
        return Session(row[0], row[1], row[2])

    def close_session(self, token: str | None) -> None:
        if not token:
            return
        with self._lock:
            self._db.execute("DELETE FROM web_sessions WHERE token = ?", (token_digest(token),))

    # ── check-in at the venue (before the draw) ──
    def set_checkin(self, tournament_id: str, player_id: str, present: bool, by: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO web_checkins(tournament_id, player_id, present, at, by) "
                "VALUES (?,?,?,?,?) ON CONFLICT(tournament_id, player_id) DO UPDATE SET "
                "present = excluded.present, at = excluded.at, by = excluded.by",
                (tournament_id, player_id, int(present), _iso(self._now()), by),
            )

    def set_checkins(
        self, tournament_id: str, player_ids: list[str], present: bool, by: str
    ) -> None:
        """Mark many players at once (one transaction: all or none)."""
        at = _iso(self._now())
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany(
                    "INSERT INTO web_checkins(tournament_id, player_id, present, at, by) "
                    "VALUES (?,?,?,?,?) ON CONFLICT(tournament_id, player_id) DO UPDATE SET "
                    "present = excluded.present, at = excluded.at, by = excluded.by",
                    [(tournament_id, p, int(present), at, by) for p in player_ids],
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def checkins(self, tournament_id: str) -> dict[str, bool]:
        """``{player id: present}`` for the players the director marked."""
        with self._lock:
            rows = self._db.execute(
                "SELECT player_id, present FROM web_checkins WHERE tournament_id = ?",
                (tournament_id,),
            ).fetchall()
        return {r[0]: bool(r[1]) for r in rows}

    # ── the audit log ──
    def audit(
        self,
        user: str,
        action: str,
        *,
        target: str = "",
        reason: str = "",
        params: dict[str, Any] | None = None,
        outcome: str = "ok",
        detail: str = "",
        address: str = "",
    ) -> int:
        """Append one entry; returns its id. Entries are never changed or deleted."""
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO web_audit(at, user, action, target, reason, params, outcome, detail,"
                " address) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    _iso(self._now()),
                    user,
                    action,
                    target,
                    reason,
                    json.dumps(params or {}, ensure_ascii=False, sort_keys=True, default=str),
                    outcome,
                    detail,
                    address,
                ),
            )
            return int(cur.lastrowid or 0)

    def audit_log(self, limit: int = 500, action: str | None = None) -> list[AuditEntry]:
        """The newest ``limit`` entries, newest first."""
        sql = "SELECT * FROM web_audit"
        args: tuple[Any, ...] = ()
        if action:
            sql += " WHERE action = ?"
            args = (action,)
        sql += " ORDER BY id DESC LIMIT ?"
        with self._lock:
            rows = self._db.execute(sql, (*args, limit)).fetchall()
        return [
            AuditEntry(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), r[7], r[8], r[9])
            for r in rows
        ]


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


_DUMMY_HASH = hash_password("not a password", cost=SCRYPT_N)
