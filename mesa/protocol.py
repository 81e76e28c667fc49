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

import copy
import dataclasses
import json
import math
import re
import secrets
import time
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar

from mesa.domino.inputs import INPUT_SPECS as DOMINO_INPUT_SPECS
from mesa.domino.inputs import parse_input as parse_domino_input
from mesa.errors import MesaError
from mesa.events import EVENT_TYPES, SCHEMA_VERSION, Event, EventError
from mesa.table.inputs import INPUT_SPECS, InputError, parse_input
from mesa.table.machine import TableState
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
# ``assign`` topic so that a table that boots later still learns its match, and ``refence`` is
# the table's own reading of an assignment it already holds (never a command).
CMD_INPUTS: tuple[str, ...] = tuple(
    name
    for name, spec in INPUT_SPECS.items()
    if spec.source == "hub" and name not in ("assign", "unassign", "refence")
)

# A domino table's hub commands (the director's); its game and "TIEMPO" travel on the retained
# ``assign`` topic as a :class:`DominoAssignment`.
DOMINO_CMD_INPUTS: tuple[str, ...] = tuple(
    name
    for name, spec in DOMINO_INPUT_SPECS.items()
    if spec.source == "hub" and name not in ("assign", "unassign", "tiempo")
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
    if table in _VALID_IDS and type(table) is str:
        return table
    if (
        not isinstance(table, str)
        or not TABLE_ID_RE.fullmatch(table)
        or table.startswith(RESERVED_PREFIX)
    ):
        raise ProtocolError(
            "bad_table", f"table id {table!r} must be 1-32 of a-z 0-9 _ - (not starting 'mesa')"
        )
    if len(_VALID_IDS) < 10_000:  # a venue has tens of tables; bounded against junk
        _VALID_IDS.add(table)
    return table


_VALID_IDS: set[str] = set()


def table_topic(table: str, kind: str) -> str:
    """``mesa/v1/table/<table>/<kind>``."""
    if kind not in TABLE_TOPICS:
        raise ProtocolError("bad_topic", f"unknown topic kind {kind!r}")
    return f"{NAMESPACE}/table/{check_table_id(table)}/{kind}"


def parse_topic(topic: str) -> tuple[str, str]:
    """``(table, kind)`` of a table topic, or :class:`ProtocolError`."""
    if topic.startswith(_TABLE_PREFIX):
        table, _, kind = topic[len(_TABLE_PREFIX) :].partition("/")
        if kind in TABLE_TOPICS:
            return check_table_id(table), kind
    raise ProtocolError("bad_topic", f"not a table topic: {topic[:120]!r}")


_TABLE_PREFIX = f"{NAMESPACE}/table/"


def hub_subscriptions() -> list[str]:
    """What the hub subscribes to: everything every table sends."""
    return [
        f"{NAMESPACE}/table/+/{k}" for k, spec in TABLE_TOPICS.items() if spec.sender == "table"
    ]


def table_subscriptions(table: str) -> list[str]:
    """What a table subscribes to: its own hub topics, its own status, and the hub's status."""
    mine = [table_topic(table, k) for k, spec in TABLE_TOPICS.items() if spec.sender == "hub"]
    return [*mine, table_topic(table, "status"), HUB_STATUS_TOPIC]


# ── fast validation ─────────────────────────────────────────────────────────
Check = Callable[[Any], bool]


def compile_check(hint: Any) -> Check:
    """A predicate accepting exactly what :func:`mesa.validation.check_value` accepts for
    ``hint``, without re-reading the hint at every call (the hub validates thousands of
    messages a second). On a False, :func:`_fail` asks ``check_value`` for the message.

    >>> compile_check(dict[str, int] | None)({"a": 1}), compile_check(float)(True)
    (True, False)
    """
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        parts = tuple(compile_check(a) for a in args)
        return lambda v: any(p(v) for p in parts)
    if hint is type(None):
        return lambda v: v is None
    if origin is Literal:
        wants_bool = any(isinstance(a, bool) for a in args)
        return lambda v: v in args and isinstance(v, bool) == wants_bool
    if origin is dict:
        key_ok, val_ok = compile_check(args[0]), compile_check(args[1])
        if args[1] is Any:
            return lambda v: isinstance(v, dict) and all(key_ok(k) for k in v)
        return lambda v: isinstance(v, dict) and all(key_ok(k) and val_ok(x) for k, x in v.items())
    if origin is list:
        item_ok = compile_check(args[0])
        return lambda v: isinstance(v, list) and all(item_ok(x) for x in v)
    if hint is Any:
        return lambda v: True
    if hint is bool:
        return lambda v: isinstance(v, bool)
    if hint is int:
        return lambda v: isinstance(v, int) and not isinstance(v, bool)
    if hint is float:
        return _is_float
    if hint is str:
        return lambda v: isinstance(v, str)
    raise TypeError(f"unsupported type hint {hint!r}")


def _is_float(v: Any) -> bool:
    if isinstance(v, float):
        return math.isfinite(v)
    # check_value converts an int to a float; past ~1e308 that overflows: refuse it here.
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**1023


def _fail(code: str, prefix: str, name: str, hint: Any, value: Any) -> ProtocolError:
    try:
        check_value(name, hint, value)
    except ValidationError as e:
        return ProtocolError(code, f"{prefix}{str(e)[:200]}")
    except (OverflowError, RecursionError):
        pass
    return ProtocolError(code, f"{prefix}{name} is out of range")


# ── payloads ────────────────────────────────────────────────────────────────
M = TypeVar("M", bound="Message")
_HINTS: dict[type, dict[str, Any]] = {}
_CHECKS: dict[type, tuple[frozenset[str], list[tuple[str, Any, Check]]]] = {}


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
    # Fields added after the first version: absent means this default (older senders), and
    # ``to_dict`` leaves them out while they hold it, so older readers see what they know.
    OPTIONAL: ClassVar[dict[str, Any]] = {}

    def to_dict(self) -> dict[str, Any]:
        out = {"v": self.VERSION}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in self.OPTIONAL and value == self.OPTIONAL[f.name]:
                continue
            out[f.name] = value
        return out

    def to_payload(self) -> bytes:
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False).encode()

    def check(self) -> None:
        """Constraints beyond the field types (raise :class:`ProtocolError`)."""


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# One decoder: json.loads with an option builds a new one at every call.
_DECODER = json.JSONDecoder(parse_constant=_no_constants)


