"""Adopting a table end to end on a real Mosquitto laid out as a venue's (TLS, the ACLs, the
enrolment listener): announce, read the code off the table's screen, adopt, switch, clear; and
each attack with the shared enrolment bundle (issue 21): the rogue obtains no password, kicks
no table, takes no number without a confirmation naming its Pi, and cannot fill the list."""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from mesa.controller.enrol import EnrolBundle, Enrolment, open_answer
from mesa.controller.enrol_screen import show_pairing
from mesa.controller.link import LinkSettings, tls_context
from mesa.errors import ConfigError
from mesa.hub.broker.enrolment import (
    EnrolmentDesk,
    EnrolmentError,
    EnrolmentSettings,
    EnrolmentStore,
    Hello,
    enrol_topic,
)
from mesa.hub.broker.mosquitto import ENROL_USERNAME, PrivateMosquitto
from mesa.hub.broker.tls import TlsFiles, ensure_venue_tls
from mesa.pairing import b64, enrolment_id, new_private_key, public_key
from mesa.protocol import HUB_USERNAME, table_topic
from support.harness import wait_until
from support.mosquitto import (
    DESK_PASSWORD,
    ENROL_PASSWORD,
    HUB_PASSWORD,
    have_mosquitto,
    start_venue_broker,
)
from support.oled_text import read_code

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


def new_pi(
    broker: PrivateMosquitto, files: TlsFiles, serial: str, folder: Path, **hw: str
) -> Enrolment:
    """A new table's Pi with its own key, calling the hub often (a test's patience)."""
    return Enrolment(
        bundle(broker, files), serial, folder / "table.json", new_private_key(), hw, poll=0.2
    )


def screen_code(pi: Enrolment) -> str:
    """The code as the director reads it: off the table's (simulated) screen."""
    from luma.core.device import dummy

    device = dummy(width=128, height=64, mode="1")
    show_pairing(device, pi.code, "es")
    return read_code(device.image)


def run_enrolment(e: Enrolment) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(e.wait(30)), daemon=True)
    t.start()
    return t, out


def announced(desk: EnrolmentDesk, serial: str) -> bool:
    return any(p.serial == serial for p in desk.store.pending())


def adopted_as(desk: EnrolmentDesk, pi: Enrolment, table: str, **kw: Any) -> dict[str, Any]:
    """Announce ``pi``, adopt it by the code on its screen, return its link file."""
    thread, out = run_enrolment(pi)
    try:
        assert wait_until(functools.partial(announced, desk, pi.serial), 10)
        desk.adopt(screen_code(pi), table, **kw)
        thread.join(30)
    finally:
        pi.stop()
    assert out and out[0] is not None and out[0]["table"] == table
    return dict(out[0])


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


def test_a_new_pi_is_adopted_by_the_code_on_its_screen_and_its_answer_cleared(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings], tmp_path: Path
) -> None:
    broker, files, settings = venue
    desk = EnrolmentDesk(settings).start()
    try:
        assert desk.connected.wait(10)
        pi = new_pi(broker, files, "10000000abcdef01", tmp_path / "pi", display="ok")
        thread, out = run_enrolment(pi)
        assert wait_until(lambda: bool(desk.store.pending()), 10)
        (pending,) = desk.store.pending()
        assert pending.serial == "10000000abcdef01" and pending.hwcheck == {"display": "ok"}
        assert pending.code == pi.code and pending.eid == pi.eid
        code = screen_code(pi)
        assert code == pi.code
        # Typed as a person would: lower case, no dash.
        desk.adopt(code.lower().replace("-", ""), "7", by="director")
        thread.join(30)
        assert out and out[0] is not None and out[0]["table"] == "7"
        link_file = tmp_path / "pi" / "table.json"
        assert link_file.stat().st_mode & 0o077 == 0
        link = LinkSettings.from_file(link_file)
        assert (link.table, link.port, link.tls_ca) == ("7", broker.tls_port, files.ca.read_text())
        assert desk.store.pending() == []
        (entry,) = desk.store.audit_log()
        assert (entry.by, entry.code, entry.table_id, entry.outcome) == (
            "director",
            code,
            "7",
            "ok",
        )

        # The answer stays (retained, sealed) until the table is online with its new account.
        answer = enrol_topic(pi.eid, "answer")
        hub = Client(broker.port, HUB_USERNAME, HUB_PASSWORD, "enrol-test-hub")
        hub.subscribe(answer)
        assert wait_until(lambda: any(t == answer and p for t, p in hub.heard), 5)
        sealed = next(p for t, p in hub.heard if t == answer and p)
        assert str(link.password).encode() not in sealed
        table = go_online(link)
        assert wait_until(lambda: any(t == answer and not p for t, p in hub.heard), 10)
        assert wait_until(lambda: desk.store.adoptions()[0].cleared_at is not None, 5)
        table.close()
        hub.close()
    finally:
        desk.stop()


