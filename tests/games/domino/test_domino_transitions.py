"""Every (state, input) pair of the domino table, against the declared transition table.

A declared pair must be accepted by at least one variant of its state and land in a declared
target; a refused input (undeclared, or declared but guarded) must change nothing at all.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mesa.games.domino.inputs import INPUT_NAMES
from mesa.games.domino.machine import DominoTable
from mesa.games.domino.transitions import STATES, TRANSITIONS, transition_table_markdown
from support.domino_builders import (
    Driver,
    assigned,
    hand_confirm,
    hand_entry,
    play_hand,
    playing,
    ready,
)


def _ready_after_a_hand() -> Driver:
    d = ready()
    play_hand(d, "ns", 20)
    return d


def _game_over() -> Driver:
    d = assigned()
    d.do("absence", seats=["e"])
    return d


def _game_over_by_points() -> Driver:
    d = ready(target_points=50)
    play_hand(d, "ew", 60)
    return d


VARIANTS: dict[str, list[Callable[[], Driver]]] = {
    "idle": [Driver],
    "assigned": [assigned],
    "ready": [ready, _ready_after_a_hand],
    "playing": [playing],
    "hand_entry": [hand_entry, lambda: hand_entry(block=True)],
    "hand_confirm": [hand_confirm],
    "game_over": [_game_over, _game_over_by_points],
}


def _args(d: Driver, name: str) -> dict[str, Any]:
    """Arguments that make sense for ``name`` in the table's current situation."""
    st = d.state
    g = d.table.s.game
    seat = "n"
    if st == "ready" and g is not None:
        seat = g.next_lead or "n"
    elif st == "playing":
        seat = d.on_turn
    elif st == "hand_entry":
        seat = d.entering()
    elif st == "hand_confirm":
        seat = d.confirmer()
    by_name: dict[str, dict[str, Any]] = {
        "press": {"seat": seat},
        "hold": {"seat": seat},
        "long_hold": {"seat": seat},
        "claim": {"seat": seat, "points": 12},
        "confirm": {"seat": seat},
        "reject": {"seat": seat},
        "sign": {"seat": "n"},
        "assign": {"game_id": "R2-M1", "players": {"n": "A", "e": "B", "s": "C", "w": "D"}},
        "tiempo": {"start_wall": 100.0, "wall": 130.0},
        "penalty": {"seat": "n", "reason": "chivo"},
        "absence": {"seats": ["e"]},
    }
    return by_name.get(name, {})


def _comparable(table: DominoTable) -> dict[str, Any]:
    snap = table.snapshot()
    snap.pop("last_now")
    return snap


PAIRS = [(state, name) for state in STATES for name in INPUT_NAMES]


@pytest.mark.parametrize(("state", "name"), PAIRS, ids=[f"{s}-{n}" for s, n in PAIRS])
def test_every_state_input_pair(state: str, name: str) -> None:
    declared = TRANSITIONS.get((state, name))
    accepted_somewhere = False
    for make in VARIANTS[state]:
        d = make()
        assert d.state == state
        before = _comparable(d.table)
        out = d.try_(name, after=2.0, **_args(d, name))
        if out.accepted:
            assert declared is not None, f"{name} was accepted in {state} but is not declared"
            assert out.state in declared.targets, (state, name, out.state, declared.targets)
            accepted_somewhere = True
        else:
            assert _comparable(d.table) == before, f"refused {name} changed the table"
            assert out.refusal is not None and out.refusal.message
            if declared is None:
                assert out.refusal.code == "not_now"
    if declared is not None:
        assert accepted_somewhere, f"{name} is declared in {state} but no variant accepted it"


def test_docs_transition_table_is_current() -> None:
    doc = Path(__file__).resolve().parents[3] / "docs" / "domino-transitions.md"
    assert doc.read_text(encoding="utf-8") == transition_table_markdown() + "\n", (
        "docs/domino-transitions.md is stale: run `mesa docs`"
    )
