"""Pairing a round of a domino pairs tournament: Swiss by standings, no rematch while avoidable.

The pairs are taken in standings order (games won, then points; see
:mod:`mesa.games.domino.standings`) and matched top-down: the best unmatched pair meets the next best
it has not met yet. When that leaves a pair with nobody new to meet, the search backtracks
(depth-first over the opponents in standings order), so a round without a rematch is found
whenever one exists. Only when none exists (late rounds of a small field) is a rematch allowed,
and then the fewest: the search runs again allowing a pair to meet once more, and so on.

Why Swiss and not a round-robin circle: a club evening plays 3–5 rounds with 8–40 pairs, far
fewer rounds than ``pairs − 1``, so every pair cannot meet every other; Swiss makes the rounds
count (leaders meet leaders) and the backtracking keeps the no-rematch promise exact. The search
is bounded (:data:`MAX_STEPS`); past that it falls back to the greedy top-down pairing, which
never happens with a club's field sizes.

An odd field gives a bye to the lowest pair that has not had one yet.

>>> pair_round(["A", "B", "C", "D"], met={frozenset({"A", "B"})})
Pairing(games=[('A', 'C'), ('B', 'D')], bye=None, rematches=0)
>>> pair_round(["A", "B", "C"], met=set(), byes={"C"})
Pairing(games=[('A', 'C')], bye='B', rematches=0)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

MAX_STEPS = 200_000


@dataclass(frozen=True)
class Pairing:
    """One round: ``games`` as (higher pair, lower pair) in standings order, the ``bye`` pair
    (odd fields), and how many games are rematches (0 whenever avoidable)."""

    games: list[tuple[str, str]]
    bye: str | None
    rematches: int


def _count(met: Iterable[frozenset[str]] | Counter[frozenset[str]]) -> Counter[frozenset[str]]:
    return met if isinstance(met, Counter) else Counter(met)


def _search(
    order: Sequence[str], met: Counter[frozenset[str]], allow: int, budget: list[int]
) -> list[tuple[str, str]] | None:
    """Depth-first: the first unmatched pair against each allowed opponent, best first."""
    if not order:
        return []
    first, rest = order[0], order[1:]
    for i, other in enumerate(rest):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if met[frozenset({first, other})] > allow:
            continue
        tail = _search([*rest[:i], *rest[i + 1 :]], met, allow, budget)
        if tail is not None:
            return [(first, other), *tail]
    return None


def pair_round(
    order: Sequence[str],
    met: Iterable[frozenset[str]] | Counter[frozenset[str]],
    byes: Collection[str] = (),
) -> Pairing:
    """Pair ``order`` (pair ids, best first); ``met`` holds every game already played (one
    ``frozenset({a, b})`` per game); ``byes`` the pairs that already had a bye."""
    ids = list(dict.fromkeys(order))
    counts = _count(met)
    bye = None
    if len(ids) % 2:
        # The lowest pair without a bye yet sits out (everyone had one: the lowest).
        candidates = [p for p in reversed(ids) if p not in byes] or [ids[-1]]
        bye = candidates[0]
        ids.remove(bye)
    budget = [MAX_STEPS]
    most = max(counts.values(), default=0)
    for allow in range(0, most + 1):
        games = _search(ids, counts, allow, budget)
        if games is not None:
            break
        if budget[0] < 0:
            games = None
            break
    if games is None:  # the search ran out of steps: greedy top-down, rematches allowed
        games = [(ids[i], ids[i + 1]) for i in range(0, len(ids), 2)]
    rematches = sum(counts[frozenset(g)] > 0 for g in games)
    return Pairing(games=games, bye=bye, rematches=rematches)


def rematch_free_possible(ids: Sequence[str], met: Iterable[frozenset[str]]) -> bool:
    """Whether ``ids`` (even count) can be paired without a rematch (exhaustive; for tests)."""
    counts = _count(met)
    return _search(list(ids), counts, 0, [10**9]) is not None
