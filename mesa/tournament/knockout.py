"""The knockout draw (HGV 7.3.1): seeding by place and group, play-ins, standard positions.

>>> bracket_positions(8)
[1, 8, 4, 5, 2, 7, 3, 6]
>>> plan = plan_bracket(30, "KO", ko_round_label)
>>> plan.size, [m.id for m in plan.matches][:2], plan.matches[0].sources
(16, ['KO-PI-1', 'KO-PI-2'], (Source(kind='seed', ref=16), Source(kind='seed', ref=17)))
>>> [r for r in plan.rounds()]
['PI', 'R16', 'QF', 'SF', 'F']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from mesa.tournament.errors import NotEnoughPlayersError
from mesa.tournament.groups import GroupStandings
from mesa.tournament.matches import Source

# (round number, players in the round, is a play-in round) -> round label
RoundLabel = Callable[[int, int, bool], str]


def largest_power_of_two(q: int) -> int:
    """The largest power of two ≤ q.

    >>> largest_power_of_two(30), largest_power_of_two(39), largest_power_of_two(32)
    (16, 32, 32)
    """
    if q < 1:
        raise ValueError(q)
    return 1 << (q.bit_length() - 1)


def bracket_positions(size: int) -> list[int]:
    """Seed numbers slot by slot, so that seeds 1 and 2 can meet only in the final.

    Each doubling replaces seed ``s`` by the pair ``s, size + 1 - s``.
    """
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def ko_round_label(round_no: int, size: int, playin: bool) -> str:
    """Knockout labels: ``PI`` play-in (repechaje), ``R32``, ``R16``, ``QF``, ``SF``, ``F``."""
    if playin:
        return "PI"
    return {2: "F", 4: "SF", 8: "QF"}.get(size, f"R{size}")


def numbered_round_label(round_no: int, size: int, playin: bool) -> str:
    """Consolation labels: rounds by number, ``R1``, ``R2``…"""
    return f"R{round_no}"


@dataclass(frozen=True)
class MatchSpec:
    """One bracket match before any player is known: where its two players come from."""

    id: str
    round: str
    round_no: int
    number: int
    size: int
    sources: tuple[Source, Source]
    loser_place: tuple[int, int]
    playin: bool = False


@dataclass(frozen=True)
class BracketPlan:
    """The shape of a single-elimination bracket for ``entrants`` seeds."""

    entrants: int
    size: int
    matches: tuple[MatchSpec, ...]

    @property
    def final_id(self) -> str | None:
        return self.matches[-1].id if self.matches else None

    def rounds(self) -> list[str]:
        seen: list[str] = []
        for m in self.matches:
            if m.round not in seen:
                seen.append(m.round)
        return seen

    def first_match_pairs(self) -> list[tuple[int, int]]:
        """Seed pairs that could meet in the first match of one of them."""
        by_id = {m.id: m for m in self.matches}
        pairs: list[tuple[int, int]] = []
        first_main = min((m.round_no for m in self.matches if not m.playin), default=0)
        for m in self.matches:
            if not m.playin and m.round_no != first_main:
                continue
            srcs = m.sources
            seeds = [int(s.ref) for s in srcs if s.kind == "seed"]
            feeders = [by_id[str(s.ref)] for s in srcs if s.kind == "winner"]
            if len(seeds) == 2:
                pairs.append((seeds[0], seeds[1]))
            elif len(seeds) == 1 and len(feeders) == 1:
                for s in feeders[0].sources:
                    if s.kind == "seed":
                        pairs.append((seeds[0], int(s.ref)))
        return pairs


def plan_bracket(entrants: int, prefix: str, label: RoundLabel = ko_round_label) -> BracketPlan:
    """Play-ins for the lowest ``2·(Q − B)`` seeds, then rounds of B, B/2 … 2 (HGV 7.3.1).

    The play-in seeds are ``2B − Q + 1 … Q``; the best of them meets the worst, and so on
    inwards; each winner takes the better seed's slot in the round of B.
    """
    if entrants < 2:
        raise NotEnoughPlayersError(f"a bracket needs at least 2 players, got {entrants}",
                                    reason="bracket_too_few", n=entrants)
    size = largest_power_of_two(entrants)
    first_pi = 2 * size - entrants + 1
    positions = bracket_positions(size)
    specs: list[MatchSpec] = []
    round_no = 1
    slot_source: dict[int, Source] = {}
    if entrants > size:
        number = 0
        for s in positions:
            if s >= first_pi:
                number += 1
                mid = f"{prefix}-{label(round_no, 2 * (entrants - size), True)}-{number}"
                partner = first_pi + entrants - s
                specs.append(MatchSpec(mid, label(round_no, 2 * (entrants - size), True),
                                       round_no, number, 0,
                                       (Source("seed", s), Source("seed", partner)),
                                       (size + 1, entrants), playin=True))
                slot_source[s] = Source("winner", mid)
        round_no += 1
    sources = [slot_source.get(s, Source("seed", s)) for s in positions]
    players = size
    while players >= 2:
        name = label(round_no, players, False)
        nxt: list[Source] = []
        for i in range(players // 2):
            mid = f"{prefix}-{name}-{i + 1}"
            loser = (2, 2) if players == 2 else (players // 2 + 1, players)
            specs.append(MatchSpec(mid, name, round_no, i + 1, players,
                                   (sources[2 * i], sources[2 * i + 1]), loser))
            nxt.append(Source("winner", mid))
        sources = nxt
        players //= 2
        round_no += 1
    return BracketPlan(entrants, size, tuple(specs))


@dataclass(frozen=True)
class QualifiedSeed:
    """A qualifier's knockout seed and the group place it comes from."""

    seed: int
    player_id: str
    place: int
    group: int

    def to_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "player_id": self.player_id, "place": self.place,
                "group": self.group}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> QualifiedSeed:
        return cls(int(d["seed"]), d["player_id"], int(d["place"]), int(d["group"]))


