"""The domino table's lifecycle: its states and, for every (state, input), what may follow.

The contract, as for the backgammon table: :class:`mesa.games.domino.machine.DominoTable` dispatches
on it, ``docs/domino-transitions.md`` is generated from it, and the tests drive every
(state, input) pair. A pair that is not listed is refused and changes nothing.

>>> TRANSITIONS[("playing", "long_hold")].targets
('hand_entry',)
"""

from __future__ import annotations

from mesa.engine.transitions import TransitionTable, declare, markdown, transition
from mesa.games.domino.inputs import INPUT_SPECS

STATES: tuple[str, ...] = (
    "idle",
    "assigned",
    "ready",
    "playing",
    "hand_entry",
    "hand_confirm",
    "game_over",
)

STATE_DOCS: dict[str, str] = {
    "idle": "No game assigned.",
    "assigned": 'A game is assigned; the table waits for the hub\'s "TIEMPO".',
    "ready": "The game's time runs; between hands. The lead places the first tile and presses.",
    "playing": "A hand is on: the timer of the seat on turn runs (15 s to play, 5 s to pass).",
    "hand_entry": "The last tile is down; the pair that won enters the hand's points.",
    "hand_confirm": "The claimed points wait for a player of the other pair to confirm them.",
    "game_over": "The game is decided; the score sheet waits for one signature per pair.",
}


TRANSITIONS: TransitionTable = {}


_IN_GAME = {
    "tiempo": transition("=", note="re-anchor the game's start (a restarted table); the turn restarts"),
    "penalty": transition("=", "game_over", note="note the penalty; an expulsion ends the game"),
    "unassign": transition("idle", note="the game leaves this table"),
}
# A hand on (being played, or its points entered or waiting for confirmation) can be annulled.
_ANNUL = {
    "annul": transition("ready", "game_over", note="the hand scores nothing and the lead rotates; "
                        "time's end and 200 are settled as after any hand"),
}

declare(
    TRANSITIONS,
    "idle",
    {
        "assign": transition("assigned", note="a game is assigned"),
        "tick": transition("=", note="nothing to settle"),
    },
)
declare(
    TRANSITIONS,
    "assigned",
    {
        "assign": transition("=", note="the assignment is replaced"),
        "unassign": transition("idle", note="the game leaves this table"),
        "tiempo": transition("ready", note='"TIEMPO": the game\'s time starts at the hub\'s instant'),
        "penalty": transition("=", note="record the penalty (e.g. a repeated late arrival)"),
        "absence": transition("game_over", note="the present pair wins the game; absent players −100"),
        "late": transition("=", note="a player reached the table late: noted and shown"),
        "tick": transition("=", note="nothing to settle"),
    },
)
declare(
    TRANSITIONS,
    "ready",
    {
        **_IN_GAME,
        "press": transition(
            "playing",
            note="the lead placed the first tile (any seat for hand 1, then the rotation)",
        ),
        "absence": transition("game_over", note="before the first hand: the present pair wins"),
        "late": transition("=", note="a player reached the table late: noted and shown"),
        "tick": transition("=", note='"TIEMPO" may be called: one more hand'),
    },
)
declare(
    TRANSITIONS,
    "playing",
    {
        **_IN_GAME,
        **_ANNUL,
        "press": transition("=", note="the seat on turn placed a tile; over 15 s: warning, then −25"),
        "hold": transition("=", note='the seat on turn said "paso"; over 5 s: +25 to each opponent'),
        "long_hold": transition(
            "hand_entry",
            note="on turn: the seat placed its last tile (domino); off turn: a block is called",
        ),
        "tick": transition("=", note='"TIEMPO" may be called: this hand is the last'),
    },
)
declare(
    TRANSITIONS,
    "hand_entry",
    {
        **_IN_GAME,
        **_ANNUL,
        "press": transition("=", note="the winning pair turns the units digit (the first press of a "
                              "block's entry picks the pair)"),
        "hold": transition("=", note="the winning pair turns the tens digit"),
        "long_hold": transition("hand_confirm", note="the winning pair accepts the points (0 after a "
                                             "block: a tie)"),
        "claim": transition("hand_confirm", note="the winning pair enters the points directly"),
        "tick": transition("=", note='"TIEMPO" may be called: one more hand'),
    },
)
declare(
    TRANSITIONS,
    "hand_confirm",
    {
        **_IN_GAME,
        **_ANNUL,
        "hold": transition("ready", "game_over", note="the other pair confirms: the hand is recorded"),
        "confirm": transition("ready", "game_over", note="the other pair confirms: the hand is recorded"),
        "press": transition("hand_entry", note="the other pair refuses: the entry is reopened"),
        "reject": transition("hand_entry", note="the other pair refuses: the entry is reopened"),
        "tick": transition("=", note='"TIEMPO" may be called: one more hand'),
    },
)
declare(
    TRANSITIONS,
    "game_over",
    {
        "press": transition("=", note="the player signs the score sheet for their pair"),
        "sign": transition("=", note="the player signs the score sheet for their pair"),
        "penalty": transition("=", note="a penalty after the game (left before the sheet)"),
        "assign": transition("assigned", note="the next game is assigned; a pair that did not "
                             "sign is reported first (`domino.sheet.unsigned`)"),
        "unassign": transition("idle", note="the table is freed; a pair that did not sign is "
                               "reported first (`domino.sheet.unsigned`)"),
        "tick": transition("=", note="nothing to settle"),
    },
)

assert all(s in STATES and i in INPUT_SPECS for s, i in TRANSITIONS), "unknown state or input"


def transition_table_markdown() -> str:
    """The transition table as Markdown, for ``docs/domino-transitions.md``."""
    intro = [
        "# The domino table's state machine",
        "",
        "Generated by `mesa docs` from `mesa/games/domino/transitions.py`; do not edit by hand.",
        "Every pair not listed is refused with a reason and changes nothing; "
        "`tests/games/domino/test_domino_transitions.py` drives every (state, input) pair. "
        "Seats are `n`, `e`, `s`, `w`; pairs `ns` and `ew`; the turn passes n → w → s → e. "
        "See [domino.md](domino.md) for the design.",
    ]
    return markdown(intro, STATES, STATE_DOCS, INPUT_SPECS, TRANSITIONS)
