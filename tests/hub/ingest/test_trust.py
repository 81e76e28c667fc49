"""The ingest's trust boundary: a poison pill never stalls the other tables, an ill-typed
snapshot is never stored (nor kept across a restart), and a batch that fails is retried one
message at a time."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from mesa import protocol
from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.games.backgammon.inputs import parse_input
from mesa.games.backgammon.machine import Table
from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.ingest import pipeline
from mesa.hub.ingest.app import Hub
from mesa.hub.ingest.pipeline import Incoming, Ingest
from mesa.hub.ingest.store import EventStore
from mesa.hub.settings import HubSettings
from mesa.protocol import EventEnvelope, Response, StateReport, table_topic
from support.checker import check
from support.harness import ASSIGN_ARGS, hub_settings, wait_until
from support.mosquitto import table_password
from support.tables import SimRuntime, next_input

POISON = "\ud800"


def _event(table: str, seq: int, *, id: str | None = None, stream: str | None = None) -> bytes:
    env = EventEnvelope.build(
        table,
        stream or f"s-{table}",
        seq,
        "clock.resumed",
        {"by": "players"},
        ts=1.0,
        t=2.0,
        id=id or f"{table}-{seq}",
    )
    # json.dumps escapes a lone surrogate as \ud800 (what a broken table's encoder sends).
    return json.dumps(env.to_dict()).encode()


def _ingest(tmp_path: Path) -> tuple[Ingest, list[tuple[str, bytes]]]:
    sent: list[tuple[str, bytes]] = []
    ingest = Ingest(
        EventStore(tmp_path / "hub.sqlite3"),
        publish=lambda topic, payload, qos, retain: sent.append((topic, payload)),
    )
    return ingest, sent


def _acked(sent: list[tuple[str, bytes]], table: str) -> int:
    acks = [json.loads(p) for t, p in sent if t == table_topic(table, "ack")]
    return max((a["seq"] for a in acks), default=0)


@pytest.mark.parametrize("field", ["id", "stream"])
def test_a_lone_surrogate_is_refused_at_the_parser_and_the_batch_commits(
    tmp_path: Path, field: str
) -> None:
    ingest, sent = _ingest(tmp_path)
    poison = _event("9", 1, **{field: f"x{POISON}"})  # type: ignore[arg-type]
    batch = [Incoming(table_topic("1", "event"), _event("1", 1))]
    batch += [Incoming(table_topic("9", "event"), poison)]
    batch += [Incoming(table_topic("2", "event"), _event("2", 1))]
    ingest.handle(batch)
    assert ingest.metrics.get("refused", reason="bad_string") == 1
    assert ingest.store.event_count() == 2 and _acked(sent, "1") == 1 and _acked(sent, "2") == 1
    assert ingest.metrics.get("batch_retries") == 0


def test_a_response_or_state_with_a_lone_surrogate_is_refused(tmp_path: Path) -> None:
    ingest, _ = _ingest(tmp_path)
    resp = Response("1", "t" + POISON, True, None, None, 1.0).to_dict()
    state = StateReport("1", "s" + POISON, 0, 0, 1.0, Table().snapshot()).to_dict()
    ingest.handle(
        [
            Incoming(table_topic("1", "response"), json.dumps(resp).encode()),
            Incoming(table_topic("1", "state"), json.dumps(state).encode()),
        ]
    )
    assert ingest.metrics.get("refused", reason="bad_string") == 2
    assert ingest.store.tables() == []


def test_a_batch_that_fails_to_commit_is_retried_message_by_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parser's check switched off (a lenient parser in front of the checks: the standard
    library's json takes a lone surrogate, and msgspec's converter from a parsed object does
    not encode strings): the poison reaches SQLite, which raises on it. The others in its
    batch are still committed and acknowledged; only the poison is refused."""
    monkeypatch.setattr(
        pipeline,
        "decode",
        lambda cls, payload, table: protocol.from_obj(cls, json.loads(payload), table),
    )
    ingest, sent = _ingest(tmp_path)
    batch = [Incoming(table_topic("1", "event"), _event("1", seq)) for seq in (1, 2)]
    batch.append(Incoming(table_topic("9", "event"), _event("9", 1, id=f"p{POISON}")))
    batch += [Incoming(table_topic("2", "event"), _event("2", seq)) for seq in (1, 2, 3)]
    batch.append(Incoming(table_topic("9", "event"), _event("9", 2)))
    ingest.handle(batch)
    assert ingest.metrics.get("batch_retries") == 1
    assert ingest.metrics.get("refused", reason="unstorable") == 1
    assert _acked(sent, "1") == 2 and _acked(sent, "2") == 3
    assert ingest.store.event_count("1") == 2 and ingest.store.event_count("2") == 3
    # The poisoned stream waits at its bad event (it stays a gap-free prefix); the next batch
    # is whole again.
    assert ingest.store.event_count("9") == 0
    ingest.handle([Incoming(table_topic("1", "event"), _event("1", 3))])
    assert _acked(sent, "1") == 3 and ingest.metrics.get("batch_retries") == 1
    # A pill alone in its batch is refused the same way (never an exception to the caller).
    ingest.handle([Incoming(table_topic("8", "event"), _event("8", 1, stream=f"s{POISON}"))])
    assert ingest.metrics.get("refused", reason="unstorable") == 2


