"""One conformance suite for every registered game: the pure parts a game must pass.

Each game's table is driven by seeded random walks whose inputs are built from the game's own
input specs (every argument's type gives a few values to try), so a new game's folder is tested
as soon as it is registered. Along every walk, at every step:

- every (state, input) pair is declared or refused: an accepted input was declared for the state
  it met and ended in one of its declared targets; an undeclared one is refused ``not_now``; a
  refused input changes nothing; no handler ever ends in an undeclared state (``internal_error``);
- snapshot → restore → snapshot is identical, with or without ``game_name`` (an old snapshot),
  and a snapshot naming another game is refused;
- the protocol's snapshot check accepts the snapshot as it crosses the wire (JSON);
- the apply loop's fast copy of the state equals pickle's (same bytes: no shared objects);

and at the end of a walk its log, replayed by ``mesa replay``'s driver, gives the same snapshot
as the live machine. The run-time check of a handler's target is exercised directly too.

The walks live in ``tests/support/game_walks.py``; the other components run the same walks
for their parts: the hub's projection and card (``tests/hub/web/test_web_live_games.py``);
the table's plug-in, journal recovery and screens at every size and language
(``tests/controller/games/test_table_games.py``, the kill loops of both games, the golden OLED
images).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from mesa.engine.snapshot import GAME_KEY
from mesa.errors import ConfigError
from mesa.games.registry import Game, games
from mesa.games.replay import replay_lines
from mesa.protocol import check_snapshot
from support.game_walks import Walk, plain_json, samples, walks

GAMES = games()


@pytest.fixture(scope="module", params=GAMES, ids=lambda g: g.name)
def walked(request: pytest.FixtureRequest) -> tuple[Game, list[Walk]]:
    game: Game = request.param
    return game, list(walks(game))


def test_every_pair_is_declared_or_refused_along_the_walks(walked: tuple[Game, list[Walk]]) -> None:
    game, done = walked
    visited = set().union(*(w.visited for w in done))
    accepted = set().union(*(w.accepted_pairs for w in done))
    # The walks are worth something only if they reach most of the game.
    assert visited == set(game.states), sorted(set(game.states) - visited)
    assert len(accepted) >= len(game.transitions) // 2, len(accepted)


def test_a_replayed_log_gives_the_live_snapshot(walked: tuple[Game, list[Walk]]) -> None:
    _game, done = walked
    for walk in done:
        report = replay_lines(walk.log)
        assert report["snapshot"] == walk.table.snapshot()
        assert not [s for s in report["steps"] if "error" in s]


def test_a_fresh_table_round_trips(walked: tuple[Game, list[Walk]]) -> None:
    game, _ = walked
    fresh = game.machine().snapshot()
    assert game.restore(fresh).snapshot() == fresh
    check_snapshot(plain_json(fresh))


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
@pytest.mark.parametrize("other", GAMES, ids=lambda g: g.name)
def test_a_snapshot_naming_another_game_is_refused(game: Game, other: Game) -> None:
    if other is game:
        return
    snap = {**game.machine().snapshot(), GAME_KEY: other.name}
    with pytest.raises(ConfigError, match=f"not a '{game.name}' table's"):
        game.restore(snap)
    with pytest.raises(ConfigError):
        game.machine.restore(snap)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_handler_ending_in_an_undeclared_state_is_refused_and_rolled_back(game: Game) -> None:
    """The engine's run-time check, for every game: a handler that leaves its declared targets
    is refused as ``internal_error`` and the table is as before."""
    table = game.machine()
    state = table.state
    name = next(n for (s, n) in game.transitions if s == state and n != "tick")
    args = samples(game, game.inputs[name], random.Random(0))
    before = table.snapshot()

    def astray(inp: Any, now: float) -> None:
        table.s.state = "nowhere"

    setattr(table, f"_on_{name}", astray)
    out = table.apply(name, args, now=1.0)
    assert out.refusal is not None and out.refusal.code == "internal_error"
    assert "not declared" in out.refusal.message
    assert table.snapshot() == {**before, "last_now": 1.0}
