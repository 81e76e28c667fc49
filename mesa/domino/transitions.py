"""The domino table's lifecycle: its states and, for every (state, input), what may follow.

The contract, as for the backgammon table: :class:`mesa.domino.machine.DominoTable` dispatches
on it, ``docs/domino-transitions.md`` is generated from it, and the tests drive every
(state, input) pair. A pair that is not listed is refused and changes nothing.

>>> TRANSITIONS[("playing", "long_hold")].targets
('hand_entry',)
"""

from __future__ import annotations

from mesa.domino.inputs import INPUT_NAMES, INPUT_SPECS
from mesa.table.transitions import Transition

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


def _t(*targets: str, note: str) -> Transition:
    return Transition(tuple(targets), note)


TRANSITIONS: dict[tuple[str, str], Transition] = {}


def _state(state: str, moves: dict[str, Transition]) -> None:
    for name, tr in moves.items():
        targets = tuple(state if t == "=" else t for t in tr.targets)
        TRANSITIONS[(state, name)] = Transition(targets, tr.note)


_IN_GAME = {
    "tiempo": _t("=", note="re-anchor the game's start (a restarted table); the turn restarts"),
    "penalty": _t("=", "game_over", note="record the penalty; an expulsion ends the game"),
    "unassign": _t("idle", note="the game leaves this table"),
}

_state(
    "idle",
    {
        "assign": _t("assigned", note="a game is assigned"),
        "tick": _t("=", note="nothing to settle"),
    },
)
_state(
    "assigned",
    {
        "assign": _t("=", note="the assignment is replaced"),
        "unassign": _t("idle", note="the game leaves this table"),
        "tiempo": _t("ready", note='"TIEMPO": the game\'s time starts at the hub\'s instant'),
        "penalty": _t("=", note="record the penalty (e.g. a repeated late arrival)"),
        "absence": _t("game_over", note="the present pair wins the game; absent players −100"),
        "tick": _t("=", note="nothing to settle"),
    },
)
_state(
    "ready",
    {
        **_IN_GAME,
        "press": _t(
            "playing",
            note="the lead placed the first tile (any seat for hand 1, then the rotation)",
        ),
        "absence": _t("game_over", note="before the first hand: the present pair wins"),
        "tick": _t("=", note='"TIEMPO" may be called: one more hand'),
    },
)
_state(
    "playing",
    {
        **_IN_GAME,
        "press": _t("=", note="the seat on turn placed a tile; over 15 s: warning, then −25"),
        "hold": _t("=", note='the seat on turn said "paso"; over 5 s: +25 to each opponent'),
        "long_hold": _t(
            "hand_entry",
            note="on turn: the seat placed its last tile (domino); off turn: a block is called",
        ),
        "tick": _t("=", note='"TIEMPO" may be called: this hand is the last'),
    },
)
_state(
    "hand_entry",
    {
        **_IN_GAME,
        "press": _t("=", note="the winning pair turns the units digit (the first press of a "
                              "block's entry picks the pair)"),
        "hold": _t("=", note="the winning pair turns the tens digit"),
        "long_hold": _t("hand_confirm", note="the winning pair accepts the points (0 after a "
                                             "block: a tie)"),
        "claim": _t("hand_confirm", note="the winning pair enters the points directly"),
        "tick": _t("=", note='"TIEMPO" may be called: one more hand'),
    },
)
_state(
    "hand_confirm",
    {
        **_IN_GAME,
        "hold": _t("ready", "game_over", note="the other pair confirms: the hand is recorded"),
        "confirm": _t("ready", "game_over", note="the other pair confirms: the hand is recorded"),
        "press": _t("hand_entry", note="the other pair refuses: the entry is reopened"),
        "reject": _t("hand_entry", note="the other pair refuses: the entry is reopened"),
        "tick": _t("=", note='"TIEMPO" may be called: one more hand'),
    },
)
_state(
    "game_over",
    {
        "press": _t("=", note="the player signs the score sheet for their pair"),
        "sign": _t("=", note="the player signs the score sheet for their pair"),
        "penalty": _t("=", note="a penalty after the game (left before the sheet, unsigned)"),
        "assign": _t("assigned", note="the next game is assigned"),
        "unassign": _t("idle", note="the table is freed"),
        "tick": _t("=", note="nothing to settle"),
    },
)

assert all(s in STATES and i in INPUT_SPECS for s, i in TRANSITIONS), "unknown state or input"


def transition_table_markdown() -> str:
    """The transition table as Markdown, for ``docs/domino-transitions.md``."""
    lines = [
        "# The domino table's state machine",
        "",
        "Generated by `mesa docs` from `mesa/domino/transitions.py`; do not edit by hand.",
        "Every pair not listed is refused with a reason and changes nothing; "
        "`tests/domino/test_domino_transitions.py` drives every (state, input) pair. "
        "Seats are `n`, `e`, `s`, `w`; pairs `ns` and `ew`; the turn passes n → w → s → e. "
        "See [domino.md](domino.md) for the design.",
        "",
        "## States",
        "",
        "| state | meaning |",
        "|---|---|",
    ]
    lines += [f"| `{s}` | {STATE_DOCS[s]} |" for s in STATES]
    lines += ["", "## Inputs", "", "| input | source | arguments | meaning |", "|---|---|---|---|"]
    for name in INPUT_NAMES:
        spec = INPUT_SPECS[name]
        args = [f"`{k}`" for k in spec.args] + [f"`{k}`?" for k in spec.optional]
        lines.append(f"| `{name}` | {spec.source} | {', '.join(args) or '–'} | {spec.doc} |")
    lines += ["", "## Transitions", ""]
    for state in STATES:
        lines += [f"### `{state}`", "", "| input | next state | what happens |", "|---|---|---|"]
        for name in INPUT_NAMES:
            tr = TRANSITIONS.get((state, name))
            if tr:
                targets = ", ".join(f"`{t}`" for t in tr.targets)
                lines.append(f"| `{name}` | {targets} | {tr.note} |")
        refused = [f"`{n}`" for n in INPUT_NAMES if (state, n) not in TRANSITIONS]
        lines += ["", f"Refused here: {', '.join(refused) or 'nothing'}.", ""]
    return "\n".join(lines)