def loads(payload: bytes | str) -> Any:
    """Parse JSON strictly (no NaN/Infinity, no lone UTF-16 surrogates), refusing payloads over
    the size limit.

    >>> loads(b'{"id": "\\\\ud83d\\\\ude00"}')["id"] == "\U0001f600"   # a pair: a character
    True
    >>> loads(b'{"id": "\\\\ud800"}')
    Traceback (most recent call last):
      ...
    mesa.protocol.ProtocolError: bad_string: a string holds a lone UTF-16 surrogate (no store can encode it)
    """
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise ProtocolError("too_large", f"{len(payload)} bytes > {MAX_PAYLOAD_BYTES}")
    try:
        text = payload.decode("utf-8") if isinstance(payload, bytes | bytearray) else payload
        obj = _DECODER.decode(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise ProtocolError("bad_json", f"not JSON: {str(e)[:80]}") from None
    # A lone surrogate can only come from a \uD800-\uDFFF escape (raw UTF-8 cannot hold one,
    # and a str argument is checked whole): SQLite cannot encode it, and one such string in a
    # batch used to roll back every other table's events with it.
    if (isinstance(payload, str) or _SURROGATE_ESCAPE.search(text)) and _lone_surrogate(obj):
        raise ProtocolError(
            "bad_string", "a string holds a lone UTF-16 surrogate (no store can encode it)"
        )
    return obj


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _lone_surrogate(obj: Any) -> bool:
    """Whether any string (or key) in a parsed JSON value cannot be encoded as UTF-8."""
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return False


def _message_checks(cls: type) -> tuple[frozenset[str], list[tuple[str, Any, Check]]]:
    compiled = _CHECKS.get(cls)
    if compiled is None:
        checks = []
        for name, hint in _hints(cls).items():
            ok = compile_check(hint)
            if hint is int:
                # SQLite integers stop at 2**63; nothing honest counts that high.
                ok = _bounded_int
            checks.append((name, hint, ok))
        compiled = _CHECKS[cls] = (frozenset(["v", *_hints(cls)]), checks)
    return compiled


def _bounded_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and -MAX_INT <= v <= MAX_INT


def from_obj(cls: type[M], obj: Any, table: str | None = None) -> M:
    """Build a ``cls`` message from a parsed JSON object, checking every field."""
    if not isinstance(obj, dict):
        raise ProtocolError("bad_json", f"a {cls.__name__} must be a JSON object")
    version = obj.get("v")
    if version != cls.VERSION or isinstance(version, bool):
        raise ProtocolError("bad_version", f"v={version!r}, this hub speaks v={cls.VERSION}")
    names, checks = _message_checks(cls)
    if obj.keys() != names:
        unknown = obj.keys() - names
        if unknown:
            raise ProtocolError("bad_field", f"unknown fields {sorted(map(str, unknown))[:5]}")
        missing = names - obj.keys() - cls.OPTIONAL.keys()
        if missing:
            raise ProtocolError("bad_field", f"missing fields {sorted(missing)}")
        obj = {**cls.OPTIONAL, **obj}
    for name, hint, ok in checks:
        value = obj[name]
        if not ok(value):
            if ok is _bounded_int and compile_check(hint)(value):
                raise ProtocolError("bad_field", f"{name} is out of range")
            raise _fail("bad_field", "", name, hint, value)
    # Fields are checked: fill the frozen dataclass directly (its __init__ costs microseconds
    # per field through object.__setattr__, and the hub builds thousands a second).
    msg = cls.__new__(cls)
    msg.__dict__.update({name: obj[name] for name, _, _ in checks})
    own = getattr(msg, "table", None)
    if own is not None:
        check_table_id(own)
        if table is not None and own != table:
            raise ProtocolError(
                "table_mismatch", f"the payload names table {own!r} but the topic table {table!r}"
            )
    msg.check()
    return msg


def decode(
    cls: type[M],
    payload: bytes | str,
    table: str | None = None,
    *,
    parse: Callable[[bytes | str], Any] = loads,
) -> M:
    """Decode and validate one payload; ``table`` is the id from the topic it came on.

    ``parse`` replaces :func:`loads` (the hub's faster parser, which must accept and refuse
    exactly what ``loads`` does)."""
    obj = parse(payload)
    if cls is EventEnvelope:
        fast = _envelope_fast(obj, table)
        if fast is not None:
            # cls is EventEnvelope, so M is too; mypy does not narrow a type variable on `is`.
            return fast  # type: ignore[return-value]
    return from_obj(cls, obj, table)


def _envelope_fast(obj: Any, table: str | None) -> EventEnvelope | None:
    """The hub's hot path: an envelope that is plainly well-formed, checked field by field
    without the generic machinery. Anything unusual returns None and takes the generic path
    (which then refuses it with the right reason); a test holds the two to the same verdict."""
    # Nine keys (ten with the epoch), the names all present: the same as comparing the key
    # sets, cheaper.
    if type(obj) is not dict:
        return None
    n = len(obj)
    if n == 9:
        epoch = None
    elif n == 10:
        epoch = obj.get("epoch")
        if type(epoch) is not int or not 0 <= epoch <= MAX_INT:
            return None
    else:
        return None
    try:
        v, eid, tb, stream, seq = obj["v"], obj["id"], obj["table"], obj["stream"], obj["seq"]
        ts, t, type_name, data = obj["ts"], obj["t"], obj["type"], obj["data"]
    except KeyError:
        return None
    if not (
        type(v) is int
        and v == SCHEMA_VERSION
        and type(eid) is str
        and 0 < len(eid) <= 64
        and type(tb) is str
        and tb in _VALID_IDS
        and (table is None or tb == table)
        and type(stream) is str
        and 0 < len(stream) <= 64
        and type(seq) is int
        and 1 <= seq <= MAX_INT
        and ((type(ts) is float and ts - ts == 0.0) or _is_float(ts))  # inline: finite
        and ((type(t) is float and t - t == 0.0) or _is_float(t))
        and type(type_name) is str
        and type(data) is dict
    ):
        return None
    fast = _FAST_EVENT.get(type_name)
    if fast is None:
        fast = _fast_event(type_name)
    # The common case checked inline; anything else gets validate_event's exact verdict.
    if not _data_fast(fast, data):
        validate_event(type_name, data)
    env = _new(EventEnvelope)
    fields = {"id": eid, "table": tb, "stream": stream, "seq": seq, "ts": ts, "t": t}
    fields["type"], fields["data"], fields["epoch"] = type_name, data, epoch
    _setattr(env, "__dict__", fields)  # a frozen dataclass: around its __setattr__
    return env


_new = object.__new__
_setattr = object.__setattr__


def _data_fast(fast: Any, data: dict[str, Any]) -> bool:
    """True when ``data`` plainly passes :func:`validate_event` (False: ask it)."""
    if fast is False or len(data) != fast[0]:
        return False
    try:
        for name in fast[1]:
            x = data[name]
            if type(x) is not float or x - x != 0.0:  # a finite float (x - x is nan for inf)
                return False
        for name, ok in fast[2]:
            if not ok(data[name]):
                return False
    except KeyError:
        return False
    return True


_FAST_EVENT: dict[str, Any] = {}


def _fast_event(type_name: str) -> Any:
    """An event type's checks split into its float fields (checked inline by the hot path)
    and the others: ``(number of fields, float names, [(name, check)])``; False for an
    unknown type."""
    if type_name not in EVENT_TYPES:
        return False  # not cached: the names are the sender's
    cls = EVENT_TYPES[type_name]
    hints = typing.get_type_hints(cls)
    floats, others = [], []
    for f in dataclasses.fields(cls):
        if hints[f.name] is float:
            floats.append(f.name)
        else:
            others.append((f.name, compile_check(hints[f.name])))
    fast = _FAST_EVENT[type_name] = (
        len(dataclasses.fields(cls)),
        tuple(floats),
        tuple(others),
    )
    return fast


def _short_str(name: str, value: str, limit: int = 64) -> None:
    if not value or len(value) > limit:
        raise ProtocolError("bad_field", f"{name} must be 1-{limit} characters")


def new_id() -> str:
    """A fresh unique id (event ids, transaction ids, stream ids): 32 hex digits, the clock's
    nanoseconds then 64 random bits. Time-ordered like a UUIDv7, so that the hub's unique index
    on event ids grows at its end instead of at random places (a third cheaper per insert).

    >>> a, b = new_id(), new_id()
    >>> len(a), a != b, a[:8] <= b[:8]
    (32, True, True)
    """
    return f"{time.time_ns():016x}{secrets.token_hex(8)}"


@dataclass(frozen=True)
class EventEnvelope(Message):
    """One event from a table. ``stream`` names the table's outbox (a new SD card is a new
    stream); ``seq`` counts from 1 within it; ``ts`` is wall-clock seconds when it was handed to
    the link; ``t`` the table's monotonic clock when it happened. ``epoch`` is the fencing token
    of the assignment the table held when the event happened (null: none, or an older table);
    the hub applies a match-affecting event (:data:`mesa.events.FENCED_TYPES`) only when it
    carries the table's current epoch."""

    VERSION: ClassVar[int] = SCHEMA_VERSION
    KIND: ClassVar[str] = "event"
    OPTIONAL: ClassVar[dict[str, Any]] = {"epoch": None}
    id: str
    table: str
    stream: str
    seq: int
    ts: float
    t: float
    type: str
    data: dict[str, Any]
    epoch: int | None = None

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
        epoch: int | None = None,
    ) -> EventEnvelope:
        return cls(id or new_id(), table, stream, seq, ts, t, type, data, epoch)

    def check(self) -> None:
        _short_str("id", self.id)
        _short_str("stream", self.stream)
        if self.seq < 1:
            raise ProtocolError("bad_field", f"seq must be ≥ 1, not {self.seq}")
        if self.epoch is not None and not 0 <= self.epoch <= MAX_INT:
            raise ProtocolError("bad_field", "epoch must be ≥ 0 and within range")
        validate_event(self.type, self.data)

    @property
    def event(self) -> Event:
        return EVENT_TYPES[self.type](**self.data)


