"""Every (state, input) pair of the domino table, against the declared transition table.

The check is every game's (:mod:`support.transition_pairs`); here are the domino table's
variants of each state and the arguments that make sense in each.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mesa.games.domino.transitions import transition_table_markdown
from mesa.games.registry import game_named
from support.domino_builders import (
    Driver,
    assigned,
    hand_confirm,
    hand_entry,
    play_hand,
    playing,
    ready,
)
from support.transition_pairs import check_pair, pair_ids, pairs


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
        "late": {"seat": "n"},
        "annul": {"seat": "n", "reason": "chivo"},
    }
    return by_name.get(name, {})


GAME = game_named("domino")


@pytest.mark.parametrize(("state", "name"), pairs(GAME), ids=pair_ids(GAME))
def test_every_state_input_pair(state: str, name: str) -> None:
    check_pair(GAME, VARIANTS, _args, state, name)


def test_docs_transition_table_is_current() -> None:
    doc = Path(__file__).resolve().parents[3] / "docs" / "domino-transitions.md"
    assert doc.read_text(encoding="utf-8") == transition_table_markdown() + "\n", (
        "docs/domino-transitions.md is stale: run `mesa docs`"
    )
