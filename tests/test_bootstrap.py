"""tools/bootstrap.py against a fake apt-get and a fake sudo placed first on PATH.

The fakes record their argv in a log file; ``uid``, the lookup path for the commands and the
ensurepip probe are passed to :func:`main` so that the tests see a machine without the packages
(this one may well have them).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "bootstrap.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bootstrap", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bootstrap"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


bootstrap = load()


def executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


class Machine:
    """A temp dir of fake commands first on PATH, and the log they write their argv to."""

    def __init__(self, tmp: Path, monkeypatch: pytest.MonkeyPatch, *, apt: bool = True) -> None:
        self.bin = tmp / "fakebin"
        self.bin.mkdir()
        self.installed = tmp / "installed"  # where "already installed" commands live
        self.installed.mkdir()
        self.log = tmp / "argv.log"
        self.log.touch()
        monkeypatch.setenv("FAKE_LOG", str(self.log))
        monkeypatch.delenv("MESA_CHROMIUM", raising=False)  # it would count as a Chromium
        if apt:
            executable(
                self.bin / "apt-get",
                '#!/bin/sh\necho "apt-get $*" >> "$FAKE_LOG"\n'
                # FAKE_APT_FAIL_ONCE: the first install fails, as on empty package lists.
                'if [ -n "$FAKE_APT_FAIL_ONCE" ] && [ ! -e "$FAKE_LOG.failed" ]; then\n'
                '  touch "$FAKE_LOG.failed"; exit 100\nfi\nexit 0\n',
            )
        # Without apt-get, PATH holds the fakes only: the real /usr/bin/apt-get must not show.
        monkeypatch.setenv("PATH", f"{self.bin}:/usr/bin:/bin" if apt else str(self.bin))

    def sudo(self, *, password_needed: bool) -> None:
        rc = 1 if password_needed else 0
        executable(
            self.bin / "sudo",
            '#!/bin/sh\necho "sudo $*" >> "$FAKE_LOG"\n'
            '[ "$1" = -n ] && shift\n'
            f'[ "$1" = true ] && exit {rc}\n'
            f'[ {rc} = 0 ] || exit 1\nexec "$@"\n',
        )

    def install(self, *commands: str) -> None:
        for c in commands:
            executable(self.installed / c, "#!/bin/sh\nexit 0\n")

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines()

    def run(self, *argv: str, uid: int, ensurepip: bool = True) -> int:
        return bootstrap.main(
            list(argv), uid=uid, path=str(self.installed), places=False, ensurepip=lambda: ensurepip
        )


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Machine:
    return Machine(tmp_path, monkeypatch)


APT = "apt-get install -y"


def test_already_installed_calls_nothing(
    machine: Machine, capsys: pytest.CaptureFixture[str]
) -> None:
    machine.sudo(password_needed=False)
    machine.install("mosquitto", "chromium")
    assert machine.run("test", uid=1000) == 0
    assert machine.run("demo", uid=0) == 0
    assert machine.calls() == []
    assert capsys.readouterr().err == ""


def test_root_runs_apt_get_with_the_missing_packages(machine: Machine) -> None:
    machine.sudo(password_needed=False)  # present, but root does not need it
    machine.install("mosquitto")
    assert machine.run("test", uid=0) == 0
    assert machine.calls() == [f"{APT} chromium"]


def test_a_chromium_named_by_mesa_chromium_counts(
    machine: Machine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser = tmp_path / "chrome"
    executable(browser, "#!/bin/sh\nexit 0\n")
    monkeypatch.setenv("MESA_CHROMIUM", str(browser))
    machine.install("mosquitto")
    assert machine.run("test", uid=0) == 0
    assert machine.calls() == []


def test_root_demo_needs_only_mosquitto(machine: Machine) -> None:
    machine.install("chromium")
    assert machine.run("demo", uid=0) == 0
    assert machine.calls() == [f"{APT} mosquitto"]


def test_sudo_without_password_is_used_after_saying_what_and_why(
    machine: Machine, capsys: pytest.CaptureFixture[str]
) -> None:
    machine.sudo(password_needed=False)
    assert machine.run("test", uid=1000) == 0
    assert machine.calls() == [
        "sudo -n true",
        "sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y mosquitto chromium",
        f"{APT} mosquitto chromium",
    ]
    err = capsys.readouterr().err
    assert "sudo apt-get install -y mosquitto chromium" in err
    assert "mosquitto: the MQTT broker" in err and "chromium: the browser" in err


def test_neither_root_nor_sudo_says_what_to_run_and_fails(
    machine: Machine, capsys: pytest.CaptureFixture[str]
) -> None:
    machine.sudo(password_needed=True)
    assert machine.run("test", uid=1000) == 1
    assert machine.calls() == ["sudo -n true"]  # asked, never installed anything
    err = capsys.readouterr().err
    assert "sudo apt-get install mosquitto chromium" in err
    assert "then run the command again" in err


def test_no_sudo_at_all_is_the_same_as_a_password_sudo(
    machine: Machine, capsys: pytest.CaptureFixture[str]
) -> None:
    assert machine.run("demo", uid=1000) == 1
    assert machine.calls() == []
    assert "sudo apt-get install mosquitto" in capsys.readouterr().err


def test_without_apt_get_it_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    machine = Machine(tmp_path, monkeypatch, apt=False)
    assert machine.run("demo", uid=0) == 1
    assert "no apt-get" in capsys.readouterr().err


def test_empty_package_lists_are_updated_once(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_APT_FAIL_ONCE", "1")
    assert machine.run("demo", uid=0) == 0
    assert machine.calls() == [f"{APT} mosquitto", "apt-get update", f"{APT} mosquitto"]


def test_missing_ensurepip_installs_python3_venv_until_the_venv_is_built(
    machine: Machine, tmp_path: Path
) -> None:
    machine.install("mosquitto", "chromium")
    stamp = tmp_path / ".installed-stamp"
    assert machine.run("test", "--stamp", str(stamp), uid=0, ensurepip=False) == 0
    assert machine.calls() == [f"{APT} python3-venv"]
    stamp.touch()
    assert machine.run("venv", "--stamp", str(stamp), uid=0, ensurepip=False) == 0
    assert len(machine.calls()) == 1


def test_the_script_runs_with_the_system_python_before_any_venv(machine: Machine) -> None:
    """The Makefile's call, with the system's python3 (stdlib only), on a machine that has
    everything: a no-op."""
    python = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
    machine.install("mosquitto", "chromium")
    env = dict(os.environ, PATH=f"{machine.installed}:{os.environ['PATH']}")
    done = subprocess.run(
        [python, str(SCRIPT), "test"], env=env, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert machine.calls() == []
