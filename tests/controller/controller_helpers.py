"""Shared fakes for the controller tests: only pins (gpiozero's MockFactory), the display (luma's
dummy) and time are faked.

``TimedMockFactory`` is gpiozero's MockFactory whose ticks come from a test clock, so edges can be
driven at exact virtual instants (thousands of presses with bounce, in milliseconds of real time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin

from mesa.controller.runtime import ManualClock, TableRuntime
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome

PLAYERS = {"a": "Ana", "b": "Beto"}
CARDS = {"a": "CARD-A", "b": "CARD-B"}


class TimedMockPin(MockPin):
    """A MockPin that stamps its edges with the factory's (test) clock."""

    def _change_state(self, value: bool) -> bool:
        if self._state != value:
            t = self._factory.ticks()
            self._state = value
            self._last_change = t
            return True
        return False


class TimedMockFactory(MockFactory):
    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__(pin_class=TimedMockPin)
        self._test_clock = clock

    def ticks(self) -> float:  # type: ignore[override]
        return self._test_clock()

    @staticmethod
    def ticks_diff(later: float, earlier: float) -> float:
        return later - earlier


class Recorder:
    """An OutcomeSink keeping every outcome."""

    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []
        self.snapshots: list[dict[str, Any]] = []

    def on_outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float) -> None:
        self.outcomes.append(outcome)
        self.snapshots.append(snapshot)

    def events(self, type_name: str) -> list[Any]:
        return [e for o in self.outcomes for e in o.events if type_name == e.TYPE]

    def inputs(self, name: str | None = None, accepted: bool | None = None) -> list[Outcome]:
        return [
            o
            for o in self.outcomes
            if (name is None or o.input.name == name)
            and (accepted is None or o.accepted == accepted)
        ]


def assign_input(length: int = 5, **extra: Any) -> Input:
    args: dict[str, Any] = {
        "match_id": "T-1",
        "players": dict(PLAYERS),
        "length": length,
        "clock": {"preset": "singles"},
        "cards": dict(CARDS),
    }
    args.update(extra)
    return Input("assign", args)


def run_until(rt: TableRuntime, clock: ManualClock, until: float, step: float = 0.01) -> None:
    """Advance the test clock to ``until`` in ``step``s, running the loop at each."""
    while clock() < until - 1e-12:
        clock.set(min(until, clock() + step))
        rt.step()


def to_running(rt: TableRuntime, clock: ManualClock, first: str = "a") -> None:
    """Assign, check both players in and start a game (``first`` rolled lower)."""
    for inp in (
        assign_input(),
        Input("checkin", {"side": "a"}),
        Input("checkin", {"side": "b"}),
        Input("press", {"side": first}),
    ):
        clock.advance(1.0)
        rt.submit(inp, clock())
        rt.step()
    assert rt.table.state == "running", rt.table.state
