"""Pairing a round of a domino pairs tournament: Swiss by standings, the fewest repeated meetings.

The pairs are taken in standings order (games won, then points; see
:mod:`mesa.games.domino.standings`). A round is chosen by these criteria, each deciding only
among the rounds the earlier ones leave equal:

1. the fewest *rematches*: games whose two pairs have met before (RULES §5: "the number of
   repeated meetings is the fewest possible"), so while a round without a rematch exists, it is
   the one played;
2. the fewest earlier meetings in total among those games (a third meeting weighs more than a
   second);
3. an odd field: the bye goes to a pair with the fewest byes so far (a pair never has a second bye
   while another has had none), and among those to the lowest one the first two criteria allow;
4. the Swiss order: the best unmatched pair meets the best opponent it can, then the next best
   unmatched pair, and so on (leaders meet leaders).

Why counting games and not only forbidding them: once a rematch is unavoidable (late rounds of
a small field) "allow each pair to meet once more" would let two games repeat where one would do
(four pairs where Q0–Q1, Q0–Q2, Q1–Q2 and Q2–Q3 met: Q0–Q2 and Q1–Q3 repeat one game, Q0–Q1 and
Q2–Q3 two).

The search is a depth-first branch and bound in Swiss order: the first complete round it meets is
the greedy top-down one, and a branch is cut as soon as its cost so far plus a lower bound for the
rest (a pair that has met every other unmatched pair costs a rematch) cannot beat the best round
found. It is exact whenever it ends within :data:`MAX_STEPS` steps: measured
(``bench/domino_pairing.py``), every round of fields up to 20 pairs, and the first 14 rounds of
fields up to 41 pairs, each in a few milliseconds. Past the budget (a big field late in a long
event) the round is built from maximum matchings (Edmonds' blossoms) over the games that would not
be rematches: they give the exact fewest rematches, then the bye and each game in Swiss order are
chosen as the first that keeps that fewest possible. So the round has the fewest rematches
always, and is exactly the criteria's round whenever it needs no rematch; with rematches, swaps
between two games then cut the earlier meetings (criterion 2 is then not proven best). Such a
round costs about 0.1 s for 41 pairs.

>>> pair_round(["A", "B", "C", "D"], met={frozenset({"A", "B"})})
Pairing(games=[('A', 'C'), ('B', 'D')], bye=None, rematches=0)
>>> pair_round(["A", "B", "C"], met=set(), byes={"C"})
Pairing(games=[('A', 'C')], bye='B', rematches=0)

The issue's case, one rematch instead of two:

>>> met = [frozenset(p) for p in (("Q0", "Q1"), ("Q0", "Q2"), ("Q1", "Q2"), ("Q2", "Q3"))]
>>> pair_round(["Q0", "Q1", "Q2", "Q3"], met)
Pairing(games=[('Q0', 'Q2'), ('Q1', 'Q3')], bye=None, rematches=1)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

MAX_STEPS = 20_000


@dataclass(frozen=True)
class Pairing:
    """One round: ``games`` as (higher pair, lower pair) in standings order, the ``bye`` pair
    (odd fields), and how many games are rematches (0 whenever avoidable)."""

    games: list[tuple[str, str]]
    bye: str | None
    rematches: int


def _count(met: Iterable[frozenset[str]] | Counter[frozenset[str]]) -> Counter[frozenset[str]]:
    return met if isinstance(met, Counter) else Counter(met)


class _Search:
    """Branch and bound over the pairings of ``n`` pairs (indices in standings order).

    A round's cost is ``rematches * big + earlier meetings``; ``big`` exceeds any total of
    earlier meetings, so comparing costs compares the two criteria in order."""

    def __init__(self, counts: list[list[int]], budget: int) -> None:
        self.counts = counts
        self.budget = budget
        n = len(counts)
        self.big = sum(map(sum, counts)) + 1
        # free[i]: bitmask of the pairs i has never met.
        self.free = [
            sum(1 << j for j in range(n) if j != i and not counts[i][j]) for i in range(n)
        ]
        # once[i]: the pairs i has met exactly once.
        self.once = [sum(1 << j for j in range(n) if counts[i][j] == 1) for i in range(n)]

    def bound(self, rest: int) -> int:
        """A lower bound on the cost of pairing the set ``rest`` (a bitmask): every pair that
        has met all the others in it plays a rematch, one rematch covers at most two of them."""
        stuck = 0
        least = 0
        r = rest
        while r:
            low = r & -r
            i = low.bit_length() - 1
            r ^= low
            if not self.free[i] & rest:
                stuck += 1
                # its game's earlier meetings: 1 at least, 2 when it met each of them twice
                least += 1 if self.once[i] & rest else 2
        return (stuck + 1) // 2 * self.big + (least + 1) // 2

    def best(self, ids: list[int], ceiling: int | None) -> tuple[int, list[tuple[int, int]]] | None:
        """The cheapest pairing of ``ids`` (first in Swiss order among equals) costing less than
        ``ceiling`` (any when None); None when there is none or the budget ran out first."""
        found: list[tuple[int, list[tuple[int, int]]]] = []
        limit = [ceiling]
        rest = sum(1 << i for i in ids)

        def dfs(rest: int, cost: int, games: list[tuple[int, int]]) -> None:
            if not rest:
                if limit[0] is None or cost < limit[0]:
                    found.append((cost, list(games)))
                    limit[0] = cost
                return
            low = rest & -rest
            first = low.bit_length() - 1
            row = self.counts[first]
            for other in _bits(rest & ~low):
                self.budget -= 1
                if self.budget < 0:
                    return
                c = row[other]
                step = cost + (self.big + c if c else 0)
                left = rest & ~low & ~(1 << other)
                if limit[0] is not None and step + self.bound(left) >= limit[0]:
                    continue
                games.append((first, other))
                dfs(left, step, games)
                games.pop()

        dfs(rest, 0, [])
        return found[-1] if found else None


def _bits(mask: int) -> Iterable[int]:
    """The indices set in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def pair_round(
    order: Sequence[str],
    met: Iterable[frozenset[str]] | Counter[frozenset[str]],
    byes: Collection[str] = (),
) -> Pairing:
    """Pair ``order`` (pair ids, best first); ``met`` holds every game already played (one
    ``frozenset({a, b})`` per game); ``byes`` the pairs that already had a bye (a pair listed
    twice had two)."""
    ids = list(dict.fromkeys(order))
    counts = _count(met)
    n = len(ids)
    matrix = [[counts[frozenset({a, b})] if a != b else 0 for b in ids] for a in ids]
    search = _Search(matrix, MAX_STEPS)
    if n % 2 == 0:
        candidates: list[int | None] = [None]
    else:
        had = Counter(byes)
        fewest = min(had[p] for p in ids)
        candidates = [i for i in reversed(range(n)) if had[ids[i]] == fewest]
    best: tuple[int, list[tuple[int, int]]] | None = None
    bye: int | None = None
    for cand in candidates:
        rest = [i for i in range(n) if i != cand]
        got = search.best(rest, None if best is None else best[0])
        if got is not None:
            best, bye = got, cand
        if (best is not None and best[0] == 0) or search.budget < 0:
            break
    if search.budget < 0:
        # The search ran out of steps (a big field late in the event): the fewest rematches
        # from a maximum matching of the pairs that have not met, earlier meetings then cut by
        # swaps; kept when it beats what the search had found.
        other, fallback = _matched_round(n, candidates, matrix, search.big)
        if best is None or fallback[0] < best[0]:
            bye, best = other, fallback
    assert best is not None
    games = [(ids[a], ids[b]) for a, b in best[1]]
    rematches = sum(counts[frozenset(g)] > 0 for g in games)
    return Pairing(games=games, bye=None if bye is None else ids[bye], rematches=rematches)


