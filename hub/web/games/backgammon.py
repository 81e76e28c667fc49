"""Backgammon's director actions, declared: each action's fields, whether it needs a reason, what
its audit line names, and the function that runs it (the tournament's on the desk,
:mod:`~mesa.hub.web.actions.tournament`; a table's as a command,
:mod:`~mesa.hub.web.actions.tables`). The door's join them in the endpoint
(:data:`mesa.hub.web.actions.door.DOOR_ACTIONS`).

>>> sorted(ACTIONS)[:4]
['adjust_clock', 'adopt_table', 'assign', 'check_in']
>>> parse_fields(ACTIONS["settle_game"], {"table": "3", "winner": "b", "kind": "2",
...                                       "reason": "disputa resuelta"})
{'table': '3', 'winner': 'b', 'kind': '2', 'reason': 'disputa resuelta'}
>>> parse_fields(ACTIONS["adjust_clock"], {"table": "3", "side": "a", "seconds": "-30",
...                                        "reason": "reloj mal puesto"})
{'table': '3', 'side': 'a', 'seconds': -30.0, 'reason': 'reloj mal puesto'}
>>> parse_fields(ACTIONS["adjust_clock"], {"table": "3", "side": "c", "seconds": "x"})
Traceback (most recent call last):
  ...
mesa.hub.web.actions.registry.BadField: side
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mesa.hub.web.actions.enrolment import adopt_table, dismiss_enrolment
from mesa.hub.web.actions.registry import Action, Field, parse_fields
from mesa.hub.web.actions.tables import (
    adjust_clock,
    clear_call,
    correct_score,
    lose_delay,
    pause,
    resume,
    set_clock,
    settle_game,
)
from mesa.hub.web.actions.tournament import (
    assign,
    check_in,
    close,
    correct_result,
    create_tournament,
    forfeit,
    import_ranking,
    impose_clock,
    move,
    record_result,
    register_player,
    release_table,
    reserve_tables,
    resolve_conflict,
    roll_dice,
    sanction,
    start_consolation,
    unassign,
    unregister_player,
)

__all__ = ["ACTIONS", "parse_fields"]


def _tgt(*keys: str) -> Callable[[dict[str, Any]], str]:
    def target(v: dict[str, Any]) -> str:
        # A side is a player's letter: "2 · A", never "2 a" (which reads as a preposition).
        return " · ".join(
            str(v[k]).upper() if k == "side" else str(v[k])
            for k in keys
            if v.get(k) not in (None, "")
        )

    return target


S = Field  # short for the table below
ACTIONS: dict[str, Action] = {
    a.name: a
    for a in [
        Action(
            "create_tournament",
            (
                S("name"),
                S("date", "date"),
                S("id", required=False),
                S(
                    "category",
                    "choice",
                    required=False,
                    choices=("open", "novatos"),
                    default="open",
                ),
                S("official", "bool", required=False),
                S("consolation", "bool", required=False),
            ),
            create_tournament,
            target=_tgt("name", "date"),
        ),
        Action(
            "import_ranking",
            (
                S("csv", "text"),
                S("year", "int"),
                S(
                    "category",
                    "choice",
                    required=False,
                    choices=("open", "novatos"),
                    default="open",
                ),
                S("create_missing", "bool", required=False),
            ),
            import_ranking,
            target=_tgt("year", "category"),
        ),
        Action(
            "register_player",
            (
                S("player_id", required=False),
                S("new_name", required=False),
                S("override", "bool", required=False),
            ),
            register_player,
            target=_tgt("player_id", "new_name"),
        ),
        Action("unregister_player", (S("player_id"),), unregister_player, target=_tgt("player_id")),
        Action(
            "check_in",
            (S("player_id"), S("present", "bool", required=False)),
            check_in,
            target=_tgt("player_id"),
        ),
        Action("start_consolation", (), start_consolation),
        Action("reserve_tables", (S("tables", required=False),), reserve_tables),
        Action(
            "assign",
            (S("match_id"), S("table"), S("confirm_table", "bool", required=False)),
            assign,
            target=_tgt("match_id", "table"),
        ),
        Action(
            "move",
            (S("match_id"), S("table"), S("from_zero", "bool", required=False)),
            move,
            reason_required=True,
            target=_tgt("match_id", "table"),
        ),
        Action("unassign", (S("match_id"),), unassign, target=_tgt("match_id")),
        Action(
            "set_clock",
            (S("table"), S("preset", "choice", choices=("singles", "usbgf", "standard", "none"))),
            set_clock,
            target=_tgt("table"),
        ),
        Action("impose_clock", (S("match_id"),), impose_clock, target=_tgt("match_id")),
        Action(
            "record_result",
            (
                S("match_id"),
                S("score_a", "int"),
                S("score_b", "int"),
                S("forfeit", "bool", required=False),
            ),
            record_result,
            target=_tgt("match_id"),
        ),
        Action(
            "correct_result",
            (
                S("match_id"),
                S("score_a", "int"),
                S("score_b", "int"),
                S("forfeit", "bool", required=False),
                S("expected", required=False),
            ),
            correct_result,
            reason_required=True,
            target=_tgt("match_id"),
        ),
        Action(
            "resolve_conflict",
            (
                S("conflict_id"),
                S("resolution", "choice", choices=("keep", "apply", "apply_keep_draw")),
                # What "apply" annuls, as the page showed it: a whole knockout can be listed.
                S("expected", "ids", required=False),
            ),
            resolve_conflict,
            target=_tgt("conflict_id"),
        ),
        Action(
            "correct_score",
            (S("table"), S("a", "int"), S("b", "int")),
            correct_score,
            reason_required=True,
            target=_tgt("table"),
        ),
        Action(
            "adjust_clock",
            (S("table"), S("side", "side"), S("seconds", "float")),
            adjust_clock,
            reason_required=True,
            target=_tgt("table", "side"),
        ),
        Action(
            "lose_delay",
            (S("table"), S("side", "side")),
            lose_delay,
            reason_required=True,
            target=_tgt("table", "side"),
        ),
        Action(
            "pause",
            (
                S("table"),
                S(
                    "why",
                    "choice",
                    required=False,
                    choices=("director", "dispute", "fallen_die", "break", "unspecified"),
                ),
            ),
            pause,
            target=_tgt("table"),
        ),
        Action("resume", (S("table"),), resume, target=_tgt("table")),
        Action("clear_call", (S("table"),), clear_call, target=_tgt("table")),
        Action(
            "forfeit",
            (S("match_id"), S("winner", "side")),
            forfeit,
            reason_required=True,
            target=_tgt("match_id"),
        ),
        Action(
            "sanction",
            (S("player_id"), S("kind", "choice", choices=("left", "no_show"))),
            sanction,
            reason_required=True,
            target=_tgt("player_id"),
        ),
        Action(
            "roll_dice",
            (S("group", "int"), S("players", required=False), S("values", required=False)),
            roll_dice,
            target=_tgt("group"),
        ),
        Action("release_table", (S("table"),), release_table, target=_tgt("table")),
        Action(
            "settle_game",
            (S("table"), S("winner", "side"), S("kind", "choice", choices=("1", "2", "3"))),
            settle_game,
            reason_required=True,
            target=_tgt("table"),
        ),
        Action("close", (), close),
        Action(
            "adopt_table",
            (S("code"), S("table"), S("replace", required=False)),
            adopt_table,
            # The audit line reads "mesa nueva adoptada · código 4F7-2K9 → mesa 7".
            target=lambda v: f"código {v['code']} → mesa {v['table']}",
        ),
        Action("dismiss_enrolment", (S("id"),), dismiss_enrolment, target=lambda v: v["id"]),
    ]
}

