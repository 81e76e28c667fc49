"""The state the parts share (mesa.tournament.state): lookups, the audit, and the report of
what an action changed."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from mesa.tournament.errors import UnknownMatchError, UnknownPlayerError
from mesa.tournament.group_stage import GroupStage
from mesa.tournament.knockout_stage import KnockoutStage
from mesa.tournament.matches import Result
from mesa.tournament.records import Entrant, Outcome
from mesa.tournament.state import TournamentState

NOW = datetime(2014, 1, 31, 19, 30)


def drawn(*players: str) -> TournamentState:
    s = TournamentState("T", "Enero", date(2014, 1, 31))
    s.entrants = {p: Entrant(p, p.title(), NOW) for p in players}
    ranking = {p: 10 * (len(players) - i) for i, p in enumerate(players)}  # in the given order
    GroupStage(s).draw(ranking=ranking, seed=1, now=NOW, actor="director", n_groups=None,
                       start_at=None)
    return s


def test_lookups() -> None:
    s = drawn("ANA", "BEA", "EVA")
    assert s.name_of("ANA") == "Ana" and s.name_of("ZOE") == "ZOE"
    assert s.group_of("BEA") == 1 and s.group_of("ZOE") is None
    assert [m.id for m in s.group_matches(1)] == ["G1-1", "G1-2", "G1-3"]
    assert [m.id for m in s.matches_in("group")] == ["G1-1", "G1-2", "G1-3"]
    assert len(s.ready_matches()) == 3 and s.matches_in("knockout") == []
    assert s.seeding_rank() == {"ANA": 1, "BEA": 2, "EVA": 3}
    with pytest.raises(UnknownMatchError):
        s.match("G9-9")
    with pytest.raises(UnknownPlayerError):
        s.require_entrant("ZOE")


def test_the_audit_numbers_its_entries() -> None:
    s = TournamentState("T", "Enero", date(2014, 1, 31))
    first = s.log(NOW, "director", "a", x=1)
    second = s.log(NOW, "joselo", "b")
    assert (first.seq, second.seq, second.actor) == (1, 2, "joselo")
    assert s.audit == [first, second] and first.details == {"x": 1}


def test_finish_reports_what_changed_once() -> None:
    s = drawn("ANA", "BEA")
    s.begin()
    m = s.match("G1-1")
    s.mark(m)
    s.mark(m)  # only the state before the action's first touch counts
    s.set_result(m, Result("ANA", "BEA", 3, 1, False, "table", "T1", NOW))
    out = s.finish(Outcome("result"))
    assert out.changed == ["G1-1"] and out.ready == [] and out.groups_completed == [1]
    assert s.before == {}
    assert s.finish(Outcome("nothing")).changed == []


def test_a_created_match_counts_as_changed_and_ready() -> None:
    s = TournamentState("T", "Enero", date(2014, 1, 31))
    s.entrants = {p: Entrant(p, p, NOW) for p in ("ANA", "BEA")}
    GroupStage(s).draw(ranking={}, seed=1, now=NOW, actor="director", n_groups=None,
                       start_at=None)
    out = s.finish(Outcome("start_groups"))
    assert out.changed == ["G1-1"] and out.ready == ["G1-1"]


def test_a_result_forgets_only_its_group_standings() -> None:
    s = drawn("A1", "A2", "A3", "B1", "B2", "B3")
    groups = GroupStage(s)
    groups.all_standings()
    assert set(s.standings_cache) == {1, 2}
    m = s.group_matches(2)[0]
    assert m.a is not None and m.b is not None
    s.set_result(m, Result(m.a, m.b, 3, 0, False, "table", "T1", NOW))
    assert set(s.standings_cache) == {1}


def test_feeding_indexes_the_bracket_once() -> None:
    s = drawn("ANA", "BEA", "EVA")
    for m in list(s.matches.values()):
        assert m.a is not None and m.b is not None
        s.set_result(m, Result(m.a, m.b, 3, 1, False, "table", "T1", NOW))
    KnockoutStage(s, GroupStage(s)).draw(NOW, "auto")
    feeds = s.feeding()
    assert feeds == {"KO-PI-1": ["KO-F-1"]} and s.feeding() is feeds
