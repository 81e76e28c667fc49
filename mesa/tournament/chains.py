"""What each match holds up: the longest chain from it to the end of its event's draw, and the
critical scheduling policy that plays the longest chains first.

The chain of a match is its own expected time plus the longest of what can only start after
it, in expected seconds (:mod:`mesa.tournament.durations`):

- **Groups.** A group match comes before the later matches of its group (calendar order,
  HGV 2.3.4) that share a player with it; every group match comes before the knockout, which
  is drawn when the last group ends.
- **The knockout before its draw** is modelled from the number of qualifiers (each group's
  top ``qualifiers_per_group``): the very bracket :func:`~mesa.tournament.knockout.plan_bracket`
  will draw, with each round's length and clock (:func:`~mesa.tournament.knockout_stage.
  bracket_match`). Once drawn, its own matches (a match comes before those its result feeds).
- **Último Chance** starts when every first knockout match (play-in, or first round for a
  direct seed) is decided; before its draw it is modelled from its expected entrants: the
  group non-qualifiers, every play-in loser and half the direct seeds' first-round matches.

Since a valid schedule keeps every one of these orders, an event's longest chain is a lower
bound of the time it still needs (for groups of up to four: any two matches of different
rounds share a player, so a chain's matches can never overlap).

:func:`critical_priority` (a :data:`~mesa.tournament.scheduler.Priority`) sorts the ready
matches of every event by their chain, longest first; a group's matches all carry the group's
longest chain, so within a group the calendar order stays (HGV 2.3.4); :func:`~mesa.tournament.
scheduler.plan_evening` keeps the home tables.

>>> from datetime import date, datetime
>>> from mesa.tournament.players import PlayerRegistry
>>> from mesa.tournament.tournament import Tournament
>>> now, reg = datetime(2026, 12, 4, 20, 0), PlayerRegistry()
>>> t = Tournament("T", "T", date(2026, 12, 4))
>>> for i in range(6):
...     _ = t.register(reg, reg.add_new(f"P{i}").id, now=now)
>>> _ = t.start_groups(ranking={}, seed=1, now=now)
>>> c = chains_of(t)
>>> c.minutes("G1-1")      # 3 group matches of 30; 6 qualifiers: play-in 50, SF 70, F 70
280.0
>>> sorted(c.phantom)[:3]
['KO-F-1', 'KO-PI-1', 'KO-PI-2']
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mesa.tournament import consolation as uc_rules
from mesa.tournament.durations import match_expected_s
from mesa.tournament.knockout import plan_bracket
from mesa.tournament.knockout_stage import bracket_match
from mesa.tournament.matches import Match
from mesa.tournament.scheduler import PHASE_ORDER
from mesa.tournament.tournament import Tournament

# A match's duration in seconds (expected, or drawn in a bench).
Duration = Callable[[Match], float]

GROUPS_END = "groups-end"   # the knockout's draw: every group over
UC_START = "uc-start"       # Último Chance's draw: every first knockout match over


@dataclass(frozen=True)
class Chains:
    """Each match's chain in seconds (its own time included), by match id; ``phantom`` are the
    modelled matches not drawn yet (knockout, Último Chance); ``group_s`` each group's longest
    chain."""

    chain_s: dict[str, float]
    phantom: frozenset[str]
    group_s: dict[int, float]

    def minutes(self, match_id: str) -> float:
        return round(self.chain_s.get(match_id, 0.0) / 60, 1)

    @property
    def longest_s(self) -> float:
        """The event's longest chain still to play (0 when nothing is left)."""
        return max(self.chain_s.values(), default=0.0)


def expected_duration(t: Tournament) -> Duration:
    """The expected duration of ``t``'s matches at its own pace norm."""
    mpp = t.settings.minutes_per_point
    return lambda m: match_expected_s(m, mpp)


def _qualifiers(t: Tournament) -> int:
    q = t.settings.qualifiers_per_group
    return sum(min(len(g), q) for g in t.groups)


def _first_matches(matches: Iterable[Match]) -> list[Match]:
    """The matches that are some player's first knockout match: every play-in, and every
    match a seed enters directly."""
    return [m for m in matches if m.sources and any(s.kind == "seed" for s in m.sources)]


def _expected_uc_entrants(t: Tournament, ko: list[Match]) -> int:
    firsts = _first_matches(ko)
    playins = sum(1 for m in firsts if all(s.kind == "seed" for s in (m.sources or ()))
                  and m.round == "PI")
    direct = len(firsts) - playins
    n_ko = len(t.knockout.players) if t.knockout is not None else _qualifiers(t)
    non_qualifiers = len(t.entrants) - n_ko
    return non_qualifiers + playins + (direct + 1) // 2


def _phantom_knockout(t: Tournament) -> list[Match]:
    q = _qualifiers(t)
    if q < 2:
        return []
    return [bracket_match(t.settings, spec, "knockout")
            for spec in plan_bracket(q, "KO").matches]


def _phantom_consolation(t: Tournament, ko: list[Match]) -> list[Match]:
    n = _expected_uc_entrants(t, ko)
    if n < 2:
        return []
    return [bracket_match(t.settings, spec, "consolation")
            for spec in uc_rules.plan_consolation(n).matches]


