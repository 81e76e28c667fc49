"""The broker's ACL matrix against a real Mosquitto: who may say and hear what."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.protocol import HUB_STATUS_TOPIC, HUB_USERNAME, table_topic
from support.harness import wait_until
from support.mosquitto import HUB_PASSWORD, table_password

pytestmark = pytest.mark.broker


class Peer:
    """A bare MQTT 5 client that records what it hears."""

    def __init__(
        self, broker: PrivateMosquitto, user: str | None, password: str | None, client_id: str = ""
    ) -> None:
        self.heard: list[tuple[str, bytes]] = []
        self.reason: Any = None
        self.connected = threading.Event()
        self.answered = threading.Event()
        self.lost = threading.Event()
        c = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id or f"peer-{user}", protocol=mqtt.MQTTv5
        )
        if user is not None:
            c.username_pw_set(user, password)
        c.on_connect = self._on_connect
        # Retained messages left by other tests arrive on subscription: only live ones count.
        c.on_message = lambda cl, ud, m: (
            None if m.retain else self.heard.append((m.topic, m.payload))
        )
        c.on_disconnect = lambda *a: self.lost.set()
        self.client = c
        c.connect(broker.host, broker.port, keepalive=10)
        c.loop_start()
        self.answered.wait(5)

    def _on_connect(self, client: Any, ud: Any, flags: Any, reason: Any, props: Any) -> None:
        self.reason = reason
        if not reason.is_failure:
            self.connected.set()
        self.answered.set()

    def subscribe(self, *topics: str) -> None:
        done = threading.Event()
        self.client.on_subscribe = lambda *a: done.set()
        self.client.subscribe([(t, 1) for t in topics])
        assert done.wait(5)

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@contextmanager
def peer(
    broker: PrivateMosquitto, user: str | None, password: str | None = None, client_id: str = ""
) -> Iterator[Peer]:
    p = Peer(broker, user, password, client_id)
    try:
        yield p
    finally:
        p.close()


def table_peer(broker: PrivateMosquitto, table: str, client_id: str = "") -> Any:
    return peer(broker, table, table_password(table), client_id)


def test_anonymous_and_wrong_passwords_are_refused(mosquitto: PrivateMosquitto) -> None:
    with peer(mosquitto, None) as anon:
        assert anon.reason is not None and anon.reason.is_failure and not anon.connected.is_set()
    with peer(mosquitto, "t3", "not-the-password") as wrong:
        assert wrong.reason.is_failure and not wrong.connected.is_set()
    with peer(mosquitto, "nobody", "pw-nobody") as unknown:
        assert unknown.reason.is_failure
    with table_peer(mosquitto, "t3") as ok:
        assert ok.connected.is_set()


def test_a_table_writes_only_its_own_topics(mosquitto: PrivateMosquitto) -> None:
    with (
        peer(mosquitto, HUB_USERNAME, HUB_PASSWORD, "acl-hub") as hub,
        table_peer(mosquitto, "t3") as t3,
    ):
        hub.subscribe("mesa/v1/#")
        forged = [
            table_topic("t4", "event"),  # speak as table 4
            table_topic("t4", "status"),
            table_topic("t4", "state"),
            table_topic("t4", "beat"),  # say table 4 is here when it is not
            table_topic("t3", "cmd"),  # hub topics, even its own
            table_topic("t3", "assign"),
            table_topic("t3", "ack"),
            HUB_STATUS_TOPIC,
            "mesa/v1/elsewhere",
        ]
        for topic in forged:
            t3.publish(topic, b"forged")
        own = [table_topic("t3", k) for k in ("event", "status", "state", "response", "beat")]
        for topic in own:
            t3.publish(topic, b"mine")
        # Mosquitto delivers one publisher's messages in order: once the last allowed message
        # arrived, any forged one would have too.
        assert wait_until(lambda: len(hub.heard) >= len(own), 5)
        assert sorted(t for t, _ in hub.heard) == sorted(own)
        t3.publish(table_topic("t3", "status"), b"", retain=True)
        t3.publish(table_topic("t3", "state"), b"", retain=True)


def test_a_table_reads_only_its_own_commands(mosquitto: PrivateMosquitto) -> None:
    with (
        peer(mosquitto, HUB_USERNAME, HUB_PASSWORD, "acl-hub") as hub,
        table_peer(mosquitto, "t3") as t3,
    ):
        t3.subscribe(
            "mesa/v1/#",
            table_topic("t4", "cmd"),
            table_topic("t4", "assign"),
            table_topic("t3", "cmd"),
        )
        for kind in ("cmd", "assign", "ack", "event"):
            hub.publish(table_topic("t4", kind), b"for four")
        hub.publish(table_topic("t3", "ack"), b"ack three")
        hub.publish(table_topic("t3", "cmd"), b"for three")
        assert wait_until(lambda: any(p == b"for three" for _, p in t3.heard), 5)
        assert {t for t, _ in t3.heard} == {table_topic("t3", "cmd"), table_topic("t3", "ack")}


def test_a_table_cannot_take_over_another_tables_session(mosquitto: PrivateMosquitto) -> None:
    with table_peer(mosquitto, "t4", "t4") as t4:
        assert t4.connected.is_set()
        with table_peer(mosquitto, "t3", client_id="t4") as t3:
            assert t3.connected.is_set()
            t3.publish(table_topic("t3", "response"), b"x")  # a round trip: the broker settled
            assert not t4.lost.is_set()  # the client id is the username: no takeover
