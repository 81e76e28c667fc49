"""``mesa hardware-check`` against MockFactory pins, luma's dummy display and a pty card reader,
and the reference build's files (configs, pin table, wiring, systemd unit)."""

from __future__ import annotations

import configparser
import os
import pty
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPin
from luma.core.device import dummy

from mesa.controller.config import load_config, parse_config
from mesa.controller.hwcheck import pattern_image, report, run_checks
from mesa.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
FULL = parse_config(
    "[buttons]\na = 17\nb = 27\ncube = 22\npause = 23\n[leds]\na = 5\nb = 6\n"
    '[buzzer]\npin = 13\n[display]\nmodel = "dummy"\n[card_reader]\nport = "/dev/null"\n'
)


class StuckPin(MockPin):
    """A button contact welded shut: the pin reads low whatever the pull-up says."""

    def drive_high(self) -> None:
        self.drive_low()


def test_every_part_of_a_full_build_is_checked() -> None:
    factory = MockFactory()
    pins = {"a": 17, "b": 27, "cube": 22, "pause": 23}
    prompts: list[str] = []

    def say(text: str) -> None:
        prompts.append(text)
        if text.startswith("Swipe a card"):
            threading.Timer(0.2, os.write, (master, b"\x0204A1B2C3D4\r\n\x03")).start()
        m = re.match(r"Press and release button (\w+)", text)
        if m:
            pin = factory.pin(pins[m.group(1)])

            def person() -> None:  # presses with a little bounce, like a real switch
                time.sleep(0.05)
                for level in (0, 1, 0):
                    pin.drive_low() if level == 0 else pin.drive_high()
                time.sleep(0.05)
                pin.drive_high()

            threading.Thread(target=person, daemon=True).start()

    master, slave = pty.openpty()
    device = dummy(width=128, height=64, mode="1")
    import serial

    results = run_checks(
        FULL,
        pin_factory=factory,
        open_display=lambda: device,
        open_serial=lambda: serial.serial_for_url(os.ttyname(slave), timeout=0.2),
        ask=lambda q: True,
        say=say,
        timeout=5.0,
    )
    os.close(master)
    os.close(slave)
    parts = {r.part: r for r in results}
    assert set(parts) == {
        "button a",
        "button b",
        "button cube",
        "button pause",
        "led a",
        "led b",
        "display",
        "buzzer",
        "card reader",
    }
    assert all(r.ok for r in results), report(results)
    assert "extra edges" in parts["button a"].detail
    assert parts["card reader"].detail == "read card 04A1B2C3D4"
    assert device.image is not None  # the sample clock screen, after the pattern
    led_pin = factory.pin(5)
    assert any(s.state for s in led_pin.states[1:])


def test_a_stuck_button_and_a_missing_display_fail_with_reasons() -> None:
    factory = MockFactory()
    factory.pin(17, pin_class=StuckPin)  # held down before the check starts
    cfg = parse_config('[buttons]\na = 17\nb = 27\n[display]\nmodel = "sh1106"\n')

    def no_display() -> Any:
        raise OSError(2, "No such file or directory: '/dev/i2c-1'")

    results = run_checks(
        cfg,
        pin_factory=factory,
        open_display=no_display,
        only={"buttons", "display"},
        say=lambda s: None,
        timeout=0.2,
    )
    parts = {r.part: r for r in results}
    assert not parts["button a"].ok and "stuck" in parts["button a"].detail
    assert not parts["button b"].ok and parts["button b"].detail == "no press seen"
    assert not parts["display"].ok and "i2c-1" in parts["display"].detail
    assert "FAILED" in report(results)


def test_the_test_pattern_proves_every_edge() -> None:
    for size in ((128, 64), (128, 32), (256, 64)):
        img = pattern_image(size)
        w, h = size
        assert img.getpixel((0, 0)) and img.getpixel((w - 1, h - 1))
        assert img.getpixel((0, h - 1)) and img.getpixel((w - 1, 0))


# ── the reference build's files ────────────────────────────────────────────
@pytest.mark.parametrize(
    "name", ["mesa-table.toml", "mesa-table-minimal.toml", "mesa-table-ssd1322.toml"]
)
def test_the_reference_configs_parse(name: str) -> None:
    cfg = load_config(ROOT / "hardware" / name)
    assert cfg.buttons.a is not None and cfg.buttons.b is not None


def test_the_pin_table_and_the_wiring_match_the_reference_config() -> None:
    cfg = load_config(ROOT / "hardware" / "mesa-table.toml")
    readme = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    svg = (ROOT / "hardware" / "wiring.svg").read_text(encoding="utf-8")
    rows = {
        int(m.group(1)): m.group(2)
        for m in re.finditer(r"^\| (\d+) \| \d+ \| [^|]+\| [^|]+\| `([\w.]+)`", readme, re.M)
    }
    for key, pin in [
        ("buttons.a", cfg.buttons.a),
        ("buttons.b", cfg.buttons.b),
        ("buttons.cube", cfg.buttons.cube),
        ("buttons.pause", cfg.buttons.pause),
        ("leds.a", cfg.leds.a),
        ("leds.b", cfg.leds.b),
        ("buzzer.pin", cfg.buzzer.pin),
    ]:
        assert rows.get(pin) == key, (key, pin)  # type: ignore[arg-type]
        assert f"GPIO{pin}<" in svg
    assert "SEN-09963" in readme and "BC337" in readme  # part numbers in the bill of materials


def test_config_errors_name_the_problem() -> None:
    cases = {
        "[buttons]\na = 17\n": "come together",
        "[buttons]\na = 17\nb = 27\nlockout = 0.3\n": "buttons.lockout",
        '[display]\nmodel = "ssd1322"\nwidth = 128\nheight = 32\n': "comes in",
        '[display]\nmodel = "ssd1322"\nwidth = 256\n': "SPI",
        "[leds]\na = 17\n[buttons]\na = 17\nb = 27\n": "used twice",
        "[nope]\n": "unknown sections",
        '[table]\nlanguage = "fr"\n': "language",
        '[buzzer]\nwarnings = [60, "x"]\n': "warnings",
        "not toml": "not valid TOML",
    }
    for text, needle in cases.items():
        with pytest.raises(ConfigError, match=needle):
            parse_config(text)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config("/nonexistent/table.toml")


def test_the_systemd_unit_is_what_the_table_needs() -> None:
    path = ROOT / "systemd" / "mesa-table.service"
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(path)
    svc, u = unit["Service"], unit["Unit"]
    assert svc["Type"] == "notify" and svc["Restart"] == "always"
    assert float(svc["WatchdogSec"]) > 0 and svc["User"] == "mesa"
    assert "network-online.target" in u["After"] and "network-online.target" in u["Wants"]
    assert "Requires" not in u  # after the network, never needing it
    sysusers = (ROOT / "systemd" / "mesa-table.sysusers.conf").read_text()
    assert re.search(r"^u mesa ", sysusers, re.M)
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        return  # the static checks above are what can be done without systemd
    mesa_bin = Path(sys.executable).with_name("mesa")
    local = Path(os.environ.get("TMPDIR", "/tmp")) / f"mesa-table-{os.getpid()}.service"
    local.write_text(path.read_text().replace("/opt/mesa/.venv/bin/mesa", str(mesa_bin)))
    try:
        r = subprocess.run(
            [analyze, "verify", str(local)], capture_output=True, text=True, timeout=60
        )
    finally:
        local.unlink()
    problems = [x for x in (r.stdout + r.stderr).splitlines() if local.name in x]
    assert r.returncode == 0 and not problems, r.stdout + r.stderr
