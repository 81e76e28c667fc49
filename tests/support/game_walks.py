"""Seeded random walks through a registered game's table, checking every step as they go
(:mod:`tests.games.test_conformance` says what; the hub's and the table's parts of the
conformance suite walk the same way).

>>> from mesa.games.registry import game_named
>>> walk = Walk(game_named("domino"), seed=1)
>>> for _ in range(20):
...     walk.step()
>>> len(walk.log) > 20
True
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

from mesa.engine.inputs import InputSpec
from mesa.engine.snapshot import GAME_KEY
from mesa.engine.state_copy import copy_state
from mesa.games.registry import Game, game_of_snapshot, restore
from mesa.protocol import check_snapshot

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


def samples(game: Game, spec: InputSpec, rng: random.Random) -> dict[str, Any]:
    """Arguments for ``spec``: every required one, each optional one now and then."""
    out = {key: rng.choice(_values(game, key, hint)) for key, hint in spec.args.items()}
    for key, (hint, _default) in spec.optional.items():
        if rng.random() < 0.2:
            out[key] = rng.choice(_values(game, key, hint))
    return out


def plain_json(snapshot: dict[str, Any]) -> dict[str, Any]:
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
        # Half the time, an input that may lead somewhere the walk has not been yet, so that
        # every walk reaches the rarer states (a double, a result) whatever the game declares.
        new = [n for n in declared
               if set(self.game.transitions[(state, n)].targets) - self.visited]
        if new and self.rng.random() < 0.5:
            declared = new
        # Mostly what the state declares (to move on), sometimes anything (to be refused).
        name = self.rng.choice(declared if declared and self.rng.random() < 0.85 else names)
        return name, samples(self.game, self.game.inputs[name], self.rng)

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
        check_snapshot(plain_json(snap))


def walks(game: Game) -> Iterator[Walk]:
    for seed in SEEDS:
        walk = Walk(game, seed)
        for _ in range(STEPS):
            walk.step()
        yield walk
