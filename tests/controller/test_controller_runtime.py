"""The one consumer loop: order, gating, ticks, sinks, threads, restore."""

from __future__ import annotations

import threading
import time

import pytest
from controller_helpers import Recorder, assign_input, run_until, to_running

from mesa.controller.games.backgammon import button_context
from mesa.controller.games.backgammon.gestures import GestureRecognizer
from mesa.controller.journal import Recovery
from mesa.controller.runtime import ManualClock, ScaledClock, TableRuntime
from mesa.engine.inputs import Input
from mesa.games.backgammon.machine import Table


def make(buttons: bool = False, **kw: object) -> tuple[TableRuntime, ManualClock, Recorder]:
    clock = ManualClock()
    rec = Recorder()
    rt = TableRuntime(
        clock=clock, sinks=[rec], buttons=GestureRecognizer() if buttons else None, **kw
    )  # type: ignore[arg-type]
    return rt, clock, rec


def test_inputs_are_applied_in_time_order_whatever_the_queue_order() -> None:
    rt, clock, rec = make()
    rt.submit(assign_input(), 0.0)
    clock.set(10.0)
    rt.submit(Input("checkin", {"side": "b"}), 2.0)
    rt.submit(Input("checkin", {"side": "a"}), 1.0)
    rt.step()
    names = [(o.input.name, o.input.args.get("side"), o.now) for o in rec.outcomes]
    assert names[:3] == [("assign", None, 0.0), ("checkin", "a", 1.0), ("checkin", "b", 2.0)]
    assert rt.table.state == "between_games"


def test_an_input_stamped_before_one_already_applied_is_applied_not_refused() -> None:
    rt, clock, rec = make()
    rt.submit(assign_input(), 0.0)
    clock.set(5.0)
    rt.step()  # applies a tick at 5.0
    rt.submit(Input("checkin", {"side": "a"}), 4.99)  # a race between stamp and enqueue
    rt.step()
    out = rec.inputs("checkin")[0]
    assert out.accepted and out.now == 5.0
    assert rt.stats.clamped == 1


def test_ticks_come_at_the_tick_interval_and_settle_the_flag() -> None:
    rt, clock, rec = make(tick_interval=0.1)
    to_running(rt, clock)
    before = rt.stats.ticks
    run_until(rt, clock, clock() + 1.0, step=0.01)
    assert 9 <= rt.stats.ticks - before <= 11
    rt.submit(Input("director_adjust", {"side": "b", "seconds": -599.0}), clock())
    run_until(rt, clock, clock() + 12.0, step=0.05)
    assert [e.side for e in rec.events("clock.flag_fell")] == ["b"]
    assert rt.table.state == "match_over"


def test_a_press_released_later_is_timed_at_its_first_edge_and_no_tick_overtakes_it() -> None:
    rt, clock, rec = make(buttons=True)
    rt.submit_edge("a", False, 0.0, initial=True)
    rt.submit_edge("b", False, 0.0, initial=True)
    to_running(rt, clock, first="a")  # b on move
    t0 = clock() + 3.0
    run_until(rt, clock, t0)
    rt.submit_edge("b", True, t0)
    run_until(rt, clock, t0 + 0.5)  # held half a second: no tick after t0 while it is down
    assert max(o.now for o in rec.inputs("tick")) <= t0
    rt.submit_edge("b", False, t0 + 0.5)
    run_until(rt, clock, t0 + 0.7)
    turn = rec.events("turn.ended")[-1]
    assert turn.side == "b" and turn.seconds == pytest.approx(3.0)
    assert not rec.inputs(accepted=False)


