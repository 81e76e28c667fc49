"""What the runtime tells the screen beside the table's state: a refused double explained for
2 s, and the finished match's result kept on screen while the next assignment waits."""

from __future__ import annotations

from controller_helpers import assign_input, run_until

from mesa.controller.games.backgammon import REFUSAL_NOTICE_S, button_context
from mesa.controller.games.backgammon.gestures import GestureRecognizer
from mesa.controller.games.backgammon.oled import compose
from mesa.controller.runtime import ManualClock, TableRuntime
from mesa.engine.inputs import Input


def _submit(rt: TableRuntime, clock: ManualClock, *inputs: Input) -> None:
    for inp in inputs:
        clock.advance(1.0)
        rt.submit(inp, clock())
        rt.step()


def _crawford_game(rt: TableRuntime, clock: ManualClock) -> None:
    _submit(
        rt,
        clock,
        assign_input(),
        Input("checkin", {"side": "a"}),
        Input("checkin", {"side": "b"}),
        Input("director_score", {"a": 4, "b": 2}),
        Input("press", {"side": "b"}),  # b rolled lower: a on move
    )
    assert rt.view().crawford == "crawford" and rt.view().on_move == "a"


def test_a_hold_to_double_in_the_crawford_game_is_refused_and_explained() -> None:
    clock = ManualClock()
    rt = TableRuntime(clock=clock, buttons=GestureRecognizer())
    rt.submit_edge("a", False, clock(), initial=True)
    rt.submit_edge("b", False, clock(), initial=True)
    _crawford_game(rt, clock)
    assert button_context(rt.table).hold["a"]  # the hold reaches the table, which refuses it
    rt.submit_edge("a", True, clock())
    run_until(rt, clock, clock() + 1.0)
    rt.submit_edge("a", False, clock())
    run_until(rt, clock, clock() + 0.3)
    assert rt.stats.refusals.get("crawford") == 1
    assert rt.table.state == "running" and rt.view().on_move == "a"  # nothing else happened
    status = rt.status
    assert status.notice == "refusal.crawford"
    screen = compose(rt.view(), status, rt.now())
    assert screen.pin == "No se puede doblar\nen el Crawford"
    run_until(rt, clock, clock() + REFUSAL_NOTICE_S)
    assert rt.status.notice is None
    assert "No se puede" not in compose(rt.view(), rt.status, rt.now()).pin


def test_a_refused_double_outside_crawford_and_dmp_says_nothing() -> None:
    clock = ManualClock()
    rt = TableRuntime(clock=clock)
    _crawford_game(rt, clock)
    _submit(rt, clock, Input("double", {"side": "b"}))  # not on move: refused, no notice
    assert rt.stats.refused == 1
    assert rt.status.notice is None


def _finished(rt: TableRuntime, clock: ManualClock) -> None:
    _submit(
        rt,
        clock,
        assign_input(length=3),
        Input("checkin", {"side": "a"}),
        Input("checkin", {"side": "b"}),
        Input("director_score", {"a": 3, "b": 1}),
    )
    assert rt.table.state == "match_over"


def test_the_result_stays_on_screen_until_a_press_which_checks_nobody_in() -> None:
    clock = ManualClock()
    rt = TableRuntime(clock=clock)
    _finished(rt, clock)
    _submit(rt, clock, assign_input(match_id="T-2", players={"a": "Carmen", "b": "Diego"}))
    assert rt.table.state == "assigned"
    screen = compose(rt.view(), rt.status, rt.now())
    assert screen.layout == "over" and screen.score == "3-1" and screen.names == ("Ana", "Beto")
    assert screen.lines[-1] == "Siguiente: T-2 · pulsa"
    run_until(rt, clock, clock() + 30.0)  # it stays: no timer takes it away
    assert compose(rt.view(), rt.status, rt.now()).layout == "over"
    _submit(rt, clock, Input("press", {"side": "a"}))
    assert rt.table.state == "assigned" and rt.view().checked_in == ()
    screen = compose(rt.view(), rt.status, rt.now())
    assert screen.layout == "checkin" and screen.names == ("Carmen", "Diego")
    _submit(rt, clock, Input("press", {"side": "a"}))  # now the press checks in
    assert rt.view().checked_in == ("a",)


def test_a_check_in_replaces_the_held_result() -> None:
    clock = ManualClock()
    rt = TableRuntime(clock=clock)
    _finished(rt, clock)
    _submit(rt, clock, assign_input(match_id="T-2"), Input("checkin", {"side": "b"}))
    assert rt.status.held_result is None and rt.table.state == "checking_in"
    assert compose(rt.view(), rt.status, rt.now()).layout == "checkin"
