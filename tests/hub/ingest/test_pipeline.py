"""The hub's ingest without a broker: commit-then-ack, idempotence, gaps, and every bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesa.hub.ingest.pipeline import Incoming, Ingest
from mesa.hub.ingest.store import EventStore
from mesa.protocol import (
    MAX_PAYLOAD_BYTES,
    Ack,
    Beat,
    EventEnvelope,
    Response,
    StateReport,
    TableStatus,
    decode,
    table_topic,
)


class Wire:
    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes]] = []

    def __call__(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        assert qos == 1 and not retain
        self.sent.append((topic, payload))

    def acks(self) -> list[Ack]:
        return [decode(Ack, p) for t, p in self.sent if t.endswith("/ack")]


@pytest.fixture
def hub(tmp_path: Path) -> tuple[Ingest, Wire]:
    wire = Wire()
    return Ingest(EventStore(tmp_path / "hub.sqlite3"), publish=wire), wire


def ev(seq: int, table: str = "3", stream: str = "s1", **over: Any) -> EventEnvelope:
    data = {"by": "players"}
    env = EventEnvelope.build(
        table,
        stream,
        seq,
        "clock.resumed",
        data,
        ts=1.0,
        t=float(seq),
        id=f"{table}-{stream}-{seq}",
    )
    return msgspec.structs.replace(env, **over)


def msg(env: EventEnvelope, topic_table: str | None = None) -> Incoming:
    return Incoming(table_topic(topic_table or env.table, "event"), env.to_payload())


def stored(ingest: Ingest, table: str = "3") -> list[int]:
    return [e["seq"] for e in ingest.store.events(table)]


def test_commits_in_order_then_acks(hub: tuple[Ingest, Wire]) -> None:
    ingest, wire = hub
    ingest.handle([msg(ev(2)), msg(ev(1)), msg(ev(3))])  # reordered within a batch
    assert stored(ingest) == [1, 2, 3]
    assert [(a.stream, a.seq, a.resend_from) for a in wire.acks()] == [("s1", 3, None)]
    assert ingest.metrics.get("events_committed") == 3
    assert ingest.projections.get("3").events == 3


def test_replays_are_refused_and_acknowledged_again(
    hub: tuple[Ingest, Wire], caplog: pytest.LogCaptureFixture
) -> None:
    ingest, wire = hub
    ingest.handle([msg(ev(1)), msg(ev(2))])
    with caplog.at_level("INFO"):
        ingest.handle([msg(ev(1)), msg(ev(2))])
    # A resend burst is logged once per stream, counted one by one.
    assert "refused 2 duplicate events of table 3 stream s1 (seq 1-2)" in caplog.text
    assert stored(ingest) == [1, 2]
    assert ingest.metrics.get("refused", reason="duplicate") == 2
    assert [a.seq for a in wire.acks()] == [2, 2]
    assert ingest.projections.get("3").events == 2


def test_same_seq_other_id_is_a_conflict(hub: tuple[Ingest, Wire]) -> None:
    ingest, _ = hub
    ingest.handle([msg(ev(1))])
    ingest.handle([msg(ev(1, id="forged"))])
    ingest.handle([msg(ev(2, id="3-s1-1"))])  # an id already used by another event
    assert stored(ingest) == [1]
    assert ingest.metrics.get("refused", reason="conflict") == 2


def test_gap_is_refused_and_resend_requested_once(hub: tuple[Ingest, Wire]) -> None:
    ingest, wire = hub
    ingest.handle([msg(ev(1)), msg(ev(3))])
    ingest.handle([msg(ev(4))])
    assert stored(ingest) == [1]
    assert [(a.seq, a.resend_from) for a in wire.acks()] == [(1, 2), (1, None)]
    assert ingest.metrics.get("refused", reason="gap") == 2
    ingest.handle([msg(ev(2)), msg(ev(3)), msg(ev(4))])
    assert stored(ingest) == [1, 2, 3, 4]


def test_streams_and_tables_are_independent(hub: tuple[Ingest, Wire]) -> None:
    ingest, _ = hub
    ingest.handle([msg(ev(1)), msg(ev(1, stream="s2")), msg(ev(1, table="4"))])
    assert stored(ingest) == [1, 1]
    assert stored(ingest, "4") == [1]
    assert ingest.contiguous("3", "s2") == 1


def bad_inputs() -> list[tuple[str, Incoming]]:
    good = ev(1)
    payload = good.to_dict()

    def with_(**over: Any) -> bytes:
        return json.dumps({**payload, **over}).encode()

    topic = table_topic("3", "event")
    return [
        ("bad_json", Incoming(topic, b"{oops")),
        ("bad_version", Incoming(topic, with_(v=99))),
        ("unknown_type", Incoming(topic, with_(type="game.teleported"))),
        ("bad_event", Incoming(topic, with_(data={"by": 3}))),
        ("too_large", Incoming(topic, b" " * (MAX_PAYLOAD_BYTES + 1))),
        ("table_mismatch", Incoming(table_topic("4", "event"), good.to_payload())),
        ("bad_topic", Incoming("mesa/v1/table/3/cmd", good.to_payload())),
        ("bad_topic", Incoming("elsewhere/3/event", good.to_payload())),
        ("bad_field", Incoming(topic, with_(seq=-1))),
        (
            "table_mismatch",
            Incoming(table_topic("4", "status"), TableStatus("3", "online", 1, 1.0).to_payload()),
        ),
    ]


@pytest.mark.parametrize(("reason", "incoming"), bad_inputs())
def test_bad_input_is_refused_counted_and_changes_nothing(
    hub: tuple[Ingest, Wire], reason: str, incoming: Incoming, caplog: pytest.LogCaptureFixture
) -> None:
    ingest, wire = hub
    ingest.handle([incoming])
    assert ingest.metrics.get("refused", reason=reason) == 1
    assert ingest.store.event_count() == 0 and ingest.store.tables() == []
    assert wire.sent == [] and ingest.projections.all() == []
    assert reason in caplog.text


def test_stale_will_is_ignored(hub: tuple[Ingest, Wire]) -> None:
    ingest, _ = hub
    topic = table_topic("3", "status")
    ingest.handle([Incoming(topic, TableStatus("3", "online", 5, 1.0).to_payload())])
    ingest.handle([Incoming(topic, TableStatus("3", "lost", 4, 2.0).to_payload())])
    assert ingest.projections.get("3").status == "online"
    assert ingest.metrics.get("refused", reason="stale_will") == 1
    ingest.handle([Incoming(topic, TableStatus("3", "lost", 5, 3.0).to_payload())])
    assert ingest.projections.get("3").status == "lost"
    assert ingest.store.tables()[0]["status"] == "lost"


def test_responses_update_the_command_log(hub: tuple[Ingest, Wire]) -> None:
    ingest, _ = hub
    with ingest.store.transaction():
        ingest.store.record_command("x1", "3", "cmd", "director_pause", {})
    topic = table_topic("3", "response")
    ingest.handle(
        [Incoming(topic, Response("3", "x1", False, "not_now", "idle", 1.0).to_payload())]
    )
    ingest.handle([Incoming(topic, Response("3", "zz", True, None, None, 1.0).to_payload())])
    assert ingest.store.command("x1")["code"] == "not_now"
    assert ingest.metrics.get("refused", reason="unknown_txn") == 1


def test_state_report_beyond_the_store_moves_on(hub: tuple[Ingest, Wire]) -> None:
    ingest, wire = hub
    report = StateReport("3", "s1", 12, 10, 1.0, {"state": "running"})
    ingest.handle([Incoming(table_topic("3", "state"), report.to_payload())])
    assert ingest.contiguous("3", "s1") == 10
    assert ingest.metrics.get("events_unrecoverable") == 10
    ingest.handle([msg(ev(11)), msg(ev(12))])
    assert stored(ingest) == [11, 12]
    assert wire.acks()[-1].seq == 12


def test_nothing_is_acknowledged_when_the_commit_fails(hub: tuple[Ingest, Wire]) -> None:
    ingest, wire = hub
    told: list[int] = []
    ingest.listeners.append(lambda events: told.append(len(events)))
    ingest.store.close()
    with pytest.raises(Exception):  # noqa: B017 - whatever sqlite raises on a closed store
        ingest.handle([msg(ev(1))])
    assert wire.sent == [] and ingest.contiguous("3", "s1") == 0
    assert told == []  # no commit, no news


def test_listeners_hear_each_commit_after_it(hub: tuple[Ingest, Wire]) -> None:
    """The desk and the live feed are woken by the commit itself, with what it committed;
    a failing listener is logged and neither stops the ingest nor the other listeners."""
    ingest, wire = hub
    heard: list[tuple[list[int], int, int]] = []

    def listener(events: Any) -> None:
        # Called after the commit and the acks: the store already has the events.
        heard.append(([e.seq for e in events], len(stored(ingest)), len(wire.acks())))

    def broken(events: Any) -> None:
        raise RuntimeError("a listener's own bug")

    ingest.listeners += [broken, listener]
    ingest.handle([msg(ev(2)), msg(ev(1))])
    ingest.handle([msg(ev(1))])  # a duplicate: nothing new committed, nothing told
    ingest.handle([msg(ev(3))])
    assert heard == [([1, 2], 2, 1), ([3], 3, 3)]


def test_a_commit_hands_its_events_as_the_store_reads_them(hub: tuple[Ingest, Wire]) -> None:
    """``Commit.rows`` is what ``EventStore.events`` would read back (rowid, fence …), so the
    desk folds a commit without a second read; also when a forged id makes the ingest write
    row by row (the refused row is neither stored nor handed)."""
    ingest, _ = hub
    told: list[Any] = []
    ingest.listeners.append(lambda commit: told.append(commit))
    ingest.handle([msg(ev(2)), msg(ev(1))])
    ingest.handle([msg(ev(1, table="4")), msg(ev(3, id="3-s1-1")), msg(ev(2, table="4"))])
    handed = [dict(r) for c in told for r in c.rows]
    assert handed == ingest.store.events()
    assert [(r["table"], r["seq"]) for r in handed] == [("3", 1), ("3", 2), ("4", 1), ("4", 2)]
    assert all(len(c.rows) == len(c.events) for c in told)


def test_restart_from_the_store_keeps_sequences(tmp_path: Path) -> None:
    wire = Wire()
    first = Ingest(EventStore(tmp_path / "h.sqlite3"), publish=wire)
    first.handle([msg(ev(1)), msg(ev(2))])
    first.store.close()
    again = Ingest(EventStore(tmp_path / "h.sqlite3"), publish=wire)
    again.handle([msg(ev(2)), msg(ev(3))])
    assert stored(again) == [1, 2, 3]
    assert again.metrics.get("refused", reason="duplicate") == 1


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["status", "state", "event", "response", "cmd"]),
            st.sampled_from(["3", "4", "mesa", "+"]),
            st.binary(max_size=200)
            | st.builds(lambda s: ev(s).to_payload(), st.integers(-2, 5))
            | st.builds(
                lambda d: json.dumps(d).encode(),
                st.dictionaries(st.sampled_from(list(ev(1).to_dict())), st.integers() | st.text()),
            ),
        ),
        max_size=8,
    )
)
def test_fuzzed_batches_never_crash_and_store_only_valid_prefixes(
    tmp_path_factory: pytest.TempPathFactory, batch: list[tuple[str, str, bytes]]
) -> None:
    store = EventStore(tmp_path_factory.mktemp("fz") / "h.sqlite3")
    ingest = Ingest(store, publish=Wire())
    ingest.handle([Incoming(f"mesa/v1/table/{t}/{k}", p) for k, t, p in batch])
    seqs = stored(ingest)
    assert seqs == list(range(1, len(seqs) + 1))
    store.close()


# ── beats (revision 3): presence timed by the hub, never stored ─────────────
class Monotonic:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def beating_hub(tmp_path: Path) -> tuple[Ingest, Monotonic]:
    clock = Monotonic()
    ingest = Ingest(EventStore(tmp_path / "hub.sqlite3"), publish=Wire(), monotonic=clock)
    ingest.handle([status("3", "online", 1, revision=3)])
    return ingest, clock


def status(table: str, state: str, bdseq: int, revision: int = 3) -> Incoming:
    st = TableStatus(table, state, bdseq, 1.0, revision=revision)  # type: ignore[arg-type]
    return Incoming(table_topic(table, "status"), st.to_payload())


def beat(table: str = "3", every: float = 5.0, topic_table: str | None = None) -> Incoming:
    return Incoming(table_topic(topic_table or table, "beat"), Beat(table, every).to_payload())


def shown(ingest: Ingest, table: str = "3") -> str:
    live = ingest.projections.get(table)
    assert live is not None
    return live.status


def test_beats_are_not_events_nothing_is_stored_nor_committed(tmp_path: Path) -> None:
    ingest, _ = beating_hub(tmp_path)
    changes = ingest.store._db.total_changes
    commits = ingest.last_commit
    for _ in range(50):
        ingest.add(beat())
        assert ingest.pending == 0  # no transaction opened for it
    ingest.flush()
    assert ingest.store._db.total_changes == changes and ingest.last_commit == commits
    assert ingest.store.event_count("3") == 0
    assert ingest.metrics.get("beats") == 50


def test_a_silent_table_is_lost_then_back_with_its_next_beat(tmp_path: Path) -> None:
    ingest, clock = beating_hub(tmp_path)
    ingest.add(beat(every=5.0))
    clock.now += 15.0
    assert ingest.check_beats() == [] and shown(ingest) == "online"
    clock.now += 0.3
    assert ingest.check_beats() == ["3"] and shown(ingest) == "lost"  # as its will would
    assert ingest.check_beats() == []  # once
    assert ingest.metrics.get("tables_lost", by="silence") == 1
    ingest.add(beat())
    assert shown(ingest) == "online"
    assert ingest.metrics.get("tables_back", by="beat") == 1
    # The store still holds the status the table last said: nothing was written.
    assert {r["table"]: r["status"] for r in ingest.store.tables()}["3"] == "online"


def test_a_will_after_the_silence_does_not_alert_twice(tmp_path: Path) -> None:
    ingest, clock = beating_hub(tmp_path)
    ingest.add(beat())
    clock.now += 16
    seen = []
    ingest.check_beats()
    seen.append(shown(ingest))
    ingest.handle([status("3", "lost", 1)])  # Mosquitto's will, later
    seen.append(shown(ingest))
    clock.now += 100
    assert ingest.check_beats() == []
    seen.append(shown(ingest))
    assert seen == ["lost", "lost", "lost"]
    assert ingest.metrics.get("tables_lost", by="silence") == 1
    # Its return: a new connection says online (revision 1 first), then it beats again.
    ingest.handle([status("3", "online", 2, revision=1)])
    assert shown(ingest) == "online"
    ingest.handle([status("3", "online", 2)])
    ingest.add(beat())
    assert shown(ingest) == "online" and ingest.metrics.get("tables_back", by="beat") == 0


def test_a_table_that_never_beats_keeps_the_will_alone(tmp_path: Path) -> None:
    ingest, clock = beating_hub(tmp_path)
    ingest.handle([status("4", "online", 1, revision=2)])
    clock.now += 10_000
    assert ingest.check_beats() == [] and shown(ingest, "4") == "online"


def test_a_will_of_another_connection_does_not_end_the_watch(tmp_path: Path) -> None:
    """A stale will (refused) is not the table's status: its beats are still watched."""
    ingest, clock = beating_hub(tmp_path)
    ingest.handle([status("3", "online", 5)])
    ingest.add(beat())
    ingest.handle([status("3", "lost", 4)])  # an older connection's will
    assert ingest.metrics.get("refused", reason="stale_will") == 1
    clock.now += 16
    assert ingest.check_beats() == ["3"]


