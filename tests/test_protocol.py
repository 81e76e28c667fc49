"""The wire protocol: topics, payloads, refusals, the fuzzed decoder, and its documentation."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa import protocol as p
from mesa.events import EVENT_TYPES, SCHEMA_VERSION, TurnEnded

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "protocol.md"


def envelope(**over: Any) -> dict[str, Any]:
    e = TurnEnded(side="a", seconds=14.5, delay=10.0, charged=4.5, reserve=355.5)
    base = p.EventEnvelope.build("3", "s1", 7, e.TYPE, e.to_data(), ts=1.0, t=2.0, id="e7")
    return {**base.to_dict(), **over}


def raw(obj: Any) -> bytes:
    return json.dumps(obj).encode()


# ── topics ──────────────────────────────────────────────────────────────────
def test_topics_round_trip_and_namespace() -> None:
    for kind in p.TABLE_TOPICS:
        topic = p.table_topic("t12", kind)
        assert topic.startswith("mesa/v1/table/t12/")
        assert p.parse_topic(topic) == ("t12", kind)
    assert p.HUB_STATUS_TOPIC == "mesa/v1/hub/status"
    assert p.hub_subscriptions() == [
        "mesa/v1/table/+/status",
        "mesa/v1/table/+/state",
        "mesa/v1/table/+/event",
        "mesa/v1/table/+/response",
        "mesa/v1/table/+/beat",
    ]
    assert "mesa/v1/table/t3/cmd" in p.table_subscriptions("t3")
    assert "mesa/v1/table/t3/beat" not in p.table_subscriptions("t3")  # the hub's alone


@pytest.mark.parametrize(
    "topic",
    [
        "mesa/v2/table/3/event",
        "mesa/v1/table/3/nope",
        "mesa/v1/table/+/event",
        "mesa/v1/table/3/event/x",
        "mesa/v1/table/Big/event",
        "mesa/v1/table/mesa-hub/event",
        "",
    ],
)
def test_bad_topics_are_refused(topic: str) -> None:
    with pytest.raises(p.ProtocolError) as e:
        p.parse_topic(topic)
    assert e.value.code in ("bad_topic", "bad_table")


def test_table_ids_cannot_hold_wildcards_or_the_hub_name() -> None:
    for bad in ["", "a/b", "+", "#", "T1", "x" * 33, "mesa-hub", 3]:
        with pytest.raises(p.ProtocolError):
            p.check_table_id(bad)


# ── payloads ────────────────────────────────────────────────────────────────
def test_every_message_round_trips() -> None:
    msgs = [
        p.EventEnvelope.build("3", "s", 1, "clock.resumed", {"by": "players"}, ts=1.0, t=0.5),
        p.TableStatus("3", "lost", 4, 1.0),
        p.StateReport("3", "s", 5, 4, 1.0, {"state": "running"}),
        p.Response("3", "x1", False, "not_now", "not while idle", 1.0),
        p.Assignment(
            "3", "x2", {"match_id": "M", "players": {"a": "A", "b": "B"}, "length": 3}, 1.0
        ),
        p.Assignment("3", "x3", None, 1.0),
        p.Command("3", "x4", "director_adjust", {"side": "a", "seconds": 30.0}, 1.0),
        p.Ack("3", "s", 5, None, 1.0),
        p.HubStatus("online", 2, 1.0),
        p.Beat("3", 5.0),
    ]
    assert {type(m) for m in msgs} == set(p.MESSAGES.values())
    for m in msgs:
        table = getattr(m, "table", None)
        assert p.decode(type(m), m.to_payload(), table) == m


def test_envelope_versions() -> None:
    assert envelope()["v"] == SCHEMA_VERSION
    assert p.TableStatus("3", "online", 1, 1.0).to_dict()["v"] == p.PROTOCOL_VERSION


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (b"{not json", "bad_json"),
        (b"\xff\xfe", "bad_json"),
        (b"[1, 2]", "bad_json"),
        (raw(envelope(v=2)), "bad_version"),
        (raw(envelope(v=True)), "bad_version"),
        (raw({k: v for k, v in envelope().items() if k != "seq"}), "bad_field"),
        (raw(envelope(extra=1)), "bad_field"),
        (raw(envelope(seq=0)), "bad_field"),
        (raw(envelope(seq=2**60)), "bad_field"),
        (raw(envelope(seq="7")), "bad_field"),
        (raw(envelope(id="")), "bad_field"),
        (raw(envelope(type="turn.exploded")), "unknown_type"),
        (raw(envelope(data={"side": "c"})), "bad_event"),
        (raw(envelope(data={**envelope()["data"], "side": "c"})), "bad_event"),
        (raw(envelope(table="4")), "table_mismatch"),
        (raw(envelope(table="../x")), "bad_table"),
        (b'{"v": 1, "ts": NaN}', "bad_json"),
        (raw(envelope(data={**envelope()["data"], "pad": "x" * p.MAX_PAYLOAD_BYTES})), "too_large"),
    ],
)
def test_bad_payloads_are_refused_with_a_reason(payload: bytes, code: str) -> None:
    with pytest.raises(p.ProtocolError) as e:
        p.decode(p.EventEnvelope, payload, table="3")
    assert e.value.code == code, e.value


def test_commands_are_only_hub_inputs_with_valid_arguments() -> None:
    assert "director_pause" in p.CMD_INPUTS and "press" not in p.CMD_INPUTS
    assert "assign" not in p.CMD_INPUTS
    for bad in [
        p.Command("3", "x", "press", {"side": "a"}, 1.0),
        p.Command("3", "x", "director_adjust", {"side": "z", "seconds": 1.0}, 1.0),
        p.Assignment("3", "x", {"match_id": "M"}, 1.0),
    ]:
        with pytest.raises(p.ProtocolError) as e:
            p.from_obj(type(bad), bad.to_dict(), "3")
        assert e.value.code == "bad_input"


# ── fuzzing: nothing but ProtocolError ever comes out of the decoder ────────
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
field_values = st.one_of(
    json_values,
    st.sampled_from(["a", "b", "c", "3", "s1", "players", "turn.ended"]),
    st.floats(allow_nan=True, allow_infinity=True),
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_bytes_never_crash(payload: bytes) -> None:
    for cls in p.MESSAGES.values():
        with contextlib.suppress(p.ProtocolError):
            p.decode(cls, payload, table="3")


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(st.sampled_from([*envelope().keys(), "x"]), field_values, max_size=10),
    st.sampled_from(sorted(p.MESSAGES)),
)
def test_fuzz_objects_never_crash(obj: dict[str, Any], kind: str) -> None:
    obj = {**envelope(), **obj}
    try:
        msg = p.decode(p.MESSAGES[kind], json.dumps(obj).encode(), table="3")
    except p.ProtocolError:
        return
    except ValueError:
        return  # json.dumps refused NaN-free floats? never; Infinity: encoded, then refused
    assert getattr(msg, "table", "3") == "3"


event_data = st.dictionaries(
    st.sampled_from(
        [
            "side",
            "seconds",
            "delay",
            "charged",
            "reserve",
            "by",
            "value",
            "reason",
            "match_id",
            "players",
            "score",
            "winner",
            "kind",
            "x",
        ]
    ),
    field_values,
    max_size=8,
)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from([*EVENT_TYPES, "nope"]), event_data)
def test_fast_event_validation_agrees_with_parse_event(
    type_name: str, data: dict[str, Any]
) -> None:
    try:
        p.validate_event(type_name, data)
        fast = True
    except p.ProtocolError:
        fast = False
    assert fast == p.check_event_like_parse_event(type_name, data)


def test_fast_event_validation_accepts_every_real_event() -> None:
    from mesa.games.replay import replay_lines

    lines = [
        '{"t": 0, "input": "assign", "match_id": "G", "players": {"a": "A", "b": "B"}, '
        '"length": 1, "clock": {"preset": "singles"}}',
        '{"t": 1, "input": "press", "side": "a"}',
        '{"t": 2, "input": "press", "side": "b"}',
        '{"t": 3, "input": "press", "side": "a"}',
        '{"t": 9, "input": "press", "side": "b"}',
        '{"t": 10, "input": "claim", "side": "a", "winner": "a", "kind": 1}',
        '{"t": 11, "input": "confirm", "side": "b"}',
    ]
    steps = replay_lines(lines)["steps"]
    events = [e for s in steps for e in s["events"]]
    assert len(events) >= 6
    for e in events:
        p.validate_event(e["type"], e["data"])


# ── the documentation matches the code ──────────────────────────────────────
def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_doc_topic_table_matches_the_code() -> None:
    rows = re.findall(
        r"^\| `mesa/v1/table/<id>/(\w+)` \| (\w+) → (\w+) \| (\d) \| (yes|no) \|", _doc(), re.M
    )
    documented = {
        kind: (sender, int(qos), retained == "yes") for kind, sender, _, qos, retained in rows
    }
    expected = {k: (s.sender, s.qos, s.retained) for k, s in p.TABLE_TOPICS.items()}
    assert documented == expected
    assert "`mesa/v1/hub/status`" in _doc()


def test_doc_describes_every_message_and_field() -> None:
    text = _doc()
    for cls in p.MESSAGES.values():
        section = re.search(rf"^### `{cls.__name__}`.*?(?=^### |\Z)", text, re.M | re.S)
        assert section, f"docs/protocol.md has no section for {cls.__name__}"
        documented = set(re.findall(r"^\| `(\w+)` \|", section.group(0), re.M))
        fields = {"v", *p._hints(cls)}
        assert documented == fields, cls.__name__


def test_doc_states_the_limits_and_versions() -> None:
    text = _doc()
    assert f"{p.MAX_PAYLOAD_BYTES} bytes" in text
    assert f"`{p.NAMESPACE}`" in text
    assert f"{p.CMD_EXPIRY_SECONDS} s" in text
    for name in p.CMD_INPUTS:
        assert f"`{name}`" in text, name


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from([*envelope().keys(), "epoch", "x"]),
        field_values | st.integers(min_value=-1, max_value=2**60),
        max_size=10,
    ),
    st.sampled_from(["3", "4", None]),
)
def test_decoding_bytes_agrees_with_checking_the_parsed_object(
    obj: dict[str, Any], table: str | None
) -> None:
    """msgspec's JSON decoder (the hub's path) and its converter from a parsed object
    (``from_obj``) give the same verdict, and the same message when they accept."""
    obj = {**envelope(), **obj}
    try:
        payload = json.dumps(obj).encode()
    except ValueError:
        return
    verdicts: list[Any] = []
    for build in (
        lambda: p.decode(p.EventEnvelope, payload, table),
        lambda: p.from_obj(p.EventEnvelope, json.loads(payload), table),
    ):
        try:
            verdicts.append(build())
        except p.ProtocolError as e:
            verdicts.append(e.code)
    if verdicts[0] == "bad_json" and verdicts[1] != "bad_json":
        return  # Infinity: json.dumps writes it, msgspec refuses to parse it, json.loads takes it
    assert verdicts[0] == verdicts[1]


# ── the trust boundary: epochs, strings SQLite cannot encode, typed snapshots ──
def test_the_envelope_epoch_is_optional_and_round_trips() -> None:
    old = envelope()
    assert "epoch" not in old  # an envelope without a token looks as it always did
    assert p.decode(p.EventEnvelope, raw(old), table="3").epoch is None
    fenced = envelope(epoch=12)
    env = p.decode(p.EventEnvelope, raw(fenced), table="3")
    assert env.epoch == 12 and env.to_dict() == fenced
    assert p.from_obj(p.EventEnvelope, fenced).epoch == 12  # the generic path agrees
    for bad in (-1, 1.5, True, "12", 2**60):
        with pytest.raises(p.ProtocolError) as e:
            p.decode(p.EventEnvelope, raw(envelope(epoch=bad)), table="3")
        assert e.value.code == "bad_field"


text_with_surrogates = st.text(
    st.characters(exclude_categories=()) | st.sampled_from(["\ud800", "\udfff"]), max_size=12
)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@settings(max_examples=400, deadline=None)
@given(text_with_surrogates, st.sampled_from(["id", "stream", "data", "key"]))
def test_a_lone_surrogate_anywhere_is_refused_and_nothing_else_is(text: str, where: str) -> None:
    obj = envelope()
    if where in ("id", "stream"):
        obj[where] = "x" + text
    elif where == "data":
        obj["data"] = dict(obj["data"], side=text)
    else:
        obj["data"] = {text: 1}
    payload = json.dumps(obj)  # ASCII: a surrogate travels as an escape
    raw_text = json.dumps(obj, ensure_ascii=False)  # a str: the surrogate itself
    for sent in (payload.encode(), payload, raw_text):
        try:
            p.decode(p.EventEnvelope, sent, table="3")
        except p.ProtocolError as e:
            assert (e.code == "bad_string") == (not _encodable(text)), (e, text)
        else:
            assert _encodable(text)
        try:
            p.loads(sent)
        except p.ProtocolError as e:
            assert e.code == "bad_string" and not _encodable(text)
        else:
            assert _encodable(text)


def _snapshot() -> dict[str, Any]:
    from mesa.games.backgammon.machine import Table

    t = Table()
    t.apply(
        "assign",
        {
            "match_id": "G1-1",
            "players": {"a": "A", "b": "B"},
            "length": 5,
            "clock": {"preset": "singles"},
            "scheduled_start": 0.0,
            "epoch": 4,
        },
        now=1.0,
    )
    t.apply("press", {"side": "a"}, now=2.0)
    t.apply("press", {"side": "b"}, now=3.0)
    t.apply("press", {"side": "b"}, now=4.0)
    return t.snapshot()


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


SNAPSHOT = _snapshot()
SNAPSHOT_PATHS = _paths(SNAPSHOT)


def test_a_real_snapshot_passes_and_the_reported_one_is_refused() -> None:
    p.check_snapshot(SNAPSHOT)
    old_table = {k: v for k, v in SNAPSHOT.items() if k != "epoch"}  # before the field existed
    p.check_snapshot(old_table)
    bad: Any
    for bad in (
        {**SNAPSHOT, "match": {**SNAPSHOT["match"], "score": 5}},
        {**SNAPSHOT, "state": "flying"},
        {**SNAPSHOT, "extra": 1},
        {**SNAPSHOT, "clock": {**SNAPSHOT["clock"], "reserve": {"a": "ten"}}},
        {**SNAPSHOT, "epoch": 2**60},
        [],
    ):
        with pytest.raises(p.ProtocolError) as e:
            p.check_snapshot(bad)
        assert e.value.code == "bad_snapshot"
    report = p.StateReport("3", "s", 0, 0, 1.0, {**SNAPSHOT, "match": 5}).to_dict()
    with pytest.raises(p.ProtocolError):
        p.decode(p.StateReport, raw(report), table="3")


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(SNAPSHOT_PATHS), field_values)
def test_an_accepted_snapshot_always_rebuilds_the_table(path: tuple[Any, ...], value: Any) -> None:
    """Whatever one field is replaced with, the hub either refuses the snapshot or can rebuild
    the table and its view from it (what the live pages do)."""
    from mesa.games.backgammon.machine import Table

    snap = json.loads(json.dumps(SNAPSHOT))
    node = snap
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    try:
        p.check_snapshot(snap)
    except p.ProtocolError:
        return
    from mesa.games.backgammon.view import table_view

    table_view(Table.restore(snap), 10.0)


def test_a_snapshot_may_carry_the_links_storage_flags_and_nothing_else_unknown() -> None:
    """While a table's disk is full its link adds ``storage`` and ``unstored`` to the retained
    snapshot (the director sees "disco lleno"); anything else unknown is still refused."""
    from mesa.games.backgammon.machine import Table

    snap = Table().snapshot()
    p.check_snapshot({**snap, "storage": "disk_full", "unstored": 12})
    for bad in ({"storage": "<img>"}, {"unstored": -1}, {"unstored": "3"}, {"extra": 1}):
        with pytest.raises(p.ProtocolError):
            p.check_snapshot({**snap, **bad})


# ── msgspec's strict mode at the boundary: each hostile value gets today's reason ──────────
def _text(obj: dict[str, Any], **over: str) -> bytes:
    """JSON with raw tokens spliced in (NaN, 1e400: what json.dumps would not write)."""
    out = json.dumps(obj)
    for key, token in over.items():
        out = out.replace(f'"{key}": "@"', f'"{key}": {token}')
    return out.encode()


STATUS = p.TableStatus("3", "online", 4, 1.0).to_dict()


@pytest.mark.parametrize(
    ("payload", "cls", "code"),
    [
        (raw(envelope(seq=True)), p.EventEnvelope, "bad_field"),  # bool for int
        (raw({**STATUS, "bdseq": True}), p.TableStatus, "bad_field"),
        (raw({**STATUS, "ts": False}), p.TableStatus, "bad_field"),  # bool for float
        (raw({**STATUS, "state": "asleep"}), p.TableStatus, "bad_field"),  # a bad literal
        (raw(envelope(data={**envelope()["data"], "side": "z"})), p.EventEnvelope, "bad_event"),
        (_text(envelope(ts="@"), ts="NaN"), p.EventEnvelope, "bad_json"),
        (_text(envelope(ts="@"), ts="Infinity"), p.EventEnvelope, "bad_json"),
        (_text(envelope(ts="@"), ts="1e400"), p.EventEnvelope, "bad_field"),  # past a double
        (_text({**STATUS, "ts": "@"}, ts="-1e400"), p.TableStatus, "bad_field"),
        (
            _text(envelope(data={**envelope()["data"], "seconds": "@"}), seconds="1e400"),
            p.EventEnvelope,
            "bad_event",
        ),
        (raw(envelope(seq=2**53 + 1)), p.EventEnvelope, "bad_field"),  # past the bound
        (raw(envelope(epoch=2**53 + 1)), p.EventEnvelope, "bad_field"),
        (raw({**STATUS, "bdseq": -(2**53) - 1}), p.TableStatus, "bad_field"),
        (raw({**STATUS, "bdseq": 10**30}), p.TableStatus, "bad_field"),
        (raw({**STATUS, "extra": 1}), p.TableStatus, "bad_field"),  # unknown fields
        (raw({**STATUS, "game": "chess"}), p.TableStatus, "bad_field"),  # not a registered game
        (raw({**STATUS, "game": 3}), p.TableStatus, "bad_field"),
        (raw({k: v for k, v in STATUS.items() if k != "v"}), p.TableStatus, "bad_version"),
        (raw({**STATUS, "v": 0}), p.TableStatus, "bad_version"),
        (raw({**STATUS, "v": 1.0}), p.TableStatus, "bad_version"),
        (
            b'{"v": 1, "table": "3", "state": "online", "bdseq": 1, "ts": 1.0, "x": "\\ud800"}',
            p.TableStatus,
            "bad_string",
        ),  # a lone surrogate, even in an unknown field
        (
            b'{"v": 1, "table": "\\udfff3", "state": "online", "bdseq": 1, "ts": 1.0}',
            p.TableStatus,
            "bad_string",
        ),
        (
            b'{"v": 1, "table": "3", "state": "online", "bdseq": 1, "ts": 1.0, "\\ud800": 1}',
            p.TableStatus,
            "bad_string",
        ),
        (b'{"v": 1, "table": "\xed\xa0\x80"}', p.TableStatus, "bad_json"),  # not UTF-8 at all
        (b"[" * 40_000 + b"]" * 40_000, p.TableStatus, "too_large"),
        (b"[" * 3000 + b"]" * 3000, p.TableStatus, "bad_json"),  # nested past the parser
        (
            raw(p.Response("3", "x", True, None, None, 1.0).to_dict() | {"accepted": 1}),
            p.Response,
            "bad_field",
        ),  # an int for a bool
        (
            raw(
                p.Command(
                    "3", "x", "director_adjust", {"side": "a", "seconds": True}, 1.0
                ).to_dict()
            ),
            p.Command,
            "bad_input",
        ),
        (
            _text(
                p.Command(
                    "3", "x", "director_adjust", {"side": "a", "seconds": "@"}, 1.0
                ).to_dict(),
                seconds="1e400",
            ),
            p.Command,
            "bad_input",
        ),
        (
            raw(p.StateReport("3", "s", 0, 0, 1.0, {**SNAPSHOT, "epoch": 2**53 + 1}).to_dict()),
            p.StateReport,
            "bad_snapshot",
        ),
        (
            raw(p.StateReport("3", "s", 0, 0, 1.0, {**SNAPSHOT, "state": True}).to_dict()),
            p.StateReport,
            "bad_snapshot",
        ),
        (
            _text(
                p.StateReport("3", "s", 0, 0, 1.0, {**SNAPSHOT, "last_now": "@"}).to_dict(),
                last_now="1e400",
            ),
            p.StateReport,
            "bad_snapshot",
        ),
    ],
)
def test_hostile_values_are_refused_with_todays_reason(
    payload: bytes, cls: type[p.Message], code: str
) -> None:
    with pytest.raises(p.ProtocolError) as e:
        p.decode(cls, payload, table="3")
    assert e.value.code == code, e.value
    if code in ("bad_json", "bad_string", "too_large"):
        return
    obj = p._parsed(payload)
    if isinstance(obj, dict):
        with pytest.raises(p.ProtocolError) as again:  # the parsed-object path agrees
            p.from_obj(cls, obj, "3")
        assert again.value.code == code


def test_refusals_name_the_field_and_the_value() -> None:
    cases = {
        raw(envelope(seq="7")): "bad_field: seq must be int, not '7'",
        raw(envelope(seq=2**60)): "bad_field: seq is out of range",
        raw(envelope(extra=1, more=2)): "bad_field: unknown fields ['extra', 'more']",
        raw({k: v for k, v in envelope().items() if k not in ("seq", "ts")}): (
            "bad_field: missing fields ['seq', 'ts']"
        ),
        raw(envelope(v=2)): "bad_version: v=2, this hub speaks v=1",
        raw(envelope(data={**envelope()["data"], "side": "c"})): (
            "bad_event: turn.ended: side must be 'a' or 'b', not 'c'"
        ),
    }
    for payload, message in cases.items():
        with pytest.raises(p.ProtocolError) as e:
            p.decode(p.EventEnvelope, payload, table="3")
        assert str(e.value) == message


def test_a_status_may_name_its_game_and_an_old_one_does_not() -> None:
    from mesa.games import registry

    old = p.decode(p.TableStatus, raw(STATUS), table="3")
    assert old.game is None and "game" not in old.to_dict() and b"game" not in old.to_payload()
    for name in registry.names():
        status = p.TableStatus("3", "online", 4, 1.0, game=name)
        assert p.decode(p.TableStatus, status.to_payload(), table="3") == status
        assert status.to_dict()["game"] == name


def test_the_snapshot_check_reads_the_game_from_the_registry() -> None:
    from mesa.games.domino.machine import DominoTable
    from mesa.games.registry import GAME_KEY

    domino = DominoTable().snapshot()
    p.check_snapshot(domino)  # an old domino snapshot: told by its key
    p.check_snapshot({**domino, GAME_KEY: "domino"})  # a new one: named
    p.check_snapshot({**SNAPSHOT, GAME_KEY: "backgammon"})
    p.check_snapshot(SNAPSHOT)  # an old backgammon snapshot
    for bad in (
        {**SNAPSHOT, GAME_KEY: "chess"},
        {**SNAPSHOT, GAME_KEY: "domino"},  # a backgammon state named domino cannot restore
        {**domino, GAME_KEY: "backgammon"},
        {**domino, GAME_KEY: 7},
    ):
        with pytest.raises(p.ProtocolError) as e:
            p.check_snapshot(bad)
        assert e.value.code == "bad_snapshot"


def test_a_status_names_its_revision_only_above_the_first() -> None:
    """Revision 1 is left out: the status is byte for byte a first-release table's, which every
    hub reads. A revision above this hub's still parses (the grid shows the table too new)."""
    first = p.TableStatus("3", "online", 4, 1.0)
    assert p.TableStatus("3", "online", 4, 1.0, revision=1).to_payload() == first.to_payload()
    assert b"revision" not in first.to_payload() and "revision" not in first.to_dict()
    assert p.decode(p.TableStatus, first.to_payload(), "3").revision == 1
    later = p.TableStatus("3", "online", 4, 1.0, revision=p.REVISIONS.high + 5)
    assert p.decode(p.TableStatus, later.to_payload(), "3").revision == p.REVISIONS.high + 5
    for bad in (b"0", b"-1", b"true", b"1.5", b'"2"'):
        payload = first.to_payload()[:-1] + b',"revision":' + bad + b"}"
        with pytest.raises(p.ProtocolError) as e:
            p.decode(p.TableStatus, payload, "3")
        assert e.value.code == "bad_field", bad


