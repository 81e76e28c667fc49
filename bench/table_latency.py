"""Table latency with gpiozero's MockFactory and luma's dummy display, in real time.

Usage: .venv/bin/python bench/table_latency.py [--presses 100] [--seconds 5] [--quick]
       .venv/bin/python bench/table_latency.py --per-input-only [--inputs 2000] [--profile]

Prints:

- the cost of one input (a press, through the runtime with its journal, on a manual clock: no
  waiting, no display), p50/p99 in µs, and with ``--profile`` where that time goes (cProfile);
- press edge → state change, and press edge → frame pushed (p50/p99), for the minimal build
  (the press is emitted when the button is released and its lockout has passed: ``hold`` ms of
  contact + ``lockout``) and for the full build with CUBE and PAUSE buttons (emitted on the edge);
- render time per frame (p50/p99) at each display size;
- the CPU share of one core while a clock runs and the display renders at 10 frames/s, with the
  journal on;
- journal bytes written per match (robots, virtual time), the records that asked for an fsync at
  once, the resulting fsyncs per match, and the restore time from that journal;
- the time from starting a killed simulator again to its restored table (a process restart).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory
from luma.core.device import dummy

from mesa.controller.display import Display
from mesa.controller.games.backgammon.gestures import GestureRecognizer
from mesa.controller.games.backgammon.oled import SIZES, render
from mesa.controller.games.backgammon.robots import RobotPlayers, play
from mesa.controller.games.backgammon.scenes import scenes
from mesa.controller.gestures import GestureSettings
from mesa.controller.gpio import ButtonPad
from mesa.controller.journal import Journal
from mesa.controller.runtime import ManualClock, TableRuntime
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome

ROOT = Path(__file__).resolve().parent.parent
PINS = {"a": 17, "b": 27, "cube": 22, "pause": 23}
ASSIGN = Input(
    "assign",
    {
        "match_id": "B-1",
        "players": {"a": "Ana", "b": "Beto"},
        "length": 99,
        "clock": {"preset": "singles"},
    },
)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def ms(values: list[float]) -> str:
    return f"p50 {1000 * statistics.median(values):6.2f} ms   p99 {1000 * pct(values, 99):6.2f} ms"


class Applied:
    """Notes when each turn end was applied, and the runtime's version then."""

    def __init__(self, runtime: TableRuntime) -> None:
        self.runtime = runtime
        self.turns: list[tuple[float, int]] = []
        self.cond = threading.Condition()

    def on_outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float) -> None:
        if any(e.TYPE == "turn.ended" for e in outcome.events):
            with self.cond:
                self.turns.append((time.monotonic(), self.runtime.version))
                self.cond.notify_all()


def latency(presses: int, full: bool, hold: float = 0.03) -> tuple[list[float], list[float]]:
    factory = MockFactory()
    buttons = ("a", "b", "cube", "pause") if full else ("a", "b")
    rt = TableRuntime(
        buttons=GestureRecognizer(GestureSettings(), buttons=buttons),
        extra_buttons=frozenset({"cube", "pause"}) if full else frozenset(),
    )
    applied = Applied(rt)
    rt.add_sink(applied)
    pad = ButtonPad(rt, {k: PINS[k] for k in buttons}, pin_factory=factory)
    device = dummy(width=128, height=64, mode="1")
    display = Display(rt, lambda: device, fps=10.0)
    rt.start()
    display.start()
    state_s: list[float] = []
    frame_s: list[float] = []
    try:
        for inp in (
            ASSIGN,
            Input("checkin", {"side": "a"}),
            Input("checkin", {"side": "b"}),
            Input("press", {"side": "a"}),
        ):
            rt.submit(inp, rt.now())
        deadline = time.monotonic() + 5
        while rt.view().state != "running" and time.monotonic() < deadline:
            time.sleep(0.01)
        for _ in range(presses):
            time.sleep(0.3)  # more than the machine's simultaneous-press guard
            side = rt.view().on_move
            assert side is not None
            pin = factory.pin(PINS[side])
            count = len(applied.turns)
            edge = time.monotonic()
            pin.drive_low()
            time.sleep(hold)
            pin.drive_high()
            with applied.cond:
                applied.cond.wait_for(lambda c=count: len(applied.turns) > c, 5.0)
            t_applied, version = applied.turns[-1]
            state_s.append(t_applied - edge)
            deadline = time.monotonic() + 2
            pushed = None
            while pushed is None and time.monotonic() < deadline:
                pushed = next((t for t, v in list(display.stats.pushes) if v > version), None)
                time.sleep(0.001)
            if pushed is not None:
                frame_s.append(pushed - edge)
    finally:
        display.stop()
        rt.stop()
        pad.close()
    return state_s, frame_s


