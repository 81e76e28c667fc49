"""The table's lifecycle: its states and, for every (state, input), what may follow.

This table is the contract: :class:`mesa.games.backgammon.machine.Table` dispatches on it, ``docs/
transitions.md`` is generated from it, and the tests drive every (state, input) pair against
it. A pair that is not listed is refused and changes nothing; a handler that moves to a target
not listed for its pair is refused as an internal error and rolled back.

>>> TRANSITIONS[("running", "press")].targets
('running', 'paused', 'match_over')
"""

from __future__ import annotations

from mesa.engine.transitions import TransitionTable, declare, markdown, transition
from mesa.games.backgammon.inputs import INPUT_SPECS

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


_GAME_END = ("between_games", "match_over")
_REFENCE = {"refence": transition("=", note="the match stays; its newer fencing epoch is kept")}
_DIRECTOR_COMMON = {
    "director_adjust": transition("=", note="adjust the player's reserve"),
    "director_lose_delay": transition("=", note="the player's next turn has no delay"),
    "director_clear_call": transition("=", note="clear the director call"),
    "director_forfeit": transition("match_over", note="the match ends by forfeit"),
    "unassign": transition("idle", note="the match leaves this table"),
    "tick": transition("=", note="nothing to settle"),
    **_REFENCE,
}
_IN_GAME_DIRECTOR = {
    **_DIRECTOR_COMMON,
    "director_clock": transition(
        "=",
        note="the clock (or its removal) is kept for the match's next game (HGV 9.1.1, with "
        "the HGV 7.6.2 reserve for the score then); this game keeps its clock",
    ),
    "director_pause": transition("paused", note="the director stops both clocks"),
    "director_result": transition(*_GAME_END, note="the director records the game"),
    "director_score": transition("=", "match_over", note="the director corrects the score"),
}

TRANSITIONS: TransitionTable = {}