def test_an_unknown_code_or_a_bad_table_number_is_refused_and_nothing_changes(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings],
) -> None:
    _, _, settings = venue
    desk = EnrolmentDesk(settings)  # not started: refusals come before the broker
    try:
        pub = public_key(new_private_key())
        desk.store.record_hello(Hello(enrolment_id(pub), "ffff0001", pub, {}), time.time())
        (p,) = desk.store.pending()
        other = "ZZZ-ZZZ" if p.code != "ZZZ-ZZZ" else "000-000"
        for code, table, why in (
            (other, "3", "not_pending"),
            ("4F7", "3", "bad_code"),
            (p.code, "mesa-hub", "bad_table"),
            (p.code, "Bad/Table", "bad_table"),
        ):
            with pytest.raises(EnrolmentError) as e:
                desk.adopt(code, table)
            assert e.value.code == why
        # The broker refusing the answer (the desk is not connected) leaves the Pi waiting.
        with pytest.raises(EnrolmentError, match="not connected"):
            desk.adopt(p.code, "3")
        assert desk.store.pending() == [p] and desk.store.adoptions() == []
        assert [e.outcome.split(":")[0] for e in desk.store.audit_log()] == ["refused"] * 5
    finally:
        desk.stop()


def rogue_call(
    port: int, ca: str, client_id: str, publish: list[tuple[str, bytes]], listen: float = 0.0
) -> list[tuple[str, bytes | bytearray]]:
    """One call of a rogue with the shared bundle: publish (retained), listen to every answer
    and everything else it may subscribe to. All enrolment clients share one client id (the
    broker forces it), so a waiting Pi's call may cut this one short: it is made again."""
    for _ in range(10):
        c = Client(port, ENROL_USERNAME, ENROL_PASSWORD, client_id, ca)
        try:
            if not c.ok:
                continue
            if listen:
                c.subscribe("mesa/v1/enrol/+/answer", "mesa/v1/#", "#")
            for topic, payload in publish:
                c.publish(topic, payload, retain=True)
            time.sleep(listen)
            if not c.lost.is_set():
                return list(c.heard)
        except (RuntimeError, ValueError, AssertionError):
            pass  # cut short by another enrolment client
        finally:
            c.close()
    raise AssertionError("the rogue never completed a call")


