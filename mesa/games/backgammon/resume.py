"""A match moved from one table to another goes on where it was: what the old table held (read
from its last state), and how the new table's ``assign`` takes it back (its ``resume``).

The score, the games begun, whether the Crawford game was played, each player's reserve and
fallen flags, the penalty points given and a frozen cube (DE 5.1, 5.2), and the game in progress (the cube's value and owner, whether it is the Crawford game, who is on
move) travel; a double waiting for an answer or a result waiting for confirmation do not (the
doubler may double again, the players enter the result again at the new table), nor does the
turn under way (its time is not charged: the clock starts again with that turn).

>>> from mesa.games.backgammon.machine import Table
>>> t = Table()
>>> _ = t.apply("assign", {"match_id": "G1-1", "players": {"a": "Ana", "b": "Beto"},
...                        "length": 3, "clock": None}, now=0.0)
>>> for i, side in enumerate("ab", start=1):
...     _ = t.apply("press", {"side": side}, now=float(i))
>>> resume_of(t) == {"score": {"a": 0, "b": 0}, "games": 0, "crawford_played": False,
...                  "reserve": None, "expiries": None, "penalties": None,
...                  "frozen_until": None, "game": None}
True
>>> parse_resume({"score": {"a": 3, "b": 0}}, length=3)
Traceback (most recent call last):
  ...
mesa.engine.outcome.Refused: resume.score: each side's score is 0…2 (the match is to 3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mesa.core.clock import MAX_SETTING_SECONDS
from mesa.core.match import MAX_CUBE
from mesa.core.sides import SIDES
from mesa.engine.outcome import Refused
from mesa.games.backgammon.inputs import RESUME_KEYS

if TYPE_CHECKING:
    from mesa.games.backgammon.machine import Table

__all__ = ["MAX_GAMES", "Resume", "parse_resume", "resume_of"]

# More games than any match can have (a 99-point match is a few hundred games at most).
MAX_GAMES = 10_000
CUBE_VALUES = tuple(2**i for i in range(MAX_CUBE.bit_length()))  # 1, 2, 4 … 64


@dataclass(frozen=True)
class Resume:
    """A moved match's state, checked (:func:`parse_resume`)."""

    score: dict[str, int]
    games: int = 0
    crawford_played: bool = False
    reserve: dict[str, float] | None = None
    expiries: dict[str, int] | None = None
    penalties: dict[str, int] | None = None
    frozen_until: dict[str, int] | None = None
    # The game in progress: {"cube": n, "owner": side | None, "crawford": bool,
    # "on_move": side | None}; None between games.
    game: dict[str, Any] | None = None


def _bad(what: str) -> Refused:
    return Refused("bad_resume", f"resume.{what}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _side_or_none(v: Any) -> bool:
    return v is None or v in SIDES


def parse_resume(raw: Any, *, length: int) -> Resume:
    """``assign``'s ``resume`` checked against the match's ``length`` (:class:`Refused`
    ``bad_resume`` naming what is wrong). A decided match cannot be resumed: its score is below
    the length on both sides."""
    if not isinstance(raw, dict) or set(raw) - set(RESUME_KEYS):
        raise _bad(f"keys: only {', '.join(RESUME_KEYS)}")
    score = raw.get("score")
    if not isinstance(score, dict) or set(score) != set(SIDES):
        raise _bad("score: a score is {'a': n, 'b': n}")
    if not all(_is_int(v) and 0 <= v < length for v in score.values()):
        raise _bad(f"score: each side's score is 0…{length - 1} (the match is to {length})")
    games = raw.get("games", 0)
    if not _is_int(games) or not 0 <= games <= MAX_GAMES:
        raise _bad(f"games: 0…{MAX_GAMES}")
    crawford_played = raw.get("crawford_played", False)
    if not isinstance(crawford_played, bool):
        raise _bad("crawford_played: true or false")
    reserve = raw.get("reserve")
    if reserve is not None and (
        not isinstance(reserve, dict)
        or set(reserve) != set(SIDES)
        or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= MAX_SETTING_SECONDS
            for v in reserve.values()
        )
    ):
        raise _bad(f"reserve: {{'a': s, 'b': s}}, 0…{MAX_SETTING_SECONDS:g} seconds each")
    counts = {k: _counts(raw.get(k), k) for k in ("expiries", "penalties", "frozen_until")}
    game = raw.get("game")
    if game is not None:
        game = _parse_game(game, games)
    return Resume(
        score={s: int(score[s]) for s in SIDES},
        games=games,
        crawford_played=crawford_played,
        reserve=None if reserve is None else {s: float(reserve[s]) for s in SIDES},
        game=game,
        **counts,
    )