def test_a_hub_command_waits_for_a_button_being_decided() -> None:
    rt, clock, rec = make(buttons=True)
    rt.submit_edge("a", False, 0.0, initial=True)
    rt.submit_edge("b", False, 0.0, initial=True)
    to_running(rt, clock, first="a")
    t0 = clock() + 2.0
    run_until(rt, clock, t0)
    rt.submit_edge("b", True, t0)
    run_until(rt, clock, t0 + 0.1)
    rt.submit(Input("director_adjust", {"side": "a", "seconds": 30.0}), t0 + 0.1)
    run_until(rt, clock, t0 + 0.3)
    assert not rec.inputs("director_adjust")  # held back: the press may still come at t0
    assert rt.stats.gated_steps > 0
    rt.submit_edge("b", False, t0 + 0.3)
    run_until(rt, clock, t0 + 0.5)
    order = [o.input.name for o in rec.outcomes if o.input.name != "tick"]
    assert order[-2:] == ["press", "director_adjust"]
    assert all(o.accepted for o in rec.outcomes)


def test_a_hold_doubles_and_both_held_pauses() -> None:
    rt, clock, rec = make(buttons=True)
    rt.submit_edge("a", False, 0.0, initial=True)
    rt.submit_edge("b", False, 0.0, initial=True)
    to_running(rt, clock, first="a")  # b on move, may double
    t0 = clock() + 1.0
    run_until(rt, clock, t0)
    rt.submit_edge("b", True, t0)
    run_until(rt, clock, t0 + 1.0)
    rt.submit_edge("b", False, t0 + 1.0)
    run_until(rt, clock, t0 + 1.2)
    assert rt.table.state == "cube_offered"
    t1 = clock() + 1.0
    run_until(rt, clock, t1)
    rt.submit_edge("a", True, t1)
    rt.submit_edge("b", True, t1 + 0.1)
    run_until(rt, clock, t1 + 1.0)
    assert rt.table.state == "paused"
    assert rec.inputs("both_held")[0].now == pytest.approx(t1 + 0.1)


def test_a_button_held_at_boot_does_not_stop_the_clock() -> None:
    rt, clock, rec = make(buttons=True)
    rt.submit_edge("a", True, 0.0, initial=True)  # stuck down from the start
    rt.submit_edge("b", False, 0.0, initial=True)
    to_running(rt, clock, first="b")  # a on move
    rt.submit(Input("director_adjust", {"side": "a", "seconds": -595.0}), clock())
    run_until(rt, clock, clock() + 20.0, step=0.05)
    assert rec.events("clock.flag_fell")  # ticks kept coming
    assert not rec.inputs("press", accepted=True)[2:]  # the stuck button pressed nothing


def test_every_sink_sees_every_outcome_with_the_snapshot_after_it() -> None:
    rt, _clock, rec = make()
    seen = []

    class Broken:
        def on_outcome(self, outcome, snapshot, now):  # type: ignore[no-untyped-def]
            raise OSError("disk full")

    class Snap:
        def on_outcome(self, outcome, snapshot, now):  # type: ignore[no-untyped-def]
            seen.append((outcome.input.name, snapshot["state"]))

    rt.add_sink(Broken())
    rt.add_sink(Snap())
    rt.submit(assign_input(), 0.0)
    rt.submit(Input("checkin", {"side": "a"}), 0.0)
    rt.step()
    assert seen[:2] == [("assign", "assigned"), ("checkin", "checking_in")]
    assert rt.stats.sink_errors >= 2
    assert len(rec.outcomes) == len(seen)


def test_a_hand_built_input_is_validated_by_the_machine() -> None:
    rt, _clock, rec = make()
    rt.submit(Input("assign", {"match_id": "M", "players": {"a": "A", "b": "B"}, "length": 3}), 0)
    rt.submit(Input("press", {"side": "z"}), 0.0)
    rt.step()
    assert rec.outcomes[0].accepted  # defaults filled in
    assert rec.outcomes[1].refusal is not None and rec.outcomes[1].refusal.code == "bad_input"


