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
import re
import secrets
import time
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar

import msgspec

from mesa.engine.inputs import Input, InputError, InputSpec
from mesa.errors import MesaError
from mesa.events import EVENT_TYPES, SCHEMA_VERSION, Event, EventError
from mesa.games import registry
from mesa.games.backgammon.inputs import INPUT_SPECS, parse_input
from mesa.games.domino.inputs import INPUT_SPECS as DOMINO_INPUT_SPECS
from mesa.games.domino.inputs import parse_input as parse_domino_input
from mesa.validation import BoundedInt, FiniteFloat, explain, schema

PROTOCOL_VERSION = 1
NAMESPACE = f"mesa/v{PROTOCOL_VERSION}"
# A state snapshot of a long match is a few kB; anything near this limit is not a table talking.
MAX_PAYLOAD_BYTES = 64 * 1024
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
def _hub_commands(specs: dict[str, InputSpec], retained: tuple[str, ...]) -> tuple[str, ...]:
    """A game's hub inputs but those that travel on the retained ``assign`` topic."""
    return tuple(n for n, spec in specs.items() if spec.source == "hub" and n not in retained)


CMD_INPUTS: tuple[str, ...] = _hub_commands(INPUT_SPECS, ("assign", "unassign", "refence"))

# A domino table's hub commands (the director's); its game and "TIEMPO" travel on the retained
# ``assign`` topic as a :class:`DominoAssignment`.
DOMINO_CMD_INPUTS: tuple[str, ...] = _hub_commands(
    DOMINO_INPUT_SPECS, ("assign", "unassign", "tiempo")
)

StatusState = Literal["online", "offline", "lost"]


@dataclass(frozen=True)
class Revisions:
    """The revisions of protocol v1 a side speaks, ``low`` to ``high`` (docs/protocol.md
    "Revisions"). A revision adds to v1 what an older peer does not know, so two sides talk at
    the highest revision both speak; with none in common, they cannot talk.

    >>> table, hub = Revisions(1, 2), Revisions.parse("1-3")
    >>> table.common(hub), str(hub), table.mismatch(hub)
    (2, '1-3', None)
    >>> Revisions(3, 3).mismatch(Revisions(1, 2)), Revisions(1, 1).mismatch(Revisions(2, 4))
    ('hub_too_old', 'hub_too_new')
    >>> Revisions.parse("2-1") is None and Revisions.parse(None) is None
    True
    """

    low: int
    high: int

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    @classmethod
    def parse(cls, text: str | None) -> Revisions | None:
        """``"low-high"`` as the hub announces it; None for anything else."""
        m = re.fullmatch(r"([1-9][0-9]{0,5})-([1-9][0-9]{0,5})", text or "")
        if m is None or int(m[1]) > int(m[2]):
            return None
        return cls(int(m[1]), int(m[2]))

    def common(self, other: Revisions) -> int | None:
        """The highest revision both speak (None: none)."""
        top = min(self.high, other.high)
        return top if top >= max(self.low, other.low) else None

    def mismatch(self, hub: Revisions) -> Literal["hub_too_old", "hub_too_new"] | None:
        """Why this table cannot talk to ``hub`` (None: it can)."""
        if self.low > hub.high:
            return "hub_too_old"
        if self.high < hub.low:
            return "hub_too_new"
        return None


# 1: the first release's (nothing names a revision). 2: the hub announces its revisions (the
# user property below, on its retained status) and a table names the one it speaks in its
# status (``TableStatus.revision``). 3: a table beats (:class:`Beat` on its ``beat`` topic) and
# the hub times the beats out itself, instead of waiting for the broker to notice the silence.
REVISIONS = Revisions(1, 3)
# The MQTT 5 user property of the hub's status (and of its will) carrying ``str(REVISIONS)``.
# Not a payload field: tables of revision 1 decode the hub's status strictly and would refuse
# an unknown field, while they ignore a property.
REVISIONS_PROPERTY = "mesa-revisions"
# What a hub that announces nothing speaks (it is of the first release).
FIRST_REVISION = Revisions(1, 1)
# The revision that brings the table's beat: a table beats only to a hub that speaks it (an
# older hub neither subscribes to the topic nor knows it, and would count it as hostile).
BEAT_REVISION = 3
# A table beats every keepalive / BEATS_PER_KEEPALIVE seconds, within these bounds; the hub
# takes a table that stays silent for BEATS_MISSED beats (one keepalive, as the table's beat
# says) as lost, as its will would say, well before the broker notices (1.5 keepalives, late).
BEATS_PER_KEEPALIVE = 3
BEATS_MISSED = 3
BEAT_MIN_EVERY = 0.5
BEAT_MAX_EVERY = 300.0


