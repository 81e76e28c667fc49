"""The check of one (state, input) pair of a game's table against its declared transitions, the
same for every game: each game's test file gives the variants of its states and the arguments
that make sense in each (the generated transition pages name those files).

A declared pair must be accepted by at least one variant of its state and land in a declared
target; a refused input (undeclared, or declared but guarded) must change nothing at all.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from mesa.games.registry import Game
from support.table_driver import Driver

Variants = Mapping[str, Sequence[Callable[[], Driver]]]  # state → ways to reach it
Args = Callable[[Any, str], dict[str, Any]]  # (driver, input) → arguments that make sense now


def pairs(game: Game) -> list[tuple[str, str]]:
    """Every (state, input) pair of ``game``, in the declared order."""
    return [(state, name) for state in game.states for name in game.inputs]


def pair_ids(game: Game) -> list[str]:
    return [f"{state}-{name}" for state, name in pairs(game)]


def _comparable(table: Any) -> dict[str, Any]:
    snap: dict[str, Any] = table.snapshot()
    snap.pop("last_now")  # a refusal still notes the time it was refused at
    return snap


def check_pair(
    game: Game,
    variants: Variants,
    args: Args,
    state: str,
    name: str,
    *,
    unshown: Collection[str] = (),
) -> None:
    """Try ``name`` in every variant of ``state``. ``unshown``: declared inputs that no variant
    can be accepted in as it is built (the game's own tests show them accepted)."""
    declared = game.transitions.get((state, name))
    accepted_somewhere = False
    for make in variants[state]:
        d = make()
        assert d.state == state
        before = _comparable(d.table)
        out = d.try_(name, after=2.0, **args(d, name))
        if out.accepted:
            assert declared is not None, f"{name} was accepted in {state} but is not declared"
            assert out.state in declared.targets, (state, name, out.state, declared.targets)
            accepted_somewhere = True
        else:
            assert _comparable(d.table) == before, f"refused {name} changed the table"
            assert out.refusal is not None and out.refusal.message
            if declared is None:
                assert out.refusal.code == "not_now"
    if declared is not None and name not in unshown:
        assert accepted_somewhere, f"{name} is declared in {state} but no variant accepted it"
