"""The group stage (mesa.tournament.group_stage), through the Tournament facade: the draw, the
calendars, the dice, and taking the draw back.

Moved from test_tournament.py (groups, dice) and merged with test_undo_draw.py.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from mesa.tournament.club import Club
from mesa.tournament.errors import (
    DrawLockedError,
    PhaseError,
    TournamentError,
)
from mesa.tournament.matches import ClockPreset
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.tournament import Tournament

HGV_7_2_1 = [[1, 26, 27], [2, 25, 28], [3, 24, 29], [4, 23, 30], [5, 22, 31], [6, 21, 32],
             [7, 20, 33], [8, 19, 34], [9, 18, 35], [10, 17, 36], [11, 16, 37], [12, 15, 38],
             [13, 14, 39]]

# -- groups --------------------------------------------------------------------------------------


class TestGroups:
    def test_39_players_reproduce_the_hgv_table(self, h) -> None:
        t, _ = h.build(39)
        ranks = t.seeding_rank()
        assert [[ranks[p] for p in g] for g in t.groups] == HGV_7_2_1

    def test_seeding_ties_drawn_with_the_recorded_seed(self, h) -> None:
        t1, _ = h.build(12, ranking={0: 50}, seed="enero")
        t2, _ = h.build(12, ranking={0: 50}, seed="enero")
        t3, _ = h.build(12, ranking={0: 50}, seed="febrero")
        assert t1.seeding.order == t2.seeding.order != t3.seeding.order
        assert t1.seeding.order[0] == h.pid(1) and t1.audit[-1].details["seed"] == "enero"
        assert t1.audit[-1].details["ties"] == [sorted(t1.seeding.order[1:])]

    def test_calendar(self, h) -> None:
        t, _ = h.build(3)
        ms = t.group_matches(1)
        assert [(m.id, m.a, m.b) for m in ms] == [
            ("G1-1", h.pid(2), h.pid(3)), ("G1-2", h.pid(1), h.pid(2)), ("G1-3", h.pid(3), h.pid(1))]
        assert [m.planned_start - h.NOW for m in ms] == [timedelta(minutes=30 * i)
                                                          for i in range(3)]
        assert all(m.length == 3 and m.clock == ClockPreset(360, 10, False) for m in ms)

    def test_director_chooses_the_number_of_groups(self, h) -> None:
        t, _ = h.build(12, n_groups=3)
        assert [len(g) for g in t.groups] == [4, 4, 4]
        assert len(t.group_matches(1)) == 6


# -- dice ----------------------------------------------------------------------------------------


def cycle(h, t: Tournament, clock) -> None:
    """Group 1 of 3 ends in a perfect cycle: every criterion ties, the dice decide."""
    for m in t.group_matches(1):
        t.record_result(m.id, 3, 0, now=clock())


class TestDice:
    def test_hub_dice_are_recorded_and_reproducible(self, h, clock) -> None:
        orders = []
        for _ in range(2):
            t, _ = h.build(3, seed=11)
            cycle(h, t, clock)
            st = t.standings(1)
            assert st.dice and "dice" in [s.criterion for s in st.rows[0].steps]
            orders.append([r.player_id for r in st.rows])
            draw = next(a for a in t.audit if a.action == "draw_knockout")
            assert draw.details["dice"][0]["criterion"] == "dice"
            assert draw.details["dice_seed"] == 11
        assert orders[0] == orders[1]

    def test_director_dice(self, h, clock) -> None:
        t, _ = h.build(3, settings=TournamentSettings(dice_by="director"))
        cycle(h, t, clock)
        assert t.knockout is None
        assert t.pending_dice() == [(1, tuple(sorted(t.entrants)))]
        with pytest.raises(TournamentError):
            t.enter_dice(1, {h.pid(1): 4, h.pid(2): 4, h.pid(3): 4}, now=clock())
        with pytest.raises(TournamentError):
            t.enter_dice(1, {h.pid(1): 7, h.pid(2): 4, h.pid(3): 1}, now=clock())
        out = t.enter_dice(1, {h.pid(1): 2, h.pid(2): 5, h.pid(3): 3}, now=clock())
        assert out.draw_made
        assert [r.player_id for r in t.standings(1).rows] == [h.pid(2), h.pid(3), h.pid(1)]
        with pytest.raises(PhaseError):
            t.enter_dice(1, {h.pid(1): 6, h.pid(2): 5, h.pid(3): 3}, now=clock())


# -- taking the draw back (merged from test_undo_draw.py) -----------------------------------

NOW = datetime(2025, 3, 7, 20, 0)


def _club(n: int = 7) -> tuple[Club, Tournament]:
    club = Club()
    t = club.create_tournament("T1", "Marzo", date(2025, 3, 7))
    for i in range(n):
        club.register("T1", club.registry.add_new(f"P{i:02d}").id, now=NOW)
    club.start("T1", seed=11, now=NOW)
    return club, t


def test_a_redraw_with_the_same_seed_gives_the_same_groups_and_both_are_audited() -> None:
    club, t = _club()
    first = [list(g) for g in t.groups]
    club.redraw("T1", seed=11, now=NOW)
    assert t.groups == first and t.phase == "groups"
    club.redraw("T1", seed=12, now=NOW)
    undo = [a for a in t.audit if a.action == "undo_groups"]
    assert [a.details["seed"] for a in undo] == [11, 11]
    assert undo[0].details["why"] == "redraw" and undo[0].details["groups"] == first
    assert t.seed == 12


def test_the_draw_is_locked_once_a_match_started_or_has_a_result() -> None:
    _, t = _club()
    t.match_started("G1-1", now=NOW)
    with pytest.raises(DrawLockedError, match="G1-1"):
        t.undo_groups(now=NOW)
    assert t.phase == "groups" and "G1-1" in t.matches  # nothing changed
    club2, t2 = _club()
    t2.record_result("G2-1", 3, 0, now=NOW)
    with pytest.raises(DrawLockedError):
        club2.redraw("T1", seed=5, now=NOW)
    assert t2.seed == 11


def test_undo_hands_back_the_tables_and_refuses_outside_the_group_phase() -> None:
    club, t = _club(4)
    t.assign_match("G1-1", "3", now=NOW)
    assert t.undo_groups(now=NOW) == ["3"]
    assert t.phase == "registration" and not t.groups and t.seeding is None
    with pytest.raises(PhaseError):
        t.undo_groups(now=NOW)
    club.start("T1", seed=2, now=NOW)  # registration works again: the draw can be made anew
    assert Tournament.from_dict(t.to_dict()).groups == t.groups


def test_players_left_out_as_absent_come_back_when_the_draw_is_undone() -> None:
    club = Club()
    t = club.create_tournament("T1", "Marzo", date(2025, 3, 7))
    ids = [club.registry.add_new(f"P{i:02d}").id for i in range(5)]
    for pid in ids:
        club.register("T1", pid, now=NOW)
    t.leave_out([ids[4]], now=NOW)
    club.start("T1", seed=3, now=NOW)
    club.redraw("T1", seed=4, now=NOW)
    assert ids[4] not in t.entrants  # a redraw draws the same players
    t = Tournament.from_dict(t.to_dict())
    t.undo_groups(now=NOW)
    assert sorted(t.entrants) == sorted(ids) and t.left_out == []
    with pytest.raises(PhaseError):
        club.tournament("T1").leave_out([ids[0]], now=NOW)  # the draw is made there