def beat_every(keepalive: float) -> float | None:
    """The seconds between a table's beats for its MQTT ``keepalive`` (None: no keepalive,
    no beats).

    >>> beat_every(15), beat_every(1), beat_every(0)
    (5.0, 0.5, None)
    """
    if keepalive <= 0:
        return None
    return min(BEAT_MAX_EVERY, max(BEAT_MIN_EVERY, keepalive / BEATS_PER_KEEPALIVE))


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
        TopicSpec("beat", "table", 0, False, "I am here (revision 3), every keepalive / 3"),
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
    """What a table subscribes to: the hub's status, its own hub topics and its own status.
    The hub's status first: the broker sends retained messages in the order of the filters,
    so the table knows the revisions the hub speaks before it reads its retained assignment."""
    mine = [table_topic(table, k) for k, spec in TABLE_TOPICS.items() if spec.sender == "hub"]
    return [HUB_STATUS_TOPIC, *mine, table_topic(table, "status")]


# ── payloads ────────────────────────────────────────────────────────────────
M = TypeVar("M", bound="Message")

# Wire integers stop at ±2**53 (SQLite's stop at 2**63; nothing honest counts that high), wire
# floats are finite.
Int = BoundedInt
Float = FiniteFloat


class Message(
    msgspec.Struct,
    frozen=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    tag_field="v",
    tag=PROTOCOL_VERSION,
):
    """Base of every payload: a frozen msgspec Struct whose fields are the JSON object's keys,
    with the version ``v`` first (the Struct's tag)."""

    VERSION: ClassVar[int] = PROTOCOL_VERSION
    KIND: ClassVar[str] = ""
    # Fields added after the first version carry a default (:func:`_optional`): absent means
    # the default (older senders), and ``to_dict`` leaves them out while they hold it, as the
    # encoder does (``omit_defaults``), so older readers see what they know.

    def to_dict(self) -> dict[str, Any]:
        out = {"v": self.VERSION}
        optional = _optional(type(self))
        for name in self.__struct_fields__:
            value = getattr(self, name)
            if name in optional and value == optional[name]:
                continue
            out[name] = value
        return out

    def to_payload(self) -> bytes:
        return _ENCODE(self)

    def check(self) -> None:
        """Constraints beyond the field types (raise :class:`ProtocolError`)."""


_ENCODE = msgspec.json.Encoder().encode


def _optional(cls: type[Message]) -> dict[str, Any]:
    """A message's fields with a default, and the default (msgspec keeps them last)."""
    found = _OPTIONAL.get(cls)
    if found is None:
        names, defaults = cls.__struct_fields__, cls.__struct_defaults__
        found = _OPTIONAL[cls] = dict(zip(names[len(names) - len(defaults):], defaults,
                                          strict=True))
    return found


_OPTIONAL: dict[type, dict[str, Any]] = {}


class _Unversioned(msgspec.Struct, tag_field="v", tag=0):
    """Never sent. Decoding ``Message | _Unversioned`` makes msgspec demand the tag ``v``: a
    lone tagged Struct would take an object without one. ``v=0`` lands here, refused."""


def _hints(cls: type[Message]) -> dict[str, Any]:
    """A message's fields and their type hints (the docs' test reads the names)."""
    hints = _HINTS.get(cls)
    if hints is None:
        every = typing.get_type_hints(cls)
        hints = _HINTS[cls] = {name: every[name] for name in cls.__struct_fields__}
    return hints


_HINTS: dict[type, dict[str, Any]] = {}
_DECODERS: dict[type, msgspec.json.Decoder[Any]] = {}


def _decoder(cls: type) -> msgspec.json.Decoder[Any]:
    dec = _DECODERS.get(cls)
    if dec is None:
        dec = _DECODERS[cls] = msgspec.json.Decoder(cls | _Unversioned, strict=True)
    return dec


