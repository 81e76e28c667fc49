"""The hub's ingest: validate what tables send, commit it, then acknowledge it.

Messages arrive in batches (whatever queued up while the previous batch committed). A batch is
one SQLite transaction; only after its commit does the hub publish, per table stream, an ``ack``
carrying the highest contiguous seq it holds. An event is stored only if it is its stream's next
seq: a duplicate is counted and acknowledged again, an event past a gap is refused and the ack
asks the table to resend from the gap. Every refusal is logged with its reason and counted under
``refused{reason=...}``; a refused message changes nothing. A batch that fails to commit is
retried message by message, so that one message the store cannot take (``unstorable``) never
holds back the other tables'. A match-affecting event (:data:`mesa.events.FENCED_TYPES`) whose
epoch is not its table's current assignment's is stored (the stream stays gap-free) with that
verdict, counted under ``fenced{reason=...}``, and never applied by the desk. So is a
``match.ended`` that contradicts itself (:mod:`mesa.hub.ingest.results`), with the verdict
``contradictory_result``, counted under ``refused{reason=contradictory_result}`` too.

>>> import tempfile, pathlib
>>> from mesa.hub.ingest.store import EventStore
>>> from mesa.protocol import EventEnvelope, table_topic
>>> sent = []
>>> ingest = Ingest(EventStore(pathlib.Path(tempfile.mkdtemp()) / "h.sqlite3"),
...                 publish=lambda topic, payload, qos, retain: sent.append(topic))
>>> env = EventEnvelope.build("3", "s1", 1, "clock.resumed", {"by": "players"}, ts=1.0, t=0.0)
>>> ingest.handle([Incoming(table_topic("3", "event"), env.to_payload())])
>>> ingest.handle([Incoming(table_topic("4", "event"), env.to_payload())])   # wrong topic
>>> sent, ingest.metrics.get("refused", reason="table_mismatch")
(['mesa/v1/table/3/ack'], 1)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mesa.events import FENCED_TYPES
from mesa.hub.ingest.beats import Heartbeats
from mesa.hub.ingest.ports import Commit, CommitListener
from mesa.hub.ingest.projections import Projections
from mesa.hub.ingest.results import CONTRADICTORY, result_refusal
from mesa.hub.ingest.store import EventStore
from mesa.metrics import Metrics
from mesa.protocol import (
    BEATS_MISSED,
    Ack,
    Beat,
    EventEnvelope,
    ProtocolError,
    Response,
    StateReport,
    TableStatus,
    decode,
    parse_topic,
    table_topic,
)

log = logging.getLogger("mesa.hub.ingest.pipeline")

Publish = Callable[[str, bytes, int, bool], Any]
# A gap is asked to be filled again only after this long: the resend is already on its way.
RESEND_INTERVAL = 1.0


@dataclass(slots=True)
class Incoming:
    """One MQTT message as the hub received it."""

    topic: str
    payload: bytes


class _Batch:
    """What the open transaction holds, applied to the hub's memory only after its commit."""

    def __init__(self, contiguous: dict[tuple[str, str], int]) -> None:
        self.cont = dict(contiguous)
        self.size = 0
        self.touched: dict[tuple[str, str], int | None] = {}  # stream → resend_from
        self.committed: list[EventEnvelope] = []
        self.held: dict[tuple[str, str], dict[int, tuple[EventEnvelope, bytes]]] = {}
        self.statuses: list[TableStatus] = []
        self.states: list[StateReport] = []
        self.registering: set[str] = set()
        self.bdseq: dict[str, int] = {}
        self.duplicates: dict[tuple[str, str], tuple[int, int, int]] = {}  # n, first, last
        self.rows: list[tuple[Any, ...]] = []  # events to insert, parallel to ``committed``
        self.rowids: list[int] = []  # once written: each committed event's rowid, in order
        # (table, stream, seq) → id of the rows above, built only when a duplicate asks
        self.ids: dict[tuple[str, str, int], str] | None = None
        # Every message written into this transaction, to retry one by one if it fails.
        self.messages: list[tuple[Incoming, Any]] = []
        self.failed: BaseException | None = None
        self.fenced: list[tuple[EventEnvelope, str]] = []  # stored, not applied: why
        self.contradictions: dict[str, str] = {}  # event id → why its result cannot be


class _MessageFailed(Exception):
    """A message's store writes failed; the batch is retried message by message."""


