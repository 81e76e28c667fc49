"""The hub: the event store, the ingest and the broker connection, started and stopped
as one. Tests, ``mesa hub`` and the web app use it in-process.

>>> import tempfile, pathlib
>>> hub = Hub(HubSettings(db=pathlib.Path(tempfile.mkdtemp()) / "hub.sqlite3"))
>>> hub.tables(), hub.metrics.snapshot()
([], {})
>>> hub.command("7", "director_pause", {})
Traceback (most recent call last):
  ...
mesa.hub.ingest.app.UnknownTableError: no table '7' is known to this hub
>>> hub.close()

Running one::

    hub = Hub(HubSettings.from_env(embedded_broker=True)).start()
    txn = hub.assign("3", {"match_id": "G1-1", "players": {"a": "Ana", "b": "Beto"}, "length": 3})
    hub.tables()           # live projections, one dict per table
    hub.events("3")        # committed events of table 3, in order
    hub.metrics.snapshot() # counters: events_committed, refused{reason=...}, ...
    hub.stop()
"""

from __future__ import annotations

import logging
import secrets
import select
import threading
import time
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from mesa.errors import MesaError
from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.ingest.pipeline import Incoming, Ingest
from mesa.hub.ingest.projections import Projections
from mesa.hub.ingest.results import CONTRADICTORY
from mesa.hub.ingest.store import EventStore
from mesa.hub.settings import HubSettings
from mesa.metrics import Metrics
from mesa.protocol import (
    CMD_EXPIRY_SECONDS,
    HUB_STATUS_TOPIC,
    REVISIONS,
    REVISIONS_PROPERTY,
    Assignment,
    Command,
    DominoAssignment,
    DominoCommand,
    EventEnvelope,
    HubStatus,
    ProtocolError,
    StateReport,
    StatusState,
    TableStatus,
    check_snapshot,
    check_table_id,
    hub_subscriptions,
    new_id,
    table_topic,
)

if TYPE_CHECKING:
    from paho.mqtt.client import SocketLike  # a Protocol paho defines for type checkers only

log = logging.getLogger("mesa.hub")


# How often the hub looks for tables whose beats stopped (the grid learns it within this).
BEAT_CHECK_SECONDS = 0.25


class HubError(MesaError):
    """The hub cannot start or was asked something it cannot do."""


class UnknownTableError(HubError):
    """A command for a table the hub has never heard of."""


