"""The engine's apply loop on a toy game: every guarantee it gives every game's table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from mesa.engine.inputs import Input, spec
from mesa.engine.machine import Machine
from mesa.engine.outcome import Refused
from mesa.engine.transitions import TransitionTable, declare, transition
from mesa.errors import RuleError

TABLE: TransitionTable = {}
declare(TABLE, "off", {"on": transition("on", note=""), "stray": transition("=", note=""),
                       "boom": transition("=", note="")})
declare(TABLE, "on", {"off": transition("off", note=""), "rule": transition("=", note="")})


@dataclass
class Lamp:
    state: str = "off"
    last_now: float | None = None
    log: list[str] = field(default_factory=list)


class LampTable(Machine[Lamp]):
    INPUTS: ClassVar[dict[str, Any]] = {n: spec(n, "button", n, {"who": Literal["x", "y"]} if n == "on" else {})
                                         for n in ("on", "off", "stray", "boom", "rule")}
    TRANSITIONS = TABLE

    def _on_on(self, inp: Input, now: float) -> None:
        self.s.log.append(inp.args["who"])
        self._go("on")

    def _on_off(self, inp: Input, now: float) -> None:
        self.s.log.append("off")
        raise Refused("stuck", "the switch is stuck")

    def _on_stray(self, inp: Input, now: float) -> None:
        self.s.log.append("stray")
        self._go("on")  # not declared for (off, stray)

    def _on_boom(self, inp: Input, now: float) -> None:
        self.s.log.append("boom")
        raise ZeroDivisionError("boom")

    def _on_rule(self, inp: Input, now: float) -> None:
        raise RuleError("ruled", "the rules say no")


def lamp() -> LampTable:
    return LampTable(Lamp())


def test_an_accepted_input_moves_to_a_declared_target() -> None:
    t = lamp()
    out = t.apply("on", {"who": "x"}, now=1.0)
    assert out.accepted and out.state == "on" and t.s.log == ["x"]


def test_a_bad_input_is_refused_with_its_code() -> None:
    t = lamp()
    assert t.apply("on", {"who": "z"}, now=1.0).refusal.code == "bad_input"
    assert t.apply("nope", {}, now=1.0).refusal.code == "bad_input"
    assert t.apply(Input("on", {}), now=1.0).refusal.code == "bad_input"


def test_time_never_goes_backwards() -> None:
    t = lamp()
    t.apply("on", {"who": "x"}, now=5.0)
    assert t.apply("off", {}, now=4.0).refusal.code == "time_backwards"


def test_an_undeclared_pair_is_refused_not_now() -> None:
    t = lamp()
    out = t.apply("off", {}, now=1.0)
    assert out.refusal.code == "not_now" and out.refusal.message == "off does nothing while off"


def test_refusals_roll_back_whatever_the_handler_did() -> None:
    t = lamp()
    t.apply("on", {"who": "x"}, now=1.0)
    out = t.apply("off", {}, now=2.0)
    assert out.refusal.code == "stuck" and t.s.log == ["x"] and t.state == "on"
    assert t.apply("rule", {}, now=3.0).refusal.code == "ruled"
    assert t.s.last_now == 3.0


def test_an_undeclared_target_is_an_internal_error_rolled_back() -> None:
    t = lamp()
    out = t.apply("stray", {}, now=1.0)
    assert out.refusal.code == "internal_error" and "not declared" in out.refusal.message
    assert t.state == "off" and t.s.log == []


def test_a_crashing_handler_is_an_internal_error_rolled_back(caplog: Any) -> None:
    t = lamp()
    out = t.apply("boom", {}, now=1.0)
    assert out.refusal.code == "internal_error"
    assert out.refusal.message == "internal error: ZeroDivisionError: boom"
    assert t.s.log == [] and "boom refused after an internal error" in caplog.text
