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

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any, Generic, TypeVar, cast, overload

from mesa.tournament.closing import Closing
from mesa.tournament.consolation_stage import ConsolationStage
from mesa.tournament.corrections import Corrections
from mesa.tournament.flow import Flow
from mesa.tournament.group_stage import GroupStage
from mesa.tournament.groups import GroupResult, GroupStandings
from mesa.tournament.knockout import BracketPlan, QualifiedSeed, Swap
from mesa.tournament.knockout_stage import KnockoutStage
from mesa.tournament.matches import ClockPreset, Match, Phase, ResultSource
from mesa.tournament.players import Category, PlayerRegistry, Sanction, SanctionKind
from mesa.tournament.points import PointsBreakdown
from mesa.tournament.records import (
    AuditEntry,
    BracketState,
    Conflict,
    Entrant,
    FinalRow,
    KnockoutForfeit,
    Outcome,
    Resolution,
    TournamentPhase,
    Withdrawal,
)
from mesa.tournament.registration import Registration
from mesa.tournament.results import Results
from mesa.tournament.scheduler import Assignment, EventAsk
from mesa.tournament.seeding import SeedingDraw
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.snapshot import dump_state, load_state
from mesa.tournament.state import TournamentState
from mesa.tournament.tables import Tables

__all__ = [
    "AuditEntry", "BracketState", "Conflict", "Entrant", "FinalRow", "KnockoutForfeit",
    "Outcome", "Resolution", "Tournament", "TournamentPhase", "Withdrawal", "play_order",
]

T = TypeVar("T")


