"""Robot players play whole matches: through the menu inputs, or with only the two buttons."""

from __future__ import annotations

import pytest
from controller_helpers import Recorder, assign_input

from mesa.controller.games.backgammon.robots import (
    FAST,
    RobotDriver,
    RobotPlayers,
    RobotStyle,
    play,
)
from mesa.controller.runtime import ManualClock, ScaledClock, TableRuntime
from mesa.engine.inputs import Input


def match(seed: int, ui: str, length: int = 5) -> tuple[TableRuntime, Recorder, RobotPlayers]:
    clock = ManualClock()
    rec = Recorder()
    rt = TableRuntime(clock=clock, sinks=[rec])
    rt.submit(assign_input(length=length), 0.0)
    robots = RobotPlayers(seed=seed, style=RobotStyle(ui=ui))
    play(rt, robots, clock, max_step=5.0)
    return rt, rec, robots


@pytest.mark.parametrize("ui", ["menu", "buttons"])
@pytest.mark.parametrize("seed", range(6))
def test_robots_play_a_whole_match_without_a_refused_input(seed: int, ui: str) -> None:
    rt, rec, _robots = match(seed, ui)
    view = rt.view()
    assert view.state == "match_over"
    assert view.winner in ("a", "b")
    games = rec.events("game.ended")
    assert games and sum(g.points for g in games) == sum(view.score.values())
    refused = [o for o in rec.outcomes if not o.accepted]
    assert refused == [], [(o.input, o.refusal) for o in refused]
    if ui == "buttons":
        used = {o.input.name for o in rec.outcomes} - {"assign", "tick"}
        assert used <= {"press", "hold", "both_held", "pause", "resume"}


def test_robots_are_realistic_enough() -> None:
    thinks: list[float] = []
    doubles = passes = claims = 0
    for seed in range(8):
        _rt, rec, _robots = match(seed, "menu", length=7)
        thinks += [e.seconds for e in rec.events("turn.ended")]
        doubles += len(rec.events("cube.offered"))
        passes += len(rec.events("cube.passed"))
        claims += len(rec.events("result.claimed"))
    thinks.sort()
    median = thinks[len(thinks) // 2]
    assert 4.0 < median < 12.0  # seconds per turn, like people
    assert thinks[-1] > 15.0  # and some long thinks
    assert doubles > 5 and passes > 0 and claims > 5


def test_robots_take_only_their_own_side() -> None:
    clock = ManualClock()
    rt = TableRuntime(clock=clock)
    rt.submit(assign_input(), 0.0)
    robots = RobotPlayers(("b",), seed=1, style=FAST)
    play(rt, robots, clock, until=lambda v: v.state == "checking_in" or clock() > 100)
    assert rt.view().checked_in == ("b",)  # a is a person who has not come yet
    rt.submit(Input("checkin", {"side": "a"}), clock())
    view = play(rt, robots, clock, until=lambda v: v.state == "running" or clock() > 300)
    assert view.state in ("between_games", "running")  # waiting for the person's roll


def test_a_robot_driver_plays_beside_a_live_runtime() -> None:
    rec = Recorder()
    rt = TableRuntime(clock=ScaledClock(speed=200), speed=200, sinks=[rec])
    rt.submit(assign_input(length=1), rt.now())
    driver = RobotDriver(rt, RobotPlayers(seed=3, style=FAST))
    rt.start()
    driver.start()
    try:
        import time

        deadline = time.monotonic() + 60
        while rt.view().state != "match_over" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert rt.view().state == "match_over"
    finally:
        driver.stop()
        rt.stop()