def _counts(raw: Any, what: str) -> dict[str, int] | None:
    """A count per side (some sides may be missing), 0…MAX_GAMES each."""
    if raw is None:
        return None
    if (
        not isinstance(raw, dict)
        or set(raw) - set(SIDES)
        or not all(_is_int(v) and 0 <= v <= MAX_GAMES for v in raw.values())
    ):
        raise _bad(f"{what}: {{side: n}}, 0…{MAX_GAMES} each")
    return {str(k): int(v) for k, v in raw.items()}


def _parse_game(game: Any, games: int) -> dict[str, Any]:
    if not isinstance(game, dict) or set(game) - {"cube", "owner", "crawford", "on_move"}:
        raise _bad("game: cube, owner, crawford, on_move")
    cube, owner = game.get("cube", 1), game.get("owner")
    crawford, on_move = game.get("crawford", False), game.get("on_move")
    if not _is_int(cube) or cube not in CUBE_VALUES:
        raise _bad(f"game.cube: one of {', '.join(map(str, CUBE_VALUES))}")
    if not _side_or_none(owner) or (cube == 1) != (owner is None):
        raise _bad("game.owner: a side once the cube is turned, none while it is centred")
    if not isinstance(crawford, bool) or (crawford and cube != 1):
        raise _bad("game.crawford: true or false (nobody doubles in the Crawford game)")
    if not _side_or_none(on_move):
        raise _bad("game.on_move: a side or none")
    if games < 1:
        raise _bad("games: a game in progress is at least the first")
    return {"cube": cube, "owner": owner, "crawford": crawford, "on_move": on_move}


def resume_of(table: Table) -> dict[str, Any] | None:
    """What ``table`` holds of its match, as ``assign``'s ``resume`` for another table; None
    when the match has not started there (assigned, players checking in) or has no match.
    A decided match is not resumed (the caller asks :attr:`Table.state` first)."""
    s = table.s
    m = s.match
    if m is None or s.state in ("idle", "assigned", "checking_in"):
        return None
    clock = s.clock
    game = None
    if m.in_game:
        on_move = m.cube_offered_by or (clock.on_move if clock is not None else None)
        game = {
            "cube": m.cube_value,
            "owner": m.cube_owner,
            "crawford": m.crawford_game,
            "on_move": on_move,
        }
    elif s.resumed_game is not None:
        game = dict(s.resumed_game)  # moved twice before the players went on
    reserve = expiries = None
    if s.timed and clock is not None:
        reserve = {side: float(clock.reserve[side]) for side in SIDES}
        expiries = {side: int(clock.expiries.get(side, 0)) for side in SIDES}
    # A game moved here and not yet gone on with is counted once it goes on (the machine).
    games = m.game_number + (1 if s.resumed_game is not None and not m.in_game else 0)
    return {
        "score": {side: int(m.score[side]) for side in SIDES},
        "games": games,
        "crawford_played": m.crawford_played,
        "reserve": reserve,
        "expiries": expiries,
        "penalties": dict(s.penalties) or None,
        "frozen_until": dict(m.frozen_until) or None,
        "game": game,
    }
