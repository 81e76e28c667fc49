"""Adopting a table: a new Pi announces itself, the director gives it a number, the hub answers.

A new table's Pi carries only the venue's enrolment bundle (the hub's address, the venue CA and
the shared enrolment account, the same for every table). It connects to the enrolment listener
with its serial as client id and publishes ``mesa/v1/enrol/<serial>/hello`` (retained); the
broker's enrolment ACL lets it do nothing else. :class:`EnrolmentDesk` lists those Pis
("Mesa nueva") in the hub's store; :func:`adopt` gives one a table number: it creates the
table's broker account (a new password; a replaced Pi's old one stops working), reloads the
broker and answers on ``mesa/v1/enrol/<serial>/answer`` (retained, so a Pi that reconnects
still gets it) with the table's link file. Once the table comes online with its new account the
desk clears the answer (an empty retained message): the password does not linger on the broker.

>>> check_serial("10000000abcdef01")
'10000000abcdef01'
>>> enrol_topic("10000000abcdef01", "answer")
'mesa/v1/enrol/10000000abcdef01/answer'
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from mesa.errors import MesaError
from mesa.hub.broker.accounts import queue_account, wait_applied
from mesa.hub.broker.mosquitto import ENROL_DESK_USERNAME, ENROL_USERNAME, set_password
from mesa.hub.broker.provision import link_config, reload_broker, write_private
from mesa.protocol import NAMESPACE, ProtocolError, check_table_id

log = logging.getLogger(__name__)

SERIAL_RE = re.compile(r"[0-9a-z][0-9a-z_-]{0,63}")
MAX_HELLO_BYTES = 4096
# A venue has tens of tables: more Pis waiting than this is someone flooding the enrolment port.
MAX_PENDING = 200
KINDS = ("hello", "answer")
# How long an adoption waits for root's `mesa apply-accounts` to take the queued account.
ACCOUNT_WAIT_SECONDS = 15.0


class EnrolmentError(MesaError):
    """An adoption refused: unknown serial, bad table number, broker unreachable."""


def check_serial(serial: Any) -> str:
    """A Pi's serial as the enrolment topics use it (lowercase hex and the like)."""
    if not isinstance(serial, str) or not SERIAL_RE.fullmatch(serial):
        raise EnrolmentError(f"serial {serial!r} must be 1-64 of a-z 0-9 _ -")
    return serial


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
        raise EnrolmentError(str(e)) from None
    return str(table_id)


def enrol_topic(serial: str, kind: str) -> str:
    if kind not in KINDS:
        raise EnrolmentError(f"unknown enrolment topic {kind!r}")
    return f"{NAMESPACE}/enrol/{check_serial(serial)}/{kind}"


def parse_hello(topic: str, payload: bytes | bytearray) -> tuple[str, dict[str, Any]]:
    """The serial and hardware check of an announcement; :class:`EnrolmentError` if malformed.

    >>> parse_hello("mesa/v1/enrol/abc1/hello", b'{"serial": "abc1", "hwcheck": {"display": "ok"}}')
    ('abc1', {'display': 'ok'})
    """
    parts = topic.split("/")
    if len(parts) != 5 or parts[2] != "enrol" or parts[4] != "hello":
        raise EnrolmentError(f"not an announcement topic: {topic!r}")
    serial = check_serial(parts[3])
    if len(payload) > MAX_HELLO_BYTES:
        raise EnrolmentError("announcement too large")
    try:
        data = json.loads(payload)
    except ValueError:
        raise EnrolmentError("announcement is not JSON") from None
    if not isinstance(data, dict) or data.get("serial") != serial:
        raise EnrolmentError("announcement's serial differs from its topic")
    hw = data.get("hwcheck", {})
    if not isinstance(hw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in hw.items()
    ):
        raise EnrolmentError("hwcheck must map part names to results")
    return serial, {k[:32]: v[:200] for k, v in list(hw.items())[:16]}