class _Graph:
    """The matches left and what each holds up; the longest chains by memoised search."""

    def __init__(self, duration: Duration) -> None:
        self.duration = duration
        self.dur: dict[str, float] = {}
        self.succ: dict[str, list[str]] = {}
        self.memo: dict[str, float] = {}

    def node(self, key: str, seconds: float) -> None:
        self.dur[key] = seconds
        self.succ.setdefault(key, [])

    def edge(self, a: str, b: str) -> None:
        if a in self.dur and b in self.dur:
            self.succ[a].append(b)

    def chain(self, key: str) -> float:
        # Iterative (no recursion limit on long brackets): children first, then the node.
        stack = [key]
        while stack:
            k = stack[-1]
            if k in self.memo:
                stack.pop()
                continue
            todo = [s for s in self.succ[k] if s not in self.memo]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            self.memo[k] = self.dur[k] + max((self.memo[s] for s in self.succ[k]), default=0.0)
        return self.memo[key]


def _bracket_edges(g: _Graph, matches: Iterable[Match]) -> None:
    for m in matches:
        for src in m.sources or ():
            if src.kind != "seed":
                g.edge(str(src.ref), m.id)


def chains_of(t: Tournament, duration: Duration | None = None, *,
              include_done: bool = False) -> Chains:
    """Every match's chain in ``t`` (the undone ones; all with ``include_done``: the evening's
    own lower bound, afterwards), with the undrawn knockout and Último Chance modelled."""
    dur = duration or expected_duration(t)
    g = _Graph(dur)
    keep = [m for m in t.matches.values() if include_done or m.result is None]
    for m in keep:
        g.node(m.id, dur(m))
    groups = [m for m in keep if m.phase == "group"]
    ko = [m for m in t.matches.values() if m.phase == "knockout"]
    phantom: list[Match] = []
    if t.knockout is None and t.groups:
        phantom = _phantom_knockout(t)
        ko = list(phantom)
    if t.settings.consolation and t.consolation is None and ko:
        phantom += _phantom_consolation(t, ko)
    for m in phantom:
        g.node(m.id, dur(m))
    g.node(GROUPS_END, 0.0)
    g.node(UC_START, 0.0)
    by_group: dict[int, list[Match]] = {}
    for m in groups:
        by_group.setdefault(m.group or 0, []).append(m)
    for members in by_group.values():
        members.sort(key=lambda m: (m.round_no, m.number))
        for i, m in enumerate(members):
            for later in members[i + 1:]:
                if later.round_no > m.round_no and set(m.players) & set(later.players):
                    g.edge(m.id, later.id)
            g.edge(m.id, GROUPS_END)
    bracket = [*keep, *phantom]
    _bracket_edges(g, bracket)
    for m in _first_matches(ko):
        g.edge(GROUPS_END, m.id)
    # A drawn Último Chance may have started early (the director named its entrants): it
    # waits for the knockout's first matches only in the model, or in the evening afterwards.
    uc = [x for x in phantom if x.phase == "consolation"]
    if include_done and not uc:
        uc = [x for x in keep if x.phase == "consolation"]
    if uc:
        for m in _first_matches(ko):
            g.edge(m.id, UC_START)
        for m in _first_matches(uc):
            g.edge(UC_START, m.id)
    chain = {m.id: g.chain(m.id) for m in bracket}
    group_s: dict[int, float] = {}
    for m in groups:
        gi = m.group or 0
        group_s[gi] = max(group_s.get(gi, 0.0), chain[m.id])
    return Chains(chain, frozenset(m.id for m in phantom), group_s)


_cache: weakref.WeakKeyDictionary[Tournament, tuple[Any, Chains]] = (
    weakref.WeakKeyDictionary())


def cached_chains(t: Tournament) -> Chains:
    """:func:`chains_of` at ``t``'s own norm, computed once per state of ``t`` (every change
    of a tournament writes its audit: its length tells a new state)."""
    key = (len(t.audit), len(t.matches), t.settings.minutes_per_point, t.phase)
    hit = _cache.get(t)
    if hit is not None and hit[0] == key:
        return hit[1]
    c = chains_of(t)
    _cache[t] = (key, c)
    return c


def critical_priority(event: Tournament, m: Match) -> tuple[Any, ...]:
    """Longest chain first (in whole seconds, longest first); a group match carries its
    group's longest chain, so the group's calendar order stays; then calendar order.

    >>> from datetime import date, datetime
    >>> from mesa.tournament.players import PlayerRegistry
    >>> now, reg = datetime(2026, 12, 4, 20, 0), PlayerRegistry()
    >>> t = Tournament("T", "T", date(2026, 12, 4))
    >>> for i in range(7):
    ...     _ = t.register(reg, reg.add_new(f"P{i}").id, now=now)
    >>> _ = t.start_groups(ranking={}, seed=1, now=now)     # a group of 3, a group of 4
    >>> ranked = sorted(t.ready_matches(), key=lambda m: critical_priority(t, m))
    >>> [m.id for m in ranked][:4], -critical_priority(t, ranked[0])[0] / 60   # equal chains
    (['G1-1', 'G2-1', 'G2-2', 'G1-2'], 280.0)
    """
    c = cached_chains(event)
    if m.phase == "group" and m.group is not None:
        chain = c.group_s.get(m.group, 0.0)
    else:
        chain = c.chain_s.get(m.id, 0.0)
    return (-round(chain), PHASE_ORDER[m.phase], m.planned_start or datetime.min, m.round_no,
            m.group or 0, m.number)
