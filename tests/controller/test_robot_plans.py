"""The planning loop every robot player shares: one input at a time, handed over when due, planned
again when the view changes or when a handed-over input changed nothing for a while."""

from __future__ import annotations

from typing import Any

from mesa.controller.robot_plans import InputCounts, Plan, PlannedPlayers
from mesa.engine.inputs import Input


class Counter(PlannedPlayers[tuple[str, str]]):
    """Views are (state, side on turn); presses for the side on turn 1 s after each view."""

    retry_after = 5.0

    def __init__(self) -> None:
        super().__init__(seed=3, stats=InputCounts())
        self.plans = 0

    def _key_of(self, view: tuple[str, str]) -> Any:
        return view

    def _turn_passed(self, old: Any, view: tuple[str, str]) -> bool:
        return old[0] == view[0] == "running" and old[1] != view[1]

    def _make_plan(self, view: tuple[str, str], now: float) -> Plan | None:
        self.plans += 1
        return Plan(now + 1.0, Input("press", {"side": view[1]}))


def test_one_input_when_due_then_nothing_until_the_view_changes() -> None:
    c = Counter()
    assert c.poll(("running", "a"), 0.0) is None
    first = c.poll(("running", "a"), 1.0)
    assert first is not None and first.args == {"side": "a"}
    assert c.poll(("running", "a"), 2.0) is None  # handed over once
    assert c.next_time() == 6.0
    assert c.stats.inputs == 1 and c.stats.by_name == {"press": 1}


def test_an_input_that_changed_nothing_is_planned_again() -> None:
    c = Counter()
    c.poll(("running", "a"), 0.0)
    c.poll(("running", "a"), 1.0)
    c.poll(("running", "a"), 6.0)  # 5 s and the view is the same: think again
    assert c.poll(("running", "a"), 6.5) is None
    again = c.poll(("running", "a"), 7.5)
    assert again is not None and c.plans == 2 and c.stats.inputs == 2


def test_turns_count_only_what_the_game_calls_a_turn() -> None:
    c = Counter()
    for view in [("running", "a"), ("running", "b"), ("paused", "b"), ("running", "a")]:
        c.poll(view, 0.0)
    assert c._turns == 1  # a → b while running; the pause and its end are not turns