_EVENT_CHECKS: dict[str, tuple[frozenset[str], list[tuple[str, Any, Check]]]] = {}


def validate_event(type_name: str, data: dict[str, Any]) -> None:
    """What :func:`mesa.events.parse_event` checks, with the type hints computed once.

    A hypothesis test holds the two to the same verdict on arbitrary data.
    """
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        raise ProtocolError("unknown_type", f"unknown event type {type_name[:64]!r}")
    compiled = _EVENT_CHECKS.get(type_name)
    if compiled is None:
        hints = typing.get_type_hints(cls)
        checks = [
            (f.name, hints[f.name], compile_check(hints[f.name])) for f in dataclasses.fields(cls)
        ]
        compiled = _EVENT_CHECKS[type_name] = (frozenset(n for n, _, _ in checks), checks)
    names, checks = compiled
    if data.keys() != names:
        raise ProtocolError(
            "bad_event",
            f"{type_name}: fields {sorted(map(str, data))[:12]} are not {sorted(names)}",
        )
    for name, hint, ok in checks:
        if not ok(data[name]):
            raise _fail("bad_event", f"{type_name}: ", name, hint, data[name])


def check_event_like_parse_event(type_name: str, data: Any) -> bool:
    """True when :func:`mesa.events.parse_event` accepts it (the slow, reference path)."""
    from mesa.events import parse_event

    try:
        parse_event(type_name, data)
    except (EventError, OverflowError):  # check_value overflows on ints past float range
        return False
    return True