def loads(payload: bytes | str) -> Any:
    """Parse JSON strictly (no NaN/Infinity, no number past a double, no lone UTF-16
    surrogates), refusing payloads over the size limit.

    >>> loads(b'{"id": "\\\\ud83d\\\\ude00"}')["id"] == "\U0001f600"   # a pair: a character
    True
    >>> loads(b'{"id": "\\\\ud800"}')
    Traceback (most recent call last):
      ...
    mesa.protocol.ProtocolError: bad_string: a string holds a lone UTF-16 surrogate (no store can encode it)
    """
    _check_size(payload)
    try:
        return msgspec.json.decode(payload)
    except Exception as e:  # every way a payload fails is one refusal
        raise _parse_error(e, payload) from None


def _check_size(payload: bytes | str) -> None:
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise ProtocolError("too_large", f"{len(payload)} bytes > {MAX_PAYLOAD_BYTES}")


def _parse_error(e: Exception, payload: bytes | str) -> ProtocolError:
    """A payload msgspec could not parse: bad JSON, or a string no store can encode."""
    # A lone surrogate comes from a \uD800-\uDFFF escape (msgspec refuses it while parsing) or
    # from a str argument (it cannot be encoded): SQLite cannot encode it either, and one such
    # string in a batch used to roll back every other table's events with it.
    if isinstance(e, UnicodeEncodeError) or "surrogate" in str(e) or _lone_surrogate(payload):
        return ProtocolError(
            "bad_string", "a string holds a lone UTF-16 surrogate (no store can encode it)"
        )
    return ProtocolError("bad_json", f"not JSON: {str(e)[:80]}")


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _lone_surrogate(payload: bytes | str) -> bool:
    """Whether a payload msgspec refused is JSON but for a lone surrogate: msgspec words one at
    the end of a string as "truncated". Asked only of refused payloads that hold such an
    escape; the standard parser takes lone surrogates, and its strings tell."""
    raw = payload.encode("utf-8", "surrogatepass") if isinstance(payload, str) else payload
    if not _SURROGATE_ESCAPE.search(raw):
        return False
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
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


_AT = re.compile(r"(.*?)(?: - at `\$(.*)`)?", re.S)


def _located(error: str) -> tuple[str, str | None]:
    """msgspec's refusal split into what is wrong and where (``.data[0]``; None: the object)."""
    match = _AT.fullmatch(error)
    assert match is not None  # the pattern matches any text
    what, path = match.groups()
    return what, path


def _field_of(path: str) -> str:
    """The top field a msgspec path starts with: ``data`` of ``.data[0].x``."""
    return re.split(r"[.\[]", path[1:], maxsplit=1)[0]


# Where an error inside a message's free-form part is that part's refusal, not the field's.
_PART_CODES = {"data": "bad_event", "snapshot": "bad_snapshot", "args": "bad_input"}


def _refusal(cls: type[Message], error: msgspec.ValidationError, obj: Any) -> ProtocolError:
    """msgspec's refusal as the protocol words it (``obj``: the parsed payload, or None)."""
    what, path = _located(str(error))
    if path is None:
        return _object_refusal(cls, what, obj)
    name = _field_of(path)
    if name == "v":
        got = obj.get("v") if isinstance(obj, dict) else "?"
        return ProtocolError("bad_version", f"v={got!r}, this hub speaks v={cls.VERSION}")
    if name in _PART_CODES and path != f".{name}":
        return ProtocolError(_PART_CODES[name], f"{name}{path[len(name) + 1 :]}: {what}"[:200])
    hint = _hints(cls).get(name)
    if isinstance(obj, dict) and name in obj and hint is not None:
        return ProtocolError("bad_field", explain(name, hint, obj[name], bounded=True)[:200])
    return ProtocolError("bad_field", f"{name}: {what}"[:200])


def _object_refusal(cls: type[Message], what: str, obj: Any) -> ProtocolError:
    if what.startswith("Expected `object`"):
        return ProtocolError("bad_json", f"a {cls.__name__} must be a JSON object")
    if what == "Object missing required field `v`":
        return ProtocolError("bad_version", f"v=None, this hub speaks v={cls.VERSION}")
    names = {"v", *_hints(cls)}
    if isinstance(obj, dict) and obj.keys() - names:
        return ProtocolError(
            "bad_field", f"unknown fields {sorted(map(str, obj.keys() - names))[:5]}"
        )
    if isinstance(obj, dict):
        missing = names - obj.keys() - set(_optional(cls))
        if missing:
            return ProtocolError("bad_field", f"missing fields {sorted(missing)}")
    return ProtocolError("bad_field", what[:200])


