"""Adopting a table end to end: new Pis call the hub over HTTPS (``POST /enrol/hello``, the
real endpoint served by uvicorn with the venue's certificate), tables and the hub on a real
Mosquitto laid out as a venue's (TLS, the ACL): announce, read the code off the table's
screen, adopt, switch, delete the answer; and each attack with the shared enrolment bundle
(issue 21): the rogue obtains no password, disconnects nobody, takes no number without a
confirmation naming its Pi, and cannot fill the list."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import functools
import json
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from mesa.controller.enrol import EnrolBundle, Enrolment, answer_label, open_answer
from mesa.controller.enrol_screen import show_pairing
from mesa.controller.link import LinkSettings, tls_context
from mesa.errors import ConfigError
from mesa.hub.broker.enrolment import (
    EnrolmentDesk,
    EnrolmentError,
    EnrolmentSettings,
    EnrolmentStore,
    Hello,
)
from mesa.hub.broker.mosquitto import PrivateMosquitto, free_port
from mesa.hub.broker.tls import TlsFiles, ensure_venue_tls
from mesa.hub.web.http.enrol import HELLO_PATH, EnrolEndpoint
from mesa.pairing import b64, enrolment_id, new_private_key, public_key
from mesa.protocol import HUB_USERNAME, table_topic
from support.harness import wait_until
from support.mosquitto import DESK_PASSWORD, HUB_PASSWORD, have_mosquitto, start_venue_broker
from support.oled_text import read_code

pytestmark = pytest.mark.broker

TOKEN = "venue-enrolment-token"
GENUINE = "127.0.0.2"  # the genuine Pi's address: another machine on the club's Wi-Fi


class DeskServer:
    """The enrolment endpoint exactly as the dashboard serves it (the same route and handler,
    uvicorn over TLS with the venue's certificate), around one desk."""

    def __init__(self, desk: EnrolmentDesk, files: TlsFiles) -> None:
        import uvicorn
        from starlette.applications import Starlette
        from starlette.routing import Route

        endpoint = EnrolEndpoint(SimpleNamespace(enrolment=desk))
        app = Starlette(routes=[Route(HELLO_PATH, endpoint.hello, methods=["POST"])])
        self.port = free_port()
        self.server = uvicorn.Server(
            uvicorn.Config(
                app,
                host="127.0.0.1",
                port=self.port,
                log_level="warning",
                proxy_headers=False,
                ssl_certfile=str(files.cert),
                ssl_keyfile=str(files.key),
            )
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        assert wait_until(lambda: self.server.started, 10)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@dataclasses.dataclass
class Venue:
    broker: PrivateMosquitto
    files: TlsFiles
    settings: EnrolmentSettings
    servers: list[DeskServer] = dataclasses.field(default_factory=list)
    desks: list[EnrolmentDesk] = dataclasses.field(default_factory=list)

    @property
    def ca(self) -> str:
        return self.files.ca.read_text()

    @property
    def url(self) -> str:
        return self.servers[-1].url

    def open_desk(self, settings: EnrolmentSettings | None = None) -> EnrolmentDesk:
        """The hub's desk, started (its broker connection) and served over HTTPS; new Pis
        call it quickly (a test's patience)."""
        desk = EnrolmentDesk(settings or self.settings).start()
        desk.every = 0.3
        self.desks.append(desk)
        self.servers.append(DeskServer(desk, self.files))
        assert desk.connected.wait(10)
        return desk

    def bundle(self, token: str = TOKEN) -> EnrolBundle:
        return EnrolBundle(self.url, token, self.ca)

    def pi(self, serial: str, folder: Path, **hw: str) -> Enrolment:
        """A new table's Pi with its own key, calling from another machine's address."""
        return Enrolment(
            self.bundle(),
            serial,
            folder / "table.json",
            new_private_key(),
            hw,
            poll=0.3,
            bind_address=GENUINE,
        )

    def http(self, local: str = "127.0.0.1") -> httpx.Client:
        """A rogue's HTTPS client with the bundle's CA (it has the SD card), from ``local``."""
        return httpx.Client(
            base_url=self.url,
            verify=ssl.create_default_context(cadata=self.ca),
            transport=httpx.HTTPTransport(
                local_address=local, verify=ssl.create_default_context(cadata=self.ca)
            ),
            timeout=10,
        )

    def close(self) -> None:
        for server in self.servers:
            server.stop()
        for desk in self.desks:
            desk.stop()


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[Venue]:
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
        token=TOKEN,
    )
    v = Venue(broker, files, settings)
    try:
        yield v
    finally:
        v.close()
        broker.stop()


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


def hello_body(serial: str, public: bytes, **extra: Any) -> bytes:
    return json.dumps({"serial": serial, "key": b64(public), **extra}).encode()


def post(client: httpx.Client, body: bytes, token: str | None = TOKEN, **headers: str) -> Any:
    h = {"Content-Type": "application/json", **headers}
    if token is not None:
        h["Authorization"] = f"Bearer {token}"
    return client.post(HELLO_PATH, content=body, headers=h)


def test_a_new_pi_is_adopted_by_the_code_on_its_screen_and_its_answer_deleted_once_online(
    venue: Venue, tmp_path: Path
) -> None:
    desk = venue.open_desk()
    pi = venue.pi("10000000abcdef01", tmp_path / "pi", display="ok")
    thread, out = run_enrolment(pi)
    assert wait_until(lambda: bool(desk.store.pending()), 10)
    (pending,) = desk.store.pending()
    assert pending.serial == "10000000abcdef01" and pending.hwcheck == {"display": "ok"}
    assert pending.code == pi.code and pending.eid == pi.eid
    assert pi.last is not None and pi.last.status == 202  # waiting, told to call again
    code = screen_code(pi)
    assert code == pi.code
    # Typed as a person would: lower case, no dash.
    desk.adopt(code.lower().replace("-", ""), "7", by="director")
    thread.join(30)
    assert out and out[0] is not None and out[0]["table"] == "7"
    link_file = tmp_path / "pi" / "table.json"
    assert link_file.stat().st_mode & 0o077 == 0
    link = LinkSettings.from_file(link_file)
    assert (link.table, link.port, link.tls_ca) == ("7", venue.broker.tls_port, venue.ca)
    assert desk.store.pending() == []
    (entry,) = desk.store.audit_log()
    assert (entry.by, entry.code, entry.table_id, entry.outcome) == ("director", code, "7", "ok")

    # The sealed answer stays (in the store, for the Pi's next call) until the table is online
    # with its new account; the password is not in it in clear.
    sealed = desk.store.answer_for(pi.eid)
    assert sealed is not None and str(link.password).encode() not in sealed
    table = go_online(link)
    assert wait_until(lambda: desk.store.answer_for(pi.eid) is None, 10)
    assert desk.store.adoptions()[0].cleared_at is not None
    # Calling again now (its link file lost): a new announcement, listed to be adopted again.
    with venue.http(GENUINE) as c:
        r = post(c, hello_body(pi.serial, pi.public))
    assert r.status_code == 202 and r.json()["state"] == "waiting"
    table.close()


def test_an_unknown_code_or_a_bad_table_number_is_refused_and_nothing_changes(
    venue: Venue,
) -> None:
    desk = EnrolmentDesk(venue.settings)  # not started: refusals come before the broker
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
        assert desk.store.pending() == [p] and desk.store.adoptions() == []
        assert [e.outcome.split(":")[0] for e in desk.store.audit_log()] == ["refused"] * 4
    finally:
        desk.stop()


def test_calls_without_the_token_oversized_or_malformed_are_refused_and_counted(
    venue: Venue,
) -> None:
    """What a phone on the Wi-Fi (no SD card), or a rogue sending garbage, gets: a refusal
    with a reason, counted for the director's home, and nothing listed."""
    desk = venue.open_desk()
    pub = public_key(new_private_key())
    good = hello_body("abc1", pub)
    with venue.http() as c:
        for token, headers in (
            (None, {}),
            ("not-the-venues", {}),
            (TOKEN[:-1], {}),
            (None, {"Authorization": f"Basic {TOKEN}"}),
        ):
            r = post(c, good, token, **headers)
            assert r.status_code == 401 and r.json()["error"] == "token", r.text
        big = hello_body("abc1", pub, pad="x" * 5000)
        r = post(c, big)
        assert r.status_code == 413 and r.json()["error"] == "too_large"
        # Chunked (no Content-Length): refused as it streams in.
        r = c.post(
            HELLO_PATH,
            content=iter([big[:3000], big[3000:]]),
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        )
        assert r.status_code == 413
        for body, reason in (
            (b"not json", "malformed"),
            (b"[]", "malformed"),
            (hello_body("abc1", b"short"), "bad_key"),
            (hello_body("Bad/Serial", pub), "bad_serial"),
            (hello_body("abc1", pub, hwcheck=["x"]), "bad_hwcheck"),
        ):
            r = post(c, body)
            assert r.status_code == 400 and r.json() == {
                "state": "refused",
                "error": "malformed",
                "reason": reason,
            }, r.text
        r = post(c, good, **{"Content-Type": "text/plain"})
        assert r.status_code == 400 and r.json()["reason"] == "content_type"
        assert c.get(HELLO_PATH).status_code == 405
        assert desk.store.pending() == []
        r = post(c, good)
        assert r.status_code == 202 and r.json() == {"state": "waiting", "every": 0.3}
    assert desk.refusals["token"] == 4 and desk.refusals["too_large"] == 2
    assert desk.refusals["malformed"] == 6
    from mesa.hub.web.pages.enrolment import pending_view

    view = pending_view(desk, "es")
    assert view["refused"] == 12 and view["refusals"]["malformed"] == 12


def test_a_rogue_with_the_bundle_obtains_no_password(venue: Venue, tmp_path: Path) -> None:
    """The attack of issue 21, over the new path: a rogue with the bundle (the token, the CA)
    announces the genuine Pi's serial with its own key, and replays the genuine Pi's own
    announcement (its public key). The director adopts by the code on the genuine table's
    screen: the rogue's entry is not the one adopted; the replay gets the genuine Pi's answer,
    sealed to a key the rogue does not have; the genuine Pi gets its table."""
    desk = venue.open_desk()
    rogue_key = new_private_key()
    rogue_pub = public_key(rogue_key)
    pi = venue.pi("10000000abcdef01", tmp_path / "pi")
    thread, out = run_enrolment(pi)
    with venue.http() as rogue:
        assert wait_until(functools.partial(announced, desk, pi.serial), 10)
        r = post(rogue, hello_body(pi.serial, rogue_pub))  # the genuine serial, its own key
        assert r.status_code == 202
        replay = hello_body(pi.serial, pi.public, hwcheck=pi.hwcheck)
        assert post(rogue, replay).status_code == 202  # the genuine one, still waiting
        listed = desk.store.pending()
        assert {p.eid for p in listed} == {pi.eid, enrolment_id(rogue_pub)}
        assert len({p.code for p in listed}) == 2  # told apart by the code on the screen
        desk.adopt(screen_code(pi), "12")
        thread.join(30)
        assert out and out[0] is not None and out[0]["table"] == "12"
        password = str(out[0]["hub"]["password"]).encode()
        # The replay now gets the answer: sealed to the genuine Pi's key, useless to the rogue.
        r = post(rogue, replay)
        assert r.status_code == 200 and r.json()["state"] == "adopted"
        sealed = base64.b64decode(r.json()["answer"])
        assert password not in sealed and base64.b64encode(password) not in sealed
        with pytest.raises(ConfigError):
            open_answer(rogue_key, answer_label(pi.eid), sealed)
        assert open_answer(pi.private, answer_label(pi.eid), sealed)["table"] == "12"
        # Its own entry is still just waiting: nothing was sealed to its key.
        r = post(rogue, hello_body(pi.serial, rogue_pub))
        assert r.status_code == 202 and r.json()["state"] == "waiting"
        assert [p.eid for p in desk.store.pending()] == [enrolment_id(rogue_pub)]
        assert desk.store.answer_for(enrolment_id(rogue_pub)) is None


def test_a_burst_of_210_announcements_is_counted_and_the_genuine_pi_still_listed(
    venue: Venue, tmp_path: Path
) -> None:
    """The attack of issue 21: 210 announcements under invented serials in a burst. From one
    address: MAX_PER_SOURCE listed (the address is the caller's, as the server sees it), the
    rest refused 429, counted and shown; the genuine new Pi, from its own address, is listed
    and adopted. Spread over 210 addresses the flood fills the list (64); the genuine Pi's next
    call, once the flood's one-off entries are older than a real Pi's calls, is listed all the
    same."""
    from mesa.hub.broker.enrolment import MAX_PENDING, MAX_PER_SOURCE
    from mesa.hub.web.pages.enrolment import pending_view

    desk = venue.open_desk()
    started = time.monotonic()
    statuses = []
    with venue.http() as c:
        for i in range(210):
            r = post(c, hello_body(f"fake{i:04d}", public_key(new_private_key())))
            statuses.append(r.status_code)
            if r.status_code == 429:
                assert r.json()["error"] == "source" and int(r.headers["Retry-After"]) > 0
    burst = time.monotonic() - started
    assert statuses.count(202) == MAX_PER_SOURCE and statuses.count(429) == 210 - MAX_PER_SOURCE
    assert len(desk.store.pending()) == MAX_PER_SOURCE
    assert desk.refusals["source"] == 210 - MAX_PER_SOURCE
    view = pending_view(desk, "es")
    assert view["refused"] >= 210 - MAX_PER_SOURCE and view["refusals"]["source"] > 0
    adopted_as(desk, venue.pi("10000000abcdef01", tmp_path / "pi"), "12")
    print(f"\n210 announcements from one address answered in {burst:.2f} s")

    # Spread over addresses (127.0.1.x: one announcement each), the flood fills the list.
    for i in range(210):
        with venue.http(f"127.0.1.{i + 1}") as c:
            statuses.append(
                post(c, hello_body(f"spread{i:04d}", public_key(new_private_key()))).status_code
            )
    assert len(desk.store.pending()) == MAX_PENDING
    assert desk.refusals["full"] == 210 - (MAX_PENDING - MAX_PER_SOURCE)
    desk.store.unproven_seconds = 0.0  # the flood's entries as old as a real Pi's next call
    adopted_as(desk, venue.pi("10000000abcdef02", tmp_path / "pi2"), "13")
    assert len(desk.store.pending()) <= MAX_PENDING


def test_a_dismissed_pi_is_told_to_wait_and_counted(venue: Venue) -> None:
    desk = venue.open_desk()
    pub = public_key(new_private_key())
    with venue.http(GENUINE) as c:
        assert post(c, hello_body("dead0001", pub)).status_code == 202
        assert desk.dismiss(enrolment_id(pub))
        r = post(c, hello_body("dead0001", pub))
        assert r.status_code == 429 and r.json()["error"] == "dismissed"
        assert int(r.headers["Retry-After"]) >= 60
    assert desk.refusals["dismissed"] == 1 and desk.store.pending() == []


def test_a_repeated_announcement_costs_no_write_and_one_address_is_rate_limited(
    venue: Venue,
) -> None:
    """Bounded work under a flood: the same announcement repeated touches the store once per
    WRITE_SECONDS; past SOURCE_RATE calls a second (burst SOURCE_BURST) from one address the
    body is not even parsed. Another address is not affected."""
    from mesa.hub.broker.enrolment import SOURCE_BURST, WRITE_SECONDS

    desk = EnrolmentDesk(venue.settings)
    try:
        pub = public_key(new_private_key())
        body = hello_body("abc1", pub)
        assert desk.hello(body, "10.0.0.5", now=100.0).state == "waiting"
        changes = desk.store._db.total_changes
        states = [desk.hello(body, "10.0.0.5", now=100.5).state for _ in range(100)]
        assert states[: int(SOURCE_BURST) - 1] == ["waiting"] * (int(SOURCE_BURST) - 1)
        assert set(states[int(SOURCE_BURST) :]) == {"source"}
        assert desk.store._db.total_changes == changes  # nothing written
        assert desk.hello(body, "10.0.0.6", now=100.5).state == "waiting"  # moved: written
        assert desk.hello(body, "10.0.0.6", now=100.0 + WRITE_SECONDS + 1).state == "waiting"
        (p,) = desk.store.pending(now=110.0)
        assert p.last_seen == 100.0 + WRITE_SECONDS + 1
    finally:
        desk.stop()


def test_while_a_rogue_hammers_the_endpoint_a_waiting_pi_is_adopted_and_nobody_disconnected(
    tmp_path: Path,
) -> None:
    """A real ``mesa hub`` process (ingest, desk, dashboard over HTTPS with the venue's
    certificate) on a venue's broker, a table online over TLS. Four rogues with the bundle
    hammer ``POST /enrol/hello`` (fresh keys, replays, garbage, no token) as fast as they can;
    meanwhile a new Pi's calls are answered, it is adopted from the desk and comes online.
    There is no enrolment session on the broker to take: the table, the hub and the desk are
    never disconnected."""
    from mesa.hub.process import HubProcess
    from support.harness import hub_settings
    from support.mosquitto import table_password

    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    files = ensure_venue_tls(tmp_path / "tls", hosts=["hub.local"])
    broker = start_venue_broker(tmp_path / "broker", files.dir, tables=("t3",))
    desk_file = tmp_path / "enrolment.json"
    desk_file.write_text(
        json.dumps(
            {
                "db": "/nonexistent/the-hub-uses-its-own.sqlite3",
                "passwd_file": str(broker.passwd),
                "pid_file": str(broker.pid_file),
                "hub_host": "127.0.0.1",
                "hub_port": broker.tls_port,
                "tls_ca": files.ca.read_text(),
                "broker_port": broker.port,
                "desk_password": DESK_PASSWORD,
                "enrol_token": TOKEN,
            }
        )
    )
    settings = hub_settings(
        tmp_path / "hub.sqlite3",
        broker,
        port=free_port(),
        tls_cert=files.cert,
        tls_key=files.key,
        enrolment_credentials=desk_file,
    )
    process = HubProcess(settings).start()
    ca = files.ca.read_text()
    stop = threading.Event()
    counts: list[int] = []
    assert broker.tls_port is not None
    table = Client(broker.tls_port, "t3", table_password("t3"), "t3", ca)
    hub_lost = threading.Event()
    try:
        desk = process.enrolment
        assert desk is not None and desk.connected.wait(10) and table.ok
        assert process.url.startswith("https://")
        desk.every = 0.5
        desk_disconnect = desk._client.on_disconnect

        def desk_lost(*a: Any) -> None:
            hub_lost.set()
            desk_disconnect(*a)

        desk._client.on_disconnect = desk_lost
        hub = process.hub
        assert hub is not None and hub.metrics.get("disconnects") == 0
        genuine_key = new_private_key()
        replay = hello_body("10000000abcdef01", public_key(genuine_key))
        url = process.url.rstrip("/")

        def rogue(n: int) -> None:
            context = ssl.create_default_context(cadata=ca)
            sent = 0
            with httpx.Client(base_url=url, verify=context, timeout=10) as c:
                while not stop.is_set():
                    kind = sent % 4
                    body = (
                        replay
                        if kind == 0
                        else hello_body(f"r{n}x{sent}", public_key(new_private_key()))
                    )
                    if kind == 2:
                        body = b"garbage" * 10
                    with contextlib.suppress(httpx.HTTPError):
                        post(c, body, None if kind == 3 else TOKEN)
                    sent += 1
            counts.append(sent)

        pi = Enrolment(
            EnrolBundle(url, TOKEN, ca),
            "10000000abcdef01",
            tmp_path / "pi" / "table.json",
            genuine_key,
            poll=0.5,
            bind_address=GENUINE,
        )
        quiet: list[float] = []  # the same calls with nobody hammering, to compare
        for _ in range(5):
            t0 = time.monotonic()
            assert pi.call_result().status == 202
            quiet.append(time.monotonic() - t0)
        rogues = [threading.Thread(target=rogue, args=(n,), daemon=True) for n in range(4)]
        for t in rogues:
            t.start()
        hammer_start = time.monotonic()
        time.sleep(1.0)  # in full swing
        times: list[float] = []
        adopted: dict[str, Any] | None = None
        deadline = time.monotonic() + 30
        while adopted is None and time.monotonic() < deadline:
            t0 = time.monotonic()
            result = pi.call_result()
            times.append(time.monotonic() - t0)
            assert result.status in (200, 202), result
            if result.link is not None:
                adopted = result.link
            elif len(times) >= 10 and not desk.store.adoptions():
                # Ten calls answered under the hammering (listed, kept), then adopted.
                assert announced(desk, pi.serial)
                desk.adopt(screen_code(pi), "9", by="director")
            else:
                time.sleep(0.3)
        assert adopted is not None and adopted["table"] == "9"
        link = LinkSettings.from_file(tmp_path / "pi" / "table.json")
        new_table = go_online(link)
        assert wait_until(lambda: desk.store.answer_for(pi.eid) is None, 10)
        hammered = time.monotonic() - hammer_start
        stop.set()
        for t in rogues:
            t.join(15)
        total = sum(counts)

        def ms(xs: list[float]) -> str:
            return (
                f"{min(xs) * 1000:.0f}-{max(xs) * 1000:.0f} ms"
                f" (median {sorted(xs)[len(xs) // 2] * 1000:.0f} ms)"
            )

        print(
            f"\nrogues: {total} calls in {hammered:.1f} s; the Pi's {len(times)} calls took"
            f" {ms(times)} under the hammering, {ms(quiet)} without"
        )
        assert total > 100
        assert max(times) < 5.0
        # Nobody was disconnected: the table, the hub's ingest, the desk.
        assert not table.lost.is_set() and not new_table.lost.is_set()
        assert not hub_lost.is_set() and desk.connected.is_set()
        assert hub.online and hub.metrics.get("disconnects") == 0
        # The table's connection still works: it hears its own status back.
        table.subscribe(table_topic("t3", "status"))
        table.publish(table_topic("t3", "status"), b'{"state": "online"}')
        assert wait_until(lambda: any(p == b'{"state": "online"}' for _, p in table.heard), 5)
        new_table.close()
        # Counted: the director's home shows the flood.
        assert desk.refusals["token"] > 0 and desk.refusals["malformed"] > 0
    finally:
        stop.set()
        table.close()
        process.stop()
        broker.stop()


def test_taking_a_number_that_has_a_pi_needs_a_confirmation_naming_it(
    venue: Venue, tmp_path: Path
) -> None:
    """One rule, whatever the number's Pi is doing: online (table t3, configured by hand),
    offline (t4, its Will retained), or adopted a moment ago and not online yet (11). The
    confirmation must name that Pi; the audit log records the replacement."""
    broker, settings = venue.broker, venue.settings
    hub = Client(broker.port, HUB_USERNAME, HUB_PASSWORD, "enrol-test-hub")
    for table, state in (("t3", "online"), ("t4", "offline")):
        body = json.dumps({"table": table, "state": state, "bdseq": 1, "at": 1.0}).encode()
        hub.publish(table_topic(table, "status"), body, retain=True)
    desk = venue.open_desk(settings)
    pis = []
    try:
        assert wait_until(lambda: set(desk.statuses) >= {"t3", "t4"}, 5)
        first = venue.pi("1111", tmp_path / "first")
        adopted_as(desk, first, "11")  # not online yet: its answer waits
        for table, pi_name, state in (
            ("t3", "t3", "online"),
            ("t4", "t4", "offline"),
            ("11", "1111", "adopted"),
        ):
            pi = venue.pi(f"new{table}", tmp_path / f"new{table}")
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
        # The first Pi at 11 was replaced: its unread answer is gone (its password too).
        assert desk.store.adoption_of(first.eid).replaced_at is not None  # type: ignore[union-attr]
        assert desk.store.answer_for(first.eid) is None
    finally:
        for pi in pis:
            pi.stop()
        for table in ("t3", "t4"):
            hub.publish(table_topic(table, "status"), b"", retain=True)
        hub.close()


def test_a_replaced_pi_takes_over_the_table_and_is_adopted_again_later(
    venue: Venue, tmp_path: Path
) -> None:
    settings = venue.settings
    desk = venue.open_desk(settings)
    old_pi = venue.pi("old0001", tmp_path / "old")
    adopted_as(desk, old_pi, "5")
    old = LinkSettings.from_file(tmp_path / "old" / "table.json")
    old_table = go_online(old)
    new_pi_ = venue.pi("new0002", tmp_path / "new")
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


def test_mesa_adopt_takes_the_code_and_the_same_takeover_rule(
    venue: Venue,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``mesa enrolments`` reads the store (no codes: they are on the tables' screens); ``mesa
    adopt CODE N`` leaves the adoption there and waits while the running desk carries it out;
    a number that has a Pi needs ``--replace`` naming it, as on the dashboard."""
    from mesa.cli import main

    settings = venue.settings
    desk = venue.open_desk(settings)
    pis: list[Enrolment] = []

    def serve() -> None:
        while not stop.is_set():
            desk.serve_requests()
            stop.wait(0.1)

    stop = threading.Event()
    server = threading.Thread(target=serve, daemon=True)
    try:
        server.start()
        for n, serial in enumerate(("cafe0001", "cafe0002")):
            pi = venue.pi(serial, tmp_path / serial, card="FAILED not found")
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


def test_an_adopted_table_plays_over_tls_with_the_hub(venue: Venue, tmp_path: Path) -> None:
    """The whole path: a new Pi adopted, then its real link (TLS, the CA from its answer)
    delivers a match's events to the hub's ingest on the loopback listener."""
    from mesa.controller.link import TableLink
    from mesa.controller.outbox import Outbox
    from mesa.games.backgammon.inputs import parse_input
    from mesa.games.backgammon.machine import Table
    from mesa.hub.ingest.app import Hub
    from support.harness import ASSIGN_ARGS, hub_settings
    from support.tables import SimRuntime

    broker, settings = venue.broker, venue.settings
    hub = Hub(hub_settings(tmp_path / "hub.sqlite3", broker)).start()
    desk = venue.open_desk(settings)
    link = None
    try:
        link_file = tmp_path / "pi" / "table.json"
        adopted_as(desk, venue.pi("beef0008", link_file.parent), "8")
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
        store.record_adoption(p, "3", now=t + 2, sealed=b'{"v": 1}')
        assert store.pending(now=t + 2) == []
        assert store.record_hello(genuine, now=t + 3) == "answered"
        assert store.answer_for(genuine.eid) == b'{"v": 1}'
        store.mark_cleared(genuine.eid, now=t + 4)
        assert store.record_hello(genuine, now=t + 5) == "new"
    finally:
        store.close()


def test_an_unprivileged_hub_queues_the_account_and_root_applies_it(
    venue: Venue,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The installed hub runs as ``mesa``: its desk queues the table's account (a hash) and
    ``mesa apply-accounts`` (root, started by mesa-accounts.path; here a thread) writes it
    and reloads the broker before the Pi hears its answer."""
    import dataclasses

    from mesa.cli import main

    broker, settings = venue.broker, venue.settings
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
    desk = venue.open_desk(settings)
    try:
        link_file = tmp_path / "pi" / "table.json"
        adopted_as(desk, venue.pi("feed0001", link_file.parent), "11")
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


def test_a_pi_adopted_just_before_the_upgrade_is_listed_again_and_readopted(
    venue: Venue,
) -> None:
    """Adopted by a release that answered over the broker, not online yet when the hub was
    upgraded: no answer is kept for it, so its first call lists it again (not a silent wait),
    and the director adopts it at its number with no confirmation: it is the same Pi."""
    desk = EnrolmentDesk(venue.settings)  # no broker connection needed for this
    try:
        key = new_private_key()
        body = hello_body("cafe0007", public_key(key))
        assert desk.hello(body, GENUINE).state == "waiting"
        (p,) = desk.store.pending()
        desk.store.record_adoption(p, "7", now=time.time())  # the old release's adoption
        desk._forget(p.eid)
        assert desk.hello(body, GENUINE).state == "waiting" and desk.store.pending()
        done = desk.adopt(p.code, "7", by="director")
        assert done.replaced is None
        reply = desk.hello(body, GENUINE)
        assert reply.state == "adopted" and reply.answer is not None
        assert open_answer(key, answer_label(p.eid), reply.answer)["table"] == "7"
    finally:
        desk.stop()


def test_an_answer_not_fetched_survives_the_replaced_pis_last_online(venue: Venue) -> None:
    """Until the broker's reload drops it, the replaced Pi may still say "online" on its
    table's topic: that must not delete the new Pi's answer before the new Pi has fetched it.
    Once fetched, the table online deletes it."""

    def online(table: str) -> mqtt.MQTTMessage:
        msg = mqtt.MQTTMessage(topic=table_topic(table, "status").encode())
        msg.payload = json.dumps({"table": table, "state": "online", "bdseq": 2}).encode()
        return msg

    desk = EnrolmentDesk(venue.settings)
    try:
        key = new_private_key()
        body = hello_body("cafe0008", public_key(key))
        assert desk.hello(body, GENUINE).state == "waiting"
        (p,) = desk.store.pending()
        desk.adopt(p.code, "8")
        desk._on_status(online("8"))  # the old Pi's, before the reload
        assert desk.store.answer_for(p.eid) is not None
        assert desk.hello(body, GENUINE).state == "adopted"
        desk._on_status(online("8"))  # the new Pi, online with its account
        assert desk.store.answer_for(p.eid) is None
        assert desk.store.adoption_of(p.eid).cleared_at is not None  # type: ignore[union-attr]
    finally:
        desk.stop()
