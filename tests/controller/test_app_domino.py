"""The domino table as a Pi runs it: seat buttons and LEDs on (mock) GPIO pins, the OLED
(luma's dummy device), the journal; ``mesa controller`` picks it from the configuration; the
terminal simulator fits 80 columns."""

from __future__ import annotations

import io
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from gpiozero.pins.mock import MockFactory

from mesa.controller.app import TableApp
from mesa.controller.config import load_config, parse_config
from mesa.controller.games.domino.oled import render
from mesa.controller.games.domino.scenes import scenes
from mesa.controller.games.domino.shell import KEYS_HELP, QuadrantDevice
from mesa.engine.inputs import Input
from support.harness import wait_until

ROOT = Path(__file__).resolve().parents[2]
PINS = {"n": 17, "e": 27, "s": 22, "w": 23}
LEDS = {"n": 5, "e": 6, "s": 12, "w": 16}
PLAYERS = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}


def config(journal: Path) -> str:
    return (
        '[table]\nid = "9"\ngame = "domino"\n[buttons]\n'
        + "".join(f"{k} = {v}\n" for k, v in PINS.items())
        + "[leds]\n"
        + "".join(f"{k} = {v}\n" for k, v in LEDS.items())
        + f'[display]\nmodel = "dummy"\n[journal]\ndir = "{journal}"\nfsync = false\n'
    )


def push(factory: MockFactory, seat: str, seconds: float) -> None:
    factory.pin(PINS[seat]).drive_low()  # wired to ground, pulled up
    time.sleep(seconds)
    factory.pin(PINS[seat]).drive_high()


def test_the_seat_buttons_leds_screen_and_journal_on_a_pi(tmp_path: Path) -> None:
    cfg = parse_config(config(tmp_path / "journal"))
    factory = MockFactory()
    app = TableApp(cfg, pin_factory=factory)
    app.start()
    rt = app.runtime
    try:
        rt.submit(Input("assign", {"game_id": "P1", "players": PLAYERS}), rt.now())
        rt.submit(Input("tiempo", {"start_wall": 0.0, "wall": 0.0}), rt.now())
        assert wait_until(lambda: rt.view().state == "ready", 5)
        push(factory, "s", 0.05)  # s leads
        assert wait_until(lambda: rt.view().on_turn == "e", 5)
        lit = {"n": False, "e": True, "s": False, "w": False}  # e's LED: e is on turn
        assert wait_until(
            lambda: {k: bool(factory.pin(p).state) for k, p in LEDS.items()} == lit, 5
        ), app.outputs.led_state
        push(factory, "e", 1.2)  # "paso": a hold
        assert wait_until(lambda: rt.view().on_turn == "n", 5)
        push(factory, "n", 2.3)  # the last tile: a long hold
        assert wait_until(lambda: rt.view().state == "hand_entry", 5)
        assert wait_until(
            lambda: app.display.device is not None and app.display.device.image is not None, 5
        )
        assert app.display.device.size == (128, 64)
        events = [e.TYPE for e in rt.view().penalties]  # in time: no penalty
        assert events == []
    finally:
        app.stop()
    # A new start restores the game from the journal.
    app = TableApp(cfg, pin_factory=MockFactory())
    app.start()
    try:
        view = app.runtime.view()
        assert view.state == "hand_entry" and view.hand == 1 and app.recovery is not None
        assert app.recovery.problems == []
    finally:
        app.stop()


def test_mesa_controller_runs_a_domino_configuration(tmp_path: Path) -> None:
    conf = tmp_path / "table.toml"
    conf.write_text('[table]\nid = "d9"\ngame = "domino"\n[display]\nmodel = "dummy"\n')
    proc = subprocess.Popen(
        [sys.executable, "-m", "mesa", "controller", "--config", str(conf), "--log-level", "info"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    lines: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        lines.extend(proc.stderr)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert wait_until(lambda: any("up in" in x for x in lines), 120), "".join(lines)[-2000:]
        assert any("domino table d9 up in" in x for x in lines), "".join(lines)[-2000:]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
        reader.join(10)
    assert proc.returncode == 0, "".join(lines)[-2000:]
    assert load_config("hardware/mesa-domino.toml").table.game == "domino"


def test_the_terminal_screen_fits_80_columns() -> None:
    footer = ["N ●  E ○  S ◐  W ○   buzzer: 3×   t=12345.6", KEYS_HELP]
    for s in scenes():
        out = io.StringIO()
        QuadrantDevice(out=out, footer=lambda: footer).display(render(s.view, s.status, s.now))
        text = out.getvalue()
        for code in ("\x1b[H", "\x1b[K", "\x1b[J"):
            text = text.replace(code, "")
        lines = text.split("\n")
        assert len(lines) == 32 + 2 + 2 and max(len(line) for line in lines) <= 80


def test_the_terminal_screen_fits_24_rows_in_braille() -> None:
    """A frame taller than the terminal scrolls and garbles: at 80×24 the OLED is braille."""
    footer = ["N ●  E ○  S ◐  W ○   buzzer: 3×   t=12345.6", KEYS_HELP]
    for s in scenes():
        out = io.StringIO()
        device = QuadrantDevice(out=out, footer=lambda: footer, rows=24)
        device.display(render(s.view, s.status, s.now))
        lines = out.getvalue().replace("\x1b[H", "").replace("\x1b[J", "").split("\x1b[K\n")
        assert len(lines) == 16 + 2 + 2 and max(len(line) for line in lines) <= 80


def test_hardware_check_knows_the_seat_buttons_and_leds(tmp_path: Path) -> None:
    import re

    from mesa.controller.hwcheck import report, run_checks

    factory = MockFactory()
    cfg = parse_config(config(tmp_path / "j"))

    def say(text: str) -> None:
        m = re.match(r"Press and release button (\w+)", text)
        if m:
            pin = factory.pin(PINS[m.group(1)])

            def person() -> None:
                time.sleep(0.05)
                pin.drive_low()
                time.sleep(0.05)
                pin.drive_high()

            threading.Thread(target=person, daemon=True).start()

    results = run_checks(cfg, pin_factory=factory, only={"buttons", "leds"}, say=say,
                         ask=lambda q: True, timeout=5.0)  # fmt: skip
    parts = {r.part for r in results}
    assert parts == {f"button {s}" for s in PINS} | {f"led {s}" for s in LEDS}
    assert all(r.ok for r in results), report(results)