def _matched_round(
    n: int, candidates: list[int | None], counts: list[list[int]], big: int
) -> tuple[int | None, tuple[int, list[tuple[int, int]]]]:
    """A round of pairs ``0..n-1`` (the bye one of ``candidates``) with the exact fewest
    rematches, the bye and the games then chosen in order as the criteria say, each choice kept
    only if a maximum matching over the games that are not rematches shows the rest can still be
    paired with that fewest; then swaps between two games while they cut the earlier meetings.
    Returns the bye and the round's cost and games."""
    free = [{j for j in range(n) if j != i and not counts[i][j]} for i in range(n)]

    def fresh(nodes: set[int]) -> int:
        """How many games among ``nodes`` can be new (a maximum matching)."""
        mate = max_matching(n, [sorted(free[i] & nodes) if i in nodes else [] for i in range(n)])
        return sum(m >= 0 for m in mate) // 2

    everyone = set(range(n))
    bye: int | None = None
    byes = [c for c in candidates if c is not None]
    if byes:
        # The fewest rematches over every allowed bye: a dummy pair n that "has met" nobody but
        # the candidates. A maximum matching that leaves the dummy out can always swap one
        # candidate's game for it (the odd field leaves someone out anyway): one game less.
        mate = max_matching(
            n + 1, [sorted(free[i]) + ([n] if i in byes else []) for i in range(n)] + [byes]
        )
        fewest = (n - 1) // 2 - (sum(m >= 0 for m in mate) // 2 - 1)
        bye = next(c for c in byes if (n - 1) // 2 - fresh(everyone - {c}) == fewest)
    rest = everyone - {bye} if bye is not None else everyone
    fewest = len(rest) // 2 - fresh(rest)
    games: list[tuple[int, int]] = []
    spent = 0
    while rest:
        # The best unmatched pair meets the best opponent that keeps the fewest rematches.
        first = min(rest)
        for other in sorted(rest - {first}):
            left = rest - {first, other}
            now = spent + (counts[first][other] > 0)
            if now + len(left) // 2 - fresh(left) == fewest:
                games.append((first, other))
                rest, spent = left, now
                break
        else:  # cannot happen (some opponent always keeps the fewest): never loop forever
            raise AssertionError("no opponent keeps the fewest rematches")

    def cost(a: int, b: int) -> int:
        return big + counts[a][b] if counts[a][b] else 0

    # Among equal costs, the Swiss order: a game between the i-th and the j-th pair (i < j)
    # weighs (n+1)^(n-1-i) * j, which makes a round's total smaller exactly when its games read
    # first in standings order (the better pairs' opponents decide first).
    huge = int((n + 1) ** (n + 1))
    place = [int((n + 1) ** (n - 1 - i)) for i in range(n)]
    weight = [
        [cost(a, b) * huge + place[min(a, b)] * max(a, b) for b in range(n)] for a in range(n)
    ]

    def key(a: int, b: int) -> int:
        return weight[a][b]

    improved = True
    while improved:
        improved = False
        for x in range(len(games)):
            for y in range(x + 1, len(games)):
                (a, b), (c, d) = games[x], games[y]
                now = key(a, b) + key(c, d)
                for p, q in (((a, c), (b, d)), ((a, d), (b, c))):
                    if key(*p) + key(*q) < now:
                        games[x], games[y] = p, q
                        improved = True
                        break
    games = sorted((min(g), max(g)) for g in games)
    return bye, (sum(cost(a, b) for a, b in games), games)


def max_matching(n: int, adj: Sequence[Sequence[int]]) -> list[int]:
    """A maximum matching of the graph on ``0..n-1`` with neighbour lists ``adj`` (Edmonds'
    blossoms): ``mate[v]`` is v's partner, -1 when unmatched.

    >>> max_matching(4, [[1], [0, 2], [1, 3], [2]])
    [1, 0, 3, 2]
    """
    mate = [-1] * n
    for v in range(n):  # a greedy start: the search below only augments what it leaves
        if mate[v] < 0:
            for w in adj[v]:
                if mate[w] < 0:
                    mate[v], mate[w] = w, v
                    break
    for root in range(n):
        if mate[root] < 0:
            _augment(root, n, adj, mate)
    return mate


def _augment(root: int, n: int, adj: Sequence[Sequence[int]], mate: list[int]) -> None:
    """Grow an alternating tree from the unmatched ``root``, shrinking odd cycles (blossoms) to
    their base, and flip the path to the first unmatched vertex reached, if any."""
    parent = [-1] * n
    base = list(range(n))
    used = [False] * n
    used[root] = True
    queue = [root]

    def lca(a: int, b: int) -> int:
        seen = [False] * n
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] < 0:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[mate[b]]

    def mark(v: int, b: int, child: int, blossom: list[bool]) -> None:
        while base[v] != b:
            blossom[base[v]] = blossom[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    while queue:
        v = queue.pop(0)
        for to in adj[v]:
            if base[v] == base[to] or mate[v] == to:
                continue
            if to == root or (mate[to] >= 0 and parent[mate[to]] >= 0):
                b = lca(v, to)
                blossom = [False] * n
                mark(v, b, to, blossom)
                mark(to, b, v, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = b
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] < 0:
                parent[to] = v
                if mate[to] < 0:
                    while to >= 0:  # flip the path back to the root
                        pv = parent[to]
                        nxt = mate[pv]
                        mate[to], mate[pv] = pv, to
                        to = nxt
                    return
                used[mate[to]] = True
                queue.append(mate[to])


def rematch_free_possible(ids: Sequence[str], met: Iterable[frozenset[str]]) -> bool:
    """Whether ``ids`` (even count) can be paired without a rematch (exhaustive; for tests)."""
    counts = _count(met)
    matrix = [[counts[frozenset({a, b})] if a != b else 0 for b in ids] for a in ids]
    search = _Search(matrix, 10**9)
    return search.best(list(range(len(ids))), search.big) is not None
