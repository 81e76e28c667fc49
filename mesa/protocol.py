"""The wire protocol between tables and the hub: topics, payloads, versions, limits.

This module is the one place for the wire vocabulary; ``docs/protocol.md`` describes it and a test
checks the two agree. Every payload is a JSON object with a version ``v``; decoding checks the
size, the JSON, the version, every field's type, and that the table named in the payload is the
one in the topic.

>>> topic = table_topic("3", "event")
>>> topic, parse_topic(topic)
('mesa/v1/table/3/event', ('3', 'event'))
>>> env = EventEnvelope.build("3", "s1", 1, "clock.resumed", {"by": "players"}, ts=1.0, t=2.0,
...                           id="e1")
>>> decode(EventEnvelope, env.to_payload(), table="3").event.TYPE
'clock.resumed'
>>> decode(EventEnvelope, env.to_payload(), table="4")
Traceback (most recent call last):
  ...
mesa.protocol.ProtocolError: table_mismatch: the payload names table '3' but the topic table '4'
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing
import uuid
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar

from mesa.errors import MesaError
from mesa.events import EVENT_TYPES, SCHEMA_VERSION, Event, EventError
from mesa.table.inputs import INPUT_SPECS, InputError, parse_input
from mesa.validation import ValidationError, check_value

PROTOCOL_VERSION = 1
NAMESPACE = f"mesa/v{PROTOCOL_VERSION}"
# A state snapshot of a long match is a few kB; anything near this limit is not a table talking.
MAX_PAYLOAD_BYTES = 64 * 1024
MAX_INT = 2**53
TABLE_ID_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
# Usernames on the broker are the table ids, so the hub's account must not look like one.
HUB_USERNAME = "mesa-hub"
RESERVED_PREFIX = "mesa"
# Commands wait this long in a disconnected table's broker queue, then the broker drops them:
# a director's "pause" that arrives ten minutes late is worse than none.
CMD_EXPIRY_SECONDS = 60
# The inputs a hub may send on the ``cmd`` topic; assign/unassign go through the retained
# ``assign`` topic so that a table that boots later still learns its match.
CMD_INPUTS: tuple[str, ...] = tuple(
    name
    for name, spec in INPUT_SPECS.items()
    if spec.source == "hub" and name not in ("assign", "unassign")
)

StatusState = Literal["online", "offline", "lost"]


class ProtocolError(MesaError):
    """A message that does not follow the protocol. ``code`` is stable (a metric label)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.reason = message


# ── topics ──────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class TopicSpec:
    kind: str
    sender: str  # "table" or "hub"
    qos: int
    retained: bool
    doc: str


TABLE_TOPICS: dict[str, TopicSpec] = {
    t.kind: t
    for t in [
        TopicSpec("status", "table", 1, True, "online / offline / lost (the Last Will)"),
        TopicSpec("state", "table", 1, True, "the table's full snapshot"),
        TopicSpec("event", "table", 1, False, "one match event in its envelope"),
        TopicSpec("response", "table", 1, False, "the answer to an assign or a cmd"),
        TopicSpec("assign", "hub", 1, True, "the table's current assignment"),
        TopicSpec("cmd", "hub", 1, False, "a director command (expires after 60 s)"),
        TopicSpec("ack", "hub", 1, False, "committed up to seq; optionally resend from"),
    ]
}
HUB_STATUS_TOPIC = f"{NAMESPACE}/hub/status"


def check_table_id(table: Any) -> str:
    """Return ``table`` if it is a valid table id, else raise :class:`ProtocolError`.

    >>> check_table_id("t12")
    't12'
    """
    if (
        not isinstance(table, str)
        or not TABLE_ID_RE.fullmatch(table)
        or table.startswith(RESERVED_PREFIX)
    ):
        raise ProtocolError(
            "bad_table", f"table id {table!r} must be 1-32 of a-z 0-9 _ - (not starting 'mesa')"
        )
    return table


def table_topic(table: str, kind: str) -> str:
    """``mesa/v1/table/<table>/<kind>``."""
    if kind not in TABLE_TOPICS:
        raise ProtocolError("bad_topic", f"unknown topic kind {kind!r}")
    return f"{NAMESPACE}/table/{check_table_id(table)}/{kind}"


def parse_topic(topic: str) -> tuple[str, str]:
    """``(table, kind)`` of a table topic, or :class:`ProtocolError`."""
    parts = topic.split("/")
    if len(parts) != 5 or "/".join(parts[:3]) != f"{NAMESPACE}/table" or parts[4] not in TABLE_TOPICS:
        raise ProtocolError("bad_topic", f"not a table topic: {topic[:120]!r}")
    return check_table_id(parts[3]), parts[4]


def hub_subscriptions() -> list[str]:
    """What the hub subscribes to: everything every table sends."""
    return [
        f"{NAMESPACE}/table/+/{k}" for k, spec in TABLE_TOPICS.items() if spec.sender == "table"
    ]