class _Shared(Generic[T]):
    """A tournament attribute that lives in its :class:`TournamentState` (read and written
    there, so every part sees the same value)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _Shared[T]: ...

    @overload
    def __get__(self, obj: Tournament, owner: type | None = None) -> T: ...

    def __get__(self, obj: Tournament | None, owner: type | None = None) -> T | _Shared[T]:
        if obj is None:
            return self
        return cast(T, getattr(obj._state, self.name))

    def __set__(self, obj: Tournament, value: T) -> None:
        setattr(obj._state, self.name, value)


class _Parts:
    """The parts of one tournament, each by job, all over the same state."""

    def __init__(self, state: TournamentState) -> None:
        self.registration = Registration(state)
        self.groups = GroupStage(state)
        self.knockout = KnockoutStage(state, self.groups)
        self.consolation = ConsolationStage(state, self.groups, self.knockout)
        self.flow = Flow(state, self.groups, self.knockout)
        self.results = Results(state, self.knockout, self.flow)
        self.tables = Tables(state)
        self.closing = Closing(state, self.groups, self.knockout, self.consolation)
        self.corrections = Corrections(
            state, knockout=self.knockout, consolation=self.consolation, flow=self.flow,
            results=self.results, closing=self.closing, trial=_corrections_over)


def _corrections_over(state: TournamentState) -> Corrections:
    """The corrections part over another state (what a trial on a copy runs)."""
    return _Parts(state).corrections


class Tournament:
    """One tournament from registration to the final list. See the module docstring.

    A facade: the actions and questions below are answered by its parts (registration,
    group stage, knockout, Último Chance, results, corrections, tables, closing), which share
    one :class:`~mesa.tournament.state.TournamentState`.
    """

    id = _Shared[str]()
    name = _Shared[str]()
    held_on = _Shared[date]()
    category = _Shared[Category]()
    official = _Shared[bool]()
    settings = _Shared[TournamentSettings]()
    phase = _Shared[TournamentPhase]()
    entrants = _Shared[dict[str, Entrant]]()
    seed = _Shared[int | str | None]()
    seeding = _Shared[SeedingDraw | None]()
    groups = _Shared[list[list[str]]]()
    matches = _Shared[dict[str, Match]]()
    knockout = _Shared[BracketState | None]()
    consolation = _Shared[BracketState | None]()
    # match id -> side ("0"/"1") -> {"out": forfeiting player, "in": replacement}
    substitutions = _Shared[dict[str, dict[str, dict[str, str]]]]()
    knockout_forfeits = _Shared[list[KnockoutForfeit]]()
    withdrawals = _Shared[dict[str, Withdrawal]]()
    dice_entered = _Shared[dict[str, dict[str, dict[str, int]]]]()
    sanctions = _Shared[list[Sanction]]()
    conflicts = _Shared[list[Conflict]]()
    audit = _Shared[list[AuditEntry]]()
    # Entrants left out of the group draw as absent (undoing the draw brings them back).
    left_out = _Shared[list[Entrant]]()

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
        self._over(TournamentState(id, name, held_on, category=category, official=official,
                                   settings=settings or TournamentSettings()))

    def _over(self, state: TournamentState) -> None:
        self._state = state
        self._parts = _Parts(state)

    # -- lookups ------------------------------------------------------------------------------

    def match(self, match_id: str) -> Match:
        return self._state.match(match_id)

    def name_of(self, player_id: str) -> str:
        return self._state.name_of(player_id)

    def group_matches(self, group: int) -> list[Match]:
        return self._state.group_matches(group)

    def matches_in(self, phase: Phase) -> list[Match]:
        return self._state.matches_in(phase)

    def ready_matches(self) -> list[Match]:
        return self._state.ready_matches()

    def group_of(self, player_id: str) -> int | None:
        return self._state.group_of(player_id)

    def seeding_rank(self) -> dict[str, int]:
        return self._state.seeding_rank()

    # -- registration and the door ------------------------------------------------------------

    def register(self, registry: PlayerRegistry, player_id: str, *, override: bool = False,
                 actor: str = "director", now: datetime) -> Entrant:
        """Register a player, enforcing sanctions and category (a director may override)."""
        return self._parts.registration.register(registry, player_id, override=override,
                                                 actor=actor, now=now)

    def unregister(self, player_id: str, *, actor: str = "director", now: datetime) -> None:
        self._parts.registration.unregister(player_id, actor=actor, now=now)

    def leave_out(self, player_ids: Sequence[str], *, actor: str = "director",
                  now: datetime) -> None:
        """Take the absent players out just before the group draw (one audit line); undoing
        the draw registers them again. An empty list only forgets an earlier one."""
        self._parts.registration.leave_out(player_ids, actor=actor, now=now)

    # -- groups -------------------------------------------------------------------------------

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
        self._parts.groups.draw(ranking=ranking, seed=seed, now=now, actor=actor,
                                n_groups=n_groups, start_at=start_at)
        return self._parts.flow.follow(now, Outcome("start_groups"))

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
        return self._parts.groups.undo(actor=actor, now=now, why=why)

    def group_results(self, group: int) -> list[GroupResult]:
        """The decided matches of a group, as the standings read them."""
        return self._parts.groups.results(group)

    def standings(self, group: int) -> GroupStandings:
        """The group's table, with the tie-break steps behind every place."""
        return self._parts.groups.standings(group)

    def all_standings(self) -> list[GroupStandings]:
        return self._parts.groups.all_standings()

    def groups_complete(self) -> bool:
        return self._parts.groups.complete()

    def pending_dice(self) -> list[tuple[int, tuple[str, ...]]]:
        """Ties of complete groups that wait for a director's dice (``dice_by="director"``)."""
        return self._parts.groups.pending_dice()

    def enter_dice(self, group: int, values: Mapping[str, int], *, actor: str = "director",
                   now: datetime) -> Outcome:
        """The director enters the dice rolled for a group tie (HGV 7.2.3, criterion 4)."""
        self._parts.groups.enter_dice(group, values, actor=actor, now=now)
        return self._parts.flow.follow(now, Outcome("enter_dice"))

    # -- knockout -----------------------------------------------------------------------------

    def draw_preview(self) -> tuple[list[QualifiedSeed], list[Swap], BracketPlan | None]:
        """The knockout draw the current group standings give (seeds, swaps, bracket)."""
        return self._parts.knockout.draw_preview()

    def knockout_forfeiters(self) -> set[str]:
        """Players who forfeited a knockout match: no knockout points for them (HGV 2.3.8)."""
        return self._parts.knockout.forfeiters()

    # -- consolation (Último Chance) ----------------------------------------------------------

    def consolation_eligible(self) -> list[str]:
        """Non-qualifiers and first-knockout-match losers, in seeding order (HGV 7.4.13)."""
        return self._parts.consolation.eligible()

    def first_knockout_round_done(self) -> bool:
        """Every qualifier's first knockout match (play-in or first round) is decided."""
        return self._parts.consolation.first_knockout_round_done()

    def start_consolation(self, entrants: Sequence[str] | None = None, *,
                          actor: str = "director", now: datetime) -> Outcome:
        """Draw Último Chance. Without ``entrants``, every eligible player once the first
        knockout matches are over; with them, any eligible players (it is optional)."""
        self._parts.consolation.draw(entrants, actor=actor, now=now)
        return self._parts.flow.follow(now, Outcome("start_consolation"))

    def leave_consolation(self, player_id: str, *, actor: str = "director",
                          now: datetime) -> Outcome:
        """A player drops out of Último Chance only (it is optional; no sanction)."""
        self._parts.consolation.leave(player_id, actor=actor, now=now)
        return self._parts.flow.follow(now, Outcome("leave_consolation"), [])

    def consolation_finalists(self) -> tuple[str, ...]:
        return self._parts.consolation.finalists()

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
        return self._parts.results.record(match_id, score_a, score_b, forfeit=forfeit,
                                          source=source, actor=actor, now=now)

    def match_started(self, match_id: str, *, now: datetime, actor: str = "table") -> Outcome:
        """The table reports the first game under way (both players checked in)."""
        return self._parts.results.started(match_id, now=now, actor=actor)

    def withdraw(self, player_id: str, kind: SanctionKind, *, actor: str = "director",
                 now: datetime, note: str = "") -> Outcome:
        """HGV 2.3.5 (``left``): loses the current match and every later one; HGV 2.3.6
        (``no_show``): every match counts as lost. Both are barred from the next tournament."""
        return self._parts.results.withdraw(player_id, kind, actor=actor, now=now, note=note)

    # -- corrections and conflicts ------------------------------------------------------------

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
        return self._parts.corrections.correct(match_id, score_a, score_b, forfeit=forfeit,
                                               actor=actor, now=now, reason=reason)

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
        return self._parts.corrections.table_conflict(match_id, score_a, score_b,
                                                      forfeit=forfeit, actor=actor, now=now,
                                                      reason=reason)

    def open_conflicts(self) -> list[Conflict]:
        return self._parts.corrections.open_conflicts()

    def conflict_annuls(self, conflict_id: str, *, now: datetime | None = None) -> list[str]:
        """The matches ``apply`` would annul (or take off their table) if chosen now."""
        return self._parts.corrections.conflict_annuls(conflict_id, now=now)

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
        return self._parts.corrections.resolve(conflict_id, resolution, actor=actor, now=now,
                                               expected=expected)

    # -- tables -------------------------------------------------------------------------------

    def assign_tables(self, free_tables: Sequence[str], *, now: datetime,
                      actor: str = "scheduler") -> list[Assignment]:
        """Give each ready match whose players are free one of ``free_tables``.

        ``free_tables`` are the tables the hub can offer this tournament (online, not used by
        another tournament); those busy with this tournament's matches are skipped.
        """
        return self._parts.tables.assign_tables(free_tables, now=now, actor=actor)

    def table_ask(self) -> EventAsk:
        """What :func:`~mesa.tournament.scheduler.plan_evening` needs of this tournament."""
        return self._parts.tables.ask()

    def give_tables(self, plan: Sequence[Assignment], *, now: datetime,
                    actor: str = "scheduler") -> list[Assignment]:
        """Apply this tournament's part of an evening's plan (checked again; what no longer
        fits is skipped): the assignments given."""
        return self._parts.tables.give_tables(plan, now=now, actor=actor)

    def reserve_tables(self, tables: Sequence[str], *, actor: str = "director",
                       now: datetime) -> tuple[str, ...]:
        """Reserve ``tables`` for this event's matches (empty: none); the ids kept."""
        return self._parts.tables.reserve_tables(tables, actor=actor, now=now)

    def assign_match(self, match_id: str, table: str, *, now: datetime,
                     actor: str = "director") -> Assignment:
        """The director puts one ready match on a chosen table instead of the calendar's."""
        return self._parts.tables.assign_match(match_id, table, now=now, actor=actor)

    def assignment(self, match_id: str) -> Assignment:
        return self._parts.tables.assignment(match_id)

    def move_match(self, match_id: str, table: str, *, actor: str = "director",
                   now: datetime) -> Assignment:
        """The director moves a match to another table (HGV 3.3, 7.4.7)."""
        return self._parts.tables.move_match(match_id, table, actor=actor, now=now)

    def unassign(self, match_id: str, *, actor: str = "director", now: datetime) -> None:
        """Take an assigned match off its table (a broken table); it waits for another."""
        self._parts.tables.unassign(match_id, actor=actor, now=now)

    def set_match_format(self, match_id: str, *, length: int | None = None,
                         clock: ClockPreset | None = None, actor: str = "director",
                         now: datetime) -> Match:
        """Change one match's length or clock before it starts (RULES: every default); its
        clock also while it is played (the director imposes the clock, HGV 2.4: the hub tells
        the table, which applies it from the match's next game, HGV 9.1.1)."""
        return self._parts.tables.set_match_format(match_id, length=length, clock=clock,
                                                   actor=actor, now=now)

    # -- closing, places and points -----------------------------------------------------------

    @property
    def champion(self) -> str | None:
        return self._parts.knockout.champion()

    def is_finished(self) -> bool:
        return self._parts.closing.is_finished()

    def close(self, *, actor: str = "director", now: datetime) -> Outcome:
        """Close the tournament once the knockout (and Último Chance, if drawn) is over."""
        return self._parts.closing.close(actor=actor, now=now)

    def places(self) -> dict[str, tuple[int, int, str]]:
        """Final place ranges known so far: ``{player: (first, last, round label)}``.

        A knockout player's place comes from the round they lost in; a player replaced under
        HGV 2.3.8 takes the place of the player they last eliminated. Group non-qualifiers
        share the places after all qualifiers.
        """
        return self._parts.closing.places()

    def points(self) -> dict[str, PointsBreakdown]:
        """Every entrant's points so far (HGV 7.5), with what earned and what removed them."""
        return self._parts.closing.points()

    def final_list(self) -> list[FinalRow]:
        """Everyone by points (then place, then seeding): "ASÍ QUEDÓ EL TORNEO"."""
        return self._parts.closing.final_list()

    # -- persistence --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return dump_state(self._state)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Tournament:
        t = cls.__new__(cls)
        t._over(load_state(d))
        return t


def play_order(matches: Iterable[Match]) -> list[Match]:
    """Decided matches in the order they finished (for ratings)."""
    done = [m for m in matches if m.result is not None]
    return sorted(done, key=lambda m: (m.result.at if m.result else datetime.min,
                                       ["group", "knockout", "consolation"].index(m.phase),
                                       m.round_no, m.number))