@dataclass(frozen=True)
class Swap:
    """Two equally placed seeds exchanged to keep players of one group apart."""

    seeds: tuple[int, int]
    players: tuple[str, str]
    place: int
    group: int

    def to_dict(self) -> dict[str, Any]:
        return {"seeds": list(self.seeds), "players": list(self.players), "place": self.place,
                "group": self.group}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Swap:
        return cls(tuple(d["seeds"]), tuple(d["players"]), int(d["place"]),
                   int(d["group"]))


def qualifier_seeding(standings: Sequence[GroupStandings]) -> list[QualifiedSeed]:
    """All group winners by group number, then all runners-up, then all thirds (HGV 7.3.1)."""
    ordered = sorted(standings, key=lambda s: s.group)
    by_place: dict[int, list[tuple[int, str]]] = {}
    for st in ordered:
        for row in st.rows:
            if row.qualified:
                by_place.setdefault(row.place, []).append((st.group, row.player_id))
    seeds: list[QualifiedSeed] = []
    for place in sorted(by_place):
        for group, pid in by_place[place]:
            seeds.append(QualifiedSeed(len(seeds) + 1, pid, place, group))
    return seeds


def separate_groups(
    seeds: Sequence[QualifiedSeed], plan: BracketPlan
) -> tuple[list[QualifiedSeed], list[Swap]]:
    """Swap equally placed seeds so players of one group do not meet in a first match.

    A local search: while some first-match pair shares a group, try exchanging its lower seed
    (then its higher one) with the nearest seed of the same place, keeping any exchange that
    lowers the number of same-group pairs. When no exchange helps, the rest stay (the rule
    asks for separation only "whenever swapping equally placed seeds allows it").
    """
    search = _Separation(seeds, plan)
    swaps: list[Swap] = []
    while (swap := search.improve()) is not None:
        swaps.append(swap)
    return [replace(q, seed=i + 1) for i, q in enumerate(search.who)], swaps


class _Separation:
    """The local search of :func:`separate_groups`: seeds in bracket order, the first-match
    pairs each seed is in, and the seeds of each group place."""

    def __init__(self, seeds: Sequence[QualifiedSeed], plan: BracketPlan) -> None:
        self.who = list(seeds)
        self.pairs = plan.first_match_pairs()
        self.incident: dict[int, list[int]] = {}
        for i, (x, y) in enumerate(self.pairs):
            self.incident.setdefault(x, []).append(i)
            self.incident.setdefault(y, []).append(i)
        self.same_place: dict[int, list[int]] = {}
        for q in self.who:
            self.same_place.setdefault(q.place, []).append(q.seed)

    def clash(self, i: int) -> bool:
        x, y = self.pairs[i]
        return self.who[x - 1].group == self.who[y - 1].group

    def local(self, s: int, t: int) -> int:
        """Same-group pairs among those seeds ``s`` and ``t`` are in."""
        edges = set(self.incident.get(s, ())) | set(self.incident.get(t, ()))
        return sum(self.clash(i) for i in edges)

    def exchange(self, s: int, t: int) -> None:
        self.who[s - 1], self.who[t - 1] = self.who[t - 1], self.who[s - 1]

    def improve(self) -> Swap | None:
        """Make the first exchange that lowers the clashes (first clashing pair, its lower
        seed first, nearest equally placed seed first); None when no exchange helps."""
        for i in range(len(self.pairs)):
            if not self.clash(i):
                continue
            for s in sorted(self.pairs[i], reverse=True):
                swap = self._improve_seed(s)
                if swap is not None:
                    return swap
        return None

    def _improve_seed(self, s: int) -> Swap | None:
        place, group = self.who[s - 1].place, self.who[s - 1].group
        for _, t in sorted((abs(t - s), t) for t in self.same_place[place] if t != s):
            before = self.local(s, t)
            self.exchange(s, t)
            if self.local(s, t) < before:
                lo, hi = min(s, t), max(s, t)
                return Swap((lo, hi), (self.who[lo - 1].player_id, self.who[hi - 1].player_id),
                            place, group)
            self.exchange(s, t)
        return None


def same_group_first_matches(seeds: Sequence[QualifiedSeed], plan: BracketPlan) -> int:
    """How many first-match pairs still share a group (0 when separation fully succeeded)."""
    return sum(seeds[x - 1].group == seeds[y - 1].group for x, y in plan.first_match_pairs())
