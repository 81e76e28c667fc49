"""Results, forfeits and withdrawals (mesa.tournament.results), through the Tournament facade.

Moved from test_tournament.py.
"""

from __future__ import annotations

import random

import pytest

from mesa.tournament.errors import (
    AlreadyDecidedError,
    InvalidResultError,
    MatchNotReadyError,
    PhaseError,
    TournamentError,
    UnknownMatchError,
)
from mesa.tournament.matches import ClockPreset

# -- results -------------------------------------------------------------------------------------


class TestResults:
    def test_a_result_updates_everything_at_once(self, h, clock) -> None:
        t, _ = h.build(6)
        for m in t.group_matches(1) + t.group_matches(2)[:2]:
            t.record_result(m.id, 3, 1, now=clock())
        assert t.knockout is None and t.standings(1).complete
        last = t.group_matches(2)[2]
        out = t.record_result(last.id, 0, 3, now=clock())
        assert out.draw_made and out.groups_completed == [2]
        assert t.phase == "knockout" and len(t.knockout.players) == 6
        assert set(out.ready) == {"KO-PI-1", "KO-PI-2"}
        assert t.points()[last.b].wins_group == t.standings(2).row(last.b).wins

    def test_next_round_fills_as_results_arrive(self, h, clock) -> None:
        t, _ = h.build(6)
        h.play_groups(t)
        sf = t.match("KO-SF-1")
        assert sf.a == t.knockout.players[0] and sf.b is None and sf.status == "waiting"
        pi = t.match(sf.sources[1].ref)
        out = t.record_result(pi.id, 4, 6, now=clock())
        assert sf.b == pi.b and sf.status == "ready" and "KO-SF-1" in out.ready

    def test_bad_results_change_nothing(self, h, clock) -> None:
        t, _ = h.build(6)
        t.record_result("G1-1", 3, 0, now=clock())
        before = t.to_dict()
        with pytest.raises(UnknownMatchError):
            t.record_result("G9-9", 3, 0, now=clock())
        with pytest.raises(AlreadyDecidedError):
            t.record_result("G1-1", 3, 1, now=clock())
        with pytest.raises(InvalidResultError):
            t.record_result("G1-2", 2, 2, now=clock())
        with pytest.raises(InvalidResultError):
            t.record_result("G1-2", 4, 3, now=clock())
        with pytest.raises(InvalidResultError):
            t.record_result("G1-2", -3, 1, now=clock())
        h.play_groups(t)
        before = t.to_dict()
        with pytest.raises(MatchNotReadyError):
            t.record_result("KO-F-1", 7, 0, now=clock())
        assert t.to_dict() == before

    def test_over_length_results_are_kept_in_full(self, h, clock) -> None:
        t, _ = h.build(3)
        t.record_result("G1-1", 4, 2, now=clock())
        assert t.standings(1).row(h.pid(2)).points_for == 4

    def test_knockout_formats(self, h) -> None:
        t, _ = h.build(30)
        h.play_groups(t)
        formats = {(m.round, m.length, m.clock) for m in t.matches_in("knockout")}
        five = ClockPreset(600, 10, False)
        seven = ClockPreset(840, 10, True)
        quarter = ClockPreset(600, 10, True)  # HGV 3.1: the clock is mandatory from here
        assert formats == {("PI", 5, five), ("R16", 5, five), ("QF", 5, quarter),
                           ("SF", 7, seven), ("F", 7, seven)}


# -- forfeits and withdrawals --------------------------------------------------------------------


