"""The tournament aggregate: registration, groups, knockout, Último Chance, results, points.

Everything the hub persists round-trips through :meth:`Tournament.to_dict` and
:meth:`Tournament.from_dict`; nothing here does I/O, reads the clock or uses global randomness.

>>> from datetime import date, datetime
>>> from mesa.tournament.players import PlayerRegistry
>>> now = datetime(2014, 1, 31, 19, 30)
>>> reg = PlayerRegistry()
>>> ids = [reg.add_new(n).id for n in ("ALEX", "EL MANU", "IGLESIAS")]
>>> t = Tournament("2014-01", "Enero", date(2014, 1, 31))
>>> for pid in ids:
...     _ = t.register(reg, pid, actor="director", now=now)
>>> _ = t.start_groups(ranking={"P0001": 230, "P0002": 134}, seed=2014, now=now)
>>> [(m.id, m.a, m.b) for m in t.group_matches(1)]   # Berger order, white first
[('G1-1', 'P0002', 'P0003'), ('G1-2', 'P0001', 'P0002'), ('G1-3', 'P0003', 'P0001')]
>>> _ = t.record_result("G1-1", 3, 1, now=now)
>>> t.match("G1-1").status, t.match("G1-2").status
('done', 'ready')
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Literal

from mesa.tournament import consolation as uc_rules
from mesa.tournament.draws import roll_die
from mesa.tournament.errors import (
    AlreadyDecidedError,
    CategoryError,
    ConflictError,
    DrawLockedError,
    DuplicatePlayerError,
    MatchNotReadyError,
    NotEnoughPlayersError,
    PhaseError,
    SanctionedError,
    TableError,
    TournamentError,
    UnknownMatchError,
    UnknownPlayerError,
)
from mesa.tournament.groups import (
    GroupResult,
    GroupStandings,
    berger_rounds,
    group_count,
    group_standings,
    snake_fill,
)
from mesa.tournament.knockout import (
    BracketPlan,
    MatchSpec,
    QualifiedSeed,
    Swap,
    plan_bracket,
    qualifier_seeding,
    separate_groups,
)
from mesa.tournament.matches import (
    ClockPreset,
    Match,
    Phase,
    Result,
    ResultSource,
    Source,
    from_iso,
    iso,
    validate_score,
)
from mesa.tournament.players import Category, PlayerRegistry, Sanction, SanctionKind
from mesa.tournament.points import PointsBreakdown, RemovedWin
from mesa.tournament.scheduler import Assignment, plan_assignments
from mesa.tournament.seeding import SeedingDraw, seeding_order
from mesa.tournament.settings import TournamentSettings

TournamentPhase = Literal["registration", "groups", "knockout", "closed"]
Resolution = Literal["keep", "apply", "apply_keep_draw"]
STATE_VERSION = 1


def _dt(value: datetime | None) -> datetime:
    if value is None:
        raise TournamentError("this action needs the current time (now=...)", code="no_time",
                              reason="no_time")
    return value


@dataclass
class Entrant:
    """A registered player, with the name as it will be printed for this tournament."""

    player_id: str
    name: str
    registered_at: datetime
    override: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "name": self.name,
                "registered_at": iso(self.registered_at), "override": self.override}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Entrant:
        return cls(d["player_id"], d["name"], _dt(from_iso(d["registered_at"])),
                   bool(d.get("override", False)))


@dataclass(frozen=True)
class AuditEntry:
    """One recorded action: who, when, what. The list only grows."""

    seq: int
    at: datetime
    actor: str
    action: str
    details: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "at": iso(self.at), "actor": self.actor, "action": self.action,
                "details": self.details}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AuditEntry:
        return cls(int(d["seq"]), _dt(from_iso(d["at"])), d["actor"], d["action"],
                   dict(d["details"]))


@dataclass
class Withdrawal:
    """A player who left (HGV 2.3.5), did not come (HGV 2.3.6) or left Último Chance only."""

    player_id: str
    kind: Literal["left", "no_show", "consolation"]
    at: datetime
    actor: str

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "kind": self.kind, "at": iso(self.at),
                "actor": self.actor}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Withdrawal:
        return cls(d["player_id"], d["kind"], _dt(from_iso(d["at"])), d["actor"])


@dataclass
class KnockoutForfeit:
    """HGV 2.3.8: a knockout forfeit, and who took the forfeiting player's place."""

    player_id: str
    match_id: str
    replaced_by: str | None
    at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "match_id": self.match_id,
                "replaced_by": self.replaced_by, "at": iso(self.at)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> KnockoutForfeit:
        return cls(d["player_id"], d["match_id"], d.get("replaced_by"), _dt(from_iso(d["at"])))


@dataclass
class Conflict:
    """A director correction that later rounds already used, or a result a table reported that
    the hub did not apply (kind ``table``: a table that no longer holds the match, or a second
    result for a decided one); waits for a decision. ``old`` is the recorded result (None: the
    match had none when the conflict was opened)."""

    id: str
    match_id: str
    old: dict[str, Any] | None
    new: dict[str, Any]
    reason: str
    actor: str
    at: datetime
    kinds: list[str]
    affected: list[str]
    status: Literal["open", "kept", "applied", "applied_keep_draw"] = "open"
    resolved_by: str | None = None
    resolved_at: datetime | None = None
    annulled: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "match_id": self.match_id, "old": self.old, "new": self.new,
                "reason": self.reason, "actor": self.actor, "at": iso(self.at),
                "kinds": list(self.kinds), "affected": list(self.affected),
                "status": self.status, "resolved_by": self.resolved_by,
                "resolved_at": iso(self.resolved_at), "annulled": list(self.annulled)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Conflict:
        return cls(d["id"], d["match_id"], d.get("old"), d["new"], d["reason"], d["actor"],
                   _dt(from_iso(d["at"])), list(d["kinds"]), list(d["affected"]), d["status"],
                   d.get("resolved_by"), from_iso(d.get("resolved_at")),
                   list(d.get("annulled", [])))


@dataclass
class BracketState:
    """A drawn bracket: its seeds (after group separation), the swaps made, its matches."""

    kind: Literal["knockout", "consolation"]
    seeds: list[QualifiedSeed]
    swaps: list[Swap]
    size: int
    match_ids: list[str]

    @property
    def final_id(self) -> str | None:
        return self.match_ids[-1] if self.match_ids else None

    @property
    def players(self) -> list[str]:
        return [s.player_id for s in self.seeds]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "seeds": [s.to_dict() for s in self.seeds],
                "swaps": [s.to_dict() for s in self.swaps], "size": self.size,
                "match_ids": list(self.match_ids)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BracketState:
        return cls(d["kind"], [QualifiedSeed.from_dict(s) for s in d["seeds"]],
                   [Swap.from_dict(s) for s in d["swaps"]], int(d["size"]),
                   list(d["match_ids"]))


@dataclass
class Outcome:
    """What an action changed, so the hub knows what to republish."""

    action: str
    match_id: str | None = None
    changed: list[str] = field(default_factory=list)
    ready: list[str] = field(default_factory=list)
    groups_completed: list[int] = field(default_factory=list)
    draw_made: bool = False
    auto_forfeits: list[str] = field(default_factory=list)
    substitution: KnockoutForfeit | None = None
    conflict: Conflict | None = None
    champion: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "match_id": self.match_id, "changed": self.changed,
                "ready": self.ready, "groups_completed": self.groups_completed,
                "draw_made": self.draw_made, "auto_forfeits": self.auto_forfeits,
                "substitution": None if self.substitution is None else
                self.substitution.to_dict(),
                "conflict": None if self.conflict is None else self.conflict.to_dict(),
                "champion": self.champion}


@dataclass(frozen=True)
class FinalRow:
    """One line of the final list ("ASÍ QUEDÓ EL TORNEO")."""

    position: int
    player_id: str
    name: str
    points: PointsBreakdown

    @property
    def total(self) -> int:
        return self.points.total


