"""The end of a tournament: its champion, closing it, the final places, the points (HGV 7.5)
and the final list ("ASÍ QUEDÓ EL TORNEO").

A part of :class:`~mesa.tournament.tournament.Tournament` (the facade documents the actions);
it works on the shared :class:`~mesa.tournament.state.TournamentState`.

>>> from datetime import date, datetime
>>> from mesa.tournament.flow import Flow
>>> from mesa.tournament.records import Entrant
>>> from mesa.tournament.results import Results
>>> now = datetime(2014, 1, 31, 19, 30)
>>> s = TournamentState("T", "Enero", date(2014, 1, 31))
>>> s.entrants = {p: Entrant(p, p, now) for p in ("ANA", "BEA")}
>>> groups = GroupStage(s)
>>> groups.draw(ranking={}, seed=1, now=now, actor="director", n_groups=None, start_at=None)
>>> ko = KnockoutStage(s, groups)
>>> results = Results(s, ko, Flow(s, groups, ko))
>>> _ = results.record("G1-1", 3, 1, forfeit=False, source="table", actor="T1", now=now)
>>> closing = Closing(s, groups, ko, ConsolationStage(s, groups, ko))
>>> closing.is_finished()
False
>>> _ = results.record("KO-F-1", 7, 2, forfeit=False, source="table", actor="T1", now=now)
>>> closing.places(), [(r.position, r.player_id, r.total) for r in closing.final_list()]
({'ANA': (1, 1, 'F'), 'BEA': (2, 2, 'F')}, [(1, 'ANA', ...), (2, 'BEA', ...)])
>>> closing.close(actor="director", now=now).champion
'ANA'
"""

from __future__ import annotations

from datetime import datetime

from mesa.tournament.consolation_stage import ConsolationStage
from mesa.tournament.errors import PhaseError
from mesa.tournament.group_stage import GroupStage
from mesa.tournament.knockout_stage import KnockoutStage
from mesa.tournament.matches import Match
from mesa.tournament.points import PointsBreakdown, RemovedWin
from mesa.tournament.records import BracketState, FinalRow, Outcome
from mesa.tournament.state import TournamentState

Place = tuple[int, int, str]


class Closing:
    def __init__(self, state: TournamentState, groups: GroupStage, knockout: KnockoutStage,
                 consolation: ConsolationStage) -> None:
        self.state = state
        self.groups = groups
        self.knockout = knockout
        self.consolation = consolation

    def is_finished(self) -> bool:
        s = self.state
        if self.knockout.champion() is None:
            return False
        return s.consolation is None or all(
            s.matches[mid].result is not None for mid in s.consolation.match_ids)

    def close(self, *, actor: str, now: datetime) -> Outcome:
        s = self.state
        if s.phase == "closed":
            raise PhaseError(f"{s.id} is already closed", reason="already_closed")
        if not self.is_finished():
            raise PhaseError("the knockout or Último Chance is not finished", reason="not_finished")
        s.phase = "closed"
        champion = self.knockout.champion()
        s.log(now, actor, "close", champion=champion)
        return Outcome("close", champion=champion)

    # -- places -------------------------------------------------------------------------------

    def places(self) -> dict[str, Place]:
        s = self.state
        out: dict[str, Place] = {}
        if s.knockout is None:
            return out
        ko = s.knockout
        if not ko.match_ids:
            for p in ko.players:
                out[p] = (1, 1, "F")
        out.update(self._knockout_places(ko))
        qualified = set(ko.players)
        for p in s.entrants:
            if p not in qualified:
                out[p] = (len(ko.players) + 1, len(s.entrants), "group")
        return out

    def _knockout_places(self, ko: BracketState) -> dict[str, Place]:
        """A qualifier's place from the deepest match they played (lost there, or won there
        and were then replaced under HGV 2.3.8); the final's winner is first."""
        deepest: dict[str, Match] = {}
        for mid in ko.match_ids:
            m = self.state.matches[mid]
            for p in m.players:
                deepest[p] = m
        out: dict[str, Place] = {}
        for p in ko.players:
            dm = deepest.get(p)
            if dm is None or dm.result is None or dm.loser_place is None:
                continue
            if dm.result.winner == p and dm.id == ko.final_id:
                out[p] = (1, 1, "F")
            else:
                out[p] = (*dm.loser_place, dm.round)
        return out

    # -- points -------------------------------------------------------------------------------

    def _wins(self, forfeiters: set[str]) -> tuple[dict[str, list[int]],
                                                   dict[str, list[RemovedWin]]]:
        """Wins per player (group, knockout, Último Chance), and those removed by HGV 2.3.3
        (a void group) or 2.3.8 (a knockout forfeit)."""
        s = self.state
        wins: dict[str, list[int]] = {p: [0, 0, 0] for p in s.entrants}
        removed: dict[str, list[RemovedWin]] = {p: [] for p in s.entrants}
        void_matches: set[str] = set()
        for st in self.groups.all_standings():
            void_matches.update(st.removed_matches)
        for m in s.matches.values():
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
        return wins, removed

    def points(self) -> dict[str, PointsBreakdown]:
        s = self.state
        scale = s.settings.points
        places = self.places()
        forfeiters = self.knockout.forfeiters()
        uc_final = set(self.consolation.finalists())
        wins, removed = self._wins(forfeiters)
        ko_players = set(s.knockout.players) if s.knockout else set()
        out: dict[str, PointsBreakdown] = {}
        for p in s.entrants:
            place = places.get(p)
            place_pts = 0
            if place is not None and p in ko_players and p not in forfeiters:
                place_pts = scale.band_points(place[0], place[1])
            no_show = s.withdrawals.get(p) is not None and s.withdrawals[p].kind == "no_show"
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
        s = self.state
        pts = self.points()
        ranks = s.seeding_rank()
        big = 10**9

        def key(p: str) -> tuple[int, int, int, str]:
            b = pts[p]
            return (-b.total, b.place[0] if b.place else big, ranks.get(p, big), p)

        order = sorted(s.entrants, key=key)
        return [FinalRow(i, p, s.name_of(p), pts[p]) for i, p in enumerate(order, start=1)]
