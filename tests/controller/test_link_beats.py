"""The table's beat (protocol revision 3) on a real Mosquitto: a table beats every keepalive / 3
to a hub that speaks revision 3, never to an older hub and never as an older table; a beat
writes nothing to the SD card; the broker's ACL lets a table beat only on its own topic, and the
hub refuses (and counts) a beat it cannot read."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.games.backgammon.machine import Table
from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.ingest import app as hub_app
from mesa.hub.ingest.app import Hub
from mesa.protocol import Beat, Revisions, table_topic
from support.harness import start_hub, wait_until
from support.mosquitto import table_password
from support.tables import SimRuntime

pytestmark = pytest.mark.broker

KEEPALIVE = 3  # a beat a second


@dataclass
class Rig:
    link: TableLink
    outbox: Outbox
    sent: list[tuple[str, Any, int]]  # (kind, payload, qos) of everything the link published

    def beats(self) -> list[dict[str, Any]]:
        return [json.loads(p) for kind, p, _ in self.sent if kind == "beat"]

    def stop(self) -> None:
        self.link.stop()
        self.outbox.close()


def rig(table: str, port: int, path: Path, revisions: Revisions | None = None) -> Rig:
    outbox = Outbox(path, table)
    runtime = SimRuntime(Table())
    settings = LinkSettings(
        table=table, port=port, password=table_password(table), keepalive=KEEPALIVE
    )
    extra = {} if revisions is None else {"revisions": revisions}
    link = TableLink(settings, outbox, runtime, snapshot=runtime.table.snapshot(),
                     clock=runtime.clock, **extra)  # fmt: skip
    runtime.sinks.append(link)
    sent: list[tuple[str, Any, int]] = []
    publish = link._client.publish

    def recording(topic: str, payload: Any = None, qos: int = 0, *a: Any, **kw: Any) -> Any:
        sent.append((topic.rsplit("/", 1)[1], payload, kw.get("qos", qos)))
        return publish(topic, payload, qos, *a, **kw)

    link._client.publish = recording  # type: ignore[method-assign]
    link.start()
    return Rig(link, outbox, sent)


def test_a_table_beats_to_a_hub_of_revision_3_and_writes_nothing_for_it(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    hub.register_table(table_id)
    r = rig(table_id, mosquitto.port, tmp_path / "outbox.sqlite3")
    try:
        assert wait_until(lambda: r.link.beating, 10)
        assert wait_until(lambda: table_id in hub.ingest.heartbeats.watched(), 5)
        changes = r.outbox._db.total_changes
        files = {p.name: p.stat().st_size for p in tmp_path.glob("outbox.sqlite3*")}
        before = len(r.beats())
        time.sleep(3.5)
        beats = r.beats()[before:]
        assert len(beats) >= 2, r.beats()  # about one a second (keepalive 3)
        assert beats[-1] == {"v": 1, "table": table_id, "every": 1.0}
        assert all(qos == 0 for kind, _, qos in r.sent if kind == "beat")
        # Nothing written for a beat: not the outbox, not its WAL.
        assert r.outbox._db.total_changes == changes
        assert {p.name: p.stat().st_size for p in tmp_path.glob("outbox.sqlite3*")} == files
        assert hub.metrics.get("beats") >= 2
        assert hub.store.event_count(table_id) == 0
        assert hub.metrics.get("refused", reason="bad_topic") == 0
    finally:
        r.stop()
    # A clean stop says offline: the hub no longer watches it, and finds nothing silent.
    assert wait_until(lambda: table_id not in hub.ingest.heartbeats.watched(), 5)


def test_a_table_of_this_release_sends_no_beat_to_a_hub_of_revision_2(
    mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hub_app, "REVISIONS", Revisions(1, 2))
    hub = start_hub(tmp_path / "hub.sqlite3", mosquitto)
    hub.register_table(table_id)
    r = rig(table_id, mosquitto.port, tmp_path / "outbox.sqlite3")
    try:
        assert wait_until(lambda: r.link.hub_online, 10)
        assert wait_until(lambda: (hub.table(table_id) or {}).get("revision") == 2, 10)
        time.sleep(2.5)  # more than two beats' time
        assert r.beats() == [] and not r.link.beating
        assert hub.metrics.get("beats") == 0
    finally:
        r.stop()
        hub.stop()


def test_a_table_of_revision_2_sends_no_beat_to_this_hub(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    hub.register_table(table_id)
    r = rig(table_id, mosquitto.port, tmp_path / "outbox.sqlite3", Revisions(1, 2))
    try:
        assert wait_until(lambda: (hub.table(table_id) or {}).get("revision") == 2, 10)
        time.sleep(2.5)
        assert r.beats() == [] and not r.link.beating
        assert hub.metrics.get("beats") == 0 and hub.ingest.heartbeats.watched() == {}
    finally:
        r.stop()


class Intruder:
    """A table's own broker account, used by hand (as a hostile table's code would)."""

    def __init__(self, table: str, port: int) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{table}-x",
                                  protocol=mqtt.MQTTv5)  # fmt: skip
        self.client.username_pw_set(table, table_password(table))
        self.connected = threading.Event()
        self.client.on_connect = lambda *a: self.connected.set()
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert self.connected.wait(5)

    def publish(self, topic: str, payload: bytes) -> None:
        self.client.publish(topic, payload, qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_a_hostile_table_cannot_beat_for_another_and_a_bad_beat_is_counted(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    victim = f"{table_id}v"
    mosquitto.add_user(victim, table_password(victim))
    hub.register_table(table_id)
    hub.register_table(victim)
    r = rig(victim, mosquitto.port, tmp_path / "outbox.sqlite3")
    intruder = Intruder(table_id, mosquitto.port)
    try:
        assert wait_until(lambda: r.link.beating, 10)
        r.stop()  # the victim goes away cleanly: nothing should say it is here
        assert wait_until(lambda: (hub.table(victim) or {}).get("status") == "offline", 5)
        beats = hub.metrics.get("beats")
        # The broker's ACL: a table writes only its own beat topic; the hub never hears these.
        intruder.publish(table_topic(victim, "beat"), Beat(victim, 1.0).to_payload())
        intruder.publish(table_topic(victim, "beat"), Beat(table_id, 1.0).to_payload())
        # On its own topic, the hub reads it: malformed, or naming another table, refused.
        intruder.publish(table_topic(table_id, "beat"), b'{"v":1,"table":"x","every":1.0}')
        intruder.publish(table_topic(table_id, "beat"), b'{"v":1,"every":1.0}')
        intruder.publish(table_topic(table_id, "beat"), b'{"v":1,"table":"%s","every":0}'
                         % table_id.encode())  # fmt: skip
        assert wait_until(lambda: hub.metrics.get("refused", reason="bad_field") >= 2, 5)
        assert wait_until(lambda: hub.metrics.get("refused", reason="table_mismatch") >= 1, 5)
        # ... and one it has no status of: a table that never said it is here.
        intruder.publish(table_topic(table_id, "beat"), Beat(table_id, 1.0).to_payload())
        assert wait_until(lambda: hub.metrics.get("refused", reason="unknown_table") >= 1, 5)
        assert hub.metrics.get("beats") == beats
        assert hub.ingest.heartbeats.watched() == {}
        assert (hub.table(victim) or {}).get("status") == "offline"
    finally:
        intruder.close()
