"""Adopting a table: a new Pi calls the hub, the director gives it a number and its code, the
hub answers to that Pi alone.

A new table's Pi carries only the venue's enrolment bundle (the dashboard's address, the venue
CA and the venue's enrolment token, the same on every SD card). On first boot it makes its own
key pair (:mod:`mesa.pairing`); every few seconds it calls the hub's dashboard, ``POST
/enrol/hello`` (:mod:`mesa.hub.web.http.enrol`), with its serial, its public key and its
hardware check; the hub names the announcement by the key (:func:`~mesa.pairing.enrolment_id`)
and the Pi's screen shows the pairing code derived from the key ("Mesa nueva · código
4F7-2K9"). :class:`EnrolmentDesk` keeps the waiting list ("Mesa nueva") in the hub's store
(:meth:`EnrolmentDesk.hello`); the director adopts by table number *and* code
(:meth:`EnrolmentDesk.adopt`, from the dashboard or ``mesa adopt``): the desk creates the
table's broker account (a new password; a replaced Pi's old one stops working), reloads the
broker and keeps, in the store, the table's link file sealed to the Pi's key, which the Pi's
next call receives: only that Pi can open it. Once the table comes online with its new account
(the desk reads the tables' statuses on the broker) the sealed answer is deleted.

Nothing of enrolment runs on the broker: no listener, no shared account, so no enrolment
client has a session to take or to lose (docs/broker.md, "Adopting a table").

Taking over a number that already has a Pi (online, offline, or adopted a moment ago and not yet
online) needs a confirmation that names that Pi (:class:`Occupant`), the same for the dashboard
and ``mesa adopt``; every adoption, refused or done, is in the store's ``enrol_audit``.

The waiting list is bounded (:data:`MAX_PENDING`; :data:`MAX_PER_SERIAL` claims of one serial,
:data:`MAX_PER_SOURCE` announcements from one network address, the caller's address as the
hub's server sees it); an announcement not repeated within :data:`STALE_SECONDS` leaves it, an
adopted one leaves it at once, the director can dismiss one; what the list refused is counted
and shown (``refusals``). A flood costs bounded work: one address is answered at most
:data:`SOURCE_RATE` calls a second, and a repeated announcement touches the store at most once
every :data:`WRITE_SECONDS`.

>>> enrol_topic("k" + "0" * 40, "answer")
'mesa/v1/enrol/k0000000000000000000000000000000000000000/answer'
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import os
import re
import secrets
import sqlite3
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from mesa.errors import MesaError
from mesa.hub.broker.accounts import queue_account, wait_applied
from mesa.hub.broker.mosquitto import ENROL_DESK_USERNAME, set_password
from mesa.hub.broker.provision import link_config, reload_broker, write_private
from mesa.hub.store_version import enrolment_keys
from mesa.pairing import (
    PairingError,
    answer_key,
    b64,
    enrolment_id,
    normalize_code,
    pairing_code,
    unb64,
)
from mesa.protocol import NAMESPACE, ProtocolError, check_table_id

log = logging.getLogger(__name__)

SERIAL_RE = re.compile(r"[0-9a-z][0-9a-z_-]{0,63}")
ID_RE = re.compile(r"k[0-9a-f]{40}")
MAX_HELLO_BYTES = 4096
# A venue has tens of tables: a longer list helps no director and is someone flooding the port.
MAX_PENDING = 64
# A serial is the Pi's own word: a second claim of it (an impostor beside the genuine Pi, told
# apart by the code on the screen) is listed; more are a flood.
MAX_PER_SERIAL = 2
# One network address announces at most this many Pis (a bench setting up a few through one
# router is fine; a flood from one machine is not).
MAX_PER_SOURCE = 8
# A waiting Pi announces itself again every few seconds (controller/enrol.py, POLL_SECONDS;
# the desk's answer says how often, CALL_EVERY): one that has not for this long is gone
# (switched off, or a one-off announcement).
CALL_EVERY = 5.0
STALE_SECONDS = 90.0
# A repeated announcement with nothing new is written to the store at most this often: a
# caller repeating one announcement as fast as it can costs no SQLite writes.
WRITE_SECONDS = 5.0
# Calls one network address may make a second (a bucket of SOURCE_BURST): a bench of a few Pis
# behind one router makes a handful a minute; more is a flood, answered 429 before any work.
SOURCE_RATE = 5.0
SOURCE_BURST = 20.0
# How long a 429 asks the caller to wait (Retry-After), by reason.
RETRY_AFTER = {"full": 30, "serial": 30, "source": 10, "dismissed": 600}
# A full list makes room by dropping an announcement never repeated and older than this: a real
# Pi would have announced itself again by then.
UNPROVEN_SECONDS = 30.0
# The sealed answer's associated data names the Pi it answers: the topic of the answer when it
# travelled over MQTT, kept so that mesa/pairing.py and its vectors stay as they are.
KINDS = ("hello", "answer")
# How long an adoption waits for root's `mesa apply-accounts` to take the queued account.
ACCOUNT_WAIT_SECONDS = 15.0


class EnrolmentError(MesaError):
    """An adoption refused: unknown code, bad table number, a number taken, broker unreachable.
    ``code`` says which (for the dashboard's words), ``params`` the facts it names."""

    def __init__(self, message: str, code: str = "refused", /, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


def check_serial(serial: Any) -> str:
    """A Pi's serial as it announces it (lowercase hex and the like).

    >>> check_serial("10000000abcdef01")
    '10000000abcdef01'
    """
    if not isinstance(serial, str) or not SERIAL_RE.fullmatch(serial):
        raise EnrolmentError(f"serial {serial!r} must be 1-64 of a-z 0-9 _ -", "bad_serial")
    return serial


def check_code(code: Any) -> str:
    """A pairing code as the director typed it, in its shown form.

    >>> check_code("4f7 2k9")
    '4F7-2K9'
    """
    try:
        return normalize_code(code)
    except PairingError as e:
        raise EnrolmentError(str(e), "bad_code") from None


def check_adoptable_table(table_id: Any) -> str:
    """A table id a new Pi may be given (the protocol's rule: it also keeps the broker's own
    accounts, all ``mesa*``, out of reach); :class:`EnrolmentError` if not.

    >>> check_adoptable_table("7")
    '7'
    >>> check_adoptable_table("mesa-hub")
    Traceback (most recent call last):
      ...
    mesa.hub.broker.enrolment.EnrolmentError: bad_table: table id 'mesa-hub' must be 1-32 of a-z 0-9 _ - (not starting 'mesa')
    """
    try:
        check_table_id(table_id)
    except ProtocolError as e:
        raise EnrolmentError(str(e), "bad_table", table=str(table_id)[:40]) from None
    return str(table_id)


def enrol_topic(eid: str, kind: str) -> str:
    if kind not in KINDS:
        raise EnrolmentError(f"unknown enrolment topic {kind!r}")
    if not ID_RE.fullmatch(eid):
        raise EnrolmentError(f"not an enrolment id: {eid[:60]!r}")
    return f"{NAMESPACE}/enrol/{eid}/{kind}"


@dataclass(frozen=True)
class Hello:
    """One announcement: who it says it is, and the key it will be answered to."""

    eid: str
    serial: str
    public: bytes
    hwcheck: dict[str, str]

    @property
    def code(self) -> str:
        return pairing_code(self.public)


def parse_hello(payload: bytes | bytearray) -> Hello:
    """An announcement (the body of ``POST /enrol/hello``), checked; its id is named by its key,
    so no one can put a key under another Pi's id. :class:`EnrolmentError` if not one.

    >>> from mesa.pairing import public_key, b64
    >>> pub = public_key(bytes(32))
    >>> h = parse_hello(json.dumps({"serial": "abc1", "key": b64(pub)}).encode())
    >>> h.serial, h.eid == enrolment_id(pub), h.code == pairing_code(pub)
    ('abc1', True, True)
    >>> parse_hello(b"[]")
    Traceback (most recent call last):
      ...
    mesa.hub.broker.enrolment.EnrolmentError: announcement is not an object
    """
    if len(payload) > MAX_HELLO_BYTES:
        raise EnrolmentError("announcement too large", "too_large")
    try:
        data = json.loads(payload)
    except ValueError:
        raise EnrolmentError("announcement is not JSON", "malformed") from None
    if not isinstance(data, dict):
        raise EnrolmentError("announcement is not an object", "malformed")
    try:
        public = unb64(data.get("key"), 32)
    except PairingError as e:
        raise EnrolmentError(f"announcement's key: {e}", "bad_key") from None
    try:
        serial = check_serial(data.get("serial"))
    except EnrolmentError as e:
        raise EnrolmentError(str(e), "bad_serial") from None
    hw = data.get("hwcheck", {})
    if not isinstance(hw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in hw.items()
    ):
        raise EnrolmentError("hwcheck must map part names to results", "bad_hwcheck")
    hwcheck = {k[:32]: v[:200] for k, v in list(hw.items())[:16]}
    return Hello(enrolment_id(public), serial, public, hwcheck)


def seal_answer(hello: Hello, topic: str, answer: dict[str, Any]) -> bytes:
    """The link file sealed to the Pi's key (X25519 + ChaCha20-Poly1305 from ``cryptography``;
    the table opens it with :func:`mesa.pairing.open_sealed`), bound to ``topic``, the string
    naming the Pi it answers (:func:`enrol_topic` of its id, ``answer``)."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import (
        X25519PrivateKey,
        X25519PublicKey,
    )
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    eph = X25519PrivateKey.generate()
    eph_pub = eph.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    try:
        shared = eph.exchange(X25519PublicKey.from_public_bytes(hello.public))
        key = answer_key(shared, eph_pub, hello.public)
    except (ValueError, PairingError) as e:  # a low-order point: no table has such a key
        raise EnrolmentError(f"the table's key is unusable ({e})", "bad_key") from None
    nonce = os.urandom(12)
    box = ChaCha20Poly1305(key).encrypt(nonce, json.dumps(answer).encode(), topic.encode())
    return json.dumps({"v": 1, "epk": b64(eph_pub), "nonce": b64(nonce), "box": b64(box)}).encode()


# ── the hub's store: waiting and adopted tables ─────────────────────────────────────────
SCHEMA = """
CREATE TABLE IF NOT EXISTS enrol_pending (
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
);
CREATE TABLE IF NOT EXISTS enrol_adopted (
    eid TEXT PRIMARY KEY,
    serial TEXT NOT NULL,
    code TEXT NOT NULL,
    table_id TEXT NOT NULL,
    adopted_at REAL NOT NULL,
    cleared_at REAL,
    replaced_at REAL
);
CREATE TABLE IF NOT EXISTS enrol_requests (
    code TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    replace TEXT,
    requested_at REAL NOT NULL,
    done_at REAL,
    outcome TEXT
);
-- The sealed answers waiting for their Pi's next call (deleted once the table is online).
CREATE TABLE IF NOT EXISTS enrol_answers (
    eid TEXT PRIMARY KEY,
    sealed TEXT NOT NULL,
    sealed_at REAL NOT NULL,
    fetched_at REAL
);
CREATE TABLE IF NOT EXISTS enrol_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    by TEXT NOT NULL,
    code TEXT NOT NULL,
    serial TEXT NOT NULL,
    table_id TEXT NOT NULL,
    replaced TEXT NOT NULL,
    outcome TEXT NOT NULL
);
"""



@dataclass(frozen=True)
class Pending:
    eid: str
    serial: str
    code: str
    public: bytes
    hwcheck: dict[str, str]
    first_seen: float
    last_seen: float
    beats: int

    @property
    def hello(self) -> Hello:
        return Hello(self.eid, self.serial, self.public, self.hwcheck)


@dataclass(frozen=True)
class Adoption:
    eid: str
    serial: str
    code: str
    table_id: str
    adopted_at: float
    cleared_at: float | None
    replaced_at: float | None


@dataclass(frozen=True)
class AuditEntry:
    at: float
    by: str
    code: str
    serial: str
    table_id: str
    replaced: str
    outcome: str


@dataclass(frozen=True)
class Occupant:
    """The Pi a table number has: adopted here (``serial`` and ``code`` known) or a table the
    hub knows from its status alone. ``state``: ``online``, ``offline`` or ``adopted`` (its
    answer sent, not online yet). ``token`` is what a confirmation must name to replace it."""

    table_id: str
    state: str
    serial: str | None = None
    code: str | None = None
    eid: str | None = None

    @property
    def token(self) -> str:
        return self.serial if self.serial is not None else self.table_id


_PENDING_COLS = "eid, serial, code, pubkey, hwcheck, first_seen, last_seen, beats"
_ADOPTED_COLS = "eid, serial, code, table_id, adopted_at, cleared_at, replaced_at"


def _pending(row: tuple[Any, ...]) -> Pending:
    eid, serial, code, pub, hw, first, last, beats = row
    return Pending(eid, serial, code, unb64(pub), json.loads(hw), first, last, beats)


class EnrolmentStore:
    """The enrolment tables in the hub's SQLite store (their own tables, their own connection).

    >>> import tempfile, pathlib
    >>> from mesa.pairing import public_key
    >>> s = EnrolmentStore(pathlib.Path(tempfile.mkdtemp()) / "hub.sqlite3")
    >>> pub = public_key(bytes(32))
    >>> s.record_hello(Hello(enrolment_id(pub), "abc1", pub, {"display": "ok"}), now=5.0)
    'new'
    >>> [p.serial for p in s.pending(now=6.0)]
    ['abc1']
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        # The list's bounds (the module's constants; a test may shorten the times).
        self.max_pending = MAX_PENDING
        self.max_per_source = MAX_PER_SOURCE
        self.stale_seconds = STALE_SECONDS
        self.unproven_seconds = UNPROVEN_SECONDS
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._migrate()
        self._db.executescript(SCHEMA)
        if created and os.geteuid() == 0:
            # The desk and `mesa adopt` run as root; the store is the hub's (the owner of its
            # folder, /var/lib/mesa): a store created here must stay writable by the hub.
            # (SQLite itself gives its -wal and -shm files the database's owner.)
            st = self.path.parent.stat()
            with contextlib.suppress(OSError):
                os.chown(self.path, st.st_uid, st.st_gid)

    def _migrate(self) -> None:
        """A store from before pairing codes, opened here before the hub upgraded it (``mesa
        adopt`` on an old store): the store's own step 3 (:mod:`mesa.hub.store_version`)."""
        with self._db:
            enrolment_keys(self._db)

    def close(self) -> None:
        self._db.close()

    def record_hello(self, hello: Hello, now: float, source: str = "") -> str:
        """Take an announcement from network address ``source`` ("": not known): ``new``,
        ``again`` (a listed one repeated), ``answered`` (adopted, its sealed answer kept for its
        next call), or why the list refused it: ``dismissed``, ``serial`` (too many claims of its serial),
        ``source`` (too many from its address), ``full``."""
        with self._lock, self._db:
            self._prune(now)
            # Adopted, its answer kept for it. (Adopted without a kept answer, e.g. by a release
            # that answered over the broker, just before an upgrade: it waits to be adopted
            # again, and its number's takeover rule knows it is the same Pi.)
            adopted = self._db.execute(
                "SELECT 1 FROM enrol_adopted a JOIN enrol_answers n ON n.eid = a.eid"
                " WHERE a.eid = ? AND a.cleared_at IS NULL AND a.replaced_at IS NULL",
                (hello.eid,),
            ).fetchone()
            if adopted is not None:
                return "answered"
            row = self._db.execute(
                "SELECT dismissed_at FROM enrol_pending WHERE eid = ?", (hello.eid,)
            ).fetchone()
            if row is not None:
                if row[0] is not None:
                    return "dismissed"
                self._db.execute(
                    "UPDATE enrol_pending SET hwcheck = ?, last_seen = ?, beats = beats + 1"
                    " WHERE eid = ?",
                    (json.dumps(hello.hwcheck), now, hello.eid),
                )
                return "again"
            claims = self._db.execute(
                "SELECT count(*) FROM enrol_pending WHERE serial = ? AND dismissed_at IS NULL",
                (hello.serial,),
            ).fetchone()[0]
            if claims >= MAX_PER_SERIAL:
                return "serial"
            if source:
                same = self._db.execute(
                    "SELECT count(*) FROM enrol_pending WHERE source = ? AND dismissed_at IS NULL",
                    (source,),
                ).fetchone()[0]
                if same >= self.max_per_source:
                    return "source"
            listed = self._db.execute(
                "SELECT count(*) FROM enrol_pending WHERE dismissed_at IS NULL"
            ).fetchone()[0]
            if listed >= self.max_pending:
                unproven = self._db.execute(
                    "SELECT eid FROM enrol_pending WHERE dismissed_at IS NULL AND beats = 1"
                    " AND first_seen < ? ORDER BY first_seen LIMIT 1",
                    (now - self.unproven_seconds,),
                ).fetchone()
                if unproven is None:
                    return "full"
                self._db.execute("DELETE FROM enrol_pending WHERE eid = ?", unproven)
            self._db.execute(
                f"INSERT INTO enrol_pending ({_PENDING_COLS}, source, dismissed_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, NULL)",
                (
                    hello.eid,
                    hello.serial,
                    hello.code,
                    b64(hello.public),
                    json.dumps(hello.hwcheck),
                    now,
                    now,
                    source,
                ),
            )
            return "new"

    def _prune(self, now: float) -> None:
        # Stale announcements leave; a dismissal is kept a day (its Pi stays off the list).
        self._db.execute(
            "DELETE FROM enrol_pending WHERE (dismissed_at IS NULL AND last_seen < ?)"
            " OR (dismissed_at IS NOT NULL AND dismissed_at < ?)",
            (now - self.stale_seconds, now - 86400),
        )

    def dismiss(self, eid: str, now: float) -> bool:
        """The director took an announcement off the list; False if it was not listed."""
        with self._lock, self._db:
            cur = self._db.execute(
                "UPDATE enrol_pending SET dismissed_at = ? WHERE eid = ? AND dismissed_at IS NULL",
                (now, eid),
            )
            return cur.rowcount > 0

    def pending(self, now: float | None = None) -> list[Pending]:
        """The Pis waiting to be adopted, oldest first (stale and dismissed ones left out)."""
        now = time.time() if now is None else now
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_PENDING_COLS} FROM enrol_pending"
                " WHERE dismissed_at IS NULL AND last_seen >= ? ORDER BY first_seen",
                (now - self.stale_seconds,),
            ).fetchall()
        return [_pending(r) for r in rows]

    def with_code(self, code: str, now: float | None = None) -> list[Pending]:
        return [p for p in self.pending(now) if p.code == code]

    def adoptions(self) -> list[Adoption]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_ADOPTED_COLS} FROM enrol_adopted ORDER BY adopted_at"
            ).fetchall()
        return [Adoption(*r) for r in rows]

    def adoption_of(self, eid: str) -> Adoption | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_ADOPTED_COLS} FROM enrol_adopted WHERE eid = ?", (eid,)
            ).fetchone()
        return None if row is None else Adoption(*row)

    def holder(self, table_id: str) -> Adoption | None:
        """The Pi last adopted as ``table_id`` and not replaced since."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {_ADOPTED_COLS} FROM enrol_adopted WHERE table_id = ?"
                " AND replaced_at IS NULL ORDER BY adopted_at DESC LIMIT 1",
                (table_id,),
            ).fetchone()
        return None if row is None else Adoption(*row)

    def record_adoption(
        self, p: Pending, table_id: str, now: float, sealed: bytes = b""
    ) -> list[Adoption]:
        """``p`` is ``table_id`` now, its answer ``sealed`` (kept for its next call); it leaves
        the list. Returns the adoptions it replaces (the number's earlier Pis, whose unread
        answers are deleted: their passwords no longer work)."""
        with self._lock, self._db:
            replaced = [
                Adoption(*r)
                for r in self._db.execute(
                    f"SELECT {_ADOPTED_COLS} FROM enrol_adopted WHERE table_id = ?"
                    " AND replaced_at IS NULL AND eid != ?",
                    (table_id, p.eid),
                ).fetchall()
            ]
            self._db.execute(
                "UPDATE enrol_adopted SET replaced_at = ? WHERE table_id = ?"
                " AND replaced_at IS NULL AND eid != ?",
                (now, table_id, p.eid),
            )
            self._db.executemany(
                "DELETE FROM enrol_answers WHERE eid = ?", [(a.eid,) for a in replaced]
            )
            self._db.execute("DELETE FROM enrol_answers WHERE eid = ?", (p.eid,))
            if sealed:
                self._db.execute(
                    "INSERT INTO enrol_answers (eid, sealed, sealed_at) VALUES (?, ?, ?)",
                    (p.eid, sealed.decode("ascii"), now),
                )
            self._db.execute(
                f"INSERT OR REPLACE INTO enrol_adopted ({_ADOPTED_COLS})"
                " VALUES (?, ?, ?, ?, ?, NULL, NULL)",
                (p.eid, p.serial, p.code, table_id, now),
            )
            self._db.execute("DELETE FROM enrol_pending WHERE eid = ?", (p.eid,))
            return replaced

    def answer_for(self, eid: str) -> bytes | None:
        """The sealed answer waiting for the Pi of ``eid`` (None: not adopted, or already
        online, or replaced)."""
        with self._lock:
            row = self._db.execute(
                "SELECT n.sealed FROM enrol_answers n JOIN enrol_adopted a ON a.eid = n.eid"
                " WHERE n.eid = ? AND a.cleared_at IS NULL AND a.replaced_at IS NULL",
                (eid,),
            ).fetchone()
        return None if row is None else str(row[0]).encode("ascii")

    def answer_fetched(self, eid: str, now: float) -> None:
        """The answer of ``eid`` was handed to a caller with its key (the first time counts)."""
        with self._lock, self._db:
            self._db.execute(
                "UPDATE enrol_answers SET fetched_at = ? WHERE eid = ? AND fetched_at IS NULL",
                (now, eid),
            )

    def uncleared(self, table_id: str) -> list[str]:
        """Enrolment ids adopted as ``table_id`` and not online yet whose answer may go once
        the table is online: it was fetched (or none is kept). An answer not fetched yet stays
        whatever statuses arrive: until the broker's reload has dropped it, the replaced Pi may
        still say "online" on the same topic, and that must not take the new Pi's answer."""
        with self._lock:
            rows = self._db.execute(
                "SELECT a.eid FROM enrol_adopted a LEFT JOIN enrol_answers n ON n.eid = a.eid"
                " WHERE a.table_id = ? AND a.cleared_at IS NULL AND a.replaced_at IS NULL"
                " AND (n.eid IS NULL OR n.fetched_at IS NOT NULL)",
                (table_id,),
            ).fetchall()
        return [r[0] for r in rows]

    def mark_cleared(self, eid: str, now: float) -> None:
        """The Pi of ``eid`` is online with its own account: its sealed answer goes."""
        with self._lock, self._db:
            self._db.execute("UPDATE enrol_adopted SET cleared_at = ? WHERE eid = ?", (now, eid))
            self._db.execute("DELETE FROM enrol_answers WHERE eid = ?", (eid,))

    # The audit log of adoptions: every one asked for, from the dashboard or `mesa adopt`.
    def audit(
        self,
        by: str,
        code: str,
        serial: str,
        table_id: str,
        replaced: str,
        outcome: str,
        now: float,
    ) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO enrol_audit (at, by, code, serial, table_id, replaced, outcome)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (now, by[:80], code[:16], serial[:64], table_id[:40], replaced[:80], outcome[:300]),
            )

    def audit_log(self, limit: int = 200) -> list[AuditEntry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT at, by, code, serial, table_id, replaced, outcome FROM enrol_audit"
                " ORDER BY id DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [AuditEntry(*r) for r in rows]

    # ``mesa adopt`` asks the running hub's desk (the only client that answers Pis).
    def request_adoption(self, code: str, table_id: str, replace: str | None, now: float) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO enrol_requests VALUES (?, ?, ?, ?, NULL, NULL)",
                (code, table_id, replace, now),
            )

    def open_requests(self) -> list[tuple[str, str, str | None]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT code, table_id, replace FROM enrol_requests WHERE done_at IS NULL"
                " ORDER BY requested_at"
            ).fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    def finish_request(self, code: str, outcome: str, now: float) -> None:
        with self._lock, self._db:
            self._db.execute(
                "UPDATE enrol_requests SET done_at = ?, outcome = ? WHERE code = ?",
                (now, outcome, code),
            )

    def request_outcome(self, code: str) -> str | None:
        """``"ok"``, the reason it was refused, or None while the desk has not taken it."""
        with self._lock:
            row = self._db.execute(
                "SELECT outcome FROM enrol_requests WHERE code = ? AND done_at IS NOT NULL",
                (code,),
            ).fetchone()
        return None if row is None else str(row[0])


