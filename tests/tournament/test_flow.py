"""What follows every change (mesa.tournament.flow): the draw once the groups end (not while
dice are pending), bracket slots, and withdrawn players' walkovers."""

from __future__ import annotations

from datetime import date, datetime

from mesa.tournament.flow import Flow
from mesa.tournament.group_stage import GroupStage
from mesa.tournament.knockout_stage import KnockoutStage
from mesa.tournament.matches import Result
from mesa.tournament.records import Entrant, Outcome, Withdrawal
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.state import TournamentState

NOW = datetime(2014, 1, 31, 19, 30)


def parts(players: tuple[str, ...], **settings: object) -> tuple[TournamentState, Flow]:
    s = TournamentState("T", "Enero", date(2014, 1, 31),
                        settings=TournamentSettings().with_changes(**settings))
    s.entrants = {p: Entrant(p, p, NOW) for p in players}
    groups = GroupStage(s)
    groups.draw(ranking={p: 10 * (len(players) - i) for i, p in enumerate(players)}, seed=1,
                now=NOW, actor="director", n_groups=None, start_at=None)
    return s, Flow(s, groups, KnockoutStage(s, groups))


def decide(s: TournamentState, match_id: str, white_wins: bool = True) -> None:
    m = s.match(match_id)
    assert m.a is not None and m.b is not None
    score = (3, 0) if white_wins else (0, 3)
    s.set_result(m, Result(m.a, m.b, *score, False, "table", "T1", NOW))


def test_nothing_to_follow_reports_nothing() -> None:
    s, flow = parts(("ANA", "BEA", "EVA"))
    s.begin()
    out = flow.follow(NOW, Outcome("noop"))
    assert (out.changed, out.draw_made, out.auto_forfeits, out.champion) == ([], False, [], None)


def test_the_draw_follows_the_last_group_result_and_fills_the_slots() -> None:
    s, flow = parts(("ANA", "BEA", "EVA"))
    for mid in ("G1-1", "G1-2"):
        decide(s, mid)
    assert not flow.follow(NOW, Outcome("r")).draw_made
    decide(s, "G1-3", white_wins=False)   # ANA beats EVA: ANA 2, BEA 1, EVA 0
    out = flow.follow(NOW, Outcome("r"))
    assert out.draw_made and s.phase == "knockout"
    assert (s.match("KO-PI-1").a, s.match("KO-PI-1").b) == ("BEA", "EVA")
    assert (s.match("KO-F-1").a, s.match("KO-F-1").b) == ("ANA", None)
    assert set(out.changed) == {"G1-3", "KO-PI-1", "KO-F-1"} and out.ready == ["KO-PI-1"]
    decide(s, "KO-PI-1")
    flow.follow(NOW, Outcome("r"), ["KO-PI-1"])  # only the slots it feeds
    assert s.match("KO-F-1").b == "BEA"


def test_no_draw_while_the_director_owes_dice() -> None:
    s, flow = parts(("ANA", "BEA", "EVA"), dice_by="director")
    decide(s, "G1-1")           # BEA beats EVA
    decide(s, "G1-2")           # ANA beats BEA
    decide(s, "G1-3")           # EVA beats ANA: a perfect cycle
    out = flow.follow(NOW, Outcome("r"))
    assert not out.draw_made and s.knockout is None and s.phase == "groups"


def test_a_withdrawn_player_loses_each_match_as_it_becomes_ready() -> None:
    s, flow = parts(("ANA", "BEA", "EVA"))
    s.withdrawals["EVA"] = Withdrawal("EVA", "left", NOW, "director")
    out = flow.follow(NOW, Outcome("withdraw"))
    assert sorted(out.auto_forfeits) == ["G1-1", "G1-3"]
    for mid in ("G1-1", "G1-3"):
        r = s.match(mid).result
        assert r is not None and r.forfeit and r.loser == "EVA" and r.source == "auto"
    assert [a.action for a in s.audit[-2:]] == ["forfeit", "forfeit"]
