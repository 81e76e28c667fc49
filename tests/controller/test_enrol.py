"""The table's side of adoption, without a broker: serials, its key, sealed answers, the saved
link file, and the code on its screen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mesa.controller.config import load_config
from mesa.controller.enrol import (
    EnrolBundle,
    _enrol,
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
    path.write_text(
        json.dumps({"hub": {"host": "h", "port": 8884, "username": "mesa-enrol", "password": "p"}})
    )
    assert EnrolBundle.from_file(path) == EnrolBundle("h", 8884, "mesa-enrol", "p", None)
    path.write_text("{}")
    with pytest.raises(ConfigError):
        EnrolBundle.from_file(path)


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
    bundle.write_text(
        json.dumps({"hub": {"host": "127.0.0.1", "port": 1, "username": "u", "password": "p"}})
    )
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
