"""TLS on the venue's network, against a real Mosquitto with the venue's own certificates."""

from __future__ import annotations

import datetime as dt
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from mesa.controller.link import LinkSettings, tls_context
from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.broker.provision import provision_table
from mesa.hub.broker.tls import (
    CA_NOTICE_DAYS,
    CERT_DAYS,
    DEFAULT_TLS_DIR,
    RENEW_DAYS,
    CertificateKeeper,
    TlsFiles,
    ensure_venue_tls,
    not_after,
    renewal_due,
    server_names,
)
from support.mosquitto import have_mosquitto, start_venue_broker, table_password

pytestmark = pytest.mark.broker


@pytest.fixture(scope="module")
def venue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PrivateMosquitto, TlsFiles]]:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    tmp = tmp_path_factory.mktemp("tls")
    files = ensure_venue_tls(tmp / "tls", hosts=["hub.local"])
    broker = start_venue_broker(tmp / "broker", files.dir)
    try:
        yield broker, files
    finally:
        broker.stop()


def try_connect(port: int, user: str, password: str, *, ca: str | None) -> Any:
    """The CONNACK reason, or the exception the TLS handshake raised."""
    result: dict[str, Any] = {}
    done = threading.Event()
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=user, protocol=mqtt.MQTTv5)
    c.username_pw_set(user, password)
    if ca is not None:
        c.tls_set_context(tls_context(ca))

    def on_connect(client: Any, ud: Any, flags: Any, reason: Any, props: Any) -> None:
        result["reason"] = reason
        done.set()

    c.on_connect = on_connect
    try:
        c.connect("127.0.0.1", port, keepalive=5)
    except (OSError, ssl.SSLError) as e:
        return e
    c.loop_start()
    done.wait(5)
    c.disconnect()
    c.loop_stop()
    return result.get("reason", "no answer")


def ok(reason: Any) -> bool:
    return hasattr(reason, "is_failure") and not reason.is_failure


def test_the_certificate_names_the_hub_and_loopback(
    venue: tuple[PrivateMosquitto, TlsFiles],
) -> None:
    _, files = venue
    assert {"hub.local", "localhost", "127.0.0.1"} <= set(server_names(files.cert))
    assert files.ca_key.stat().st_mode & 0o077 == 0


def test_a_table_with_the_venue_ca_connects(venue: tuple[PrivateMosquitto, TlsFiles]) -> None:
    broker, files = venue
    assert broker.tls_port is not None
    assert ok(try_connect(broker.tls_port, "t1", table_password("t1"), ca=files.ca.read_text()))


def test_a_client_without_the_ca_or_with_another_is_refused(
    venue: tuple[PrivateMosquitto, TlsFiles], tmp_path: Path
) -> None:
    broker, _ = venue
    assert broker.tls_port is not None
    other = ensure_venue_tls(tmp_path / "other", hosts=["hub.local"])
    # The system's trust store does not know the venue CA; another venue's CA is not ours.
    default = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="t2", protocol=mqtt.MQTTv5)
    default.username_pw_set("t2", table_password("t2"))
    default.tls_set()
    with pytest.raises(ssl.SSLCertVerificationError):
        default.connect("127.0.0.1", broker.tls_port, keepalive=5)
    refused = try_connect(broker.tls_port, "t2", table_password("t2"), ca=other.ca.read_text())
    assert isinstance(refused, ssl.SSLCertVerificationError)


def test_plain_text_to_the_tls_listener_is_refused(
    venue: tuple[PrivateMosquitto, TlsFiles],
) -> None:
    broker, _ = venue
    assert broker.tls_port is not None
    assert not ok(try_connect(broker.tls_port, "t3", table_password("t3"), ca=None))
    # Byte level: an MQTT CONNECT in clear text gets no CONNACK, only a closed connection.
    with socket.create_connection(("127.0.0.1", broker.tls_port), timeout=5) as s:
        s.sendall(bytes.fromhex("101000044d5154540502003c000003743300"))
        try:
            answer = s.recv(16)
        except ConnectionResetError:
            answer = b""
        assert not answer.startswith(b"\x20")  # 0x20 would be a CONNACK


