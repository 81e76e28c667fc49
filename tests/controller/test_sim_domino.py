"""``mesa sim --game domino``: whole robot games to their end, by points and by time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mesa.controller.games.backgammon.robots import play
from mesa.controller.games.domino.robots import FAST, DominoRobots, game_signed
from mesa.controller.runtime import ManualClock, TableRuntime
from mesa.controller.sim import SimTable
from mesa.engine.inputs import Input

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}


class Events:
    def __init__(self) -> None:
        self.types: list[str] = []

    def on_outcome(self, outcome, snapshot, now) -> None:  # type: ignore[no-untyped-def]
        self.types += [e.TYPE for e in outcome.events]
        assert outcome.refusal is None or outcome.input.name == "tick", outcome.refusal


def test_robots_play_a_whole_game_to_200_points_in_virtual_time() -> None:
    for seed in range(3):
        clock = ManualClock()
        events = Events()
        rt = TableRuntime(game="domino", clock=clock, sinks=[events])
        rt.submit(Input("assign", {"game_id": f"R-{seed}", "players": PLAYERS}), 0.0)
        rt.submit(Input("tiempo", {"start_wall": 0.0, "wall": 0.0}), 0.0)
        robots = DominoRobots(seed=seed)
        view = play(rt, robots, clock, until=game_signed)
        assert view.ended_by == "points" and max(view.score.values()) >= 200
        assert view.winner == max(view.score, key=view.score.__getitem__)
        assert events.types.count("domino.hand.ended") == view.hand >= 2
        assert events.types[-1] == "domino.sheet.signed"
        assert robots.stats.by_name["long_hold"] >= 2 * view.hand  # a hand's end and its accept
        assert rt.stats.refused == 0


def test_robots_play_a_game_that_ends_on_time() -> None:
    clock = ManualClock()
    events = Events()
    rt = TableRuntime(game="domino", clock=clock, sinks=[events])
    settings = {"game_minutes": 6, "target_points": 1000}
    rt.submit(Input("assign", {"game_id": "T", "players": PLAYERS, "settings": settings}), 0.0)
    rt.submit(Input("tiempo", {"start_wall": 0.0, "wall": 0.0}), 0.0)
    view = play(rt, DominoRobots(seed=9, style=FAST), clock, until=game_signed)
    assert view.ended_by == "time"
    assert "domino.time.called" in events.types
    assert view.score["ns"] != view.score["ew"]  # a tie plays another hand


def test_the_simulated_table_plays_on_its_own_clock() -> None:
    sim = SimTable(
        "dom-t", game="domino", speed=300, seed=6, auto_assign=True, style=FAST, matches=1
    )
    sim.start()
    try:
        assert sim.wait_games(1, timeout=120)
    finally:
        sim.stop()
    view = sim.runtime.view()
    assert view.state == "game_over" and view.game_id == "dom-t-G1"
    assert len(view.signed) == 2


def test_mesa_sim_game_domino_headless_runs_a_game_to_its_end(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mesa", "sim", "--game", "domino", "--headless", "--fast",
         "--speed", "300", "--games", "1", "--seed", "2", "--journal", str(tmp_path / "j"),
         "--log-level", "error"],
        cwd=ROOT, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert lines[0]["event"] == "start" and lines[0]["restored"] is False
    last = lines[-1]
    assert last["event"] == "stop" and last["state"] == "game_over" and last["games"] == 1
    assert max(last["score"].values()) >= 200 or last["time_left"] <= 0
    assert list((tmp_path / "j").glob("journal-*.jsonl"))