def test_revisions_as_the_hub_announces_them() -> None:
    assert p.Revisions.parse(str(p.REVISIONS)) == p.REVISIONS
    for junk in ("", "1", "1-", "0-2", "3-2", "1-2-3", " 1-2", "1-9999999", "a-b"):
        assert p.Revisions.parse(junk) is None, junk
    assert p.FIRST_REVISION.common(p.REVISIONS) == 1
    assert p.REVISIONS.mismatch(p.FIRST_REVISION) is None


# ── revision 3: the beat ────────────────────────────────────────────────────
def test_this_release_speaks_the_beat_revision() -> None:
    assert p.Revisions(1, 3) == p.REVISIONS
    assert p.BEAT_REVISION == 3
    beat = p.TABLE_TOPICS["beat"]
    assert (beat.sender, beat.qos, beat.retained) == ("table", 0, False)


def test_the_beat_is_a_small_strict_message() -> None:
    beat = p.Beat("t3", 5.0)
    assert beat.to_payload() == b'{"v":1,"table":"t3","every":5.0}'
    assert p.decode(p.Beat, b'{"v":1,"table":"t3","every":5}', "t3").every == 5.0
    for every in (p.BEAT_MIN_EVERY, p.BEAT_MAX_EVERY):
        assert p.decode(p.Beat, p.Beat("t3", every).to_payload(), "t3").every == every


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (b'{"v":1,"table":"t4","every":5.0}', "table_mismatch"),  # another table's beat
        (b'{"v":1,"table":"t3","every":0.49}', "bad_field"),
        (b'{"v":1,"table":"t3","every":300.5}', "bad_field"),
        (b'{"v":1,"table":"t3","every":-5}', "bad_field"),
        (b'{"v":1,"table":"t3","every":"5"}', "bad_field"),
        (b'{"v":1,"table":"t3","every":true}', "bad_field"),
        (b'{"v":1,"table":"t3"}', "bad_field"),
        (b'{"v":1,"table":"t3","every":5.0,"seq":1}', "bad_field"),
        (b'{"v":2,"table":"t3","every":5.0}', "bad_version"),
        (b'{"table":"t3","every":5.0}', "bad_version"),
        (b'{"v":1,"table":"t3","every":1e999}', "bad_field"),  # past a double
        (b"[5]", "bad_json"),
        (b'{"v":1,"table":"t3","every":5.0,"pad":"' + b"x" * p.MAX_PAYLOAD_BYTES + b'"}',
         "too_large"),
    ],
)
def test_a_bad_beat_is_refused(payload: bytes, code: str) -> None:
    with pytest.raises(p.ProtocolError) as e:
        p.decode(p.Beat, payload, "t3")
    assert e.value.code == code, e.value


def test_the_beat_period_follows_the_keepalive_within_bounds() -> None:
    assert p.beat_every(15) == 5.0 and p.beat_every(4) == pytest.approx(4 / 3)
    assert p.beat_every(1) == p.BEAT_MIN_EVERY and p.beat_every(10_000) == p.BEAT_MAX_EVERY
    assert p.beat_every(0) is None  # no keepalive: no beats either
    # The hub's timeout (BEATS_MISSED beats) is one keepalive: below Mosquitto's 1.5.
    assert p.BEATS_MISSED * p.beat_every(15) == 15  # type: ignore[operator]
