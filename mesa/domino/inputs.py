"""Everything a domino table can be told: the four seats' button gestures, time, and the hub.

Each seat has one button. The controller turns its edges into ``press``, ``hold`` and
``long_hold``; what a gesture means depends on the state (see ``docs/domino-transitions.md``).

>>> parse_input("hold", {"seat": "w"})
Input(name='hold', args={'seat': 'w'})
>>> parse_input("press", {"seat": "x"})
Traceback (most recent call last):
  ...
mesa.table.inputs.InputError: press: seat must be 'n' or 'e' or 's' or 'w', not 'x'
"""

from __future__ import annotations

from typing import Any, Literal

from mesa.domino.penalties import DIRECTOR_REASONS
from mesa.table.inputs import Input, InputError, InputSpec
from mesa.validation import ValidationError, check_value

__all__ = ["INPUT_NAMES", "INPUT_SPECS", "Input", "InputError", "parse_input"]

SeatArg = Literal["n", "e", "s", "w"]
# Literal[...] over a tuple built at import time: the director's reasons are the seed's list.
ReasonArg = Literal[DIRECTOR_REASONS]  # type: ignore[valid-type]


def _spec(
    name: str,
    source: str,
    doc: str,
    args: dict[str, Any] | None = None,
    optional: dict[str, tuple[Any, Any]] | None = None,
) -> InputSpec:
    return InputSpec(name, source, doc, dict(args or {}), dict(optional or {}))


INPUT_SPECS: dict[str, InputSpec] = {
    s.name: s
    for s in [
        # ── the four buttons ──
        _spec(
            "press",
            "button",
            "A short press of a seat's button: a tile placed (the lead's first tile starts the "
            "hand); in entry, the units digit of the hand's points; a signature at the end.",
            {"seat": SeatArg},
        ),
        _spec(
            "hold",
            "button",
            'A hold of a seat\'s button: "paso" on turn; in entry, the tens digit; the other '
            "pair's confirmation of a claim.",
            {"seat": SeatArg},
        ),
        _spec(
            "long_hold",
            "button",
            "A long hold: on turn, the seat placed its last tile (domino); off turn, the seat "
            'calls a block ("tranque"); in entry, the points are accepted.',
            {"seat": SeatArg},
        ),
        # ── time ──
        _spec("tick", "time", 'Time passes: "TIEMPO" at the end of the game\'s time is settled.'),
        # ── direct entries (menus, replay scripts) ──
        _spec(
            "claim",
            "menu",
            "A player of the pair that won the hand enters its points; ``tie`` claims a tied "
            "block (nobody wins, 0 points). The other pair confirms.",
            {"seat": SeatArg, "points": int},
            {"tie": (bool, False)},
        ),
        _spec("confirm", "menu", "A player of the other pair confirms the claimed points.",
              {"seat": SeatArg}),
        _spec("reject", "menu", "A player of the other pair refuses the claimed points.",
              {"seat": SeatArg}),
        _spec("sign", "menu", "A player signs the score sheet for their pair.", {"seat": SeatArg}),
        # ── from the hub ──
        _spec(
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
        _spec("unassign", "hub", "The hub withdraws the game from this table."),
        _spec(
            "tiempo",
            "hub",
            '"TIEMPO": the game started at ``start_wall`` (the hub\'s wall clock); ``wall`` is '
            "this table's wall clock now. Sent again after a restart, it re-anchors the game.",
            {"start_wall": float, "wall": float},
        ),
        _spec(
            "penalty",
            "hub",
            "The director records a penalty on ``seat`` for ``reason`` (the seed's list); "
            "``points`` overrides the reason's default.",
            {"seat": SeatArg, "reason": ReasonArg},
            {"points": (int | None, None)},
        ),
        _spec(
            "absence",
            "hub",
            "The director declares players absent: the present pair wins the game (+100), "
            "each absent player −100.",
            {"seats": list[SeatArg]},
        ),
    ]
}

INPUT_NAMES: tuple[str, ...] = tuple(INPUT_SPECS)


def parse_input(name: Any, args: Any) -> Input:
    """Validate an input's name and arguments, filling in defaults."""
    spec = INPUT_SPECS.get(name) if isinstance(name, str) else None
    if spec is None:
        raise InputError(f"unknown input {name!r}; known: {', '.join(INPUT_NAMES)}")
    if not isinstance(args, dict):
        raise InputError(f"{name}: arguments must be an object")
    unknown = set(args) - set(spec.args) - set(spec.optional)
    if unknown:
        raise InputError(f"{name}: unknown arguments {sorted(unknown)}")
    missing = set(spec.args) - set(args)
    if missing:
        raise InputError(f"{name}: missing arguments {sorted(missing)}")
    values = {key: default for key, (_, default) in spec.optional.items()}
    values.update(args)
    hints = dict(spec.args)
    hints.update({key: hint for key, (hint, _) in spec.optional.items()})
    for key, hint in hints.items():
        try:
            check_value(key, hint, values[key])
        except ValidationError as e:
            raise InputError(f"{name}: {e}") from None
    return Input(name, values)
