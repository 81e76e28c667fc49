"""Adopting a table end to end on a real Mosquitto: announce, adopt, switch, clear; and what a
rogue Pi on the enrolment account cannot do."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from mesa.controller.enrol import EnrolBundle, Enrolment
from mesa.controller.link import LinkSettings, tls_context
from mesa.hub.broker.enrolment import (
    EnrolmentDesk,
    EnrolmentError,
    EnrolmentSettings,
    adopt,
    enrol_topic,
)
from mesa.hub.broker.mosquitto import ENROL_USERNAME, PrivateMosquitto
from mesa.hub.broker.tls import TlsFiles, ensure_venue_tls
from mesa.protocol import HUB_USERNAME, table_topic
from support.harness import wait_until
from support.mosquitto import (
    DESK_PASSWORD,
    ENROL_PASSWORD,
    HUB_PASSWORD,
    have_mosquitto,
    start_venue_broker,
)

pytestmark = pytest.mark.broker


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings]]:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    files = ensure_venue_tls(tmp_path / "tls", hosts=["hub.local"])
    broker = start_venue_broker(tmp_path / "broker", files.dir, tables=())
    assert broker.tls_port is not None
    settings = EnrolmentSettings(
        db=tmp_path / "hub.sqlite3",
        passwd_file=broker.passwd,
        pid_file=None,
        hub_host="127.0.0.1",
        hub_port=broker.tls_port,
        tls_ca=files.ca.read_text(),
        broker_port=broker.port,
        desk_password=DESK_PASSWORD,
        reload=broker.reload,
    )
    try:
        yield broker, files, settings
    finally:
        broker.stop()


def bundle(broker: PrivateMosquitto, files: TlsFiles) -> EnrolBundle:
    assert broker.enrol_port is not None
    return EnrolBundle(
        "127.0.0.1", broker.enrol_port, ENROL_USERNAME, ENROL_PASSWORD, files.ca.read_text()
    )


class Client:
    """A bare MQTT 5 client recording what it hears (retained messages included)."""

    def __init__(
        self, port: int, user: str, password: str, client_id: str, ca: str | None = None
    ) -> None:
        self.heard: list[tuple[str, bytes | bytearray]] = []
        self.reason: Any = None
        self.answered = threading.Event()
        self.lost = threading.Event()
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
        c.username_pw_set(user, password)
        if ca is not None:
            c.tls_set_context(tls_context(ca))
        c.on_connect = self._on_connect
        c.on_message = lambda cl, ud, m: self.heard.append((m.topic, m.payload))
        c.on_disconnect = lambda *a: self.lost.set()
        self.client = c
        c.connect("127.0.0.1", port, keepalive=10)
        c.loop_start()
        self.answered.wait(5)

    def _on_connect(self, client: Any, ud: Any, flags: Any, reason: Any, props: Any) -> None:
        self.reason = reason
        self.answered.set()

    @property
    def ok(self) -> bool:
        return self.reason is not None and not self.reason.is_failure

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


def run_enrolment(e: Enrolment) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(e.wait(30)), daemon=True)
    t.start()
    return t, out


def announced(desk: EnrolmentDesk, serial: str) -> bool:
    return any(p.serial == serial for p in desk.store.pending())


def go_online(settings: LinkSettings) -> Client:
    """What the table's link does first: connect with its account and say it is online."""
    c = Client(
        settings.port,
        str(settings.username),
        str(settings.password),
        str(settings.username),
        settings.tls_ca,
    )
    assert c.ok, c.reason
    c.publish(
        table_topic(settings.table, "status"),
        json.dumps({"table": settings.table, "state": "online", "bdseq": 1, "at": 1.0}).encode(),
        retain=True,
    )
    return c


