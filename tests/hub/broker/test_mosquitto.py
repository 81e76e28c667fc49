"""The broker's configuration: the production files, passwords, and the embedded-broker choice."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from mesa.hub.broker.mosquitto import (
    CORE_SETTINGS,
    PrivateMosquitto,
    acl_text,
    free_port,
    hash_password,
)
from support.mosquitto import have_mosquitto

ROOT = Path(__file__).resolve().parents[3]
PROD = ROOT / "systemd" / "mosquitto"


def conf_values(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition(" ")
            out.setdefault(key, value)
    return out


def test_production_config_has_the_core_settings() -> None:
    values = conf_values((PROD / "mosquitto.conf").read_text())
    for key, value in CORE_SETTINGS.items():
        assert values.get(key) == value, key
    assert values["password_file"] and values["acl_file"]


def test_production_acl_is_the_generated_one() -> None:
    assert (PROD / "acl").read_text() == acl_text()


def test_password_hash_is_mosquittos() -> None:
    h = hash_password("s3cret", salt=bytes(range(12)))
    assert re.fullmatch(r"\$7\$101\$[A-Za-z0-9+/=]{16}\$[A-Za-z0-9+/=]{88}", h)


def connect(port: int, user: str, password: str) -> object:
    result: dict[str, object] = {}
    done = threading.Event()
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=user, protocol=mqtt.MQTTv5)
    c.username_pw_set(user, password)

    def on_connect(
        client: object, ud: object, flags: object, reason: object, props: object
    ) -> None:
        result["reason"] = reason
        done.set()

    c.on_connect = on_connect
    try:
        c.connect("127.0.0.1", port, keepalive=5)
    except OSError as e:
        return e
    c.loop_start()
    done.wait(5)
    c.disconnect()
    c.loop_stop()
    return result.get("reason")


@pytest.mark.broker
def test_production_config_runs_on_a_real_mosquitto(tmp_path: Path) -> None:
    """The production file, with its paths moved into a temporary folder, starts and enforces
    passwords written by our own hashing."""
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    broker = PrivateMosquitto(tmp_path, users={"7": "pw7"})
    broker._write_config()
    port = free_port()
    text = (PROD / "mosquitto.conf").read_text()
    text = text.replace("listener 1883", f"listener {port} 127.0.0.1")
    text = text.replace("/run/mosquitto/mosquitto.pid", str(tmp_path / "pid"))
    text = text.replace("/var/lib/mosquitto/", f"{tmp_path}/data/")
    text = text.replace("/var/log/mosquitto/mosquitto.log", str(tmp_path / "log"))
    text = text.replace("/etc/mosquitto/mesa.passwd", str(broker.passwd))
    text = text.replace("/etc/mosquitto/mesa.acl", str(PROD / "acl"))
    import os

    if os.geteuid() == 0:
        text += "user root\n"
    broker.conf.write_text(text)
    broker.port = port
    broker._write_config = lambda: None  # type: ignore[method-assign]
    broker.start()
    try:
        ok = connect(port, "7", "pw7")
        bad = connect(port, "7", "nope")
        assert ok is not None and not ok.is_failure  # type: ignore[attr-defined]
        assert bad is not None and bad.is_failure  # type: ignore[attr-defined]
    finally:
        broker.stop()