def test_a_rogue_with_the_bundle_obtains_no_password(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings], tmp_path: Path
) -> None:
    """The attack of issue 21: a rogue on the enrolment listener with the shared account, the
    genuine Pi's serial as client id and as its own announcement's serial, listening to every
    answer. The director adopts by the code on the genuine table's screen: the rogue's entry
    is not the one adopted, the answer it hears is sealed to the genuine Pi's key, and the
    genuine Pi gets its table."""
    broker, files, settings = venue
    assert broker.enrol_port is not None
    ca = files.ca.read_text()
    desk = EnrolmentDesk(settings).start()
    rogue_key = new_private_key()
    rogue_pub = public_key(rogue_key)
    rogue_eid = enrolment_id(rogue_pub)
    pi = new_pi(broker, files, "10000000abcdef01", tmp_path / "pi")
    try:
        assert desk.connected.wait(10)
        thread, out = run_enrolment(pi)
        assert wait_until(functools.partial(announced, desk, pi.serial), 10)
        forged = json.dumps({"serial": pi.serial, "key": b64(rogue_pub)}).encode()
        # Its own announcement under the genuine serial: listed beside it, with another code;
        # its key under the genuine Pi's topic: refused (that topic names the genuine key).
        rogue_call(
            broker.enrol_port,
            ca,
            pi.serial,
            [(enrol_topic(rogue_eid, "hello"), forged), (enrol_topic(pi.eid, "hello"), forged)],
        )
        assert wait_until(lambda: len(desk.store.pending()) == 2, 10)
        assert wait_until(lambda: desk.refusals["wrong_key"] >= 1, 10)
        assert {p.eid for p in desk.store.pending()} == {pi.eid, rogue_eid}
        desk.adopt(screen_code(pi), "12")
        thread.join(30)
        assert out and out[0] is not None and out[0]["table"] == "12"
        password = str(out[0]["hub"]["password"]).encode()
        heard = rogue_call(broker.enrol_port, ca, pi.serial, [], listen=1.0)
        answer = enrol_topic(pi.eid, "answer")
        assert any(t == answer and p for t, p in heard)
        for topic, payload in heard:
            assert password not in payload
            if payload:
                with pytest.raises(ConfigError):
                    open_answer(rogue_key, topic, payload)
        # The rogue's own entry is still just waiting: nothing was sent to its key.
        assert [p.eid for p in desk.store.pending()] == [rogue_eid]
        assert not any(t == enrol_topic(rogue_eid, "answer") for t, _ in heard)
    finally:
        pi.stop()
        hub = Client(broker.port, HUB_USERNAME, HUB_PASSWORD, "enrol-test-hub")
        hub.publish(enrol_topic(rogue_eid, "hello"), b"", retain=True)
        hub.close()
        desk.stop()


def test_no_enrolment_client_disconnects_a_table_or_the_hub(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings],
) -> None:
    """Client ids are one space for the whole broker: on the enrolment listener the broker
    makes every client's id the shared account's, so claiming table t3's id (or the hub's, or
    the desk's) takes nobody's session, however often."""
    broker, files, settings = venue
    assert broker.tls_port is not None and broker.enrol_port is not None
    ca = files.ca.read_text()
    broker.add_user("t3", "pw-t3")
    desk = EnrolmentDesk(settings).start()
    table = Client(broker.tls_port, "t3", "pw-t3", "t3", ca)
    hub = Client(broker.port, HUB_USERNAME, HUB_PASSWORD, HUB_USERNAME)
    try:
        assert table.ok and hub.ok and desk.connected.wait(10)
        for i in range(8):
            cid = ("t3", HUB_USERNAME, "mesa-enrolment", "t3")[i % 4]
            rogue = Client(broker.enrol_port, ENROL_USERNAME, ENROL_PASSWORD, cid, ca)
            assert rogue.ok
            rogue.close()
        time.sleep(0.5)
        assert not table.lost.is_set() and not hub.lost.is_set() and desk.connected.is_set()
        # The table still works: a command reaches it.
        table.subscribe(table_topic("t3", "cmd"))
        hub.publish(table_topic("t3", "cmd"), b"still here")
        assert wait_until(lambda: (table_topic("t3", "cmd"), b"still here") in table.heard, 5)
    finally:
        table.close()
        hub.close()
        desk.stop()


