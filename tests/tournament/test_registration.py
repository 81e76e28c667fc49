"""Registration and the door (mesa.tournament.registration), through the Tournament facade.

Moved from test_tournament.py.
"""

from __future__ import annotations

from datetime import date

import pytest

from mesa.tournament.errors import (
    CategoryError,
    DuplicatePlayerError,
    NotEnoughPlayersError,
    PhaseError,
    SanctionedError,
    UnknownPlayerError,
)
from mesa.tournament.players import PlayerRegistry, Sanction
from mesa.tournament.registration import Registration
from mesa.tournament.state import TournamentState
from mesa.tournament.tournament import Tournament

# -- registration --------------------------------------------------------------------------------


class TestRegistration:
    def test_unknown_and_duplicate(self, h) -> None:
        t, reg = h.build(3, start=False)
        with pytest.raises(UnknownPlayerError):
            t.register(reg, "P0099", now=h.NOW)
        with pytest.raises(DuplicatePlayerError):
            t.register(reg, "P0001", now=h.NOW)
        assert list(t.entrants) == [h.pid(1), h.pid(2), h.pid(3)]

    def test_sanction_refused_unless_overridden(self, h) -> None:
        reg = PlayerRegistry()
        reg.add_new("ALEX")
        reg.add_sanction(Sanction("T0:P0001:left", "P0001", "left", "T0", date(2013, 12, 20)))
        t = Tournament("T1", "Enero", h.DAY)
        with pytest.raises(SanctionedError, match=r"HGV 2\.3\.5"):
            t.register(reg, "P0001", now=h.NOW)
        assert t.entrants == {} and t.audit == []
        e = t.register(reg, "P0001", override=True, actor="joselo", now=h.NOW)
        assert e.override
        entry = t.audit[-1]
        assert (entry.actor, entry.action, entry.details["override"]) == (
            "joselo", "register", True)
        assert entry.details["sanctions"] == ["T0:P0001:left"]

    def test_category_and_membership(self, h) -> None:
        reg = PlayerRegistry()
        reg.add_new("NOVATO", category="novatos")
        reg.add_new("GUEST", member=False)
        open_t = Tournament("T1", "Enero", h.DAY)
        with pytest.raises(CategoryError):
            open_t.register(reg, "P0001", now=h.NOW)
        with pytest.raises(CategoryError, match=r"HGV 1\.4"):
            open_t.register(reg, "P0002", now=h.NOW)
        friendly = Tournament("V1", "Verano", h.DAY, official=False)
        friendly.register(reg, "P0002", now=h.NOW)  # guests may play friendlies
        novatos = Tournament("N1", "Novatos", h.DAY, category="novatos")
        novatos.register(reg, "P0001", now=h.NOW)

    def test_no_registration_after_the_draw(self, h) -> None:
        t, reg = h.build(3)
        reg.add_new("LATE")
        with pytest.raises(PhaseError):
            t.register(reg, "P0004", now=h.NOW)
        with pytest.raises(PhaseError):
            t.unregister("P0001", now=h.NOW)

    def test_unregister(self, h) -> None:
        t, _ = h.build(3, start=False)
        t.unregister("P0002", now=h.NOW)
        assert list(t.entrants) == [h.pid(1), h.pid(3)]

    def test_fewer_than_two_players(self, h) -> None:
        t, _ = h.build(1, start=False)
        before = t.to_dict()
        with pytest.raises(NotEnoughPlayersError):
            t.start_groups(ranking={}, seed=1, now=h.NOW)
        assert t.to_dict() == before


# -- the part itself -----------------------------------------------------------------------------


def test_an_override_records_every_problem_in_order(h) -> None:
    """Sanction, category and membership are all checked: the first refuses, an override
    records them all (and the sanctions it passed over)."""
    reg = PlayerRegistry()
    p = reg.add_new("GUEST", category="novatos")
    reg.update(p.id, member=False)
    reg.add_sanction(Sanction("old:P0001:left", p.id, "left", "old", h.DAY))
    state = TournamentState("T", "Enero", h.DAY)
    door = Registration(state)
    with pytest.raises(SanctionedError):
        door.register(reg, p.id, override=False, actor="director", now=h.NOW)
    assert state.entrants == {} and state.audit == []
    e = door.register(reg, p.id, override=True, actor="joselo", now=h.NOW)
    assert e.override and state.entrants == {p.id: e}
    assert state.audit[-1].details == {"player_id": p.id, "override": True,
                                       "overridden": ["sanctioned", "wrong_category",
                                                      "wrong_category"],
                                       "sanctions": ["old:P0001:left"]}


def test_the_absent_are_left_out_in_one_line(h) -> None:
    t, _ = h.build(4, start=False)
    state = TournamentState("T", "Enero", h.DAY, entrants=dict(t.entrants))
    door = Registration(state)
    door.leave_out([], actor="director", now=h.NOW)
    assert state.audit == []   # nothing to forget: nothing logged
    door.leave_out([h.pid(2), h.pid(4)], actor="director", now=h.NOW)
    assert list(state.entrants) == [h.pid(1), h.pid(3)]
    assert [e.player_id for e in state.left_out] == [h.pid(2), h.pid(4)]
    with pytest.raises(UnknownPlayerError):
        door.leave_out(["P0099"], actor="director", now=h.NOW)