@dataclass(frozen=True)
class TableStatus(Message):
    """Retained. ``bdseq`` counts the table's connections (birth/death): a ``lost`` will whose
    ``bdseq`` is older than the last ``online`` one is stale and ignored."""

    KIND: ClassVar[str] = "status"
    OPTIONAL: ClassVar[dict[str, Any]] = {"game": None}
    table: str
    state: StatusState
    bdseq: int
    ts: float
    game: str | None = None  # the table's game (mesa.games.registry); absent from older tables

    def check(self) -> None:
        if self.bdseq < 0:
            raise ProtocolError("bad_field", "bdseq must be ≥ 0")
        if self.game is not None:
            from mesa.games.registry import names

            if self.game not in names():
                raise ProtocolError("bad_field", f"game {self.game!r} is not a registered game")


# ── the retained snapshot's schema ───────────────────────────────────────────
# A snapshot is :meth:`mesa.table.machine.TableState.to_dict`: its schema is those dataclasses'
# type hints, nested (Clock, Match, Lateness, ...). Fields with a default may be absent (a table
# older than the field); unknown fields are refused, as ``TableState.from_dict`` refuses them.
Node = Callable[[Any, str], str | None]  # value, path → what is wrong, or None


def _dataclass_node(cls: type) -> Node:
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)
    names = frozenset(f.name for f in fields)
    required = frozenset(
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )
    nodes = [(f.name, _node(hints[f.name])) for f in fields]

    def check(value: Any, path: str) -> str | None:
        if type(value) is not dict:
            return f"{path} must be an object"
        if not value.keys() <= names:
            return f"{path} has unknown fields {sorted(map(str, value.keys() - names))[:5]}"
        if not required <= value.keys():
            return f"{path} lacks {sorted(required - value.keys())}"
        for name, node in nodes:
            if name in value:
                wrong = node(value[name], f"{path}.{name}")
                if wrong is not None:
                    return wrong
        return None

    return check


