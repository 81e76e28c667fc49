"""The knockout stage (mesa.tournament.knockout_stage): each bracket match's format, the slots
and what feeds them, the champion, and the HGV 2.3.8 replacement."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from mesa.tournament.group_stage import GroupStage
from mesa.tournament.knockout import QualifiedSeed, plan_bracket
from mesa.tournament.knockout_stage import KnockoutStage, bracket_match
from mesa.tournament.matches import Phase, Result
from mesa.tournament.records import BracketState, Entrant
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.state import TournamentState

NOW = datetime(2014, 1, 31, 19, 30)


@pytest.mark.parametrize(("spec_id", "phase", "length", "reserve", "mandatory"), [
    ("KO-PI-1", "knockout", 5, 600, False),     # a play-in is never a final round
    ("KO-QF-1", "knockout", 5, 600, True),      # HGV 3.1: the clock from the quarterfinals
    ("KO-SF-1", "knockout", 7, 840, True),      # semifinal and final: their own clock
    ("KO-F-1", "knockout", 7, 840, True),
    ("KO-F-1", "consolation", 3, 360, False),   # Último Chance keeps its own length
])
def test_bracket_match_formats(spec_id: str, phase: Phase, length: int, reserve: int,
                               mandatory: bool) -> None:
    spec = next(s for s in plan_bracket(9, "KO").matches if s.id == spec_id)
    m = bracket_match(TournamentSettings(), spec, phase)
    assert (m.id, m.phase, m.length) == (spec_id, phase, length)
    assert (m.clock.reserve_s, m.clock.mandatory) == (reserve, mandatory)
    assert m.sources == spec.sources and m.a is None and m.b is None


def test_the_mandatory_clock_and_the_final_rounds_are_separate_settings() -> None:
    """clock_from moves the mandatory clock alone; final_rounds_from the 7-point rounds."""
    plan = {x.id: x for x in plan_bracket(16, "KO").matches}
    r16, qf, sf = plan["KO-R16-1"], plan["KO-QF-1"], plan["KO-SF-1"]
    wide = TournamentSettings(clock_from=16)
    assert bracket_match(wide, r16, "knockout").clock.mandatory
    assert bracket_match(wide, r16, "knockout").length == 5
    assert not bracket_match(TournamentSettings(), r16, "knockout").clock.mandatory
    narrow = TournamentSettings(clock_from=4)  # RULES before HGV 3.1: the semifinal on
    assert not bracket_match(narrow, qf, "knockout").clock.mandatory
    m = bracket_match(narrow, sf, "knockout")
    assert (m.length, m.clock.reserve_s, m.clock.mandatory) == (7, 840, True)
    custom = TournamentSettings(reserve_per_point_s=90, delay_s=12)
    assert bracket_match(custom, qf, "knockout").clock.to_dict() == {
        "reserve_s": 450, "delay_s": 12, "mandatory": True}


def stage(n: int) -> tuple[TournamentState, KnockoutStage]:
    s = TournamentState("T", "Enero", date(2014, 1, 31))
    players = [f"P{i}" for i in range(1, n + 1)]
    s.entrants = {p: Entrant(p, p, NOW) for p in players}
    groups = GroupStage(s)
    groups.draw(ranking={p: 100 - i for i, p in enumerate(players)}, seed=1, now=NOW,
                actor="director", n_groups=None, start_at=None)
    for m in list(s.matches.values()):   # the first-named wins every group match
        assert m.a is not None and m.b is not None
        s.set_result(m, Result(m.a, m.b, 3, 0, False, "table", "T1", NOW))
    ko = KnockoutStage(s, groups)
    ko.draw(NOW, "auto")
    return s, ko


def win(s: TournamentState, match_id: str, forfeit: bool = False) -> None:
    m = s.match(match_id)
    assert m.a is not None and m.b is not None
    s.set_result(m, Result(m.a, m.b, 5, 0, forfeit, "table", "T1", NOW))


def test_the_draw_seeds_the_bracket_and_the_slots_follow() -> None:
    s, ko = stage(3)
    assert s.phase == "knockout" and s.knockout is not None
    assert s.knockout.match_ids == ["KO-PI-1", "KO-F-1"] and s.audit[-1].action == "draw_knockout"
    assert ko.preview_players() == s.knockout.players
    ko.derive(s.knockout)
    pi, final = s.match("KO-PI-1"), s.match("KO-F-1")
    assert final.b is None and pi.a is not None
    assert ko.dependents(["KO-PI-1"]) == ["KO-PI-1", "KO-F-1"]
    win(s, "KO-PI-1")
    ko.derive(s.knockout, ko.dependents(["KO-PI-1"]))
    assert final.b == pi.a and ko.champion() is None
    win(s, "KO-F-1")
    assert ko.champion() == final.a


def test_a_lone_qualifier_is_champion_without_a_match() -> None:
    s = TournamentState("T", "Enero", date(2014, 1, 31))
    s.knockout = BracketState("knockout", [QualifiedSeed(1, "P1", 1, 1)], [], 1, [])
    assert KnockoutStage(s, GroupStage(s)).champion() == "P1"


def test_hgv_2_3_8_the_last_eliminated_takes_the_place() -> None:
    s, ko = stage(3)
    ko.derive(s.knockout)
    win(s, "KO-PI-1")                      # the play-in's winner x eliminated z
    ko.derive(s.knockout)
    final = s.match("KO-F-1")
    pi = s.match("KO-PI-1")
    assert pi.result is not None
    x, z = pi.result.winner, pi.result.loser
    kf = ko.forfeit(final, x, NOW, "director")
    assert kf is not None and (kf.player_id, kf.replaced_by) == (x, z)
    assert s.substitutions == {"KO-F-1": {"1": {"out": x, "in": z}}}
    ko.derive(s.knockout)
    assert final.b == z and final.table is None
    assert ko.forfeiters() == {x}
    # The first-seeded player eliminated nobody: nobody can take their place.
    assert ko.forfeit(final, final.a or "", NOW, "director") is None