declare(
    TRANSITIONS,
    "idle",
    {
        "assign": transition("assigned", note="a match is assigned"),
        "tick": transition("idle", note="nothing to settle"),
    },
)
_ASSIGNABLE = {
    "assign": transition("assigned", note="the assignment is replaced"),
    "unassign": transition("idle", note="the match leaves this table"),
    "director_forfeit": transition("match_over", note="the match ends by forfeit"),
    "director_clock": transition("=", note="the clock settings for the match change"),
    **_REFENCE,
}
declare(
    TRANSITIONS,
    "assigned",
    {
        **_ASSIGNABLE,
        "press": transition("checking_in", note="the player checks in"),
        "checkin": transition("checking_in", note="the player checks in"),
        "card": transition(
            "checking_in", note="a player's card checks them in (an unknown card is reported)"
        ),
        "tick": transition("assigned", note="lateness marks pass with nobody present: nothing awarded"),
    },
)
declare(
    TRANSITIONS,
    "checking_in",
    {
        **_ASSIGNABLE,
        "press": transition(
            "between_games",
            "match_over",
            note="the absent player checks in; the match starts with any lateness points",
        ),
        "checkin": transition("between_games", "match_over", note="the absent player checks in"),
        "card": transition("between_games", "match_over", note="the absent player's card checks them in"),
        "tick": transition(
            "checking_in",
            "match_over",
            note="a lateness point at each full period; the match length is a forfeit",
        ),
    },
)
declare(
    TRANSITIONS,
    "between_games",
    {
        **_DIRECTOR_COMMON,
        "press": transition(
            "running", note="the lower die presses: the opponent's clock starts, the game begins"
        ),
        "both_held": transition("paused", note="stop the clocks (a break between games)"),
        "pause_button": transition("paused", note="stop the clocks (a break between games)"),
        "pause": transition("paused", note="stop the clocks with a reason"),
        "director_pause": transition("paused", note="the director stops the clocks"),
        "director_score": transition("=", "match_over", note="the director corrects the score"),
        "director_clock": transition(
            "=", note="a clock is put on the match now (HGV 9.1.1: a game's start), or taken off"
        ),
    },
)
declare(
    TRANSITIONS,
    "running",
    {
        **_IN_GAME_DIRECTOR,
        "press": transition(
            "running",
            "paused",
            "match_over",
            note="the player on move ends the turn; the opponent's clock starts",
        ),
        "hold": transition("cube_offered", "paused", "match_over", note="the player on move doubles"),
        "cube": transition("cube_offered", "paused", "match_over", note="the player on move doubles"),
        "double": transition("cube_offered", "paused", "match_over", note="the player on move doubles"),
        "both_held": transition("paused", "match_over", note="stop both clocks"),
        "pause_button": transition("paused", "match_over", note="stop both clocks"),
        "pause": transition("paused", "match_over", note="stop both clocks with a reason"),
        "claim": transition(
            "result_entry",
            "match_over",
            note="stop both clocks and enter the result; the opponent must confirm",
        ),
        "tick": transition(
            "running",
            "paused",
            "match_over",
            note="the flag falls when a turn exceeds delay + reserve",
        ),
        "director_adjust": transition(
            "running", "paused", "match_over", note="adjust the player's reserve"
        ),
    },
)
declare(
    TRANSITIONS,
    "cube_offered",
    {
        **_IN_GAME_DIRECTOR,
        "press": transition(
            "running",
            "paused",
            "match_over",
            note="the doubled player takes: the cube turns, the doubler's clock runs",
        ),
        "take": transition("running", "paused", "match_over", note="the doubled player takes"),
        "hold": transition(*_GAME_END, "paused", note="the doubled player passes: the game ends"),
        "drop": transition(*_GAME_END, "paused", note="the doubled player passes: the game ends"),
        "both_held": transition("paused", "match_over", note="stop both clocks"),
        "pause_button": transition("paused", "match_over", note="stop both clocks"),
        "pause": transition("paused", "match_over", note="stop both clocks with a reason"),
        "tick": transition(
            "cube_offered", "paused", "match_over", note="the doubled player's flag may fall"
        ),
        "director_adjust": transition(
            "cube_offered", "paused", "match_over", note="adjust the player's reserve"
        ),
    },
)
declare(
    TRANSITIONS,
    "paused",
    {
        **_IN_GAME_DIRECTOR,
        "press": transition("paused", note="the menu moves to its next item"),
        "hold": transition(
            "paused",
            "running",
            "cube_offered",
            "between_games",
            "result_entry",
            note="the menu's item is chosen: resume, game over, concede, or a reason",
        ),
        "both_held": transition("running", "cube_offered", "between_games", note="restart the clocks"),
        "pause_button": transition("running", "cube_offered", "between_games", note="restart the clocks"),
        "resume": transition("running", "cube_offered", "between_games", note="restart the clocks"),
        "director_resume": transition(
            "running", "cube_offered", "between_games", note="the director restarts the clocks"
        ),
        "pause": transition("paused", note="record the reason for the pause"),
        "director_pause": transition("paused", note="the director records the reason"),
        "claim": transition("result_entry", note="enter the result; the opponent must confirm"),
        "director_clock": transition(
            "paused",
            note="between games, a clock is put on the match now; during a game, it is kept "
            "for the next game",
        ),
        "director_score": transition("paused", "match_over", note="the director corrects the score"),
    },
)
declare(
    TRANSITIONS,
    "result_entry",
    {
        **_IN_GAME_DIRECTOR,
        "press": transition(
            "result_entry", note="the menu moves on; the opponent of a claimant rejects the claim"
        ),
        "hold": transition(
            "result_entry",
            "paused",
            *_GAME_END,
            note="choose a result (a claim), or as the claimant's opponent confirm it",
        ),
        "claim": transition("result_entry", note="a result is claimed; the opponent must confirm"),
        "confirm": transition(*_GAME_END, note="the opponent confirms: the game is recorded"),
        "reject": transition(
            "result_entry",
            note="the opponent refuses: the claim is dropped, the director is called",
        ),
        "both_held": transition("paused", note="leave result entry (no claim pending)"),
        "pause_button": transition("paused", note="leave result entry (no claim pending)"),
        "director_score": transition("result_entry", "match_over", note="the director corrects the score"),
    },
)
declare(
    TRANSITIONS,
    "match_over",
    {
        "assign": transition("assigned", note="the next match is assigned"),
        "unassign": transition("idle", note="the table is freed"),
        "director_score": transition(
            "match_over",
            "between_games",
            note="the director corrects the score (a match may be reopened)",
        ),
        "director_clear_call": transition("match_over", note="clear the director call"),
        "tick": transition("match_over", note="nothing to settle"),
        **_REFENCE,
    },
)

# In result entry the clocks are already stopped: there is nothing for the director to pause.
del TRANSITIONS[("result_entry", "director_pause")]

assert all(s in STATES and i in INPUT_SPECS for s, i in TRANSITIONS), "unknown state or input"


def transition_table_markdown() -> str:
    """The transition table as Markdown, for ``docs/transitions.md``."""
    intro = [
        "# The table's state machine",
        "",
        "Generated by `mesa docs` from `mesa/games/backgammon/transitions.py`; do not edit by hand.",
        "Every pair not listed is refused with a reason and changes nothing; "
        "`tests/games/backgammon/test_transitions.py` drives every (state, input) pair.",
        "A move to a state not listed for its pair is refused too (`internal_error`, naming "
        "the state, the input and the target) and rolled back.",
    ]
    return markdown(intro, STATES, STATE_DOCS, INPUT_SPECS, TRANSITIONS)
