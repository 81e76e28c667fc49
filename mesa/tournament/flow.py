"""What follows every change: the knockout draw when the groups end, bracket slots filled
again, and withdrawn players' matches forfeited as soon as they are ready (HGV 2.3.5, 2.3.6).

A part of :class:`~mesa.tournament.tournament.Tournament`; it works on the shared
:class:`~mesa.tournament.state.TournamentState` and is what every action calls last.

>>> from datetime import date, datetime
>>> from mesa.tournament.matches import Result
>>> from mesa.tournament.records import Entrant
>>> now = datetime(2014, 1, 31, 19, 30)
>>> s = TournamentState("T", "Enero", date(2014, 1, 31))
>>> s.entrants = {p: Entrant(p, p, now) for p in ("ANA", "BEA")}
>>> groups = GroupStage(s)
>>> groups.draw(ranking={}, seed=1, now=now, actor="director", n_groups=None, start_at=None)
>>> flow = Flow(s, groups, KnockoutStage(s, groups))
>>> s.set_result(s.matches["G1-1"], Result("ANA", "BEA", 3, 1, False, "table", "T1", now))
>>> out = flow.follow(now, Outcome("result"))    # the last group result: the draw follows
>>> out.draw_made, s.phase, out.champion, out.changed
(True, 'knockout', None, ['G1-1', 'KO-F-1'])
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from mesa.tournament.group_stage import GroupStage
from mesa.tournament.knockout_stage import KnockoutStage
from mesa.tournament.matches import Match, Result
from mesa.tournament.records import Outcome
from mesa.tournament.state import TournamentState


class Flow:
    def __init__(self, state: TournamentState, groups: GroupStage,
                 knockout: KnockoutStage) -> None:
        self.state = state
        self.groups = groups
        self.knockout = knockout

    def follow(self, now: datetime, out: Outcome,
               touched: Iterable[str] | None = None) -> Outcome:
        """Follow the action through, then report what it changed."""
        self.after_change(now, out, touched)
        return self.state.finish(out)

    def after_change(self, now: datetime, out: Outcome,
                     touched: Iterable[str] | None = None) -> None:
        """Follow a change through: the draw when groups end, bracket slots, auto-forfeits.

        ``touched`` limits slot updates to those matches and the ones they feed; without it
        every slot is derived again (after corrections and redraws).
        """
        s = self.state
        pending = None if touched is None else list(touched)
        for _ in range(10 * len(s.matches) + 10):
            if (s.phase == "groups" and s.knockout is None and self.groups.complete()
                    and not self.groups.pending_dice()):
                self.knockout.draw(now, "auto")
                out.draw_made = True
                pending = None
            only = None if pending is None else self.knockout.dependents(pending)
            self.knockout.derive(s.knockout, only)
            self.knockout.derive(s.consolation, only)
            mid = self._auto_forfeit(now, out)
            if mid is None:
                break
            pending = [mid]
        out.champion = self.knockout.champion()

    def _auto_forfeit(self, now: datetime, out: Outcome) -> str | None:
        """Withdrawn players lose each match as soon as it is ready (HGV 2.3.5, 2.3.6)."""
        s = self.state
        if not s.withdrawals:
            return None
        for m in list(s.matches.values()):
            loser = self._gone(m)
            if loser is None:
                continue
            if m.phase == "knockout":
                kf = self.knockout.forfeit(m, loser, now, "auto")
                if kf is not None:
                    s.log(now, "auto", "knockout_forfeit", **kf.to_dict())
                    out.auto_forfeits.append(m.id)
                    return m.id
            a_wins = loser == m.b
            score = (m.length, 0) if a_wins else (0, m.length)
            assert m.a is not None and m.b is not None
            s.set_result(m, Result(m.a, m.b, *score, True, "auto", "auto", now))
            s.log(now, "auto", "forfeit", match_id=m.id, loser=loser,
                  reason=s.withdrawals[loser].kind)
            out.auto_forfeits.append(m.id)
            return m.id
        return None

    def _gone(self, m: Match) -> str | None:
        """The withdrawn player who loses this waiting match, if any."""
        if m.status not in ("ready", "assigned"):
            return None
        w = self.state.withdrawals
        gone = [p for p in (m.a, m.b) if p in w and (
            w[p].kind != "consolation" or m.phase == "consolation")]
        return gone[-1] if gone else None  # both gone: the first-named takes the walkover
