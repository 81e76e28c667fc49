"""Registration and the door: who enters the tournament, and who is left out as absent.

A part of :class:`~mesa.tournament.tournament.Tournament` (the facade documents the actions);
it works on the shared :class:`~mesa.tournament.state.TournamentState`.

>>> from datetime import date, datetime
>>> from mesa.tournament.players import PlayerRegistry
>>> reg, now = PlayerRegistry(), datetime(2014, 1, 31, 19, 30)
>>> s = TournamentState("T", "Enero", date(2014, 1, 31))
>>> door = Registration(s)
>>> e = door.register(reg, reg.add_new("ALEX").id, override=False, actor="director", now=now)
>>> door.leave_out([e.player_id], actor="director", now=now)   # did not come
>>> list(s.entrants), [x.name for x in s.left_out], s.audit[-1].action
([], ['ALEX'], 'leave_out')
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from mesa.tournament.errors import (
    CategoryError,
    DuplicatePlayerError,
    PhaseError,
    SanctionedError,
    TournamentError,
)
from mesa.tournament.players import Player, PlayerRegistry, Sanction
from mesa.tournament.records import Entrant
from mesa.tournament.state import TournamentState


class Registration:
    def __init__(self, state: TournamentState) -> None:
        self.state = state

    def register(self, registry: PlayerRegistry, player_id: str, *, override: bool,
                 actor: str, now: datetime) -> Entrant:
        s = self.state
        if s.phase != "registration":
            raise PhaseError(f"registration for {s.id} is closed (phase {s.phase})",
                             reason="registration_closed", phase=s.phase)
        player = registry.get(player_id)
        if player_id in s.entrants:
            raise DuplicatePlayerError(f"{player.name} ({player_id}) is already registered",
                                       reason="already_registered", name=player.name)
        if any(e.name == player.name for e in s.entrants.values()):
            raise DuplicatePlayerError(f"another entrant is already named {player.name!r}",
                                       reason="entrant_same_name", name=player.name)
        pending = registry.pending_sanctions(player_id, s.id)
        problems = self._problems(player, pending)
        if problems and not override:
            raise problems[0]
        entrant = Entrant(player_id, player.name, now, override=bool(problems))
        s.entrants[player_id] = entrant
        s.log(now, actor, "register", player_id=player_id, override=bool(problems),
              overridden=[p.code for p in problems],
              sanctions=[x.id for x in pending] if override else [])
        return entrant

    def _problems(self, player: Player, pending: list[Sanction]) -> list[TournamentError]:
        """What bars the player (a director may override them all): sanctions, category,
        membership, in that order."""
        s = self.state
        problems: list[TournamentError] = []
        if pending:
            rules = ", ".join(sorted({x.rule for x in pending}))
            problems.append(SanctionedError(
                f"{player.name} is barred from this tournament ({rules}, incurred in "
                f"{', '.join(x.incurred_in for x in pending)})", reason="sanctioned",
                name=player.name, rules=rules,
                tournaments=", ".join(x.incurred_in for x in pending)))
        if player.category != s.category:
            problems.append(CategoryError(
                f"{player.name} plays in category {player.category!r}, this tournament is "
                f"{s.category!r}", reason="wrong_category", name=player.name,
                category=player.category, wanted=s.category))
        if s.official and not player.member:
            problems.append(CategoryError(
                f"{player.name} is not a member: official tournaments are for members (HGV 1.4)",
                reason="not_member", name=player.name))
        return problems

    def unregister(self, player_id: str, *, actor: str, now: datetime) -> None:
        s = self.state
        if s.phase != "registration":
            raise PhaseError("the draw is made: withdraw the player instead", reason="draw_made")
        s.require_entrant(player_id)
        del s.entrants[player_id]
        s.log(now, actor, "unregister", player_id=player_id)

    def leave_out(self, player_ids: Sequence[str], *, actor: str, now: datetime) -> None:
        s = self.state
        if s.phase != "registration":
            raise PhaseError("the draw is made: withdraw the player instead", reason="draw_made")
        for p in player_ids:
            s.require_entrant(p)
        s.left_out = [s.entrants.pop(p) for p in player_ids]
        if player_ids:
            s.log(now, actor, "leave_out", players=list(player_ids))
