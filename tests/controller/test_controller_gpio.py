"""Buttons, LEDs and buzzer through gpiozero's MockFactory, the pins driven at exact instants."""

from __future__ import annotations

import itertools
import random
import time
from dataclasses import replace

import pytest
from controller_helpers import Recorder, TimedMockFactory, run_until, to_running
from gpiozero.pins.mock import MockFactory

from mesa.controller.games.backgammon import led_modes, time_left, warnings_between
from mesa.controller.games.backgammon.gestures import GestureRecognizer
from mesa.controller.gestures import GestureSettings
from mesa.controller.gpio import ButtonPad, TableOutputs
from mesa.controller.runtime import ManualClock, TableRuntime
from mesa.engine.inputs import Input
from mesa.games.backgammon.machine import Table
from mesa.games.backgammon.view import ClockView, table_view

PINS = {"a": 17, "b": 27, "cube": 22, "pause": 23}


def rig(
    lockout: float = 0.08, extra: bool = False, tick: float = 0.5
) -> tuple[TableRuntime, ManualClock, TimedMockFactory, Recorder, ButtonPad]:
    clock = ManualClock()
    factory = TimedMockFactory(clock)
    rec = Recorder()
    buttons = ("a", "b", "cube", "pause") if extra else ("a", "b")
    rt = TableRuntime(
        clock=clock,
        sinks=[rec],
        buttons=GestureRecognizer(
            GestureSettings(lockout=lockout, hold_time=0.8, min_press=0.02), buttons=buttons
        ),
        tick_interval=tick,
        extra_buttons=frozenset({"cube", "pause"}) if extra else frozenset(),
    )
    pad = ButtonPad(rt, {k: PINS[k] for k in buttons}, pin_factory=factory)
    return rt, clock, factory, rec, pad


def drive(factory: TimedMockFactory, clock: ManualClock, pin: int, edges: list[tuple[float, bool]]):
    p = factory.pin(pin)
    for t, pressed in edges:
        clock.set(t)
        # Buttons close to ground (pull-up): pressed is low.
        if pressed:
            p.drive_low()
        else:
            p.drive_high()


def bouncy_press(
    rng: random.Random, t0: float, hold: float, lockout: float
) -> tuple[list[tuple[float, bool]], float]:
    """Edges of one press with chatter on press and on release (all within the lockout)."""
    edges = [(t0, True)]
    t = t0
    for _ in range(rng.randrange(0, 5)):  # press bounce: open/close pairs
        t += rng.uniform(0.0003, lockout / 12)
        edges.append((t, False))
        t += rng.uniform(0.0003, lockout / 12)
        edges.append((t, True))
    t = t0 + hold
    edges.append((t, False))
    for _ in range(rng.randrange(0, 5)):  # release bounce
        t += rng.uniform(0.0003, lockout / 12)
        edges.append((t, True))
        t += rng.uniform(0.0003, lockout / 12)
        edges.append((t, False))
    return edges, t