# ── the hub's store: pending and adopted tables ─────────────────────────────────────────
SCHEMA = """
CREATE TABLE IF NOT EXISTS enrol_pending (
    serial TEXT PRIMARY KEY,
    hwcheck TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS enrol_adopted (
    serial TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    adopted_at REAL NOT NULL,
    cleared_at REAL
);
CREATE TABLE IF NOT EXISTS enrol_requests (
    serial TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    requested_at REAL NOT NULL,
    done_at REAL,
    outcome TEXT
);
"""


@dataclass(frozen=True)
class Pending:
    serial: str
    hwcheck: dict[str, str]
    first_seen: float
    last_seen: float


@dataclass(frozen=True)
class Adoption:
    serial: str
    table_id: str
    adopted_at: float
    cleared_at: float | None


class EnrolmentStore:
    """The enrolment tables in the hub's SQLite store (their own tables, their own connection).

    >>> import tempfile, pathlib
    >>> s = EnrolmentStore(pathlib.Path(tempfile.mkdtemp()) / "hub.sqlite3")
    >>> s.record_hello("abc1", {"display": "ok"}, now=5.0)
    >>> [p.serial for p in s.pending()]
    ['abc1']
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)
        if created and os.geteuid() == 0:
            # The desk and `mesa adopt` run as root; the store is the hub's (the owner of its
            # folder, /var/lib/mesa): a store created here must stay writable by the hub.
            # (SQLite itself gives its -wal and -shm files the database's owner.)
            st = self.path.parent.stat()
            with contextlib.suppress(OSError):
                os.chown(self.path, st.st_uid, st.st_gid)

    def close(self) -> None:
        self._db.close()

    def record_hello(self, serial: str, hwcheck: dict[str, str], now: float) -> None:
        with self._lock, self._db:
            known = self._db.execute(
                "SELECT 1 FROM enrol_pending WHERE serial = ?", (serial,)
            ).fetchone()
            count = self._db.execute("SELECT count(*) FROM enrol_pending").fetchone()[0]
            if known is None and count >= MAX_PENDING:
                raise EnrolmentError(f"more than {MAX_PENDING} tables waiting: {serial} ignored")
            self._db.execute(
                "INSERT INTO enrol_pending VALUES (?, ?, ?, ?) ON CONFLICT(serial) DO UPDATE"
                " SET hwcheck = excluded.hwcheck, last_seen = excluded.last_seen",
                (serial, json.dumps(hwcheck), now, now),
            )

    def pending(self) -> list[Pending]:
        """Pis that announced themselves and are not adopted, oldest first. A Pi that announces
        itself again after its table came online (its SD card reflashed) is waiting again; one
        that announces itself while its answer still waits on the broker is not."""
        with self._lock:
            rows = self._db.execute(
                "SELECT serial, hwcheck, first_seen, last_seen FROM enrol_pending p"
                " WHERE NOT EXISTS (SELECT 1 FROM enrol_adopted a WHERE a.serial = p.serial"
                "   AND (a.cleared_at IS NULL OR a.cleared_at >= p.last_seen))"
                " ORDER BY first_seen"
            ).fetchall()
        return [Pending(s, json.loads(h), f, last) for s, h, f, last in rows]

    def is_pending(self, serial: str) -> bool:
        return any(p.serial == serial for p in self.pending())

    def adoptions(self) -> list[Adoption]:
        with self._lock:
            rows = self._db.execute(
                "SELECT serial, table_id, adopted_at, cleared_at FROM enrol_adopted"
                " ORDER BY adopted_at"
            ).fetchall()
        return [Adoption(*r) for r in rows]

    def record_adoption(self, serial: str, table_id: str, now: float) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO enrol_adopted VALUES (?, ?, ?, NULL)",
                (serial, table_id, now),
            )

    def adoption_of(self, serial: str) -> Adoption | None:
        with self._lock:
            row = self._db.execute(
                "SELECT serial, table_id, adopted_at, cleared_at FROM enrol_adopted"
                " WHERE serial = ?",
                (serial,),
            ).fetchone()
        return None if row is None else Adoption(*row)

    def restore_adoption(self, serial: str, previous: Adoption | None) -> None:
        """Put back what :meth:`adoption_of` returned before a failed adoption."""
        with self._lock, self._db:
            self._db.execute("DELETE FROM enrol_adopted WHERE serial = ?", (serial,))
            if previous is not None:
                self._db.execute(
                    "INSERT INTO enrol_adopted VALUES (?, ?, ?, ?)",
                    (
                        previous.serial,
                        previous.table_id,
                        previous.adopted_at,
                        previous.cleared_at,
                    ),
                )

    def uncleared(self, table_id: str) -> list[str]:
        """Serials adopted as ``table_id`` whose answer is still on the broker."""
        with self._lock:
            rows = self._db.execute(
                "SELECT serial FROM enrol_adopted WHERE table_id = ? AND cleared_at IS NULL",
                (table_id,),
            ).fetchall()
        return [r[0] for r in rows]

    def mark_cleared(self, serial: str, now: float) -> None:
        with self._lock, self._db:
            self._db.execute(
                "UPDATE enrol_adopted SET cleared_at = ? WHERE serial = ?", (now, serial)
            )

    # ``mesa adopt`` asks the running hub's desk (the only client that answers Pis).
    def request_adoption(self, serial: str, table_id: str, now: float) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO enrol_requests VALUES (?, ?, ?, NULL, NULL)",
                (serial, table_id, now),
            )

    def open_requests(self) -> list[tuple[str, str]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT serial, table_id FROM enrol_requests WHERE done_at IS NULL"
                " ORDER BY requested_at"
            ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def finish_request(self, serial: str, outcome: str, now: float) -> None:
        with self._lock, self._db:
            self._db.execute(
                "UPDATE enrol_requests SET done_at = ?, outcome = ? WHERE serial = ?",
                (now, outcome, serial),
            )

    def request_outcome(self, serial: str) -> str | None:
        """``"ok"``, the reason it was refused, or None while the desk has not taken it."""
        with self._lock:
            row = self._db.execute(
                "SELECT outcome FROM enrol_requests WHERE serial = ? AND done_at IS NOT NULL",
                (serial,),
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
            }
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise EnrolmentError(f"{path}: not an enrolment settings file ({e})") from None
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def _connect_desk(settings: EnrolmentSettings, client_id: str) -> mqtt.Client:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    client.username_pw_set(ENROL_DESK_USERNAME, settings.desk_password)
    return client


def _publish_once(settings: EnrolmentSettings, topic: str, payload: bytes) -> None:
    """Connect as the desk, publish one retained QoS 1 message, wait for it, disconnect."""
    client = _connect_desk(settings, ENROL_DESK_USERNAME)
    connected = threading.Event()
    refused: list[Any] = []

    def on_connect(c: Any, ud: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            refused.append(reason)
        connected.set()

    client.on_connect = on_connect
    try:
        client.connect(settings.broker_host, settings.broker_port, keepalive=10)
    except OSError as e:
        raise EnrolmentError(f"the broker is unreachable ({e})") from None
    client.loop_start()
    try:
        if not connected.wait(10) or refused:
            raise EnrolmentError(f"the broker refused the enrolment desk ({refused or 'timeout'})")
        info = client.publish(topic, payload, qos=1, retain=True)
        info.wait_for_publish(timeout=10)
        if not info.is_published():
            raise EnrolmentError("the broker did not take the answer")
    finally:
        client.disconnect()
        client.loop_stop()


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


def adopt(
    serial: str,
    table_id: str,
    settings: EnrolmentSettings,
    *,
    store: EnrolmentStore | None = None,
    publish: Callable[[str, bytes], None] | None = None,
    now: float | None = None,
) -> str:
    """Make the Pi ``serial`` table ``table_id``; returns the answer topic.

    A new broker password for ``table_id`` replaces any earlier one (a replaced Pi's account
    stops working at the reload), and the answer carries the table's link file."""
    check_serial(serial)
    check_adoptable_table(table_id)
    own = store is None
    store = store or EnrolmentStore(settings.db)
    try:
        if not store.is_pending(serial):
            raise EnrolmentError(f"no new table with serial {serial!r} has announced itself")
        password = secrets.token_urlsafe(18)
        _make_account(settings, table_id, password)
        answer = link_config(
            table_id, settings.hub_host, settings.hub_port, password, settings.tls_ca
        )
        topic = enrol_topic(serial, "answer")
        payload = json.dumps(answer).encode()
        # Recorded first: the Pi may come online before publish() returns, and its "online"
        # must find the adoption to clear the answer. Undone if the broker refuses it.
        previous = store.adoption_of(serial)
        store.record_adoption(serial, table_id, time.time() if now is None else now)
        try:
            (publish or (lambda t, p: _publish_once(settings, t, p)))(topic, payload)
        except BaseException:
            store.restore_adoption(serial, previous)
            raise
        return topic
    finally:
        if own:
            store.close()