def test_a_new_pi_is_adopted_and_its_answer_cleared(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings], tmp_path: Path
) -> None:
    broker, files, settings = venue
    desk = EnrolmentDesk(settings).start()
    try:
        assert desk.connected.wait(10)
        link_file = tmp_path / "pi" / "table.json"
        pi = Enrolment(bundle(broker, files), "10000000abcdef01", link_file, {"display": "ok"})
        thread, out = run_enrolment(pi)
        assert wait_until(lambda: bool(desk.store.pending()), 10)
        (pending,) = desk.store.pending()
        assert pending.serial == "10000000abcdef01" and pending.hwcheck == {"display": "ok"}
        assert pending.first_seen <= pending.last_seen

        desk.adopt("10000000abcdef01", "7")
        thread.join(30)
        assert out and out[0] is not None and out[0]["table"] == "7"
        assert link_file.stat().st_mode & 0o077 == 0
        link = LinkSettings.from_file(link_file)
        assert (link.table, link.port, link.tls_ca) == ("7", broker.tls_port, files.ca.read_text())
        assert desk.store.pending() == []

        # The answer stays (retained) until the table is online with its new account.
        answer = enrol_topic("10000000abcdef01", "answer")
        hub = Client(broker.port, HUB_USERNAME, HUB_PASSWORD, "enrol-test-hub")
        hub.subscribe(answer)
        assert wait_until(lambda: any(t == answer and p for t, p in hub.heard), 5)
        table = go_online(link)
        assert wait_until(lambda: any(t == answer and not p for t, p in hub.heard), 10)
        assert wait_until(lambda: desk.store.adoptions()[0].cleared_at is not None, 5)
        table.close()
        hub.close()
    finally:
        desk.stop()


def test_an_unknown_serial_or_a_bad_table_number_is_refused(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings],
) -> None:
    _, _, settings = venue
    with pytest.raises(EnrolmentError, match="announced"):
        adopt("ffff0000", "3", settings, publish=lambda t, p: None)
    with pytest.raises(EnrolmentError):
        adopt("Bad/Serial", "3", settings, publish=lambda t, p: None)
    with pytest.raises(EnrolmentError):
        adopt("ffff0000", "mesa-hub", settings, publish=lambda t, p: None)
    # The broker refusing the answer leaves the Pi waiting, as if nothing had been tried.
    from mesa.hub.broker.enrolment import EnrolmentStore

    store = EnrolmentStore(settings.db)
    store.record_hello("ffff0001", {}, now=1.0)

    def refuse(topic: str, payload: bytes) -> None:
        raise EnrolmentError("the broker did not take the answer")

    with pytest.raises(EnrolmentError, match="did not take"):
        adopt("ffff0001", "3", settings, store=store, publish=refuse)
    assert store.is_pending("ffff0001") and store.adoptions() == []
    store.close()


def test_a_rogue_pi_on_the_enrolment_account_can_do_nothing_else(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings],
) -> None:
    broker, files, _ = venue
    assert broker.enrol_port is not None
    ca = files.ca.read_text()
    hub = Client(broker.port, HUB_USERNAME, HUB_PASSWORD, "enrol-test-hub")
    hub.subscribe("mesa/v1/#")
    # A genuine Pi's answer is on the broker (retained).
    hub.publish(enrol_topic("aaaa0001", "answer"), b'{"secret": 1}', retain=True)
    rogue = Client(broker.enrol_port, ENROL_USERNAME, ENROL_PASSWORD, "bbbb0002", ca)
    assert rogue.ok
    rogue.subscribe(enrol_topic("aaaa0001", "answer"), "mesa/v1/enrol/+/answer", "mesa/v1/#", "#")
    for topic in (
        table_topic("t1", "event"),
        table_topic("t1", "status"),
        enrol_topic("aaaa0001", "hello"),  # another Pi's announcement
        enrol_topic("bbbb0002", "answer"),  # its own answer: only the hub writes it
        "mesa/v1/hub/status",
    ):
        rogue.publish(topic, b"forged")
    rogue.publish(enrol_topic("bbbb0002", "hello"), b'{"serial": "bbbb0002"}')
    # The broker keeps one publisher's order: once its own hello arrived, a forgery would have.
    assert wait_until(lambda: any(t.endswith("bbbb0002/hello") for t, _ in hub.heard), 5)
    assert [t for t, p in hub.heard if p == b"forged"] == []
    assert [t for t, _ in rogue.heard] == []
    # Its own answer it does hear.
    rogue.subscribe(enrol_topic("bbbb0002", "answer"))
    hub.publish(enrol_topic("bbbb0002", "answer"), b"{}", retain=True)
    # (once per matching subscription: its wildcards were accepted, each message checked)
    assert wait_until(lambda: bool(rogue.heard), 5)
    assert {t for t, _ in rogue.heard} == {enrol_topic("bbbb0002", "answer")}
    # The enrolment account is refused on the tables' listener and on the hub's.
    assert broker.tls_port is not None
    assert not Client(broker.tls_port, ENROL_USERNAME, ENROL_PASSWORD, "cccc0003", ca).ok
    assert not Client(broker.port, ENROL_USERNAME, ENROL_PASSWORD, "cccc0003").ok
    for serial in ("aaaa0001", "bbbb0002"):
        hub.publish(enrol_topic(serial, "answer"), b"", retain=True)
    rogue.close()
    hub.close()


