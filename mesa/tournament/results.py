"""Results as they arrive: a finished match, a match under way, and a player who leaves or did
not come (HGV 2.3.5, 2.3.6).

A part of :class:`~mesa.tournament.tournament.Tournament` (the facade documents the actions);
it works on the shared :class:`~mesa.tournament.state.TournamentState`.

>>> from datetime import date, datetime
>>> from mesa.tournament.group_stage import GroupStage
>>> from mesa.tournament.records import Entrant
>>> now = datetime(2014, 1, 31, 19, 30)
>>> s = TournamentState("T", "Enero", date(2014, 1, 31))
>>> s.entrants = {p: Entrant(p, p, now) for p in ("ANA", "BEA", "EVA")}
>>> groups = GroupStage(s)
>>> groups.draw(ranking={}, seed=1, now=now, actor="director", n_groups=None, start_at=None)
>>> ko = KnockoutStage(s, groups)
>>> results = Results(s, ko, Flow(s, groups, ko))
>>> first = next(iter(s.matches))
>>> out = results.record(first, 3, 1, forfeit=False, source="table", actor="T1", now=now)
>>> out.changed, s.matches[first].status
(['G1-1'], 'done')
"""

from __future__ import annotations

from datetime import datetime

from mesa.tournament.errors import (
    AlreadyDecidedError,
    MatchNotReadyError,
    PhaseError,
    TournamentError,
)
from mesa.tournament.flow import Flow
from mesa.tournament.knockout_stage import KnockoutStage
from mesa.tournament.matches import Result, ResultSource, validate_score
from mesa.tournament.players import Sanction, SanctionKind
from mesa.tournament.records import Outcome, Withdrawal
from mesa.tournament.state import TournamentState


class Results:
    def __init__(self, state: TournamentState, knockout: KnockoutStage, flow: Flow) -> None:
        self.state = state
        self.knockout = knockout
        self.flow = flow

    def record(self, match_id: str, score_a: int, score_b: int, *, forfeit: bool,
               source: ResultSource, actor: str, now: datetime) -> Outcome:
        s = self.state
        m = s.match(match_id)
        if m.result is not None:
            raise AlreadyDecidedError(
                f"{match_id} is already decided ({m.result.score_a}–{m.result.score_b}): "
                "a director can correct it with correct_result", reason="already_decided",
                match=match_id, score=f"{m.result.score_a}–{m.result.score_b}")
        if m.a is None or m.b is None:
            raise MatchNotReadyError(f"{match_id} is not ready: its players are not known yet",
                                     reason="players_unknown", match=match_id)
        if s.phase == "closed":
            raise PhaseError(f"{s.id} is closed", reason="closed")
        validate_score(m.length, score_a, score_b)
        s.begin()
        out = Outcome("record_result", match_id)
        result = Result(m.a, m.b, score_a, score_b, forfeit, source, actor, now)
        if m.phase == "knockout" and forfeit:
            kf = self.knockout.forfeit(m, result.loser, now, actor)
            if kf is not None:
                out.substitution = kf
                s.log(now, actor, "knockout_forfeit", source=source, **kf.to_dict())
                return self.flow.follow(now, out, [m.id])
        s.set_result(m, result)
        s.log(now, actor, "result", match_id=match_id, source=source, a=m.a, b=m.b,
              score_a=score_a, score_b=score_b, forfeit=forfeit)
        return self.flow.follow(now, out, [match_id])

    def started(self, match_id: str, *, now: datetime, actor: str) -> Outcome:
        s = self.state
        m = s.match(match_id)
        if m.status not in ("ready", "assigned"):
            raise MatchNotReadyError(f"{match_id} cannot start: it is {m.status}",
                                     reason="cannot_start", match=match_id, status=m.status)
        assert m.a is not None and m.b is not None
        s.begin()
        s.mark(m)
        m.started_at = now
        m.started_players = (m.a, m.b)
        s.log(now, actor, "match_started", match_id=match_id, table=m.table)
        return s.finish(Outcome("match_started", match_id))

    def withdraw(self, player_id: str, kind: SanctionKind, *, actor: str, now: datetime,
                 note: str) -> Outcome:
        s = self.state
        self._check_withdrawal(player_id, kind)
        s.begin()
        out = Outcome("withdraw")
        s.withdrawals[player_id] = Withdrawal(player_id, kind, now, actor)
        s.standings_cache.clear()  # a no-show leaves the group's qualifying places
        sanction = Sanction(f"{s.id}:{player_id}:{kind}", player_id, kind, s.id, s.held_on,
                            note=note)
        s.sanctions.append(sanction)
        for m in s.matches.values():
            if m.status == "playing" and player_id in m.players:
                assert m.a is not None and m.b is not None
                score = (0, m.length) if m.a == player_id else (m.length, 0)
                s.set_result(m, Result(m.a, m.b, *score, True, "director", actor, now))
                out.auto_forfeits.append(m.id)
        s.log(now, actor, "withdraw", player_id=player_id, kind=kind, rule=sanction.rule,
              note=note, lost=list(out.auto_forfeits))
        return self.flow.follow(now, out, list(out.auto_forfeits))

    def _check_withdrawal(self, player_id: str, kind: SanctionKind) -> None:
        s = self.state
        # A player left out of the draw as absent is a no-show when they had confirmed
        # (HGV 2.3.6): the sanction applies to them too, though they have no match to lose.
        absent = player_id not in s.entrants and any(e.player_id == player_id for e in s.left_out)
        if not absent:
            s.require_entrant(player_id)
        elif kind != "no_show":
            raise TournamentError(f"{player_id} was left out of the draw: only no_show applies",
                                  code="bad_withdrawal", reason="left_out_no_show",
                                  player=s.name_of(player_id))
        if s.phase in ("registration", "closed"):
            raise PhaseError("withdraw applies while the tournament is played",
                             reason="withdraw_when")
        if kind not in ("left", "no_show"):
            raise TournamentError(f"unknown withdrawal {kind!r}", code="bad_withdrawal",
                                  reason="withdrawal_kind", kind=kind)
        existing = s.withdrawals.get(player_id)
        if existing is not None and existing.kind != "consolation":
            raise TournamentError(f"{player_id} has already withdrawn", code="bad_withdrawal",
                                  reason="already_withdrawn", player=player_id)
