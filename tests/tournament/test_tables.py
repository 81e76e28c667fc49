"""Matches on tables (mesa.tournament.tables), through the Tournament facade.

Moved from test_tournament.py.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from mesa.tournament.errors import (
    InvalidResultError,
    MatchNotReadyError,
    PhaseError,
    TableError,
    TournamentError,
)
from mesa.tournament.matches import ClockPreset
from mesa.tournament.settings import TournamentSettings

# -- tables --------------------------------------------------------------------------------------


class TestTables:
    def test_assign_start_move_and_free(self, h, clock) -> None:
        t, _ = h.build(9)
        now = clock()
        plan = t.assign_tables(["T1", "T2"], now=now)
        assert [(a.match_id, a.table) for a in plan] == [("G1-1", "T1"), ("G2-1", "T2")]
        # Assigned a minute after its calendar time: lateness counts from the assignment.
        assert plan[0].scheduled_start == now == t.match("G1-1").scheduled_start
        assert t.match("G1-1").status == "assigned"
        assert t.assign_tables(["T1", "T2"], now=clock()) == []
        t.match_started("G1-1", now=clock())
        with pytest.raises(MatchNotReadyError):
            t.match_started("G1-1", now=clock())
        with pytest.raises(TableError):
            t.move_match("G1-1", "T2", now=clock())
        moved = t.move_match("G1-1", "T3", actor="joselo", now=clock())
        assert moved.table == "T3" and t.audit[-1].action == "move_match"
        # A move to where it already is changes nothing, and says so.
        with pytest.raises(TableError, match="already at table T3") as same:
            t.move_match("G1-1", "T3", now=clock())
        assert same.value.reason == "move_same_table" and t.audit[-1].action == "move_match"
        with pytest.raises(TableError):
            t.move_match("G3-1", "T1", now=clock())
        t.record_result("G1-1", 3, 2, now=clock())
        plan = t.assign_tables(["T1", "T2", "T3"], now=clock())
        # group 1 goes back to its table; group 3 takes a free one; G1-2 waits for nobody.
        assert {a.match_id: a.table for a in plan} == {"G1-2": "T3", "G3-1": "T1"}
        assert plan[0].early is False

    def test_director_assigns_a_chosen_match(self, h, clock) -> None:
        t, _ = h.build(3)
        a = t.assign_match("G1-1", "T7", actor="joselo", now=clock())
        assert (a.table, t.match("G1-1").status, t.audit[-1].actor) == ("T7", "assigned",
                                                                        "joselo")
        with pytest.raises(MatchNotReadyError):
            t.assign_match("G1-1", "T8", now=clock())
        with pytest.raises(TableError, match="busy with G1-1"):
            t.assign_match("G1-3", "T7", now=clock())
        with pytest.raises(TableError, match="still playing"):
            t.assign_match("G1-2", "T8", now=clock())  # P0002 is at T7

    def test_early_play_keeps_the_calendar_time(self, h) -> None:
        t, _ = h.build(3)
        t.record_result("G1-1", 3, 0, now=h.NOW + timedelta(minutes=10))
        [a] = t.assign_tables(["T1"], now=h.NOW + timedelta(minutes=11))
        assert a.match_id == "G1-2" and a.early
        assert a.scheduled_start == h.NOW + timedelta(minutes=30)

    def test_unassign_and_formats(self, h, clock) -> None:
        t, _ = h.build(3)
        t.assign_tables(["T1"], now=clock())
        t.unassign("G1-1", now=clock())
        assert t.match("G1-1").status == "ready"
        with pytest.raises(TableError):
            t.unassign("G1-1", now=clock())
        m = t.set_match_format("G1-1", length=5, clock=ClockPreset(600, 12, True), now=clock())
        assert (m.length, m.clock.delay_s) == (5, 12)
        with pytest.raises(InvalidResultError):
            t.record_result("G1-1", 3, 0, now=clock())
        t.match_started("G1-1", now=clock())
        with pytest.raises(PhaseError):
            t.set_match_format("G1-1", length=3, now=clock())
        # Played, its clock may still be imposed (the table starts it with the next game).
        m = t.set_match_format("G1-1", clock=ClockPreset(600, 10, True), now=clock())
        assert (m.length, m.clock) == (5, ClockPreset(600, 10, True))
        t.record_result("G1-1", 5, 0, now=clock())
        with pytest.raises(PhaseError):
            t.set_match_format("G1-1", clock=ClockPreset(600, 10, True), now=clock())

    def test_final_on_a_feature_table(self, h, clock) -> None:
        t, _ = h.build(2, settings=TournamentSettings(feature_tables=("MESA 1",)))
        t.record_result("G1-1", 3, 0, now=clock())
        assert t.assign_tables(["T2"], now=clock()) == []
        assert [a.table for a in t.assign_tables(["T2", "MESA 1"], now=clock())] == ["MESA 1"]


class TestReservedTables:
    def test_reserve_and_free_with_an_audit_line(self, h, clock) -> None:
        t, _ = h.build(9)
        assert t.reserve_tables([" 4", "5", "4", ""], now=clock()) == ("4", "5")
        assert t.settings.reserved_tables == ("4", "5")
        assert t.audit[-1].action == "reserve_tables"
        assert t.reserve_tables([], now=clock()) == ()

    def test_a_bad_table_id_is_refused_and_changes_nothing(self, h, clock) -> None:
        t, _ = h.build(9)
        with pytest.raises(TournamentError) as err:
            t.reserve_tables(["4", "<script>"], now=clock())
        assert err.value.reason == "table_id"
        assert t.settings.reserved_tables == ()