def test_a_hub_that_lost_the_broker_forgets_every_beat(tmp_path: Path) -> None:
    ingest, clock = beating_hub(tmp_path)
    ingest.add(beat())
    ingest.broker_lost()
    assert shown(ingest) == "lost"
    ingest.handle([status("3", "online", 1)])  # the retained status, on resubscribing
    clock.now += 100
    assert ingest.check_beats() == [] and shown(ingest) == "online"


@pytest.mark.parametrize(
    ("incoming", "reason"),
    [
        (beat("4", topic_table="3"), "table_mismatch"),  # another table's beat on its topic
        (beat("5"), "unknown_table"),  # never said its status
        (Incoming(table_topic("3", "beat"), b'{"v":1,"table":"3","every":0.01}'), "bad_field"),
        (Incoming(table_topic("3", "beat"), b'{"v":1,"table":"3"}'), "bad_field"),
        (Incoming(table_topic("3", "beat"), b"not json"), "bad_json"),
        (Incoming(table_topic("3", "beat"), b'{"v":1,"table":"3","every":5,"x":1}'), "bad_field"),
        (Incoming("mesa/v1/table/3/beats", b'{"v":1,"table":"3","every":5}'), "bad_topic"),
    ],
)
def test_a_hostile_beat_is_refused_counted_and_changes_nothing(
    tmp_path: Path, incoming: Incoming, reason: str
) -> None:
    ingest, clock = beating_hub(tmp_path)
    changes = ingest.store._db.total_changes
    ingest.add(incoming)
    assert ingest.metrics.get("refused", reason=reason) == 1
    assert ingest.metrics.get("beats") == 0 and ingest.heartbeats.watched() == {}
    assert ingest.pending == 0 and ingest.store._db.total_changes == changes
    assert ingest.metrics.recent_refusals()[0]["reason"] == reason
    clock.now += 100
    assert ingest.check_beats() == [] and shown(ingest) == "online"
