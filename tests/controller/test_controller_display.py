"""The display thread: frames while a clock runs, a missing or vanishing display, the terminal."""

from __future__ import annotations

import io
import time
from typing import Any

from controller_helpers import assign_input, run_until, to_running
from gpiozero.pins.mock import MockFactory
from luma.core.device import dummy

from mesa.controller.app import TableApp
from mesa.controller.config import parse_config
from mesa.controller.display import Display, TerminalDevice, braille
from mesa.controller.games.backgammon.oled import SIZES, render
from mesa.controller.games.backgammon.scenes import scenes
from mesa.controller.games.backgammon.shell import KEYS_HELP
from mesa.controller.runtime import ManualClock, TableRuntime
from mesa.engine.inputs import Input


class Flaky(dummy):  # type: ignore[misc]
    """luma's dummy device that stops answering after ``good`` frames (a loose I2C wire)."""

    def __init__(self, good: int) -> None:
        super().__init__(width=128, height=64, mode="1")
        self.good = good
        self.shown = 0

    def display(self, image: Any) -> None:
        if self.shown >= self.good:
            raise OSError(121, "Remote I/O error")
        self.shown += 1
        super().display(image)


def wait_for(cond: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    return bool(cond())


def test_while_a_clock_runs_every_frame_is_pushed_otherwise_only_changes() -> None:
    clock = ManualClock()
    rt = TableRuntime(clock=clock)
    device = dummy(width=128, height=64, mode="1")
    d = Display(rt, lambda: device)
    assert d.frame() is True  # the first frame
    assert d.frame() is False  # idle and unchanged
    to_running(rt, clock)
    assert d.frame() is True
    assert d.frame() is True  # running: pushed even when identical
    assert d.stats.frames == 3


def test_a_missing_display_is_retried_and_the_table_does_not_care() -> None:
    clock = ManualClock()
    rt = TableRuntime(clock=clock)
    attempts = []
    device = dummy(width=128, height=64, mode="1")

    def open_device() -> Any:
        attempts.append(1)
        if len(attempts) < 3:
            raise OSError(2, "No such file or directory: '/dev/i2c-1'")
        return device

    d = Display(rt, open_device, retry=0.0)
    assert d.frame() is False
    assert rt.status.display == "missing"
    to_running(rt, clock)  # the table runs without a screen
    assert d.frame() is False
    assert d.frame() is True
    assert rt.status.display == "ok" and device.image is not None


def test_a_display_that_vanishes_mid_match_leaves_clock_and_buzzer_working() -> None:
    clock = ManualClock()
    factory = MockFactory()
    cfg = parse_config(
        '[buttons]\na = 17\nb = 27\n[buzzer]\npin = 13\n[display]\nmodel = "dummy"\n'
    )
    flaky = Flaky(good=3)
    app = TableApp(cfg, pin_factory=factory, open_display=lambda: flaky, clock=clock)
    app.display.retry = 3600.0
    rt = app.runtime
    to_running(rt, clock)
    for _ in range(5):
        app.display.frame()
    assert rt.status.display == "missing" and app.display.stats.failures == 1
    rt.submit(Input("director_adjust", {"side": "b", "seconds": -595.0}), clock())
    run_until(rt, clock, clock() + 20.0, step=0.1)
    assert rt.table.state == "match_over"  # the flag fell: the clock kept running
    assert app.outputs.beeps and app.outputs.beeps[-1].on > 1.0  # the flag's long beep
    buzzer = factory.pin(13)
    assert wait_for(lambda: any(s.state for s in buzzer.states[1:]))
    app.outputs.close()


def test_the_thread_pushes_a_frame_for_each_change() -> None:
    rt = TableRuntime()
    device = dummy(width=128, height=32, mode="1")
    d = Display(rt, lambda: device, size=(128, 32))
    rt.start()
    d.start()
    try:
        rt.submit(assign_input(), rt.now())
        assert wait_for(lambda: rt.view().state == "assigned")
        version = rt.version
        assert wait_for(lambda: any(v >= version for _, v in d.stats.pushes))
        assert device.image is not None and device.image.size == (128, 32)
    finally:
        d.stop()
        rt.stop()


def test_the_terminal_device_prints_braille() -> None:
    out = io.StringIO()
    term = TerminalDevice(128, 32, out=out, footer=lambda: ["A ● B ○"])
    rt = TableRuntime(clock=ManualClock())
    d = Display(rt, lambda: term, size=(128, 32))
    d.frame()
    text = out.getvalue()
    assert text.startswith("\x1b[H+") and "A ● B ○" in text
    assert len(braille(term.image)) == 8  # type: ignore[arg-type]
    assert any("\u2800" < ch <= "\u28ff" for ch in text)


def test_the_simulator_fits_an_80_by_24_terminal_at_every_size() -> None:
    footer = ["A ●  B ○   buzzer: 2×   t=1234.5", *KEYS_HELP]
    for scene in scenes():
        for size in SIZES:
            term = TerminalDevice(*size, out=io.StringIO(), footer=lambda: footer)
            lines = term.lines(render(scene.view, scene.status, scene.now, size))
            assert len(lines) <= 24, (scene.name, size, len(lines))
            assert max(len(line) for line in lines) <= 80, (scene.name, size)
            assert all(len(line) <= 80 for line in KEYS_HELP)