def _node(hint: Any) -> Node:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if dataclasses.is_dataclass(hint):
        return _dataclass_node(hint)  # type: ignore[arg-type]
    if origin in (typing.Union, types.UnionType):
        parts = [_node(a) for a in args]

        def either(value: Any, path: str) -> str | None:
            wrongs = [part(value, path) for part in parts]
            return None if None in wrongs else next(w for w in wrongs if w is not None)

        return either
    if origin is list and dataclasses.is_dataclass(args[0]):
        item = _node(args[0])

        def items(value: Any, path: str) -> str | None:
            if type(value) is not list:
                return f"{path} must be a list"
            for i, x in enumerate(value):
                wrong = item(x, f"{path}[{i}]")
                if wrong is not None:
                    return wrong
            return None

        return items
    ok = _bounded_int if hint is int else compile_check(hint)

    def leaf(value: Any, path: str) -> str | None:
        if ok(value):
            return None
        return _fail("bad_snapshot", "", path, hint, value).reason

    return leaf


_SNAPSHOT: list[Node] = []


# What a table's link adds to its retained snapshot while its outbox cannot be written (a full
# disk): ``storage`` ("disk_full" or "error") and ``unstored``, the events waiting in memory.
LINK_SNAPSHOT_KEYS = frozenset({"storage", "unstored"})