# ── adopting ────────────────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class EnrolmentSettings:
    """What the desk and :func:`adopt` need: the store, the broker's files and addresses."""

    db: Path
    passwd_file: Path
    pid_file: Path | None  # the broker to reload (None: the caller reloads it)
    hub_host: str  # the hub's address as the tables see it
    hub_port: int  # the tables' TLS listener (8883)
    tls_ca: str | None  # the venue CA's certificate (PEM) for the tables' link files
    broker_host: str = "127.0.0.1"  # where the desk connects (the loopback listener)
    broker_port: int = 1883
    desk_password: str = ""
    reload: Callable[[], None] | None = None  # instead of pid_file (tests' private broker)
    # Set (an installed hub, user mesa): accounts are queued here for `mesa apply-accounts`
    # (root, mesa-accounts.path) instead of written into passwd_file (hub/broker/accounts.py).
    accounts_dir: Path | None = None
    # The venue's enrolment token, also in the bundle on every new table's SD card: a call
    # without it is refused (401). It keeps out who has no SD card, nothing more.
    token: str = ""

    @classmethod
    def from_file(cls, path: str | Path, **overrides: Any) -> EnrolmentSettings:
        """The JSON ``mesa provision-hub`` writes (``/etc/mesa/enrolment.json``)."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            values: dict[str, Any] = {
                "db": Path(data["db"]),
                "passwd_file": Path(data["passwd_file"]),
                "pid_file": Path(data["pid_file"]) if data.get("pid_file") else None,
                "hub_host": str(data["hub_host"]),
                "hub_port": int(data["hub_port"]),
                "tls_ca": data.get("tls_ca"),
                "broker_host": str(data.get("broker_host", "127.0.0.1")),
                "broker_port": int(data.get("broker_port", 1883)),
                "desk_password": str(data["desk_password"]),
                "accounts_dir": Path(data["accounts_dir"]) if data.get("accounts_dir") else None,
                "token": str(data.get("enrol_token") or ""),
            }
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise EnrolmentError(f"{path}: not an enrolment settings file ({e})") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def _connect_desk(settings: EnrolmentSettings, client_id: str) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    client.username_pw_set(ENROL_DESK_USERNAME, settings.desk_password)
    return client


def _make_account(settings: EnrolmentSettings, table_id: str, password: str) -> None:
    """The table's broker account, live before the Pi hears of it."""
    if settings.accounts_dir is not None:
        queued = queue_account(settings.accounts_dir, table_id, password)
        if not wait_applied(queued, ACCOUNT_WAIT_SECONDS):
            queued.unlink(missing_ok=True)
            raise EnrolmentError(
                "the broker's accounts were not updated (is mesa-accounts.path enabled?)"
            )
        return
    set_password(settings.passwd_file, table_id, password)
    if settings.reload is not None:
        settings.reload()
    elif settings.pid_file is not None:
        reload_broker(settings.pid_file)


