"""The draw of a round of the individual domino format: tables of four, partners drawn each round.

Every round the players are seated four to a table, n and s partners against e and w, from the
standings order (best first). A draw is chosen by these criteria, each deciding only among the
draws the earlier ones leave equal:

1. the fewest *partner repeats*: partnerships of this draw that have played before (RULES §5:
   nobody partners the same player twice while that can be avoided);
2. the fewest earlier partnerships in total among them (a third time weighs more than a second);
3. the fewest *opponent repeats*: pairs of players facing each other again (each table holds four
   such pairs: n–e, n–w, s–e, s–w);
4. the fewest earlier meetings as opponents in total among them;
5. closeness to the standings order (leaders with leaders): with the seated players ranked
   0, 1, 2 … in standings order, the smallest sum over the tables of ``4·Σr² − (Σr)²`` (four
   times the sum of the squared distances of a table's ranks from their mean), which tables of
   consecutive ranks make smallest;
6. the first draw in standings order: tables listed by their best player, the draw whose ranks
   read first (lexicographically);
7. at each table of players a < b < c < d (by rank), among its splits into two partnerships that
   the criteria above leave equal, the first of: a+d against b+c (the balanced game: the
   table's best partners its weakest), a+c against b+d, a+b against c+d.

Seats: n is the table's best player and s his partner, e the better of the other two and w his
partner.

Why partner repeats weigh first: a partner shares every point of the game, an opponent only
sits across; the individual format exists so that a player's record does not depend on one
partner, and a repeated partnership is the repeat the players notice and the seed forbids first
("la pareja equivocada" is fined). Opponent repeats are the lesser harm, and the standings order
gives way to both because a round that repeats a partnership to keep the leaders together would
undo what the format is for.

A field not divisible by four sits out the lowest players among those who sat out the fewest
times (with the ``sat_out`` history listing each earlier sit-out, a player named twice sat out
twice); they are taken before the draw and do not take part in it.

The search: up to :data:`EXACT_PLAYERS` seated players a depth-first branch and bound over every
draw (exact: property-tested against a brute force). For bigger fields: a start from the tables
of consecutive ranks, improved by re-seating the eight players of any two tables in the best of
their 35 ways while that lowers the criteria; while a table still repeats, up to :data:`KICKS`
times a rotation of one player each among it and two other tables, improved again and kept when
it costs less; then the same branch and bound with a budget of :data:`MAX_STEPS` steps, which
improves on it when it can (on 16 players with light histories it then matched the exhaustive
search in 40 cases of 40). Measured (``bench/domino_pairing.py``): a round of 40 or 64 players in
under 0.25 s of CPU, with no partner or opponent repeat over 12 rounds.

>>> d = draw_individual(["A", "B", "C", "D", "E"], partnered=[], faced=[])
>>> d.tables, d.sitting_out
([{'n': 'A', 'e': 'B', 's': 'D', 'w': 'C'}], ['E'])
>>> d = draw_individual(["A", "B", "C", "D"], partnered=[frozenset({"A", "D"})], faced=[])
>>> d.tables, d.partner_repeats
([{'n': 'A', 'e': 'B', 's': 'C', 'w': 'D'}], 0)
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

EXACT_PLAYERS = 12
MAX_STEPS = 10_000
KICKS = 30

# The three splits of a table's four players a < b < c < d, in the order they are preferred:
# ((first partnership), (second partnership)) as positions in (a, b, c, d).
SPLITS = (((0, 3), (1, 2)), ((0, 2), (1, 3)), ((0, 1), (2, 3)))


@dataclass(frozen=True)
class IndividualDraw:
    """One round: ``tables`` (seat n/e/s/w → player id; n+s and e+w are partners) in standings
    order, ``sitting_out`` (standings order), and how many partnerships and opponent pairs of
    the draw have played before."""

    tables: list[dict[str, str]]
    sitting_out: list[str]
    partner_repeats: int
    opponent_repeats: int


class _Costs:
    """Each table's cost (the criteria 1–5 as one integer, weights keeping them in order) and
    its best split, cached by the table's four ranks."""

    def __init__(self, partners: list[list[int]], opponents: list[list[int]]) -> None:
        self.p = partners
        self.o = opponents
        m = len(partners)
        tables = max(1, m // 4)
        top_p = max(map(max, partners), default=0) if m else 0
        top_o = max(map(max, opponents), default=0) if m else 0
        w_ot = 16 * m * m * tables + 1
        w_o = w_ot * (4 * tables * top_o + 1)
        w_pt = w_o * (4 * tables + 1)
        w_p = w_pt * (2 * tables * top_p + 1)
        # What two players cost as partners, and as opponents, in those weights.
        self.as_partners = [[(v > 0) * w_p + v * w_pt for v in row] for row in partners]
        self.as_opponents = [[(v > 0) * w_o + v * w_ot for v in row] for row in opponents]
        self.repeat = w_o  # a table costing this much or more repeats a partner or an opponent
        self.cache: dict[tuple[int, int, int, int], tuple[int, int]] = {}

    def table(self, t: tuple[int, int, int, int]) -> tuple[int, int]:
        """(cost, split index) of the table ``t`` (ranks, increasing)."""
        got = self.cache.get(t)
        if got is None:
            a, b, c, d = t
            po, pp = self.as_opponents, self.as_partners
            total = a + b + c + d
            # Of a table's six pairs of players, a split makes two partners, four opponents.
            base = (
                4 * (a * a + b * b + c * c + d * d) - total * total
                + po[a][b] + po[a][c] + po[a][d] + po[b][c] + po[b][d] + po[c][d]
            )
            got = min(
                (base + pp[a][d] + pp[b][c] - po[a][d] - po[b][c], 0),
                (base + pp[a][c] + pp[b][d] - po[a][c] - po[b][d], 1),
                (base + pp[a][b] + pp[c][d] - po[a][b] - po[c][d], 2),
            )
            self.cache[t] = got
        return got

    def repeats(self, t: tuple[int, int, int, int]) -> tuple[int, int]:
        (a, b), (c, d) = SPLITS[self.table(t)[1]]
        partner = (self.p[t[a]][t[b]] > 0) + (self.p[t[c]][t[d]] > 0)
        opponent = sum(self.o[t[x]][t[y]] > 0 for x in (a, b) for y in (c, d))
        return partner, opponent


def _spread_bound(ranks: list[int]) -> int:
    """The least spread the sorted ``ranks`` can be seated with: consecutive fours (for equal
    groups on a line, consecutive groups have the least sum of squared deviations)."""
    total = 0
    for k in range(0, len(ranks), 4):
        t = ranks[k : k + 4]
        s = sum(t)
        total += 4 * sum(r * r for r in t) - s * s
    return total


Draw = list[tuple[int, int, int, int]]


def _cost(costs: _Costs, draw: Draw) -> int:
    return sum(costs.table(t)[0] for t in draw)


def _improve(costs: _Costs, draw: Draw) -> Draw:
    """Re-seat the eight players of two tables in the best of their 35 ways while that lowers
    the cost (each accepted move lowers it, so this ends); two tables already at their best
    together are tried again only once one of them has changed."""
    draw = list(draw)
    settled: set[tuple[int, int]] = set()
    improved = True
    while improved:
        improved = False
        for i, j in itertools.combinations(range(len(draw)), 2):
            if (i, j) in settled:
                continue
            eight = sorted(draw[i] + draw[j])
            now = costs.table(draw[i])[0] + costs.table(draw[j])[0]
            first, rest = eight[0], eight[1:]
            moved = False
            for three in itertools.combinations(rest, 3):
                one = (first, *three)
                other = tuple(r for r in rest if r not in three)
                cost = costs.table(one)[0] + costs.table(other)[0]  # type: ignore[arg-type]
                if cost < now:
                    draw[i], draw[j] = one, other  # type: ignore[assignment]
                    now = cost
                    moved = True
            if moved:
                improved = True
                settled = {k for k in settled if i not in k and j not in k}
            settled.add((i, j))
    return sorted(draw)


def _kicks(costs: _Costs, draw: Draw, tries: int) -> Draw:
    """Out of a local optimum that still repeats: rotate one player each among a table with a
    repeat and two other tables, improve again, keep the result when it costs less (a fixed
    random sequence, so the same history always gives the same draw)."""
    rnd = random.Random(0)
    best, cost = draw, _cost(costs, draw)
    for _ in range(tries):
        bad = [i for i, t in enumerate(best) if costs.table(t)[0] >= costs.repeat]
        if not bad or len(best) < 3:
            break
        i = rnd.choice(bad)
        j, k = rnd.sample([x for x in range(len(best)) if x != i], 2)
        cand = list(best)
        a, b, c = rnd.choice(cand[i]), rnd.choice(cand[j]), rnd.choice(cand[k])
        cand[i] = tuple(sorted([r for r in cand[i] if r != a] + [c]))  # type: ignore[assignment]
        cand[j] = tuple(sorted([r for r in cand[j] if r != b] + [a]))  # type: ignore[assignment]
        cand[k] = tuple(sorted([r for r in cand[k] if r != c] + [b]))  # type: ignore[assignment]
        cand = _improve(costs, cand)
        if (got := _cost(costs, cand)) < cost:
            best, cost = cand, got
    return best


def _search(costs: _Costs, m: int, start: Draw, budget: int) -> Draw:
    """Depth-first over the draws in standings order (the best unseated player and the three
    others, first in rank order), cut when the cost so far plus the least spread of the rest
    cannot beat the best draw found; ``start`` is the best known when it begins."""
    best = [(_cost(costs, start), sorted(start))]
    steps = [budget]
    own = [False]  # found by this search: later draws come after it in order, ties are cut

    def dfs(rest: list[int], cost: int, draw: Draw) -> None:
        if not rest:
            key = (cost, list(draw))
            if key < best[0]:
                best[0] = key
                own[0] = True
            return
        first = rest[0]
        for three in itertools.combinations(rest[1:], 3):
            steps[0] -= 1
            if steps[0] < 0:
                return
            t = (first, *three)
            step = cost + costs.table(t)[0]
            left = [r for r in rest[1:] if r not in three]
            bound = step + _spread_bound(left)
            if bound > best[0][0] or (bound == best[0][0] and own[0]):
                continue
            draw.append(t)
            dfs(left, step, draw)
            draw.pop()

    dfs(list(range(m)), 0, [])
    return best[0][1]


def _sitting_out(ids: list[str], sat_out: Collection[str]) -> list[str]:
    """The lowest players among those who sat out the fewest times, as many as the field has
    beyond a multiple of four."""
    extra = len(ids) % 4 if len(ids) >= 4 else len(ids)
    had = Counter(sat_out)
    rank = {p: i for i, p in enumerate(ids)}
    out = sorted(ids, key=lambda p: (had[p], -rank[p]))[:extra]
    return sorted(out, key=rank.__getitem__)


def draw_individual(
    order: Sequence[str],
    partnered: Iterable[frozenset[str]],
    faced: Iterable[frozenset[str]],
    sat_out: Collection[str] = (),
) -> IndividualDraw:
    """Draw a round for ``order`` (player ids, best first). ``partnered`` holds one
    ``frozenset({a, b})`` for every partnership of every game played, ``faced`` one for every
    pair of opponents of every game (four a game), ``sat_out`` every earlier sit-out."""
    ids = list(dict.fromkeys(order))
    out = _sitting_out(ids, sat_out)
    seated = [p for p in ids if p not in set(out)]
    m = len(seated)
    pc: Counter[frozenset[str]] = Counter(partnered)
    fc: Counter[frozenset[str]] = Counter(faced)
    partners = [[pc[frozenset({a, b})] if a != b else 0 for b in seated] for a in seated]
    opponents = [[fc[frozenset({a, b})] if a != b else 0 for b in seated] for a in seated]
    costs = _Costs(partners, opponents)
    start: Draw = [(k, k + 1, k + 2, k + 3) for k in range(0, m, 4)]
    if m > EXACT_PLAYERS:
        start = _kicks(costs, _improve(costs, start), KICKS)
        draw = _search(costs, m, start, MAX_STEPS)
    else:
        draw = _search(costs, m, start, 10**9)
    tables = []
    partner_repeats = opponent_repeats = 0
    for t in draw:
        (a, b), (c, d) = SPLITS[costs.table(t)[1]]
        tables.append({"n": seated[t[a]], "e": seated[t[c]], "s": seated[t[b]], "w": seated[t[d]]})
        p, o = costs.repeats(t)
        partner_repeats += p
        opponent_repeats += o
    return IndividualDraw(tables, out, partner_repeats, opponent_repeats)