def check_snapshot(snapshot: Any) -> None:
    """Refuse (:class:`ProtocolError` ``bad_snapshot``) a snapshot that is not a table's state.

    >>> from mesa.table.machine import Table
    >>> check_snapshot(Table().snapshot())
    >>> bad = Table().snapshot(); bad["match"] = {"length": 5, "score": 5}
    >>> check_snapshot(bad)
    Traceback (most recent call last):
      ...
    mesa.protocol.ProtocolError: bad_snapshot: snapshot.match.score must be an object, not 5
    """
    if not _SNAPSHOT:
        _SNAPSHOT.append(_dataclass_node(TableState))
    if isinstance(snapshot, dict) and "game_id" in snapshot and "match" not in snapshot:
        check_domino_snapshot({k: v for k, v in snapshot.items() if k not in LINK_SNAPSHOT_KEYS})
        return
    if isinstance(snapshot, dict) and (snapshot.keys() & LINK_SNAPSHOT_KEYS):
        # The link's own flags beside the machine's state, while its outbox cannot be written.
        storage, unstored = snapshot.get("storage"), snapshot.get("unstored", 0)
        if storage is not None and storage not in ("disk_full", "error"):
            raise ProtocolError(
                "bad_snapshot",
                f"snapshot.storage must be disk_full or error, not {str(storage)[:40]!r}",
            )
        if type(unstored) is not int or not 0 <= unstored <= 10**9:
            raise ProtocolError(
                "bad_snapshot", f"snapshot.unstored must be a count, not {str(unstored)[:40]!r}"
            )
        snapshot = {k: v for k, v in snapshot.items() if k not in LINK_SNAPSHOT_KEYS}
    wrong = _SNAPSHOT[0](snapshot, "snapshot")
    if wrong is not None:
        raise ProtocolError("bad_snapshot", wrong[:200])
    try:
        TableState.from_dict(snapshot)  # what the pages rebuild from it: the state name, ...
        # ...and the view the pages draw from it (a score without its sides, say, types well
        # but cannot be drawn).
        from mesa.table.machine import Table
        from mesa.table.view import table_view

        last = snapshot.get("last_now")
        table_view(
            Table.restore(copy.deepcopy(snapshot)),
            float(last) if isinstance(last, int | float) else 0.0,
        )
    except Exception as e:  # whatever the constructors refuse, the snapshot is not one
        raise ProtocolError("bad_snapshot", f"not a table state: {str(e)[:160]}") from None