def test_a_replaced_pi_takes_over_the_table_and_the_old_password_stops_working(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings], tmp_path: Path
) -> None:
    broker, files, settings = venue
    desk = EnrolmentDesk(settings).start()
    try:
        assert desk.connected.wait(10)
        links = []
        for serial in ("old0001", "new0002"):
            link_file = tmp_path / serial / "table.json"
            thread, out = run_enrolment(Enrolment(bundle(broker, files), serial, link_file))
            assert wait_until(functools.partial(announced, desk, serial), 10)
            desk.adopt(serial, "5")
            thread.join(30)
            assert out and out[0] is not None
            links.append(LinkSettings.from_file(link_file))
            if serial == "old0001":
                old_table = go_online(links[0])
        old, new = links
        assert old.password != new.password
        # The reload dropped the old Pi's connection, and its password no longer opens any door.
        assert old_table.lost.wait(10)
        old_table.close()
        again = Client(old.port, "5", str(old.password), "5", old.tls_ca)
        assert not again.ok
        again.close()
        new_table = go_online(new)
        new_table.close()
    finally:
        desk.stop()


def test_the_commands_list_and_adopt_against_the_hubs_store(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``mesa enrolments`` reads the store; ``mesa adopt`` leaves the adoption there and waits
    while the running desk (the hub's, here on its own) carries it out and answers the Pi."""
    from mesa.cli import main
    from mesa.hub.broker.enrolment import EnrolmentStore

    broker, files, settings = venue
    store = EnrolmentStore(settings.db)
    store.record_hello("cafe0001", {"display": "ok", "card": "FAILED not found"}, now=1.0)
    store.close()
    assert main(["enrolments", "--db", str(settings.db)]) == 0
    listing = capsys.readouterr().out
    assert "Mesa nueva" in listing and "cafe0001" in listing and "card FAILED" in listing
    desk = EnrolmentDesk(settings).start()
    try:
        assert desk.connected.wait(10)
        codes: list[int] = []
        cli = threading.Thread(
            target=lambda: codes.append(
                main(["adopt", "cafe0001", "9", "--db", str(settings.db), "--wait", "30"])
            )
        )
        cli.start()
        assert wait_until(lambda: bool(desk.store.open_requests()), 10)
        assert desk.serve_requests() == 1
        cli.join(30)
        assert codes == [0]
        link_file = tmp_path / "pi" / "table.json"
        out = Enrolment(bundle(broker, files), "cafe0001", link_file).wait(30)
        assert out is not None and out["table"] == "9"
        table = go_online(LinkSettings.from_file(link_file))
        table.close()
        capsys.readouterr()
        # Adopted already: refused at once; a request no hub takes: said so after --wait.
        assert main(["adopt", "cafe0001", "9", "--db", str(settings.db)]) == 1
        assert "is waiting" in capsys.readouterr().err
        desk.store.record_hello("cafe0002", {}, now=2e9)
        assert main(["adopt", "cafe0002", "3", "--db", str(settings.db), "--wait", "0.3"]) == 1
        assert "has not taken it" in capsys.readouterr().err
        assert desk.serve_requests() == 1  # the hub takes it when it runs again
        assert not desk.store.is_pending("cafe0002")
    finally:
        desk.stop()


def test_a_rogue_taking_a_tables_client_id_hears_nothing_of_it(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings],
) -> None:
    """Client ids are global in Mosquitto: an enrolment client that claims table t1's id takes
    over its session (a disconnection), but neither the commands queued for t1 nor new ones
    reach it: the ACL is checked on delivery."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    broker, files, _ = venue
    assert broker.tls_port is not None and broker.enrol_port is not None
    ca = files.ca.read_text()
    broker.add_user("t1", "pw-t1")
    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = 3600
    t1 = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="t1", protocol=mqtt.MQTTv5)
    t1.username_pw_set("t1", "pw-t1")
    t1.tls_set_context(tls_context(ca))
    subscribed = threading.Event()
    t1.on_subscribe = lambda *a: subscribed.set()
    t1.on_connect = lambda c, *a: c.subscribe(table_topic("t1", "cmd"), qos=1)
    t1.connect("127.0.0.1", broker.tls_port, clean_start=False, properties=props)
    t1.loop_start()
    assert subscribed.wait(5)
    t1.disconnect()
    t1.loop_stop()
    hub = Client(broker.port, HUB_USERNAME, HUB_PASSWORD, "enrol-test-hub")
    for i in range(3):
        hub.publish(table_topic("t1", "cmd"), b"queued %d" % i)
    rogue = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="t1", protocol=mqtt.MQTTv5)
    rogue.username_pw_set(ENROL_USERNAME, ENROL_PASSWORD)
    rogue.tls_set_context(tls_context(ca))
    heard: list[str] = []
    rogue.on_message = lambda c, ud, m: heard.append(m.topic)
    joined = threading.Event()
    rogue.on_connect = lambda *a: joined.set()
    rogue.connect("127.0.0.1", broker.enrol_port, clean_start=False, properties=props)
    rogue.loop_start()
    assert joined.wait(5)
    hub.publish(table_topic("t1", "cmd"), b"live")
    # A marker the rogue may hear (its own answer) shows that deliveries to it have happened.
    acked = threading.Event()
    rogue.on_subscribe = lambda *a: acked.set()
    rogue.subscribe(enrol_topic("t1", "answer"), qos=1)
    assert acked.wait(5)
    hub.publish(enrol_topic("t1", "answer"), b"marker", retain=False)
    assert wait_until(lambda: bool(heard), 5)
    assert heard == [enrol_topic("t1", "answer")]
    rogue.disconnect()
    rogue.loop_stop()
    hub.close()


def test_an_adopted_table_plays_over_tls_with_the_hub(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings], tmp_path: Path
) -> None:
    """The whole path: a new Pi adopted, then its real link (TLS, the CA from its answer)
    delivers a match's events to the hub's ingest on the loopback listener."""
    from mesa.controller.link import TableLink
    from mesa.controller.outbox import Outbox
    from mesa.games.backgammon.inputs import parse_input
    from mesa.games.backgammon.machine import Table
    from mesa.hub.ingest.app import Hub
    from support.harness import ASSIGN_ARGS, hub_settings
    from support.tables import SimRuntime

    broker, files, settings = venue
    hub = Hub(hub_settings(tmp_path / "hub.sqlite3", broker)).start()
    desk = EnrolmentDesk(settings).start()
    link = None
    try:
        assert desk.connected.wait(10)
        link_file = tmp_path / "pi" / "table.json"
        thread, out = run_enrolment(Enrolment(bundle(broker, files), "beef0008", link_file))
        assert wait_until(functools.partial(announced, desk, "beef0008"), 10)
        desk.adopt("beef0008", "8")
        thread.join(30)
        assert out and out[0] is not None
        hub.register_table("8")
        settings8 = LinkSettings.from_file(link_file)
        assert settings8.tls_ca is not None and settings8.port == broker.tls_port
        outbox = Outbox(tmp_path / "8.sqlite3", "8")
        runtime = SimRuntime(Table())
        link = TableLink(settings8, outbox, runtime, clock=runtime.clock)
        runtime.sinks.append(link)
        link.start()
        runtime.apply(parse_input("assign", ASSIGN_ARGS), 0.0)
        assert wait_until(lambda: outbox.pending == 0 and outbox.last_seq > 0, 15)
        assert hub.table("8")["match_id"] == ASSIGN_ARGS["match_id"]
        # Online with its own account: the desk has taken the answer off the broker.
        assert wait_until(lambda: desk.store.adoptions()[0].cleared_at is not None, 10)
    finally:
        if link is not None:
            link.stop()
            link.outbox.close()
        desk.stop()
        hub.stop()


def test_the_store_bounds_the_waiting_list_and_sees_a_reflashed_pi_again(tmp_path: Path) -> None:
    from mesa.hub.broker.enrolment import MAX_PENDING, EnrolmentStore, parse_hello

    store = EnrolmentStore(tmp_path / "hub.sqlite3")
    try:
        for i in range(MAX_PENDING):
            store.record_hello(f"flood{i}", {}, now=float(i))
        with pytest.raises(EnrolmentError, match="waiting"):
            store.record_hello("onemore", {}, now=1e6)
        store.record_hello("flood0", {"display": "ok"}, now=1e6)  # a known one still updates
        store.record_adoption("flood0", "3", now=2e6)
        assert "flood0" not in {p.serial for p in store.pending()}
        store.record_hello("flood0", {}, now=2.5e6)  # reconnected before it took its answer
        assert "flood0" not in {p.serial for p in store.pending()}
        store.mark_cleared("flood0", now=2.6e6)  # table 3 came online
        store.record_hello("flood0", {}, now=3e6)  # announced again: its SD card reflashed
        assert "flood0" in {p.serial for p in store.pending()}
    finally:
        store.close()
    for topic, payload in (
        ("mesa/v1/enrol/abc/hello", b'{"serial": "other"}'),
        ("mesa/v1/enrol/abc/hello", b'{"serial": "abc", "hwcheck": ["x"]}'),
        ("mesa/v1/enrol/abc/hello", b"x" * 5000),
        ("mesa/v1/enrol/ABC/hello", b'{"serial": "ABC"}'),
        ("mesa/v1/table/abc/hello", b'{"serial": "abc"}'),
    ):
        with pytest.raises(EnrolmentError):
            parse_hello(topic, payload)


def test_an_unprivileged_hub_queues_the_account_and_root_applies_it(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The installed hub runs as ``mesa``: its desk queues the table's account (a hash) and
    ``mesa apply-accounts`` (root, started by mesa-accounts.path; here a thread) writes it
    and reloads the broker before the Pi hears its answer."""
    import dataclasses

    from mesa.cli import main

    broker, files, settings = venue
    queue = tmp_path / "accounts"
    settings = dataclasses.replace(settings, accounts_dir=queue, reload=None)
    done = threading.Event()
    codes: list[int] = []

    def path_unit() -> None:  # what systemd does when the folder is not empty
        while not done.is_set():
            if queue.is_dir() and any(queue.glob("*.json")):
                codes.append(
                    main(
                        [
                            "apply-accounts",
                            "--queue",
                            str(queue),
                            "--passwd",
                            str(broker.passwd),
                            "--pid-file",
                            str(broker.pid_file),
                        ]
                    )
                )
            done.wait(0.05)

    helper = threading.Thread(target=path_unit, daemon=True)
    helper.start()
    desk = EnrolmentDesk(settings).start()
    try:
        assert desk.connected.wait(10)
        link_file = tmp_path / "pi" / "table.json"
        thread, out = run_enrolment(Enrolment(bundle(broker, files), "feed0001", link_file))
        assert wait_until(lambda: desk.store.is_pending("feed0001"), 10)
        desk.adopt("feed0001", "11")
        thread.join(30)
        assert out and out[0] is not None and out[0]["table"] == "11"
        assert codes == [0] and list(queue.iterdir()) == []
        assert "11:$7$" in broker.passwd.read_text()
        go_online(LinkSettings.from_file(link_file)).close()
        # A queued file that is not a table's account is refused and removed.
        (queue / "mesa-hub.json").write_text(json.dumps({"username": "mesa-hub", "hash": "$7$x"}))
        assert wait_until(lambda: len(codes) == 2, 10) and codes[1] == 1
        assert "mesa-hub" in capsys.readouterr().err and list(queue.iterdir()) == []
        done.set()
        helper.join(5)
        # No helper (mesa-accounts.path not enabled): the adoption is refused, nothing left.
        desk.store.record_hello("feed0002", {}, now=4e9)
        import mesa.hub.broker.enrolment as enrolment

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(enrolment, "ACCOUNT_WAIT_SECONDS", 0.3)
            with pytest.raises(EnrolmentError, match=r"mesa-accounts\.path"):
                desk.adopt("feed0002", "12")
        assert list(queue.iterdir()) == [] and desk.store.is_pending("feed0002")
    finally:
        done.set()
        desk.stop()
