"""The knockout stage: the draw from the group standings, bracket slots filled as results
arrive, and the HGV 2.3.8 forfeit (the last player the forfeiter eliminated takes the place).

A part of :class:`~mesa.tournament.tournament.Tournament` (the facade documents the actions);
it works on the shared :class:`~mesa.tournament.state.TournamentState`. The bracket's shape
and the seeding of qualifiers are planned by :mod:`mesa.tournament.knockout`.

>>> from mesa.tournament.knockout import plan_bracket
>>> final = plan_bracket(2, "KO").matches[-1]
>>> m = bracket_match(TournamentSettings(), final, "knockout")
>>> m.id, m.length, m.clock.reserve_s, m.clock.mandatory
('KO-F-1', 7, 840, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime

from mesa.tournament.group_stage import GroupStage
from mesa.tournament.knockout import (
    BracketPlan,
    MatchSpec,
    QualifiedSeed,
    Swap,
    plan_bracket,
    qualifier_seeding,
    separate_groups,
)
from mesa.tournament.matches import ClockPreset, Match, Phase, Source, iso
from mesa.tournament.records import BracketState, KnockoutForfeit, Withdrawal
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.state import TournamentState


def bracket_match(settings: TournamentSettings, spec: MatchSpec, phase: Phase) -> Match:
    """A bracket's match with its length and clock: the final rounds' own, or by phase; from
    the quarterfinals (``clock_from``) the clock is mandatory (HGV 3.1).

    >>> from mesa.tournament.knockout import plan_bracket
    >>> qf = plan_bracket(8, "KO").matches[0]
    >>> m = bracket_match(TournamentSettings(), qf, "knockout")
    >>> m.id, m.length, m.clock
    ('KO-QF-1', 5, ClockPreset(reserve_s=600, delay_s=10, mandatory=True))
    """
    s = settings
    main_round = phase == "knockout" and not spec.playin
    if main_round and spec.size <= s.final_rounds_from:
        length = s.final_rounds_length
        clock = ClockPreset(s.final_rounds_reserve_s, s.final_rounds_delay_s, True)
    else:
        length = s.knockout_length if phase == "knockout" else s.consolation_length
        clock = ClockPreset.for_length(length, s.reserve_per_point_s, s.delay_s)
        if main_round and spec.size <= s.clock_from:
            clock = replace(clock, mandatory=True)
    return Match(spec.id, phase, spec.round, spec.round_no, spec.number, length, clock,
                 sources=spec.sources, loser_place=spec.loser_place)


class KnockoutStage:
    def __init__(self, state: TournamentState, groups: GroupStage) -> None:
        self.state = state
        self.groups = groups

    # -- the draw -----------------------------------------------------------------------------

    def draw_preview(self) -> tuple[list[QualifiedSeed], list[Swap], BracketPlan | None]:
        seeds = qualifier_seeding(self.groups.all_standings())
        if len(seeds) < 2:
            return seeds, [], None
        plan = plan_bracket(len(seeds), "KO")
        swaps: list[Swap] = []
        if self.state.settings.separate_groups:
            seeds, swaps = separate_groups(seeds, plan)
        return seeds, swaps, plan

    def preview_players(self) -> list[str]:
        return [s.player_id for s in self.draw_preview()[0]]

    def draw(self, now: datetime, actor: str) -> None:
        s = self.state
        seeds, swaps, plan = self.draw_preview()
        ids: list[str] = []
        if plan is not None:
            for spec in plan.matches:
                s.matches[spec.id] = bracket_match(s.settings, spec, "knockout")
                s.created(spec.id)
                ids.append(spec.id)
        s.feeds = None
        s.knockout = BracketState("knockout", seeds, swaps, plan.size if plan else len(seeds),
                                  ids)
        s.phase = "knockout"
        dice = [{"group": st.group, **d.to_dict()} for st in self.groups.all_standings()
                for d in st.dice]
        s.log(now, actor, "draw_knockout", seeds=[x.to_dict() for x in seeds],
              swaps=[x.to_dict() for x in swaps], dice=dice, dice_seed=s.seed)

    # -- slots --------------------------------------------------------------------------------

    def _source_player(self, bracket: BracketState, src: Source) -> str | None:
        if src.kind == "seed":
            return bracket.seeds[int(src.ref) - 1].player_id
        feeder = self.state.matches[str(src.ref)]
        if feeder.result is None:
            return None
        return feeder.result.winner if src.kind == "winner" else feeder.result.loser

    def derive(self, bracket: BracketState | None, only: Iterable[str] | None = None) -> None:
        """Fill bracket slots from seeds, results and HGV 2.3.8 replacements."""
        if bracket is None:
            return
        s = self.state
        ids = bracket.match_ids if only is None else [m for m in only if m in s.matches]
        for mid in ids:
            m = s.matches[mid]
            if m.sources is None or (m.phase == "knockout") != (bracket.kind == "knockout"):
                continue
            players: list[str | None] = []
            for side, src in enumerate(m.sources):
                p = self._source_player(bracket, src)
                sub = s.substitutions.get(mid, {}).get(str(side))
                if sub is not None and p == sub["out"]:
                    p = sub["in"]
                players.append(p)
            if (m.a, m.b) != (players[0], players[1]):
                s.mark(m)
                m.a, m.b = players

    def dependents(self, match_ids: Iterable[str]) -> list[str]:
        """The matches and those their results feed (the slots a change can move)."""
        feeds = self.state.feeding()
        out: list[str] = []
        for mid in match_ids:
            out.append(mid)
            out.extend(feeds.get(mid, ()))
        return out

    def champion(self) -> str | None:
        s = self.state
        if s.knockout is None:
            return None
        if not s.knockout.match_ids:
            return s.knockout.players[0] if s.knockout.players else None
        final = s.matches[s.knockout.final_id or ""]
        return None if final.result is None else final.result.winner

    # -- HGV 2.3.8 ----------------------------------------------------------------------------

    def forfeiters(self) -> set[str]:
        out = {f.player_id for f in self.state.knockout_forfeits}
        for m in self.state.matches_in("knockout"):
            if m.result is not None and m.result.forfeit:
                out.add(m.result.loser)
        return out

    def _last_eliminated_by(self, player: str) -> str | None:
        best: Match | None = None
        for m in self.state.matches_in("knockout"):
            if m.result is not None and m.result.winner == player and (
                    best is None or m.round_no > best.round_no):
                best = m
        return None if best is None else best.result.loser if best.result else None

    def _can_replace(self, player: str | None) -> bool:
        if player is None:
            return False
        w = self.state.withdrawals.get(player)
        if w is not None and w.kind != "consolation":
            return False
        if player in self.forfeiters():
            return False
        return all(player not in m.players for m in self.state.matches_in("knockout")
                   if m.result is None)

    def forfeit(self, m: Match, forfeiter: str, now: datetime,
                actor: str) -> KnockoutForfeit | None:
        """HGV 2.3.8: the last player the forfeiter eliminated takes their place, if able."""
        s = self.state
        z = self._last_eliminated_by(forfeiter)
        if not self._can_replace(z):
            return None
        assert z is not None
        side = "0" if m.a == forfeiter else "1"
        s.substitutions.setdefault(m.id, {})[side] = {"out": forfeiter, "in": z}
        kf = KnockoutForfeit(forfeiter, m.id, z, now)
        s.knockout_forfeits.append(kf)
        if s.consolation is not None and z in s.consolation.players:
            # Z goes back to the knockout; the consolation continues without them.
            s.withdrawals.setdefault(z, Withdrawal(z, "consolation", now, actor))
        s.mark(m)
        m.started_at = None
        m.started_players = None
        # Its table was given the forfeiter's name: the match waits to be assigned again.
        m.table, m.assigned_at, m.scheduled_start = None, None, None
        m.history.append({"at": iso(now), "actor": actor, "action": "knockout_forfeit",
                          "out": forfeiter, "in": z})
        return kf