def check_domino_snapshot(snapshot: dict[str, Any]) -> None:
    """Refuse (``bad_snapshot``) a domino table's snapshot that its own code cannot read back:
    restored and drawn at its instant, exactly as the hub's pages will.

    >>> from mesa.domino.machine import DominoTable
    >>> check_domino_snapshot(DominoTable().snapshot())
    >>> check_domino_snapshot({**DominoTable().snapshot(), "players": 5})
    Traceback (most recent call last):
      ...
    mesa.protocol.ProtocolError: bad_snapshot: not a domino table's state: ...
    """
    from mesa.domino.machine import DominoTable
    from mesa.domino.view import domino_view

    try:
        if len(json.dumps(snapshot)) > MAX_PAYLOAD_BYTES:
            raise ValueError("too large")
        table = DominoTable.restore(copy.deepcopy(snapshot))
        last = snapshot.get("last_now")
        domino_view(table, float(last) if isinstance(last, int | float) else 0.0)
    except Exception as e:  # whatever the table's code refuses, the snapshot is not one
        raise ProtocolError(
            "bad_snapshot", f"not a domino table's state: {type(e).__name__}: {str(e)[:120]}"
        ) from None


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
        check_snapshot(self.snapshot)


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
        if self.code is not None:
            _short_str("code", self.code)
        if self.reason is not None and len(self.reason) > MAX_REASON:
            raise ProtocolError("bad_field", f"reason must be at most {MAX_REASON} characters")


# A refusal's reason as a table words it: a sentence or two, never a document.
MAX_REASON = 1000


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


@dataclass(frozen=True)
class DominoAssignment(Message):
    """Retained on a domino table's ``assign`` topic: its game and, once the director has
    called it, "TIEMPO". ``args`` are the domino ``assign`` input's arguments, or null: no game.
    ``tiempo`` is the hub's wall-clock instant at which the game's time started (null: not yet).
    A table that boots, restarts or reconnects reads it and counts the game's time from there.

    >>> players = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}
    >>> a = DominoAssignment("3", "x1", "domino", {"game_id": "R1-M3", "players": players},
    ...                      1000.0, ts=1000.0)
    >>> decode(DominoAssignment, a.to_payload(), table="3").tiempo
    1000.0
    >>> decode(Assignment, a.to_payload(), table="3")
    Traceback (most recent call last):
      ...
    mesa.protocol.ProtocolError: bad_field: unknown fields ['game', 'tiempo']
    """

    KIND: ClassVar[str] = "assign"
    table: str
    txn: str
    game: Literal["domino"]
    args: dict[str, Any] | None
    tiempo: float | None
    ts: float

    def check(self) -> None:
        _short_str("txn", self.txn)
        if self.args is not None:
            try:
                parse_domino_input("assign", self.args)
            except InputError as e:
                raise ProtocolError("bad_input", str(e)[:200]) from None
        if self.tiempo is not None:
            if self.args is None:
                raise ProtocolError("bad_field", "tiempo without a game")
            if not 0.0 <= self.tiempo < 2**40:
                raise ProtocolError("bad_field", "tiempo must be wall-clock seconds since 1970")


@dataclass(frozen=True)
class DominoCommand(Message):
    """A director command to a domino table: one of :data:`DOMINO_CMD_INPUTS`."""

    KIND: ClassVar[str] = "cmd"
    table: str
    txn: str
    game: Literal["domino"]
    input: str
    args: dict[str, Any]
    ts: float

    def check(self) -> None:
        _short_str("txn", self.txn)
        if self.input not in DOMINO_CMD_INPUTS:
            raise ProtocolError("bad_input", f"{self.input[:64]!r} is not a domino hub command")
        try:
            parse_domino_input(self.input, self.args)
        except InputError as e:
            raise ProtocolError("bad_input", str(e)[:200]) from None


MESSAGES: dict[str, type[Message]] = {
    cls.KIND: cls
    for cls in (
        EventEnvelope,
        TableStatus,
        StateReport,
        Response,
        Assignment,
        Command,
        Ack,
        HubStatus,
    )
}

# What a domino table reads on its ``assign`` and ``cmd`` topics (the other topics are shared).
DOMINO_MESSAGES: dict[str, type[Message]] = {"assign": DominoAssignment, "cmd": DominoCommand}