class TestForfeits:
    def test_knockout_forfeit_hands_the_place_back_hgv_2_3_8(self, h, clock) -> None:
        t, _ = h.build(30)
        h.play_groups(t)
        for m in [m for m in t.matches_in("knockout") if m.round == "PI"]:
            t.record_result(m.id, 5, 2, now=clock())
        r16 = next(m for m in t.matches_in("knockout") if m.round == "R16"
                   and m.sources[1].kind == "winner")
        x = r16.b
        pi = t.match(r16.sources[1].ref)
        z = pi.result.loser
        out = t.record_result(r16.id, 5, 0, forfeit=True, now=clock())  # x forfeits
        assert out.substitution is not None and out.substitution.replaced_by == z
        assert (r16.a, r16.b, r16.status) == (r16.a, z, "ready")
        assert t.audit[-1].action == "knockout_forfeit"
        h.play(t, random.Random(4), consolation=False)
        pts = t.points()
        assert pts[x].knockout_forfeit and pts[x].place_points == 0
        assert pts[x].wins_knockout == 0 and [r.rule for r in pts[x].removed] == ["HGV 2.3.8"]
        assert pts[x].place == (17, 30)
        assert pts[z].place != (17, 30)
        assert h.band_counts(t)[8] == 13  # x holds a play-in loser's place without its points

    def test_first_match_forfeit_is_a_walkover(self, h, clock) -> None:
        t, _ = h.build(30)
        h.play_groups(t)
        seed1 = t.knockout.players[0]
        r16 = next(m for m in t.matches_in("knockout") if seed1 in m.players)
        for m in [m for m in t.matches_in("knockout") if m.round == "PI"]:
            t.record_result(m.id, 5, 2, now=clock())
        opponent = r16.b
        out = t.record_result(r16.id, 0, 5, forfeit=True, now=clock())
        assert out.substitution is None and r16.result.winner == opponent
        h.play(t, random.Random(4), consolation=False)
        pts = t.points()
        assert pts[seed1].place == (9, 16) and pts[seed1].place_points == 0
        assert pts[opponent].wins_knockout >= 1

    def test_leaving_mid_tournament_hgv_2_3_5(self, h, clock) -> None:
        t, _ = h.build(3)
        s1, s2, s3 = h.pid(1), h.pid(2), h.pid(3)
        t.record_result("G1-1", 1, 3, now=clock())  # s3 beats s2
        t.match_started("G1-2", now=clock())
        out = t.withdraw(s3, "left", now=clock(), note="se fue")
        assert out.auto_forfeits == ["G1-3"]
        g13 = t.match("G1-3").result
        assert g13.forfeit and g13.winner == s1 and g13.source == "auto"
        assert t.sanctions[0].rule == "HGV 2.3.5" and t.sanctions[0].player_id == s3
        # s3 won one match and lost the rest by forfeit: all removed (HGV 2.3.3).
        t.record_result("G1-2", 3, 0, now=clock())
        st = t.standings(1)
        assert st.voided == (s3,) and st.qualifiers == [s1, s2]
        pts = t.points()
        assert pts[s3].wins == 0 and [r.rule for r in pts[s3].removed] == ["HGV 2.3.3"]
        assert pts[s1].wins_group == 1 and pts[s3].participation == 10

    def test_leaving_loses_the_match_being_played(self, h, clock) -> None:
        t, _ = h.build(3)
        t.match_started("G1-1", now=clock())
        out = t.withdraw(h.pid(2), "left", now=clock())
        assert set(out.auto_forfeits) == {"G1-1", "G1-2"}
        assert t.match("G1-1").result.winner == h.pid(3)

    def test_no_show_hgv_2_3_6(self, h, clock) -> None:
        t, _ = h.build(6)
        t.withdraw(h.pid(6), "no_show", now=clock())
        h.play(t, random.Random(2), consolation=False)
        pts = t.points()[h.pid(6)]
        assert pts.participation == 0 and pts.wins == 0 and pts.place_points == 0
        assert t.sanctions[0].rule == "HGV 2.3.6"
        with pytest.raises(TournamentError):
            t.withdraw(h.pid(6), "left", now=clock())

    def test_a_no_show_left_out_of_the_draw_is_sanctioned_hgv_2_3_6(self, h, clock) -> None:
        """Left out as absent, the player had confirmed: the sanction (the ban on the next
        tournament) applies, though there is no match to lose; leaving does not apply."""
        t, _ = h.build(7, start=False)
        gone = h.pid(7)
        t.leave_out([gone], now=h.NOW)
        t.start_groups(ranking={}, seed=7, now=h.NOW)
        with pytest.raises(TournamentError) as e:
            t.withdraw(gone, "left", now=clock())
        assert e.value.reason == "left_out_no_show"
        out = t.withdraw(gone, "no_show", now=clock())
        assert out.auto_forfeits == [] and t.withdrawals[gone].kind == "no_show"
        assert [(s.player_id, s.rule) for s in t.sanctions] == [(gone, "HGV 2.3.6")]
        assert t.name_of(gone) == "J07" and gone not in t.points()
        with pytest.raises(TournamentError):
            t.withdraw("nobody", "no_show", now=clock())

    def test_withdraw_needs_a_running_tournament(self, h) -> None:
        t, _ = h.build(3, start=False)
        with pytest.raises(PhaseError):
            t.withdraw(h.pid(1), "left", now=h.NOW)
