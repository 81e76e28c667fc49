"""TLS on the venue's network, against a real Mosquitto with the venue's own certificates."""

from __future__ import annotations

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
from mesa.hub.broker.tls import TlsFiles, ensure_venue_tls, server_names
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
