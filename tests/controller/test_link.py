"""The table's link against a real Mosquitto and an in-process hub."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.games.backgammon.inputs import parse_input
from mesa.games.backgammon.machine import Table
from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.ingest.app import Hub
from mesa.protocol import Command, TableStatus, table_topic
from support.checker import check
from support.harness import ASSIGN_ARGS, wait_until
from support.mosquitto import table_password
from support.netcut import CutProxy
from support.tables import SimRuntime, play

pytestmark = pytest.mark.broker


@dataclass
class Rig:
    runtime: SimRuntime
    outbox: Outbox
    link: TableLink
    pumping: threading.Event

    @property
    def table(self) -> Table:
        return self.runtime.table

    def stop(self) -> None:
        self.pumping.clear()
        self.link.stop()
        self.outbox.close()


def rig(table: str, port: int, path: Path, *, table_state: Table | None = None) -> Rig:
    """A table with a real link; a background pump applies what the hub sends."""
    outbox = Outbox(path, table)
    runtime = SimRuntime(table_state or Table())
    settings = LinkSettings(
        table=table, port=port, password=table_password(table), keepalive=5, resend_after=2.0
    )
    link = TableLink(
        settings, outbox, runtime, snapshot=runtime.table.snapshot(), clock=runtime.clock
    )
    runtime.sinks.append(link)
    pumping = threading.Event()
    pumping.set()

    def pump() -> None:
        tick = threading.Event()
        while pumping.is_set():
            runtime.drain()
            tick.wait(0.01)

    threading.Thread(target=pump, daemon=True).start()
    link.start()
    return Rig(runtime, outbox, link, pumping)


def forget_session(table: str, port: int, txn: str) -> None:
    """Drop the table's session at the broker (a broker restart without persistence): what
    was queued for it while it was away is gone; only the retained messages remain. Returns once
    the retained assignment is ``txn`` (the hub's publishes have all reached the broker)."""
    seen = threading.Event()

    def on_message(_c: object, _u: object, msg: mqtt.MQTTMessage) -> None:
        if txn.encode() in msg.payload:
            seen.set()

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=table, protocol=mqtt.MQTTv5)
    client.username_pw_set(table, table_password(table))
    client.on_message = on_message
    client.on_connect = lambda c, *_: c.subscribe(table_topic(table, "assign"), qos=1)
    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = 0
    client.connect("127.0.0.1", port, clean_start=True, properties=props)
    client.loop_start()
    try:
        assert seen.wait(5), "the hub's assignment never reached the broker"
    finally:
        client.disconnect()
        client.loop_stop()


def assigned_rig(
    hub: Hub, port: int, table_id: str, path: Path, then: str, **args: object
) -> Rig:
    """A table given ``ASSIGN_ARGS`` by the hub, that has then applied ``then`` (stored)."""
    hub.register_table(table_id)
    hub.assign_fenced(table_id, ASSIGN_ARGS)
    r = rig(table_id, port, path)
    assert wait_until(lambda: r.table.state == "assigned", 10)
    r.runtime.apply(parse_input(then, dict(args)), 1.0)
    assert r.link.flush(5)
    return r


def answered(hub: Hub, txn: str) -> dict | None:
    status = hub.command_status(txn)
    return status if status and status["accepted"] is not None else None