def _after(msg: M, table: str | None) -> M:
    """What the types cannot say: the table ids, then the message's own constraints."""
    own = getattr(msg, "table", None)
    if own is not None:
        check_table_id(own)
        if table is not None and own != table:
            raise ProtocolError(
                "table_mismatch", f"the payload names table {own!r} but the topic table {table!r}"
            )
    msg.check()
    return msg


def from_obj(cls: type[M], obj: Any, table: str | None = None) -> M:
    """Build a ``cls`` message from a parsed JSON object, checking every field."""
    try:
        msg = msgspec.convert(obj, cls | _Unversioned, strict=True)
    except msgspec.ValidationError as e:
        raise _refusal(cls, e, obj) from None
    if not isinstance(msg, cls):
        raise ProtocolError("bad_version", f"v=0, this hub speaks v={cls.VERSION}")
    return _after(msg, table)


def decode(cls: type[M], payload: bytes | str, table: str | None = None) -> M:
    """Decode and validate one payload; ``table`` is the id from the topic it came on.

    msgspec parses and types it in one pass (strict: no bool for an int, no string for a
    number, no unknown field); the checks the types cannot express follow."""
    _check_size(payload)
    try:
        msg = _decoder(cls).decode(payload)
    except msgspec.ValidationError as e:
        raise _refusal(cls, e, _parsed(payload)) from None
    except Exception as e:  # DecodeError, a str with a surrogate, a deep nest
        raise _parse_error(e, payload) from None
    if not isinstance(msg, cls):
        raise ProtocolError("bad_version", f"v=0, this hub speaks v={cls.VERSION}")
    return _after(msg, table)


def _parsed(payload: bytes | str) -> Any:
    """The payload as plain JSON values, to name what a refusal is about (None: a number past a
    double). A payload that is not even JSON is refused as such, whatever its fields: a lone
    surrogate in an unknown field is ``bad_string``, as it always was."""
    try:
        return msgspec.json.decode(payload)
    except msgspec.ValidationError:
        return None
    except Exception as e:
        raise _parse_error(e, payload) from None


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


class EventEnvelope(Message, frozen=True, tag=SCHEMA_VERSION):
    """One event from a table. ``stream`` names the table's outbox (a new SD card is a new
    stream); ``seq`` counts from 1 within it; ``ts`` is wall-clock seconds when it was handed to
    the link; ``t`` the table's monotonic clock when it happened. ``epoch`` is the fencing token
    of the assignment the table held when the event happened (null: none, or an older table);
    the hub applies a match-affecting event (:data:`mesa.events.FENCED_TYPES`) only when it
    carries the table's current epoch."""

    VERSION: ClassVar[int] = SCHEMA_VERSION
    KIND: ClassVar[str] = "event"
    id: str
    table: str
    stream: str
    seq: Int
    ts: Float
    t: Float
    type: str
    data: dict[str, Any]
    epoch: Int | None = None

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
        if self.epoch is not None and self.epoch < 0:
            raise ProtocolError("bad_field", "epoch must be ≥ 0 and within range")
        validate_event(self.type, self.data)

    @property
    def event(self) -> Event:
        return EVENT_TYPES[self.type](**self.data)


_EVENT_SCHEMAS: dict[str, Any] = {}


def validate_event(type_name: str, data: dict[str, Any]) -> None:
    """What :func:`mesa.events.parse_event` checks, through the event type's msgspec Struct
    (built once from its dataclass). A hypothesis test holds the two to the same verdict."""
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        raise ProtocolError("unknown_type", f"unknown event type {type_name[:64]!r}")
    struct = _EVENT_SCHEMAS.get(type_name)
    if struct is None:
        struct = _EVENT_SCHEMAS[type_name] = schema(typing.cast(Any, cls))
    try:
        msgspec.convert(data, struct, strict=True)
    except msgspec.ValidationError as e:
        raise _event_refusal(type_name, cls, data, e) from None


