"""Everything a domino table can be told: the four seats' button gestures, time, and the hub.

Each seat has one button. The controller turns its edges into ``press``, ``hold`` and
``long_hold``; what a gesture means depends on the state (see ``docs/domino-transitions.md``).

>>> parse_input("hold", {"seat": "w"})
Input(name='hold', args={'seat': 'w'})
>>> parse_input("press", {"seat": "x"})
Traceback (most recent call last):
  ...
mesa.engine.inputs.InputError: press: seat must be 'n' or 'e' or 's' or 'w', not 'x'
"""

from __future__ import annotations

from typing import Any, Literal

from mesa.engine.inputs import Input, InputSpec, spec, specs_by_name
from mesa.engine.inputs import parse_input as parse_against
from mesa.games.domino.penalties import DIRECTOR_REASONS

__all__ = ["INPUT_NAMES", "INPUT_SPECS", "parse_input"]

SeatArg = Literal["n", "e", "s", "w"]
# Literal[...] over a tuple built at import time: the director's reasons are the seed's list.
ReasonArg = Literal[DIRECTOR_REASONS]  # type: ignore[valid-type]
AnnulReasonArg = Literal["pass_with_playable", "chivo"]  # mesa.games.domino.game.ANNUL_REASONS


INPUT_SPECS: dict[str, InputSpec] = specs_by_name(
    # ── the four buttons ──
    spec(
        "press",
        "button",
        "A short press of a seat's button: a tile placed (the lead's first tile starts the "
        "hand); in entry, the units digit of the hand's points; a signature at the end.",
        {"seat": SeatArg},
    ),
    spec(
        "hold",
        "button",
        'A hold of a seat\'s button: "paso" on turn; in entry, the tens digit; the other '
        "pair's confirmation of a claim.",
        {"seat": SeatArg},
    ),
    spec(
        "long_hold",
        "button",
        "A long hold: on turn, the seat placed its last tile (domino); off turn, the seat "
        'calls a block ("tranque"); in entry, the points are accepted.',
        {"seat": SeatArg},
    ),
    # ── time ──
    spec("tick", "time", 'Time passes: "TIEMPO" at the end of the game\'s time is settled.'),
    # ── direct entries (menus, replay scripts) ──
    spec(
        "claim",
        "menu",
        "A player of the pair that won the hand enters its points; ``tie`` claims a tied "
        "block (nobody wins, 0 points). The other pair confirms.",
        {"seat": SeatArg, "points": int},
        {"tie": (bool, False)},
    ),
    spec("confirm", "menu", "A player of the other pair confirms the claimed points.",
          {"seat": SeatArg}),
    spec("reject", "menu", "A player of the other pair refuses the claimed points.",
          {"seat": SeatArg}),
    spec("sign", "menu", "A player signs the score sheet for their pair.", {"seat": SeatArg}),
    # ── from the hub ──
    spec(
        "assign",
        "hub",
        "The hub assigns a game: ``players`` by seat n, e, s, w (pairs ns and ew); "
        "``settings`` overrides the seed's numbers.",
        {"game_id": str, "players": dict[str, str]},
        {
            "settings": (dict[str, Any] | None, None),
            "language": (Literal["es", "en"], "es"),
        },
    ),
    spec("unassign", "hub", "The hub withdraws the game from this table."),
    spec(
        "tiempo",
        "hub",
        '"TIEMPO": the game started at ``start_wall`` (the hub\'s wall clock); ``wall`` is '
        "this table's wall clock now. Sent again after a restart, it re-anchors the game.",
        {"start_wall": float, "wall": float},
    ),
    spec(
        "penalty",
        "hub",
        "The director's penalty on ``seat`` for ``reason`` (the seed's list), noted at the "
        "table (the record is the hub's); ``points`` overrides the reason's default; an "
        "expelling reason ends a game in progress.",
        {"seat": SeatArg, "reason": ReasonArg},
        {"points": (int | None, None)},
    ),
    spec(
        "absence",
        "hub",
        "The director declares players absent before the first hand: the game ends (a complete "
        "present pair wins it); each absent player's −100 is noted. The awards are the hub's.",
        {"seats": list[SeatArg]},
    ),
    spec(
        "late",
        "hub",
        "``seat`` reached the table after the two minutes (the table or the judge says so): "
        "noted and shown; the hub fines a second late arrival from the record.",
        {"seat": SeatArg},
    ),
    spec(
        "annul",
        "hub",
        "The director annuls the hand on: ``seat`` passed with a playable tile or made a "
        '"chivo". The hand scores nothing and the lead rotates; the fine is the hub\'s.',
        {"seat": SeatArg, "reason": AnnulReasonArg},
    ),
)

INPUT_NAMES: tuple[str, ...] = tuple(INPUT_SPECS)


def parse_input(name: Any, args: Any) -> Input:
    """Validate an input's name and arguments, filling in defaults (:class:`InputError` when
    they don't fit)."""
    return parse_against(INPUT_SPECS, name, args)