def per_input(inputs: int, profile: bool = False) -> list[float]:
    """Seconds per press submitted and applied by one runtime step, the journal attached."""
    with tempfile.TemporaryDirectory() as folder:
        clock = ManualClock()
        rt = TableRuntime(clock=clock)
        journal = Journal(folder, fsync=False)
        journal.attach(rt)
        for inp in (
            ASSIGN,
            Input("checkin", {"side": "a"}),
            Input("checkin", {"side": "b"}),
            Input("press", {"side": "a"}),
        ):
            rt.submit(inp, rt.now())
            rt.step()
        times: list[float] = []
        profiler = cProfile.Profile() if profile else None
        for _ in range(inputs):
            clock.advance(0.5)
            side = rt.view().on_move
            started = time.perf_counter()
            if profiler is not None:
                profiler.enable()
            rt.submit(Input("press", {"side": side}), rt.now())
            rt.step()
            if profiler is not None:
                profiler.disable()
            times.append(time.perf_counter() - started)
        journal.close()
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    return times


def us(values: list[float]) -> str:
    return f"p50 {1e6 * statistics.median(values):6.1f} µs   p99 {1e6 * pct(values, 99):6.1f} µs"


def render_times(frames: int) -> dict[tuple[int, int], list[float]]:
    scene = next(s for s in scenes() if s.name == "running" and s.language == "es")
    out: dict[tuple[int, int], list[float]] = {}
    for size in SIZES:
        times = []
        for k in range(frames):
            t = time.perf_counter()
            render(scene.view, scene.status, scene.now + k * 0.1, size)
            times.append(time.perf_counter() - t)
        out[size] = times
    return out


def cpu_share(seconds: float) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as folder:
        rt = TableRuntime()
        journal = Journal(folder)
        journal.attach(rt)
        device = dummy(width=128, height=64, mode="1")
        display = Display(rt, lambda: device, fps=10.0)
        for inp in (
            ASSIGN,
            Input("checkin", {"side": "a"}),
            Input("checkin", {"side": "b"}),
            Input("press", {"side": "a"}),
        ):
            rt.submit(inp, rt.now())
        rt.start()
        display.start()
        time.sleep(0.5)
        frames = display.stats.frames
        cpu0, wall0 = time.process_time(), time.monotonic()
        time.sleep(seconds)
        cpu1, wall1 = time.process_time(), time.monotonic()
        pushed = display.stats.frames - frames
        display.stop()
        rt.stop()
        journal.close()
    return (cpu1 - cpu0) / (wall1 - wall0), round(pushed / (wall1 - wall0))