def _event_refusal(
    type_name: str, cls: type, data: Any, error: msgspec.ValidationError
) -> ProtocolError:
    path = _located(str(error))[1]
    if path is None:
        names = sorted(f.name for f in dataclasses.fields(cls))
        got = sorted(map(str, data))[:12] if isinstance(data, dict) else data
        return ProtocolError("bad_event", f"{type_name}: fields {got} are not {names}")
    name = _field_of(path)
    hint = typing.get_type_hints(cls)[name]
    return ProtocolError("bad_event", f"{type_name}: {explain(name, hint, data[name])}"[:200])


def check_event_like_parse_event(type_name: str, data: Any) -> bool:
    """True when :func:`mesa.events.parse_event` accepts it (the slow, reference path)."""
    from mesa.events import parse_event

    try:
        parse_event(type_name, data)
    except (EventError, OverflowError):  # check_value overflows on ints past float range
        return False
    return True


class TableStatus(Message, frozen=True):
    """Retained. ``bdseq`` counts the table's connections (birth/death): a ``lost`` will whose
    ``bdseq`` is older than the last ``online`` one is stale and ignored. ``game`` names the
    registered game the table plays (:func:`mesa.games.registry.names`); absent from an older
    table, which plays backgammon or says so in its snapshot. ``revision`` is the protocol
    revision the table speaks with this hub (:class:`Revisions`; absent: 1, a table of the
    first release, or one that has not heard the hub's yet); one above every revision the
    hub speaks is a table too new for it. Every revision keeps this message as it is, plus
    ``revision``: it is how a table too new for its hub still tells it so."""

    KIND: ClassVar[str] = "status"
    table: str
    state: StatusState
    bdseq: Int
    ts: Float
    game: str | None = None
    revision: Int = 1

    def check(self) -> None:
        if self.bdseq < 0:
            raise ProtocolError("bad_field", "bdseq must be ≥ 0")
        if self.revision < 1:
            raise ProtocolError("bad_field", "revision must be ≥ 1")
        if self.game is not None and self.game not in registry.names():
            raise ProtocolError(
                "bad_field",
                f"game must be one of {', '.join(registry.names())}, not {self.game[:40]!r}",
            )


# ── the retained snapshot ────────────────────────────────────────────────────
# A snapshot is the table's machine state (for backgammon :meth:`TableState.to_dict`), its game
# named by ``game_name`` (or, in an older snapshot, told by its keys: mesa.games.registry).
# A game whose registry entry names a ``snapshot_type`` (backgammon's TableState) has its state
# typed by that dataclass's hints, nested (Clock, Match, Lateness, ...), as a msgspec Struct
# built once: fields with a default may be absent (a table older than the field); unknown fields
# are refused, as ``TableState.from_dict`` refuses them. Every game's snapshot must then restore
# and draw, exactly as the hub's pages will.

# What a table's link adds to its retained snapshot while its outbox cannot be written (a full
# disk): ``storage`` ("disk_full" or "error") and ``unstored``, the events waiting in memory.
LINK_SNAPSHOT_KEYS = frozenset({"storage", "unstored"})


def check_snapshot(snapshot: Any) -> None:
    """Refuse (:class:`ProtocolError` ``bad_snapshot``) a snapshot that is not a table's state:
    its game is the registry's reading of it, its state typed where the game declares its
    type, then restored and drawn at its instant, exactly as the hub's pages will.

    >>> from mesa.games.backgammon.machine import Table
    >>> check_snapshot(Table().snapshot())
    >>> bad = Table().snapshot(); bad["match"] = {"length": 5, "score": 5}
    >>> check_snapshot(bad)
    Traceback (most recent call last):
      ...
    mesa.protocol.ProtocolError: bad_snapshot: snapshot.match.score must be an object, not 5
    >>> from mesa.games.domino.machine import DominoTable
    >>> check_snapshot(DominoTable().snapshot())
    >>> check_snapshot({**DominoTable().snapshot(), "players": 5})
    Traceback (most recent call last):
      ...
    mesa.protocol.ProtocolError: bad_snapshot: not a domino table's state: ...
    """
    if type(snapshot) is not dict:
        raise ProtocolError("bad_snapshot", "snapshot must be an object")
    try:
        game = registry.game_of_snapshot(snapshot)
    except registry.UnknownGame as e:
        raise ProtocolError("bad_snapshot", f"snapshot.{registry.GAME_KEY}: {e}"[:200]) from None
    if snapshot.keys() & LINK_SNAPSHOT_KEYS:
        _check_link_flags(snapshot)
    state = {
        k: v for k, v in snapshot.items() if k not in LINK_SNAPSHOT_KEYS and k != registry.GAME_KEY
    }
    if game.snapshot_type is not None:
        _check_state_types(game.snapshot_type, state)
    try:
        if len(_ENCODE(state)) > MAX_PAYLOAD_BYTES:
            raise ValueError("too large")
        # A state that types well may still not restore, or not draw (a score without its
        # sides, say): whatever the game's own code refuses, the snapshot is not one.
        last = state.get("last_now")
        game.view(
            game.machine.restore(copy.deepcopy(state)),
            float(last) if isinstance(last, int | float) else 0.0,
        )
    except Exception as e:
        raise ProtocolError(
            "bad_snapshot",
            f"not a {game.name} table's state: {type(e).__name__}: {str(e)[:120]}",
        ) from None


