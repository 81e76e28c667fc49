"""The group stage: the seeded draw into groups and their calendars, the standings, the dice
that break a group's ties, and taking the draw back before it counts.

A part of :class:`~mesa.tournament.tournament.Tournament` (the facade documents the actions);
it works on the shared :class:`~mesa.tournament.state.TournamentState`. The standings
themselves are computed by :func:`mesa.tournament.groups.group_standings`.

>>> from datetime import date, datetime
>>> from mesa.tournament.records import Entrant
>>> now = datetime(2014, 1, 31, 19, 30)
>>> s = TournamentState("T", "Enero", date(2014, 1, 31))
>>> s.entrants = {p: Entrant(p, p, now) for p in ("ANA", "BEA", "EVA")}
>>> groups = GroupStage(s)
>>> groups.draw(ranking={"ANA": 30, "BEA": 20}, seed=1, now=now, actor="director",
...             n_groups=None, start_at=None)
>>> s.groups, [(m.id, m.a, m.b) for m in s.matches.values()]
([['ANA', 'BEA', 'EVA']], [('G1-1', 'BEA', 'EVA'), ('G1-2', 'ANA', 'BEA'), ('G1-3', 'EVA', 'ANA')])
>>> [r.player_id for r in groups.standings(1).rows], groups.complete()
(['ANA', 'BEA', 'EVA'], False)
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from mesa.tournament.draws import roll_die
from mesa.tournament.errors import DrawLockedError, PhaseError, TournamentError
from mesa.tournament.groups import (
    DiceSource,
    GroupResult,
    GroupStandings,
    berger_rounds,
    group_count,
    group_standings,
    snake_fill,
)
from mesa.tournament.matches import ClockPreset, Match
from mesa.tournament.seeding import seeding_order
from mesa.tournament.state import TournamentState


class GroupStage:
    def __init__(self, state: TournamentState) -> None:
        self.state = state

    # -- the draw -----------------------------------------------------------------------------

    def draw(self, *, ranking: Mapping[str, int], seed: int | str, now: datetime, actor: str,
             n_groups: int | None, start_at: datetime | None) -> None:
        """Seed, fill the groups (snake order) and build their Berger calendars."""
        s = self.state
        if s.phase != "registration":
            raise PhaseError(f"groups already started for {s.id}", reason="already_started")
        s.begin()
        n = len(s.entrants)
        g = group_count(n, n_groups)  # refuses fewer than 2 players
        s.seed = seed
        s.seeding = seeding_order({p: int(ranking.get(p, 0)) for p in s.entrants}, seed)
        order = s.seeding.order
        s.groups = [[order[r - 1] for r in ranks] for ranks in snake_fill(n, g)]
        self._calendars(start_at or now)
        s.phase = "groups"
        s.standings_cache.clear()
        s.by_group = None
        s.log(now, actor, "start_groups", seed=seed, groups=len(s.groups),
              requested_groups=n_groups, order=order,
              ties=[list(e.tie) for e in s.seeding.entries if e.tie
                    and e.player_id == e.tie[0]])

    def _calendars(self, start: datetime) -> None:
        s = self.state
        slot = timedelta(minutes=s.settings.minutes_per_group_round)
        length = s.settings.group_length
        clock = ClockPreset.for_length(length, s.settings.reserve_per_point_s, s.settings.delay_s)
        for gi, members in enumerate(s.groups, start=1):
            k = 0
            for r, pairs in enumerate(berger_rounds(len(members)), start=1):
                for x, y in pairs:
                    k += 1
                    mid = f"G{gi}-{k}"
                    s.matches[mid] = Match(
                        mid, "group", str(r), r, k, length, clock, a=members[x - 1],
                        b=members[y - 1], group=gi, planned_start=start + (r - 1) * slot)
                    s.created(mid)

    def undo(self, *, actor: str, now: datetime, why: str) -> list[str]:
        """Back to registration; the tables the drawn matches held (the caller tells them)."""
        s = self.state
        if s.phase != "groups" or s.knockout is not None:
            raise PhaseError(f"no group draw to take back in {s.id} (phase {s.phase})",
                             reason="no_draw_to_undo", phase=s.phase)
        self._refuse_if_counted()
        tables = sorted({m.table for m in s.matches.values() if m.table})
        s.log(now, actor, "undo_groups", seed=s.seed, why=why,
              groups=[list(g) for g in s.groups], tables=tables)
        s.phase = "registration"
        if why != "redraw":  # the same players are drawn again on a redraw
            for e in s.left_out:
                s.entrants.setdefault(e.player_id, e)
            s.left_out = []
        s.seed = None
        s.seeding = None
        s.groups = []
        s.matches = {}
        s.dice_entered = {}
        s.standings_cache.clear()
        s.by_group = None
        s.feeds = None
        s.before = {}
        return tables

    def _refuse_if_counted(self) -> None:
        s = self.state
        played = sorted(m.id for m in s.matches.values() if m.status in ("playing", "done"))
        if played:
            raise DrawLockedError(f"the group draw of {s.id} counts already: "
                                  f"{', '.join(played)}", reason="draw_locked",
                                  matches=", ".join(played))
        if s.withdrawals:
            raise DrawLockedError(f"the group draw of {s.id} counts already: a player withdrew",
                                  reason="draw_locked_withdrawal")

    # -- standings ----------------------------------------------------------------------------

    def results(self, group: int) -> list[GroupResult]:
        """The decided matches of a group, as the standings read them."""
        out = []
        for m in self.state.group_matches(group):
            if m.result is not None:
                r = m.result
                out.append(GroupResult(m.id, r.a, r.b, r.score_a, r.score_b, r.forfeit))
        return out

    def _dice(self, group: int, complete: bool) -> DiceSource | None:
        if not complete:
            return None
        s = self.state
        entered = s.dice_entered.get(str(group), {})

        def source(tied: tuple[str, ...], attempt: int) -> dict[str, int] | None:
            key = ",".join(tied)
            if attempt == 0 and key in entered:
                return dict(entered[key])
            if s.settings.dice_by != "hub":
                return None
            return {p: roll_die(s.seed if s.seed is not None else "", "group-dice",
                                f"G{group}", key, str(attempt), p) for p in tied}

        return source

    def standings(self, group: int) -> GroupStandings:
        s = self.state
        if not 1 <= group <= len(s.groups):
            raise TournamentError(f"no group {group} in {s.id}", code="unknown_group",
                                  reason="unknown_group", group=group)
        cached = s.standings_cache.get(group)
        if cached is None:
            complete = s.group_complete(group)
            cached = group_standings(group, s.groups[group - 1], self.results(group),
                                     dice=self._dice(group, complete),
                                     qualifiers=s.settings.qualifiers_per_group,
                                     no_shows=self.no_shows())
            s.standings_cache[group] = cached
        return cached

    def no_shows(self) -> set[str]:
        """HGV 2.3.6: players who confirmed and did not come take no knockout place."""
        return {p for p, w in self.state.withdrawals.items() if w.kind == "no_show"}

    def all_standings(self) -> list[GroupStandings]:
        return [self.standings(g) for g in range(1, len(self.state.groups) + 1)]

    def complete(self) -> bool:
        s = self.state
        return bool(s.groups) and all(
            m.result is not None for m in s.matches.values() if m.phase == "group")

    # -- dice ---------------------------------------------------------------------------------

    def pending_dice(self) -> list[tuple[int, tuple[str, ...]]]:
        out = []
        for st in self.all_standings():
            if not st.complete:
                continue
            for row in st.rows:
                for step in row.steps:
                    if step.criterion == "pending" and (st.group, step.among) not in out:
                        out.append((st.group, step.among))
        return out

    def enter_dice(self, group: int, values: Mapping[str, int], *, actor: str,
                   now: datetime) -> None:
        s = self.state
        if s.knockout is not None:
            raise PhaseError("the knockout is drawn: group dice can no longer change",
                             reason="dice_too_late")
        _check_dice(set(s.groups[group - 1]) if 1 <= group <= len(s.groups) else set(),
                    group, values)
        s.begin()
        key = ",".join(sorted(values))
        s.dice_entered.setdefault(str(group), {})[key] = dict(values)
        s.standings_cache.pop(group, None)
        s.log(now, actor, "enter_dice", group=group, values=dict(values))


def _check_dice(members: set[str], group: int, values: Mapping[str, int]) -> None:
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
