"""``mesa install hub`` and ``mesa install table`` into a folder: every file in place, the
services enabled, a second run changes nothing, and systemd accepts the units."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mesa.cli import main
from mesa.hub.broker.mosquitto import production_conf
from mesa.hub.broker.tls import server_names

ROOT = Path(__file__).resolve().parents[1]


def tree(root: Path) -> dict[str, bytes | str]:
    """Every file's content and every symlink's target under ``root``."""
    out: dict[str, bytes | str] = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = os.readlink(p)
        elif p.is_file():
            out[rel] = p.read_bytes()
    return out


def verify_units(root: Path, units: list[str]) -> None:
    """``systemd-analyze verify`` on the installed units (the mesa path made this venv's)."""
    analyze = shutil.which("systemd-analyze")
    assert analyze is not None, "systemd-analyze is missing: apt-get install -y systemd"
    mesa_bin = Path(sys.executable).with_name("mesa")
    work = root.parent / f"{root.name}-verify"
    work.mkdir(exist_ok=True)
    paths = []
    for unit in units:
        text = (root / "etc/systemd/system" / unit).read_text()
        local = work / unit
        local.write_text(text.replace("/opt/mesa/.venv/bin/mesa", str(mesa_bin)))
        paths.append(str(local))
    r = subprocess.run([analyze, "verify", *paths], capture_output=True, text=True, timeout=120)
    problems = [x for x in (r.stdout + r.stderr).splitlines() if any(u in x for u in units)]
    assert r.returncode == 0 and not problems, r.stdout + r.stderr


def test_install_hub_into_a_folder_twice(tmp_path: Path) -> None:
    root = tmp_path / "hub"
    args = ["install", "hub", "--root", str(root), "--hub-host", "mesa-hub.local"]
    assert main(args) == 0
    first = tree(root)
    for rel in (
        "etc/systemd/system/mesa-hub.service",
        "etc/systemd/system/mesa-accounts.path",
        "etc/systemd/system/mesa-accounts.service",
        "etc/systemd/system/mesa-backup.service",
        "etc/systemd/system/mesa-backup.timer",
        "etc/systemd/system/mesa-tls.path",
        "etc/systemd/system/mesa-tls.service",
        "etc/sysusers.d/mesa-hub.conf",
        "etc/mosquitto/conf.d/mesa.conf",
        "etc/mosquitto/mesa.acl",
        "etc/mosquitto/mesa.passwd",
        "etc/mesa/hub-credentials.json",
        "etc/mesa/enrol.json",
        "etc/mesa/enrolment.json",
        "etc/mesa/tls/ca.pem",
        "etc/mesa/tls/server.pem",
        "etc/mesa/tls/web.pem",
    ):
        assert rel in first, rel
    wants = "etc/systemd/system/multi-user.target.wants"
    assert first[f"{wants}/mesa-hub.service"] == "/etc/systemd/system/mesa-hub.service"
    assert "etc/systemd/system/paths.target.wants/mesa-accounts.path" in first
    assert not any("mesa-enrolment.service" in rel for rel in first)  # inside mesa hub now
    assert "MESA_HUB_ENROLMENT_CREDENTIALS=/etc/mesa/enrolment.json" in str(
        first["etc/systemd/system/mesa-hub.service"]
    )
    assert (root / "var/lib/mesa/accounts").is_dir()
    assert "etc/systemd/system/timers.target.wants/mesa-backup.timer" in first
    # A certificate the hub renews makes the system's Mosquitto reload it.
    assert "etc/systemd/system/paths.target.wants/mesa-tls.path" in first
    assert first["etc/mosquitto/conf.d/mesa.conf"] == production_conf().encode()
    assert (ROOT / "systemd/mosquitto/mesa.conf").read_bytes() == production_conf().encode()
    passwd = str(first["etc/mosquitto/mesa.passwd"])
    assert "mesa-hub:$7$" in passwd and "mesa-enrolment:$7$" in passwd
    # No enrolment listener, no shared account: new tables call the dashboard over HTTPS.
    assert not any("mesa-enrol." in rel for rel in first)
    assert "mesa-enrol:" not in passwd
    bundle = json.loads(first["etc/mesa/enrol.json"])
    # The dashboard's port as mesa-hub.service gives it.
    assert "Environment=MESA_WEB_PORT=8080" in str(first["etc/systemd/system/mesa-hub.service"])
    assert set(bundle["hub"]) == {"url", "token", "tls_ca"}
    assert bundle["hub"]["url"] == "https://mesa-hub.local:8080"
    assert bundle["hub"]["tls_ca"] == (root / "etc/mesa/tls/ca.pem").read_text()
    desk = json.loads(first["etc/mesa/enrolment.json"])
    assert desk["enrol_token"] == bundle["hub"]["token"]  # what the hub checks a call against
    assert len(desk["enrol_token"]) >= 32
    assert desk["passwd_file"] == "/etc/mosquitto/mesa.passwd"  # as the hub will see it
    assert desk["accounts_dir"] == "/var/lib/mesa/accounts"  # the hub queues, root applies
    assert "mesa-hub.local" in server_names(root / "etc/mesa/tls/server.pem")
    for secret in ("etc/mesa/tls/ca.key", "etc/mesa/hub-credentials.json", "etc/mesa/enrol.json"):
        assert (root / secret).stat().st_mode & 0o077 == 0, secret
    # Idempotent: the second run keeps every password, key and certificate.
    assert main(args) == 0
    assert tree(root) == first
    verify_units(
        root,
        [
            "mesa-hub.service",
            "mesa-accounts.path",
            "mesa-accounts.service",
            "mesa-backup.service",
            "mesa-backup.timer",
            "mesa-tls.path",
            "mesa-tls.service",
        ],
    )


def test_install_hub_retires_the_separate_enrolment_desk(tmp_path: Path) -> None:
    """A hub installed by an earlier version had mesa-enrolment.service (root) and a desk
    settings file without a queue: the upgrade removes the unit and adds the queue."""
    root = tmp_path / "hub"
    args = ["install", "hub", "--root", str(root), "--hub-host", "mesa-hub.local"]
    assert main(args) == 0
    desk_file = root / "etc/mesa/enrolment.json"
    old = json.loads(desk_file.read_text())
    del old["accounts_dir"]
    desk_file.write_text(json.dumps(old))
    units = root / "etc/systemd/system"
    (units / "mesa-enrolment.service").write_text("[Service]\nExecStart=/bin/true\n")
    (units / "multi-user.target.wants/mesa-enrolment.service").symlink_to(
        "/etc/systemd/system/mesa-enrolment.service"
    )
    assert main(args) == 0
    assert not (units / "mesa-enrolment.service").exists()
    assert not (units / "multi-user.target.wants/mesa-enrolment.service").is_symlink()
    desk = json.loads(desk_file.read_text())
    assert desk["accounts_dir"] == "/var/lib/mesa/accounts"
    assert desk["desk_password"] == old["desk_password"]  # kept


def test_install_hub_over_a_release_with_the_enrolment_listener(tmp_path: Path) -> None:
    """An earlier release had the broker's enrolment listener (port 8884, `log_dest topic`),
    its shared account and ACL, a bundle naming them and a desk file without a token: the
    install rewrites mesa.conf without the listener, removes its files, gives the desk a token
    and writes the new bundle; the desk's own account is kept."""
    root = tmp_path / "hub"
    args = ["install", "hub", "--root", str(root), "--hub-host", "mesa-hub.local"]
    assert main(args) == 0
    conf = root / "etc/mosquitto/conf.d/mesa.conf"
    conf.write_text(conf.read_text() + "log_dest topic\nlistener 8884\n"
                    "password_file /etc/mosquitto/mesa-enrol.passwd\n"
                    "acl_file /etc/mosquitto/mesa-enrol.acl\n")
    (root / "etc/mosquitto/mesa-enrol.acl").write_text("user mesa-enrol\n")
    (root / "etc/mosquitto/mesa-enrol.passwd").write_text("mesa-enrol:$7$x\n")
    old_bundle = {"hub": {"host": "mesa-hub.local", "port": 8884, "username": "mesa-enrol",
                          "password": "p", "tls_ca": "PEM"}}
    (root / "etc/mesa/enrol.json").write_text(json.dumps(old_bundle))
    desk_file = root / "etc/mesa/enrolment.json"
    old = json.loads(desk_file.read_text())
    del old["enrol_token"]
    desk_file.write_text(json.dumps(old))
    assert main(args) == 0
    text = conf.read_text()
    assert "8884" not in text and "log_dest topic" not in text and "mesa-enrol" not in text
    assert not (root / "etc/mosquitto/mesa-enrol.acl").exists()
    assert not (root / "etc/mosquitto/mesa-enrol.passwd").exists()
    desk = json.loads(desk_file.read_text())
    bundle = json.loads((root / "etc/mesa/enrol.json").read_text())
    assert desk["enrol_token"] and bundle["hub"]["token"] == desk["enrol_token"]
    assert bundle["hub"]["url"] == "https://mesa-hub.local:8080"
    assert desk["desk_password"] == old["desk_password"]


def test_install_table_into_a_folder_twice(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    assert main(["install", "hub", "--root", str(hub), "--hub-host", "mesa-hub.local"]) == 0
    root = tmp_path / "pi"
    args = ["install", "table", "--root", str(root), "--bundle", str(hub / "etc/mesa/enrol.json")]
    assert main(args) == 0
    first = tree(root)
    for rel in (
        "etc/systemd/system/mesa-table.service",
        "etc/systemd/system/mesa-enrol.service",
        "etc/sysusers.d/mesa-table.conf",
        "etc/mesa/table.toml",
        "etc/mesa/enrol.json",
    ):
        assert rel in first, rel
    wants = "etc/systemd/system/multi-user.target.wants"
    assert first[f"{wants}/mesa-table.service"] == "/etc/systemd/system/mesa-table.service"
    assert first[f"{wants}/mesa-enrol.service"] == "/etc/systemd/system/mesa-enrol.service"
    assert first["etc/mesa/enrol.json"] == (hub / "etc/mesa/enrol.json").read_bytes()
    assert (root / "var/lib/mesa").is_dir()
    # A table.toml edited on the Pi is kept.
    (root / "etc/mesa/table.toml").write_text(
        (root / "etc/mesa/table.toml").read_text() + "\n# mine\n"
    )
    edited = tree(root)
    assert main(args) == 0
    assert tree(root) == edited
    verify_units(root, ["mesa-table.service", "mesa-enrol.service"])


def test_install_table_without_a_bundle_says_what_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["install", "table", "--root", str(tmp_path)]) == 0
    assert "--bundle" in capsys.readouterr().out


def test_install_says_each_step_as_it_begins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A volunteer on a Pi sees where the installation is, not only a summary at its end."""
    assert main(["install", "hub", "--root", str(tmp_path / "hub"), "--hub-host", "h.local"]) == 0
    out = capsys.readouterr().out.splitlines()
    steps = [line for line in out if line.startswith("mesa install hub: [")]
    assert len(steps) >= 4 and steps[0].startswith("mesa install hub: [1] ")
    assert out.index(steps[-1]) < out.index(next(ln for ln in out if "written" in ln))
    assert main(["install", "table", "--root", str(tmp_path / "table")]) == 0
    assert "mesa install table: [1] " in capsys.readouterr().out
