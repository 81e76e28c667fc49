"""Último Chance (HGV 7.4.13): a single-elimination consolation bracket, matches to 3.

Its entrants are the group non-qualifiers and the players who lost their first knockout
match (play-in, or first round for the seeds that skipped the play-ins), if they want to play:
it is optional. Its two finalists earn ranking points (HGV 7.5).

>>> plan = plan_consolation(6)
>>> [m.id for m in plan.matches]
['UC-R1-1', 'UC-R1-2', 'UC-R2-1', 'UC-R2-2', 'UC-R3-1']
>>> consolation_seeds(["eva", "ana", "ivo"], {"ana": 3, "eva": 9, "ivo": 30})
['ana', 'eva', 'ivo']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mesa.tournament.knockout import BracketPlan, numbered_round_label, plan_bracket
from mesa.tournament.matches import Match

PREFIX = "UC"


def plan_consolation(entrants: int) -> BracketPlan:
    """The bracket shape for ``entrants`` players; rounds are numbered (UC-R1-2…)."""
    return plan_bracket(entrants, PREFIX, numbered_round_label)


def consolation_seeds(entrants: Iterable[str], seeding_rank: Mapping[str, int]) -> list[str]:
    """Entrants in the tournament's seeding order (a decision: HGV 7.4.13 gives no order)."""
    return sorted(entrants, key=lambda p: (seeding_rank.get(p, 10**9), p))


def first_knockout_losers(ko_matches: Iterable[Match]) -> list[str]:
    """Players whose first knockout match is decided and lost."""
    seen: set[str] = set()
    losers: list[str] = []
    for m in sorted(ko_matches, key=lambda m: (m.round_no, m.number)):
        for p in m.players:
            if p in seen:
                continue
            seen.add(p)
            if m.result is not None and m.result.loser == p:
                losers.append(p)
    return losers


def finalists(final: Match | None) -> tuple[str, ...]:
    """The players of the consolation final, once both are known."""
    if final is None or final.a is None or final.b is None:
        return ()
    return (final.a, final.b)