def table_subscriptions(table: str) -> list[str]:
    """What a table subscribes to: its own hub topics, its own status, and the hub's status."""
    mine = [table_topic(table, k) for k, spec in TABLE_TOPICS.items() if spec.sender == "hub"]
    return [*mine, table_topic(table, "status"), HUB_STATUS_TOPIC]


# ── payloads ────────────────────────────────────────────────────────────────
M = TypeVar("M", bound="Message")
_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    # typing.get_type_hints costs ~100 µs a call; the hub decodes thousands of messages a second.
    hints = _HINTS.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls)
        hints = {f.name: hints[f.name] for f in dataclasses.fields(cls)}
        _HINTS[cls] = hints
    return hints


@dataclass(frozen=True)
class Message:
    """Base of every payload: a frozen dataclass whose fields are the JSON object's keys."""

    VERSION: ClassVar[int] = PROTOCOL_VERSION
    KIND: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        return {"v": self.VERSION, **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)}}

    def to_payload(self) -> bytes:
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False).encode()

    def check(self) -> None:
        """Constraints beyond the field types (raise :class:`ProtocolError`)."""


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(payload: bytes | str) -> Any:
    """Parse JSON strictly (no NaN/Infinity), refusing payloads over the size limit."""
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise ProtocolError("too_large", f"{len(payload)} bytes > {MAX_PAYLOAD_BYTES}")
    try:
        return json.loads(payload, parse_constant=_no_constants)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise ProtocolError("bad_json", f"not JSON: {str(e)[:80]}") from None


def from_obj(cls: type[M], obj: Any, table: str | None = None) -> M:
    """Build a ``cls`` message from a parsed JSON object, checking every field."""
    if not isinstance(obj, dict):
        raise ProtocolError("bad_json", f"a {cls.__name__} must be a JSON object")
    version = obj.get("v")
    if version != cls.VERSION or isinstance(version, bool):
        raise ProtocolError("bad_version", f"v={version!r}, this hub speaks v={cls.VERSION}")
    hints = _hints(cls)
    keys = set(obj) - {"v"}
    if keys - set(hints):
        raise ProtocolError("bad_field", f"unknown fields {sorted(map(str, keys - set(hints)))[:5]}")
    if set(hints) - keys:
        raise ProtocolError("bad_field", f"missing fields {sorted(set(hints) - keys)}")
    for name, hint in hints.items():
        try:
            check_value(name, hint, obj[name])
        except ValidationError as e:
            raise ProtocolError("bad_field", str(e)[:200]) from None
        value = obj[name]
        # SQLite integers stop at 2**63; nothing honest counts that high.
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise ProtocolError("bad_field", f"{name} is out of range")
    msg = cls(**{name: obj[name] for name in hints})
    own = getattr(msg, "table", None)
    if own is not None:
        check_table_id(own)
        if table is not None and own != table:
            raise ProtocolError(
                "table_mismatch", f"the payload names table {own!r} but the topic table {table!r}"
            )
    msg.check()
    return msg


def decode(cls: type[M], payload: bytes | str, table: str | None = None) -> M:
    """Decode and validate one payload; ``table`` is the id from the topic it came on."""
    return from_obj(cls, loads(payload), table)


def _short_str(name: str, value: str, limit: int = 64) -> None:
    if not value or len(value) > limit:
        raise ProtocolError("bad_field", f"{name} must be 1-{limit} characters")


def new_id() -> str:
    """A fresh unique id (event ids, transaction ids, stream ids)."""
    return uuid.uuid4().hex


@dataclass(frozen=True)
class EventEnvelope(Message):
    """One event from a table. ``stream`` names the table's outbox (a new SD card is a new
    stream); ``seq`` counts from 1 within it; ``ts`` is wall-clock seconds when it was handed to
    the link; ``t`` the table's monotonic clock when it happened."""

    VERSION: ClassVar[int] = SCHEMA_VERSION
    KIND: ClassVar[str] = "event"
    id: str
    table: str
    stream: str
    seq: int
    ts: float
    t: float
    type: str
    data: dict[str, Any]

    @classmethod
    def build(
        cls,
        table: str,
        stream: str,
        seq: int,
        type: str,
        data: dict[str, Any],
        *,
        ts: float,
        t: float,
        id: str | None = None,
    ) -> EventEnvelope:
        return cls(id or new_id(), table, stream, seq, ts, t, type, data)

    def check(self) -> None:
        _short_str("id", self.id)
        _short_str("stream", self.stream)
        if self.seq < 1:
            raise ProtocolError("bad_field", f"seq must be ≥ 1, not {self.seq}")
        validate_event(self.type, self.data)

    @property
    def event(self) -> Event:
        return EVENT_TYPES[self.type](**self.data)


_EVENT_HINTS: dict[str, dict[str, Any]] = {}