def test_restore_pauses_a_running_clock_at_the_journal_instant() -> None:
    table = Table()
    for name, args, t in [
        ("assign", assign_input().args, 0.0),
        ("checkin", {"side": "a"}, 1.0),
        ("checkin", {"side": "b"}, 2.0),
        ("press", {"side": "a"}, 3.0),
    ]:
        assert table.apply(name, args, now=t).accepted
    clock = ManualClock(start=7.5)  # a fresh boot: the monotonic clock restarted
    rec = Recorder()
    rt = TableRuntime(clock=clock, sinks=[rec])
    outcome = rt.restore(Recovery(table, last_t=43.0))
    assert rt.now() == 43.0
    assert rt.table.state == "paused"
    types = [e.TYPE for e in outcome.events]
    assert types == ["clock.paused", "table.restored"]
    assert outcome.events[-1].state == "running"
    # b was on move from 3.0 to 43.0: 40 s, 10 s of delay, 30 s off the reserve.
    assert rt.view().clocks["b"].reserve == pytest.approx(600.0 - 30.0)
    assert rt.status.restored
    clock.advance(100.0)
    rt.submit(Input("resume"), rt.now())
    rt.step()
    assert rt.table.state == "running" and not rt.status.restored
    assert rt.view().clocks["b"].reserve == pytest.approx(570.0)  # the downtime was nobody's


def test_button_context_follows_the_state() -> None:
    table = Table()
    table.apply("assign", assign_input().args, now=0.0)
    assert button_context(table).hold == {"a": False, "b": False}
    table.apply("checkin", {"side": "a"}, now=1.0)
    table.apply("checkin", {"side": "b"}, now=1.0)
    ctx = button_context(table)
    assert ctx.both and not ctx.edge["a"]
    assert button_context(table, frozenset({"cube", "pause"})).edge == {"a": True, "b": True}
    table.apply("press", {"side": "a"}, now=2.0)  # b on move
    assert button_context(table).hold == {"a": False, "b": True}
    full = button_context(table, frozenset({"cube", "pause"}))
    assert full.hold == {"a": False, "b": False} and full.edge == {"a": True, "b": True}
    table.apply("double", {"side": "b"}, now=3.0)
    assert button_context(table).hold == {"a": True, "b": False}


def test_the_loop_in_its_own_thread_with_submitters_in_others() -> None:
    rec = Recorder()
    rt = TableRuntime(sinks=[rec])
    rt.start()
    try:
        rt.submit(assign_input(), rt.now())
        threads = [
            threading.Thread(target=rt.submit, args=(Input("checkin", {"side": s}), rt.now()))
            for s in "ab"
        ]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        deadline = time.monotonic() + 5
        while rt.view().state != "between_games" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert rt.view().state == "between_games"
        assert rt.latest_view is not None
        version = rt.version
        assert rt.wait_for_change(version, 2.0) > version  # ticks publish views
    finally:
        rt.stop()
    assert not rt.running


def test_scaled_clock_runs_faster() -> None:
    c = ScaledClock(speed=50.0, start=10.0)
    a = c()
    time.sleep(0.02)
    assert c() - a >= 0.9
    with pytest.raises(ValueError):
        ScaledClock(speed=0)


def test_notices_expire_in_table_time() -> None:
    rt, clock, _rec = make()
    rt.notice("notice.card_garbage", seconds=3.0)
    assert rt.status.notice == "notice.card_garbage"
    clock.advance(3.5)
    rt.step()
    assert rt.status.notice is None


def test_the_cheap_snapshot_of_a_quiet_tick_is_the_full_snapshot() -> None:
    from mesa.controller.games.backgammon.robots import RobotPlayers, play

    clock = ManualClock()
    rt = TableRuntime(clock=clock)
    compared = []

    class Check:
        def on_outcome(self, outcome, snapshot, now):  # type: ignore[no-untyped-def]
            assert snapshot == rt.table.snapshot(), outcome.input
            compared.append(outcome.input.name)

    rt.add_sink(Check())
    rt.submit(assign_input(length=3, scheduled_start=0.0), 0.0)
    play(rt, RobotPlayers(seed=2), clock, max_step=0.7)
    assert compared.count("tick") > 1000