@pytest.mark.parametrize(("lockout", "presses"), [(0.08, 2000), (0.05, 500), (0.15, 500)])
def test_thousands_of_bouncing_presses_none_missed_none_doubled(lockout: float, presses: int):
    rt, clock, factory, rec, pad = rig(lockout)
    to_running(rt, clock, first="a")  # b on move
    rng = random.Random(int(lockout * 1000))
    side = "b"
    starts = [rec.inputs("press")[-1].now]
    phantoms = 0
    for _ in range(presses):
        t0 = clock() + rng.uniform(0.3, 2.5)
        if rng.random() < 0.3:
            # A phantom spike on the button of the player on move, while they think.
            spike = clock() + rng.uniform(0.05, t0 - clock() - 0.2)
            run_until(rt, clock, spike, step=0.1)
            drive(factory, clock, PINS[side], [(spike, True), (spike + 0.0002, False)])
            phantoms += 1
        run_until(rt, clock, t0, step=0.1)
        edges, end = bouncy_press(rng, t0, rng.uniform(0.04, 0.5), lockout)
        drive(factory, clock, PINS[side], edges)
        run_until(rt, clock, end + lockout + 0.02, step=0.01)
        starts.append(t0)
        side = "a" if side == "b" else "b"
    turns = rec.events("turn.ended")
    assert len(turns) == presses  # zero missed, zero doubled
    assert [t.side for t in turns] == ["b", "a"] * (presses // 2)
    # Each turn is timed from one first edge to the next.
    for turn, (a, b) in zip(turns, itertools.pairwise(starts), strict=True):
        assert turn.seconds == pytest.approx(b - a, abs=1e-9)
    assert not rec.inputs("press", accepted=False)
    assert rt.buttons is not None and rt.buttons.stats.phantoms == phantoms
    pad.close()


def test_the_full_build_emits_presses_on_the_edge_and_the_cube_button_doubles() -> None:
    rt, clock, factory, rec, pad = rig(extra=True)
    to_running(rt, clock, first="a")  # b on move
    t0 = clock() + 2.0
    run_until(rt, clock, t0)
    drive(factory, clock, PINS["b"], [(t0, True)])
    run_until(rt, clock, t0 + 0.05)
    # Still held down, but the turn is over already: no hold to wait for with a CUBE button.
    assert rec.events("turn.ended")[-1].side == "b"
    drive(factory, clock, PINS["b"], [(t0 + 1.5, False)])  # held 1.5 s: still one press
    run_until(rt, clock, t0 + 2.0)
    assert len(rec.events("turn.ended")) == 1 and rt.table.state == "running"
    t1 = clock() + 1.0
    run_until(rt, clock, t1)
    drive(factory, clock, PINS["cube"], [(t1, True), (t1 + 0.001, False), (t1 + 0.002, True)])
    run_until(rt, clock, t1 + 0.1)
    drive(factory, clock, PINS["cube"], [(t1 + 0.1, False)])
    run_until(rt, clock, t1 + 0.3)
    assert rt.table.state == "cube_offered"
    assert rec.events("cube.offered")[0].side == "a"
    t2 = clock() + 1.0
    run_until(rt, clock, t2)
    drive(factory, clock, PINS["pause"], [(t2, True), (t2 + 0.1, False)])
    run_until(rt, clock, t2 + 0.3)
    assert rt.table.state == "paused"
    pad.close()


def test_a_button_held_at_boot_is_ignored_then_works() -> None:
    clock = ManualClock()
    factory = TimedMockFactory(clock)
    factory.pin(17).drive_low()  # someone leans on button a while the Pi boots
    rec = Recorder()
    rt = TableRuntime(clock=clock, sinks=[rec], buttons=GestureRecognizer())
    pad = ButtonPad(rt, {"a": 17, "b": 27}, pin_factory=factory)
    clock.advance(1.0)
    rt.submit(
        Input(
            "assign",
            {"match_id": "M", "players": {"a": "A", "b": "B"}, "length": 3},
        ),
        clock(),
    )
    run_until(rt, clock, 5.0)
    assert rt.table.state == "assigned"  # the held button checked nobody in
    drive(factory, clock, 17, [(5.0, False)])
    run_until(rt, clock, 6.0)
    drive(factory, clock, 17, [(6.0, True), (6.1, False)])
    run_until(rt, clock, 6.5)
    assert rt.table.state == "checking_in"
    pad.close()


def test_a_long_press_still_checks_in() -> None:
    rt, clock, factory, _rec, pad = rig()
    rt.submit(Input("assign", {"match_id": "M", "players": {"a": "A", "b": "B"}, "length": 3}), 0.0)
    drive(factory, clock, 17, [(1.0, True)])
    run_until(rt, clock, 2.5)  # held 1.5 s: a hold means nothing here, so it is a press
    assert rt.table.state == "checking_in"
    drive(factory, clock, 17, [(2.5, False)])
    run_until(rt, clock, 3.0)
    assert rt.table.state == "checking_in"
    pad.close()


def test_callbacks_date_the_edge_back_by_its_age() -> None:
    clock = ManualClock(10.0)
    factory = TimedMockFactory(clock)
    rt = TableRuntime(clock=clock, buttons=GestureRecognizer())
    pad = ButtonPad(rt, {"a": 17, "b": 27}, pin_factory=factory)
    rt.take_queued()
    callback = pad._callbacks["a"]
    clock.set(10.2)
    callback(10.05, 0)  # the kernel stamped it 150 ms before the callback ran
    callback(-1000.0, 1)  # nonsense ticks: the callback's own time is used
    (_, t1, e1), (_, t2, e2) = rt.take_queued()
    assert (t1, e1.pressed) == (pytest.approx(10.05), True)
    assert (t2, e2.pressed) == (pytest.approx(10.2), False)
    pad.close()


# ── LEDs and buzzer ─────────────────────────────────────────────────────────
def _running_table() -> Table:
    t = Table()
    t.apply(
        "assign",
        {
            "match_id": "M",
            "players": {"a": "A", "b": "B"},
            "length": 3,
            "clock": {"preset": "singles"},
        },
        now=0.0,
    )
    t.apply("checkin", {"side": "a"}, now=0.0)
    t.apply("checkin", {"side": "b"}, now=0.0)
    t.apply("press", {"side": "a"}, now=1.0)
    return t


def test_the_lit_button_is_the_player_on_move() -> None:
    t = _running_table()
    assert led_modes(table_view(t, 2.0)) == {"a": "off", "b": "on"}
    t.apply("press", {"side": "b"}, now=3.0)
    assert led_modes(table_view(t, 4.0)) == {"a": "on", "b": "off"}
    t.apply("pause", {}, now=5.0)
    assert led_modes(table_view(t, 6.0)) == {"a": "blink", "b": "off"}


def test_low_time_warnings_cross_each_threshold_once() -> None:
    t = _running_table()
    assert t.apply("director_adjust", {"side": "b", "seconds": -360.0 + 65.0}, now=1.0).accepted
    cues = []
    prev = None
    for k in range(0, 800):
        now = 1.0 + k * 0.1
        v = table_view(t, now)
        cues += [(round(now, 1), b.count) for b in warnings_between(prev, v, (60, 30, 10))]
        prev = v
    # b: 10 s delay + 65 s reserve from 1.0: 60 s left at 16.0, 30 at 46.0, 10 at 66.0.
    assert cues == [(16.0, 1), (46.0, 2), (66.0, 3)]
    assert time_left(table_view(t, 80.0)) == 0.0


def test_outputs_drive_the_pins() -> None:
    factory = MockFactory()
    out = TableOutputs({"a": 5, "b": 6}, 13, pin_factory=factory)
    t = _running_table()
    out.update(table_view(t, 2.0), 2.0)
    assert factory.pin(6).state == 1 and factory.pin(5).state == 0
    v = table_view(t, 2.0)
    low = replace(v, clocks={**v.clocks, "b": ClockView(9.0, 9.0, 0.0, True)})
    high = replace(v, clocks={**v.clocks, "b": ClockView(11.0, 11.0, 0.0, True)})
    out.update(high, 3.0)
    out.update(low, 3.1)
    assert out.beeps[-1].count == 3
    deadline = time.monotonic() + 2.0
    buzzer = factory.pin(13)
    while time.monotonic() < deadline and not any(s.state for s in buzzer.states[1:]):
        time.sleep(0.01)
    assert any(s.state for s in buzzer.states[1:])  # the piezo was driven
    out.close()