def test_a_rogue_on_the_enrolment_account_can_do_nothing_else(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings],
) -> None:
    broker, files, _ = venue
    assert broker.enrol_port is not None
    ca = files.ca.read_text()
    hub = Client(broker.port, HUB_USERNAME, HUB_PASSWORD, "enrol-test-hub")
    hub.subscribe("mesa/v1/#")
    genuine = "k" + "a" * 40
    mine = "k" + "b" * 40
    rogue = Client(broker.enrol_port, ENROL_USERNAME, ENROL_PASSWORD, "bbbb0002", ca)
    assert rogue.ok
    rogue.subscribe("mesa/v1/#", "#")
    for topic in (
        table_topic("t1", "event"),
        table_topic("t1", "status"),
        enrol_topic(mine, "answer"),  # an answer: only the hub writes them
        "mesa/v1/hub/status",
        "mesa/v1/enrol/x/y",
    ):
        rogue.publish(topic, b"forged")
    rogue.publish(enrol_topic(mine, "hello"), b"{}")
    # The broker keeps one publisher's order: once its own hello arrived, a forgery would have.
    assert wait_until(lambda: any(t.endswith(mine + "/hello") for t, _ in hub.heard), 5)
    assert [t for t, p in hub.heard if p == b"forged"] == []
    # No announcement reaches it (only the hub reads them); answers do, and they are sealed.
    hub.publish(enrol_topic(genuine, "hello"), b"{}")
    hub.publish(enrol_topic(genuine, "answer"), b"sealed", retain=True)
    assert wait_until(lambda: bool(rogue.heard), 5)
    time.sleep(0.2)
    assert {t for t, _ in rogue.heard} == {enrol_topic(genuine, "answer")}
    # The enrolment account is refused on the tables' listener and on the hub's.
    assert broker.tls_port is not None
    assert not Client(broker.tls_port, ENROL_USERNAME, ENROL_PASSWORD, "cccc0003", ca).ok
    assert not Client(broker.port, ENROL_USERNAME, ENROL_PASSWORD, "cccc0003").ok
    hub.publish(enrol_topic(genuine, "answer"), b"", retain=True)
    rogue.close()
    hub.close()


def test_taking_a_number_that_has_a_pi_needs_a_confirmation_naming_it(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings], tmp_path: Path
) -> None:
    """One rule, whatever the number's Pi is doing: online (table t3, configured by hand),
    offline (t4, its Will retained), or adopted a moment ago and not online yet (11). The
    confirmation must name that Pi; the audit log records the replacement."""
    broker, files, settings = venue
    hub = Client(broker.port, HUB_USERNAME, HUB_PASSWORD, "enrol-test-hub")
    for table, state in (("t3", "online"), ("t4", "offline")):
        body = json.dumps({"table": table, "state": state, "bdseq": 1, "at": 1.0}).encode()
        hub.publish(table_topic(table, "status"), body, retain=True)
    desk = EnrolmentDesk(settings).start()
    pis = []
    try:
        assert desk.connected.wait(10)
        assert wait_until(lambda: set(desk.statuses) >= {"t3", "t4"}, 5)
        first = new_pi(broker, files, "1111", tmp_path / "first")
        adopted_as(desk, first, "11")  # not online yet: its answer waits
        for table, pi_name, state in (
            ("t3", "t3", "online"),
            ("t4", "t4", "offline"),
            ("11", "1111", "adopted"),
        ):
            pi = new_pi(broker, files, f"new{table}", tmp_path / f"new{table}")
            pis.append(pi)
            thread, out = run_enrolment(pi)
            assert wait_until(functools.partial(announced, desk, pi.serial), 10)
            code = screen_code(pi)
            for replace in (None, "someone-else"):
                with pytest.raises(EnrolmentError) as e:
                    desk.adopt(code, table, replace=replace, by="director")
                assert e.value.code == "confirm_replace"
                assert e.value.params == {"table": table, "pi": pi_name, "state": state}
            assert announced(desk, pi.serial)  # refused: still waiting, nothing changed
            done = desk.adopt(code, table, replace=pi_name, by="director")
            assert done.replaced is not None and done.replaced.token == pi_name
            thread.join(30)
            assert out and out[0] is not None and out[0]["table"] == table
        log = [(e.table_id, e.replaced, e.outcome) for e in reversed(desk.store.audit_log())]
        assert ("11", "", "ok") in log and ("11", "1111", "ok") in log
        assert ("t3", "t3", "ok") in log and ("t4", "t4", "ok") in log
        assert sum(1 for e in log if e[2].startswith("refused")) == 6
        # The first Pi at 11 was replaced: its answer was taken off the broker.
        assert desk.store.adoption_of(first.eid).replaced_at is not None  # type: ignore[union-attr]
    finally:
        for pi in pis:
            pi.stop()
        for table in ("t3", "t4"):
            hub.publish(table_topic(table, "status"), b"", retain=True)
        hub.close()
        desk.stop()


