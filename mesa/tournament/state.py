"""The one state a tournament's parts share, and what every action does with it.

The parts (:mod:`~mesa.tournament.registration`, :mod:`~mesa.tournament.group_stage`,
:mod:`~mesa.tournament.knockout_stage`, …) hold no data of their own: they read and change this
object, so a part never reaches into another's privates. Besides the persisted fields it keeps
the caches derived from them (standings, the group and feeding indexes: rebuilt on demand) and
the match states before the current action, from which :meth:`TournamentState.finish` reports
what the action changed.

>>> from datetime import date, datetime
>>> s = TournamentState("T", "Enero", date(2014, 1, 31))
>>> s.log(datetime(2014, 1, 31, 19, 30), "director", "note", text="hola").seq
1
>>> s.name_of("P0009")   # not an entrant: the id stands for the name
'P0009'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from mesa.tournament.errors import UnknownMatchError, UnknownPlayerError
from mesa.tournament.groups import GroupStandings
from mesa.tournament.matches import Match, Phase, Result
from mesa.tournament.players import Category, Sanction
from mesa.tournament.records import (
    AuditEntry,
    BracketState,
    Conflict,
    Entrant,
    KnockoutForfeit,
    Outcome,
    TournamentPhase,
    Withdrawal,
)
from mesa.tournament.seeding import SeedingDraw
from mesa.tournament.settings import TournamentSettings

# A match's (status, white, black, table) before the action; None: the action created it.
MatchMark = tuple[Any, ...] | None


@dataclass(eq=False)
class TournamentState:
    """Everything one tournament is (the persisted fields), and the caches derived from it."""

    id: str
    name: str
    held_on: date
    category: Category = "open"
    official: bool = True
    settings: TournamentSettings = field(default_factory=TournamentSettings)
    phase: TournamentPhase = "registration"
    entrants: dict[str, Entrant] = field(default_factory=dict)
    seed: int | str | None = None
    seeding: SeedingDraw | None = None
    groups: list[list[str]] = field(default_factory=list)
    matches: dict[str, Match] = field(default_factory=dict)
    knockout: BracketState | None = None
    consolation: BracketState | None = None
    # match id -> side ("0"/"1") -> {"out": forfeiting player, "in": replacement}
    substitutions: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    knockout_forfeits: list[KnockoutForfeit] = field(default_factory=list)
    withdrawals: dict[str, Withdrawal] = field(default_factory=dict)
    dice_entered: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    sanctions: list[Sanction] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    audit: list[AuditEntry] = field(default_factory=list)
    # Entrants left out of the group draw as absent (undoing the draw brings them back).
    left_out: list[Entrant] = field(default_factory=list)
    # -- derived (never persisted) --
    standings_cache: dict[int, GroupStandings] = field(default_factory=dict, repr=False)
    by_group: dict[int, list[str]] | None = field(default=None, repr=False)
    feeds: dict[str, list[str]] | None = field(default=None, repr=False)
    before: dict[str, MatchMark] = field(default_factory=dict, repr=False)

    # -- lookups ------------------------------------------------------------------------------

    def match(self, match_id: str) -> Match:
        try:
            return self.matches[match_id]
        except KeyError:
            raise UnknownMatchError(f"no match {match_id!r} in tournament {self.id}",
                                    reason="unknown_match", match=match_id) from None

    def name_of(self, player_id: str) -> str:
        e = self.entrants.get(player_id)
        if e is None:  # one left out of the draw as absent is still named (a no-show's sanction)
            e = next((x for x in self.left_out if x.player_id == player_id), None)
        return e.name if e else player_id

    def require_entrant(self, player_id: str) -> None:
        if player_id not in self.entrants:
            raise UnknownPlayerError(player_id)

    def group_matches(self, group: int) -> list[Match]:
        if self.by_group is None:
            self.by_group = {}
            for m in self.matches.values():
                if m.phase == "group" and m.group is not None:
                    self.by_group.setdefault(m.group, []).append(m.id)
        return [self.matches[mid] for mid in self.by_group.get(group, [])]

    def group_complete(self, group: int) -> bool:
        return all(m.result is not None for m in self.group_matches(group))

    def matches_in(self, phase: Phase) -> list[Match]:
        return [m for m in self.matches.values() if m.phase == phase]

    def ready_matches(self) -> list[Match]:
        return [m for m in self.matches.values() if m.status == "ready"]

    def group_of(self, player_id: str) -> int | None:
        for i, members in enumerate(self.groups, start=1):
            if player_id in members:
                return i
        return None

    def seeding_rank(self) -> dict[str, int]:
        return {} if self.seeding is None else {e.player_id: e.rank for e in self.seeding.entries}

    def feeding(self) -> dict[str, list[str]]:
        """Match id -> the matches its winner or loser goes on to (built once per bracket)."""
        if self.feeds is None:
            self.feeds = {}
            for m in self.matches.values():
                for src in m.sources or ():
                    if src.kind != "seed":
                        self.feeds.setdefault(str(src.ref), []).append(m.id)
        return self.feeds

    # -- the audit ----------------------------------------------------------------------------

    def log(self, now: datetime, actor: str, action: str, **details: Any) -> AuditEntry:
        entry = AuditEntry(len(self.audit) + 1, now, actor, action, details)
        self.audit.append(entry)
        return entry

    # -- what an action changed ---------------------------------------------------------------

    def begin(self) -> None:
        self.before = {}

    def mark(self, m: Match) -> None:
        """Remember a match as it was before the current action first touched it."""
        if m.id not in self.before:
            self.before[m.id] = (m.status, m.a, m.b, m.table)

    def created(self, match_id: str) -> None:
        self.before[match_id] = None

    def set_result(self, m: Match, result: Result) -> None:
        self.mark(m)
        m.result = result
        if m.phase == "group" and m.group is not None:
            self.standings_cache.pop(m.group, None)

    def finish(self, out: Outcome) -> Outcome:
        """Report the matches whose status, players or table this action changed."""
        touched: set[int] = set()
        for mid, before in self.before.items():
            m = self.matches.get(mid)
            state = None if m is None else (m.status, m.a, m.b, m.table)
            if state == before:
                continue
            out.changed.append(mid)
            if m is None or state is None:
                continue
            if state[0] == "ready" and (before or ("",))[0] != "ready":
                out.ready.append(mid)
            if m.phase == "group" and m.group is not None and state[0] == "done":
                touched.add(m.group)
        out.groups_completed = sorted(g for g in touched if self.group_complete(g))
        self.before = {}
        return out
