"""The table's link to the hub: an :class:`OutcomeSink` that ships events over MQTT 5.

Every outcome's events go into the durable :class:`Outbox` first, then out on
``mesa/v1/table/<id>/event`` at QoS 1; the hub's ``ack`` (sent after its commit) releases them.
Hub ``assign`` and ``cmd`` messages become inputs through an :class:`InputSubmitter`, and each is
answered on ``response`` with its ``txn`` once the table has applied (or refused) it.

The link never blocks its caller: :meth:`TableLink.on_outcome` only queues, and one worker thread
does the disk and network work, so the clock runs whatever the Wi-Fi does.

Plugging it into a runtime::

    outbox = Outbox("/var/lib/mesa/outbox.sqlite3", table="3")
    link = TableLink(LinkSettings.from_file("/etc/mesa/table.json"), outbox,
                     submitter=runtime, snapshot=table.snapshot())
    runtime.add_sink(link)      # the runtime calls link.on_outcome(outcome, snapshot, now)
    link.start()                # returns at once; connects and reconnects in the background
    ...
    link.stop()                 # publishes "offline", disconnects cleanly

>>> LinkSettings(table="3", password="pw").username
'3'
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import random
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from mesa import events as ev
from mesa.controller.outbox import STORAGE_ERRORS, Outbox, is_disk_full
from mesa.controller.ports import InputSubmitter
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome
from mesa.errors import ConfigError
from mesa.metrics import Metrics
from mesa.protocol import (
    BEAT_REVISION,
    FIRST_REVISION,
    HUB_STATUS_TOPIC,
    REVISIONS,
    REVISIONS_PROPERTY,
    Ack,
    Beat,
    HubStatus,
    ProtocolError,
    Response,
    Revisions,
    StateReport,
    StatusState,
    TableStatus,
    beat_every,
    check_table_id,
    decode,
    loads,
    parse_topic,
    table_subscriptions,
    table_topic,
)

if TYPE_CHECKING:
    from mesa.controller.games import TableGame

log = logging.getLogger("mesa.link")


@dataclass(frozen=True)
class LinkSettings:
    """Where the hub's broker is and who this table is. ``username`` defaults to the table id
    (the broker's ACL ties topics to it)."""

    table: str
    host: str = "127.0.0.1"
    port: int = 1883
    username: str | None = None
    password: str | None = None
    keepalive: int = 15
    # Reconnection: the delay doubles from ``reconnect_min`` up to ``reconnect_max`` seconds,
    # and each wait is shortened by a random part of up to ``reconnect_jitter`` of it. When the
    # access point reboots every table loses the broker in the same instant; without the jitter
    # they would all retry in the same second, every time, and the broker and the hub would take
    # 200 sessions and their backlogs at once (bench/reconnect_storm.py). The ceiling is short
    # so that a table is back within seconds of the Wi-Fi.
    reconnect_min: float = 1.0
    reconnect_max: float = 10.0
    reconnect_jitter: float = 0.5
    # A table may be off the network for a whole evening; its session must outlive that.
    session_expiry: int = 7 * 24 * 3600
    # No ack progress for this long while the hub is online: send the unacknowledged again.
    resend_after: float = 10.0
    # At most this many events past the last ack are on the wire at once.
    window: int = 500
    # The venue CA's certificate (PEM text, from the link file): set, the link speaks TLS and
    # trusts only a broker certified by it; None, plain MQTT (loopback tests, the demo).
    tls_ca: str | None = None

    def __post_init__(self) -> None:
        check_table_id(self.table)
        if self.username is None:
            object.__setattr__(self, "username", self.table)

    @classmethod
    def from_file(cls, path: str | Path) -> LinkSettings:
        """Read the JSON written by ``mesa provision-table``."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            hub = data["hub"]
            return cls(
                table=data["table"],
                host=hub["host"],
                port=int(hub["port"]),
                username=hub.get("username"),
                password=hub.get("password"),
                tls_ca=hub.get("tls_ca"),
            )
        except (OSError, ValueError, KeyError, TypeError, ProtocolError) as e:
            raise ConfigError(f"{path}: not a table link file ({e})") from None


def _announced(msg: mqtt.MQTTMessage) -> Revisions | None:
    """The protocol revisions a hub status message announces (None: a hub of revision 1,
    which announces nothing, or a value that is not one)."""
    props = getattr(msg, "properties", None)
    for key, value in getattr(props, "UserProperty", None) or ():
        if key == REVISIONS_PROPERTY:
            return Revisions.parse(value)
    return None


def tls_context(ca_pem: str) -> ssl.SSLContext:
    """A client context that trusts only the venue CA ``ca_pem`` and checks the hub's name."""
    try:
        return ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cadata=ca_pem)
    except (ssl.SSLError, ValueError) as e:
        raise ConfigError(f"the venue CA in the link file is not a certificate ({e})") from None


