"""The table's side of adoption, without a broker: serials, answers, the saved link file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mesa.controller.config import load_config
from mesa.controller.enrol import (
    EnrolBundle,
    check_answer,
    pi_serial,
    save_link,
    with_link_table,
)
from mesa.errors import ConfigError

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
