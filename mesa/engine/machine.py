"""The one apply loop every game's table runs: parse → settle → copy → declared check → handler
→ declared-target check → rollback.

A game's machine subclasses :class:`Machine`, names its inputs (``INPUTS``, ``RANGES``) and its
transition table (``TRANSITIONS``), and writes one handler ``_on_<input>`` per input. The loop
guarantees, for every game alike, that a refused input changes nothing (except what time
settled before it), and that a handler ending in a state its transition does not declare is a
bug: refused as ``internal_error`` and rolled back.

>>> from dataclasses import dataclass
>>> from mesa.engine.inputs import spec
>>> from mesa.engine.transitions import transition
>>> @dataclass
... class Lamp:
...     state: str = "off"
...     last_now: float | None = None
>>> class LampMachine(Machine[Lamp]):
...     INPUTS = {"toggle": spec("toggle", "button", "Toggle."),
...               "break": spec("break", "button", "A bug.")}
...     TRANSITIONS = {("off", "toggle"): transition("on", note=""),
...                    ("off", "break"): transition("off", note="")}
...     def _on_toggle(self, inp, now): self.s.state = "on"
...     def _on_break(self, inp, now): self.s.state = "broken"
>>> m = LampMachine(Lamp())
>>> m.apply("toggle", now=1.0).state, m.apply("toggle", now=2.0).refusal.code
('on', 'not_now')
>>> m = LampMachine(Lamp()); m.apply("break", now=1.0).refusal.code, m.state
('internal_error', 'off')
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from mesa import events as ev
from mesa.engine.inputs import Input, InputError, InputSpec, parse_input
from mesa.engine.outcome import Outcome, Refusal, Refused
from mesa.engine.state_copy import copy_state
from mesa.engine.transitions import Transition
from mesa.errors import RuleError

__all__ = ["Machine", "MachineState", "UndeclaredTransitionError"]

log = logging.getLogger(__name__)


class MachineState(Protocol):
    """What the loop needs of a game's state: where it is, and the last input's instant."""

    state: str
    last_now: float | None


S = TypeVar("S", bound=MachineState)


class UndeclaredTransitionError(RuntimeError):
    """A handler moved the table to a state its game's transition table does not declare for its
    input (a bug in the machine, reported as an internal error and rolled back)."""

    def __init__(self, state: str, name: str, target: str) -> None:
        super().__init__(f"{name} in {state} went to {target}, which is not declared "
                         f"for ({state}, {name})")
        self.state, self.name, self.target = state, name, target


class Machine(Generic[S]):
    """A game's table: its state ``s`` and the loop that applies inputs to it."""

    INPUTS: ClassVar[Mapping[str, InputSpec]]
    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {}
    TRANSITIONS: ClassVar[Mapping[tuple[str, str], Transition]]
    LABEL: ClassVar[str] = "table"  # how the log names this game's table

    def __init__(self, state: S) -> None:
        self.s = state
        self._events: list[ev.Event] = []

    @property
    def state(self) -> str:
        return self.s.state

    # ── the one entry point ─────────────────────────────────────────────
    def apply(
        self, name: str | Input, args: dict[str, Any] | None = None, *, now: float
    ) -> Outcome:
        """Apply one input at ``now`` (seconds on the table's monotonic clock)."""
        try:
            # An Input built by hand is validated too: defaults are filled, types checked.
            inp = (parse_input(self.INPUTS, name.name, name.args, self.RANGES)
                   if isinstance(name, Input)
                   else parse_input(self.INPUTS, name, args or {}, self.RANGES))
        except InputError as e:
            raw = name if isinstance(name, Input) else Input(
                str(name), dict(args) if isinstance(args, dict) else {})
            return Outcome(raw, now, self.s.state, refusal=Refusal(e.code, str(e)))
        if self.s.last_now is not None and now < self.s.last_now:
            return Outcome(inp, now, self.s.state, refusal=Refusal(
                "time_backwards",
                f"input at {now:.3f} s is older than the last one ({self.s.last_now:.3f} s)"))
        self._events = []
        self.s.last_now = now
        # What time alone decides (a fallen flag, "TIEMPO") stands even if the input is refused.
        self._settle(now)
        settled = list(self._events)
        early = self._settled_outcome(inp, now, settled)
        if early is not None:
            return early
        # Handlers may refuse half-way; restoring a copy keeps "refused changes nothing" simple.
        before = self._copy_state()
        start = self.s.state
        try:
            declared = self.TRANSITIONS.get((start, inp.name))
            if declared is None:
                raise Refused("not_now", f"{inp.name} does nothing while {start}")
            self._handler(inp.name)(inp, now)
            if self.s.state not in declared.targets:
                # The transition table is the contract (docs, hub, tests): a handler that
                # leaves it is a bug, refused and rolled back like any other.
                raise UndeclaredTransitionError(start, inp.name, self.s.state)
        except Exception as e:
            kept = self._kept_on_refusal(self._events[len(settled):])
            self.s = before
            self.s.last_now = now
            return Outcome(inp, now, self.s.state, settled + kept, self._refusal(inp, e))
        return Outcome(inp, now, self.s.state, list(self._events))

    def _refusal(self, inp: Input, e: Exception) -> Refusal:
        if isinstance(e, Refused):
            return e.refusal
        if isinstance(e, RuleError):
            return Refusal(e.code, str(e))
        # A bug must never leave a half-applied input behind or stop the clock.
        log.exception("%s: %s refused after an internal error", self.LABEL, inp.name)
        return Refusal("internal_error", f"internal error: {type(e).__name__}: {e}")

    # ── what a game may change ──────────────────────────────────────────
    def _settle(self, now: float) -> None:
        """Settle what time alone decides before the input (nothing, unless the game says)."""

    def _settled_outcome(self, inp: Input, now: float, settled: list[ev.Event]) -> Outcome | None:
        """An outcome decided by settling alone (e.g. a tick), or None to run the handler."""
        return None

    def _kept_on_refusal(self, events: list[ev.Event]) -> list[ev.Event]:
        """The events of a refused handler that are still reported (none, unless the game says)."""
        return []

    def _copy_state(self) -> S:
        # The states are trees of plain data: copy_state copies them about three times faster
        # than pickle (and six times faster than copy.deepcopy), with the same result.
        return copy_state(self.s)

    # ── for the handlers ────────────────────────────────────────────────
    def _handler(self, name: str) -> Callable[[Input, float], None]:
        handler: Callable[[Input, float], None] = getattr(self, f"_on_{name}")
        return handler

    def _emit(self, event: ev.Event) -> None:
        self._events.append(event)

    def _go(self, state: str) -> None:
        self.s.state = state