@dataclass(frozen=True)
class Adopted:
    """A done adoption: the Pi, its number, the Pi it replaced (None: the number was free)."""

    serial: str
    code: str
    table_id: str
    eid: str
    replaced: Occupant | None


def check_takeover(table_id: str, occupant: Occupant | None, replace: str | None) -> None:
    """The one rule for taking over a number: a number that has a Pi needs ``replace`` naming
    that Pi (:attr:`Occupant.token`); :class:`EnrolmentError` ``confirm_replace`` if not.

    >>> check_takeover("3", None, None)
    >>> check_takeover("3", Occupant("3", "online", "abc1"), "abc1")
    >>> check_takeover("3", Occupant("3", "offline", "abc1"), None)
    Traceback (most recent call last):
      ...
    mesa.hub.broker.enrolment.EnrolmentError: table 3 already has Pi abc1 (offline): to replace it, confirm with replace=abc1
    """
    if occupant is None or replace == occupant.token:
        return
    raise EnrolmentError(
        f"table {table_id} already has Pi {occupant.token} ({occupant.state}):"
        f" to replace it, confirm with replace={occupant.token}",
        "confirm_replace",
        table=table_id,
        pi=occupant.token,
        state=occupant.state,
    )


def adopt(
    pending: Pending,
    table_id: str,
    settings: EnrolmentSettings,
    *,
    store: EnrolmentStore,
    now: float | None = None,
) -> list[Adoption]:
    """Make the waiting Pi ``pending`` table ``table_id`` (the takeover rule already checked:
    :meth:`EnrolmentDesk.adopt`); returns the adoptions it replaced.

    A new broker password for ``table_id`` replaces any earlier one (a replaced Pi's account
    stops working at the reload); the answer, the table's link file, is sealed to the Pi's key
    and kept in the store for the Pi's next call (:meth:`EnrolmentStore.answer_for`)."""
    check_adoptable_table(table_id)
    password = secrets.token_urlsafe(18)
    _make_account(settings, table_id, password)
    answer = link_config(table_id, settings.hub_host, settings.hub_port, password, settings.tls_ca)
    sealed = seal_answer(pending.hello, enrol_topic(pending.eid, "answer"), answer)
    return store.record_adoption(pending, table_id, time.time() if now is None else now, sealed)


