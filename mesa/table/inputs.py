"""Everything a table can be told: button gestures, time, cards, menu choices, hub commands.

Each input has a name, typed arguments and a source. The controller turns GPIO edges, the card
reader and MQTT commands into these; a replay file lists them one per line.

>>> parse_input("press", {"side": "a"})
Input(name='press', args={'side': 'a'})
>>> parse_input("press", {"side": "x"})
Traceback (most recent call last):
  ...
mesa.table.inputs.InputError: press: side must be 'a' or 'b', not 'x'
>>> try:
...     parse_input("director_adjust", {"side": "a", "seconds": 1e12})
... except InputError as e:
...     print(e.code)
out_of_range
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from typing import Any, Literal

from mesa.errors import MesaError
from mesa.validation import TIME_LIMIT, ValidationError, check_range, check_value

SideArg = Literal["a", "b"]
ReasonArg = Literal[
    "unspecified",
    "game_over",
    "concession",
    "break",
    "fallen_die",
    "dispute",
    "director",
    "timeout",
]
PAUSE_REASONS: tuple[str, ...] = typing.get_args(ReasonArg)
KindArg = Literal[1, 2, 3]


class InputError(MesaError):
    """An input with an unknown name or arguments that don't fit. ``code`` is ``bad_input``, or
    ``out_of_range`` for a number outside its range (:data:`RANGES`)."""

    def __init__(self, message: str, code: str = "bad_input") -> None:
        super().__init__(message)
        self.code = code


# Sane ranges of the numeric arguments, checked at the boundary so that nothing downstream
# (lateness marks, clock arithmetic) meets a value that costs hours or overflows.
RANGES: dict[str, tuple[float, float]] = {
    "scheduled_start": (-TIME_LIMIT, TIME_LIMIT),  # on the table's clock
    "minutes_per_point": (1.0, 120.0),  # HGV 2.3.1 says 10
    "seconds": (-86_400.0, 86_400.0),  # a director's adjustment: at most a day either way
    "suppressed": (0, 10**9),
}


@dataclass(frozen=True)
class InputSpec:
    name: str
    source: str  # button, time, card, menu, hub
    doc: str
    args: dict[str, Any] = field(default_factory=dict)  # required: name → type
    optional: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # name → (type, default)


@dataclass(frozen=True)
class Input:
    name: str
    args: dict[str, Any] = field(default_factory=dict)


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
        # ── the buttons ──
        _spec(
            "press",
            "button",
            "A short press of a player's clock button (timed at its first edge).",
            {"side": SideArg},
        ),
        _spec(
            "hold",
            "button",
            "A player holds their own clock button (offer the cube, answer "
            "a double with a pass, select a menu item, confirm a result).",
            {"side": SideArg},
        ),
        _spec(
            "both_held", "button", "Both clock buttons held together: stop or restart the clocks."
        ),
        _spec("cube", "button", "The CUBE button: the player on move doubles."),
        _spec("pause_button", "button", "The PAUSE button: stop or restart the clocks."),
        # ── time ──
        _spec("tick", "time", "Time passes: flag falls and lateness marks are settled."),
        # ── check-in ──
        _spec(
            "checkin",
            "card",
            "A player checks in (the director's list, or a press of their button).",
            {"side": SideArg},
            {"card": (str | None, None)},
        ),
        _spec(
            "card",
            "card",
            "The card reader read a member card; ``suppressed`` counts the unknown cards it "
            "read since the last one it sent (its rate limit).",
            {"card": str},
            {"suppressed": (int, 0)},
        ),
        # ── choices the menus make (also usable directly, e.g. in replay files) ──
        _spec(
            "pause",
            "menu",
            "The players stop both clocks, giving the reason.",
            optional={"reason": (ReasonArg, "unspecified")},
        ),
        _spec("resume", "menu", "The players restart the clocks after a pause."),
        _spec("double", "menu", "The player on move doubles.", {"side": SideArg}),
        _spec("take", "menu", "The doubled player takes.", {"side": SideArg}),
        _spec("drop", "menu", "The doubled player passes.", {"side": SideArg}),
        _spec(
            "claim",
            "menu",
            "A player enters a game result: ``winner`` wins ``kind`` "
            "(1 single, 2 gammon, 3 backgammon) × the cube.",
            {"side": SideArg, "winner": SideArg, "kind": KindArg},
            {"conceded": (bool, False), "points": (int | None, None)},
        ),
        _spec(
            "confirm",
            "menu",
            "The opponent of the claimant confirms the result.",
            {"side": SideArg},
        ),
        _spec(
            "reject",
            "menu",
            "The opponent of the claimant refuses the result (the director is called).",
            {"side": SideArg},
        ),
        # ── from the hub ──
        _spec(
            "assign",
            "hub",
            "The hub assigns a match to this table.",
            {"match_id": str, "players": dict[str, str], "length": int},
            {
                "clock": (dict[str, Any] | None, None),
                "scheduled_start": (float | None, None),
                "cards": (dict[str, str] | None, None),
                "crawford": (bool, True),
                "minutes_per_point": (float, 10.0),
                "language": (Literal["es", "en"], "es"),
                # The hub's fencing token: the table puts it on every event of this match.
                "epoch": (int | None, None),
            },
        ),
        _spec("unassign", "hub", "The hub withdraws the match from this table."),
        _spec(
            "refence",
            "hub",
            "The hub assigned the match this table holds to it again (moved away and back while"
            " the table was offline): the table keeps its match and takes the newer epoch.",
            {"epoch": int},
        ),
        _spec(
            "director_pause",
            "hub",
            "The director stops the clocks.",
            optional={"reason": (ReasonArg, "director")},
        ),
        _spec("director_resume", "hub", "The director restarts the clocks."),
        _spec(
            "director_adjust",
            "hub",
            "The director adds (or removes) seconds on a player's reserve.",
            {"side": SideArg, "seconds": float},
        ),
        _spec(
            "director_lose_delay",
            "hub",
            "HGV 9.4.1: the offender loses the delay of their next turn.",
            {"side": SideArg},
        ),
        _spec(
            "director_score",
            "hub",
            "The director corrects the score (HGV 4.8).",
            {"a": int, "b": int},
            {"reason": (str, "")},
        ),
        _spec(
            "director_result",
            "hub",
            "The director records the game in progress.",
            {"winner": SideArg, "kind": KindArg},
        ),
        _spec(
            "director_clock",
            "hub",
            "The director puts a clock on the match (between games), "
            'or takes it off with null. ``{"preset": "singles"}`` applies the club\'s formula '
            "with the points already scored.",
            {"clock": dict[str, Any] | None},
        ),
        _spec("director_clear_call", "hub", "The director answers a call."),
        _spec(
            "director_forfeit",
            "hub",
            "The director ends the match: ``winner`` wins by forfeit.",
            {"winner": SideArg},
            {"reason": (str, "")},
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
    allowed = set(spec.args) | set(spec.optional)
    unknown = set(args) - allowed
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
            if key in RANGES:
                check_range(key, values[key], *RANGES[key])
        except ValidationError as e:
            raise InputError(f"{name}: {e}", e.code) from None
    return Input(name, values)
