"""The table's lifecycle: its states and, for every (state, input), what may follow.

This table is the contract: :class:`mesa.table.machine.Table` dispatches on it, ``docs/
transitions.md`` is generated from it, and the tests drive every (state, input) pair against
it. A pair that is not listed is refused and changes nothing; a handler that moves to a target
not listed for its pair is refused as an internal error and rolled back.

>>> TRANSITIONS[("running", "press")].targets
('running', 'paused', 'match_over')
"""

from __future__ import annotations

from dataclasses import dataclass

from mesa.table.inputs import INPUT_NAMES, INPUT_SPECS

STATES: tuple[str, ...] = (
    "idle",
    "assigned",
    "checking_in",
    "between_games",
    "running",
    "cube_offered",
    "paused",
    "result_entry",
    "match_over",
)

STATE_DOCS: dict[str, str] = {
    "idle": "No match assigned.",
    "assigned": "A match is assigned; nobody has checked in yet.",
    "checking_in": "One player has checked in; lateness points accrue for them.",
    "between_games": "Both clocks stopped between games; the lower die's press starts a game.",
    "running": "A game is on and the clock of the player on move runs.",
    "cube_offered": "A double waits for an answer; the doubled player's clock runs.",
    "paused": "Both clocks stopped, with a reason; the players' menu is shown.",
    "result_entry": "The game is over; a result is being entered and confirmed.",
    "match_over": "The match is decided.",
}


@dataclass(frozen=True)
class Transition:
    targets: tuple[str, ...]
    note: str


def _t(*targets: str, note: str) -> Transition:
    return Transition(tuple(targets), note)


_GAME_END = ("between_games", "match_over")
_REFENCE = {"refence": _t("=", note="the match stays; its newer fencing epoch is kept")}
_DIRECTOR_COMMON = {
    "director_adjust": _t("=", note="adjust the player's reserve"),
    "director_lose_delay": _t("=", note="the player's next turn has no delay"),
    "director_clear_call": _t("=", note="clear the director call"),
    "director_forfeit": _t("match_over", note="the match ends by forfeit"),
    "unassign": _t("idle", note="the match leaves this table"),
    "tick": _t("=", note="nothing to settle"),
    **_REFENCE,
}
_IN_GAME_DIRECTOR = {
    **_DIRECTOR_COMMON,
    "director_pause": _t("paused", note="the director stops both clocks"),
    "director_result": _t(*_GAME_END, note="the director records the game"),
    "director_score": _t("=", "match_over", note="the director corrects the score"),
}

TRANSITIONS: dict[tuple[str, str], Transition] = {}


def _state(state: str, moves: dict[str, Transition]) -> None:
    for name, tr in moves.items():
        targets = tuple(state if t == "=" else t for t in tr.targets)
        TRANSITIONS[(state, name)] = Transition(targets, tr.note)