class EnrolmentDesk:
    """The hub's side of enrolment, running inside ``mesa hub``: records announcements, adopts
    (from the dashboard, or ``mesa adopt``'s requests), clears answered adoptions.

        desk = EnrolmentDesk(EnrolmentSettings.from_file("/etc/mesa/enrolment.json")).start()
        desk.listeners.append(lambda: print("the pending list changed"))
        desk.adopt("10000000abcdef01", "7")

    It is the only client with the desk's account (the broker's client ids are the usernames:
    a second one would take its session), so ``mesa adopt`` leaves a request in the store and
    :meth:`serve_requests` (the hub's slow tick) carries it out.
    """

    def __init__(
        self, settings: EnrolmentSettings, *, client_id: str = ENROL_DESK_USERNAME
    ) -> None:
        self.settings = settings
        self.store = EnrolmentStore(settings.db)
        self.refused = 0  # malformed announcements, counted
        self.connected = threading.Event()
        # Called (on paho's or the adopting thread) when the pending list may have changed.
        self.listeners: list[Callable[[], None]] = []
        self._adopting = threading.Lock()  # one adoption at a time (password file, broker)
        self._client = _connect_desk(settings, client_id)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message

    def start(self) -> EnrolmentDesk:
        self._client.connect_async(self.settings.broker_host, self.settings.broker_port, 15)
        self._client.loop_start()
        return self

    def stop(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()
        self.store.close()

    def pending(self) -> list[Pending]:
        return self.store.pending()

    def adopt(self, serial: str, table_id: str) -> str:
        """Give ``serial`` the table ``table_id`` (see :func:`adopt`); the answer is published
        on this desk's connection. :class:`EnrolmentError` if refused or the broker is away."""

        def publish(topic: str, payload: bytes) -> None:
            if not self.connected.is_set():
                raise EnrolmentError("the enrolment desk is not connected to the broker")
            info = self._client.publish(topic, payload, qos=1, retain=True)
            try:
                info.wait_for_publish(10)
            except (RuntimeError, ValueError) as e:
                raise EnrolmentError(f"the broker did not take the answer ({e})") from None
            if not info.is_published():
                raise EnrolmentError("the broker did not take the answer")

        with self._adopting:
            topic = adopt(serial, table_id, self.settings, store=self.store, publish=publish)
        self._notify()
        return topic

    def serve_requests(self) -> int:
        """Carry out the adoptions ``mesa adopt`` asked for; returns how many were taken."""
        done = 0
        for serial, table_id in self.store.open_requests():
            try:
                self.adopt(serial, table_id)
                outcome = "ok"
            except (EnrolmentError, OSError) as e:
                outcome = str(e) or "refused"
            log.info("enrolment: mesa adopt %s %s: %s", serial, table_id, outcome)
            self.store.finish_request(serial, outcome, time.time())
            done += 1
        return done

    def _notify(self) -> None:
        for listener in list(self.listeners):
            try:
                listener()
            except Exception:  # a listener's failure must not stop the desk
                log.exception("enrolment listener failed")

    def _on_connect(self, client: Any, ud: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            log.error("enrolment desk refused by the broker: %s", reason)
            return
        client.subscribe([(f"{NAMESPACE}/enrol/+/hello", 1), (f"{NAMESPACE}/table/+/status", 1)])
        self.connected.set()

    def _on_disconnect(self, client: Any, ud: Any, flags: Any, reason: Any, props: Any) -> None:
        self.connected.clear()

    def _on_message(self, client: Any, ud: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            if msg.topic.endswith("/hello"):
                if not msg.payload:
                    return
                serial, hw = parse_hello(msg.topic, msg.payload)
                self.store.record_hello(serial, hw, time.time())
                self._notify()
            else:
                self._on_status(msg)
        except (EnrolmentError, ValueError, sqlite3.Error) as e:
            self.refused += 1
            log.warning("enrolment: %s refused: %s", msg.topic, e)

    def _on_status(self, msg: mqtt.MQTTMessage) -> None:
        # A retained status may be the replaced Pi's: only a live "online" counts.
        if msg.retain:
            return
        table = msg.topic.split("/")[3]
        data = json.loads(msg.payload) if msg.payload else {}
        if not isinstance(data, dict) or data.get("state") != "online":
            return
        for serial in self.store.uncleared(table):
            self._client.publish(enrol_topic(serial, "answer"), b"", qos=1, retain=True)
            self.store.mark_cleared(serial, time.time())
            log.info("enrolment: table %s online; answer to %s cleared", table, serial)


def provision_enrolment(
    *,
    passwd_file: Path,
    enrol_passwd_file: Path,
    bundle: Path,
    desk_settings: Path,
    db: Path,
    pid_file: Path | None,
    hub_host: str,
    enrol_port: int,
    table_port: int,
    tls_ca: str | None,
    real_passwd_file: Path | None = None,
    accounts_dir: Path | None = None,
) -> None:
    """The enrolment account and bundle (copied onto every new table's SD card) and the desk's
    account and settings; kept if they exist already (idempotent). ``accounts_dir``: the desk
    queues table accounts there (the hub runs unprivileged; see hub/broker/accounts.py)."""
    if not bundle.exists():
        password = secrets.token_urlsafe(18)
        set_password(enrol_passwd_file, ENROL_USERNAME, password)
        hub: dict[str, object] = {
            "host": hub_host,
            "port": enrol_port,
            "username": ENROL_USERNAME,
            "password": password,
        }
        if tls_ca is not None:
            hub["tls_ca"] = tls_ca
        write_private(bundle, {"hub": hub})
    if not desk_settings.exists():
        password = secrets.token_urlsafe(24)
        set_password(passwd_file, ENROL_DESK_USERNAME, password)
        write_private(
            desk_settings,
            {
                "db": str(db),
                # As the installed system sees it (``mesa install --root`` writes elsewhere).
                "passwd_file": str(real_passwd_file or passwd_file),
                "pid_file": str(pid_file) if pid_file else None,
                "hub_host": hub_host,
                "hub_port": table_port,
                "tls_ca": tls_ca,
                "desk_password": password,
                "accounts_dir": str(accounts_dir) if accounts_dir else None,
            },
        )
    elif accounts_dir is not None:
        # A hub installed when the desk was its own root service: the desk is now the hub's
        # (user mesa), which queues accounts instead of writing the password file.
        data = json.loads(desk_settings.read_text(encoding="utf-8"))
        if data.get("accounts_dir") != str(accounts_dir):
            write_private(desk_settings, {**data, "accounts_dir": str(accounts_dir)})