def test_a_replaced_pi_takes_over_the_table_and_is_adopted_again_later(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings], tmp_path: Path
) -> None:
    broker, files, settings = venue
    desk = EnrolmentDesk(settings).start()
    try:
        assert desk.connected.wait(10)
        old_pi = new_pi(broker, files, "old0001", tmp_path / "old")
        adopted_as(desk, old_pi, "5")
        old = LinkSettings.from_file(tmp_path / "old" / "table.json")
        old_table = go_online(old)
        new_pi_ = new_pi(broker, files, "new0002", tmp_path / "new")
        adopted_as(desk, new_pi_, "5", replace="old0001")
        new = LinkSettings.from_file(tmp_path / "new" / "table.json")
        assert old.password != new.password
        # The reload dropped the old Pi's connection, and its password no longer opens any door.
        assert old_table.lost.wait(10)
        old_table.close()
        again = Client(old.port, "5", str(old.password), "5", old.tls_ca)
        assert not again.ok
        again.close()
        go_online(new).close()
        # The replaced Pi (same SD card, same key) is adopted again, as table 6.
        old_pi = Enrolment(
            old_pi.bundle, "old0001", tmp_path / "old" / "table.json", old_pi.private, poll=0.2
        )
        adopted_as(desk, old_pi, "6")
        back = LinkSettings.from_file(tmp_path / "old" / "table.json")
        assert back.table == "6"
        go_online(back).close()
    finally:
        desk.stop()