def reconnect_delay(
    attempt: int, settings: LinkSettings, rand: Callable[[], float] = random.random
) -> float:
    """The wait before reconnection attempt ``attempt`` (0: the first after a loss).

    >>> s = LinkSettings(table="3")
    >>> [reconnect_delay(n, s, rand=lambda: 0.0) for n in range(6)]
    [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    >>> [reconnect_delay(n, s, rand=lambda: 1.0) for n in range(6)]
    [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]
    """
    nominal = min(settings.reconnect_max, settings.reconnect_min * 2 ** min(attempt, 30))
    return nominal * (1.0 - settings.reconnect_jitter * rand())


@dataclass
class _Pending:
    input: Input
    txn: str
    kind: str  # "assign", "cmd", "quiet" (a step of an assignment, answered with it), "sync"
    at: float = field(default_factory=time.monotonic)


class AssignPort(Protocol):
    """What a game's handler of the hub's ``assign`` and ``cmd`` messages
    (:meth:`~mesa.controller.games.TableGame.on_message`) may do with the link."""

    table: str
    metrics: Metrics

    @property
    def snapshot(self) -> dict[str, Any]:
        """The table's last snapshot the link has seen (empty before any)."""
        ...

    def wall(self) -> float:
        """This table's wall clock now."""
        ...

    def assign_txn(self) -> str | None:
        """The txn of the last assignment answered."""
        ...

    def in_flight(self, txn: str) -> bool:
        """Whether an input of ``txn`` is on its way to the table."""
        ...

    def settled(self) -> bool:
        """Whether no earlier assignment is still on its way to the table."""
        ...

    def submit(self, inp: Input, txn: str, kind: str) -> None:
        """Hand ``inp`` to the table, answered on ``response`` as ``kind``: ``assign``,
        ``cmd``, ``quiet`` (a step of an assignment, answered with it) or ``sync`` (never
        answered: a re-anchoring nobody waits for)."""
        ...

    def done_assign(self, txn: str, accepted: bool, code: str | None, reason: str | None) -> None:
        """Answer the assignment ``txn`` (and remember it)."""
        ...


