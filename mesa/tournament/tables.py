"""Matches on tables: the calendar's assignments, the director's own (assign, move, take off),
and one match's format before it starts (its clock also while it is played).

A part of :class:`~mesa.tournament.tournament.Tournament` (the facade documents the actions);
it works on the shared :class:`~mesa.tournament.state.TournamentState`. Which match goes to
which free table is planned by :func:`mesa.tournament.scheduler.plan_assignments`.

>>> from datetime import date, datetime
>>> from mesa.tournament.group_stage import GroupStage
>>> from mesa.tournament.records import Entrant
>>> now = datetime(2014, 1, 31, 19, 30)
>>> s = TournamentState("T", "Enero", date(2014, 1, 31))
>>> s.entrants = {p: Entrant(p, p, now) for p in ("ANA", "BEA", "EVA")}
>>> GroupStage(s).draw(ranking={}, seed=1, now=now, actor="director", n_groups=None,
...                    start_at=None)
>>> tables = Tables(s)
>>> [(a.match_id, a.table) for a in tables.assign_tables(["T1", "T2"], now=now,
...                                                       actor="scheduler")]
[('G1-1', 'T1')]
>>> tables.move_match("G1-1", "T2", actor="director", now=now).table
'T2'
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from mesa.tournament.errors import MatchNotReadyError, PhaseError, TableError, TournamentError
from mesa.tournament.matches import ClockPreset, Match, iso
from mesa.tournament.scheduler import Assignment, EventAsk, plan_assignments
from mesa.tournament.state import TournamentState


class Tables:
    def __init__(self, state: TournamentState) -> None:
        self.state = state

    def _home_tables(self) -> dict[int, str]:
        homes: dict[int, tuple[datetime, str]] = {}
        for m in self.state.matches.values():
            if m.group is not None and m.table is not None and m.assigned_at is not None:
                prev = homes.get(m.group)
                if prev is None or m.assigned_at >= prev[0]:
                    homes[m.group] = (m.assigned_at, m.table)
        return {g: t for g, (_, t) in homes.items()}

    def _is_final_round(self, m: Match) -> bool:
        """Semifinal and final (by default): a mandatory clock and the feature tables."""
        hi = m.loser_place[1] if m.loser_place else 0
        return m.round != "PI" and 0 < hi <= self.state.settings.final_rounds_from

    def _give(self, a: Assignment, now: datetime, actor: str) -> None:
        m = self.state.matches[a.match_id]
        m.table, m.assigned_at, m.scheduled_start = a.table, now, a.scheduled_start
        self.state.log(now, actor, "assign", match_id=a.match_id, table=a.table,
                       scheduled_start=iso(a.scheduled_start), early=a.early)

    def ask(self) -> EventAsk:
        """What the scheduler needs to give this event tables (nothing while it has none to
        give: in registration and once closed)."""
        s = self.state
        playing = s.phase not in ("registration", "closed")
        feature = frozenset(m.id for m in s.matches_in("knockout") if self._is_final_round(m))
        return EventAsk(s.id, list(s.matches.values()) if playing else [],
                        play_early=s.settings.play_early,
                        feature_tables=s.settings.feature_tables, needs_feature_table=feature,
                        # a group's table matters while its groups play (HGV 7.4.8)
                        home_tables=self._home_tables() if s.phase == "groups" else {},
                        reserved_tables=s.settings.reserved_tables)

    def assign_tables(self, free_tables: Sequence[str], *, now: datetime,
                      actor: str) -> list[Assignment]:
        ask = self.ask()
        plan = plan_assignments(ask.matches, free_tables, now, play_early=ask.play_early,
                                feature_tables=ask.feature_tables,
                                needs_feature_table=ask.needs_feature_table,
                                home_tables=ask.home_tables)
        for a in plan:
            self._give(a, now, actor)
        return plan

    def give_tables(self, plan: Sequence[Assignment], *, now: datetime,
                    actor: str) -> list[Assignment]:
        """Apply a plan made for the whole evening (:func:`~mesa.tournament.scheduler.
        plan_evening`); each assignment is checked again against this tournament, so a plan
        made before a change can never seat a match twice or on a busy table."""
        s = self.state
        if s.phase in ("registration", "closed"):
            return []
        given = []
        for a in plan:
            m = s.matches.get(a.match_id)
            if m is None or m.status != "ready" or (m.a, m.b) != (a.a, a.b):
                continue
            seated = [o for o in s.matches.values() if o.status in ("assigned", "playing")]
            if any(o.table == a.table or {a.a, a.b} & set(o.players) for o in seated):
                continue
            self._give(a, now, actor)
            given.append(a)
        return given

    def _refuse_busy(self, table: str, match_id: str | None = None) -> None:
        for other in self.state.matches.values():
            if other.id != match_id and other.table == table and other.status in (
                    "assigned", "playing"):
                raise TableError(f"table {table} is busy with {other.id}", reason="table_busy",
                                 table=table, match=other.id)

    def assign_match(self, match_id: str, table: str, *, now: datetime,
                     actor: str) -> Assignment:
        s = self.state
        m = s.match(match_id)
        if m.status != "ready":
            raise MatchNotReadyError(f"{match_id} is {m.status}: only a ready match can be "
                                     "assigned (move an assigned one instead)",
                                     reason="assign_not_ready", match=match_id, status=m.status)
        self._refuse_busy(table)
        others = [x for x in s.matches.values() if x.id == match_id or x.status != "ready"]
        plan = plan_assignments(others, [table], now, play_early=True)
        if not plan:
            busy = [p for p in m.players if any(
                p in x.players for x in s.matches.values()
                if x.status in ("assigned", "playing"))]
            raise TableError(f"{match_id} cannot start now: "
                             f"{', '.join(s.name_of(p) for p in busy)} still playing",
                             code="players_busy", reason="players_busy",
                             players=", ".join(s.name_of(p) for p in busy))
        self._give(plan[0], now, actor)
        return plan[0]

    def assignment(self, match_id: str) -> Assignment:
        m = self.state.match(match_id)
        if m.table is None or m.a is None or m.b is None or m.scheduled_start is None:
            raise TableError(f"{match_id} has no table", reason="no_table", match=match_id)
        return Assignment(m.id, m.table, m.a, m.b, m.length, m.clock, m.scheduled_start)

    def move_match(self, match_id: str, table: str, *, actor: str,
                   now: datetime) -> Assignment:
        m = self.state.match(match_id)
        if m.status not in ("assigned", "playing"):
            raise TableError(f"{match_id} is {m.status}: only a match with a table can move",
                             reason="move_no_table", match=match_id, status=m.status)
        if table == m.table:
            # A move to where it is would only re-send the assignment: nothing to do, and a
            # director who meant another table must know it did not move.
            raise TableError(f"{match_id} is already at table {table}",
                             reason="move_same_table", match=match_id, table=table)
        self._refuse_busy(table, match_id)
        old = m.table
        m.table = table
        m.history.append({"at": iso(now), "actor": actor, "action": "move", "from": old,
                          "to": table})
        self.state.log(now, actor, "move_match", match_id=match_id, table_from=old,
                       table_to=table)
        return self.assignment(match_id)

    def unassign(self, match_id: str, *, actor: str, now: datetime) -> None:
        m = self.state.match(match_id)
        if m.status != "assigned":
            raise TableError(f"{match_id} is {m.status}: only an assigned match can be unassigned",
                             reason="unassign_not_assigned", match=match_id, status=m.status)
        old, m.table, m.assigned_at, m.scheduled_start = m.table, None, None, None
        self.state.log(now, actor, "unassign", match_id=match_id, table=old)

    def reserve_tables(self, tables: Sequence[str], *, actor: str, now: datetime) -> tuple[str, ...]:
        """The tables given to this event's matches only (RULES §4: the evening's other events
        share the rest); an empty list frees them. A match already at a table stays there."""
        cleaned = tuple(dict.fromkeys(str(t).strip() for t in tables if str(t).strip()))
        for t in cleaned:
            if len(t) > 32 or not all(c.isascii() and (c.isalnum() or c in "-_.") for c in t):
                raise TournamentError(f"{t[:40]!r} is not a table id", code="bad_setting",
                                      reason="table_id", table=t[:40])
        s = self.state
        s.settings = s.settings.with_changes(reserved_tables=cleaned)
        s.log(now, actor, "reserve_tables", tables=list(cleaned))
        return cleaned

    def set_match_format(self, match_id: str, *, length: int | None,
                         clock: ClockPreset | None, actor: str, now: datetime) -> Match:
        m = self.state.match(match_id)
        # A match being played keeps its length, but its clock may still change: the director
        # imposes the clock on it (HGV 2.4), and the table applies it from the next game.
        if m.status == "done" or (m.status == "playing" and length is not None):
            raise PhaseError(f"{match_id} is {m.status}: its format can no longer change",
                             reason="format_fixed", match=match_id, status=m.status)
        if length is not None:
            if length < 1:
                raise TournamentError("a match is at least 1 point", code="bad_setting",
                                      reason="length_min")
            m.length = length
        if clock is not None:
            m.clock = clock
        self.state.log(now, actor, "set_match_format", match_id=match_id, length=m.length,
                       clock=m.clock.to_dict())
        return m
