"""The venue's hub as installed: ``systemd/mesa-hub.service``'s own ``ExecStart`` line, with its
environment, started as a real process against a real Mosquitto, a real table process and a real
SQLite file. The dashboard answers, and a match the table plays reaches the group standings by
itself (the desk hands the match to the free table; the table's result is folded in).

Only the installation's paths are substituted: the venv's ``mesa`` for ``/opt/mesa/.venv``, a
temp database and working directory, the test broker's port and the hub's credentials for it, a
free loopback port for the dashboard.
"""

from __future__ import annotations

import json
import os
import shlex
import ssl
import sys
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from mesa.hub.broker.mosquitto import PrivateMosquitto, free_port
from mesa.hub.broker.tls import ensure_venue_tls
from mesa.hub.desk.games.backgammon import TournamentDesk
from mesa.protocol import HUB_USERNAME
from support.harness import Process, sim_table, wait_until
from support.mosquitto import HUB_PASSWORD, have_mosquitto, start_broker

pytestmark = pytest.mark.broker

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "mesa-hub.service"
TABLE = "u1"
PLAYERS = ("ALBA", "BRUNO", "CARMEN", "DIEGO")


def read_unit(path: Path) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """The ``[Service]`` section: ExecStart as argv, Environment= as a dict, other keys."""
    argv: list[str] = []
    env: dict[str, str] = {}
    keys: dict[str, str] = {}
    section = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
            continue
        if section != "[Service]":
            continue
        key, _, value = line.partition("=")
        if key == "ExecStart":
            argv = shlex.split(value)
        elif key == "Environment":
            name, _, val = value.partition("=")
            env[name] = val
        else:
            keys[key] = value
    return argv, env, keys


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[PrivateMosquitto]:
    """A broker of this test's own (no retained messages of other tests)."""
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    b = start_broker(tmp_path / "broker", tables=(TABLE,))
    yield b
    b.stop()


def prepare_tournament(db: Path) -> None:
    """A tournament with its groups drawn, in the hub's database, before the hub starts."""
    desk = TournamentDesk(db)

    def run(club: Any, now: datetime) -> None:
        club.create_tournament("2025-03", "Marzo", date(2025, 3, 1))
        for name in PLAYERS:
            club.register("2025-03", club.registry.add_new(name).id, now=now)
        club.start("2025-03", seed=7, now=now)

    try:
        desk.call(run)
    finally:
        desk.close()


def played(url: str, verify: ssl.SSLContext) -> int:
    """Matches played, summed over the group standings the dashboard shows."""
    try:
        groups = httpx.get(url + "groups.json", timeout=5, verify=verify).json()["groups"]
    except (httpx.HTTPError, ValueError, KeyError):
        return 0
    return sum(row["played"] for g in groups for row in g["rows"])


def test_the_units_exec_start_runs_ingest_desk_and_dashboard(
    tmp_path: Path, broker: PrivateMosquitto
) -> None:
    argv, env, keys = read_unit(UNIT)
    assert argv[:2] == ["/opt/mesa/.venv/bin/mesa", "hub"], argv
    assert keys["KillSignal"] == "SIGTERM"
    # What the installation points at, swapped for this test's own.
    db = tmp_path / "hub.sqlite3"
    credentials = tmp_path / "hub-credentials.json"
    credentials.write_text(json.dumps({"username": HUB_USERNAME, "password": HUB_PASSWORD}))
    web_port = free_port()
    tls = ensure_venue_tls(tmp_path / "tls", hosts=["localhost", "127.0.0.1"])
    trusted = ssl.create_default_context(cafile=str(tls.ca))
    swaps = {
        "MESA_HUB_DB": str(db),
        "MESA_HUB_BROKER_HOST": broker.host,
        "MESA_HUB_BROKER_PORT": str(broker.port),
        "MESA_HUB_CREDENTIALS": str(credentials),
        "MESA_WEB_HOST": "127.0.0.1",
        "MESA_WEB_PORT": str(web_port),
        # The venue's certificate, as `mesa install hub` puts it: the dashboard is HTTPS.
        "MESA_HUB_TLS_CERT": str(tls.cert),
        "MESA_HUB_TLS_KEY": str(tls.key),
        "MESA_HUB_TLS_DIR": str(tls.dir),  # checked at start: nothing near its end to renew
        "MESA_HUB_BACKUP_DIR": str(tmp_path / "backups"),
    }
    assert set(swaps) <= set(env), set(swaps) - set(env)  # the unit sets each of them
    unit_env = {**env, **swaps}
    workdir = tmp_path / "state"  # WorkingDirectory= / StateDirectory=
    workdir.mkdir()
    assert keys["WorkingDirectory"] == "/var/lib/mesa"
    mesa = Path(sys.executable).parent / "mesa"
    command = [str(mesa), *argv[1:]]
    prepare_tournament(db)

    base = {k: v for k, v in os.environ.items() if not k.startswith("MESA_")}
    hub = Process(command, tmp_path / "hub.log", env={**base, **unit_env}, cwd=workdir)
    procs: list[Process] = []
    try:
        hub.start()
        url = f"https://localhost:{web_port}/"

        def healthy() -> bool:
            try:
                r = httpx.get(url + "healthz", timeout=2, verify=trusted)
            except httpx.HTTPError:
                return False
            return r.status_code == 200 and r.json()["hub_online"] is True

        assert wait_until(healthy, timeout=30), (tmp_path / "hub.log").read_text()
        page = httpx.get(url + "groups", timeout=5, verify=trusted)
        assert page.status_code == 200 and "ALBA" in page.text
        assert played(url, trusted) == 0

        # A table comes online; the desk gives it a ready match; its players play it out.
        table = sim_table(TABLE, tmp_path / "u1.sqlite3", broker.port, tmp_path / "u1.log")
        procs.append(table.start())
        assert wait_until(lambda: played(url, trusted) >= 2, timeout=120), (
            tmp_path / "hub.log"
        ).read_text()[-3000:] + (tmp_path / "u1.log").read_text()[-2000:]
        matches = [
            m
            for g in httpx.get(url + "groups.json", timeout=5, verify=trusted).json()["groups"]
            for m in g["matches"]
            if m["score"] is not None
        ]
        assert len(matches) == 1 and matches[0]["table"] == TABLE
        live = httpx.get(url + "live.json", timeout=5, verify=trusted).json()
        assert [c["id"] for c in live["tables"]] == [TABLE]
        assert hub.terminate(20) == 0  # SIGTERM, as systemd stops it
    finally:
        for p in procs:
            p.kill9()
        hub.kill9()


def test_provision_table_writes_its_password_file_under_var_not_into_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``mesa provision-table N`` without ``--out`` once wrote ``table-N.json`` (with its
    password) into the checkout, which git did not ignore."""
    from mesa.cli import main

    monkeypatch.chdir(tmp_path)
    rc = main(["provision-table", "7", "--hub-host", "127.0.0.1", "--passwd",
               str(tmp_path / "passwd"), "--no-reload", "--tls-dir", str(tmp_path / "tls")])
    assert rc == 0
    out = tmp_path / "var" / "tables" / "table-7.json"
    assert oct(out.stat().st_mode & 0o777) == "0o600"
    assert not list(tmp_path.glob("table-*.json"))
    ignored = (Path(__file__).parents[2] / ".gitignore").read_text().split()
    assert "/var/" in ignored and "/table-*.json" in ignored