def test_the_link_file_carries_the_ca_and_the_link_uses_it(
    venue: tuple[PrivateMosquitto, TlsFiles], tmp_path: Path
) -> None:
    broker, files = venue
    assert broker.tls_port is not None
    out = tmp_path / "table-t4.json"
    provision_table(
        "t4",
        passwd_file=tmp_path / "passwd",
        hub_host="127.0.0.1",
        hub_port=broker.tls_port,
        out=out,
        password=table_password("t4"),
        tls_ca=files.ca.read_text(),
    )
    settings = LinkSettings.from_file(out)
    assert settings.tls_ca == files.ca.read_text()
    assert ok(try_connect(settings.port, "t4", table_password("t4"), ca=settings.tls_ca))


def test_the_dashboard_serves_https_with_the_venue_certificate(
    venue: tuple[PrivateMosquitto, TlsFiles], tmp_path: Path
) -> None:
    """The dashboard's own server with the hub's certificate (settings tls_cert/tls_key, as
    ``mesa hub`` passes them): a client that trusts the venue CA (a director's phone with the CA
    installed) gets the page, one that does not, not."""
    import httpx

    from mesa.hub.broker.tls import uvicorn_tls_options
    from mesa.hub.ingest.app import Hub
    from mesa.hub.settings import HubSettings
    from mesa.hub.web.app import WebApp
    from mesa.hub.web.http.server import BackgroundServer

    _, files = venue
    settings = HubSettings(db=tmp_path / "hub.sqlite3", tls_cert=files.cert, tls_key=files.key)
    hub = Hub(settings)
    web = WebApp(hub, settings)
    server = BackgroundServer(
        web, "127.0.0.1", 0, tls=uvicorn_tls_options(settings.tls_cert, settings.tls_key)
    ).start()
    try:
        assert server.url.startswith("https://")
        port = server.url.rstrip("/").rsplit(":", 1)[1]
        url = f"https://localhost:{port}/healthz"
        trusted = ssl.create_default_context(cafile=str(files.ca))
        assert httpx.get(url, verify=trusted).status_code == 200
        with pytest.raises(httpx.ConnectError):
            httpx.get(url)
    finally:
        server.stop()
        web.close()
        hub.close()


# ── renewal: the clock moved, the CA kept ──────────────────────────────────────────────────


def serial(path: Path) -> int:
    from cryptography import x509

    return x509.load_pem_x509_certificate(path.read_bytes()).serial_number


class Clock:
    """The keeper's wall clock, moved by the test."""

    def __init__(self, now: dt.datetime) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now


def test_the_server_certificate_is_renewed_90_days_before_its_end_and_the_ca_is_kept(
    tmp_path: Path,
) -> None:
    t0 = dt.datetime.now(dt.UTC)
    files = ensure_venue_tls(tmp_path / "tls", hosts=["hub.local", "192.168.1.10"], now=t0)
    ca, first = files.ca.read_bytes(), serial(files.cert)
    web_cert, web_key = tmp_path / "tls" / "web.pem", tmp_path / "tls" / "web.key"
    web_cert.write_bytes(files.cert.read_bytes())
    web_key.write_bytes(files.key.read_bytes())
    told: list[str] = []
    clock = Clock(t0)
    mono = [0.0]
    keeper = CertificateKeeper(
        files.dir,
        web_cert=web_cert,
        web_key=web_key,
        reload_broker=lambda: told.append("broker") is None,
        reload_web=lambda: told.append("dashboard"),
        clock=clock,
        monotonic=lambda: mono[0],
    )
    assert keeper.check().renewed == () and told == []  # at start: nothing due
    end = not_after(files.cert)
    assert end - t0 >= dt.timedelta(days=CERT_DAYS - 1)

    clock.now = end - dt.timedelta(days=RENEW_DAYS + 1)  # 91 days left: not yet
    assert keeper.check().renewed == () and serial(files.cert) == first

    clock.now = end - dt.timedelta(days=RENEW_DAYS - 1)  # 89 days left: renewed
    state = keeper.check()
    assert state.renewed == ("broker", "dashboard") and state.error is None
    assert told == ["broker", "dashboard"]
    assert serial(files.cert) != first and files.ca.read_bytes() == ca
    assert not_after(files.cert) - clock.now >= dt.timedelta(days=CERT_DAYS - 1)
    assert set(server_names(files.cert)) == {"hub.local", "192.168.1.10", "localhost", "127.0.0.1"}
    assert web_cert.read_bytes() == files.cert.read_bytes()
    assert web_key.read_bytes() == files.key.read_bytes()
    assert web_key.stat().st_mode & 0o077 == 0 and files.key.stat().st_mode & 0o007 == 0
    # The renewed certificate is the CA's: what every table trusts.
    from cryptography import x509

    renewed = x509.load_pem_x509_certificate(files.cert.read_bytes())
    renewed.verify_directly_issued_by(x509.load_pem_x509_certificate(ca))

    # Daily: the next check waits a day (of the monotonic clock, whatever the wall clock
    # does: set back by NTP here), then finds nothing due.
    told.clear()
    clock.now -= dt.timedelta(days=3)
    mono[0] += 23 * 3600
    assert keeper.tick() is None
    mono[0] += 2 * 3600
    ticked = keeper.tick()
    assert ticked is not None and ticked.renewed == () and told == []
    assert keeper.tick() is None


