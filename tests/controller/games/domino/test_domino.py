"""The domino table's runtime: button edges through the gestures to the machine, the journal
and the restore after a crash, the LEDs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mesa.controller.games.backgammon.robots import play
from mesa.controller.games.domino import led_modes, seat_context
from mesa.controller.games.domino.gestures import SEAT_BUTTONS, SeatGestureRecognizer
from mesa.controller.games.domino.robots import FAST, DominoRobots, game_signed
from mesa.controller.gpio import TableOutputs
from mesa.controller.journal import Journal
from mesa.controller.runtime import ManualClock, TableRuntime
from mesa.engine.inputs import Input

PLAYERS = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}


class Recorder:
    def __init__(self) -> None:
        self.events: list[str] = []
        self.inputs: list[tuple[str, dict[str, Any], bool]] = []

    def on_outcome(self, outcome: Any, snapshot: dict[str, Any], now: float) -> None:
        self.events += [e.TYPE for e in outcome.events]
        if outcome.input.name != "tick":
            self.inputs.append((outcome.input.name, dict(outcome.input.args), outcome.accepted))


def started(clock: ManualClock, **kw: Any) -> TableRuntime:
    rt = TableRuntime(game="domino", clock=clock, **kw)
    rt.submit(Input("assign", {"game_id": "G1", "players": PLAYERS}), rt.now())
    rt.submit(Input("tiempo", {"start_wall": 500.0, "wall": 560.0}), rt.now())  # 1 min late
    rt.step()
    return rt


def gesture(rt: TableRuntime, clock: ManualClock, seat: str, seconds: float) -> None:
    """A real button: closed for ``seconds``, with the loop stepping every 20 ms meanwhile."""
    rt.submit_edge(seat, True, rt.now())
    end = clock() + seconds
    while clock() < end:
        clock.advance(0.02)
        rt.step()
    rt.submit_edge(seat, False, rt.now())
    for _ in range(10):
        clock.advance(0.02)
        rt.step()


def test_a_hand_played_with_the_four_buttons() -> None:
    clock = ManualClock()
    rec = Recorder()
    rt = started(clock, buttons=SeatGestureRecognizer(), sinks=[rec])
    for seat in SEAT_BUTTONS:
        rt.submit_edge(seat, False, rt.now(), initial=True)
    assert rt.view().game_time_left == 2040.0
    gesture(rt, clock, "n", 0.1)  # n leads
    gesture(rt, clock, "w", 0.1)  # w plays
    gesture(rt, clock, "s", 1.2)  # s: "paso"
    gesture(rt, clock, "e", 2.5)  # e: the last tile (domino)
    assert rt.view().state == "hand_entry"
    for _ in range(3):
        gesture(rt, clock, "w", 1.0)  # the tens: 30
    for _ in range(2):
        gesture(rt, clock, "e", 0.1)  # the units: 32
    gesture(rt, clock, "w", 2.2)  # accept
    assert rt.view().claim == {"by": "w", "pair": "ew", "points": 32}
    gesture(rt, clock, "n", 1.0)  # the other pair confirms
    v = rt.view()
    assert v.state == "ready" and v.score == {"ns": 0, "ew": 32} and v.next_lead == "w"
    assert [(n, a["seat"]) for n, a, ok in rec.inputs if "seat" in a][:4] == [
        ("press", "n"),
        ("press", "w"),
        ("hold", "s"),
        ("long_hold", "e"),
    ]
    assert all(ok for _, _, ok in rec.inputs)


def test_the_buttons_context_follows_the_state() -> None:
    clock = ManualClock()
    rt = started(clock)
    rt.submit(Input("press", {"seat": "n"}), rt.now())
    rt.step()
    ctx = seat_context(rt.table)
    assert ctx.hold == {"n": False, "e": False, "s": False, "w": True}  # w on turn: "paso"
    assert all(ctx.long.values())  # a block from anyone, a domino from w
    rt.submit(Input("long_hold", {"seat": "w"}), rt.now())
    rt.step()
    ctx = seat_context(rt.table)
    assert ctx.hold == {"n": False, "e": True, "s": False, "w": True}  # ew enter the points
    rt.submit(Input("long_hold", {"seat": "e"}), rt.now())
    rt.step()
    ctx = seat_context(rt.table)
    assert ctx.hold == {"n": True, "e": False, "s": True, "w": False} and not any(ctx.long.values())


def test_the_leds_show_the_seat_on_turn_and_who_the_table_waits_for() -> None:
    clock = ManualClock()
    out = TableOutputs(game="domino")
    rt = started(clock, sinks=[out])
    rt.add_view_listener(out.update)  # type: ignore[arg-type]
    rt.submit(Input("press", {"seat": "e"}), rt.now())
    clock.advance(1.0)
    rt.step()
    assert out.led_state == {"n": "on", "e": "off", "s": "off", "w": "off"}
    clock.advance(15.0)
    rt.step()
    assert out.led_state["n"] == "blink" and out.beeps[-1].count == 1  # over the 15 s
    rt.submit(Input("press", {"seat": "n"}), rt.now())
    rt.step()
    assert out.beeps[-1].count == 2  # the first slow play: a warning
    assert led_modes(rt.view())["w"] == "on"


def test_the_journal_restores_a_game_in_progress(tmp_path: Path) -> None:
    clock = ManualClock(100.0)
    journal = Journal(tmp_path, game="domino", fsync=False)
    recovery = journal.prepare(rt := started(clock))
    assert recovery is None
    robots = DominoRobots(seed=4, style=FAST)
    # Play until the third hand is under way, then "crash" (no close, no flush).
    play(rt, robots, clock, until=lambda v: v.hand >= 3 and v.state == "playing")
    clock.advance(0.5)
    rt.step()
    before = rt.snapshot()
    view_before = rt.view()
    journal._fd = None  # the process is gone: nothing more reaches the file

    clock2 = ManualClock(7.0)  # a reboot: a new monotonic clock
    rt2 = TableRuntime(game="domino", clock=clock2)
    again = Journal(tmp_path, game="domino", fsync=False)
    rec = again.prepare(rt2)
    assert rec is not None and rec.problems == []
    out = rt2.restore(rec)
    assert [e.TYPE for e in out.events][-1] == "table.restored"
    after = rt2.snapshot()
    assert {k: v for k, v in after.items() if k != "last_now"} == {
        k: v for k, v in before.items() if k != "last_now"
    }
    view = rt2.view()
    assert view.state == view_before.state and view.score == view_before.score
    assert view.game_time_left is not None and view_before.game_time_left is not None
    # The restored table's clock continues where the journal left it: within a heartbeat.
    assert 0.0 <= view.game_time_left - view_before.game_time_left <= 1.0
    assert rt2.status.restored
    # And it plays on to the end.
    play(rt2, DominoRobots(seed=5, style=FAST), clock2, until=game_signed)
    assert rt2.view().state == "game_over"
    again.close()