def _check_link_flags(snapshot: dict[str, Any]) -> None:
    """The link's own flags beside the machine's state, while its outbox cannot be written."""
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


def _check_state_types(cls: type, state: dict[str, Any]) -> None:
    try:
        msgspec.convert(state, schema(cls, bounded=True), strict=True)
    except msgspec.ValidationError as e:
        raise ProtocolError("bad_snapshot", _state_wrong(cls, state, str(e))[:200]) from None


def _state_wrong(cls: type, state: Any, error: str) -> str:
    """msgspec's refusal of a state, named by its path: ``snapshot.match.score must be ...``."""
    what, path = _located(error)
    where, hint, value = "snapshot", cls, state
    for name, index in re.findall(r"\.(\w+)|\[(\d+)\]", path or ""):
        inner = _nullable(hint)
        if name and dataclasses.is_dataclass(inner) and isinstance(value, dict) and name in value:
            hint, value = typing.get_type_hints(inner)[name], value[name]
            where = f"{where}.{name}"
        elif index and isinstance(value, list) and int(index) < len(value):
            hint, value = (typing.get_args(inner) or (Any,))[0], value[int(index)]
            where = f"{where}[{index}]"
        else:
            break
    if not dataclasses.is_dataclass(_nullable(hint)):
        return explain(where, hint, value, bounded=True)
    if isinstance(value, dict):
        return f"{where}: {what}"  # an unknown or a missing field
    return f"{where} must be an object"


def _nullable(hint: Any) -> Any:
    """``X`` of ``X | None`` (``hint`` itself when it is no such union)."""
    if typing.get_origin(hint) not in (typing.Union, types.UnionType):
        return hint
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    return args[0] if len(args) == 1 else hint


class StateReport(Message, frozen=True):
    """Retained snapshot. ``seq`` is the last event the snapshot includes; ``acked`` the highest
    seq the hub has acknowledged to this table (the table no longer keeps anything below)."""

    KIND: ClassVar[str] = "state"
    table: str
    stream: str
    seq: Int
    acked: Int
    ts: Float
    snapshot: dict[str, Any]

    def check(self) -> None:
        _short_str("stream", self.stream)
        if self.seq < 0 or self.acked < 0:
            raise ProtocolError("bad_field", "seq and acked must be ≥ 0")
        check_snapshot(self.snapshot)


class Response(Message, frozen=True):
    """A table's answer to an ``assign`` or a ``cmd`` with the same ``txn``. Refused, ``code``
    says why; accepted, a ``code`` is a note the sender must hear (``clock_next_game``: a clock
    ordered during a game starts with the match's next game)."""

    KIND: ClassVar[str] = "response"
    table: str
    txn: str
    accepted: bool
    code: str | None
    reason: str | None
    ts: Float

    def check(self) -> None:
        _short_str("txn", self.txn)
        if self.code is not None:
            _short_str("code", self.code)
        if self.reason is not None and len(self.reason) > MAX_REASON:
            raise ProtocolError("bad_field", f"reason must be at most {MAX_REASON} characters")


# A refusal's reason as a table words it: a sentence or two, never a document.
MAX_REASON = 1000


def _check_input(parse: Callable[[Any, Any], Input], name: str, args: Any) -> None:
    """Refuse (``bad_input``) an input its game's ``parse`` refuses."""
    try:
        parse(name, args)
    except InputError as e:
        raise ProtocolError("bad_input", str(e)[:200]) from None