_state(
    "idle",
    {
        "assign": _t("assigned", note="a match is assigned"),
        "tick": _t("idle", note="nothing to settle"),
    },
)
_ASSIGNABLE = {
    "assign": _t("assigned", note="the assignment is replaced"),
    "unassign": _t("idle", note="the match leaves this table"),
    "director_forfeit": _t("match_over", note="the match ends by forfeit"),
    "director_clock": _t("=", note="the clock settings for the match change"),
    **_REFENCE,
}
_state(
    "assigned",
    {
        **_ASSIGNABLE,
        "press": _t("checking_in", note="the player checks in"),
        "checkin": _t("checking_in", note="the player checks in"),
        "card": _t(
            "checking_in", note="a player's card checks them in (an unknown card is reported)"
        ),
        "tick": _t("assigned", note="lateness marks pass with nobody present: nothing awarded"),
    },
)
_state(
    "checking_in",
    {
        **_ASSIGNABLE,
        "press": _t(
            "between_games",
            "match_over",
            note="the absent player checks in; the match starts with any lateness points",
        ),
        "checkin": _t("between_games", "match_over", note="the absent player checks in"),
        "card": _t("between_games", "match_over", note="the absent player's card checks them in"),
        "tick": _t(
            "checking_in",
            "match_over",
            note="a lateness point at each full period; the match length is a forfeit",
        ),
    },
)
_state(
    "between_games",
    {
        **_DIRECTOR_COMMON,
        "press": _t(
            "running", note="the lower die presses: the opponent's clock starts, the game begins"
        ),
        "both_held": _t("paused", note="stop the clocks (a break between games)"),
        "pause_button": _t("paused", note="stop the clocks (a break between games)"),
        "pause": _t("paused", note="stop the clocks with a reason"),
        "director_pause": _t("paused", note="the director stops the clocks"),
        "director_score": _t("=", "match_over", note="the director corrects the score"),
        "director_clock": _t(
            "=", note="a clock is put on the match (HGV 9.1.1: only at a game's start)"
        ),
    },
)
_state(
    "running",
    {
        **_IN_GAME_DIRECTOR,
        "press": _t(
            "running",
            "paused",
            "match_over",
            note="the player on move ends the turn; the opponent's clock starts",
        ),
        "hold": _t("cube_offered", "paused", "match_over", note="the player on move doubles"),
        "cube": _t("cube_offered", "paused", "match_over", note="the player on move doubles"),
        "double": _t("cube_offered", "paused", "match_over", note="the player on move doubles"),
        "both_held": _t("paused", "match_over", note="stop both clocks"),
        "pause_button": _t("paused", "match_over", note="stop both clocks"),
        "pause": _t("paused", "match_over", note="stop both clocks with a reason"),
        "claim": _t(
            "result_entry",
            "match_over",
            note="stop both clocks and enter the result; the opponent must confirm",
        ),
        "tick": _t(
            "running",
            "paused",
            "match_over",
            note="the flag falls when a turn exceeds delay + reserve",
        ),
        "director_adjust": _t(
            "running", "paused", "match_over", note="adjust the player's reserve"
        ),
    },
)
_state(
    "cube_offered",
    {
        **_IN_GAME_DIRECTOR,
        "press": _t(
            "running",
            "paused",
            "match_over",
            note="the doubled player takes: the cube turns, the doubler's clock runs",
        ),
        "take": _t("running", "paused", "match_over", note="the doubled player takes"),
        "hold": _t(*_GAME_END, "paused", note="the doubled player passes: the game ends"),
        "drop": _t(*_GAME_END, "paused", note="the doubled player passes: the game ends"),
        "both_held": _t("paused", "match_over", note="stop both clocks"),
        "pause_button": _t("paused", "match_over", note="stop both clocks"),
        "pause": _t("paused", "match_over", note="stop both clocks with a reason"),
        "tick": _t(
            "cube_offered", "paused", "match_over", note="the doubled player's flag may fall"
        ),
        "director_adjust": _t(
            "cube_offered", "paused", "match_over", note="adjust the player's reserve"
        ),
    },
)
_state(
    "paused",
    {
        **_IN_GAME_DIRECTOR,
        "press": _t("paused", note="the menu moves to its next item"),
        "hold": _t(
            "paused",
            "running",
            "cube_offered",
            "between_games",
            "result_entry",
            note="the menu's item is chosen: resume, game over, concede, or a reason",
        ),
        "both_held": _t("running", "cube_offered", "between_games", note="restart the clocks"),
        "pause_button": _t("running", "cube_offered", "between_games", note="restart the clocks"),
        "resume": _t("running", "cube_offered", "between_games", note="restart the clocks"),
        "director_resume": _t(
            "running", "cube_offered", "between_games", note="the director restarts the clocks"
        ),
        "pause": _t("paused", note="record the reason for the pause"),
        "director_pause": _t("paused", note="the director records the reason"),
        "claim": _t("result_entry", note="enter the result; the opponent must confirm"),
        "director_clock": _t("paused", note="a clock is put on the match (only between games)"),
        "director_score": _t("paused", "match_over", note="the director corrects the score"),
    },
)
_state(
    "result_entry",
    {
        **_IN_GAME_DIRECTOR,
        "press": _t(
            "result_entry", note="the menu moves on; the opponent of a claimant rejects the claim"
        ),
        "hold": _t(
            "result_entry",
            "paused",
            *_GAME_END,
            note="choose a result (a claim), or as the claimant's opponent confirm it",
        ),
        "claim": _t("result_entry", note="a result is claimed; the opponent must confirm"),
        "confirm": _t(*_GAME_END, note="the opponent confirms: the game is recorded"),
        "reject": _t(
            "result_entry",
            note="the opponent refuses: the claim is dropped, the director is called",
        ),
        "both_held": _t("paused", note="leave result entry (no claim pending)"),
        "pause_button": _t("paused", note="leave result entry (no claim pending)"),
        "director_score": _t("result_entry", "match_over", note="the director corrects the score"),
    },
)
_state(
    "match_over",
    {
        "assign": _t("assigned", note="the next match is assigned"),
        "unassign": _t("idle", note="the table is freed"),
        "director_score": _t(
            "match_over",
            "between_games",
            note="the director corrects the score (a match may be reopened)",
        ),
        "director_clear_call": _t("match_over", note="clear the director call"),
        "tick": _t("match_over", note="nothing to settle"),
        **_REFENCE,
    },
)

# In result entry the clocks are already stopped: there is nothing for the director to pause.
del TRANSITIONS[("result_entry", "director_pause")]

assert all(s in STATES and i in INPUT_SPECS for s, i in TRANSITIONS), "unknown state or input"


def transition_table_markdown() -> str:
    """The transition table as Markdown, for ``docs/transitions.md``."""
    lines = [
        "# The table's state machine",
        "",
        "Generated by `mesa docs` from `mesa/table/transitions.py`; do not edit by hand.",
        "Every pair not listed is refused with a reason and changes nothing; "
        "`tests/table/test_transitions.py` drives every (state, input) pair.",
        "A move to a state not listed for its pair is refused too (`internal_error`, naming "
        "the state, the input and the target) and rolled back.",
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