# Events past a gap wait (in memory, uncommitted) for the gap to fill within the batch.
HOLD_MAX = 1000
# Seconds between two log lines about one table's fenced events (each is counted).
FENCE_LOG_INTERVAL = 60.0


class Ingest:
    """Turns :class:`Incoming` messages into committed rows, projections and acks.

    :meth:`add` validates a message and writes it into the open transaction; :meth:`flush`
    commits, then updates the projections and publishes the acks. :meth:`handle` is both for a
    batch. Thread-safe: the MQTT thread adds, any thread may flush.
    """

    def __init__(
        self,
        store: EventStore,
        *,
        metrics: Metrics | None = None,
        projections: Projections | None = None,
        publish: Publish | None = None,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.metrics = metrics or Metrics(logger=log)
        self.projections = projections or Projections()
        self.publish = publish
        self.lock = threading.RLock()
        self._clock = clock
        self._contiguous = store.contiguous_all()
        self._bdseq = store.table_bdseqs()
        self._asked: dict[tuple[str, str], tuple[int, float]] = {}
        self._registered: set[str] = set()  # tables whose row is committed
        # Each table's current fencing token (its assignment's epoch; None: no assignment).
        self._epochs: dict[str, int | None] = store.assignment_epochs()
        # Each table's match length as the hub assigned it: a match.ended is checked against it.
        self._lengths: dict[str, int | None] = {
            row["table"]: _length_of(row["args"]) for row in store.assignments()
        }
        self._fence_log: dict[tuple[str, str], tuple[float | None, int]] = {}
        # The tables' beats (revision 3), never stored: in memory, under their own lock, which
        # also covers the projection changes they make (a beat on paho's thread and the check
        # on the hub's watchdog thread must not cross: a table back would stay lost).
        self.heartbeats = Heartbeats(clock=monotonic)
        self._beats_lock = threading.Lock()
        self._batch: _Batch | None = None
        self._opened = 0.0
        self.last_commit: float | None = None  # wall clock at the end of the last commit
        # Called on the committing thread after each commit (the desk, the live feed): each
        # must only hand the news over to its own thread, never block.
        self.listeners: list[CommitListener] = []

    def contiguous(self, table: str, stream: str) -> int:
        return self._contiguous.get((table, stream), 0)

    def epoch(self, table: str) -> int | None:
        """``table``'s current fencing token (None: it holds no assignment)."""
        return self._epochs.get(table)

    def set_epoch(self, table: str, epoch: int | None) -> None:
        """From now on ``table``'s match-affecting events apply only with ``epoch``."""
        with self.lock:
            self._epochs[table] = epoch

    def length(self, table: str) -> int | None:
        """The length of the match the hub assigned to ``table`` (None: none, or not one)."""
        return self._lengths.get(table)

    def set_length(self, table: str, length: int | None) -> None:
        """``table``'s match.ended is checked against ``length`` from now on."""
        with self.lock:
            self._lengths[table] = length
        self.projections.set_length(table, length)

    @property
    def pending(self) -> int:
        """Messages in the open (uncommitted) transaction."""
        batch = self._batch
        return batch.size if batch is not None else 0

    @property
    def pending_since(self) -> float | None:
        """``time.monotonic()`` when the open transaction began, or None."""
        return self._opened if self._batch is not None else None

    # ── the two steps ───────────────────────────────────────────────────
    def handle(self, batch: Sequence[Incoming]) -> None:
        """Validate, commit and acknowledge a batch of messages."""
        with self.lock:
            for msg in batch:
                self.add(msg)
            self.flush()

    def add(self, msg: Incoming) -> None:
        """Validate one message and write it into the open transaction (nothing is
        acknowledged before :meth:`flush`)."""
        decoded = self._decode(msg)  # outside the lock: the CPU work
        if decoded is None:
            return
        if type(decoded) is Beat:
            self._beat(decoded, msg.topic)  # not an event: no transaction, no commit
            return
        with self.lock:
            b = self._batch
            if b is None:
                self.store.begin()
                b = self._batch = _Batch(self._contiguous)
                self._opened = time.monotonic()
            b.size += 1
            b.messages.append((msg, decoded))
            if b.failed is not None:
                return  # the batch is retried message by message at flush
            try:
                self._write(b, decoded, msg.payload)
            except Exception as e:
                # One message's write failed (SQLite refused a value): isolate it at flush
                # rather than lose the other tables' messages with it.
                b.failed = e

    def _write(self, b: _Batch, decoded: Any, payload: bytes) -> None:
        """Write one decoded message into the open transaction."""
        if isinstance(decoded, EventEnvelope):
            self._event(b, decoded, payload)
        elif isinstance(decoded, TableStatus):
            if self._status(b, decoded):
                b.statuses.append(decoded)
                self._status_heard(decoded)
        elif isinstance(decoded, StateReport):
            self._state(b, decoded)
            b.states.append(decoded)
        elif isinstance(decoded, Response) and not self.store.record_response(decoded):
            self.metrics.refuse(
                "unknown_txn", f"response to unknown txn {decoded.txn}", table=decoded.table
            )

    def flush(self) -> None:
        """Commit the open transaction; then, and only then, acknowledge what it holds.

        A batch that fails to commit is rolled back and retried message by message: the
        message that fails alone is refused (``refused{reason=unstorable}``, logged), the
        others are committed and acknowledged."""
        with self.lock:
            b = self._batch
            if b is None:
                return
            try:
                self._commit(b)
            except Exception as e:
                self._batch = None
                self.store.rollback()
                log.warning(
                    "a batch of %d messages failed to commit (%s): retrying one by one",
                    len(b.messages),
                    repr(b.failed or e)[:200],
                )
                self.metrics.inc("batch_retries")
                self._retry(b.messages)
                return
            except BaseException:
                self._batch = None
                self.store.rollback()
                raise
            self._batch = None
            self._committed(b)

    def _retry(self, messages: list[tuple[Incoming, Any]]) -> None:
        for msg, decoded in messages:
            self.store.begin()
            b = self._batch = _Batch(self._contiguous)
            b.size = 1
            b.messages.append((msg, decoded))
            try:
                self._write(b, decoded, msg.payload)
                self._commit(b)
            except Exception as e:
                self._batch = None
                self.store.rollback()
                self.metrics.refuse(
                    "unstorable",
                    f"{type(decoded).__name__}: the store refused it: {repr(e)[:160]}",
                    table=_topic_table(msg.topic),
                    topic=msg.topic,
                )
                continue
            except BaseException:
                self._batch = None
                self.store.rollback()
                raise
            self._batch = None
            self._committed(b)

    def _commit(self, b: _Batch) -> None:
        """Write what the batch holds and commit (the caller rolls back on an exception)."""
        if b.failed is not None:
            raise _MessageFailed(repr(b.failed))
        for key, held in b.held.items():
            for seq in sorted(held):
                self.metrics.refuse(
                    "gap", f"seq {seq} of stream {key[1]}", table=key[0], level=None
                )
            have = b.cont.get(key, 0)
            log.info(
                "refused %d events of table %s stream %s past a gap (seq %d-%d after "
                "%d): resend asked",
                len(held),
                key[0],
                key[1],
                min(held),
                max(held),
                have,
            )
            b.touched[key] = have + 1
        if b.rows:
            self._write_rows(b)
        for key, seq in b.cont.items():
            if seq != self._contiguous.get(key):
                self.store.set_contiguous(key[0], key[1], seq)
        self.store.commit()

    def _committed(self, b: _Batch) -> None:
        """After the commit: memory, projections, metrics and acks."""
        # Committed: from here on the acks are true.
        self.last_commit = self._clock()
        self._contiguous = b.cont
        self._registered |= b.registering
        self._bdseq.update(b.bdseq)
        if b.committed:
            self.metrics.inc("events_committed", len(b.committed))
            self.metrics.inc("batches")
        for (table, stream), (n, lo, hi) in b.duplicates.items():
            log.info(
                "refused %d duplicate events of table %s stream %s (seq %d-%d): already stored",
                n,
                table,
                stream,
                lo,
                hi,
            )
        for env, why in b.fenced:
            self.metrics.inc("fenced", reason=why)
            self._log_fenced(env, why)
        for env in b.committed:
            contradiction = b.contradictions.get(env.id)
            if contradiction is not None:
                # Stored (the stream stays gap-free), refused as a result: counted once,
                # after the commit, under the ingest's refusal counter.
                self.metrics.refuse(CONTRADICTORY, f"{env.type} seq {env.seq}: {contradiction}",
                                    table=env.table)  # fmt: skip
        self.projections.apply_events(b.committed, refused=set(b.contradictions))
        for st in b.statuses:
            self.projections.apply_status(st)
        for report in b.states:
            self.projections.apply_state(report)
        self._ack(b.touched)
        if self.listeners and (b.committed or b.statuses or b.states):
            # Told with what it committed (maybe no event: a status or a snapshot alone);
            # built only when someone listens (its rows are a dict per event).
            commit = Commit(
                tuple(b.committed), tuple(b.states), tuple(b.statuses), _rows(b)
            )
            for listener in list(self.listeners):
                try:
                    listener(commit)
                except Exception:
                    log.exception("commit listener failed")

    def _log_fenced(self, env: EventEnvelope, why: str) -> None:
        """One line per table and reason, then at most one a minute with the count since:
        a table that keeps playing a match it no longer holds must not flood the log."""
        key = (env.table, why)
        last, skipped = self._fence_log.get(key, (None, 0))
        now = time.monotonic()
        if last is not None and now - last < FENCE_LOG_INTERVAL:
            self._fence_log[key] = (last, skipped + 1)
            return
        self._fence_log[key] = (now, 0)
        log.warning(
            "table %s: %s (seq %d, epoch %s) stored but not applied: %s (the table's current "
            "epoch is %s)%s",
            env.table,
            env.type,
            env.seq,
            env.epoch,
            why,
            self._epochs.get(env.table),
            f"; {skipped} more since the last such line" if skipped else "",
        )

    def _write_rows(self, b: _Batch) -> None:
        now = self._clock()  # "committed": the commit follows at once
        b.rows = [(*row, now) for row in b.rows]
        self.store.savepoint()
        if self.store.insert_rows(b.rows) == len(b.rows):
            last = self.store.last_rowid()
            b.rowids = list(range(last - len(b.rows) + 1, last + 1))
            self.store.release()
            return
        # Some id was taken: redo row by row; a stream stops at its first conflict.
        self.store.rollback_to()
        committed: list[EventEnvelope] = []
        kept: list[tuple[Any, ...]] = []
        b.rowids = []
        broken: set[tuple[str, str]] = set()
        for row, env in zip(b.rows, b.committed, strict=True):
            key = (env.table, env.stream)
            if key in broken:
                self.metrics.refuse("gap", f"seq {env.seq} after a conflict", table=env.table)
            elif self.store.insert_rows([row]) == 1:
                committed.append(env)
                kept.append(row)
                b.rowids.append(self.store.last_rowid())
            else:
                self.metrics.refuse(
                    "conflict",
                    f"event id {env.id} is already used by another event",
                    table=env.table,
                )
                broken.add(key)
                b.cont[key] = env.seq - 1
                b.touched[key] = env.seq
        b.committed, b.rows = committed, kept

    def abort(self) -> None:
        """Roll back the open transaction: nothing in it was acknowledged, tables resend it."""
        with self.lock:
            self._batch = None
            self.store.rollback()

    def write(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` (store writes of the hub's own) in a transaction of its own, after
        committing whatever ingest has open."""
        with self.lock:
            self.flush()
            with self.store.transaction():
                return fn()

    def _decode(self, msg: Incoming) -> Any:
        """The message's payload typed and checked (msgspec parses and validates it in one
        pass), or None: refused, counted under its reason and logged."""
        topic = msg.topic
        try:
            known = _TOPICS.get(topic)
            if known is None:
                known = parse_topic(topic)
                if len(_TOPICS) < 10_000:  # bounded against junk topics
                    _TOPICS[topic] = known
            table, kind = known
            cls = _KINDS.get(kind)
            if cls is None:
                raise ProtocolError("bad_topic", f"the hub does not read {kind!r} topics")
            return decode(cls, msg.payload, table)
        except ProtocolError as e:
            self.metrics.refuse(e.code, e.reason, table=_topic_table(topic), topic=topic)
            return None
        except Exception as e:  # a payload must never take the batch down with it
            log.exception("unexpected error decoding a message on %s", topic[:120])
            self.metrics.refuse(
                "malformed", repr(e)[:200], table=_topic_table(topic), topic=topic[:200]
            )
            return None

    def _event(self, b: _Batch, env: EventEnvelope, payload: bytes) -> None:
        key = (env.table, env.stream)
        have = b.cont.get(key, 0)
        if env.seq == have + 1 and key not in b.held:
            self._insert(b, key, env, payload)  # the common case: the stream's next event
            return
        b.touched.setdefault(key, None)
        held = b.held.get(key)
        if env.seq <= have or (held is not None and env.seq in held):
            if held is not None and env.seq in held:
                stored: str | None = held[env.seq][0].id
            else:
                if b.ids is None:
                    b.ids = {(r[1], r[2], r[3]): r[0] for r in b.rows}
                stored = b.ids.get((env.table, env.stream, env.seq))
                if stored is None:
                    stored = self.store.event_id_at(env.table, env.stream, env.seq)
            if stored == env.id or stored is None:  # None: below a floor the table announced
                # Resends come in bursts: counted one by one, logged once per stream at flush.
                self.metrics.refuse(
                    "duplicate",
                    f"seq {env.seq} of stream {env.stream}",
                    table=env.table,
                    level=None,
                )
                n, lo, hi = b.duplicates.get(key, (0, env.seq, env.seq))
                b.duplicates[key] = (n + 1, min(lo, env.seq), max(hi, env.seq))
            else:
                self.metrics.refuse(
                    "conflict",
                    f"seq {env.seq} of stream {env.stream} is stored with another id",
                    table=env.table,
                )
            return
        if env.seq > have + 1:
            # Past a gap: hold it; the missing one may still come in this batch (a reconnection
            # can reorder), else flush refuses it and asks for a resend.
            if held is None:
                held = b.held[key] = {}
            if len(held) >= HOLD_MAX:
                self.metrics.refuse(
                    "gap", f"seq {env.seq} of stream {env.stream}: too far ahead", table=env.table
                )
                return
            held[env.seq] = (env, payload)
            return
        if not self._insert(b, key, env, payload):
            return
        while held:
            nxt = held.pop(b.cont[key] + 1, None)
            if nxt is None or not self._insert(b, key, *nxt):
                break
        if held is not None and not held:
            del b.held[key]

    def _insert(self, b: _Batch, key: tuple[str, str], env: EventEnvelope, payload: bytes) -> bool:
        # Written at flush, all rows in one executemany; an id already used elsewhere (only a
        # forged or broken table does that) is sorted out there, row by row.
        fence = None
        if env.type in FENCED_TYPES:
            # Stored (the stream stays gap-free) but marked: the desk applies only what
            # carries the table's current assignment epoch.
            if env.epoch is None:
                fence = "missing_epoch"
            elif env.epoch != self._epochs.get(env.table):
                fence = "stale_epoch"
            if fence is None and env.type == "match.ended":
                why = self._contradiction(env)
                if why is not None:
                    fence, b.contradictions[env.id] = CONTRADICTORY, why
            if fence is not None:
                b.fenced.append((env, fence))
        b.rows.append(
            (env.id, env.table, env.stream, env.seq, env.type, env.ts, env.t, payload, fence)
        )
        if b.ids is not None:
            b.ids[(env.table, env.stream, env.seq)] = env.id
        if env.table not in self._registered and env.table not in b.registering:
            self.store.register_table(env.table)
            b.registering.add(env.table)
        b.cont[key] = env.seq
        b.touched[key] = None  # the gap (if any) is filled
        b.committed.append(env)
        return True

    def _contradiction(self, env: EventEnvelope) -> str | None:
        """Why a match.ended cannot be true (its result is then refused), or None."""
        d = env.data
        return result_refusal(d.get("winner"), d.get("score"), d.get("how"), self.length(env.table))

    def _status(self, b: _Batch, st: TableStatus) -> bool:
        last = b.bdseq.get(st.table, self._bdseq.get(st.table, -1))
        if st.state != "online" and st.bdseq < last:
            self.metrics.refuse(
                "stale_will",
                f"{st.state} of connection {st.bdseq}, table is on connection {last}",
                table=st.table,
                level=logging.INFO,
            )
            return False
        b.bdseq[st.table] = max(last, st.bdseq)
        self.store.set_status(st)
        self.metrics.inc("status", state=st.state)
        return True

    # ── beats (revision 3): presence, timed by the hub ──────────────────
    def _beat(self, beat: Beat, topic: str) -> None:
        """A table's beat, validated like any message (:meth:`_decode`): from a table whose
        status the hub never had, refused; else noted, and a table found silent is back."""
        table = beat.table
        b = self._batch
        if table not in self._bdseq and (b is None or table not in b.bdseq):
            self.metrics.refuse(
                "unknown_table", "a beat from a table that never said its status",
                table=table, topic=topic, level=logging.INFO,
            )  # fmt: skip
            return
        self.metrics.inc("beats")
        with self._beats_lock:
            if self.heartbeats.beat(table, beat.every) and self.projections.beat_again(table):
                self.metrics.inc("tables_back", by="beat")
                log.warning("table %s beats again: online", table)

    def _status_heard(self, st: TableStatus) -> None:
        with self._beats_lock:
            if self.heartbeats.status(st.table, st.state, st.revision):
                # Found silent already (the grid shows it lost): its will confirms it.
                log.info("table %s: its %s status confirms the silence", st.table, st.state)

    def check_beats(self) -> list[str]:
        """Take every table whose beats stopped as lost (its projection shows ``lost``, as its
        will would make it); returns those. Called often (the hub's watchdog thread)."""
        lost = []
        with self._beats_lock:
            for table in self.heartbeats.expired():
                if self.projections.mark_silent(table):
                    lost.append(table)
        for table in lost:
            self.metrics.inc("tables_lost", by="silence")
            log.warning(
                "table %s: no beat for %d beats: taken as lost (its will may follow)",
                table, BEATS_MISSED,
            )  # fmt: skip
        return lost

    def broker_lost(self) -> None:
        """The hub lost the broker: no table could reach it; every beat is forgotten (the
        tables' retained statuses and their next beats start again when it is back)."""
        with self._beats_lock:
            self.heartbeats.clear()
            self.projections.broker_lost()

    def _state(self, b: _Batch, report: StateReport) -> None:
        self.store.set_state(report)
        key = (report.table, report.stream)
        have = b.cont.get(key, 0)
        if report.acked > have:
            # The table holds acks from a store this hub no longer has (a wiped or replaced
            # database): those events are gone for good; record it loudly and move on.
            lost = report.acked - have
            self.metrics.inc("events_unrecoverable", lost)
            log.error(
                "table %s stream %s: the table had %d events acknowledged that this store "
                "does not hold; continuing from seq %d",
                report.table,
                report.stream,
                lost,
                report.acked + 1,
            )
            b.cont[key] = report.acked
            self.store.set_contiguous(report.table, report.stream, report.acked, floor=report.acked)
            b.touched.setdefault(key, None)

    def _ack(self, touched: dict[tuple[str, str], int | None]) -> None:
        if self.publish is None:
            return
        now = time.monotonic()
        for (table, stream), resend_from in touched.items():
            if resend_from is not None:
                asked = self._asked.get((table, stream))
                if asked and asked[0] == resend_from and now - asked[1] < RESEND_INTERVAL:
                    resend_from = None
                else:
                    self._asked[(table, stream)] = (resend_from, now)
                    self.metrics.inc("resend_requests")
            ack = Ack(
                table, stream, self._contiguous.get((table, stream), 0), resend_from, self._clock()
            )
            try:
                self.publish(table_topic(table, "ack"), ack.to_payload(), 1, False)
            except Exception as e:
                # Committed already: one ack that cannot be sent must not keep the others'.
                log.warning("table %s: no ack for stream %r: %r", table, stream[:64], e)
                self.metrics.inc("ack_failures")
                continue
            self.metrics.inc("acks_sent")


# Topics already parsed (and valid): topic → (table, kind).
_TOPICS: dict[str, tuple[str, str]] = {}
_KINDS: dict[str, type] = {
    "event": EventEnvelope,
    "status": TableStatus,
    "state": StateReport,
    "response": Response,
    "beat": Beat,
}


def _rows(b: _Batch) -> tuple[dict[str, Any], ...]:
    """Each committed event as the store's reads give it (``EventStore.events``: its rowid,
    the hub's fence verdict), so the desk folds what was committed without reading it back."""
    return tuple(
        {
            "rowid": rowid, "id": env.id, "table": env.table, "stream": env.stream,
            "seq": env.seq, "type": env.type, "ts": env.ts, "t": env.t, "data": env.data,
            "committed": row[9], "epoch": env.epoch, "fence": row[8],
        }
        for rowid, env, row in zip(b.rowids, b.committed, b.rows, strict=True)
    )


def _length_of(args: Any) -> int | None:
    length = args.get("length") if isinstance(args, dict) else None
    return length if isinstance(length, int) and not isinstance(length, bool) else None


def _topic_table(topic: str) -> str | None:
    parts = topic.split("/")
    return parts[3][:32] if len(parts) > 3 else None