class Assignment(Message, frozen=True):
    """Retained. ``args`` are the ``assign`` input's arguments, or null: no match here."""

    KIND: ClassVar[str] = "assign"
    table: str
    txn: str
    args: dict[str, Any] | None
    ts: Float

    def check(self) -> None:
        _short_str("txn", self.txn)
        if self.args is not None:
            _check_input(parse_input, "assign", self.args)


class Command(Message, frozen=True):
    """A director command: one of :data:`CMD_INPUTS` with its arguments."""

    KIND: ClassVar[str] = "cmd"
    table: str
    txn: str
    input: str
    args: dict[str, Any]
    ts: Float

    def check(self) -> None:
        _short_str("txn", self.txn)
        if self.input not in CMD_INPUTS:
            raise ProtocolError("bad_input", f"{self.input[:64]!r} is not a hub command")
        _check_input(parse_input, self.input, self.args)


class Ack(Message, frozen=True):
    """The hub has committed every event of ``stream`` up to ``seq`` (0: none). With
    ``resend_from`` it saw a gap and asks the table to send again from that seq."""

    KIND: ClassVar[str] = "ack"
    table: str
    stream: str
    seq: Int
    resend_from: Int | None
    ts: Float

    def check(self) -> None:
        _short_str("stream", self.stream)
        if self.seq < 0 or (self.resend_from is not None and self.resend_from < 1):
            raise ProtocolError("bad_field", "seq must be ≥ 0 and resend_from ≥ 1")


class Beat(Message, frozen=True):
    """Revision 3: a table's "I am here", sent every ``every`` seconds while it is connected
    to a hub of revision 3 or later (QoS 0, never retained, never stored). The hub takes a table
    whose beats stop for ``BEATS_MISSED × every`` seconds as lost.

    >>> b = Beat("3", beat_every(15))
    >>> b.to_payload(), decode(Beat, b.to_payload(), table="3").every
    (b'{"v":1,"table":"3","every":5.0}', 5.0)
    >>> decode(Beat, b'{"v":1,"table":"3","every":0.01}', table="3")
    Traceback (most recent call last):
      ...
    mesa.protocol.ProtocolError: bad_field: every must be 0.5 to 300.0 seconds, not 0.01
    """

    KIND: ClassVar[str] = "beat"
    table: str
    every: Float

    def check(self) -> None:
        if not BEAT_MIN_EVERY <= self.every <= BEAT_MAX_EVERY:
            raise ProtocolError(
                "bad_field",
                f"every must be {BEAT_MIN_EVERY} to {BEAT_MAX_EVERY} seconds, not {self.every}",
            )


class HubStatus(Message, frozen=True):
    """Retained on ``mesa/v1/hub/status``. When it turns ``online`` every table republishes its
    snapshot and resends what is unacknowledged. ``session`` counts the hub's starts."""

    KIND: ClassVar[str] = "hub_status"
    state: StatusState
    session: Int
    ts: Float


class DominoAssignment(Message, frozen=True):
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
    tiempo: Float | None
    ts: Float

    def check(self) -> None:
        _short_str("txn", self.txn)
        if self.args is not None:
            _check_input(parse_domino_input, "assign", self.args)
        if self.tiempo is not None:
            if self.args is None:
                raise ProtocolError("bad_field", "tiempo without a game")
            if not 0.0 <= self.tiempo < 2**40:
                raise ProtocolError("bad_field", "tiempo must be wall-clock seconds since 1970")


class DominoCommand(Message, frozen=True):
    """A director command to a domino table: one of :data:`DOMINO_CMD_INPUTS`."""

    KIND: ClassVar[str] = "cmd"
    table: str
    txn: str
    game: Literal["domino"]
    input: str
    args: dict[str, Any]
    ts: Float

    def check(self) -> None:
        _short_str("txn", self.txn)
        if self.input not in DOMINO_CMD_INPUTS:
            raise ProtocolError("bad_input", f"{self.input[:64]!r} is not a domino hub command")
        _check_input(parse_domino_input, self.input, self.args)


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
        Beat,
    )
}

# What a domino table reads on its ``assign`` and ``cmd`` topics (the other topics are shared).
DOMINO_MESSAGES: dict[str, type[Message]] = {"assign": DominoAssignment, "cmd": DominoCommand}