# What the desk refused, by reason: the list's limits (EnrolmentStore.record_hello, and the
# per-address rate), a malformed or oversized announcement, a call without the venue's token.
REFUSALS = ("full", "serial", "source", "dismissed", "malformed", "too_large", "token")
# parse_hello's finer reasons (said in the 400 answer), counted as "malformed".
_MALFORMED = frozenset({"malformed", "bad_key", "bad_serial", "bad_hwcheck", "content_type"})


@dataclass(frozen=True)
class HelloReply:
    """What a Pi's call is answered (:mod:`mesa.hub.web.http.enrol` makes it HTTP): ``state``
    ``waiting`` (listed, call again in ``every`` seconds), ``adopted`` (``answer``: the link
    file sealed to the caller's key) or the reason it was refused; ``detail``: a finer reason
    (a malformed announcement's), ``retry_after``: seconds, for the list's refusals."""

    state: str
    answer: bytes | None = None
    every: float = CALL_EVERY
    detail: str = ""
    retry_after: int = 0


@dataclass
class _Seen:
    at: float
    outcome: str
    hwcheck: dict[str, str]
    source: str


class _SourceRate:
    """A token bucket per network address: ``rate`` calls a second, ``burst`` at once. At most
    ``size`` addresses are remembered (the oldest forgotten first)."""

    def __init__(self, rate: float, burst: float, size: int = 4096) -> None:
        self.rate, self.burst, self.size = rate, burst, size
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, source: str, now: float) -> bool:
        with self._lock:
            tokens, last = self._buckets.pop(source, (self.burst, now))
            tokens = min(self.burst, tokens + max(0.0, now - last) * self.rate)
            ok = tokens >= 1.0
            self._buckets[source] = (tokens - 1.0 if ok else tokens, now)
            while len(self._buckets) > self.size:
                self._buckets.popitem(last=False)
            return ok