def test_a_match_reaches_the_hub_in_order(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    hub.register_table(table_id)
    txn = hub.assign(table_id, ASSIGN_ARGS)
    r = rig(table_id, mosquitto.port, tmp_path / "outbox.sqlite3")
    try:
        assert wait_until(lambda: r.table.state == "assigned", 10)
        r.pumping.clear()  # from here the players' loop applies everything
        play(r.runtime, random.Random(1), pace=0)
        assert r.table.state == "match_over"
        assert r.link.flush(10)
        assert wait_until(lambda: r.outbox.pending == 0, 20), r.outbox.pending
    finally:
        r.stop()
    report = check([tmp_path / "outbox.sqlite3"], hub.store.path)
    assert report.ok and report.sent == report.stored > 30, report.summary()
    live = hub.table(table_id)
    assert live["state"] == "match_over" and live["events"] == report.sent
    assert answered(hub, txn)["accepted"] is True


def test_a_whole_match_without_network_is_delivered_when_it_returns(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    proxy = CutProxy(mosquitto.host, mosquitto.port).start()
    proxy.cut()
    table = Table()
    r = rig(table_id, proxy.port, tmp_path / "outbox.sqlite3", table_state=table)
    try:
        r.runtime.apply(parse_input("assign", ASSIGN_ARGS), 0.0)  # assigned before the outage
        play(r.runtime, random.Random(2), pace=0)  # the clock never waits on the network
        assert r.table.state == "match_over" and r.link.flush(10)
        assert not r.link.connected and r.outbox.pending == r.outbox.last_seq > 30
        proxy.restore()
        assert wait_until(lambda: r.outbox.pending == 0, 30), r.outbox.pending
    finally:
        r.stop()
        proxy.stop()
    report = check([tmp_path / "outbox.sqlite3"], hub.store.path)
    assert report.ok and report.sent == report.stored, report.summary()


def test_commands_become_inputs_and_are_answered(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    hub.register_table(table_id)
    hub.assign(table_id, ASSIGN_ARGS)
    r = rig(table_id, mosquitto.port, tmp_path / "outbox.sqlite3")
    try:
        assert wait_until(lambda: r.table.state == "assigned", 10)
        r.runtime.submit(parse_input("press", {"side": "a"}), 1.0)  # both check in
        r.runtime.submit(parse_input("press", {"side": "b"}), 2.0)
        assert wait_until(lambda: r.table.state == "between_games", 10)
        adjust = hub.command(table_id, "director_adjust", {"side": "a", "seconds": 30.0})
        resume = hub.command(table_id, "director_resume")
        assert wait_until(lambda: answered(hub, adjust) and answered(hub, resume), 10)
        assert answered(hub, adjust)["accepted"] is True
        refused = answered(hub, resume)
        assert refused["accepted"] is False and refused["code"] == "not_now"
        assert r.table.s.clock is not None and r.table.s.clock.reserve["a"] == 630.0
        # The hub's projection follows the committed events.
        assert wait_until(lambda: (hub.table(table_id) or {}).get("reserve", {}).get("a") == 630.0)
        # A clock ordered during a game: accepted, and the answer says it waits for the next.
        r.runtime.submit(parse_input("press", {"side": "a"}), 3.0)
        assert wait_until(lambda: r.table.state == "running", 10)
        later = hub.command(table_id, "director_clock", {"clock": {"preset": "usbgf"}})
        assert wait_until(lambda: answered(hub, later), 10)
        said = answered(hub, later)
        assert said is not None and said["accepted"] and said["code"] == "clock_next_game"
        assert r.table.state == "running" and r.table.s.clock_order is not None
        # Withdrawn: the table goes idle and says so.
        txn = hub.unassign(table_id)
        assert wait_until(lambda: answered(hub, txn), 10)
        assert r.table.state == "idle" and answered(hub, txn)["accepted"] is True
    finally:
        r.stop()


def test_malformed_commands_are_refused_with_a_reason(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    hub.register_table(table_id)
    r = rig(table_id, mosquitto.port, tmp_path / "outbox.sqlite3")
    try:
        assert wait_until(lambda: r.link.connected and r.link.hub_online, 10)
        client = hub._client
        assert client is not None
        topic = table_topic(table_id, "cmd")
        bad = Command(table_id, "bad-1", "director_adjust", {"side": "z", "seconds": 1.0}, 1.0)
        client.publish(topic, bad.to_payload(), 1)
        other = Command("t9", "bad-2", "director_pause", {}, 1.0)
        client.publish(topic, other.to_payload(), 1)
        client.publish(topic, b"{not json", 1)
        with hub.store.transaction():  # so that the hub files the answers
            hub.store.record_command("bad-1", table_id, "cmd", "director_adjust", {})
            hub.store.record_command("bad-2", table_id, "cmd", "director_pause", {})
        assert wait_until(lambda: answered(hub, "bad-1") and answered(hub, "bad-2"), 10)
        assert answered(hub, "bad-1")["code"] == "bad_input"
        assert answered(hub, "bad-2")["code"] == "table_mismatch"
        assert wait_until(lambda: r.link.metrics.get("refused", reason="bad_json") == 1, 5)
        assert r.table.state == "idle" and r.outbox.last_seq == 0  # nothing changed
    finally:
        r.stop()


def test_the_retained_assignment_is_applied_once(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    hub.register_table(table_id)
    hub.assign(table_id, ASSIGN_ARGS)
    path = tmp_path / "outbox.sqlite3"
    r = rig(table_id, mosquitto.port, path)
    assert wait_until(lambda: r.table.state == "assigned", 10)
    r.runtime.apply(parse_input("press", {"side": "a"}), 1.0)  # a checks in
    assert r.link.flush(5)
    table, seq = r.table, r.outbox.last_seq
    r.stop()
    # The table restarts (same outbox) and reconnects: the retained assignment comes again.
    again = rig(table_id, mosquitto.port, path, table_state=Table.restore(table.snapshot()))
    try:
        assert wait_until(lambda: again.link.connected and again.link.hub_online, 10)
        assert again.link.flush(5)
        assert again.table.state == "checking_in" and again.outbox.last_seq == seq
        # A new assignment is applied.
        hub.assign(table_id, {**ASSIGN_ARGS, "match_id": "M2"})
        assert wait_until(lambda: again.table.s.match_id == "M2", 10)
    finally:
        again.stop()


def test_a_match_assigned_here_again_goes_on_under_the_newer_epoch(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    """Moved away and back while the table was offline: it holds the match still, and must
    stamp its events with the epoch of the assignment that gave it back, or the hub fences
    every one of them and the match can never end."""
    hub.register_table(table_id)
    _, first = hub.assign_fenced(table_id, ASSIGN_ARGS)
    path = tmp_path / "outbox.sqlite3"
    r = rig(table_id, mosquitto.port, path)
    assert wait_until(lambda: r.table.state == "assigned", 10)
    r.runtime.apply(parse_input("press", {"side": "a"}), 1.0)
    assert r.link.flush(5)
    table = r.table
    r.stop()
    assert table.s.epoch == first
    hub.unassign(table_id)  # moved to another table ...
    txn, again_epoch = hub.assign_fenced(table_id, ASSIGN_ARGS)  # ... and back
    forget_session(table_id, mosquitto.port, txn)  # the broker restarted: the withdrawal is lost
    assert again_epoch is not None and first is not None and again_epoch > first
    back = rig(table_id, mosquitto.port, path, table_state=Table.restore(table.snapshot()))
    try:
        assert wait_until(lambda: answered(hub, txn) is not None, 10)
        assert answered(hub, txn)["accepted"]  # type: ignore[index]
        assert back.table.state == "checking_in" and back.table.s.epoch == again_epoch
        back.runtime.apply(parse_input("press", {"side": "b"}), 2.0)  # the match goes on
        assert back.link.flush(5)
        *_, events = Outbox.read_all(path)
        assert events[-1].epoch == again_epoch
        assert wait_until(lambda: hub.ingest.epoch(table_id) == again_epoch, 5)
    finally:
        back.stop()


def test_withdrawn_and_given_back_at_once_starts_the_match_afresh(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    """The withdrawal and the same match again arrive together: the second is applied after
    the first, not answered from a snapshot the first is about to change; the table ends with
    the match, under the new epoch, and both are answered."""
    r = assigned_rig(hub, mosquitto.port, table_id, tmp_path / "outbox.sqlite3", "press", side="a")
    try:
        away = hub.unassign(table_id)
        back, epoch = hub.assign_fenced(table_id, ASSIGN_ARGS)
        assert wait_until(lambda: answered(hub, away) and answered(hub, back), 10)
        assert answered(hub, away)["accepted"] and answered(hub, back)["accepted"]  # type: ignore[index]
        assert wait_until(lambda: r.table.s.epoch == epoch, 5)
        assert r.table.state == "assigned" and r.table.s.match_id == ASSIGN_ARGS["match_id"]
    finally:
        r.stop()


def test_the_same_match_with_other_players_is_a_new_assignment(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    """A correction upstream changed who plays the final: the hub sends the same match id
    with other players. The table takes it afresh instead of answering "already assigned"
    and going on with the wrong pairing under an epoch the hub no longer accepts."""
    path = tmp_path / "outbox.sqlite3"
    r = assigned_rig(hub, mosquitto.port, table_id, path, "director_forfeit", winner="a")
    try:
        assert r.table.state == "match_over"
        players = {"a": "Ana", "b": "Carla"}
        txn, epoch = hub.assign_fenced(table_id, {**ASSIGN_ARGS, "players": players})
        assert wait_until(lambda: answered(hub, txn) is not None, 10)
        assert answered(hub, txn)["code"] is None  # type: ignore[index]
        assert r.table.state == "assigned" and r.table.s.players == players
        assert r.table.s.epoch == epoch
    finally:
        r.stop()


def test_a_stale_will_is_corrected(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    hub.register_table(table_id)
    r = rig(table_id, mosquitto.port, tmp_path / "outbox.sqlite3")
    try:
        assert wait_until(lambda: (hub.table(table_id) or {}).get("status") == "online", 10)
        stale = TableStatus(table_id, "lost", 0, 1.0)  # a will from an older connection
        assert hub._client is not None
        hub._client.publish(table_topic(table_id, "status"), stale.to_payload(), 1, True)
        assert wait_until(lambda: r.link.metrics.get("stale_will_corrected") >= 1, 10)
        assert wait_until(lambda: hub.metrics.get("refused", reason="stale_will") >= 1, 10)
        assert hub.table(table_id)["status"] == "online"
    finally:
        r.stop()
    assert wait_until(lambda: hub.table(table_id)["status"] == "offline", 10)


# ── the access point reboots (bench/reconnect_storm.py, bounded) ─────────────
def _storm_bench():  # type: ignore[no-untyped-def]
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[2] / "bench" / "reconnect_storm.py"
    spec = importlib.util.spec_from_file_location("bench_reconnect_storm", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_reconnect_storm"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_reconnect_waits_double_up_to_the_ceiling_and_are_jittered() -> None:
    from mesa.controller.link import reconnect_delay

    s = LinkSettings(table="t1")
    rng = random.Random(5)
    waits = [[reconnect_delay(n, s, rng.random) for n in range(8)] for _ in range(50)]
    for row in waits:
        for n, w in enumerate(row):
            nominal = min(s.reconnect_max, s.reconnect_min * 2**n)
            assert nominal * (1 - s.reconnect_jitter) <= w <= nominal
    firsts = sorted(row[0] for row in waits)
    assert firsts[-1] - firsts[0] > 0.3  # fifty tables do not wait the same first second
    fixed = LinkSettings(table="t1", reconnect_max=30, reconnect_jitter=0.0)
    assert [reconnect_delay(n, fixed) for n in range(6)] == [1, 2, 4, 8, 16, 30]


def test_twenty_tables_dropped_at_once_come_back_spread_and_lose_nothing(
    tmp_path: Path,
) -> None:
    """The Wi-Fi (a relay) is killed under 20 playing tables and back after 3 s: every table is
    online again at the hub within seconds, not all in the same instant, and the checker finds
    every event the tables played (during the outage too) in the hub's store."""
    bench = _storm_bench()
    r = bench.storm_round(
        "jittered", bench.JITTERED, work=tmp_path, tables=20, drops=1, outage=3.0,
        settle=1.0, warmup=2.0,
    )  # fmt: skip
    (drop,) = r.drops
    assert drop.all_online is not None and drop.all_online < 15.0, drop
    assert len(drop.returns) == 20
    assert drop.returns[-1] - drop.returns[0] >= 0.3, drop.returns  # spread, not one burst
    assert r.ok, r.check
    assert r.backlog[0] > 0  # the tables played on while cut off
    assert sum(c["pending"] for c in r.children) == 0
