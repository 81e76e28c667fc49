"""Último Chance (mesa.tournament.consolation_stage), through the Tournament facade.

Moved from test_tournament.py.
"""

from __future__ import annotations

import random

import pytest

from mesa.tournament.errors import (
    DuplicatePlayerError,
    NotEnoughPlayersError,
    PhaseError,
    TournamentError,
)
from mesa.tournament.settings import TournamentSettings

# -- Último Chance -------------------------------------------------------------------------------


class TestConsolation:
    def test_entrants_and_finalists(self, h, clock) -> None:
        t, _ = h.build(30)
        h.play_groups(t)
        with pytest.raises(PhaseError):
            t.start_consolation(now=clock())  # first knockout matches not over
        pis = [m for m in t.matches_in("knockout") if m.round == "PI"]
        for m in pis:
            t.record_result(m.id, 5, 3, now=clock())
        losers = [m.b for m in pis]
        assert set(t.consolation_eligible()) == set(losers)
        with pytest.raises(TournamentError):
            t.start_consolation([losers[0], pis[0].a], now=clock())
        with pytest.raises(DuplicatePlayerError):
            t.start_consolation([losers[0], losers[0]], now=clock())
        with pytest.raises(NotEnoughPlayersError):
            t.start_consolation([losers[0]], now=clock())
        out = t.start_consolation(losers[:6], now=clock())
        assert "UC-R1-1" in out.ready and t.match("UC-R1-1").length == 3
        with pytest.raises(PhaseError):
            t.start_consolation(now=clock())
        t.leave_consolation(losers[5], now=clock())
        with pytest.raises(PhaseError):
            t.close(now=clock())
        h.play(t, random.Random(9))
        fin = t.consolation_finalists()
        assert len(fin) == 2 and losers[5] not in fin
        t.close(now=clock())
        assert t.phase == "closed"
        with pytest.raises(PhaseError):
            t.close(now=clock())

    def test_no_consolation_setting(self, h, clock) -> None:
        t, _ = h.build(6, settings=TournamentSettings(consolation=False))
        h.play_groups(t)
        with pytest.raises(PhaseError):
            t.start_consolation(now=clock())