def journal_per_match(length: int, seeds: range) -> list[dict[str, float]]:
    rows = []
    for seed in seeds:
        with tempfile.TemporaryDirectory() as folder:
            clock = ManualClock()
            rt = TableRuntime(clock=clock)
            journal = Journal(folder, fsync=False, sync_interval=5.0, heartbeat=1.0)
            journal.attach(rt)
            rt.submit(Input("assign", {**ASSIGN.args, "length": length}), 0.0)
            play(rt, RobotPlayers(seed=seed), clock)
            minutes = clock() / 60
            stats = journal.stats
            # Syncs a real table would make: each urgent record at once, plus at most one lazy
            # sync per sync_interval of running clock, plus two (file and folder) per new
            # generation.
            syncs = stats.urgent + clock() / journal.sync_interval + 2 * stats.compactions
            journal.close()
            rec = Journal(folder).recover()
            rows.append(
                {
                    "minutes": minutes,
                    "bytes": stats.bytes_written,
                    "records": stats.records,
                    "heartbeats": stats.heartbeats,
                    "urgent": stats.urgent,
                    "syncs": syncs,
                    "restore_ms": 1000 * rec.seconds,
                }
            )
    return rows


def process_restart() -> float:
    with tempfile.TemporaryDirectory() as folder:
        cmd = [
            sys.executable,
            "-m",
            "mesa",
            "sim",
            "--headless",
            "--journal",
            folder,
            "--speed",
            "20",
            "--status-every",
            "0.05",
            "--seed",
            "3",
            "--log-level",
            "error",
        ]
        first = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        time.sleep(2.0)
        first.kill()
        first.wait()
        if first.stdout:
            first.stdout.close()
        started = time.monotonic()
        second = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert second.stdout is not None
        line = json.loads(second.stdout.readline())
        took = time.monotonic() - started
        second.kill()
        second.wait()
        second.stdout.close()
        assert line["restored"], line
        return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    parser.add_argument("--inputs", type=int, default=2000, help="presses for the per-input cost")
    parser.add_argument("--per-input-only", action="store_true", help="only the per-input cost")
    parser.add_argument("--profile", action="store_true", help="cProfile the per-input loop")
    args = parser.parse_args()
    presses = 20 if args.quick else args.presses
    seconds = 1.0 if args.quick else args.seconds

    print("Mesa table latency (MockFactory pins, luma dummy display, this machine)")
    print(
        f"  one input (press → runtime step → journal), {args.inputs}: {us(per_input(args.inputs))}"
    )
    if args.profile:
        per_input(args.inputs, profile=True)
    if args.per_input_only:
        return
    for full, name in (
        (False, "minimal build (press emitted at release + lockout)"),
        (True, "full build (CUBE+PAUSE: press emitted on the edge)"),
    ):
        state_s, frame_s = latency(presses, full)
        print(f"  {name}, {len(state_s)} presses of 30 ms, lockout 80 ms:")
        print(f"    press edge → state change   {ms(state_s)}")
        print(f"    press edge → frame pushed   {ms(frame_s)}")
    for size, times in render_times(100 if args.quick else 1000).items():
        print(f"  render one frame {size[0]}x{size[1]}:      {ms(times)}")
    share, fps = cpu_share(seconds)
    print(
        f"  CPU while a clock runs (display at {fps} frames/s, journal on): "
        f"{100 * share:.1f} % of one core"
    )
    for length in (5, 7):
        rows = journal_per_match(length, range(2 if args.quick else 5))
        avg = {k: statistics.mean(r[k] for r in rows) for k in rows[0]}
        worst = max(r["bytes"] for r in rows)
        print(
            f"  journal, {length}-point match ({len(rows)} robot matches, "
            f"{avg['minutes']:.0f} min on average): {avg['bytes'] / 1024:.0f} KiB written "
            f"(max {worst / 1024:.0f} KiB; {avg['records']:.0f} records, "
            f"{avg['heartbeats']:.0f} heartbeats), {avg['urgent']:.0f} urgent records, "
            f"~{avg['syncs']:.0f} fsyncs (~{avg['syncs'] * 4 / 1024:.1f} MiB of 4 KiB pages); "
            f"restore {avg['restore_ms']:.1f} ms"
        )
    print(f"  process restart → restored table (mesa sim): {process_restart():.2f} s")


if __name__ == "__main__":
    main()
