"""The domino table's figures: screen render time, a robot game in virtual time, its journal and
the restore from it, and a seat button's press edge to the frame that shows it.

Usage: .venv/bin/python bench/domino_table.py [--games 5]

Prints one JSON object: render time per frame (p50/p99, ms) at each display size over every
reference scene; for ``--games`` robot games played to their end in virtual time: the real time
a game takes to simulate, its hands, inputs, journal bytes and urgent records, and the time to
restore the table from that journal; and a seat's press edge (50 ms of contact) → the turn
moving on (ms, p50/p99) through gpiozero's MockFactory, the gestures and the loop, in real time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from typing import Any


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 3)


def render_times() -> dict[str, Any]:
    from mesa.controller.games.domino.oled import SIZES, render
    from mesa.controller.games.domino.scenes import scenes

    out = {}
    all_scenes = scenes()
    for size in SIZES:
        times = []
        for _ in range(5):
            for s in all_scenes:
                t0 = time.perf_counter()
                render(s.view, s.status, s.now, size)
                times.append(1000 * (time.perf_counter() - t0))
        out[f"{size[0]}x{size[1]}"] = {"p50_ms": _pct(times, 0.5), "p99_ms": _pct(times, 0.99)}
    return out


def games(count: int) -> dict[str, Any]:
    from mesa.controller.games.backgammon.robots import play
    from mesa.controller.games.domino.robots import DominoRobots, game_signed
    from mesa.controller.journal import Journal
    from mesa.controller.runtime import ManualClock, TableRuntime
    from mesa.engine.inputs import Input

    players = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}
    rows = []
    for seed in range(count):
        folder = tempfile.mkdtemp()
        journal = Journal(folder, game="domino", fsync=False)
        clock = ManualClock()
        rt = TableRuntime(game="domino", clock=clock)
        journal.prepare(rt)
        rt.submit(Input("assign", {"game_id": f"B{seed}", "players": players}), 0.0)
        rt.submit(Input("tiempo", {"start_wall": 0.0, "wall": 0.0}), 0.0)
        robots = DominoRobots(seed=seed)
        t0 = time.perf_counter()
        view = play(rt, robots, clock, until=game_signed)
        real = time.perf_counter() - t0
        journal.close()
        rec = Journal(folder, game="domino", fsync=False).recover()
        rows.append({
            "simulate_s": round(real, 3), "table_s": round(clock(), 1), "hands": view.hand,
            "ended_by": view.ended_by, "inputs": robots.stats.inputs,
            "journal_bytes": journal.stats.bytes_written, "urgent": journal.stats.urgent,
            "records": journal.stats.records, "restore_ms": round(1000 * rec.seconds, 2),
        })  # fmt: skip
    return {
        "games": rows,
        "median_simulate_s": statistics.median(r["simulate_s"] for r in rows),
        "median_journal_bytes": statistics.median(r["journal_bytes"] for r in rows),
    }


def press_to_frame(presses: int = 40) -> dict[str, Any]:
    from gpiozero.pins.mock import MockFactory

    from mesa.controller.app import TableApp
    from mesa.controller.config import parse_config
    from mesa.engine.inputs import Input

    cfg = parse_config(
        '[table]\ngame = "domino"\n[buttons]\nn = 17\ne = 27\ns = 22\nw = 23\n'
        '[display]\nmodel = "dummy"\nfps = 10.0\n'
    )
    factory = MockFactory()
    app = TableApp(cfg, pin_factory=factory, notifier=None)
    app.start()
    rt = app.runtime

    players = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}
    rt.submit(Input("assign", {"game_id": "L", "players": players}), rt.now())
    rt.submit(Input("tiempo", {"start_wall": 0.0, "wall": 0.0}), rt.now())
    time.sleep(0.3)
    order = {"n": "w", "w": "s", "s": "e", "e": "n"}
    pins = {"n": 17, "e": 27, "s": 22, "w": 23}
    seat = "n"
    out = []
    for _ in range(presses):
        version = rt.version
        t0 = time.perf_counter()
        factory.pin(pins[seat]).drive_low()
        time.sleep(0.05)
        factory.pin(pins[seat]).drive_high()
        # The press is decided after the release lockout; wait for the turn to move on.
        nxt = order[seat]
        while rt.view().on_turn != nxt and time.perf_counter() - t0 < 2.0:
            rt.wait_for_change(version, 0.01)
            version = rt.version
        out.append(1000 * (time.perf_counter() - t0))
        seat = nxt
        time.sleep(0.2)
    app.stop()
    return {
        "press_edge_to_state_ms": {"p50": _pct(out, 0.5), "p99": _pct(out, 0.99), "contact_ms": 50}
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    print(
        json.dumps(
            {"render": render_times(), "robot_games": games(args.games), **press_to_frame()},
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
