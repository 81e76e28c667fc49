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

Not here (their parts are elsewhere, per component): journal recovery after kill -9 (the
controller), golden OLED images at every size and language (the controller), the hub's
projection and card (the hub).
"""

from __future__ import annotations

import copy
import json
import pickle
import random
import types
import typing
from collections.abc import Iterator
from typing import Any

import pytest

from mesa.engine.inputs import InputSpec
from mesa.engine.snapshot import GAME_KEY
from mesa.engine.state_copy import copy_state
from mesa.errors import ConfigError
from mesa.games.registry import Game, game_of_snapshot, games, restore
from mesa.games.replay import replay_lines
from mesa.protocol import check_snapshot

GAMES = games()
SEEDS = range(4)
STEPS = 400


def _values(game: Game, key: str, hint: Any) -> list[Any]:
    """A few values of type ``hint`` for argument ``key``: enough to move every game along."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return [v for arg in args for v in _values(game, key, arg)]
    if hint is type(None):
        return [None]
    if origin is typing.Literal:
        return list(args)
    if hint is bool:
        return [False, True]
    if hint is int:
        return [0, 1, 3, 5, 25]
    if hint is float:
        return [0.0, 1.0, 30.0]
    if hint is str:
        return ["M1", "card-1", ""]
    if origin is dict and args == (str, str):
        # Players or cards by seat: every seat of the game named.
        return [{seat: f"{key}-{seat}" for seat in game.seats}]
    if origin is dict:
        return [{}]
    if origin is list:
        return [[v] for v in _values(game, key, args[0])[:2]]
    return [None]


def _samples(game: Game, spec: InputSpec, rng: random.Random) -> dict[str, Any]:
    """Arguments for ``spec``: every required one, each optional one now and then."""
    out = {key: rng.choice(_values(game, key, hint)) for key, hint in spec.args.items()}
    for key, (hint, _default) in spec.optional.items():
        if rng.random() < 0.2:
            out[key] = rng.choice(_values(game, key, hint))
    return out


def _json(snapshot: dict[str, Any]) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(json.dumps(snapshot))
    return loaded


class Walk:
    """A seeded random walk through one game's table, checking every step as it goes."""

    def __init__(self, game: Game, seed: int) -> None:
        self.game, self.rng = game, random.Random(seed)
        self.table = game.machine()
        self.now = 0.0
        self.log: list[str] = [json.dumps({"game": game.name})]
        self.visited: set[str] = {self.table.state}
        self.accepted_pairs: set[tuple[str, str]] = set()

    def _pick(self) -> tuple[str, dict[str, Any]]:
        state = self.table.state
        declared = [n for (s, n) in self.game.transitions if s == state]
        names = list(self.game.inputs)
        # Mostly what the state declares (to move on), sometimes anything (to be refused).
        name = self.rng.choice(declared if declared and self.rng.random() < 0.85 else names)
        return name, _samples(self.game, self.game.inputs[name], self.rng)

    def _advance(self) -> None:
        # Mostly a player's pace; now and then long enough for a flag, a lateness mark, "TIEMPO".
        self.now += self.rng.choice([0.0, 0.3, 1.0, 1.0, 2.0, 5.0, 5.0, 20.0]
                                    if self.rng.random() < 0.97 else [120.0, 900.0, 4000.0])

    def step(self) -> None:
        self._advance()
        # Time is settled first, so that what the input itself does can be judged alone.
        self.apply("tick", {})
        name, args = self._pick()
        start, before = self.table.state, self.table.snapshot()
        out = self.apply(name, args)
        declared = self.game.transitions.get((start, name))
        assert not (out.refusal and out.refusal.code == "internal_error"), (start, name, out)
        if out.accepted:
            assert declared is not None, f"{name} accepted in {start}, which does not declare it"
            assert out.state in declared.targets, (start, name, out.state, declared.targets)
            self.accepted_pairs.add((start, name))
        else:
            assert declared is not None or out.refusal.code in ("not_now", "bad_input",
                                                               "out_of_range"), out
            assert self.table.snapshot() == before, f"refused {name} in {start} changed the table"
        self.visited.add(self.table.state)
        self.check_snapshot()
        # The apply loop's fast copy is exact on this state: what pickle would have given.
        state = self.table.s
        assert pickle.dumps(copy_state(state), 5) == pickle.dumps(state, 5)

    def apply(self, name: str, args: dict[str, Any]) -> Any:
        self.log.append(json.dumps({"t": self.now, "input": name, **args}))
        return self.table.apply(name, args, now=self.now)

    def check_snapshot(self) -> None:
        snap = self.table.snapshot()
        assert snap[GAME_KEY] == self.game.name
        assert game_of_snapshot(snap) is self.game
        again = self.game.restore(copy.deepcopy(snap)).snapshot()
        assert again == snap, "snapshot → restore → snapshot differs"
        old = {k: v for k, v in snap.items() if k != GAME_KEY}  # before game_name existed
        assert game_of_snapshot(old) is self.game
        assert restore(copy.deepcopy(old)).snapshot() == snap
        check_snapshot(_json(snap))


def walks(game: Game) -> Iterator[Walk]:
    for seed in SEEDS:
        walk = Walk(game, seed)
        for _ in range(STEPS):
            walk.step()
        yield walk


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
    check_snapshot(_json(fresh))


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
    args = _samples(game, game.inputs[name], random.Random(0))
    before = table.snapshot()

    def astray(inp: Any, now: float) -> None:
        table.s.state = "nowhere"

    setattr(table, f"_on_{name}", astray)
    out = table.apply(name, args, now=1.0)
    assert out.refusal is not None and out.refusal.code == "internal_error"
    assert "not declared" in out.refusal.message
    assert table.snapshot() == {**before, "last_now": 1.0}