class Hub:
    """Owns the store, the ingest and the MQTT client (and the private broker, if embedded)."""

    def __init__(self, settings: HubSettings, *, metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.metrics = metrics or Metrics(logger=log)
        self.store = EventStore(settings.db)
        self.projections = Projections()
        self.broker: PrivateMosquitto | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._client: mqtt.Client | None = None
        self._connected = threading.Event()
        self._online = threading.Event()
        self._session = 0
        self._stopping = False
        self._rebuild()
        self.ingest = Ingest(
            self.store, metrics=self.metrics, projections=self.projections, publish=self._publish
        )

    def _rebuild(self) -> None:
        """Projections from the store: what the hub knew before a restart, it knows again."""
        for row in self.store.tables():
            if row["status"] is not None:
                self.projections.apply_status(
                    TableStatus(row["table"], row["status"], row["bdseq"], row["status_ts"])
                )
        since = 0
        while True:
            rows = self.store.events(since=since, limit=5000)
            if not rows:
                break
            for r in rows:
                self.projections.apply_event(
                    EventEnvelope(
                        r["id"],
                        r["table"],
                        r["stream"],
                        r["seq"],
                        r["ts"],
                        r["t"],
                        r["type"],
                        r["data"],
                    ),
                    refused=r.get("fence") == CONTRADICTORY,
                )
            since = rows[-1]["rowid"]
        for a in self.store.assignments():
            length = (a["args"] or {}).get("length")
            self.projections.set_length(a["table"], length if isinstance(length, int) else None)
        for row in self.store.tables():
            if row["snapshot"] is not None:
                try:
                    # Stored before the hub checked snapshots: one ill-typed one must not
                    # keep failing every page after every restart.
                    check_snapshot(row["snapshot"])
                except ProtocolError as e:
                    self.metrics.refuse(e.code, f"stored snapshot: {e.reason}", table=row["table"])
                    self.store.clear_snapshot(row["table"])
                    continue
                self.projections.apply_state(
                    StateReport(
                        row["table"],
                        row["state_stream"],
                        row["state_seq"],
                        0,
                        row["state_ts"],
                        row["snapshot"],
                    )
                )

    # ── lifecycle ───────────────────────────────────────────────────────
    def start(self, *, wait: float | None = 10.0) -> Hub:
        """Connect (starting the private broker first if embedded); with ``wait``, return once
        the hub's status is online, else raise :class:`HubError`."""
        s = self.settings
        host, port, password = s.broker_host, s.broker_port, s.password
        if s.embedded_broker:
            password = password or self._embedded_password()
            self.broker = PrivateMosquitto(
                s.broker_dir, users={s.username: password}, port=s.broker_port, host=s.broker_host
            ).start()
            host, port = self.broker.host, self.broker.port
        self._session = self.store.next_session()
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=s.username, protocol=mqtt.MQTTv5
        )
        client.username_pw_set(s.username, password)
        client.reconnect_delay_set(1, 10)
        client.max_inflight_messages_set(200)
        client.will_set(
            HUB_STATUS_TOPIC, self._status("lost"), qos=1, retain=True,
            properties=_announcing(PacketTypes.WILLMESSAGE),
        )  # fmt: skip
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = 14 * 24 * 3600
        props.ReceiveMaximum = 1000
        client.connect_async(host, port, keepalive=s.keepalive, clean_start=False, properties=props)
        self._client = client
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="hub-commit", daemon=True)
        self._thread.start()
        client.loop_start()
        log.info("hub session %d connecting to %s:%d", self._session, host, port)
        if wait is not None and not self._online.wait(wait):
            self.stop()
            raise HubError(f"the hub could not come online on {host}:{port} within {wait} s")
        return self

    def _embedded_password(self) -> str:
        path = self.settings.broker_dir / "hub.password"
        if path.exists():
            return path.read_text().strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        password = secrets.token_urlsafe(18)
        path.write_text(password + "\n")
        path.chmod(0o600)
        return password

    def stop(self, timeout: float = 10.0) -> None:
        """Commit what is queued, say ``offline`` (retained), disconnect, close the store."""
        client = self._client
        self._stopping = True
        if client is not None:
            # Nothing new from here (what paho still receives is not acknowledged by us, so
            # the tables send it again to the next hub); commit and acknowledge what came in.
            client.on_message = None
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout)  # its last act is a final commit
            self._thread = None
        if client is not None:
            if self._connected.is_set():
                info = client.publish(
                    HUB_STATUS_TOPIC, self._status("offline"), 1, True,
                    properties=_announcing(PacketTypes.PUBLISH),
                )  # fmt: skip
                try:
                    info.wait_for_publish(timeout=2.0)
                except (RuntimeError, ValueError):
                    log.warning("the hub's offline status could not be sent")
            client.disconnect()
            client.loop_stop()
            self._client = None
        self._online.clear()
        self._connected.clear()
        if self.broker is not None:
            self.broker.stop()
            self.broker = None
        self.close()

    def close(self) -> None:
        self.store.close()

    def kill_connection(self) -> None:
        """Drop the broker connection without a goodbye (tests: the broker publishes the will)."""
        if self._client is not None:
            sock = self._client.socket()
            if sock is not None:
                sock.close()

    @property
    def online(self) -> bool:
        return self._online.is_set()

    def wait_online(self, timeout: float = 10.0) -> bool:
        return self._online.wait(timeout)

    def _status(self, state: StatusState) -> bytes:
        return HubStatus(state, self._session, time.time()).to_payload()

    # ── paho callbacks ──────────────────────────────────────────────────
    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if reason.is_failure:
            self.metrics.inc("connect_refused", reason=str(reason))
            log.error("the broker refused the hub: %s", reason)
            return
        self._connected.set()
        self.metrics.inc("connects")
        # Subscribe first; "online" goes out only once the subscriptions stand (on_subscribe),
        # so that nothing the tables resend in answer is missed.
        client.subscribe([(t, 1) for t in hub_subscriptions()])

    def _on_subscribe(
        self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, props: Any
    ) -> None:
        bad = [r for r in reasons if r.is_failure]
        if bad:
            log.error("the broker refused the hub's subscriptions: %s", bad)
            return
        for a in self.store.assignments():
            # The broker may have lost its retained messages (kill -9 before a save).
            # (the args hold the epoch: the table learns the same token again)
            client.publish(table_topic(a["table"], "assign"), _retained(a), 1, True)
        client.publish(
            HUB_STATUS_TOPIC, self._status("online"), 1, True,
            properties=_announcing(PacketTypes.PUBLISH),
        )  # fmt: skip
        self._online.set()
        log.info("hub online (session %d)", self._session)

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        self._flush()  # what came in before the connection dropped
        if self._connected.is_set() and not self._stopping:
            self.metrics.inc("disconnects")
            log.warning("hub disconnected from the broker: %s", reason)
        self._connected.clear()
        self._online.clear()
        if not self._stopping:
            # A silent loss (an access point that hangs) lasts until paho's keepalive gives
            # up: from then on the grid must not go on showing every table "en línea".
            self.ingest.broker_lost()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        # Ingest right here, on paho's thread: handing each message to another thread costs
        # more in GIL traffic than the validation itself. Group commit at the natural boundary:
        # when nothing more waits on the socket, or the batch is full.
        try:
            # bytes() of a bytes object is that object: no copy in the usual case.
            self.ingest.add(Incoming(msg.topic, bytes(msg.payload)))
        except Exception:
            log.exception("the hub could not store a message")
            self.metrics.inc("batch_failures")
            self.ingest.abort()
            return
        pending = self.ingest.pending
        # Under load, look at the socket every 32 messages only: a select() per message costs.
        if pending >= self.settings.batch_max or (
            (pending < 64 or pending % 32 == 0) and not _readable(client.socket())
        ):
            self._flush()

    def _flush(self) -> None:
        try:
            self.ingest.flush()
        except Exception:
            # Rolled back, nothing acknowledged: the tables will send it all again.
            log.exception("the hub could not commit a batch")
            self.metrics.inc("batch_failures")

    def _publish(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        if self._client is not None:
            self._client.publish(topic, payload, qos, retain)

    # ── the commit watchdog ─────────────────────────────────────────────
    def _run(self) -> None:
        """Commit a batch left open (its burst cut by a disconnection), and at the end; take
        the tables whose beats stopped as lost (a few times a second: a dict's scan)."""
        checked = 0.0
        while not self._stop.wait(0.05):
            now = time.monotonic()
            since = self.ingest.pending_since
            if since is not None and now - since > 0.05:
                self._flush()
            if now - checked >= BEAT_CHECK_SECONDS:
                checked = now
                try:
                    self.ingest.check_beats()
                except Exception:  # the watchdog must go on committing whatever happens
                    log.exception("the beat check failed")
        self._flush()

    # ── what the director (and the dashboard) can do ────────────────────
    def _known(self, table: str) -> str:
        try:
            check_table_id(table)
        except ProtocolError as e:
            self.metrics.refuse("unknown_table", str(e), table=str(table)[:32])
            raise UnknownTableError(f"no table {table!r} is known to this hub") from None
        if not self.store.known(table):
            self.metrics.refuse("unknown_table", "command for a table never seen", table=table)
            raise UnknownTableError(f"no table {table!r} is known to this hub")
        return table

    def register_table(self, table: str) -> None:
        """Make a provisioned table known before it has ever connected."""
        check_table_id(table)
        self.ingest.write(lambda: self.store.register_table(table))

    def assign(self, table: str, args: dict[str, Any] | None) -> str:
        """Publish ``table``'s assignment (retained); ``None`` withdraws it. Returns the txn."""
        return self.assign_fenced(table, args)[0]

    def assign_fenced(self, table: str, args: dict[str, Any] | None) -> tuple[str, int | None]:
        """:meth:`assign`, returning ``(txn, epoch)``: every assignment carries a new fencing
        token (``args["epoch"]``, larger than any before; None for a withdrawal), stored with
        it in one transaction. From then on the hub applies this table's match-affecting
        events only if they carry that epoch."""
        self._known(table)
        txn = new_id()
        # Validates the assign arguments with the table's own parser, before anything is kept.
        Assignment(table, txn, args, time.time()).check()

        def record() -> tuple[Assignment, int | None]:
            epoch = None if args is None else self.store.next_epoch()
            full = None if args is None else {**args, "epoch": epoch}
            self.store.set_assignment(table, txn, full, epoch)
            self.store.record_command(txn, table, "assign", "assign" if args else "unassign", full)
            return Assignment(table, txn, full, time.time()), epoch

        before = self.ingest.epoch(table), self.ingest.length(table)
        length = args.get("length") if args is not None else None

        def record_and_fence() -> tuple[Assignment, int | None]:
            msg, epoch = record()
            # Under the ingest's lock: no event is judged between the commit and the new token
            # (nor a match.ended against another match's length).
            self.ingest.set_epoch(table, epoch)
            self.ingest.set_length(table, length if isinstance(length, int) else None)
            return msg, epoch

        try:
            msg, epoch = self.ingest.write(record_and_fence)
        except BaseException:
            self.ingest.set_epoch(table, before[0])  # nothing was committed
            self.ingest.set_length(table, before[1])
            raise
        self._publish(table_topic(table, "assign"), msg.to_payload(), 1, True)
        return txn, epoch

    def unassign(self, table: str) -> str:
        return self.assign(table, None)

    def domino_assign(
        self, table: str, args: dict[str, Any] | None, tiempo: float | None = None
    ) -> str:
        """Publish a domino table's game and "TIEMPO" (one retained ``DominoAssignment``).

        Publishing the same ``args`` again with ``tiempo`` set is the director's "TIEMPO" (a
        new txn); the table re-reads the retained message on every reconnection.
        """
        return self.domino_assign_many({table: args}, tiempo)[table]

    def domino_assign_many(
        self, games: dict[str, dict[str, Any] | None], tiempo: float | None = None
    ) -> dict[str, str]:
        """:meth:`domino_assign` for many tables with one "TIEMPO": every message is checked
        first, recorded in one transaction, then published back to back (the whole room's
        call costs one commit, not one per table). Returns each table's txn."""
        msgs = {}
        for table, args in games.items():
            self._known(table)
            msgs[table] = DominoAssignment(table, new_id(), "domino", args, tiempo, time.time())
            msgs[table].check()

        def record() -> None:
            for table, msg in msgs.items():
                stored = None if msg.args is None else {**msg.args, "tiempo": tiempo}
                what = "tiempo" if tiempo is not None else ("assign" if msg.args else "unassign")
                self.store.set_assignment(table, msg.txn, stored)
                self.store.record_command(msg.txn, table, "assign", what, stored)

        self.ingest.write(record)
        for table, msg in msgs.items():
            self._publish(table_topic(table, "assign"), msg.to_payload(), 1, True)
        return {table: msg.txn for table, msg in msgs.items()}

    def domino_command(self, table: str, input: str, args: dict[str, Any]) -> str:
        """Send a director's domino command (``penalty``, ``absence``); returns the txn."""
        self._known(table)
        txn = new_id()
        msg = DominoCommand(table, txn, "domino", input, dict(args), time.time())
        try:
            msg.check()
        except ProtocolError as e:
            self.metrics.refuse(e.code, e.reason, table=table)
            raise
        self.ingest.write(lambda: self.store.record_command(txn, table, "cmd", input, msg.args))
        props = Properties(PacketTypes.PUBLISH)
        props.MessageExpiryInterval = CMD_EXPIRY_SECONDS
        if self._client is not None:
            self._client.publish(table_topic(table, "cmd"), msg.to_payload(), 1, False, props)
        return txn

    def command(self, table: str, input: str, args: dict[str, Any] | None = None) -> str:
        """Send a director command (one of :data:`mesa.protocol.CMD_INPUTS`); returns the txn.

        The table answers on its ``response`` topic; :meth:`command_status` shows the answer.
        """
        self._known(table)
        txn = new_id()
        msg = Command(table, txn, input, dict(args or {}), time.time())
        try:
            msg.check()
        except ProtocolError as e:
            self.metrics.refuse(e.code, e.reason, table=table)
            raise
        self.ingest.write(lambda: self.store.record_command(txn, table, "cmd", input, msg.args))
        props = Properties(PacketTypes.PUBLISH)
        props.MessageExpiryInterval = CMD_EXPIRY_SECONDS
        if self._client is not None:
            self._client.publish(table_topic(table, "cmd"), msg.to_payload(), 1, False, props)
        return txn

    # ── reading ─────────────────────────────────────────────────────────
    def tables(self) -> list[dict[str, Any]]:
        """The live projection of every table (the dashboard's JSON twin)."""
        return self.projections.all()

    def table(self, table: str) -> dict[str, Any] | None:
        live = self.projections.get(table)
        return live.to_dict() if live else None

    def events(
        self, table: str | None = None, *, since: int = 0, limit: int = 1000
    ) -> list[dict[str, Any]]:
        """Committed events (of one table, or all) in commit order, after rowid ``since``."""
        return self.store.events(table, since=since, limit=limit)

    def command_status(self, txn: str) -> dict[str, Any] | None:
        return self.store.command(txn)

    def contiguous(self, table: str, stream: str) -> int:
        return self.ingest.contiguous(table, stream)


def _announcing(packet: int) -> Properties:
    """The hub's status (and will) properties: the protocol revisions it speaks, which each
    table compares with its own (docs/protocol.md "Revisions"). Beside the payload, so that a
    table of the first revision, which would refuse an unknown field, reads the status as ever."""
    props = Properties(packet)
    props.UserProperty = (REVISIONS_PROPERTY, str(REVISIONS))
    return props


def _retained(a: dict[str, Any]) -> bytes:
    """A stored assignment as its table reads it: a domino game (stored with its "TIEMPO"
    instant beside the game's arguments, :meth:`Hub.domino_assign_many`) as the
    ``DominoAssignment`` a domino table parses, never as a backgammon ``Assignment`` (which
    it refuses: its game would be lost on the hub's restart).

    >>> import json
    >>> d = {"table": "d1", "txn": "x", "ts": 1.0,
    ...      "args": {"game_id": "D1:R1-M1", "players": {}, "tiempo": 5.0}}
    >>> sorted(json.loads(_retained(d))), json.loads(_retained(d))["tiempo"]
    (['args', 'game', 'table', 'tiempo', 'ts', 'txn', 'v'], 5.0)
    >>> sorted(json.loads(_retained({"table": "1", "txn": "y", "ts": 1.0, "args": None})))
    ['args', 'table', 'ts', 'txn', 'v']
    """
    args = a["args"]
    if isinstance(args, dict) and "game_id" in args:
        game = {k: v for k, v in args.items() if k != "tiempo"}
        return DominoAssignment(
            a["table"], a["txn"], "domino", game, args.get("tiempo"), a["ts"]
        ).to_payload()
    return Assignment(a["table"], a["txn"], args, a["ts"]).to_payload()


def _readable(sock: SocketLike | None) -> bool:
    """Whether more bytes already wait on the socket (without blocking)."""
    if sock is None:
        return False
    try:
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return False
