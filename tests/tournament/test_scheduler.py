"""Table assignment (HGV 2.3.1 scheduled start, 2.3.4 playing early, 7.4.7 other tables)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from mesa.tournament.matches import ClockPreset, Match, Result
from mesa.tournament.records import Entrant
from mesa.tournament.scheduler import plan_assignments, plan_evening
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.tournament import Tournament

T0 = datetime(2014, 1, 31, 20, 0)


def gm(mid: str, a: str, b: str, group: int, rnd: int, **kw) -> Match:
    return Match(mid, "group", str(rnd), rnd, int(mid.split("-")[1]), 3,
                 ClockPreset.for_length(3), a, b, group=group,
                 planned_start=T0 + timedelta(minutes=30 * (rnd - 1)), **kw)


def test_busy_players_wait() -> None:
    ms = [gm("G1-1", "B", "C", 1, 1), gm("G1-2", "A", "B", 1, 2), gm("G1-3", "C", "A", 1, 3)]
    plan = plan_assignments(ms, ["T1", "T2", "T3"], T0)
    assert [a.match_id for a in plan] == ["G1-1"]


def test_one_table_per_match_and_calendar_order() -> None:
    ms = [gm("G2-1", "E", "F", 2, 1), gm("G1-1", "B", "C", 1, 1), gm("G3-1", "H", "I", 3, 1)]
    plan = plan_assignments(ms, ["T1", "T2"], T0)
    assert [(a.match_id, a.table) for a in plan] == [("G1-1", "T1"), ("G2-1", "T2")]


def test_early_play_keeps_the_calendar_time() -> None:
    ms = [gm("G1-2", "A", "B", 1, 2)]
    [a] = plan_assignments(ms, ["T1"], T0)
    assert a.early and a.scheduled_start == T0 + timedelta(minutes=30)
    assert plan_assignments(ms, ["T1"], T0, play_early=False) == []


def test_late_assignment_starts_lateness_at_assignment() -> None:
    ms = [gm("G1-1", "B", "C", 1, 1)]
    later = T0 + timedelta(minutes=45)
    [a] = plan_assignments(ms, ["T1"], later)
    assert a.scheduled_start == later and not a.early


def test_tables_in_use_are_not_free() -> None:
    busy = gm("G1-1", "B", "C", 1, 1, table="T1")
    ms = [busy, gm("G2-1", "E", "F", 2, 1)]
    assert [(a.match_id, a.table) for a in plan_assignments(ms, ["T1", "T2"], T0)] == [
        ("G2-1", "T2")]


def test_group_keeps_its_table() -> None:
    ms = [gm("G1-1", "B", "C", 1, 1, result=Result("B", "C", 3, 0, False, "table", "t", T0)),
          gm("G1-2", "A", "B", 1, 2), gm("G2-1", "E", "F", 2, 1)]
    plan = plan_assignments(ms, ["T1", "T2", "T3"], T0, home_tables={1: "T3", 2: "T1"})
    assert {a.match_id: a.table for a in plan} == {"G1-2": "T3", "G2-1": "T1"}


def test_final_waits_for_a_feature_table() -> None:
    final = Match("KO-F-1", "knockout", "F", 5, 1, 7, ClockPreset(840, 10, True), "X", "Y")
    qf = Match("KO-QF-1", "knockout", "QF", 3, 1, 5, ClockPreset.for_length(5), "P", "Q")
    kw = {"feature_tables": ["T9"], "needs_feature_table": frozenset({"KO-F-1"})}
    assert [(a.match_id, a.table) for a in plan_assignments([final, qf], ["T1"], T0, **kw)] == [
        ("KO-QF-1", "T1")]
    assert [(a.match_id, a.table) for a in plan_assignments(
        [final, qf], ["T1", "T9"], T0, **kw)] == [("KO-QF-1", "T1"), ("KO-F-1", "T9")]
    assert plan_assignments([final], ["T1", "T9"], T0, **kw)[0].to_dict()["clock"] == {
        "reserve_s": 840, "delay_s": 10, "mandatory": True}


# ── several events on shared tables (RULES §4) ────────────────────────────


def _event(tid: str, names: list[str], **settings: Any) -> Tournament:
    t = Tournament(tid, tid, date(2026, 12, 4), settings=TournamentSettings(**settings))
    now = datetime(2026, 12, 4, 20, 0)
    t.entrants = {p: Entrant(p, p, now) for p in names}
    t.start_groups(ranking={}, seed=1, now=now)
    return t


def test_plan_evening_shares_tables_and_never_seats_a_player_twice() -> None:
    now = datetime(2026, 12, 4, 20, 0)
    open_ = _event("open", ["ANA", "BEA", "EVA", "IVO"])
    novatos = _event("novatos", ["ANA", "LUZ", "MAR", "NOE"])  # ANA plays in both
    plan = plan_evening([open_, novatos], ["T1", "T2", "T3", "T4"], now,
                        busy_elsewhere={"NOE"})
    seated = [p for plans in plan.values() for a in plans for p in (a.a, a.b)]
    assert len(seated) == len(set(seated)), "a player at two tables"
    assert "NOE" not in seated
    tables = [a.table for plans in plan.values() for a in plans]
    assert len(tables) == len(set(tables))
    assert plan["open"] and plan["novatos"], "both events get tables"


def test_plan_evening_keeps_reserved_tables_for_their_event() -> None:
    now = datetime(2026, 12, 4, 20, 0)
    open_ = _event("open", ["ANA", "BEA", "EVA", "IVO"], reserved_tables=("T1",))
    novatos = _event("novatos", ["LUZ", "MAR", "NOE", "OLI"])
    plan = plan_evening([novatos, open_], ["T1", "T2"], now)
    assert {a.table for a in plan["novatos"]} <= {"T2"}
    assert [a.table for a in plan["open"]][:1] == ["T1"]


def test_give_tables_checks_the_plan_again() -> None:
    now = datetime(2026, 12, 4, 20, 0)
    t = _event("open", ["ANA", "BEA", "EVA", "IVO"])
    plan = plan_evening([t], ["T1", "T2"], now)["open"]
    assert t.give_tables(plan, now=now) == plan
    assert t.give_tables(plan, now=now) == []  # given already: nothing twice


def test_a_reserved_table_is_taken_before_a_shared_one_another_event_needs() -> None:
    """Novatos reserve tables 1 and 2; table 2 was their group's table. With 2 and 7 free, their
    semifinal takes its own table 2, and the open event's ready match gets table 7."""
    from mesa.tournament.scheduler import EventAsk

    def match(mid: str, phase: Any, a: str, b: str) -> Match:
        return Match(mid, phase, "1", 1, 1, 3, ClockPreset.for_length(3), a, b, planned_start=T0)

    class Ask:
        def __init__(self, ask: EventAsk) -> None:
            self.ask = ask

        def table_ask(self) -> EventAsk:
            return self.ask

    nov = EventAsk("nov", [match("KO-SF-1", "knockout", "N3", "N4")], home_tables={1: "2"},
                   reserved_tables=("1", "2"))  # fmt: skip
    opn = EventAsk("open", [match("UC-R1-1", "consolation", "A", "B")])
    plan = plan_evening([Ask(nov), Ask(opn)], ["2", "7"], T0)
    assert {k: [(a.match_id, a.table) for a in v] for k, v in plan.items()} == {
        "nov": [("KO-SF-1", "2")], "open": [("UC-R1-1", "7")]}