def test_install_renews_a_certificate_near_its_end_too(tmp_path: Path) -> None:
    """``ensure_venue_tls`` (``mesa install hub``, ``mesa provision-hub``) renews as well."""
    t0 = dt.datetime.now(dt.UTC) - dt.timedelta(days=CERT_DAYS - 30)  # made long ago
    files = ensure_venue_tls(tmp_path / "tls", hosts=["hub.local"], now=t0)
    ca, first = files.ca.read_bytes(), serial(files.cert)
    assert renewal_due(files)
    ensure_venue_tls(tmp_path / "tls", hosts=["hub.local"])
    assert serial(files.cert) != first and files.ca.read_bytes() == ca
    assert not renewal_due(files)


def test_the_director_is_told_of_the_cas_end_a_year_ahead(tmp_path: Path) -> None:
    from mesa.hub.web.pages.tournament import tls_notice

    files = ensure_venue_tls(tmp_path / "tls", hosts=["hub.local"])
    ca_end = not_after(files.ca)
    assert ca_end - dt.datetime.now(dt.UTC) > dt.timedelta(days=365 * 19)  # 20 years
    clock = Clock(ca_end - dt.timedelta(days=CA_NOTICE_DAYS + 1))
    keeper = CertificateKeeper(files.dir, clock=clock)
    first = keeper.check()
    assert first.ca_notice is False and tls_notice(keeper) is None
    # Twenty years on, the server certificate was renewed many times (here: once, now).
    assert first.renewed == ("broker",) and first.error is None
    clock.now = ca_end - dt.timedelta(days=CA_NOTICE_DAYS - 1)
    state = keeper.check()
    assert state.ca_notice and state.ca_days_left == CA_NOTICE_DAYS - 1
    notice = tls_notice(keeper)
    assert notice is not None and notice["ca_date"] == ca_end.date().isoformat()
    assert notice["ca_days"] == CA_NOTICE_DAYS - 1 and notice["error"] is None


def test_a_renewal_that_cannot_be_done_is_reported_never_a_new_ca(tmp_path: Path) -> None:
    from mesa.hub.web.pages.tournament import tls_notice

    t0 = dt.datetime.now(dt.UTC) - dt.timedelta(days=CERT_DAYS - 10)
    files = ensure_venue_tls(tmp_path / "tls", hosts=["hub.local"], now=t0)
    first = serial(files.cert)
    files.ca_key.unlink()  # the hub cannot sign
    keeper = CertificateKeeper(files.dir)
    state = keeper.check()
    assert state.renewed == () and state.error is not None and "CA" in state.error
    assert not files.ca_key.exists() and serial(files.cert) == first
    notice = tls_notice(keeper)
    assert notice is not None and notice["error"] == state.error
    # A certificate that cannot be read: the names the tables use are unknown, so nothing is
    # issued (a certificate for loopback alone would lock every table out).
    files2 = ensure_venue_tls(tmp_path / "tls2", hosts=["hub.local"], now=t0)
    files2.cert.write_text("not a certificate")
    state = CertificateKeeper(files2.dir).check()
    assert state.renewed == () and state.error is not None and "cannot be read" in state.error
    assert files2.cert.read_text() == "not a certificate"


def tls_socket_serial(port: int, ca: str) -> int:
    """The serial of the certificate a TLS server on loopback presents to the table's context."""
    from cryptography import x509

    with (
        socket.create_connection(("127.0.0.1", port), timeout=5) as raw,
        tls_context(ca).wrap_socket(raw, server_hostname="127.0.0.1") as s,
    ):
        der = s.getpeercert(binary_form=True)
    assert der is not None
    return x509.load_der_x509_certificate(der).serial_number


