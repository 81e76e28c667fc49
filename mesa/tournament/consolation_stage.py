"""Último Chance (HGV 7.4.13): who may play it, its draw, a player dropping out of it only,
and its finalists.

A part of :class:`~mesa.tournament.tournament.Tournament` (the facade documents the actions);
it works on the shared :class:`~mesa.tournament.state.TournamentState`. Its rules (seeding,
bracket plan, finalists) are in :mod:`mesa.tournament.consolation`.

>>> from datetime import date, datetime
>>> from mesa.tournament.flow import Flow
>>> from mesa.tournament.records import Outcome
>>> from mesa.tournament.records import Entrant
>>> from mesa.tournament.results import Results
>>> now = datetime(2014, 1, 31, 19, 30)
>>> s = TournamentState("T", "Enero", date(2014, 1, 31))
>>> s.entrants = {p: Entrant(p, p, now) for p in ("ANA", "BEA", "EVA", "IVO")}
>>> groups = GroupStage(s)
>>> groups.draw(ranking={}, seed=1, now=now, actor="director", n_groups=None, start_at=None)
>>> ko = KnockoutStage(s, groups)
>>> flow = Flow(s, groups, ko)
>>> results = Results(s, ko, flow)
>>> for m in list(s.matches.values()):
...     _ = results.record(m.id, 3, 1, forfeit=False, source="table", actor="T1", now=now)
>>> uc = ConsolationStage(s, groups, ko)
>>> uc.eligible()                          # the group's non-qualifier
['ANA']
>>> _ = results.record("KO-PI-1", 5, 1, forfeit=False, source="table", actor="T1", now=now)
>>> uc.eligible(), uc.first_knockout_round_done()   # and the play-in's loser
(['ANA', 'BEA'], False)
>>> uc.draw(["BEA", "ANA"], actor="director", now=now)   # in seeding order
>>> flow.follow(now, Outcome("start_consolation")).ready           # the slots follow
['UC-R1-1']
>>> [(m.id, m.a, m.b, m.length) for m in s.matches_in("consolation")]
[('UC-R1-1', 'ANA', 'BEA', 3)]
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from mesa.tournament import consolation as uc_rules
from mesa.tournament.errors import (
    DuplicatePlayerError,
    NotEnoughPlayersError,
    PhaseError,
    TournamentError,
)
from mesa.tournament.group_stage import GroupStage
from mesa.tournament.knockout import QualifiedSeed
from mesa.tournament.knockout_stage import KnockoutStage, bracket_match
from mesa.tournament.matches import Match
from mesa.tournament.records import BracketState, Withdrawal
from mesa.tournament.state import TournamentState


class ConsolationStage:
    def __init__(self, state: TournamentState, groups: GroupStage,
                 knockout: KnockoutStage) -> None:
        self.state = state
        self.groups = groups
        self.knockout = knockout

    def eligible(self) -> list[str]:
        s = self.state
        if s.knockout is None:
            return []
        qualified = set(s.knockout.players)
        voided = {p for st in self.groups.all_standings() for p in st.voided}
        out = [p for p in s.entrants if p not in qualified and p not in voided]
        forfeiters = self.knockout.forfeiters()
        out += [p for p in uc_rules.first_knockout_losers(s.matches_in("knockout"))
                if p not in forfeiters]
        out = [p for p in out if p not in s.withdrawals]
        return uc_rules.consolation_seeds(out, s.seeding_rank())

    def first_knockout_round_done(self) -> bool:
        s = self.state
        if s.knockout is None:
            return False
        firsts: dict[str, Match] = {}
        for mid in s.knockout.match_ids:
            m = s.matches[mid]
            for p in m.players:
                firsts.setdefault(p, m)
        return len(firsts) >= len(s.knockout.players) and all(
            m.result is not None for m in firsts.values())

    def draw(self, entrants: Sequence[str] | None, *, actor: str, now: datetime) -> None:
        s = self.state
        if not s.settings.consolation:
            raise PhaseError("this tournament has no Último Chance", reason="no_consolation")
        if s.knockout is None or s.phase == "closed":
            raise PhaseError("Último Chance starts once the knockout is drawn",
                             reason="consolation_too_early")
        if s.consolation is not None:
            raise PhaseError("Último Chance is already drawn", reason="consolation_drawn")
        chosen = self._entrants(entrants)
        if len(chosen) < 2:
            raise NotEnoughPlayersError("Último Chance needs at least 2 players",
                                        reason="consolation_too_few")
        plan = uc_rules.plan_consolation(len(chosen))
        ranks = s.seeding_rank()
        seeds = [QualifiedSeed(i + 1, p, ranks.get(p, 0), s.group_of(p) or 0)
                 for i, p in enumerate(chosen)]
        s.begin()
        for spec in plan.matches:
            s.matches[spec.id] = bracket_match(s.settings, spec, "consolation")
            s.created(spec.id)
        s.feeds = None
        s.consolation = BracketState("consolation", seeds, [], plan.size,
                                     [x.id for x in plan.matches])
        s.log(now, actor, "start_consolation", entrants=chosen)

    def _entrants(self, entrants: Sequence[str] | None) -> list[str]:
        """Every eligible player once the first knockout matches are over, or the named ones
        (each eligible, none twice), in seeding order."""
        eligible = self.eligible()
        if entrants is None:
            if not self.first_knockout_round_done():
                raise PhaseError("first knockout matches are not all decided: "
                                 "wait, or name the entrants", reason="first_round_open")
            return eligible
        chosen = list(entrants)
        dupes = sorted({p for p in chosen if chosen.count(p) > 1})
        if dupes:
            raise DuplicatePlayerError(f"entered twice: {', '.join(dupes)}",
                                       reason="entered_twice", players=", ".join(dupes))
        bad = [p for p in chosen if p not in eligible]
        if bad:
            named = ", ".join(f"{self.state.name_of(p)} ({p})" for p in bad)
            raise TournamentError("not eligible for Último Chance: " + named,
                                  code="not_eligible", reason="not_eligible", players=named)
        return uc_rules.consolation_seeds(chosen, self.state.seeding_rank())

    def leave(self, player_id: str, *, actor: str, now: datetime) -> None:
        s = self.state
        if s.consolation is None or player_id not in s.consolation.players:
            raise TournamentError(f"{player_id} is not in Último Chance", code="not_eligible",
                                  reason="not_in_consolation", player=player_id)
        s.begin()
        s.withdrawals.setdefault(player_id, Withdrawal(player_id, "consolation", now, actor))
        s.log(now, actor, "leave_consolation", player_id=player_id)

    def finalists(self) -> tuple[str, ...]:
        s = self.state
        if s.consolation is None or s.consolation.final_id is None:
            return ()
        return uc_rules.finalists(s.matches[s.consolation.final_id])
