"""The broker's configuration: the production files, passwords, and the embedded-broker choice."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from mesa.hub.broker.mosquitto import (
    CORE_SETTINGS,
    BrokerPaths,
    PrivateMosquitto,
    acl_text,
    free_port,
    hash_password,
    production_conf,
)
from mesa.hub.broker.tls import ensure_venue_tls
from support.mosquitto import have_mosquitto

ROOT = Path(__file__).resolve().parents[3]
PROD = ROOT / "systemd" / "mosquitto"


def conf_values(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition(" ")
            out.setdefault(key, value)
    return out


def test_production_config_is_the_generated_one() -> None:
    text = (PROD / "mesa.conf").read_text()
    assert text == production_conf()
    values = conf_values(text)
    for key, value in CORE_SETTINGS.items():
        assert values.get(key) == value, key
    # Plain MQTT only on loopback; the venue network gets TLS only.
    listeners = [ln for ln in text.splitlines() if ln.startswith("listener ")]
    assert listeners == ["listener 1883 127.0.0.1", "listener 8883"]
    # New tables call the dashboard over HTTPS: no listener for a shared account, no broker
    # log on a topic (docs/broker.md, "Adopting a table").
    assert "8884" not in text and "log_dest topic" not in text and "mesa-enrol." not in text


def test_production_acls_are_the_generated_ones() -> None:
    assert (PROD / "acl").read_text() == acl_text()
    assert not (PROD / "enrol.acl").exists()
    # The desk only reads the tables' statuses; nothing reads the broker's log.
    desk = acl_text().split("user mesa-enrolment\n", 1)[1].split("\n\n", 1)[0]
    assert desk.strip() == "topic read mesa/v1/table/+/status"
    assert "$SYS" not in acl_text()


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
    """The generated conf.d file, its paths moved into a temporary folder, included from a main
    file like Debian's: it starts, enforces our passwords on loopback and TLS on the LAN port."""
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    broker = PrivateMosquitto(tmp_path, users={"7": "pw7"})
    broker._write_config()
    paths = BrokerPaths(
        passwd=broker.passwd,
        acl=PROD / "acl",
        tls_dir=tmp_path / "tls",
    )
    ensure_venue_tls(paths.tls_dir)
    local, lan = free_port(), free_port()
    confd = tmp_path / "conf.d"
    confd.mkdir()
    (confd / "mesa.conf").write_text(
        production_conf(paths, local_port=local, lan_port=lan, lan_host="127.0.0.1")
    )
    main = [
        f"pid_file {tmp_path / 'pid'}",
        "persistence true",
        f"persistence_location {tmp_path}/data/",
        f"log_dest file {broker.log}",
        f"include_dir {confd}",
    ]
    if os.geteuid() == 0:
        main.append("user root")
    broker.conf.write_text("\n".join(main) + "\n")
    broker.port = local
    broker._write_config = lambda: None  # type: ignore[method-assign]
    broker.start()
    try:
        ok = connect(local, "7", "pw7")
        bad = connect(local, "7", "nope")
        plain_on_lan = connect(lan, "7", "pw7")
        assert ok is not None and not ok.is_failure  # type: ignore[attr-defined]
        assert bad is not None and bad.is_failure  # type: ignore[attr-defined]
        assert plain_on_lan is None or isinstance(plain_on_lan, OSError) or plain_on_lan.is_failure  # type: ignore[attr-defined]
    finally:
        broker.stop()


# ── the private broker dies with the process that started it ─────────────────
CHILD = """
import os, sys, threading, time
from mesa.hub.broker.mosquitto import PrivateMosquitto

broker = PrivateMosquitto(sys.argv[1])
if sys.argv[2] == "thread":
    # A thread that ends right away: prctl(PR_SET_PDEATHSIG) would kill the broker with it.
    worker = threading.Thread(target=broker.start)
    worker.start()
    worker.join()
else:
    broker.start()
forked = 0
if sys.argv[2] == "fork":
    # A bare fork (multiprocessing's way) that outlives us must not keep the broker alive.
    forked = os.fork()
    if forked == 0:
        time.sleep(600)
        os._exit(0)
print(broker.proc.pid, broker.port, broker._watcher.proc.pid, forked, flush=True)
time.sleep(600)
"""


def process_gone(pid: int) -> bool:
    """Gone, or a zombie waiting for a reaper (it holds no port and runs no code)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    return state in ("Z", "X")


def port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.mark.broker
@pytest.mark.parametrize("started_from", ["main", "thread", "fork"])
def test_the_private_broker_dies_when_its_parent_is_killed(
    tmp_path: Path, started_from: str
) -> None:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path), started_from],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    mosquitto_pid = forked = 0
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line, f"the child exited with {child.wait(10)}"
        mosquitto_pid, port, watcher_pid, forked = map(int, line.split())
        # Alive and serving, also once the thread that started it has ended.
        time.sleep(0.3)
        assert not process_gone(mosquitto_pid) and not port_free(port)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        assert wait_for(lambda: process_gone(mosquitto_pid), 5.0), "mosquitto outlived its parent"
        assert wait_for(lambda: port_free(port), 5.0), f"port {port} still held"
        assert wait_for(lambda: process_gone(watcher_pid), 5.0), "the watcher outlived its job"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
        for pid in (mosquitto_pid, forked):
            if pid and not process_gone(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.broker
def test_stop_and_kill_end_the_watcher_too(tmp_path: Path) -> None:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    broker = PrivateMosquitto(tmp_path).start()
    watcher = broker._watcher
    assert watcher is not None and watcher.proc.poll() is None
    broker.kill()
    assert watcher.proc.poll() is not None and broker._watcher is None
    broker.restart()
    try:
        watcher = broker._watcher
        assert watcher is not None and watcher.proc.poll() is None
    finally:
        broker.stop()
    assert watcher.proc.poll() is not None and broker._watcher is None