def test_mosquitto_serves_the_renewed_certificate_after_a_reload_and_a_table_reconnects(
    tmp_path: Path,
) -> None:
    """The broker's certificate has ended (the venue 27 months on): a table that trusts only
    the venue CA is refused at every retry. The hub's check renews it and reloads Mosquitto
    (SIGHUP, no restart); the same table client, retrying on its own, is let in, and is
    served the renewed certificate."""
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    t0 = dt.datetime.now(dt.UTC) - dt.timedelta(days=CERT_DAYS + 5)
    files = ensure_venue_tls(tmp_path / "tls", hosts=["hub.local"], now=t0)
    ca = files.ca.read_text()
    broker = start_venue_broker(tmp_path / "broker", files.dir)
    try:
        assert broker.tls_port is not None and broker.proc is not None
        pid = broker.proc.pid
        expired = try_connect(broker.tls_port, "t5", table_password("t5"), ca=ca)
        assert isinstance(expired, ssl.SSLCertVerificationError), expired
        assert "expired" in str(expired)

        connected = threading.Event()
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="t6", protocol=mqtt.MQTTv5)
        c.username_pw_set("t6", table_password("t6"))
        c.tls_set_context(tls_context(ca))  # the table's own TLS: the venue CA alone
        c.reconnect_delay_set(1, 1)
        c.on_connect = lambda cl, ud, fl, reason, pr: None if reason.is_failure else connected.set()
        c.connect_async("127.0.0.1", broker.tls_port, keepalive=5)
        c.loop_start()
        try:
            assert not connected.wait(2.5)  # refused at every try while the certificate is old
            state = CertificateKeeper(
                files.dir, reload_broker=lambda: broker.reload() is None
            ).check()
            assert state.renewed == ("broker",) and state.error is None
            assert connected.wait(10), "the table did not get in after the reload"
            assert broker.proc.pid == pid  # reloaded, not restarted
            assert tls_socket_serial(broker.tls_port, ca) == serial(files.cert)
        finally:
            c.disconnect()
            c.loop_stop()
        assert ok(try_connect(broker.tls_port, "t5", table_password("t5"), ca=ca))
    finally:
        broker.stop()


def test_the_dashboard_serves_the_renewed_certificate_without_a_restart(tmp_path: Path) -> None:
    from mesa.hub.ingest.app import Hub
    from mesa.hub.settings import HubSettings
    from mesa.hub.web.app import WebApp
    from mesa.hub.web.http.server import BackgroundServer

    t0 = dt.datetime.now(dt.UTC) - dt.timedelta(days=CERT_DAYS - 20)
    files = ensure_venue_tls(tmp_path / "tls", hosts=["hub.local"], now=t0)
    web_cert, web_key = files.dir / "web.pem", files.dir / "web.key"
    web_cert.write_bytes(files.cert.read_bytes())
    web_key.write_bytes(files.key.read_bytes())
    settings = HubSettings(db=tmp_path / "hub.sqlite3", tls_cert=web_cert, tls_key=web_key)
    hub = Hub(settings)
    web = WebApp(hub, settings)
    server = BackgroundServer(
        web, "127.0.0.1", 0, tls={"ssl_certfile": str(web_cert), "ssl_keyfile": str(web_key)}
    ).start()
    try:
        port = int(server.url.rstrip("/").rsplit(":", 1)[1])
        old = tls_socket_serial(port, files.ca.read_text())
        keeper = CertificateKeeper(
            files.dir,
            web_cert=web_cert,
            web_key=web_key,
            reload_web=lambda: server.reload_tls(web_cert, web_key),
        )
        assert keeper.check().renewed == ("broker", "dashboard")
        new = tls_socket_serial(port, files.ca.read_text())
        assert new != old and new == serial(web_cert) == serial(files.cert)
    finally:
        server.stop()
        web.close()
        hub.close()


def test_the_reload_unit_watches_the_certificate_the_hub_renews() -> None:
    """Production: the hub may not signal the system's Mosquitto; mesa-tls.path (root) reloads
    it when the hub writes a new server.pem."""
    root = Path(__file__).resolve().parents[3] / "systemd"
    path_unit = (root / "mesa-tls.path").read_text()
    assert f"PathChanged={TlsFiles.in_dir(DEFAULT_TLS_DIR).cert}\n" in path_unit
    assert "ExecStart=/bin/systemctl reload mosquitto.service" in (
        root / "mesa-tls.service"
    ).read_text()
