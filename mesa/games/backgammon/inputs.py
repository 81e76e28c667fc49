"""Everything a table can be told: button gestures, time, cards, menu choices, hub commands.

Each input has a name, typed arguments and a source. The controller turns GPIO edges, the card
reader and MQTT commands into these; a replay file lists them one per line.

>>> parse_input("press", {"side": "a"})
Input(name='press', args={'side': 'a'})
>>> parse_input("press", {"side": "x"})
Traceback (most recent call last):
  ...
mesa.engine.inputs.InputError: press: side must be 'a' or 'b', not 'x'
>>> from mesa.engine.inputs import InputError
>>> try:
...     parse_input("director_adjust", {"side": "a", "seconds": 1e12})
... except InputError as e:
...     print(e.code)
out_of_range
"""

from __future__ import annotations

import typing
from typing import Any, Literal

from mesa.engine.inputs import Input, InputSpec, spec, specs_by_name
from mesa.engine.inputs import parse_input as parse_against
from mesa.validation import TIME_LIMIT

__all__ = ["INPUT_NAMES", "INPUT_SPECS", "PAUSE_REASONS", "RANGES", "RESUME_KEYS", "parse_input"]

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


# Sane ranges of the numeric arguments, checked at the boundary so that nothing downstream
# (lateness marks, clock arithmetic) meets a value that costs hours or overflows.
RANGES: dict[str, tuple[float, float]] = {
    "scheduled_start": (-TIME_LIMIT, TIME_LIMIT),  # on the table's clock
    "minutes_per_point": (1.0, 120.0),  # HGV 2.3.1 says 10
    "seconds": (-86_400.0, 86_400.0),  # a director's adjustment: at most a day either way
    "suppressed": (0, 10**9),
}


INPUT_SPECS: dict[str, InputSpec] = specs_by_name(
    # ── the buttons ──
    spec(
        "press",
        "button",
        "A short press of a player's clock button (timed at its first edge).",
        {"side": SideArg},
    ),
    spec(
        "hold",
        "button",
        "A player holds their own clock button (offer the cube, answer "
        "a double with a pass, select a menu item, confirm a result).",
        {"side": SideArg},
    ),
    spec(
        "both_held", "button", "Both clock buttons held together: stop or restart the clocks."
    ),
    spec("cube", "button", "The CUBE button: the player on move doubles."),
    spec("pause_button", "button", "The PAUSE button: stop or restart the clocks."),
    # ── time ──
    spec("tick", "time", "Time passes: flag falls and lateness marks are settled."),
    # ── check-in ──
    spec(
        "checkin",
        "card",
        "A player checks in (the director's list, or a press of their button).",
        {"side": SideArg},
        {"card": (str | None, None)},
    ),
    spec(
        "card",
        "card",
        "The card reader read a member card; ``suppressed`` counts the unknown cards it "
        "read since the last one it sent (its rate limit).",
        {"card": str},
        {"suppressed": (int, 0)},
    ),
    # ── choices the menus make (also usable directly, e.g. in replay files) ──
    spec(
        "pause",
        "menu",
        "The players stop both clocks, giving the reason.",
        optional={"reason": (ReasonArg, "unspecified")},
    ),
    spec("resume", "menu", "The players restart the clocks after a pause."),
    spec("double", "menu", "The player on move doubles.", {"side": SideArg}),
    spec("take", "menu", "The doubled player takes.", {"side": SideArg}),
    spec("drop", "menu", "The doubled player passes.", {"side": SideArg}),
    spec(
        "claim",
        "menu",
        "A player enters a game result: ``winner`` wins ``kind`` "
        "(1 single, 2 gammon, 3 backgammon) × the cube.",
        {"side": SideArg, "winner": SideArg, "kind": KindArg},
        {"conceded": (bool, False), "points": (int | None, None)},
    ),
    spec(
        "confirm",
        "menu",
        "The opponent of the claimant confirms the result.",
        {"side": SideArg},
    ),
    spec(
        "reject",
        "menu",
        "The opponent of the claimant refuses the result (the director is called).",
        {"side": SideArg},
    ),
    # ── from the hub ──
    spec(
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
            # A match moved here from another table goes on where it was (see RESUME_KEYS).
            "resume": (dict[str, Any] | None, None),
        },
    ),
    spec("unassign", "hub", "The hub withdraws the match from this table."),
    spec(
        "refence",
        "hub",
        "The hub assigned the match this table holds to it again (moved away and back while"
        " the table was offline): the table keeps its match and takes the newer epoch.",
        {"epoch": int},
    ),
    spec(
        "director_pause",
        "hub",
        "The director stops the clocks.",
        optional={"reason": (ReasonArg, "director")},
    ),
    spec("director_resume", "hub", "The director restarts the clocks."),
    spec(
        "director_adjust",
        "hub",
        "The director adds (or removes) seconds on a player's reserve.",
        {"side": SideArg, "seconds": float},
    ),
    spec(
        "director_lose_delay",
        "hub",
        "HGV 9.4.1: the offender loses the delay of their next turn.",
        {"side": SideArg},
    ),
    spec(
        "director_score",
        "hub",
        "The director corrects the score (HGV 4.8).",
        {"a": int, "b": int},
        {"reason": (str, "")},
    ),
    spec(
        "director_result",
        "hub",
        "The director records the game in progress.",
        {"winner": SideArg, "kind": KindArg},
    ),
    spec(
        "director_clock",
        "hub",
        "The director puts a clock on the match, or takes it off with null: at once before "
        "the match or between games; during a game the order is kept for the match's next "
        'game (HGV 9.1.1). ``{"preset": "singles"}`` applies the club\'s formula with the '
        "points already scored (HGV 7.6.2).",
        {"clock": dict[str, Any] | None},
    ),
    spec("director_clear_call", "hub", "The director answers a call."),
    spec(
        "director_forfeit",
        "hub",
        "The director ends the match: ``winner`` wins by forfeit.",
        {"winner": SideArg},
        {"reason": (str, "")},
    ),
)

INPUT_NAMES: tuple[str, ...] = tuple(INPUT_SPECS)

# What ``assign``'s ``resume`` may carry for a match moved from another table, as the hub last
# heard it there: ``score`` ({"a": n, "b": n}, both below the length), ``games`` (the games
# begun), ``crawford_played``, ``reserve`` (each player's reserve, for a timed match),
# ``expiries`` (flags fallen: a second one loses under the overtime policy), ``penalties``
# (DE 5.1 penalty points given), ``frozen_until`` (DE 5.2 frozen cube) and ``game`` (the game
# in progress: ``cube``, ``owner``, ``crawford``, ``on_move``).
RESUME_KEYS: tuple[str, ...] = (
    "score", "games", "crawford_played", "reserve", "expiries", "penalties", "frozen_until",
    "game",
)  # fmt: skip


def parse_input(name: Any, args: Any) -> Input:
    """Validate an input's name and arguments, filling in defaults (:class:`InputError`, code
    ``bad_input`` or ``out_of_range``, when they don't fit)."""
    return parse_against(INPUT_SPECS, name, args, RANGES)