def validate_event(type_name: str, data: dict[str, Any]) -> None:
    """What :func:`mesa.events.parse_event` checks, with the type hints computed once.

    A hypothesis test holds the two to the same verdict on arbitrary data.
    """
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        raise ProtocolError("unknown_type", f"unknown event type {type_name[:64]!r}")
    hints = _EVENT_HINTS.get(type_name)
    if hints is None:
        all_hints = typing.get_type_hints(cls)
        hints = _EVENT_HINTS[type_name] = {
            f.name: all_hints[f.name] for f in dataclasses.fields(cls)
        }
    if set(data) != set(hints):
        raise ProtocolError(
            "bad_event",
            f"{type_name}: fields {sorted(map(str, data))[:12]} are not {sorted(hints)}",
        )
    for name, hint in hints.items():
        try:
            check_value(name, hint, data[name])
        except ValidationError as e:
            raise ProtocolError("bad_event", f"{type_name}: {str(e)[:200]}") from None


def check_event_like_parse_event(type_name: str, data: Any) -> bool:
    """True when :func:`mesa.events.parse_event` accepts it (the slow, reference path)."""
    from mesa.events import parse_event

    try:
        parse_event(type_name, data)
    except EventError:
        return False
    return True


@dataclass(frozen=True)
class TableStatus(Message):
    """Retained. ``bdseq`` counts the table's connections (birth/death): a ``lost`` will whose
    ``bdseq`` is older than the last ``online`` one is stale and ignored."""

    KIND: ClassVar[str] = "status"
    table: str
    state: StatusState
    bdseq: int
    ts: float

    def check(self) -> None:
        if self.bdseq < 0:
            raise ProtocolError("bad_field", "bdseq must be ≥ 0")


@dataclass(frozen=True)
class StateReport(Message):
    """Retained snapshot. ``seq`` is the last event the snapshot includes; ``acked`` the highest
    seq the hub has acknowledged to this table (the table no longer keeps anything below)."""

    KIND: ClassVar[str] = "state"
    table: str
    stream: str
    seq: int
    acked: int
    ts: float
    snapshot: dict[str, Any]

    def check(self) -> None:
        _short_str("stream", self.stream)
        if self.seq < 0 or self.acked < 0:
            raise ProtocolError("bad_field", "seq and acked must be ≥ 0")


@dataclass(frozen=True)
class Response(Message):
    """A table's answer to an ``assign`` or a ``cmd`` with the same ``txn``."""

    KIND: ClassVar[str] = "response"
    table: str
    txn: str
    accepted: bool
    code: str | None
    reason: str | None
    ts: float

    def check(self) -> None:
        _short_str("txn", self.txn)


@dataclass(frozen=True)
class Assignment(Message):
    """Retained. ``args`` are the ``assign`` input's arguments, or null: no match here."""

    KIND: ClassVar[str] = "assign"
    table: str
    txn: str
    args: dict[str, Any] | None
    ts: float

    def check(self) -> None:
        _short_str("txn", self.txn)
        if self.args is not None:
            try:
                parse_input("assign", self.args)
            except InputError as e:
                raise ProtocolError("bad_input", str(e)[:200]) from None


@dataclass(frozen=True)
class Command(Message):
    """A director command: one of :data:`CMD_INPUTS` with its arguments."""

    KIND: ClassVar[str] = "cmd"
    table: str
    txn: str
    input: str
    args: dict[str, Any]
    ts: float

    def check(self) -> None:
        _short_str("txn", self.txn)
        if self.input not in CMD_INPUTS:
            raise ProtocolError("bad_input", f"{self.input[:64]!r} is not a hub command")
        try:
            parse_input(self.input, self.args)
        except InputError as e:
            raise ProtocolError("bad_input", str(e)[:200]) from None


@dataclass(frozen=True)
class Ack(Message):
    """The hub has committed every event of ``stream`` up to ``seq`` (0: none). With
    ``resend_from`` it saw a gap and asks the table to send again from that seq."""

    KIND: ClassVar[str] = "ack"
    table: str
    stream: str
    seq: int
    resend_from: int | None
    ts: float

    def check(self) -> None:
        _short_str("stream", self.stream)
        if self.seq < 0 or (self.resend_from is not None and self.resend_from < 1):
            raise ProtocolError("bad_field", "seq must be ≥ 0 and resend_from ≥ 1")


@dataclass(frozen=True)
class HubStatus(Message):
    """Retained on ``mesa/v1/hub/status``. When it turns ``online`` every table republishes its
    snapshot and resends what is unacknowledged. ``session`` counts the hub's starts."""

    KIND: ClassVar[str] = "hub_status"
    state: StatusState
    session: int
    ts: float


MESSAGES: dict[str, type[Message]] = {
    cls.KIND: cls
    for cls in (EventEnvelope, TableStatus, StateReport, Response, Assignment, Command, Ack, HubStatus)
}
