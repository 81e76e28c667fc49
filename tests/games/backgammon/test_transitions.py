"""Every (state, input) pair of the table, against the declared transition table.

The check is every game's (:mod:`support.transition_pairs`); here are the backgammon table's
variants of each state and the arguments that make sense in each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mesa.core.sides import other
from mesa.games.backgammon.transitions import STATES, TRANSITIONS
from mesa.games.registry import game_named
from support.backgammon_builders import Driver, assigned, between_games, on_move, running
from support.transition_pairs import check_pair, pair_ids, pairs


def _idle() -> Driver:
    return Driver()


def _checking_in() -> Driver:
    d = assigned()
    d.do("checkin", side="a")
    return d


def _cube_offered() -> Driver:
    d = running()
    d.do("hold", after=5, side=on_move(d))
    return d


def _paused_in_game() -> Driver:
    d = running()
    d.do("both_held", after=5)
    return d


def _paused_between() -> Driver:
    d = between_games()
    d.do("both_held")
    return d


def _paused_cube() -> Driver:
    d = _cube_offered()
    d.do("both_held")
    return d


def _result_entry() -> Driver:
    d = _paused_in_game()
    d.do("pause", reason="game_over")
    d.do("press", side="a")  # menu: resume → game_over
    d.do("hold", side="a")
    assert d.state == "result_entry"
    return d


def _result_entry_claimed() -> Driver:
    d = running()
    d.do("claim", side="a", winner="a", kind=1)
    return d


def _match_over() -> Driver:
    d = running(length=1)
    d.do("claim", side="a", winner="a", kind=1)
    d.do("confirm", side="b")
    return d


VARIANTS: dict[str, list[Callable[[], Driver]]] = {
    "idle": [_idle],
    "assigned": [assigned],
    "checking_in": [_checking_in],
    "between_games": [between_games],
    "running": [running],
    "cube_offered": [_cube_offered],
    "paused": [_paused_in_game, _paused_between, _paused_cube],
    "result_entry": [_result_entry, _result_entry_claimed],
    "match_over": [_match_over],
}


def _args(d: Driver, name: str) -> dict[str, Any]:
    """Arguments that make sense for ``name`` in the table's current situation."""
    s = d.table.s
    mover = s.clock.on_move if s.clock and s.clock.on_move else "a"
    absent = next((x for x in ("a", "b") if x not in s.checked_in), "a")
    responder = other(s.match.cube_offered_by) if s.match and s.match.cube_offered_by else mover
    claimant_opponent = other(s.claim["by"]) if s.claim else "b"
    by_name: dict[str, dict[str, Any]] = {
        "press": {"side": responder if d.state == "cube_offered" else
                  absent if d.state in ("assigned", "checking_in") else
                  claimant_opponent if s.claim else mover},
        "hold": {"side": responder if d.state == "cube_offered" else
                 claimant_opponent if s.claim else mover},
        "checkin": {"side": absent},
        "card": {"card": {"a": "CARD-A", "b": "CARD-B"}[absent]},
        "pause": {"reason": "fallen_die"},
        "double": {"side": mover},
        "take": {"side": responder},
        "drop": {"side": responder},
        "claim": {"side": "a", "winner": "a", "kind": 1},
        "confirm": {"side": claimant_opponent},
        "reject": {"side": claimant_opponent},
        "assign": {"match_id": "T-2", "players": {"a": "Carla", "b": "Dani"}, "length": 3},
        "director_pause": {"reason": "director"},
        "director_adjust": {"side": "a", "seconds": 30.0},
        "director_lose_delay": {"side": "a"},
        "director_score": {"a": 1, "b": 0, "reason": "sheet"},
        "director_result": {"winner": "a", "kind": 1},
        "director_clock": {"clock": {"preset": "singles"}},
        "director_forfeit": {"winner": "a", "reason": "left"},
        "refence": {"epoch": 9},
    }
    return by_name.get(name, {})


GAME = game_named("backgammon")


@pytest.mark.parametrize(("state", "name"), pairs(GAME), ids=pair_ids(GAME))
def test_every_state_input_pair(state: str, name: str) -> None:
    # director_clear_call needs a director call to clear, which no variant raises:
    # test_clear_call_where_declared raises one and clears it in every state it is declared in.
    check_pair(GAME, VARIANTS, _args, state, name, unshown=("director_clear_call",))


@pytest.mark.parametrize("state", [s for s in STATES if (s, "director_clear_call") in TRANSITIONS])
def test_clear_call_where_declared(state: str) -> None:
    """director_clear_call needs a call to clear: raise one, then clear it in every state."""
    for make in VARIANTS[state]:
        d = make()
        d.table.s.director_call = "players"
        out = d.try_("director_clear_call")
        assert out.accepted and out.state == state
        assert d.table.s.director_call is None


def test_docs_transition_table_is_current() -> None:
    from pathlib import Path

    from mesa.games.backgammon.transitions import transition_table_markdown

    doc = Path(__file__).resolve().parents[3] / "docs" / "transitions.md"
    assert doc.read_text(encoding="utf-8") == transition_table_markdown() + "\n", (
        "docs/transitions.md is stale: run `mesa docs`"
    )