def test_mesa_adopt_takes_the_code_and_the_same_takeover_rule(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``mesa enrolments`` reads the store (no codes: they are on the tables' screens); ``mesa
    adopt CODE N`` leaves the adoption there and waits while the running desk carries it out;
    a number that has a Pi needs ``--replace`` naming it, as on the dashboard."""
    from mesa.cli import main

    broker, files, settings = venue
    desk = EnrolmentDesk(settings).start()
    pis: list[Enrolment] = []

    def serve() -> None:
        while not stop.is_set():
            desk.serve_requests()
            stop.wait(0.1)

    stop = threading.Event()
    server = threading.Thread(target=serve, daemon=True)
    try:
        assert desk.connected.wait(10)
        server.start()
        for n, serial in enumerate(("cafe0001", "cafe0002")):
            pi = new_pi(broker, files, serial, tmp_path / serial, card="FAILED not found")
            pis.append(pi)
            thread, out = run_enrolment(pi)
            assert wait_until(functools.partial(announced, desk, serial), 10)
            assert main(["enrolments", "--db", str(settings.db)]) == 0
            listing = capsys.readouterr().out
            assert serial in listing and "card FAILED" in listing and pi.code not in listing
            code = screen_code(pi)
            argv = ["adopt", code, "9", "--db", str(settings.db), "--wait", "30"]
            if n == 1:
                # 9 was just given to cafe0001: refused, and told how to confirm.
                assert main(argv) == 1
                err = capsys.readouterr().err
                assert "already has Pi cafe0001" in err and "--replace cafe0001" in err
                argv += ["--replace", "cafe0001"]
            assert main(argv) == 0, capsys.readouterr().err
            thread.join(30)
            assert out and out[0] is not None and out[0]["table"] == "9"
        capsys.readouterr()
        # Adopted already: refused at once.
        assert main(["adopt", pis[1].code, "9", "--db", str(settings.db)]) == 1
        assert "is waiting" in capsys.readouterr().err
        assert main(["enrolments", "--all", "--db", str(settings.db)]) == 0
        listing = capsys.readouterr().out
        assert "replacing cafe0001" in listing and "mesa adopt" in listing
    finally:
        stop.set()
        for pi in pis:
            pi.stop()
        desk.stop()


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
        adopted_as(desk, new_pi(broker, files, "beef0008", link_file.parent), "8")
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


def _hello(serial: str) -> Hello:
    pub = public_key(new_private_key())
    return Hello(enrolment_id(pub), serial, pub, {})


def test_the_list_is_bounded_adopted_and_stale_ones_leave_and_a_pi_can_be_dismissed(
    tmp_path: Path,
) -> None:
    from mesa.hub.broker.enrolment import (
        MAX_PENDING,
        MAX_PER_SERIAL,
        MAX_PER_SOURCE,
        STALE_SECONDS,
        UNPROVEN_SECONDS,
    )

    store = EnrolmentStore(tmp_path / "hub.sqlite3")
    try:
        flood = [_hello(f"flood{i}") for i in range(MAX_PENDING)]
        for h in flood:
            assert store.record_hello(h, now=100.0) == "new"
        genuine = _hello("10000000abcdef01")
        # Full of announcements all just made: the newcomer is refused (and counted by the
        # desk) until the flood's one-off entries are older than a real Pi's next call...
        assert store.record_hello(genuine, now=101.0) == "full"
        assert store.record_hello(genuine, now=100.0 + UNPROVEN_SECONDS + 1) == "new"
        assert genuine.eid in {p.eid for p in store.pending(now=131.5)}
        assert len(store.pending(now=131.5)) == MAX_PENDING
        # ... and once repeated, no newcomer pushes it out.
        assert store.record_hello(genuine, now=135.0) == "again"
        for i in range(MAX_PENDING):
            store.record_hello(_hello(f"more{i}"), now=136.0)
        assert genuine.eid in {p.eid for p in store.pending(now=137.0)}
        # Per source: one serial is claimed at most MAX_PER_SERIAL times.
        for _ in range(MAX_PER_SERIAL - 1):
            assert store.record_hello(_hello(genuine.serial), now=140.0) in ("new", "full")
        # Stale: a Pi that stopped calling leaves; the genuine one keeps calling.
        t = 137.0 + STALE_SECONDS + 1
        assert store.record_hello(genuine, now=200.0) == "again"
        assert [p.eid for p in store.pending(now=t)] == [genuine.eid]
        assert store.record_hello(_hello(genuine.serial), now=t) == "new"
        assert store.record_hello(_hello(genuine.serial), now=t) == "serial"
        # Per source: one network address announces at most MAX_PER_SOURCE Pis.
        store.max_pending = 10_000
        got = [store.record_hello(_hello(f"s{i}"), now=t, source="10.0.0.9") for i in range(12)]
        assert got == ["new"] * MAX_PER_SOURCE + ["source"] * (12 - MAX_PER_SOURCE)
        assert store.record_hello(_hello("s99"), now=t, source="10.0.0.10") == "new"
        for p in store.pending(now=t):
            if p.serial.startswith("s"):
                store.dismiss(p.eid, now=t)
        # Dismissed: off the list, and it stays off when it calls again.
        other = store.pending(now=t)[1]
        assert store.dismiss(other.eid, now=t) and not store.dismiss(other.eid, now=t)
        assert store.record_hello(other.hello, now=t + 1) == "dismissed"
        assert [p.eid for p in store.pending(now=t + 1)] == [genuine.eid]
        # Adopted: it leaves at once; calling again before its answer is read changes nothing;
        # once online (or replaced) it may wait again (its link file lost, a re-adoption).
        (p,) = store.pending(now=t + 1)
        store.record_adoption(p, "3", now=t + 2)
        assert store.pending(now=t + 2) == []
        assert store.record_hello(genuine, now=t + 3) == "answered"
        store.mark_cleared(genuine.eid, now=t + 4)
        assert store.record_hello(genuine, now=t + 5) == "new"
    finally:
        store.close()


def flood(port: int, ca: str, n: int) -> list[str]:
    """``n`` announcements under invented serials and fresh keys, in a burst, from this address
    (one connection: the ACL lets the shared account write any announcement topic)."""
    rogue = Client(port, ENROL_USERNAME, ENROL_PASSWORD, "flood", ca)
    assert rogue.ok
    eids = []
    for i in range(n):
        pub = public_key(new_private_key())
        eids.append(enrolment_id(pub))
        body = json.dumps({"serial": f"fake{i:04d}", "key": b64(pub)}).encode()
        rogue.client.publish(enrol_topic(eids[-1], "hello"), body, qos=1, retain=True)
    rogue.publish("mesa/v1/enrol/x/hello", b"")  # the last one, acknowledged: all are sent
    rogue.close()
    return eids


def test_a_flood_on_the_broker_is_counted_shown_and_a_genuine_pi_still_listed(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings], tmp_path: Path
) -> None:
    """The attack of issue 21: 210 announcements under invented serials in a burst, on the real
    enrolment listener. One address gets MAX_PER_SOURCE entries (the desk learns the address
    from the broker's notices), the rest is counted and shown; the genuine new Pi, from its
    own address, is listed at once and adopted. A flood spread over many addresses fills the
    list; the genuine Pi's next call, once the flood's one-off entries are older than a real
    Pi's calls, is listed all the same."""
    from mesa.hub.broker.enrolment import MAX_PENDING, MAX_PER_SOURCE
    from mesa.hub.web.pages.enrolment import pending_view

    broker, files, settings = venue
    assert broker.enrol_port is not None
    ca = files.ca.read_text()
    desk = EnrolmentDesk(settings).start()
    eids: list[str] = []
    try:
        assert desk.connected.wait(10)
        eids += flood(broker.enrol_port, ca, 210)
        assert wait_until(lambda: desk.refusals["source"] >= 210 - MAX_PER_SOURCE, 15)
        assert len(desk.store.pending()) == MAX_PER_SOURCE
        view = pending_view(desk, "es")
        assert view["refused"] >= 210 - MAX_PER_SOURCE and view["refusals"]["source"] > 0
        pi = new_pi(broker, files, "10000000abcdef01", tmp_path / "pi")
        pi.bind_address = "127.0.0.2"  # another machine on the club's network
        adopted_as(desk, pi, "12")

        # Spread over addresses (here: the per-address limit lifted), the flood fills the list.
        desk.store.max_per_source = 10_000
        eids += flood(broker.enrol_port, ca, 210)
        assert wait_until(lambda: desk.refusals["full"] >= 210 - MAX_PENDING, 15)
        assert len(desk.store.pending()) == MAX_PENDING
        desk.store.unproven_seconds = 0.0  # the flood's entries as old as a real Pi's next call
        pi2 = new_pi(broker, files, "10000000abcdef02", tmp_path / "pi2")
        adopted_as(desk, pi2, "13")
        assert len(desk.store.pending()) <= MAX_PENDING
    finally:
        hub = Client(broker.port, HUB_USERNAME, HUB_PASSWORD, "enrol-test-hub")
        for eid in eids:
            hub.client.publish(enrol_topic(eid, "hello"), b"", qos=1, retain=True)
        hub.close()
        desk.stop()


def test_announcements_are_checked(tmp_path: Path) -> None:
    from mesa.hub.broker.enrolment import parse_hello

    pub = public_key(new_private_key())
    eid = enrolment_id(pub)
    good = {"serial": "abc", "key": b64(pub)}
    for topic, payload in (
        (f"mesa/v1/enrol/{eid}/hello", {**good, "serial": "Bad/Serial"}),
        (f"mesa/v1/enrol/{eid}/hello", {**good, "hwcheck": ["x"]}),
        (f"mesa/v1/enrol/{eid}/hello", {**good, "key": "short"}),
        (f"mesa/v1/enrol/{eid}/hello", {**good, "key": b64(public_key(new_private_key()))}),
        (f"mesa/v1/enrol/{eid}/hello", {**good, "pad": "x" * 5000}),
        ("mesa/v1/enrol/abc/hello", good),
        (f"mesa/v1/table/{eid}/hello", good),
    ):
        with pytest.raises(EnrolmentError):
            parse_hello(topic, json.dumps(payload).encode())
    assert parse_hello(f"mesa/v1/enrol/{eid}/hello", json.dumps(good).encode()).public == pub


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
        adopted_as(desk, new_pi(broker, files, "feed0001", link_file.parent), "11")
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
        waiting = _hello("feed0002")
        desk.store.record_hello(waiting, now=time.time())
        import mesa.hub.broker.enrolment as enrolment

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(enrolment, "ACCOUNT_WAIT_SECONDS", 0.3)
            with pytest.raises(EnrolmentError, match=r"mesa-accounts\.path"):
                desk.adopt(waiting.code, "12")
        assert list(queue.iterdir()) == [] and announced(desk, "feed0002")
    finally:
        done.set()
        desk.stop()


def test_a_store_from_before_pairing_codes_keeps_its_tables_pis(tmp_path: Path) -> None:
    """The former enrolment tables (keyed by serial, no keys): their announcements go (they
    cannot be answered), their adoptions stay, so the numbers still have their Pis."""
    import sqlite3

    db = tmp_path / "hub.sqlite3"
    old = sqlite3.connect(db)
    old.executescript(
        """
        CREATE TABLE enrol_pending (serial TEXT PRIMARY KEY, hwcheck TEXT NOT NULL,
            first_seen REAL NOT NULL, last_seen REAL NOT NULL);
        CREATE TABLE enrol_adopted (serial TEXT PRIMARY KEY, table_id TEXT NOT NULL,
            adopted_at REAL NOT NULL, cleared_at REAL);
        CREATE TABLE enrol_requests (serial TEXT PRIMARY KEY, table_id TEXT NOT NULL,
            requested_at REAL NOT NULL, done_at REAL, outcome TEXT);
        INSERT INTO enrol_pending VALUES ('abc1', '{}', 1.0, 2.0);
        INSERT INTO enrol_adopted VALUES ('beef0001', '7', 3.0, 4.0);
        """
    )
    old.commit()
    old.close()
    store = EnrolmentStore(db)
    try:
        assert store.pending(now=3.0) == []
        holder = store.holder("7")
        assert holder is not None and (holder.serial, holder.cleared_at) == ("beef0001", 4.0)
        assert store.uncleared("7") == []
    finally:
        store.close()
    EnrolmentStore(db).close()  # opened again: nothing to migrate


def test_a_rogue_calling_over_and_over_delays_a_new_pi_but_gets_it_nothing(
    venue: tuple[PrivateMosquitto, TlsFiles, EnrolmentSettings], tmp_path: Path
) -> None:
    """What is left to a rogue on the enrolment port: every enrolment client has the one id
    ``mesa-enrol``, so a rogue connecting again and again cuts the waiting Pi's calls short.
    The Pi calls again; its announcement and its sealed answer are retained; it is adopted."""
    broker, files, settings = venue
    assert broker.enrol_port is not None
    ca = files.ca.read_text()
    desk = EnrolmentDesk(settings).start()
    stop = threading.Event()
    kicks: list[int] = []

    def rogue() -> None:
        while not stop.is_set():
            c = Client(broker.enrol_port or 0, ENROL_USERNAME, ENROL_PASSWORD, "x", ca)
            kicks.append(1)
            stop.wait(0.15)
            c.close()

    pi = new_pi(broker, files, "10000000abcdef01", tmp_path / "pi")
    thread = threading.Thread(target=rogue, daemon=True)
    try:
        assert desk.connected.wait(10)
        thread.start()
        assert wait_until(lambda: len(kicks) >= 5, 10)
        adopted_as(desk, pi, "12")
        assert thread.is_alive()  # still at it
    finally:
        stop.set()
        thread.join(5)
        pi.stop()
        desk.stop()