class EnrolmentDesk:
    """The hub's side of enrolment, running inside ``mesa hub``: answers the Pis' calls
    (:meth:`hello`, behind ``POST /enrol/hello``), adopts (from the dashboard, or ``mesa
    adopt``'s requests), deletes an answer once its table is online.

        desk = EnrolmentDesk(EnrolmentSettings.from_file("/etc/mesa/enrolment.json")).start()
        desk.listeners.append(lambda: print("the waiting list changed"))
        desk.hello(body, "10.0.0.23")          # a Pi's call: HelloReply("waiting")
        desk.adopt("4F7-2K9", "7")             # its next call: HelloReply("adopted", answer)

    Its broker connection (account ``mesa-enrolment``) only reads the tables' statuses: which
    numbers have a Pi, and when an adopted Pi comes online. ``mesa adopt`` leaves a request in
    the store and :meth:`serve_requests` (the hub's slow tick) carries it out, so adoptions are
    made by this desk alone, one at a time.
    """

    def __init__(
        self, settings: EnrolmentSettings, *, client_id: str = ENROL_DESK_USERNAME
    ) -> None:
        self.settings = settings
        self.store = EnrolmentStore(settings.db)
        # Calls the desk refused, by reason (REFUSALS): a flood shows here.
        self.refusals: Counter[str] = Counter()
        self.connected = threading.Event()
        # Called (on any thread) when the waiting list may have changed, or a flood grew.
        self.listeners: list[Callable[[], None]] = []
        # The tables' last status as the broker keeps it (retained): which numbers have a Pi.
        self.statuses: dict[str, str] = {}
        # How often a waiting Pi is told to call (seconds), and how often a repeated
        # announcement is written to the store; a test may shorten them.
        self.every = CALL_EVERY
        self.write_seconds = WRITE_SECONDS
        self.max_hello_bytes = MAX_HELLO_BYTES
        self.rate = _SourceRate(SOURCE_RATE, SOURCE_BURST)
        self._seen: OrderedDict[str, _Seen] = OrderedDict()  # eid → its last call's outcome
        self._seen_lock = threading.Lock()
        self._refused_lock = threading.Lock()
        self._adopting = threading.Lock()  # one adoption at a time (password file, broker)
        self._client = _connect_desk(settings, client_id)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message

    @property
    def refused(self) -> int:
        return sum(self.refusals.values())

    def start(self) -> EnrolmentDesk:
        self._client.connect_async(self.settings.broker_host, self.settings.broker_port, 15)
        self._client.loop_start()
        return self

    def stop(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()
        self.store.close()

    # ── the Pis' calls ──
    def token_ok(self, presented: str) -> bool:
        """Whether a call carries the venue's enrolment token (compared in constant time; a
        desk without a token refuses every call)."""
        token = self.settings.token
        return bool(token) and hmac.compare_digest(presented.encode(), token.encode())

    def hello(self, body: bytes, source: str, now: float | None = None) -> HelloReply:
        """A Pi's call from network address ``source`` (its token already checked): its
        announcement listed or refreshed (``waiting``), or its sealed answer (``adopted``),
        or why it was refused. A flood costs bounded work: past :data:`SOURCE_RATE` calls a
        second from one address the body is not even parsed, and a repeated announcement
        touches the store at most once every :data:`WRITE_SECONDS`."""
        now = time.time() if now is None else now
        source = source[:64]
        if not self.rate.take(source, now):
            return self.refuse("source")
        try:
            hello = parse_hello(body)
        except EnrolmentError as e:
            return self.refuse(e.code, str(e))
        with self._seen_lock:
            seen = self._seen.get(hello.eid)
        if (
            seen is not None
            and now - seen.at < self.write_seconds
            and seen.hwcheck == hello.hwcheck
            and seen.source == source
        ):
            outcome = seen.outcome  # nothing new: the store is not touched
        else:
            answer = self.store.answer_for(hello.eid)
            if answer is not None:
                self.store.answer_fetched(hello.eid, now)
                return HelloReply("adopted", answer, self.every)
            outcome = self.store.record_hello(hello, now, source)
            with self._seen_lock:
                self._seen.pop(hello.eid, None)
                # "answered": adopted between the two reads above; its next call gets the answer.
                if outcome != "answered":
                    self._seen[hello.eid] = _Seen(now, outcome, hello.hwcheck, source)
                while len(self._seen) > 4096:
                    self._seen.popitem(last=False)
            if outcome == "new":
                self._notify()
        if outcome in ("new", "again", "answered"):
            return HelloReply("waiting", None, self.every)
        return self.refuse(outcome)

    def refuse(self, reason: str, note: str = "") -> HelloReply:
        """Count a refused call (:data:`REFUSALS`; a malformed one's finer ``reason`` is said
        in the reply's ``detail``) and say so; ``note`` is for the log."""
        kind = "malformed" if reason in _MALFORMED else reason
        with self._refused_lock:
            self.refusals[kind] += 1
            count = self.refusals[kind]
        # A flood is said once per order of magnitude (the log and the page), not per call:
        # it must not turn into a flood of the director's feed too.
        if count in (1, 10, 100, 1000, 10000, 100000):
            log.warning("enrolment: call refused (%s, %d so far) %s", kind, count, note[:120])
            self._notify()
        detail = reason if kind == "malformed" else ""
        return HelloReply(kind, None, self.every, detail, RETRY_AFTER.get(kind, 0))

    def _forget(self, eid: str) -> None:
        with self._seen_lock:
            self._seen.pop(eid, None)

    # ── the director's side ──
    def pending(self) -> list[Pending]:
        return self.store.pending()

    def occupant(self, table_id: str, known: Mapping[str, str] | None = None) -> Occupant | None:
        """The Pi ``table_id`` has, if any: the one adopted here last (its state from its
        status), else a table the broker or ``known`` (the dashboard's tables: id → link
        state) has seen."""
        holder = self.store.holder(table_id)
        seen = self.statuses.get(table_id) or (known or {}).get(table_id)
        state = "online" if seen == "online" else "offline"
        if holder is not None:
            if holder.cleared_at is None and seen != "online":
                state = "adopted"
            return Occupant(table_id, state, holder.serial, holder.code or None, holder.eid)
        if seen is not None:
            return Occupant(table_id, state)
        return None

    def occupants(self, known: Mapping[str, str] | None = None) -> dict[str, str]:
        """Every number that has a Pi → the Pi a confirmation to replace it must name."""
        tables = {a.table_id for a in self.store.adoptions() if a.replaced_at is None}
        tables |= set(self.statuses) | set(known or {})
        out = {}
        for table in sorted(tables):
            occupant = self.occupant(table, known)
            if occupant is not None:
                out[table] = occupant.token
        return out

    def dismiss(self, eid: str) -> bool:
        done = self.store.dismiss(eid, time.time())
        self._forget(eid)
        if done:
            self._notify()
        return done

    def adopt(
        self,
        code: str,
        table_id: str,
        *,
        replace: str | None = None,
        by: str = "",
        known: Mapping[str, str] | None = None,
    ) -> Adopted:
        """Give the waiting Pi whose screen shows ``code`` the number ``table_id``. A number
        that has a Pi needs ``replace`` naming it (:func:`check_takeover`). Every attempt is in
        the store's audit log. :class:`EnrolmentError` if refused."""
        code_text = str(code)[:16]
        serial = ""
        replaced_token = ""
        try:
            code = check_code(code)
            table_id = check_adoptable_table(table_id)
            with self._adopting:
                matches = self.store.with_code(code)
                if not matches:
                    raise EnrolmentError(
                        f"no new table showing code {code} is waiting", "not_pending", code=code
                    )
                if len(matches) > 1:
                    # Two keys with one code (a 1 in 10^9 chance, or someone grinding keys):
                    # dismiss both; the genuine Pi announces itself again.
                    raise EnrolmentError(
                        f"{len(matches)} new tables show code {code}: dismiss them and let the"
                        " table announce itself again",
                        "ambiguous",
                        code=code,
                    )
                pending = matches[0]
                serial = pending.serial
                occupant = self.occupant(table_id, known)
                if occupant is not None and occupant.eid == pending.eid:
                    occupant = None  # the same Pi back at its own number
                if occupant is not None:
                    replaced_token = occupant.token
                check_takeover(table_id, occupant, replace)
                replaced = adopt(pending, table_id, self.settings, store=self.store)
                self._forget(pending.eid)
                for old in replaced:
                    self._forget(old.eid)
        except (EnrolmentError, OSError) as e:
            outcome = f"refused: {e}"
            self.store.audit(
                by, code_text, serial, str(table_id), replaced_token, outcome, time.time()
            )
            raise
        self.store.audit(by, code, serial, table_id, replaced_token, "ok", time.time())
        log.info(
            "enrolment: %s (code %s) adopted as table %s by %s%s",
            serial,
            code,
            table_id,
            by or "?",
            f", replacing {replaced_token}" if replaced_token else "",
        )
        self._notify()
        return Adopted(serial, code, table_id, pending.eid, occupant)

    def serve_requests(self) -> int:
        """Carry out the adoptions ``mesa adopt`` asked for; returns how many were taken."""
        done = 0
        for code, table_id, replace in self.store.open_requests():
            try:
                self.adopt(code, table_id, replace=replace, by="mesa adopt")
                outcome = "ok"
            except (EnrolmentError, OSError) as e:
                outcome = str(e) or "refused"
            log.info("enrolment: mesa adopt %s %s: %s", code, table_id, outcome)
            self.store.finish_request(code, outcome, time.time())
            done += 1
        return done

    def _notify(self) -> None:
        for listener in list(self.listeners):
            try:
                listener()
            except Exception:  # a listener's failure must not stop the desk
                log.exception("enrolment listener failed")

    # ── the tables' statuses, from the broker ──
    def _on_connect(self, client: Any, ud: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            log.error("enrolment desk refused by the broker: %s", reason)
            return
        client.subscribe([(f"{NAMESPACE}/table/+/status", 1)])
        self.connected.set()

    def _on_disconnect(self, client: Any, ud: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()

    def _on_message(self, client: Any, ud: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self._on_status(msg)
        except (ValueError, sqlite3.Error):
            log.exception("enrolment: status of %s not taken", msg.topic[:80])

    def _on_status(self, msg: mqtt.MQTTMessage) -> None:
        parts = msg.topic.split("/")
        if len(parts) != 5:
            return
        table = parts[3]
        try:
            data = json.loads(msg.payload) if msg.payload else {}
        except ValueError:
            return  # a table's garbled status: the ingest's business, not the waiting list's
        state = data.get("state") if isinstance(data, dict) else None
        if isinstance(state, str):
            self.statuses[table] = state
        elif not msg.payload:
            self.statuses.pop(table, None)
        # A retained status may be the replaced Pi's: only a live "online" clears an answer.
        if msg.retain or state != "online":
            return
        for eid in self.store.uncleared(table):
            self.store.mark_cleared(eid, time.time())
            self._forget(eid)
            log.info("enrolment: table %s online; its answer to %s deleted", table, eid)


def enrolment_bundle(url: str, token: str, tls_ca: str | None) -> dict[str, Any]:
    """The enrolment bundle (``/etc/mesa/enrol.json``, copied onto every new table's SD card):
    where the hub's dashboard is, the venue's token, the venue CA.

    >>> enrolment_bundle("https://hub.local:8080", "t0k", "PEM")
    {'hub': {'url': 'https://hub.local:8080', 'token': 't0k', 'tls_ca': 'PEM'}}
    """
    hub: dict[str, Any] = {"url": url, "token": token}
    if tls_ca is not None:
        hub["tls_ca"] = tls_ca
    return {"hub": hub}


def provision_enrolment(
    *,
    passwd_file: Path,
    bundle: Path,
    desk_settings: Path,
    db: Path,
    pid_file: Path | None,
    hub_host: str,
    hub_url: str,
    table_port: int,
    tls_ca: str | None,
    real_passwd_file: Path | None = None,
    accounts_dir: Path | None = None,
) -> bool:
    """The desk's account and settings (with the venue's enrolment token) and the bundle for
    new tables (``hub_url``: the dashboard, as the tables reach it); kept if they exist already
    (idempotent). ``accounts_dir``: the desk queues table accounts there (the hub runs
    unprivileged; see hub/broker/accounts.py). A desk file or a bundle from an earlier release
    (the enrolment listener's account) gets the token and the new bundle. Returns whether the
    bundle was written."""
    if not desk_settings.exists():
        password = secrets.token_urlsafe(24)
        set_password(passwd_file, ENROL_DESK_USERNAME, password)
        data: dict[str, Any] = {
            "db": str(db),
            # As the installed system sees it (``mesa install --root`` writes elsewhere).
            "passwd_file": str(real_passwd_file or passwd_file),
            "pid_file": str(pid_file) if pid_file else None,
            "hub_host": hub_host,
            "hub_port": table_port,
            "tls_ca": tls_ca,
            "desk_password": password,
            "accounts_dir": str(accounts_dir) if accounts_dir else None,
            "enrol_token": secrets.token_urlsafe(24),
        }
        write_private(desk_settings, data)
    else:
        data = json.loads(desk_settings.read_text(encoding="utf-8"))
        update: dict[str, Any] = {}
        if not data.get("enrol_token"):
            update["enrol_token"] = secrets.token_urlsafe(24)
        if accounts_dir is not None and data.get("accounts_dir") != str(accounts_dir):
            # A hub installed when the desk was its own root service: the desk is now the
            # hub's (user mesa), which queues accounts instead of writing the password file.
            update["accounts_dir"] = str(accounts_dir)
        if update:
            data = {**data, **update}
            write_private(desk_settings, data)
    wanted = enrolment_bundle(hub_url, str(data["enrol_token"]), tls_ca)
    try:
        current = json.loads(bundle.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        current = None
    if current == wanted:
        return False
    write_private(bundle, wanted)
    return True
