"""The hub as one object: restart from its store, refusals, the embedded broker, provisioning."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from mesa.cli import main
from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.games.backgammon.inputs import parse_input
from mesa.games.backgammon.machine import Table
from mesa.hub.broker.mosquitto import PrivateMosquitto, free_port
from mesa.hub.broker.provision import reload_broker
from mesa.hub.ingest.app import Hub, UnknownTableError
from mesa.hub.settings import SETTINGS, HubSettings
from mesa.protocol import ProtocolError
from support.checker import check
from support.harness import ASSIGN_ARGS, hub_settings, wait_until
from support.mosquitto import have_mosquitto, table_password
from support.tables import SimRuntime, next_input

ROOT = Path(__file__).resolve().parents[3]


def linked_table(settings: LinkSettings, path: Path) -> tuple[SimRuntime, Outbox, TableLink]:
    outbox = Outbox(path, settings.table)
    runtime = SimRuntime(Table())
    link = TableLink(settings, outbox, runtime, clock=runtime.clock)
    runtime.sinks.append(link)
    link.start()
    runtime.apply(parse_input("assign", ASSIGN_ARGS), 0.0)
    return runtime, outbox, link


def play_some(runtime: SimRuntime, rng: random.Random, n: int) -> None:
    for _ in range(n):
        step = next_input(runtime.table, rng, 0)
        if step is None:
            return
        runtime.now += rng.uniform(1, 8)
        runtime.apply(parse_input(*step), runtime.now)


@pytest.mark.broker
def test_the_hub_restarts_from_its_store_with_nothing_lost(
    tmp_path: Path, mosquitto: PrivateMosquitto
) -> None:
    mosquitto.add_user("ap1", table_password("ap1"))
    db = tmp_path / "hub.sqlite3"
    hub = Hub(hub_settings(db, mosquitto)).start()
    runtime, outbox, link = linked_table(
        LinkSettings(table="ap1", port=mosquitto.port, password=table_password("ap1")),
        tmp_path / "ap1.sqlite3",
    )
    rng = random.Random(5)
    try:
        play_some(runtime, rng, 40)
        assert wait_until(lambda: link.flush(1) and outbox.pending == 0, 15)
        before = hub.table("ap1")
        hub.stop()
        play_some(runtime, rng, 40)  # the hub is away: the table plays on
        assert link.flush(5) and outbox.pending > 0
        hub = Hub(hub_settings(db, mosquitto))
        assert hub.table("ap1")["events"] == before["events"]  # projections rebuilt from the store
        hub.start()
        assert wait_until(lambda: outbox.pending == 0, 20), outbox.pending
        assert hub.table("ap1")["events"] == outbox.last_seq
    finally:
        link.stop()
        outbox.close()
        hub.stop()
    report = check([tmp_path / "ap1.sqlite3"], db)
    assert report.ok and report.sent == report.stored, report.summary()


def test_commands_for_unknown_tables_are_refused(tmp_path: Path) -> None:
    hub = Hub(HubSettings(db=tmp_path / "hub.sqlite3"))
    try:
        for table in ("9", "../x"):
            with pytest.raises(UnknownTableError):
                hub.command(table, "director_pause")
            with pytest.raises(UnknownTableError):
                hub.assign(table, ASSIGN_ARGS)
        assert hub.metrics.get("refused", reason="unknown_table") == 4
        assert hub.store.commands() == [] and hub.store.tables() == []
        hub.register_table("9")
        with pytest.raises(ProtocolError):
            hub.command("9", "press", {"side": "a"})  # not a hub command
        assert hub.metrics.get("refused", reason="bad_input") == 1
        assert hub.store.commands() == []
    finally:
        hub.close()


@pytest.mark.broker
def test_embedded_broker_and_one_command_provisioning(tmp_path: Path) -> None:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    broker_dir = tmp_path / "broker"
    settings = HubSettings(
        db=tmp_path / "hub.sqlite3",
        embedded_broker=True,
        broker_dir=broker_dir,
        broker_port=free_port(),
    )
    hub = Hub(settings).start()
    link = None
    try:
        assert hub.broker is not None and hub.online
        out = tmp_path / "table-5.json"
        rc = main(
            [
                "provision-table",
                "5",
                "--hub-host",
                "127.0.0.1",
                "--hub-port",
                str(hub.broker.port),
                "--passwd",
                str(broker_dir / "passwd"),
                "--out",
                str(out),
                "--pid-file",
                str(broker_dir / "mosquitto.pid"),
            ]
        )
        assert rc == 0 and oct(out.stat().st_mode & 0o777) == "0o600"
        assert json.loads(out.read_text())["hub"]["username"] == "5"
        hub.register_table("5")
        _, outbox, link = linked_table(LinkSettings.from_file(out), tmp_path / "5.sqlite3")
        assert wait_until(lambda: outbox.pending == 0 and outbox.last_seq > 0, 15)
        assert hub.table("5")["match_id"] == "M1"
    finally:
        if link is not None:
            link.stop()
            link.outbox.close()
        hub.stop()
    assert not reload_broker(broker_dir / "mosquitto.pid")  # stopped with the hub


def test_every_setting_is_documented() -> None:
    """The hub process has one list: MESA_HUB_* in broker.md, MESA_WEB_* in dashboard.md."""
    broker = (ROOT / "docs" / "broker.md").read_text()
    dashboard = (ROOT / "docs" / "dashboard.md").read_text()
    for s in SETTINGS:
        doc = broker if s.env.startswith("MESA_HUB_") else dashboard
        assert f"| `{s.name}` | `{s.env}` |" in doc, s.name
    assert set(HubSettings().as_dict()) == {s.name for s in SETTINGS}
    assert {s.env[: len("MESA_HUB_")] for s in SETTINGS} == {"MESA_HUB_", "MESA_WEB_"}


def test_provision_hub_writes_credentials_the_hub_reads(tmp_path: Path) -> None:
    out = tmp_path / "hub.json"
    rc = main(
        ["provision-hub", "--passwd", str(tmp_path / "passwd"), "--out", str(out), "--no-reload"]
    )
    assert rc == 0
    settings = HubSettings.from_env({"MESA_HUB_CREDENTIALS": str(out)})
    assert settings.username == "mesa-hub" and settings.password
    assert (tmp_path / "passwd").read_text().startswith("mesa-hub:$7$")