def test_an_ill_typed_snapshot_is_refused_and_a_stored_one_is_dropped_at_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "hub.sqlite3"
    hub = Hub(HubSettings(db=db))
    table = Table()
    table.apply(
        "assign",
        {"match_id": "G1-1", "players": {"a": "A", "b": "B"}, "length": 5, "epoch": 1},
        now=1.0,
    )
    good = table.snapshot()
    bad = json.loads(json.dumps(good))
    bad["match"]["score"] = 5
    for snapshot in (good, bad):
        report = StateReport("3", "s3", 0, 0, 2.0, snapshot).to_dict()
        hub.ingest.handle([Incoming(table_topic("3", "state"), json.dumps(report).encode())])
    assert hub.metrics.get("refused", reason="bad_snapshot") == 1
    (row,) = hub.store.tables()
    assert row["snapshot"] == good  # the last good one stays
    # A store written before the hub checked snapshots: the restarted hub drops the bad one.
    with hub.store.transaction():
        hub.store._db.execute(
            "UPDATE tables SET snapshot = ? WHERE table_id = '3'", (json.dumps(bad),)
        )
    hub.close()
    again = Hub(HubSettings(db=db))
    try:
        assert again.metrics.get("refused", reason="bad_snapshot") == 1
        (row,) = again.store.tables()
        assert row["snapshot"] is None
    finally:
        again.close()


class _Poisoner:
    """A broken table: ten poison pills a second (a lone surrogate in id, stream or txn)."""

    def __init__(self, broker: PrivateMosquitto, table: str) -> None:
        self.table = table
        self.sent = 0
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"poison-{table}", protocol=mqtt.MQTTv5
        )
        self.client.username_pw_set(table, table_password(table))
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()

    def run(self, stop: threading.Event, limit: int) -> None:
        seq = 0
        while not stop.is_set() and self.sent < limit:
            seq += 1
            kind = ("id", "stream", "txn")[seq % 3]
            if kind == "txn":
                obj = Response(self.table, "t" + POISON, True, None, None, 1.0).to_dict()
                topic = table_topic(self.table, "response")
            else:
                obj = json.loads(_event(self.table, seq))
                obj[kind] = f"{kind}-{seq}{POISON}"
                topic = table_topic(self.table, "event")
            self.client.publish(topic, json.dumps(obj).encode(), qos=1).wait_for_publish(5)
            self.sent += 1
            time.sleep(0.1)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.mark.broker
def test_a_poison_pill_among_honest_tables_stalls_nobody(
    tmp_path: Path, mosquitto: PrivateMosquitto
) -> None:
    """An honest table plays while another sends poison pills: every honest event is committed
    and acknowledged, every pill is refused with its reason, no batch is rolled back."""
    db = tmp_path / "hub.sqlite3"
    hub = Hub(hub_settings(db, mosquitto)).start()
    outbox = Outbox(tmp_path / "t1.sqlite3", "t1")
    runtime = SimRuntime(Table())
    link = TableLink(
        LinkSettings(table="t1", port=mosquitto.port, password=table_password("t1")),
        outbox,
        runtime,
        clock=runtime.clock,
    )
    runtime.sinks.append(link)
    poisoner = _Poisoner(mosquitto, "t2")
    stop = threading.Event()
    worker = threading.Thread(target=poisoner.run, args=(stop, 30), daemon=True)
    try:
        link.start()
        worker.start()
        runtime.apply(parse_input("assign", {**ASSIGN_ARGS, "epoch": 1}), 0.0)
        rng = random.Random(11)
        for _ in range(60):
            step = next_input(runtime.table, rng, 0)
            if step is None:
                break
            runtime.now += rng.uniform(1, 8)
            runtime.apply(parse_input(*step), runtime.now)
            time.sleep(0.02)
        worker.join(20)
        assert poisoner.sent == 30
        assert wait_until(lambda: link.flush(1) and outbox.pending == 0, 20), outbox.pending
        assert wait_until(lambda: hub.metrics.get("refused", reason="bad_string") == 30, 10)
        assert hub.store.event_count("t1") == outbox.last_seq > 10
        assert hub.store.event_count("t2") == 0
        # The link put the assignment's fencing token on every event it sent.
        assert {e["epoch"] for e in hub.events("t1")} == {1}
        assert hub.metrics.get("batch_failures") == 0 and hub.metrics.get("batch_retries") == 0
    finally:
        stop.set()
        poisoner.close()
        link.stop()
        outbox.close()
        hub.stop()
    report = check([tmp_path / "t1.sqlite3"], db)
    assert report.ok and report.sent == report.stored, report.summary()