class TableLink:
    """One table's MQTT link: outbox in, acks out, hub commands in, responses out.

    ``game`` (a :class:`~mesa.controller.games.TableGame` or its name; backgammon by default)
    reads the hub's ``assign`` and ``cmd`` messages in its own vocabulary, through the link's
    :class:`AssignPort`; the status the link publishes names the game.
    """

    def __init__(
        self,
        settings: LinkSettings,
        outbox: Outbox,
        submitter: InputSubmitter | None = None,
        *,
        snapshot: dict[str, Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        metrics: Metrics | None = None,
        game: TableGame | str = "backgammon",
        revisions: Revisions = REVISIONS,
    ) -> None:
        from mesa.controller.games import as_table_game

        self.game = as_table_game(game)
        if outbox.table != settings.table:
            raise ConfigError(f"outbox of table {outbox.table!r} given to table {settings.table!r}")
        self.settings = settings
        self.table = settings.table
        self.outbox = outbox
        self.submitter = submitter
        self.metrics = metrics or Metrics(logger=log)
        self._clock = clock
        self._wall = wall
        self._snapshot = snapshot if snapshot is not None else outbox.snapshot()
        # The snapshot as of the last *stored* event: the state report pairs it with last_seq.
        self._stored_snapshot = self._snapshot
        # Events not in the outbox yet (a full disk): appended in order, under the numbers they
        # get then, before anything newer; the sequence never skips and nothing is dropped.
        # (events, wall time, snapshot, assignment epoch) waiting for room in the outbox, oldest first.
        self._unstored: deque[
            tuple[list[tuple[str, dict[str, Any], float]], float, Any, int | None]
        ] = deque()
        self.storage_error: str | None = None  # why the last append failed, while it lasts
        self.disk_full = False
        self._queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._pending: deque[_Pending] = deque()
        self._worker: threading.Thread | None = None
        self._connected = threading.Event()
        self._hub_online = False
        self._sent_upto = outbox.acked  # highest seq put on the wire in this connection
        self._last_progress = time.monotonic()
        self._handed = 0  # outcomes queued by on_outcome
        self._stored = 0  # ... and processed by the worker
        self._stored_cv = threading.Condition()
        self._bdseq = 0
        # The protocol revisions this table speaks, and the one it speaks with this hub: its
        # lowest until the hub's retained status has told what the hub speaks.
        self.revisions = revisions
        self._revision = revisions.low
        self._hub_mismatch: str | None = None  # "hub_too_old" / "hub_too_new": cannot talk
        # Revision 3's beat: sent by the worker (never the runtime's thread) while connected to
        # a hub that speaks it, nothing stored; ``_next_beat`` is None while not beating.
        every = beat_every(settings.keepalive)
        self._beat_every = every
        self._beat_payload = Beat(self.table, every).to_payload() if every is not None else b""
        self._next_beat: float | None = None
        self._client = self._make_client()
        if outbox.rebuilt is not None:
            # Tell the hub first thing on the new stream why there is a new stream.
            rebuilt = ev.OutboxRebuilt(**outbox.rebuilt)
            self._unstored.append(
                (
                    [(rebuilt.TYPE, rebuilt.to_data(), self._clock())],
                    self._wall(),
                    self._snapshot,
                    None,  # not a match's event: no assignment token
                )
            )
            self._store()

    # ── lifecycle ───────────────────────────────────────────────────────
    def _make_client(self) -> mqtt.Client:
        s = self.settings
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"{s.username}",
            protocol=mqtt.MQTTv5,
        )
        if s.username is not None:
            client.username_pw_set(s.username, s.password)
        if s.tls_ca is not None:
            client.tls_set_context(tls_context(s.tls_ca))
        self._attempt = 0
        self._rand = random.Random()  # its own: a seeded global generator must not align tables
        # paho waits ``min_delay`` after a loss and doubles it after each failure, the same for
        # every table; the link sets each wait itself (``_next_wait``) with its own jitter.
        client.reconnect_delay_set(*self._wait_bounds(reconnect_delay(0, s, self._rand.random)))
        client.max_inflight_messages_set(100)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        return client

    @staticmethod
    def _wait_bounds(delay: float) -> tuple[int, int]:
        # paho's annotation says int, its arithmetic takes any number: a fraction of a second
        # is what spreads the tables apart.
        return cast(int, delay), cast(int, delay)

    def _next_wait(self) -> None:
        """(paho's thread, before it waits.) Set the wait before the next attempt: paho resets
        to ``min_delay`` on every ``reconnect_delay_set``, and this makes min = max = ours."""
        delay = reconnect_delay(self._attempt, self.settings, self._rand.random)
        self._attempt += 1
        self._client.reconnect_delay_set(*self._wait_bounds(delay))

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        self._next_wait()

    def _set_will(self) -> None:
        self._bdseq = self.outbox.next_bdseq()
        self._client.will_set(
            table_topic(self.table, "status"),
            self._status("lost").to_payload(),
            qos=1,
            retain=True,
        )

    def _status(self, state: StatusState) -> TableStatus:
        return TableStatus(
            self.table, state, self._bdseq, self._wall(), game=self.game.name,
            revision=self._revision,
        )  # fmt: skip

    def start(self) -> None:
        """Start connecting in the background and return at once."""
        if self._worker is not None:
            return
        self._set_will()
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = self.settings.session_expiry
        self._client.connect_async(
            self.settings.host,
            self.settings.port,
            keepalive=self.settings.keepalive,
            clean_start=False,
            properties=props,
        )
        self._worker = threading.Thread(target=self._run, name=f"link-{self.table}", daemon=True)
        self._worker.start()
        self._client.loop_start()

    def stop(self, timeout: float = 5.0) -> None:
        """Store what is queued, say ``offline`` (retained) and disconnect cleanly."""
        if self._worker is None:
            return
        self._queue.put(("stop",))
        self._worker.join(timeout)
        if self._connected.is_set():
            info = self._client.publish(
                table_topic(self.table, "status"), self._status("offline").to_payload(), 1, True
            )
            # Disconnected meanwhile: the will says "lost", which is true enough.
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout=min(timeout, 2.0))
        self._client.disconnect()
        self._client.loop_stop()
        self._worker = None

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def hub_online(self) -> bool:
        return self._hub_online

    @property
    def hub_mismatch(self) -> str | None:
        """``hub_too_old`` / ``hub_too_new`` while this table and its hub speak no protocol
        revision in common (the table's screen says so); None otherwise."""
        return self._hub_mismatch

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every outcome handed over so far is in the outbox; False on timeout."""
        target = self._handed
        with self._stored_cv:
            return self._stored_cv.wait_for(lambda: self._stored >= target, timeout)

    # ── the OutcomeSink ─────────────────────────────────────────────────
    def on_outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float) -> None:
        """Queue the outcome for the worker (never blocks: the clock must not wait on us)."""
        self._handed += 1
        self._queue.put(("outcome", outcome, snapshot, now, self._wall()))

    # ── paho callbacks (paho's thread: hand over, do no slow work) ──────
    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if reason.is_failure:
            self.metrics.inc("connect_refused", reason=str(reason))
            log.warning("table %s: broker refused the connection: %s", self.table, reason)
            return
        self.metrics.inc("connects")
        self._attempt = 0
        client.subscribe([(t, 1) for t in table_subscriptions(self.table)])
        client.publish(
            table_topic(self.table, "status"), self._status("online").to_payload(), 1, True
        )
        self._connected.set()
        self._queue.put(("connected",))

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        was = self._connected.is_set()
        self._connected.clear()
        self._next_wait()
        self._queue.put(("disconnected",))
        if was:
            self.metrics.inc("disconnects")
            log.info("table %s: disconnected (%s)", self.table, reason)
            # The next connection is a new birth: its will must carry the new count, and the
            # lowest revision (the hub may have changed meanwhile; any hub reads that one).
            self._revision = self.revisions.low
            self._set_will()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        if msg.topic == HUB_STATUS_TOPIC:
            self._queue.put(("message", msg.topic, msg.payload, _announced(msg)))
        else:
            self._queue.put(("message", msg.topic, msg.payload))

    # ── the worker ──────────────────────────────────────────────────────
    def _run(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=self._idle_wait())
            except queue.Empty:
                self._tick()
                continue
            kind = item[0]
            try:
                if kind == "stop":
                    while True:  # store what the runtime handed us before saying goodbye
                        try:
                            rest = self._queue.get_nowait()
                        except queue.Empty:
                            break
                        if rest[0] == "outcome":
                            self._outcome(*rest[1:])
                    if self._unstored:
                        self._store()
                    if self._unstored:
                        log.error(
                            "table %s: stopping with %d event(s) the full outbox could not take;"
                            " the journal has the inputs that made them",
                            self.table,
                            self.unstored,
                        )
                    return
                elif kind == "outcome":
                    self._outcome(*item[1:])
                elif kind == "connected":
                    self._sent_upto = self.outbox.acked
                    self._hub_online = False  # until the retained hub status says otherwise
                elif kind == "disconnected":
                    self._hub_online = False
                elif kind == "message":
                    self._message(*item[1:])
            except Exception:
                # One bad message or a full disk must not kill the link; the next trigger retries.
                log.exception("table %s: link worker failed on %s", self.table, kind)
                self.metrics.inc("worker_errors")
            self._tick()

    def _tick(self) -> None:
        if self._unstored:
            self._store()
        box = self.outbox
        if (
            self._connected.is_set()
            and self._hub_online
            and box.pending
            and time.monotonic() - self._last_progress > self.settings.resend_after
        ):
            self.metrics.inc("resends", reason="no_ack")
            self._resend(box.acked + 1)
        self._expire_pending()
        self._beat()

    def _idle_wait(self) -> float:
        """How long the worker may wait for work: a second, or less when a beat is due."""
        due = self._next_beat
        if due is None:
            return 1.0
        return min(1.0, max(0.0, due - time.monotonic()))

    @property
    def beating(self) -> bool:
        """Whether this table beats now: connected, its hub online and speaking revision 3 or
        later (an older hub does not know the topic and would count the beat as hostile)."""
        return (
            self._beat_every is not None
            and self._connected.is_set()
            and self._hub_online
            and self._hub_mismatch is None
            and self._revision >= BEAT_REVISION
        )

    def _beat(self) -> None:
        """Publish the beat when it is due (QoS 0, not retained: a lost one is the point)."""
        if not self.beating:
            self._next_beat = None
            return
        now = time.monotonic()
        if self._next_beat is not None and now < self._next_beat:
            return
        assert self._beat_every is not None  # (beating says so)
        self._next_beat = now + self._beat_every
        self._client.publish(table_topic(self.table, "beat"), self._beat_payload, qos=0)
        self.metrics.inc("beats_sent")

    def _outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float, wall: float) -> None:
        try:
            self._snapshot = snapshot
            if outcome.events:
                self._unstored.append(
                    (
                        [(e.TYPE, e.to_data(), now) for e in outcome.events],
                        wall,
                        snapshot,
                        outcome.epoch,
                    )
                )
                self._store()
            if outcome.events or (outcome.accepted and outcome.input.name != "tick"):
                self._publish_state()
            self._answer(outcome)
        finally:
            with self._stored_cv:
                self._stored += 1
                self._stored_cv.notify_all()

    def _store(self) -> None:
        """Append what is waiting, oldest first, stopping at the first failure (retried from
        :meth:`_tick` every second and at every new outcome)."""
        stored = False
        while self._unstored:
            events, wall, snapshot, epoch = self._unstored[0]
            try:
                self.outbox.append(events, ts=wall, snapshot=snapshot, epoch=epoch)
            except STORAGE_ERRORS as e:
                self._storage_failed(e)
                break
            self._unstored.popleft()
            self._stored_snapshot = snapshot
            stored = True
        if stored:
            if self.storage_error is not None and not self._unstored:
                log.warning("table %s: the outbox is writable again", self.table)
                self.storage_error, self.disk_full = None, False
                self.metrics.inc("storage_recovered")
                self._publish_state()
            self._pump()

    def _storage_failed(self, error: BaseException) -> None:
        first = self.storage_error is None
        self.storage_error = str(error)[:200]
        self.disk_full = is_disk_full(error)
        self.metrics.inc("append_failed", reason="disk_full" if self.disk_full else "error")
        if first:
            log.error(
                "table %s: outbox append failed (%s); %d outcome(s) kept in memory, retrying",
                self.table,
                error,
                len(self._unstored),
            )
            self._publish_state()

    @property
    def unstored(self) -> int:
        """Events waiting for room in the outbox."""
        return sum(len(events) for events, _, _, _ in self._unstored)

    def _publish(self, kind: str, payload: bytes, retain: bool = False) -> None:
        self._client.publish(table_topic(self.table, kind), payload, qos=1, retain=retain)

    def _publish_state(self) -> None:
        if not self._connected.is_set() or self._stored_snapshot is None:
            return
        if self._hub_mismatch is not None:
            return  # a hub that cannot read this table's snapshot: it has its status
        box = self.outbox
        snapshot = self._stored_snapshot
        if self.storage_error is not None:
            # The hub sees why the sequence stands still ("disco lleno" on the dashboard).
            snapshot = {
                **snapshot,
                "storage": "disk_full" if self.disk_full else "error",
                "unstored": self.unstored,
            }
        report = StateReport(
            self.table, box.stream, box.last_seq, box.acked, self._wall(), snapshot
        )
        self._publish("state", report.to_payload(), retain=True)

    def _pump(self) -> None:
        """Put unacknowledged events on the wire, up to ``window`` past the last ack."""
        if not (self._connected.is_set() and self._hub_online):
            return  # the outbox keeps them; "hub online" will trigger the resend
        box = self.outbox
        limit = box.acked + self.settings.window - self._sent_upto
        if limit <= 0 or self._sent_upto >= box.last_seq:
            return
        for seq, payload in box.unacked_payloads(self._sent_upto + 1, limit):
            self._publish("event", payload)
            self._sent_upto = seq
            self.metrics.inc("events_sent")

    def _resend(self, from_seq: int) -> None:
        self._sent_upto = max(self.outbox.acked, from_seq - 1)
        self._last_progress = time.monotonic()
        self._pump()

    # ── from the hub ────────────────────────────────────────────────────
    def _message(self, topic: str, payload: bytes, hub: Revisions | None = None) -> None:
        try:
            if topic == HUB_STATUS_TOPIC:
                self._hub_status(decode(HubStatus, payload), hub or FIRST_REVISION)
                return
            table, kind = parse_topic(topic)
            if table != self.table:
                raise ProtocolError("table_mismatch", f"message for table {table!r}")
            if self._hub_mismatch is not None and kind != "status":
                # No revision in common: what this hub says is not applied (nor answered).
                self.metrics.inc("ignored_hub_mismatch", kind=kind)
                return
            if kind == "ack":
                self._ack(decode(Ack, payload, table))
            elif kind == "status":
                self._own_status(decode(TableStatus, payload, table))
            elif kind in ("assign", "cmd"):
                self.game.on_message(self, kind, payload)
            else:
                raise ProtocolError("bad_topic", f"a table does not read {kind!r}")
        except ProtocolError as e:
            self.metrics.refuse(e.code, e.reason, table=self.table, topic=topic)
            self._refuse_txn(topic, payload, e)

    def _refuse_txn(self, topic: str, payload: bytes, error: ProtocolError) -> None:
        """A malformed assign/cmd that still names a txn gets a refusal, so the hub knows."""
        if not topic.endswith(("/cmd", "/assign")):
            return
        try:
            obj = loads(payload)
        except ProtocolError:
            return
        txn = obj.get("txn") if isinstance(obj, dict) else None
        if isinstance(txn, str) and 0 < len(txn) <= 64:
            self._respond(txn, False, error.code, error.reason)

    def _hub_status(self, status: HubStatus, hub: Revisions) -> None:
        self.metrics.inc("hub_status", state=status.state)
        if status.state == "online":
            self._negotiate(hub)
        online = status.state == "online" and self._hub_mismatch is None
        self._hub_online = online
        if online:
            # Whatever the hub lost (a restart, a broker that forgot its queue) comes back now.
            self._publish_state()
            self._resend(self.outbox.acked + 1)

    def _negotiate(self, hub: Revisions) -> None:
        """Speak the highest revision this table and the hub both know; with none in common,
        hold back and say so (on the screen, through :attr:`hub_mismatch`, and to the hub in
        the status: the revision it cannot speak)."""
        mine = self.revisions
        mismatch = mine.mismatch(hub)
        common = mine.common(hub)
        revision = common if common is not None else (
            mine.low if mismatch == "hub_too_old" else mine.high
        )  # fmt: skip
        if mismatch != self._hub_mismatch:
            self._hub_mismatch = mismatch
            if mismatch is not None:
                self.metrics.inc("hub_mismatch", why=mismatch)
                log.error(
                    "table %s speaks protocol revisions %s, the hub %s: %s; holding back",
                    self.table, mine, hub, mismatch.replace("_", " "),
                )  # fmt: skip
        if revision != self._revision:
            self._revision = revision
            if self._connected.is_set():
                self._publish("status", self._status("online").to_payload(), retain=True)

    def _own_status(self, status: TableStatus) -> None:
        # A will from an older connection can land after our "online": say it again.
        if status.state != "online" and status.bdseq <= self._bdseq and self._connected.is_set():
            self.metrics.inc("stale_will_corrected")
            self._publish("status", self._status("online").to_payload(), retain=True)

    def _ack(self, ack: Ack) -> None:
        box = self.outbox
        if ack.stream != box.stream:
            self.metrics.refuse(
                "other_stream", f"ack for stream {ack.stream}", table=self.table, level=logging.INFO
            )
            return
        if ack.seq > box.last_seq:
            self.metrics.refuse(
                "ack_beyond", f"ack {ack.seq} > last seq {box.last_seq}", table=self.table
            )
            return
        before = box.acked
        try:
            box.ack(ack.stream, ack.seq)
        except STORAGE_ERRORS as e:
            # A full disk: the mark stays where it was; the hub acknowledges again later.
            self.metrics.inc("ack_not_stored")
            log.debug("table %s: ack %d not stored: %s", self.table, ack.seq, e)
            return
        if box.acked > before:
            self._last_progress = time.monotonic()
            self.metrics.inc("events_acked", box.acked - before)
        self._sent_upto = max(self._sent_upto, box.acked)
        if ack.resend_from is not None:
            self.metrics.inc("resends", reason="hub_gap")
            self._resend(ack.resend_from)
        else:
            self._pump()

    # ── the AssignPort (the game's handler of assign and cmd) ────────────
    @property
    def snapshot(self) -> dict[str, Any]:
        return self._snapshot or {}

    def wall(self) -> float:
        return self._wall()

    def assign_txn(self) -> str | None:
        return self.outbox.get_meta("assign_txn")

    def in_flight(self, txn: str) -> bool:
        return any(p.txn == txn for p in self._pending)

    def settled(self) -> bool:
        return not any(p.kind in ("assign", "quiet") for p in self._pending)

    def submit(self, inp: Input, txn: str, kind: str) -> None:
        if self.submitter is None:
            self._respond(txn, False, "no_runtime", "this link has no runtime to apply inputs")
            return
        self._pending.append(_Pending(inp, txn, kind))
        try:
            self.submitter.submit(inp, self._clock())
        except Exception as e:  # the runtime's problem, but the hub deserves an answer
            self._pending.pop()
            self._respond(txn, False, "submit_failed", str(e)[:200])

    def _answer(self, outcome: Outcome) -> None:
        for i, p in enumerate(self._pending):
            if p.kind == "sync" and p.input == outcome.input:
                del self._pending[i]  # a re-anchoring: nobody waits for its answer
                return
        for i, p in enumerate(self._pending):
            if p.input == outcome.input:
                del self._pending[i]
                r = outcome.refusal
                # Accepted, the code is the outcome's note (None, or e.g. clock_next_game).
                code, reason = (r.code, r.message) if r else (outcome.note, None)
                accepted = outcome.accepted
                if p.input.name == "unassign" and code == "not_now":
                    accepted, code, reason = True, None, None  # already free: as asked
                if p.kind == "quiet":
                    return  # a step of an assignment: the assignment itself is answered
                if p.kind == "assign" and code == "flag_fell":
                    # The flag fell just before it, and that input settled the fall: the
                    # hub's word still stands, so it goes to the table once more.
                    self.submit(p.input, p.txn, p.kind)
                    return
                if p.kind == "assign":
                    self.done_assign(p.txn, accepted, code, reason)
                else:
                    self._respond(p.txn, accepted, code, reason)
                return

    def _expire_pending(self) -> None:
        while self._pending and time.monotonic() - self._pending[0].at > 30.0:
            if self._pending[0].kind == "sync":  # a re-anchoring nobody waits for
                self._pending.popleft()
                continue
            p = self._pending.popleft()
            self._respond(p.txn, False, "no_outcome", "the table did not apply it within 30 s")

    def done_assign(self, txn: str, accepted: bool, code: str | None, reason: str | None) -> None:
        try:
            self.outbox.set_meta("assign_txn", txn)
        except STORAGE_ERRORS as e:
            # A full disk: the hub still gets its answer; a redelivered assignment of the same
            # match is recognised by its match id.
            log.warning("table %s: assignment %s not remembered: %s", self.table, txn, e)
        self._respond(txn, accepted, code, reason)

    def _respond(self, txn: str, accepted: bool, code: str | None, reason: str | None) -> None:
        self.metrics.inc("responses", accepted=str(accepted).lower())
        # Published even while disconnected: paho queues it and sends it on reconnection.
        resp = Response(self.table, txn, accepted, code, reason, self._wall())
        self._publish("response", resp.to_payload())
