"""Whether a backgammon table's ``match.ended`` can be true: the hub's check of a table's word.

A table is a small computer on a shared Wi-Fi with an account of its own; its program never
sends a result that contradicts itself, so one that does is forged or broken. The ingest stores
it (the stream stays gap-free) with the verdict :data:`CONTRADICTORY`, counts it under
``refused{reason=contradictory_result}``, and nothing folds it as a result: not the desk, not
the live projection, not the public card.

The rules are the match's (RULES §2, HGV 5.2, 5.3): the winner has reached the match's length
and the loser has not; a match ends in the game that takes the winner past ``length - 1``, and
no game is worth more than a backgammon on the highest cube (3 × 64). A timeout, a lateness
forfeit or the director's forfeit gives the winner the length exactly; penalty points (DE 5.1)
at most one point past it. ``length`` is the hub's own (the assignment it gave the table), never
the table's; without one only the winner against the score is checked.

>>> result_refusal("a", {"a": 5, "b": 2}, "score", 5) is None
True
>>> result_refusal("a", {"a": 0, "b": 5}, "score", 5)
'winner a with 0-5: the score says b won'
>>> result_refusal("b", {"a": 0, "b": 300}, "score", 5)
'0-300 in a 5-point match: no game is worth more than 192 points'
>>> result_refusal("a", {"a": 2, "b": 1}, "score", None)  # no length known: the winner leads
>>> result_refusal("a", {"a": 1, "b": 2}, "score", None)
'winner a with 1-2: the score says b leads'
"""

from __future__ import annotations

from typing import Any

from mesa.core.match import MAX_CUBE

# The fence verdict a contradictory result is stored with (see mesa.hub.ingest.pipeline).
CONTRADICTORY = "contradictory_result"
MAX_GAME_POINTS = 3 * MAX_CUBE  # a backgammon on a 64 cube
# Ends that give the winner the match's length exactly (Match.end_by), or one point past it
# (penalty points: 2 for a first expiry at length - 1).
_EXACT = frozenset({"timeout", "lateness", "forfeit"})
_PENALTY_OVER = 1


def _points(score: Any) -> tuple[int, int] | None:
    if not isinstance(score, dict) or set(score) != {"a", "b"}:
        return None
    a, b = score["a"], score["b"]
    if any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in (a, b)):
        return None
    return a, b


def result_refusal(winner: Any, score: Any, how: Any, length: int | None) -> str | None:
    """Why a match's end (``winner``, ``score`` {a, b}, ``how``) cannot be, in a match to
    ``length`` points (None: unknown); None when it can."""
    points = _points(score)
    if winner not in ("a", "b") or points is None:
        return f"winner {winner!r} and score {score!r} are not a result"
    a, b = points
    won, lost = (a, b) if winner == "a" else (b, a)
    shown = f"{a}-{b}"
    other = "b" if winner == "a" else "a"
    if length is None or not isinstance(length, int) or length < 1:
        if won <= lost:
            return f"winner {winner} with {shown}: the score says {other} leads"
        return None
    if won < length and lost >= length:
        return f"winner {winner} with {shown}: the score says {other} won"
    if won < length:
        return f"winner {winner} with {shown} in a {length}-point match: nobody reached {length}"
    if lost >= length:
        return f"{shown} in a {length}-point match: both players cannot have reached {length}"
    if won > length - 1 + MAX_GAME_POINTS:
        return (
            f"{shown} in a {length}-point match: no game is worth more than "
            f"{MAX_GAME_POINTS} points"
        )
    if how in _EXACT and won != length:
        return f"{shown} by {how} in a {length}-point match: the winner is given {length}"
    if how == "penalty" and won > length + _PENALTY_OVER:
        return f"{shown} by penalty points in a {length}-point match: at most {length + 1}"
    return None