class Tournament:
    """One tournament from registration to the final list. See the module docstring."""

    def __init__(
        self,
        id: str,
        name: str,
        held_on: date,
        *,
        category: Category = "open",
        official: bool = True,
        settings: TournamentSettings | None = None,
    ) -> None:
        self.id = id
        self.name = name
        self.held_on = held_on
        self.category: Category = category
        self.official = official
        self.settings = settings or TournamentSettings()
        self.phase: TournamentPhase = "registration"
        self.entrants: dict[str, Entrant] = {}
        self.seed: int | str | None = None
        self.seeding: SeedingDraw | None = None
        self.groups: list[list[str]] = []
        self.matches: dict[str, Match] = {}
        self.knockout: BracketState | None = None
        self.consolation: BracketState | None = None
        # match id -> side ("0"/"1") -> {"out": forfeiting player, "in": replacement}
        self.substitutions: dict[str, dict[str, dict[str, str]]] = {}
        self.knockout_forfeits: list[KnockoutForfeit] = []
        self.withdrawals: dict[str, Withdrawal] = {}
        self.dice_entered: dict[str, dict[str, dict[str, int]]] = {}
        self.sanctions: list[Sanction] = []
        self.conflicts: list[Conflict] = []
        self.audit: list[AuditEntry] = []
        # Entrants left out of the group draw as absent (undoing the draw brings them back).
        self.left_out: list[Entrant] = []
        self._standings: dict[int, GroupStandings] = {}
        self._by_group: dict[int, list[str]] | None = None
        self._feeds: dict[str, list[str]] | None = None
        # Match states before the current action, to report what it changed.
        self._before: dict[str, tuple[Any, ...] | None] = {}

    # -- small helpers ------------------------------------------------------------------------

    def _log(self, now: datetime, actor: str, action: str, **details: Any) -> AuditEntry:
        entry = AuditEntry(len(self.audit) + 1, now, actor, action, details)
        self.audit.append(entry)
        return entry

    def match(self, match_id: str) -> Match:
        try:
            return self.matches[match_id]
        except KeyError:
            raise UnknownMatchError(f"no match {match_id!r} in tournament {self.id}",
                                    reason="unknown_match", match=match_id) from None

    def name_of(self, player_id: str) -> str:
        e = self.entrants.get(player_id)
        return e.name if e else player_id

    def _require_entrant(self, player_id: str) -> None:
        if player_id not in self.entrants:
            raise UnknownPlayerError(player_id)

    def group_matches(self, group: int) -> list[Match]:
        if self._by_group is None:
            self._by_group = {}
            for m in self.matches.values():
                if m.phase == "group" and m.group is not None:
                    self._by_group.setdefault(m.group, []).append(m.id)
        return [self.matches[mid] for mid in self._by_group.get(group, [])]

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

    # -- registration -------------------------------------------------------------------------

    def register(self, registry: PlayerRegistry, player_id: str, *, override: bool = False,
                 actor: str = "director", now: datetime) -> Entrant:
        """Register a player, enforcing sanctions and category (a director may override)."""
        if self.phase != "registration":
            raise PhaseError(f"registration for {self.id} is closed (phase {self.phase})",
                             reason="registration_closed", phase=self.phase)
        player = registry.get(player_id)
        if player_id in self.entrants:
            raise DuplicatePlayerError(f"{player.name} ({player_id}) is already registered",
                                       reason="already_registered", name=player.name)
        if any(e.name == player.name for e in self.entrants.values()):
            raise DuplicatePlayerError(f"another entrant is already named {player.name!r}",
                                       reason="entrant_same_name", name=player.name)
        problems: list[TournamentError] = []
        pending = registry.pending_sanctions(player_id, self.id)
        if pending:
            rules = ", ".join(sorted({s.rule for s in pending}))
            problems.append(SanctionedError(
                f"{player.name} is barred from this tournament ({rules}, incurred in "
                f"{', '.join(s.incurred_in for s in pending)})", reason="sanctioned",
                name=player.name, rules=rules,
                tournaments=", ".join(s.incurred_in for s in pending)))
        if player.category != self.category:
            problems.append(CategoryError(
                f"{player.name} plays in category {player.category!r}, this tournament is "
                f"{self.category!r}", reason="wrong_category", name=player.name,
                category=player.category, wanted=self.category))
        if self.official and not player.member:
            problems.append(CategoryError(
                f"{player.name} is not a member: official tournaments are for members (HGV 1.4)",
                reason="not_member", name=player.name))
        if problems and not override:
            raise problems[0]
        entrant = Entrant(player_id, player.name, now, override=bool(problems))
        self.entrants[player_id] = entrant
        self._log(now, actor, "register", player_id=player_id, override=bool(problems),
                  overridden=[p.code for p in problems],
                  sanctions=[s.id for s in pending] if override else [])
        return entrant

    def unregister(self, player_id: str, *, actor: str = "director", now: datetime) -> None:
        if self.phase != "registration":
            raise PhaseError("the draw is made: withdraw the player instead", reason="draw_made")
        self._require_entrant(player_id)
        del self.entrants[player_id]
        self._log(now, actor, "unregister", player_id=player_id)

    # -- groups -------------------------------------------------------------------------------

    def leave_out(self, player_ids: Sequence[str], *, actor: str = "director",
                  now: datetime) -> None:
        """Take the absent players out just before the group draw (one audit line); undoing
        the draw registers them again. An empty list only forgets an earlier one."""
        if self.phase != "registration":
            raise PhaseError("the draw is made: withdraw the player instead", reason="draw_made")
        for p in player_ids:
            self._require_entrant(p)
        self.left_out = [self.entrants.pop(p) for p in player_ids]
        if player_ids:
            self._log(now, actor, "leave_out", players=list(player_ids))

    def start_groups(
        self,
        *,
        ranking: Mapping[str, int],
        seed: int | str,
        now: datetime,
        actor: str = "director",
        n_groups: int | None = None,
        start_at: datetime | None = None,
    ) -> Outcome:
        """Seed by ``ranking`` (hundredths; missing players 0), fill groups, build calendars."""
        if self.phase != "registration":
            raise PhaseError(f"groups already started for {self.id}", reason="already_started")
        self._begin()
        n = len(self.entrants)
        g = group_count(n, n_groups)  # refuses fewer than 2 players
        self.seed = seed
        self.seeding = seeding_order({p: int(ranking.get(p, 0)) for p in self.entrants}, seed)
        order = self.seeding.order
        self.groups = [[order[r - 1] for r in ranks] for ranks in snake_fill(n, g)]
        start = start_at or now
        slot = timedelta(minutes=self.settings.minutes_per_group_round)
        length = self.settings.group_length
        clock = ClockPreset.for_length(length, self.settings.reserve_per_point_s,
                                       self.settings.delay_s)
        for gi, members in enumerate(self.groups, start=1):
            k = 0
            for r, pairs in enumerate(berger_rounds(len(members)), start=1):
                for x, y in pairs:
                    k += 1
                    mid = f"G{gi}-{k}"
                    self.matches[mid] = Match(
                        mid, "group", str(r), r, k, length, clock, a=members[x - 1],
                        b=members[y - 1], group=gi, planned_start=start + (r - 1) * slot)
                    self._before[mid] = None
        self.phase = "groups"
        self._standings.clear()
        self._by_group = None
        self._log(now, actor, "start_groups", seed=seed, groups=len(self.groups),
                  requested_groups=n_groups, order=order,
                  ties=[list(e.tie) for e in self.seeding.entries if e.tie
                        and e.player_id == e.tie[0]])
        out = Outcome("start_groups")
        self._after_change(now, out)
        return self._finish(out)

    def undo_groups(self, *, actor: str = "director", now: datetime,
                    why: str = "undo") -> list[str]:
        """Take the group draw back (before any group match is played): registration again.

        Returns the tables the drawn matches were assigned to (the caller tells them). The
        audit keeps the draw that was taken back, with its seed. Refused with ``draw_locked``
        once a group match has started or has a result, or a player has withdrawn.

        >>> from datetime import date, datetime
        >>> from mesa.tournament.players import PlayerRegistry
        >>> reg, now = PlayerRegistry(), datetime(2025, 3, 7, 20, 0)
        >>> t = Tournament("T", "T", date(2025, 3, 7))
        >>> for n in ("ANA", "BEA", "EVA"):
        ...     _ = t.register(reg, reg.add_new(n).id, now=now)
        >>> _ = t.start_groups(ranking={}, seed=7, now=now)
        >>> t.undo_groups(now=now), t.phase, len(t.matches), t.audit[-1].details["seed"]
        ([], 'registration', 0, 7)
        """
        if self.phase != "groups" or self.knockout is not None:
            raise PhaseError(f"no group draw to take back in {self.id} (phase {self.phase})",
                             reason="no_draw_to_undo", phase=self.phase)
        played = sorted(m.id for m in self.matches.values()
                        if m.status in ("playing", "done"))
        if played:
            raise DrawLockedError(f"the group draw of {self.id} counts already: "
                                  f"{', '.join(played)}", reason="draw_locked",
                                  matches=", ".join(played))
        if self.withdrawals:
            raise DrawLockedError(f"the group draw of {self.id} counts already: a player withdrew",
                                  reason="draw_locked_withdrawal")
        tables = sorted({m.table for m in self.matches.values() if m.table})
        self._log(now, actor, "undo_groups", seed=self.seed, why=why,
                  groups=[list(g) for g in self.groups], tables=tables)
        self.phase = "registration"
        if why != "redraw":  # the same players are drawn again on a redraw
            for e in self.left_out:
                self.entrants.setdefault(e.player_id, e)
            self.left_out = []
        self.seed = None
        self.seeding = None
        self.groups = []
        self.matches = {}
        self.dice_entered = {}
        self._standings.clear()
        self._by_group = None
        self._feeds = None
        self._before = {}
        return tables

    def group_results(self, group: int) -> list[GroupResult]:
        """The decided matches of a group, as the standings read them."""
        out = []
        for m in self.group_matches(group):
            if m.result is not None:
                r = m.result
                out.append(GroupResult(m.id, r.a, r.b, r.score_a, r.score_b, r.forfeit))
        return out

    def _group_complete(self, group: int) -> bool:
        return all(m.result is not None for m in self.group_matches(group))

    def _dice(self, group: int, complete: bool) -> Any:
        if not complete:
            return None
        entered = self.dice_entered.get(str(group), {})

        def source(tied: tuple[str, ...], attempt: int) -> dict[str, int] | None:
            key = ",".join(tied)
            if attempt == 0 and key in entered:
                return dict(entered[key])
            if self.settings.dice_by != "hub":
                return None
            return {p: roll_die(self.seed if self.seed is not None else "", "group-dice",
                                f"G{group}", key, str(attempt), p) for p in tied}

        return source

    def standings(self, group: int) -> GroupStandings:
        """The group's table, with the tie-break steps behind every place."""
        if not 1 <= group <= len(self.groups):
            raise TournamentError(f"no group {group} in {self.id}", code="unknown_group",
                                  reason="unknown_group", group=group)
        cached = self._standings.get(group)
        if cached is None:
            complete = self._group_complete(group)
            cached = group_standings(group, self.groups[group - 1], self.group_results(group),
                                     dice=self._dice(group, complete),
                                     qualifiers=self.settings.qualifiers_per_group,
                                     no_shows=self._no_shows())
            self._standings[group] = cached
        return cached

    def _no_shows(self) -> set[str]:
        """HGV 2.3.6: players who confirmed and did not come take no knockout place."""
        return {p for p, w in self.withdrawals.items() if w.kind == "no_show"}

    def all_standings(self) -> list[GroupStandings]:
        return [self.standings(g) for g in range(1, len(self.groups) + 1)]

    def groups_complete(self) -> bool:
        return bool(self.groups) and all(
            m.result is not None for m in self.matches.values() if m.phase == "group")

    def pending_dice(self) -> list[tuple[int, tuple[str, ...]]]:
        """Ties of complete groups that wait for a director's dice (``dice_by="director"``)."""
        out = []
        for st in self.all_standings():
            if not st.complete:
                continue
            for row in st.rows:
                for step in row.steps:
                    if step.criterion == "pending" and (st.group, step.among) not in out:
                        out.append((st.group, step.among))
        return out

    def enter_dice(self, group: int, values: Mapping[str, int], *, actor: str = "director",
                   now: datetime) -> Outcome:
        """The director enters the dice rolled for a group tie (HGV 7.2.3, criterion 4)."""
        if self.knockout is not None:
            raise PhaseError("the knockout is drawn: group dice can no longer change",
                             reason="dice_too_late")
        members = set(self.groups[group - 1]) if 1 <= group <= len(self.groups) else set()
        if not members:
            raise TournamentError(f"no group {group}", code="unknown_group", reason="unknown_group",
                                  group=group)
        if len(values) < 2 or not set(values) <= members:
            raise TournamentError("dice need two or more players of the group",
                                  code="bad_dice", reason="dice_players")
        if any(not isinstance(v, int) or not 1 <= v <= 6 for v in values.values()):
            raise TournamentError("each die shows 1 to 6", code="bad_dice", reason="dice_range")
        if len(set(values.values())) == 1:
            raise TournamentError("equal dice break nothing: roll again", code="bad_dice",
                                  reason="dice_equal")
        self._begin()
        key = ",".join(sorted(values))
        self.dice_entered.setdefault(str(group), {})[key] = dict(values)
        self._standings.pop(group, None)
        self._log(now, actor, "enter_dice", group=group, values=dict(values))
        out = Outcome("enter_dice")
        self._after_change(now, out)
        return self._finish(out)

    # -- knockout -----------------------------------------------------------------------------

    def draw_preview(self) -> tuple[list[QualifiedSeed], list[Swap], BracketPlan | None]:
        """The knockout draw the current group standings give (seeds, swaps, bracket)."""
        seeds = qualifier_seeding(self.all_standings())
        if len(seeds) < 2:
            return seeds, [], None
        plan = plan_bracket(len(seeds), "KO")
        swaps: list[Swap] = []
        if self.settings.separate_groups:
            seeds, swaps = separate_groups(seeds, plan)
        return seeds, swaps, plan

    def _preview_players(self) -> list[str]:
        return [s.player_id for s in self.draw_preview()[0]]

    def _bracket_match(self, spec: MatchSpec, phase: Phase) -> Match:
        s = self.settings
        if phase == "knockout" and not spec.playin and spec.size <= s.final_rounds_from:
            length = s.final_rounds_length
            clock = ClockPreset(s.final_rounds_reserve_s, s.final_rounds_delay_s, True)
        else:
            length = s.knockout_length if phase == "knockout" else s.consolation_length
            clock = ClockPreset.for_length(length, s.reserve_per_point_s, s.delay_s)
        return Match(spec.id, phase, spec.round, spec.round_no, spec.number, length, clock,
                     sources=spec.sources, loser_place=spec.loser_place)

    def _draw_knockout(self, now: datetime, actor: str) -> None:
        seeds, swaps, plan = self.draw_preview()
        ids: list[str] = []
        if plan is not None:
            for spec in plan.matches:
                self.matches[spec.id] = self._bracket_match(spec, "knockout")
                self._before[spec.id] = None
                ids.append(spec.id)
        self._feeds = None
        self.knockout = BracketState("knockout", seeds, swaps,
                                     plan.size if plan else len(seeds), ids)
        self.phase = "knockout"
        dice = [{"group": st.group, **d.to_dict()} for st in self.all_standings()
                for d in st.dice]
        self._log(now, actor, "draw_knockout", seeds=[s.to_dict() for s in seeds],
                  swaps=[s.to_dict() for s in swaps], dice=dice, dice_seed=self.seed)

    def _source_player(self, bracket: BracketState, src: Source) -> str | None:
        if src.kind == "seed":
            return bracket.seeds[int(src.ref) - 1].player_id
        feeder = self.matches[str(src.ref)]
        if feeder.result is None:
            return None
        return feeder.result.winner if src.kind == "winner" else feeder.result.loser

    def _derive(self, bracket: BracketState | None, only: Iterable[str] | None = None) -> None:
        """Fill bracket slots from seeds, results and HGV 2.3.8 replacements."""
        if bracket is None:
            return
        ids = bracket.match_ids if only is None else [m for m in only if m in self.matches]
        for mid in ids:
            m = self.matches[mid]
            if m.sources is None or (m.phase == "knockout") != (bracket.kind == "knockout"):
                continue
            players: list[str | None] = []
            for side, src in enumerate(m.sources):
                p = self._source_player(bracket, src)
                sub = self.substitutions.get(mid, {}).get(str(side))
                if sub is not None and p == sub["out"]:
                    p = sub["in"]
                players.append(p)
            if (m.a, m.b) != (players[0], players[1]):
                self._mark(m)
                m.a, m.b = players

    def _dependents(self, match_ids: Iterable[str]) -> list[str]:
        if self._feeds is None:
            self._feeds = {}
            for m in self.matches.values():
                for src in m.sources or ():
                    if src.kind != "seed":
                        self._feeds.setdefault(str(src.ref), []).append(m.id)
        out: list[str] = []
        for mid in match_ids:
            out.append(mid)
            out.extend(self._feeds.get(mid, ()))
        return out

    def _mark(self, m: Match) -> None:
        if m.id not in self._before:
            self._before[m.id] = (m.status, m.a, m.b, m.table)

    def knockout_forfeiters(self) -> set[str]:
        """Players who forfeited a knockout match: no knockout points for them (HGV 2.3.8)."""
        out = {f.player_id for f in self.knockout_forfeits}
        for m in self.matches_in("knockout"):
            if m.result is not None and m.result.forfeit:
                out.add(m.result.loser)
        return out

    def _last_eliminated_by(self, player: str) -> str | None:
        best: Match | None = None
        for m in self.matches_in("knockout"):
            if m.result is not None and m.result.winner == player and (
                    best is None or m.round_no > best.round_no):
                best = m
        return None if best is None else best.result.loser if best.result else None

    def _can_replace(self, player: str | None) -> bool:
        if player is None:
            return False
        w = self.withdrawals.get(player)
        if w is not None and w.kind != "consolation":
            return False
        if player in self.knockout_forfeiters():
            return False
        return all(player not in m.players for m in self.matches_in("knockout")
                   if m.result is None)

    def _knockout_forfeit(self, m: Match, forfeiter: str, now: datetime,
                          actor: str) -> KnockoutForfeit | None:
        """HGV 2.3.8: the last player the forfeiter eliminated takes their place, if able."""
        z = self._last_eliminated_by(forfeiter)
        if not self._can_replace(z):
            return None
        assert z is not None
        side = "0" if m.a == forfeiter else "1"
        self.substitutions.setdefault(m.id, {})[side] = {"out": forfeiter, "in": z}
        kf = KnockoutForfeit(forfeiter, m.id, z, now)
        self.knockout_forfeits.append(kf)
        if self.consolation is not None and z in self.consolation.players:
            # Z goes back to the knockout; the consolation continues without them.
            self.withdrawals.setdefault(z, Withdrawal(z, "consolation", now, actor))
        self._mark(m)
        m.started_at = None
        m.started_players = None
        # Its table was given the forfeiter's name: the match waits to be assigned again.
        m.table, m.assigned_at, m.scheduled_start = None, None, None
        m.history.append({"at": iso(now), "actor": actor, "action": "knockout_forfeit",
                          "out": forfeiter, "in": z})
        return kf

    # -- consolation (Último Chance) ----------------------------------------------------------

    def consolation_eligible(self) -> list[str]:
        """Non-qualifiers and first-knockout-match losers, in seeding order (HGV 7.4.13)."""
        if self.knockout is None:
            return []
        qualified = set(self.knockout.players)
        voided = {p for st in self.all_standings() for p in st.voided}
        out = [p for p in self.entrants if p not in qualified and p not in voided]
        forfeiters = self.knockout_forfeiters()
        out += [p for p in uc_rules.first_knockout_losers(self.matches_in("knockout"))
                if p not in forfeiters]
        out = [p for p in out if p not in self.withdrawals]
        return uc_rules.consolation_seeds(out, self.seeding_rank())

    def first_knockout_round_done(self) -> bool:
        """Every qualifier's first knockout match (play-in or first round) is decided."""
        if self.knockout is None:
            return False
        firsts: dict[str, Match] = {}
        for mid in self.knockout.match_ids:
            m = self.matches[mid]
            for p in m.players:
                firsts.setdefault(p, m)
        return len(firsts) >= len(self.knockout.players) and all(
            m.result is not None for m in firsts.values())

    def start_consolation(self, entrants: Sequence[str] | None = None, *,
                          actor: str = "director", now: datetime) -> Outcome:
        """Draw Último Chance. Without ``entrants``, every eligible player once the first
        knockout matches are over; with them, any eligible players (it is optional)."""
        if not self.settings.consolation:
            raise PhaseError("this tournament has no Último Chance", reason="no_consolation")
        if self.knockout is None or self.phase == "closed":
            raise PhaseError("Último Chance starts once the knockout is drawn",
                             reason="consolation_too_early")
        if self.consolation is not None:
            raise PhaseError("Último Chance is already drawn", reason="consolation_drawn")
        eligible = self.consolation_eligible()
        if entrants is None:
            if not self.first_knockout_round_done():
                raise PhaseError("first knockout matches are not all decided: "
                                 "wait, or name the entrants", reason="first_round_open")
            chosen = eligible
        else:
            chosen = list(entrants)
            dupes = sorted({p for p in chosen if chosen.count(p) > 1})
            if dupes:
                raise DuplicatePlayerError(f"entered twice: {', '.join(dupes)}",
                                           reason="entered_twice", players=", ".join(dupes))
            bad = [p for p in chosen if p not in eligible]
            if bad:
                raise TournamentError(
                    "not eligible for Último Chance: " + ", ".join(
                        f"{self.name_of(p)} ({p})" for p in bad), code="not_eligible",
                    reason="not_eligible",
                    players=", ".join(f"{self.name_of(p)} ({p})" for p in bad))
            chosen = uc_rules.consolation_seeds(chosen, self.seeding_rank())
        if len(chosen) < 2:
            raise NotEnoughPlayersError("Último Chance needs at least 2 players",
                                        reason="consolation_too_few")
        plan = uc_rules.plan_consolation(len(chosen))
        ranks = self.seeding_rank()
        seeds = [QualifiedSeed(i + 1, p, ranks.get(p, 0), self.group_of(p) or 0)
                 for i, p in enumerate(chosen)]
        self._begin()
        for spec in plan.matches:
            self.matches[spec.id] = self._bracket_match(spec, "consolation")
            self._before[spec.id] = None
        self._feeds = None
        self.consolation = BracketState("consolation", seeds, [], plan.size,
                                        [s.id for s in plan.matches])
        self._log(now, actor, "start_consolation", entrants=chosen)
        out = Outcome("start_consolation")
        self._after_change(now, out)
        return self._finish(out)

    def leave_consolation(self, player_id: str, *, actor: str = "director",
                          now: datetime) -> Outcome:
        """A player drops out of Último Chance only (it is optional; no sanction)."""
        if self.consolation is None or player_id not in self.consolation.players:
            raise TournamentError(f"{player_id} is not in Último Chance", code="not_eligible",
                                  reason="not_in_consolation", player=player_id)
        self._begin()
        self.withdrawals.setdefault(player_id, Withdrawal(player_id, "consolation", now, actor))
        self._log(now, actor, "leave_consolation", player_id=player_id)
        out = Outcome("leave_consolation")
        self._after_change(now, out, [])
        return self._finish(out)

    def consolation_finalists(self) -> tuple[str, ...]:
        if self.consolation is None or self.consolation.final_id is None:
            return ()
        return uc_rules.finalists(self.matches[self.consolation.final_id])

    # -- the flow after every change ----------------------------------------------------------

    def _begin(self) -> None:
        self._before = {}

    def _auto_forfeit(self, now: datetime, out: Outcome) -> str | None:
        """Withdrawn players lose each match as soon as it is ready (HGV 2.3.5, 2.3.6)."""
        if not self.withdrawals:
            return None
        for m in list(self.matches.values()):
            if m.status not in ("ready", "assigned"):
                continue
            gone = [p for p in (m.a, m.b) if p in self.withdrawals and (
                self.withdrawals[p].kind != "consolation" or m.phase == "consolation")]
            if not gone:
                continue
            loser = gone[-1]  # both gone: the first-named takes the walkover
            if m.phase == "knockout":
                kf = self._knockout_forfeit(m, loser, now, "auto")
                if kf is not None:
                    self._log(now, "auto", "knockout_forfeit", **kf.to_dict())
                    out.auto_forfeits.append(m.id)
                    return m.id
            a_wins = loser == m.b
            score = (m.length, 0) if a_wins else (0, m.length)
            assert m.a is not None and m.b is not None
            self._set_result(m, Result(m.a, m.b, *score, True, "auto", "auto", now))
            self._log(now, "auto", "forfeit", match_id=m.id, loser=loser,
                      reason=self.withdrawals[loser].kind)
            out.auto_forfeits.append(m.id)
            return m.id
        return None

    def _after_change(self, now: datetime, out: Outcome,
                      touched: Iterable[str] | None = None) -> None:
        """Follow a change through: the draw when groups end, bracket slots, auto-forfeits.

        ``touched`` limits slot updates to those matches and the ones they feed; without it
        every slot is derived again (after corrections and redraws).
        """
        pending = None if touched is None else list(touched)
        for _ in range(10 * len(self.matches) + 10):
            if (self.phase == "groups" and self.knockout is None and self.groups_complete()
                    and not self.pending_dice()):
                self._draw_knockout(now, "auto")
                out.draw_made = True
                pending = None
            only = None if pending is None else self._dependents(pending)
            self._derive(self.knockout, only)
            self._derive(self.consolation, only)
            mid = self._auto_forfeit(now, out)
            if mid is None:
                break
            pending = [mid]
        out.champion = self.champion

    def _set_result(self, m: Match, result: Result) -> None:
        self._mark(m)
        m.result = result
        if m.phase == "group" and m.group is not None:
            self._standings.pop(m.group, None)

    def _finish(self, out: Outcome) -> Outcome:
        """Report the matches whose status, players or table this action changed."""
        touched: set[int] = set()
        for mid, before in self._before.items():
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
        out.groups_completed = sorted(g for g in touched if self._group_complete(g))
        self._before = {}
        return out

    # -- results ------------------------------------------------------------------------------

    def record_result(
        self,
        match_id: str,
        score_a: int,
        score_b: int,
        *,
        forfeit: bool = False,
        source: ResultSource = "table",
        actor: str = "table",
        now: datetime,
    ) -> Outcome:
        """A finished match, as reported by its table or entered by the director.

        ``score_a`` belongs to the first-named player (white). Standings, qualifiers, the
        draw and the points follow at once. In the knockout a ``forfeit`` applies HGV 2.3.8.
        """
        m = self.match(match_id)
        if m.result is not None:
            raise AlreadyDecidedError(
                f"{match_id} is already decided ({m.result.score_a}–{m.result.score_b}): "
                "a director can correct it with correct_result", reason="already_decided",
                match=match_id, score=f"{m.result.score_a}–{m.result.score_b}")
        if m.a is None or m.b is None:
            raise MatchNotReadyError(f"{match_id} is not ready: its players are not known yet",
                                     reason="players_unknown", match=match_id)
        if self.phase == "closed":
            raise PhaseError(f"{self.id} is closed", reason="closed")
        validate_score(m.length, score_a, score_b)
        self._begin()
        out = Outcome("record_result", match_id)
        result = Result(m.a, m.b, score_a, score_b, forfeit, source, actor, now)
        if m.phase == "knockout" and forfeit:
            kf = self._knockout_forfeit(m, result.loser, now, actor)
            if kf is not None:
                out.substitution = kf
                self._log(now, actor, "knockout_forfeit", source=source, **kf.to_dict())
                self._after_change(now, out, [m.id])
                return self._finish(out)
        self._set_result(m, result)
        self._log(now, actor, "result", match_id=match_id, source=source, a=m.a, b=m.b,
                  score_a=score_a, score_b=score_b, forfeit=forfeit)
        self._after_change(now, out, [match_id])
        return self._finish(out)

    def match_started(self, match_id: str, *, now: datetime, actor: str = "table") -> Outcome:
        """The table reports the first game under way (both players checked in)."""
        m = self.match(match_id)
        if m.status not in ("ready", "assigned"):
            raise MatchNotReadyError(f"{match_id} cannot start: it is {m.status}",
                                     reason="cannot_start", match=match_id, status=m.status)
        assert m.a is not None and m.b is not None
        self._begin()
        self._mark(m)
        m.started_at = now
        m.started_players = (m.a, m.b)
        self._log(now, actor, "match_started", match_id=match_id, table=m.table)
        return self._finish(Outcome("match_started", match_id))

    def withdraw(self, player_id: str, kind: SanctionKind, *, actor: str = "director",
                 now: datetime, note: str = "") -> Outcome:
        """HGV 2.3.5 (``left``): loses the current match and every later one; HGV 2.3.6
        (``no_show``): every match counts as lost. Both are barred from the next tournament."""
        self._require_entrant(player_id)
        if self.phase in ("registration", "closed"):
            raise PhaseError("withdraw applies while the tournament is played",
                             reason="withdraw_when")
        if kind not in ("left", "no_show"):
            raise TournamentError(f"unknown withdrawal {kind!r}", code="bad_withdrawal",
                                  reason="withdrawal_kind", kind=kind)
        existing = self.withdrawals.get(player_id)
        if existing is not None and existing.kind != "consolation":
            raise TournamentError(f"{player_id} has already withdrawn", code="bad_withdrawal",
                                  reason="already_withdrawn", player=player_id)
        self._begin()
        out = Outcome("withdraw")
        self.withdrawals[player_id] = Withdrawal(player_id, kind, now, actor)
        self._standings.clear()  # a no-show leaves the group's qualifying places
        sanction = Sanction(f"{self.id}:{player_id}:{kind}", player_id, kind, self.id,
                            self.held_on, note=note)
        self.sanctions.append(sanction)
        for m in self.matches.values():
            if m.status == "playing" and player_id in m.players:
                assert m.a is not None and m.b is not None
                score = (0, m.length) if m.a == player_id else (m.length, 0)
                self._set_result(m, Result(m.a, m.b, *score, True, "director", actor, now))
                out.auto_forfeits.append(m.id)
        self._log(now, actor, "withdraw", player_id=player_id, kind=kind, rule=sanction.rule,
                  note=note, lost=list(out.auto_forfeits))
        self._after_change(now, out, list(out.auto_forfeits))
        return self._finish(out)

    # -- corrections --------------------------------------------------------------------------

    def _used_players(self) -> dict[str, tuple[str | None, str | None]]:
        out: dict[str, tuple[str | None, str | None]] = {}
        for m in self.matches.values():
            if m.result is not None:
                out[m.id] = (m.result.a, m.result.b)
            elif m.started_players is not None:
                out[m.id] = m.started_players
        return out

    def _inconsistent(self, skip: str | None = None) -> list[str]:
        return [mid for mid, used in self._used_players().items()
                if mid != skip and (self.matches[mid].a, self.matches[mid].b) != used]

    def _conflict_kinds(self, trial: Tournament, match_id: str) -> tuple[list[str], list[str]]:
        kinds: list[str] = []
        affected: list[str] = []
        m = self.matches[match_id]
        if (m.phase == "group" and self.knockout is not None
                and self._preview_players() != trial._preview_players()):
            kinds.append("draw")
            affected += [x.id for x in self.matches.values()
                         if x.phase != "group" and x.status in ("assigned", "playing", "done")]
        down = trial._inconsistent(skip=match_id)
        if down:
            kinds.append("downstream")
            affected += [d for d in down if d not in affected]
        if self.consolation is not None:
            eligible = set(trial.consolation_eligible()) | {
                p for p, w in trial.withdrawals.items() if w.kind == "consolation"}
            if any(p not in eligible for p in self.consolation.players):
                kinds.append("consolation")
        return kinds, affected

    def correct_result(
        self,
        match_id: str,
        score_a: int,
        score_b: int,
        *,
        forfeit: bool = False,
        actor: str = "director",
        now: datetime,
        reason: str = "",
    ) -> Outcome:
        """A director's correction (HGV 4.8). If later rounds already used the result, nothing
        changes: a :class:`Conflict` is opened for :meth:`resolve_conflict`."""
        m = self.match(match_id)
        if m.result is None:
            raise MatchNotReadyError(f"{match_id} has no result to correct: record it instead",
                                     reason="nothing_to_correct", match=match_id)
        validate_score(m.length, score_a, score_b)
        old = m.result
        new = Result(old.a, old.b, score_a, score_b, forfeit, "director", actor, now)
        out = Outcome("correct_result", match_id)
        if (old.score_a, old.score_b, old.forfeit) == (score_a, score_b, forfeit):
            return out
        trial = copy.deepcopy(self)
        trial._apply_correction(match_id, new, now, actor, Outcome("trial"))
        kinds, affected = self._conflict_kinds(trial, match_id)
        if kinds:
            c = Conflict(f"C{len(self.conflicts) + 1}", match_id, old.to_dict(), new.to_dict(),
                         reason, actor, now, kinds, affected)
            # What the director confirms is exactly what "apply" would annul now.
            # (If apply would be refused anyway, the list stays what the trial saw.)
            with contextlib.suppress(TournamentError):
                c.affected = self._annuls_of(c, now, actor)
            self.conflicts.append(c)
            self._log(now, actor, "correction_conflict", conflict=c.id, match_id=match_id,
                      old=old.to_dict(), new=new.to_dict(), kinds=kinds, affected=affected,
                      reason=reason)
            out.conflict = c
            return out
        self._begin()
        self._apply_correction(match_id, new, now, actor, out)
        self._log(now, actor, "correct_result", match_id=match_id, old=old.to_dict(),
                  new=new.to_dict(), reason=reason)
        return self._finish(out)

    def _apply_correction(self, match_id: str, new: Result, now: datetime, actor: str,
                          out: Outcome) -> None:
        m = self.matches[match_id]
        old = m.result
        m.history.append({"at": iso(now), "actor": actor, "action": "correct",
                          "old": None if old is None else old.to_dict(),
                          "new": new.to_dict()})
        self._set_result(m, new)
        self._after_change(now, out)

    def table_conflict(
        self,
        match_id: str,
        score_a: int,
        score_b: int,
        *,
        forfeit: bool = False,
        actor: str,
        now: datetime,
        reason: str,
    ) -> Outcome:
        """A table reported a result the hub will not apply by itself: a table that no longer
        holds the match, or a second result for a decided match. Nothing changes; a
        :class:`Conflict` of kind ``table`` is opened (once per actor and score) for
        :meth:`resolve_conflict`. Nothing is opened when the report agrees with the record."""
        m = self.match(match_id)
        if m.a is None or m.b is None:
            raise MatchNotReadyError(f"{match_id} is not ready: its players are not known yet",
                                     reason="players_unknown", match=match_id)
        validate_score(m.length, score_a, score_b)
        out = Outcome("table_conflict", match_id)
        old = m.result
        if old is not None and (old.score_a, old.score_b, old.forfeit) == (
                score_a, score_b, forfeit):
            return out
        new = Result(m.a, m.b, score_a, score_b, forfeit, "table", actor, now)
        for c in self.open_conflicts():
            if (c.match_id == match_id and c.actor == actor
                    and (c.new["score_a"], c.new["score_b"], c.new["forfeit"])
                    == (score_a, score_b, forfeit)):
                out.conflict = c
                return out  # the same report again (a correction then its match.ended)
        kinds: list[str] = ["table"]
        affected: list[str] = []
        if old is not None:
            trial = copy.deepcopy(self)
            trial._apply_correction(match_id, new, now, actor, Outcome("trial"))
            more, affected = self._conflict_kinds(trial, match_id)
            kinds += more
        c = Conflict(f"C{len(self.conflicts) + 1}", match_id,
                     None if old is None else old.to_dict(), new.to_dict(), reason, actor, now,
                     kinds, affected)
        self.conflicts.append(c)
        self._log(now, actor, "table_conflict", conflict=c.id, match_id=match_id,
                  old=c.old, new=c.new, kinds=kinds, affected=affected, reason=reason)
        out.conflict = c
        return out

    def open_conflicts(self) -> list[Conflict]:
        return [c for c in self.conflicts if c.status == "open"]

    def _annuls_of(self, c: Conflict, now: datetime, actor: str) -> list[str]:
        trial = copy.deepcopy(self)
        tc = copy.deepcopy(c)
        tc.annulled = []
        trial.conflicts = [x for x in trial.conflicts if x.id != c.id] + [tc]
        trial.resolve_conflict(tc.id, "apply", actor=actor, now=now)
        return [a["match_id"] for a in tc.annulled if "match_id" in a]

    def conflict_annuls(self, conflict_id: str, *, now: datetime | None = None) -> list[str]:
        """The matches ``apply`` would annul (or take off their table) if chosen now."""
        c = next((c for c in self.conflicts if c.id == conflict_id), None)
        if c is None or c.status != "open":
            raise ConflictError(f"no open conflict {conflict_id!r}", reason="no_conflict",
                                conflict=conflict_id)
        try:
            return self._annuls_of(c, now or c.at, c.actor)
        except TournamentError:
            return list(c.affected)

    def resolve_conflict(self, conflict_id: str, resolution: Resolution, *,
                         actor: str = "director", now: datetime,
                         expected: Sequence[str] | None = None) -> Outcome:
        """``keep`` the recorded result; ``apply`` the correction and annul (and audit) every
        later result it invalidates, redrawing the knockout if its seeds change; or, for a
        group correction, ``apply_keep_draw``: correct the record and keep the draw as made.

        An annulled match loses its result, its start and its table (it is played again);
        an assigned match whose players change is taken off its table too. ``expected`` is
        the list the director confirmed (:meth:`conflict_annuls`): if ``apply`` would now
        annul anything else, nothing changes."""
        c = next((c for c in self.conflicts if c.id == conflict_id), None)
        if c is None or c.status != "open":
            raise ConflictError(f"no open conflict {conflict_id!r}", reason="no_conflict",
                                conflict=conflict_id)
        if resolution == "apply" and expected is not None:
            would = self._annuls_of(c, now, actor)
            if sorted(would) != sorted(expected):
                raise ConflictError(
                    f"applying {conflict_id} would now annul {', '.join(would) or 'nothing'}, "
                    f"not {', '.join(expected) or 'nothing'}: look at it again",
                    reason="conflict_annuls_changed", conflict=conflict_id,
                    annuls=", ".join(would) or "—")
        out = Outcome("resolve_conflict", c.match_id, conflict=c)
        self._begin()
        if resolution == "keep":
            c.status = "kept"
        elif resolution in ("apply", "apply_keep_draw"):
            if resolution == "apply_keep_draw" and c.kinds != ["draw"]:
                raise ConflictError("apply_keep_draw is only for a group correction whose "
                                    "sole effect is on the draw", reason="keep_draw_only")
            m = self.match(c.match_id)
            if "table" in c.kinds and m.result is None:
                # A table's result for a match still undecided: the director records it.
                if (m.a, m.b) != (c.new["a"], c.new["b"]):
                    raise ConflictError(f"{c.match_id} changed since the conflict was opened",
                                    reason="conflict_stale", match=c.match_id)
                out = self.record_result(c.match_id, c.new["score_a"], c.new["score_b"],
                                         forfeit=c.new["forfeit"], source="director",
                                         actor=actor, now=now)
                out.conflict = c
                c.status = "applied"
                c.resolved_by, c.resolved_at = actor, now
                self._log(now, actor, "resolve_conflict", conflict=c.id, resolution=resolution,
                          annulled=[])
                return out
            players = c.old if c.old is not None else c.new
            if m.result is None or (m.result.a, m.result.b) != (players["a"], players["b"]):
                raise ConflictError(f"{c.match_id} changed since the conflict was opened",
                                    reason="conflict_stale", match=c.match_id)
            new = Result.from_dict(c.new)
            new = Result(new.a, new.b, new.score_a, new.score_b, new.forfeit, "director", actor,
                         now) if "table" in c.kinds else new
            eligible_before = self.consolation_eligible()
            draw_before = self._preview_players() if self.knockout is not None else None
            self._apply_correction(c.match_id, new, now, actor, out)
            if resolution == "apply":
                if draw_before is not None and self._preview_players() != draw_before:
                    self._redraw_knockout(now, actor, c, out)
                if self.consolation is not None:
                    self._swap_consolation_entrants(eligible_before, now, actor, c)
                self._annul_inconsistent(now, actor, c, out)
            c.status = "applied" if resolution == "apply" else "applied_keep_draw"
            if self.phase == "closed" and not self.is_finished():
                # A late correction undid part of the knockout: it must be played again.
                self.phase = "knockout"
                self._log(now, actor, "reopen", conflict=c.id)
        else:
            raise ConflictError(f"unknown resolution {resolution!r}", reason="bad_resolution",
                                resolution=resolution)
        c.resolved_by, c.resolved_at = actor, now
        self._log(now, actor, "resolve_conflict", conflict=c.id, resolution=resolution,
                  annulled=list(c.annulled))
        return self._finish(out)

    def _annul(self, m: Match, now: datetime, actor: str, c: Conflict) -> None:
        """Undo a match: result, start and table (a table that held it is told by the desk)."""
        self._mark(m)
        c.annulled.append({"match_id": m.id,
                           "result": None if m.result is None else m.result.to_dict(),
                           "started": m.started_players is not None, "table": m.table})
        m.history.append({"at": iso(now), "actor": actor, "action": "annul",
                          "conflict": c.id, "table": m.table,
                          "result": None if m.result is None else m.result.to_dict()})
        m.result = None
        m.started_at = None
        m.started_players = None
        m.table, m.assigned_at, m.scheduled_start = None, None, None

    def _redraw_knockout(self, now: datetime, actor: str, c: Conflict, out: Outcome) -> None:
        for bracket in (self.knockout, self.consolation):
            if bracket is None:
                continue
            for mid in bracket.match_ids:
                m = self.matches[mid]
                if m.result is not None or m.started_players is not None or m.table:
                    self._annul(m, now, actor, c)
                self._mark(m)
                del self.matches[mid]
        self._feeds = None
        self.knockout = self.consolation = None
        self.substitutions.clear()
        self.knockout_forfeits.clear()
        self.withdrawals = {p: w for p, w in self.withdrawals.items() if w.kind != "consolation"}
        self.phase = "groups"
        self._after_change(now, out)

    def _swap_consolation_entrants(self, eligible_before: list[str], now: datetime,
                                   actor: str, c: Conflict) -> None:
        assert self.consolation is not None
        eligible = self.consolation_eligible()
        newcomers = [p for p in eligible if p not in eligible_before
                     and p not in self.consolation.players]
        for i, s in enumerate(self.consolation.seeds):
            if s.player_id in eligible or self.withdrawals.get(s.player_id) is not None:
                continue
            if newcomers:
                incoming = newcomers.pop(0)
                self.consolation.seeds[i] = QualifiedSeed(
                    s.seed, incoming, self.seeding_rank().get(incoming, 0),
                    self.group_of(incoming) or 0)
                c.annulled.append({"consolation_seed": s.seed, "out": s.player_id,
                                   "in": incoming})
            else:
                self.withdrawals[s.player_id] = Withdrawal(s.player_id, "consolation", now,
                                                           actor)

    def _annul_inconsistent(self, now: datetime, actor: str, c: Conflict,
                            out: Outcome) -> None:
        while True:
            self._derive(self.knockout)
            self._derive(self.consolation)
            bad = self._inconsistent()
            if not bad:
                break
            for mid in bad:
                self._annul(self.matches[mid], now, actor, c)
        # An assigned match whose players changed: its table was told the old names.
        for m in self.matches.values():
            before = self._before.get(m.id)
            if (m.table is not None and m.result is None and m.started_players is None
                    and before is not None and (before[1], before[2]) != (m.a, m.b)):
                self._annul(m, now, actor, c)
        self._after_change(now, out)

    # -- tables -------------------------------------------------------------------------------

    def _home_tables(self) -> dict[int, str]:
        homes: dict[int, tuple[datetime, str]] = {}
        for m in self.matches.values():
            if m.group is not None and m.table is not None and m.assigned_at is not None:
                prev = homes.get(m.group)
                if prev is None or m.assigned_at >= prev[0]:
                    homes[m.group] = (m.assigned_at, m.table)
        return {g: t for g, (_, t) in homes.items()}

    def assign_tables(self, free_tables: Sequence[str], *, now: datetime,
                      actor: str = "scheduler") -> list[Assignment]:
        """Give each ready match whose players are free one of ``free_tables``.

        ``free_tables`` are the tables the hub can offer this tournament (online, not used by
        another tournament); those busy with this tournament's matches are skipped.
        """
        if self.phase in ("registration", "closed"):
            return []
        feature = frozenset(m.id for m in self.matches_in("knockout") if self._is_final_round(m))
        plan = plan_assignments(list(self.matches.values()), free_tables, now,
                                play_early=self.settings.play_early,
                                feature_tables=self.settings.feature_tables,
                                needs_feature_table=feature, home_tables=self._home_tables())
        for a in plan:
            m = self.matches[a.match_id]
            m.table, m.assigned_at, m.scheduled_start = a.table, now, a.scheduled_start
            self._log(now, actor, "assign", match_id=a.match_id, table=a.table,
                      scheduled_start=iso(a.scheduled_start), early=a.early)
        return plan

    def assign_match(self, match_id: str, table: str, *, now: datetime,
                     actor: str = "director") -> Assignment:
        """The director puts one ready match on a chosen table instead of the calendar's."""
        m = self.match(match_id)
        if m.status != "ready":
            raise MatchNotReadyError(f"{match_id} is {m.status}: only a ready match can be "
                                     "assigned (move an assigned one instead)", reason="assign_not_ready",
                                     match=match_id, status=m.status)
        for other in self.matches.values():
            if other.table == table and other.status in ("assigned", "playing"):
                raise TableError(f"table {table} is busy with {other.id}", reason="table_busy",
                                 table=table, match=other.id)
        others = [x for x in self.matches.values() if x.id == match_id or x.status != "ready"]
        plan = plan_assignments(others, [table], now, play_early=True)
        if not plan:
            busy = [p for p in m.players if any(
                p in x.players for x in self.matches.values()
                if x.status in ("assigned", "playing"))]
            raise TableError(f"{match_id} cannot start now: "
                             f"{', '.join(self.name_of(p) for p in busy)} still playing",
                             code="players_busy", reason="players_busy",
                             players=", ".join(self.name_of(p) for p in busy))
        a = plan[0]
        m.table, m.assigned_at, m.scheduled_start = a.table, now, a.scheduled_start
        self._log(now, actor, "assign", match_id=a.match_id, table=a.table,
                  scheduled_start=iso(a.scheduled_start), early=a.early)
        return a

    def _is_final_round(self, m: Match) -> bool:
        """Semifinal and final (by default): a mandatory clock and the feature tables."""
        hi = m.loser_place[1] if m.loser_place else 0
        return m.round != "PI" and 0 < hi <= self.settings.final_rounds_from

    def assignment(self, match_id: str) -> Assignment:
        m = self.match(match_id)
        if m.table is None or m.a is None or m.b is None or m.scheduled_start is None:
            raise TableError(f"{match_id} has no table", reason="no_table", match=match_id)
        return Assignment(m.id, m.table, m.a, m.b, m.length, m.clock, m.scheduled_start)

    def move_match(self, match_id: str, table: str, *, actor: str = "director",
                   now: datetime) -> Assignment:
        """The director moves a match to another table (HGV 3.3, 7.4.7)."""
        m = self.match(match_id)
        if m.status not in ("assigned", "playing"):
            raise TableError(f"{match_id} is {m.status}: only a match with a table can move",
                             reason="move_no_table", match=match_id, status=m.status)
        if table == m.table:
            # A move to where it is would only re-send the assignment: nothing to do, and a
            # director who meant another table must know it did not move.
            raise TableError(f"{match_id} is already at table {table}",
                             reason="move_same_table", match=match_id, table=table)
        for other in self.matches.values():
            if other.id != match_id and other.table == table and other.status in (
                    "assigned", "playing"):
                raise TableError(f"table {table} is busy with {other.id}", reason="table_busy",
                                 table=table, match=other.id)
        old = m.table
        m.table = table
        m.history.append({"at": iso(now), "actor": actor, "action": "move", "from": old,
                          "to": table})
        self._log(now, actor, "move_match", match_id=match_id, table_from=old, table_to=table)
        return self.assignment(match_id)

    def unassign(self, match_id: str, *, actor: str = "director", now: datetime) -> None:
        """Take an assigned match off its table (a broken table); it waits for another."""
        m = self.match(match_id)
        if m.status != "assigned":
            raise TableError(f"{match_id} is {m.status}: only an assigned match can be unassigned",
                             reason="unassign_not_assigned", match=match_id, status=m.status)
        old, m.table, m.assigned_at, m.scheduled_start = m.table, None, None, None
        self._log(now, actor, "unassign", match_id=match_id, table=old)

    def set_match_format(self, match_id: str, *, length: int | None = None,
                         clock: ClockPreset | None = None, actor: str = "director",
                         now: datetime) -> Match:
        """Change one match's length or clock before it starts (RULES: every default)."""
        m = self.match(match_id)
        if m.status in ("playing", "done"):
            raise PhaseError(f"{match_id} is {m.status}: its format can no longer change",
                             reason="format_fixed", match=match_id, status=m.status)
        if length is not None:
            if length < 1:
                raise TournamentError("a match is at least 1 point", code="bad_setting",
                                      reason="length_min")
            m.length = length
        if clock is not None:
            m.clock = clock
        self._log(now, actor, "set_match_format", match_id=match_id, length=m.length,
                  clock=m.clock.to_dict())
        return m

    # -- closing, places and points -----------------------------------------------------------

    @property
    def champion(self) -> str | None:
        if self.knockout is None:
            return None
        if not self.knockout.match_ids:
            return self.knockout.players[0] if self.knockout.players else None
        final = self.matches[self.knockout.final_id or ""]
        return None if final.result is None else final.result.winner

    def is_finished(self) -> bool:
        if self.champion is None:
            return False
        return self.consolation is None or all(
            self.matches[mid].result is not None for mid in self.consolation.match_ids)

    def close(self, *, actor: str = "director", now: datetime) -> Outcome:
        """Close the tournament once the knockout (and Último Chance, if drawn) is over."""
        if self.phase == "closed":
            raise PhaseError(f"{self.id} is already closed", reason="already_closed")
        if not self.is_finished():
            raise PhaseError("the knockout or Último Chance is not finished", reason="not_finished")
        self.phase = "closed"
        self._log(now, actor, "close", champion=self.champion)
        return Outcome("close", champion=self.champion)

    def places(self) -> dict[str, tuple[int, int, str]]:
        """Final place ranges known so far: ``{player: (first, last, round label)}``.

        A knockout player's place comes from the round they lost in; a player replaced under
        HGV 2.3.8 takes the place of the player they last eliminated. Group non-qualifiers
        share the places after all qualifiers.
        """
        out: dict[str, tuple[int, int, str]] = {}
        if self.knockout is None:
            return out
        ko = self.knockout
        q = len(ko.players)
        if not ko.match_ids:
            for p in ko.players:
                out[p] = (1, 1, "F")
        deepest: dict[str, Match] = {}
        for mid in ko.match_ids:
            m = self.matches[mid]
            for p in m.players:
                deepest[p] = m
        for p in ko.players:
            dm = deepest.get(p)
            if dm is None or dm.result is None or dm.loser_place is None:
                continue
            if dm.result.winner == p and dm.id == ko.final_id:
                out[p] = (1, 1, "F")
            else:
                # Lost here, or won here and was then replaced under HGV 2.3.8.
                out[p] = (*dm.loser_place, dm.round)
        qualified = set(ko.players)
        rest = [p for p in self.entrants if p not in qualified]
        for p in rest:
            out[p] = (q + 1, len(self.entrants), "group")
        return out

    def points(self) -> dict[str, PointsBreakdown]:
        """Every entrant's points so far (HGV 7.5), with what earned and what removed them."""
        scale = self.settings.points
        places = self.places()
        forfeiters = self.knockout_forfeiters()
        uc_final = set(self.consolation_finalists())
        wins: dict[str, list[int]] = {p: [0, 0, 0] for p in self.entrants}
        removed: dict[str, list[RemovedWin]] = {p: [] for p in self.entrants}
        void_matches: set[str] = set()
        for st in self.all_standings():
            void_matches.update(st.removed_matches)
        for m in self.matches.values():
            if m.result is None:
                continue
            w = m.result.winner
            if m.phase == "group":
                if m.id in void_matches:
                    removed[w].append(RemovedWin(m.id, "HGV 2.3.3"))
                else:
                    wins[w][0] += 1
            elif m.phase == "knockout":
                if w in forfeiters:
                    removed[w].append(RemovedWin(m.id, "HGV 2.3.8"))
                else:
                    wins[w][1] += 1
            else:
                wins[w][2] += 1
        ko_players = set(self.knockout.players) if self.knockout else set()
        out: dict[str, PointsBreakdown] = {}
        for p in self.entrants:
            place = places.get(p)
            place_pts = 0
            if place is not None and p in ko_players and p not in forfeiters:
                place_pts = scale.band_points(place[0], place[1])
            no_show = self.withdrawals.get(p) is not None and self.withdrawals[p].kind == "no_show"
            out[p] = PointsBreakdown(
                player_id=p, place=None if place is None else (place[0], place[1]),
                place_points=place_pts,
                participation=0 if no_show else scale.participation,
                consolation_finalist=scale.consolation_finalist if p in uc_final else 0,
                wins_group=wins[p][0], wins_knockout=wins[p][1], wins_consolation=wins[p][2],
                per_win=scale.per_win, place_round=None if place is None else place[2],
                knockout_forfeit=p in forfeiters, removed=tuple(removed[p]))
        return out

    def final_list(self) -> list[FinalRow]:
        """Everyone by points (then place, then seeding): "ASÍ QUEDÓ EL TORNEO"."""
        pts = self.points()
        ranks = self.seeding_rank()
        big = 10**9

        def key(p: str) -> tuple[int, int, int, str]:
            b = pts[p]
            return (-b.total, b.place[0] if b.place else big, ranks.get(p, big), p)

        order = sorted(self.entrants, key=key)
        return [FinalRow(i, p, self.name_of(p), pts[p]) for i, p in enumerate(order, start=1)]

    # -- persistence --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "id": self.id, "name": self.name, "held_on": self.held_on.isoformat(),
            "category": self.category, "official": self.official,
            "settings": self.settings.to_dict(), "phase": self.phase,
            "entrants": [e.to_dict() for e in self.entrants.values()],
            "seed": self.seed,
            "seeding": None if self.seeding is None else self.seeding.to_dict(),
            "groups": [list(g) for g in self.groups],
            "matches": [m.to_dict() for m in self.matches.values()],
            "knockout": None if self.knockout is None else self.knockout.to_dict(),
            "consolation": None if self.consolation is None else self.consolation.to_dict(),
            "substitutions": copy.deepcopy(self.substitutions),
            "knockout_forfeits": [f.to_dict() for f in self.knockout_forfeits],
            "withdrawals": [w.to_dict() for w in self.withdrawals.values()],
            "dice_entered": copy.deepcopy(self.dice_entered),
            "sanctions": [s.to_dict() for s in self.sanctions],
            "conflicts": [c.to_dict() for c in self.conflicts],
            "audit": [a.to_dict() for a in self.audit],
            "left_out": [e.to_dict() for e in self.left_out],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Tournament:
        if d.get("version") != STATE_VERSION:
            raise TournamentError(f"unknown tournament state version {d.get('version')!r}",
                                  code="bad_state", reason="bad_state",
                                  version=str(d.get("version")))
        t = cls(d["id"], d["name"], date.fromisoformat(d["held_on"]), category=d["category"],
                official=bool(d["official"]),
                settings=TournamentSettings.from_dict(d["settings"]))
        t.phase = d["phase"]
        t.entrants = {e["player_id"]: Entrant.from_dict(e) for e in d["entrants"]}
        t.seed = d["seed"]
        t.seeding = None if d["seeding"] is None else SeedingDraw.from_dict(d["seeding"])
        t.groups = [list(g) for g in d["groups"]]
        t.matches = {m["id"]: Match.from_dict(m) for m in d["matches"]}
        t._by_group = None
        t.knockout = None if d["knockout"] is None else BracketState.from_dict(d["knockout"])
        t.consolation = (None if d["consolation"] is None
                         else BracketState.from_dict(d["consolation"]))
        t.substitutions = copy.deepcopy(d["substitutions"])
        t.knockout_forfeits = [KnockoutForfeit.from_dict(f) for f in d["knockout_forfeits"]]
        t.withdrawals = {w["player_id"]: Withdrawal.from_dict(w) for w in d["withdrawals"]}
        t.dice_entered = copy.deepcopy(d["dice_entered"])
        t.sanctions = [Sanction.from_dict(s) for s in d["sanctions"]]
        t.conflicts = [Conflict.from_dict(c) for c in d["conflicts"]]
        t.audit = [AuditEntry.from_dict(a) for a in d["audit"]]
        t.left_out = [Entrant.from_dict(e) for e in d.get("left_out", [])]
        return t


def play_order(matches: Iterable[Match]) -> list[Match]:
    """Decided matches in the order they finished (for ratings)."""
    done = [m for m in matches if m.result is not None]
    return sorted(done, key=lambda m: (m.result.at if m.result else datetime.min,
                                       ["group", "knockout", "consolation"].index(m.phase),
                                       m.round_no, m.number))
