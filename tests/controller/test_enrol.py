"""The table's side of adoption, without a broker: serials, its key, its bundle, sealed answers,
the saved link file, the code on its screen, and its calls to a real local HTTPS server with
the venue's certificate (a stand-in for the hub's ``POST /enrol/hello``)."""

from __future__ import annotations

import base64
import http.server
import json
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesa.controller.config import load_config
from mesa.controller.enrol import (
    EnrolBundle,
    Enrolment,
    _enrol,
    answer_label,
    check_answer,
    load_or_make_key,
    open_answer,
    pi_serial,
    save_link,
    with_link_table,
)
from mesa.errors import ConfigError
from mesa.pairing import pairing_code, public_key, seal

ROOT = Path(__file__).resolve().parents[2]


def test_the_serial_comes_from_cpuinfo_else_the_machine_id(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nHardware\t: BCM2835\nSerial\t\t: 10000000A1B2C3D4\n")
    machine = tmp_path / "machine-id"
    machine.write_text("0123456789abcdef0123456789abcdef\n")
    assert pi_serial(cpuinfo, machine) == "10000000a1b2c3d4"
    cpuinfo.write_text("processor\t: 0\nSerial\t\t: 0000000000000000\n")  # a VM's zeros
    assert pi_serial(cpuinfo, machine) == "0123456789abcdef0123456789abcdef"
    with pytest.raises(ConfigError):
        pi_serial(tmp_path / "none", tmp_path / "none")


@pytest.mark.parametrize(
    "payload",
    [
        b"not json",
        b"[]",
        b'{"table": "7"}',
        b'{"table": "mesa-hub", "hub": {"host": "h", "port": 8883, "password": "p"}}',
        b'{"table": "7", "hub": {"host": "h", "port": "x", "password": "p"}}',
        b'{"table": "7", "hub": {"host": "h", "port": 8883, "password": 5}}',
        b'{"table": "7", "hub": {"host": "h", "port": 8883, "password": "p", "tls_ca": 1}}',
    ],
)
def test_a_malformed_answer_is_refused(payload: bytes) -> None:
    with pytest.raises(ConfigError):
        check_answer(payload)


def test_the_link_file_is_saved_private_and_its_table_id_wins(tmp_path: Path) -> None:
    answer = {"table": "7", "hub": {"host": "h", "port": 8883, "username": "7", "password": "p"}}
    link = tmp_path / "mesa" / "table.json"
    save_link(link, check_answer(json.dumps(answer).encode()))
    assert json.loads(link.read_text()) == answer
    assert link.stat().st_mode & 0o777 == 0o600
    assert not list(link.parent.glob("*.tmp"))
    cfg = load_config(ROOT / "hardware" / "mesa-table.toml")
    assert cfg.table.id == "1"
    assert with_link_table(cfg, link).table.id == "7"
    link.write_text("{}")
    with pytest.raises(ConfigError):
        with_link_table(cfg, link)


def test_a_bundle_is_read_or_refused(tmp_path: Path) -> None:
    path = tmp_path / "enrol.json"
    pem = "-----BEGIN CERTIFICATE-----\n...\n"
    path.write_text(
        json.dumps({"hub": {"url": "https://hub.local:8080/", "token": "t0k", "tls_ca": pem}})
    )
    bundle = EnrolBundle.from_file(path)
    assert bundle == EnrolBundle("https://hub.local:8080", "t0k", pem)
    assert (bundle.host, bundle.port, bundle.https) == ("hub.local", 8080, True)
    # Plain HTTP only without a CA (a demo); the pairing code protects the answer either way.
    path.write_text(json.dumps({"hub": {"url": "http://127.0.0.1:8080", "token": "t"}}))
    assert EnrolBundle.from_file(path).https is False
    for hub in (
        {"url": "http://hub.local:8080", "token": "t", "tls_ca": pem},  # a CA, yet plain HTTP
        {"url": "https://hub.local:8080", "token": "t"},  # HTTPS trusting nothing of ours
        {"url": "https://hub.local:8080/x", "token": "t", "tls_ca": pem},
        {"url": "ftp://hub.local", "token": "t"},
        {"url": "https://hub.local:99999", "token": "t", "tls_ca": pem},
        {"url": "https://hub.local:8080", "token": "", "tls_ca": pem},
        {"url": "https://hub.local:8080", "tls_ca": pem},
    ):
        path.write_text(json.dumps({"hub": hub}))
        with pytest.raises(ConfigError):
            EnrolBundle.from_file(path)
    path.write_text("{}")
    with pytest.raises(ConfigError):
        EnrolBundle.from_file(path)


def test_an_old_bundle_says_to_copy_the_new_one_from_the_hub(tmp_path: Path) -> None:
    """The bundle of the broker's enrolment listener (an earlier release)."""
    path = tmp_path / "enrol.json"
    path.write_text(
        json.dumps({"hub": {"host": "h", "port": 8884, "username": "mesa-enrol", "password": "p"}})
    )
    with pytest.raises(ConfigError) as e:
        EnrolBundle.from_file(path)
    assert "earlier release" in str(e.value) and "/etc/mesa/enrol.json from the hub" in str(e.value)


def test_the_key_is_made_once_private_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "mesa" / "enrol.key"
    key = load_or_make_key(path)
    assert path.stat().st_mode & 0o777 == 0o600 and len(key) == 32
    assert load_or_make_key(path) == key  # the same code after every reboot
    path.write_text("not a key")
    with pytest.raises(ConfigError):
        load_or_make_key(path)


def test_an_answer_opens_only_with_this_tables_key_and_for_its_topic(tmp_path: Path) -> None:
    from mesa.hub.broker.enrolment import Hello, seal_answer

    mine, other = load_or_make_key(tmp_path / "a.key"), load_or_make_key(tmp_path / "b.key")
    answer = {"table": "7", "hub": {"host": "h", "port": 8883, "password": "p"}}
    topic = "mesa/v1/enrol/k1/answer"
    # Sealed by the hub (``cryptography``), opened here (pure Python), and the other way round.
    hub_sealed = seal_answer(Hello("k1", "abc1", public_key(mine), {}), topic, answer)
    assert open_answer(mine, topic, hub_sealed) == answer
    mirror = json.dumps(seal(public_key(mine), json.dumps(answer).encode(), aad=topic.encode()))
    assert open_answer(mine, topic, mirror.encode()) == answer
    for key, t, payload in (
        (other, topic, hub_sealed),  # another Pi's answer
        (mine, "mesa/v1/enrol/k2/answer", hub_sealed),  # moved to another topic
        (mine, topic, hub_sealed.replace(b'"box": "', b'"box": "A')),  # tampered
        (mine, topic, json.dumps(answer).encode()),  # not sealed at all
        (mine, topic, b"x" * 40000),
    ):
        with pytest.raises(ConfigError):
            open_answer(key, t, payload)


def test_mesa_enrol_shows_the_code_on_the_screen_and_prints_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``mesa enrol --config``: the table's screen (here luma's dummy) shows the code of the
    key made on first boot; the hub being away, it gives up after --timeout."""
    import argparse

    import mesa.controller.display as display
    from support.oled_text import read_code

    devices: list[object] = []
    real = display.open_device
    monkeypatch.setattr(
        display, "open_device", lambda cfg: devices.append(real(cfg)) or devices[-1]
    )
    toml = tmp_path / "table.toml"
    toml.write_text('[table]\nid = "1"\n[display]\nmodel = "dummy"\n')
    bundle = tmp_path / "enrol.json"
    bundle.write_text(json.dumps({"hub": {"url": "http://127.0.0.1:1", "token": "t"}}))
    args = argparse.Namespace(
        bundle=str(bundle),
        link=str(tmp_path / "etc" / "table.json"),
        config=str(toml),
        serial="abc1",
        timeout=0.2,
        log_level="warning",
    )
    assert _enrol(args) == 1
    code = pairing_code(public_key(load_or_make_key(tmp_path / "etc" / "enrol.key")))
    assert f"code {code}" in capsys.readouterr().out
    # (the hardware check for the announcement opens the display too; the screen is the last)
    assert read_code(devices[-1].image) == code  # type: ignore[attr-defined]


# ── the calls, against a real local HTTPS server with the venue's certificate ─────────────
TOKEN = "venue-token"


class FakeHub(http.server.ThreadingHTTPServer):
    """``POST /enrol/hello`` as the hub answers it: 401 without the token, 202 ``waiting``
    ``waits`` times, then 200 with the link file sealed to the caller's key (the hub's own
    ``seal_answer``); it records every request."""

    def __init__(self, host: str, certfile: Path, keyfile: Path, waits: int = 2) -> None:
        super().__init__((host, 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(certfile), str(keyfile))
        self.socket = context.wrap_socket(self.socket, server_side=True)
        self.waits = waits
        self.requests: list[dict[str, Any]] = []
        self.answer = {"table": "7", "hub": {"host": "h", "port": 8883, "password": "p"}}
        self.status: int | None = None  # forced (a refusal)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"https://{host!s}:{port}"


class Handler(http.server.BaseHTTPRequestHandler):
    server: FakeHub

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        from mesa.hub.broker.enrolment import enrol_topic, parse_hello, seal_answer

        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        hub = self.server
        hub.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self._send(401, {"state": "refused", "error": "token"})
        if hub.status is not None:
            return self._send(hub.status, {"state": "refused", "error": "full"}, retry="1")
        hello = parse_hello(body)
        if len(hub.requests) <= hub.waits:
            return self._send(202, {"state": "waiting", "every": 0.05})
        sealed = seal_answer(hello, enrol_topic(hello.eid, "answer"), hub.answer)
        self._send(200, {"state": "adopted", "answer": base64.b64encode(sealed).decode()})

    def _send(self, status: int, data: dict[str, Any], retry: str | None = None) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        if retry:
            self.send_header("Retry-After", retry)
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture(scope="module")
def venue_tls(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from mesa.hub.broker.tls import ensure_venue_tls

    return ensure_venue_tls(tmp_path_factory.mktemp("tls"), hosts=["hub.local"])


def serve(hub: FakeHub) -> Iterator[FakeHub]:
    thread = threading.Thread(target=hub.serve_forever, daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        hub.shutdown()
        hub.server_close()


@pytest.fixture
def fake_hub(venue_tls: Any) -> Iterator[FakeHub]:
    yield from serve(FakeHub("127.0.0.1", venue_tls.cert, venue_tls.key))


def pi(url: str, ca: str | None, tmp_path: Path, token: str = TOKEN) -> Enrolment:
    return Enrolment(
        EnrolBundle(url, token, ca), "10000000abcdef01", tmp_path / "table.json",
        load_or_make_key(tmp_path / "enrol.key"), {"display": "ok"}, poll=0.05, call=5,
    )


def test_the_pi_calls_until_adopted_and_saves_its_sealed_link_file(
    fake_hub: FakeHub, venue_tls: Any, tmp_path: Path
) -> None:
    table = pi(fake_hub.url, venue_tls.ca.read_text(), tmp_path)
    link = table.wait(10)
    assert link == fake_hub.answer
    assert json.loads((tmp_path / "table.json").read_text()) == fake_hub.answer
    assert table.calls == 3 and len(fake_hub.requests) == 3
    first = fake_hub.requests[0]
    assert first["path"] == "/enrol/hello"
    assert first["headers"]["Content-Type"] == "application/json"
    hello = json.loads(first["body"])
    assert hello["serial"] == "10000000abcdef01" and hello["hwcheck"] == {"display": "ok"}
    assert answer_label(table.eid) == f"mesa/v1/enrol/{table.eid}/answer"


def test_a_refusal_is_waited_out_and_a_bad_token_said(
    fake_hub: FakeHub, venue_tls: Any, tmp_path: Path
) -> None:
    ca = venue_tls.ca.read_text()
    fake_hub.status = 429
    table = pi(fake_hub.url, ca, tmp_path)
    result = table.call_result()
    assert (result.status, result.state, result.pause, result.link) == (429, "full", 1.0, None)
    fake_hub.status = None
    wrong = pi(fake_hub.url, ca, tmp_path, token="not-the-venues")
    assert wrong.call_once() is None and wrong.refused == "token"
    assert not (tmp_path / "table.json").exists()


def test_an_answer_for_another_key_is_not_saved(
    fake_hub: FakeHub, venue_tls: Any, tmp_path: Path
) -> None:
    """The hub answers every call with a link file sealed to the key announced: a rogue
    replaying this Pi's announcement gets this Pi's sealed answer, which it cannot open."""
    from mesa.hub.broker.enrolment import enrol_topic, parse_hello, seal_answer

    genuine = pi(fake_hub.url, venue_tls.ca.read_text(), tmp_path / "genuine")
    rogue = Enrolment(genuine.bundle, genuine.serial, tmp_path / "rogue.json",
                      load_or_make_key(tmp_path / "rogue.key"))
    hello = parse_hello(b'{"serial": "abc1", "key": "%s"}' % base64.b64encode(genuine.public))
    sealed = seal_answer(hello, enrol_topic(hello.eid, "answer"), fake_hub.answer)
    assert rogue._open(base64.b64encode(sealed).decode()) is None
    assert genuine._open(base64.b64encode(sealed).decode()) == fake_hub.answer


def test_a_hub_without_the_venue_certificate_never_sees_the_token(
    venue_tls: Any, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The Pi trusts the venue CA alone and checks the hub's name: an impostor with another
    CA's certificate, or the venue's certificate under a name it does not cover, fails the
    handshake, so the request (and the token) is never sent."""
    from mesa.hub.broker.tls import ensure_venue_tls

    other = ensure_venue_tls(tmp_path_factory.mktemp("other"), hosts=["hub.local"])
    ca = venue_tls.ca.read_text()
    for host, tls in (("127.0.0.1", other), ("127.0.0.2", venue_tls)):
        for impostor in serve(FakeHub(host, tls.cert, tls.key)):
            table = pi(impostor.url, ca, tmp_path)
            result = table.call_result()
            assert (result.status, result.state) == (0, "unreachable")
            assert impostor.requests == []
