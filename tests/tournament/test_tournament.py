"""The tournament aggregate: registration to final list, results, forfeits, corrections."""

from __future__ import annotations

import json
import random
from collections import Counter
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.tournament.errors import (
    AlreadyDecidedError,
    CategoryError,
    ConflictError,
    DuplicatePlayerError,
    InvalidResultError,
    MatchNotReadyError,
    NotEnoughPlayersError,
    PhaseError,
    SanctionedError,
    TableError,
    TournamentError,
    UnknownMatchError,
    UnknownPlayerError,
)
from mesa.tournament.explain import group_place_lines, points_lines
from mesa.tournament.matches import ClockPreset
from mesa.tournament.players import PlayerRegistry, Sanction
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.tournament import Tournament

HGV_7_2_1 = [[1, 26, 27], [2, 25, 28], [3, 24, 29], [4, 23, 30], [5, 22, 31], [6, 21, 32],
             [7, 20, 33], [8, 19, 34], [9, 18, 35], [10, 17, 36], [11, 16, 37], [12, 15, 38],
             [13, 14, 39]]


def pid(i: int) -> str:
    return f"P{i:04d}"


def play_groups(h, t: Tournament, score=None) -> None:
    h.play(t, score=score or h.favourite_score, until=lambda t: t.knockout is not None)


# -- registration --------------------------------------------------------------------------------


class TestRegistration:
    def test_unknown_and_duplicate(self, h) -> None:
        t, reg = h.build(3, start=False)
        with pytest.raises(UnknownPlayerError):
            t.register(reg, "P0099", now=h.NOW)
        with pytest.raises(DuplicatePlayerError):
            t.register(reg, "P0001", now=h.NOW)
        assert list(t.entrants) == [pid(1), pid(2), pid(3)]

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
        assert list(t.entrants) == [pid(1), pid(3)]

    def test_fewer_than_two_players(self, h) -> None:
        t, _ = h.build(1, start=False)
        before = t.to_dict()
        with pytest.raises(NotEnoughPlayersError):
            t.start_groups(ranking={}, seed=1, now=h.NOW)
        assert t.to_dict() == before


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
        assert t1.seeding.order[0] == pid(1) and t1.audit[-1].details["seed"] == "enero"
        assert t1.audit[-1].details["ties"] == [sorted(t1.seeding.order[1:])]

    def test_calendar(self, h) -> None:
        t, _ = h.build(3)
        ms = t.group_matches(1)
        assert [(m.id, m.a, m.b) for m in ms] == [
            ("G1-1", pid(2), pid(3)), ("G1-2", pid(1), pid(2)), ("G1-3", pid(3), pid(1))]
        assert [m.planned_start - h.NOW for m in ms] == [timedelta(minutes=30 * i)
                                                          for i in range(3)]
        assert all(m.length == 3 and m.clock == ClockPreset(360, 10, False) for m in ms)

    def test_director_chooses_the_number_of_groups(self, h) -> None:
        t, _ = h.build(12, n_groups=3)
        assert [len(g) for g in t.groups] == [4, 4, 4]
        assert len(t.group_matches(1)) == 6


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
        play_groups(h, t)
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
        play_groups(h, t)
        before = t.to_dict()
        with pytest.raises(MatchNotReadyError):
            t.record_result("KO-F-1", 7, 0, now=clock())
        assert t.to_dict() == before

    def test_over_length_results_are_kept_in_full(self, h, clock) -> None:
        t, _ = h.build(3)
        t.record_result("G1-1", 4, 2, now=clock())
        assert t.standings(1).row(pid(2)).points_for == 4

    def test_knockout_formats(self, h) -> None:
        t, _ = h.build(30)
        play_groups(h, t)
        formats = {(m.round, m.length, m.clock) for m in t.matches_in("knockout")}
        five = ClockPreset(600, 10, False)
        seven = ClockPreset(840, 10, True)
        assert formats == {("PI", 5, five), ("R16", 5, five), ("QF", 5, five),
                           ("SF", 7, seven), ("F", 7, seven)}


# -- points and places ---------------------------------------------------------------------------


def band_counts(t: Tournament) -> Counter:
    return Counter(b.place_points for b in t.points().values())


def formula_total(t: Tournament) -> int:
    """HGV 7.5 summed over everyone: places + 0.10 each + 0.15 per UC finalist + 0.04 a win."""
    pts = t.points()
    scale = t.settings.points
    wins = sum(b.wins for b in pts.values())
    return (sum(b.place_points for b in pts.values())
            + sum(b.participation for b in pts.values())
            + scale.consolation_finalist * len(t.consolation_finalists())
            + scale.per_win * wins)


class TestPoints:
    def test_30_players_give_the_january_distribution(self, h) -> None:
        t, _ = h.build(30, names=h.SEED_NAMES)
        h.play(t, random.Random(2014))
        assert t.is_finished()
        assert band_counts(t) == {200: 1, 100: 1, 50: 2, 25: 4, 15: 8, 8: 14}
        finalists = t.consolation_finalists()
        assert len(finalists) == 2
        assert all(t.points()[p].consolation_finalist == 15 for p in finalists)
        assert sum(b.consolation_finalist for b in t.points().values()) == 30
        assert sum(r.total for r in t.final_list()) == formula_total(t)

    def test_the_seed_total_is_what_any_30_player_tournament_gives(self, h) -> None:
        # The seed's table sums to 13,18 = 7,32 places + 3,00 participation + 0,30 for the
        # two Último Chance finalists + 64 wins × 0,04, and 64 = 30 group matches + 29
        # knockout matches + 5 Último Chance matches (6 entrants). Any 30-player tournament
        # with a 6-player Último Chance and no forfeits adds up to the same 13,18.
        assert sum(h.SEED_POINTS) == 1318 == 732 + 300 + 30 + 4 * (30 + 29 + 5)
        for seed in range(3):
            t, _ = h.build(30, names=h.SEED_NAMES)
            h.play(t, random.Random(seed), consolation=False)
            entrants = t.consolation_eligible()[:6]
            t.start_consolation(entrants, now=h.NOW + timedelta(hours=3))
            h.play(t, random.Random(seed))
            assert sum(r.total for r in t.final_list()) == 1318

    def test_39_players_play_in_losers_get_no_place_points(self, h) -> None:
        t, _ = h.build(39)
        h.play(t, random.Random(1))
        assert band_counts(t) == {200: 1, 100: 1, 50: 2, 25: 4, 15: 8, 8: 16, 0: 7}
        pi_losers = [m.result.loser for m in t.matches_in("knockout") if m.round == "PI"]
        assert {t.points()[p].place for p in pi_losers} == {(33, 39)}

    def test_places_cover_every_player_once(self, h) -> None:
        t, _ = h.build(20)  # 6 groups (two of 4): 2 non-qualifiers
        h.play(t, random.Random(5))
        places = t.places()
        assert set(places) == set(t.entrants)
        counts = Counter((lo, hi) for lo, hi, _ in places.values())
        assert all(n == hi - lo + 1 for (lo, hi), n in counts.items())
        assert counts[(19, 20)] == 2
        assert all(t.points()[p].place_points == 0 for p, (lo, _, r) in places.items()
                   if r == "group")

    def test_final_list_orders_by_points(self, h) -> None:
        t, _ = h.build(12)
        h.play(t, random.Random(3))
        rows = t.final_list()
        assert [r.position for r in rows] == list(range(1, 13))
        assert [r.total for r in rows] == sorted((r.total for r in rows), reverse=True)
        assert rows[0].points.total >= 210

    def test_explanations(self, h) -> None:
        t, _ = h.build(30, names=h.SEED_NAMES)
        h.play(t, random.Random(2014))
        champ = t.champion
        es = "\n".join(points_lines(t, champ, "es"))
        en = "\n".join(points_lines(t, champ, "en"))
        assert "Puesto 1º (campeón): 2,00" in es and "Participación: 0,10" in es
        assert "Place 1st (champion): 2.00" in en
        total = t.points()[champ].total
        assert es.splitlines()[-1].strip() == f"Total: {total // 100},{total % 100:02d}"
        g = "\n".join(group_place_lines(t, champ, "es"))
        assert "grupo" in g and "Decidido por" in g
        with pytest.raises(UnknownPlayerError):
            points_lines(t, "P9999")


# -- forfeits and withdrawals --------------------------------------------------------------------


class TestForfeits:
    def test_knockout_forfeit_hands_the_place_back_hgv_2_3_8(self, h, clock) -> None:
        t, _ = h.build(30)
        play_groups(h, t)
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
        assert band_counts(t)[8] == 13  # x holds a play-in loser's place without its points

    def test_first_match_forfeit_is_a_walkover(self, h, clock) -> None:
        t, _ = h.build(30)
        play_groups(h, t)
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
        s1, s2, s3 = pid(1), pid(2), pid(3)
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
        out = t.withdraw(pid(2), "left", now=clock())
        assert set(out.auto_forfeits) == {"G1-1", "G1-2"}
        assert t.match("G1-1").result.winner == pid(3)

    def test_no_show_hgv_2_3_6(self, h, clock) -> None:
        t, _ = h.build(6)
        t.withdraw(pid(6), "no_show", now=clock())
        h.play(t, random.Random(2), consolation=False)
        pts = t.points()[pid(6)]
        assert pts.participation == 0 and pts.wins == 0 and pts.place_points == 0
        assert t.sanctions[0].rule == "HGV 2.3.6"
        with pytest.raises(TournamentError):
            t.withdraw(pid(6), "left", now=clock())

    def test_withdraw_needs_a_running_tournament(self, h) -> None:
        t, _ = h.build(3, start=False)
        with pytest.raises(PhaseError):
            t.withdraw(pid(1), "left", now=h.NOW)


# -- corrections ---------------------------------------------------------------------------------


class TestCorrections:
    def test_plain_correction_is_applied_and_audited(self, h, clock) -> None:
        t, _ = h.build(6)
        t.record_result("G1-1", 3, 1, now=clock())
        out = t.correct_result("G1-1", 1, 3, actor="joselo", now=clock(), reason="mal anotado")
        assert out.conflict is None and t.match("G1-1").result.winner == t.match("G1-1").b
        entry = t.audit[-1]
        assert (entry.action, entry.actor, entry.details["reason"]) == (
            "correct_result", "joselo", "mal anotado")
        assert entry.details["old"]["score_a"] == 3 and entry.details["new"]["score_a"] == 1
        assert t.match("G1-1").history[-1]["action"] == "correct"
        with pytest.raises(MatchNotReadyError):
            t.correct_result("G1-2", 3, 0, now=clock())

    def test_knockout_correction_before_the_next_match_starts(self, h, clock) -> None:
        t, _ = h.build(6)
        play_groups(h, t)
        sf = t.match("KO-SF-1")
        pi = t.match(sf.sources[1].ref)
        t.record_result(pi.id, 5, 1, now=clock())
        assert sf.b == pi.a
        out = t.correct_result(pi.id, 1, 5, now=clock())
        assert out.conflict is None and sf.b == pi.b and "KO-SF-1" in out.changed

    def test_correction_after_later_rounds_is_a_conflict(self, h, clock) -> None:
        t, _ = h.build(6)
        play_groups(h, t)
        sf = t.match("KO-SF-1")
        pi = t.match(sf.sources[1].ref)
        t.record_result(pi.id, 5, 1, now=clock())
        t.record_result(sf.id, 7, 3, now=clock())
        before = {k: v for k, v in t.to_dict().items() if k not in ("audit", "conflicts")}
        out = t.correct_result(pi.id, 1, 5, now=clock(), reason="firmaron al revés")
        c = out.conflict
        assert c is not None and c.kinds == ["downstream"] and c.affected == ["KO-SF-1"]
        after = {k: v for k, v in t.to_dict().items() if k not in ("audit", "conflicts")}
        assert after == before  # never silently rewritten
        assert t.open_conflicts() == [c] and t.audit[-1].action == "correction_conflict"
        t.resolve_conflict(c.id, "keep", now=clock())
        assert c.status == "kept" and pi.result.winner == pi.a
        with pytest.raises(ConflictError):
            t.resolve_conflict(c.id, "apply", now=clock())
        c2 = t.correct_result(pi.id, 1, 5, now=clock()).conflict
        with pytest.raises(ConflictError):
            t.resolve_conflict(c2.id, "apply_keep_draw", now=clock())
        t.resolve_conflict(c2.id, "apply", actor="joselo", now=clock())
        assert pi.result.winner == pi.b and sf.result is None and sf.b == pi.b
        assert [a["match_id"] for a in c2.annulled] == ["KO-SF-1"]
        assert sf.history[-1]["action"] == "annul"
        assert t.audit[-1].action == "resolve_conflict" and t.audit[-1].actor == "joselo"

    def _group_conflict(self, h, clock) -> tuple[Tournament, str]:
        t, _ = h.build(6)
        play_groups(h, t)
        t.record_result(t.match("KO-PI-1").id, 5, 0, now=clock())
        # G1-2: seed 1 beat seed 4 (first-named wins); flipping it changes group 1's order.
        out = t.correct_result("G1-2", 0, 3, now=clock())
        assert out.conflict is not None
        return t, out.conflict.id

    def test_group_correction_after_the_draw(self, h, clock) -> None:
        t, cid = self._group_conflict(h, clock)
        c = t.open_conflicts()[0]
        assert "draw" in c.kinds and "KO-PI-1" in c.affected
        seeds = [s.player_id for s in t.knockout.seeds]
        t.resolve_conflict(cid, "apply_keep_draw", now=clock())
        assert t.match("G1-2").result.winner == t.match("G1-2").b
        assert [s.player_id for s in t.knockout.seeds] == seeds
        assert t.match("KO-PI-1").result is not None

    def test_group_correction_apply_redraws(self, h, clock) -> None:
        t, cid = self._group_conflict(h, clock)
        old_seeds = [s.player_id for s in t.knockout.seeds]
        t.resolve_conflict(cid, "apply", now=clock())
        assert [s.player_id for s in t.knockout.seeds] != old_seeds
        assert all(m.result is None for m in t.matches_in("knockout"))
        c = t.conflicts[0]
        assert [a["match_id"] for a in c.annulled] == ["KO-PI-1"]
        assert t.audit[-2].action == "draw_knockout"

    def test_group_score_correction_that_changes_no_seed(self, h, clock) -> None:
        t, _ = h.build(6)
        ranks = t.seeding_rank()

        def better_seed_wins(m, rng):
            return (3, 0) if ranks[m.a] < ranks[m.b] else (0, 3)

        play_groups(h, t, better_seed_wins)
        m = t.match("G1-1")
        new = (m.result.score_a or 1, m.result.score_b or 1)  # 3-0 becomes 3-1
        out = t.correct_result("G1-1", *new, now=clock())
        assert out.conflict is None and t.audit[-1].action == "correct_result"

    def test_late_correction_reopens_a_closed_tournament(self, h, clock) -> None:
        t, _ = h.build(6)
        h.play(t, random.Random(6), consolation=False)
        t.close(now=clock())
        pi = t.match("KO-PI-1")
        r = pi.result
        c = t.correct_result(pi.id, r.score_b, r.score_a, now=clock()).conflict
        t.resolve_conflict(c.id, "apply", now=clock())
        assert t.phase == "knockout" and t.audit[-2].action == "reopen"
        h.play(t, random.Random(7), consolation=False)
        t.close(now=clock())
        assert t.champion is not None

    def test_same_score_is_a_no_op(self, h, clock) -> None:
        t, _ = h.build(3)
        t.record_result("G1-1", 3, 1, now=clock())
        n = len(t.audit)
        t.correct_result("G1-1", 3, 1, now=clock())
        assert len(t.audit) == n


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
            t.enter_dice(1, {pid(1): 4, pid(2): 4, pid(3): 4}, now=clock())
        with pytest.raises(TournamentError):
            t.enter_dice(1, {pid(1): 7, pid(2): 4, pid(3): 1}, now=clock())
        out = t.enter_dice(1, {pid(1): 2, pid(2): 5, pid(3): 3}, now=clock())
        assert out.draw_made
        assert [r.player_id for r in t.standings(1).rows] == [pid(2), pid(3), pid(1)]
        with pytest.raises(PhaseError):
            t.enter_dice(1, {pid(1): 6, pid(2): 5, pid(3): 3}, now=clock())


# -- Último Chance -------------------------------------------------------------------------------


class TestConsolation:
    def test_entrants_and_finalists(self, h, clock) -> None:
        t, _ = h.build(30)
        play_groups(h, t)
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
        play_groups(h, t)
        with pytest.raises(PhaseError):
            t.start_consolation(now=clock())


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

    def test_final_on_a_feature_table(self, h, clock) -> None:
        t, _ = h.build(2, settings=TournamentSettings(feature_tables=("MESA 1",)))
        t.record_result("G1-1", 3, 0, now=clock())
        assert t.assign_tables(["T2"], now=clock()) == []
        assert [a.table for a in t.assign_tables(["T2", "MESA 1"], now=clock())] == ["MESA 1"]


# -- persistence and whole tournaments ----------------------------------------------------------


def test_state_round_trips_at_every_stage(h, clock) -> None:
    t, _ = h.build(14)
    rng = random.Random(8)
    copies = 0
    while t.ready_matches():
        m = t.ready_matches()[0]
        a, b = h.random_score(m, rng)
        t.record_result(m.id, a, b, now=clock())
        d = json.loads(json.dumps(t.to_dict()))
        t2 = Tournament.from_dict(d)
        assert t2.to_dict() == d
        if copies % 5 == 0:
            t = t2  # carry on with the rebuilt one
        copies += 1
    assert t.champion is not None
    with pytest.raises(TournamentError):
        Tournament.from_dict({**t.to_dict(), "version": 99})


def test_two_players(h, clock) -> None:
    t, _ = h.build(2)
    out = t.record_result("G1-1", 3, 1, now=clock())
    assert out.draw_made and t.match("KO-F-1").status == "ready"
    t.record_result("KO-F-1", 7, 5, now=clock())
    assert t.champion == pid(1) and t.is_finished()
    assert {p: b.total for p, b in t.points().items()} == {pid(1): 218, pid(2): 110}


@settings(max_examples=25, deadline=None)
@given(n=st.integers(min_value=2, max_value=200), seed=st.integers(0, 10**6),
       uc=st.booleans())
def test_any_number_of_players(h, n: int, seed: int, uc: bool) -> None:
    t, _ = h.build(n, seed=seed)
    h.play(t, random.Random(seed), consolation=uc)
    assert t.champion is not None
    # every player is placed exactly once
    rows = t.final_list()
    assert sorted(r.player_id for r in rows) == sorted(t.entrants)
    places = t.places()
    assert set(places) == set(t.entrants)
    counts = Counter((lo, hi) for lo, hi, _ in places.values())
    assert all(c == hi - lo + 1 for (lo, hi), c in counts.items())
    # the bracket: every qualifier enters once, each round halves
    ko = t.knockout
    q = len(ko.players)
    firsts: dict[str, str] = {}
    for mid in ko.match_ids:
        for p in t.matches[mid].result.a, t.matches[mid].result.b:
            firsts.setdefault(p, mid)
    assert sorted(firsts) == sorted(ko.players)
    rounds = Counter(t.matches[mid].round for mid in ko.match_ids)
    size = 1 << (q.bit_length() - 1)
    assert rounds.get("PI", 0) == q - size
    main = [rounds[r] for r in rounds if r != "PI"]
    assert main == [size // 2 ** (i + 1) for i in range(len(main))]
    # the points add up to the formula
    assert sum(r.total for r in rows) == formula_total(t)
    decided = sum(m.result is not None for m in t.matches.values())
    removed = sum(len(b.removed) for b in t.points().values())
    assert sum(b.wins for b in t.points().values()) == decided - removed


# -- the rarer paths -----------------------------------------------------------------------------


def knockout_after_play_ins(h, clock, n: int = 30) -> Tournament:
    t, _ = h.build(n)
    play_groups(h, t)
    for m in [m for m in t.matches_in("knockout") if m.round == "PI"]:
        t.record_result(m.id, 5, 2, now=clock())
    return t


class TestRarePaths:
    def test_withdrawn_knockout_player_is_replaced(self, h, clock) -> None:
        t = knockout_after_play_ins(h, clock)
        r16 = next(m for m in t.matches_in("knockout") if m.round == "R16"
                   and m.sources[1].kind == "winner")
        x, z = r16.b, t.match(r16.sources[1].ref).result.loser
        out = t.withdraw(x, "left", now=clock())
        assert out.auto_forfeits == [r16.id] and r16.b == z and r16.result is None
        assert t.knockout_forfeits[0].replaced_by == z

    def test_replacement_leaves_the_consolation(self, h, clock) -> None:
        t = knockout_after_play_ins(h, clock)
        r16s = [m for m in t.matches_in("knockout") if m.round == "R16"]
        for m in r16s:
            if m.sources[0].kind == "seed":  # the direct seeds' matches: first round done
                t.record_result(m.id, 5, 1, now=clock())
        t.start_consolation(now=clock())
        r16 = next(m for m in r16s if m.result is None)
        x, z = r16.b, t.match(r16.sources[1].ref).result.loser
        assert z in t.consolation.players
        uc = next(m for m in t.matches_in("consolation") if z in m.players)
        other = uc.a if uc.b == z else uc.b
        t.record_result(r16.id, 5, 0, forfeit=True, now=clock())
        assert r16.b == z and t.withdrawals[z].kind == "consolation"
        assert uc.result is not None and uc.result.forfeit and uc.result.winner == other
        t.record_result(r16.id, 3, 5, now=clock())  # z plays on in the knockout, and wins
        assert t.points()[z].wins_knockout == 1 and t.points()[x].wins_knockout == 0

    def test_consolation_entrant_swapped_by_a_correction(self, h, clock) -> None:
        t = knockout_after_play_ins(h, clock, n=12)
        for m in t.matches_in("knockout"):
            if m.round == "QF" and m.status == "ready":  # every first match is now decided
                t.record_result(m.id, 5, 1, now=clock())
        pi = next(m for m in t.matches_in("knockout") if m.round == "PI")
        old_loser, new_loser = pi.result.loser, pi.result.winner
        t.start_consolation([p for p in t.consolation_eligible()], now=clock())
        uc = next(m for m in t.matches_in("consolation") if old_loser in m.players)
        if uc.status == "ready":
            t.record_result(uc.id, 3, 1, now=clock())
        out = t.correct_result(pi.id, pi.result.score_b, pi.result.score_a, now=clock())
        c = out.conflict
        assert c is not None and "consolation" in c.kinds
        t.resolve_conflict(c.id, "apply", now=clock())
        assert new_loser in t.consolation.players and old_loser not in t.consolation.players
        assert all(m.result is None or old_loser not in (m.result.a, m.result.b)
                   for m in t.matches_in("consolation"))

    def test_a_playing_match_is_used_too(self, h, clock) -> None:
        t, _ = h.build(6)
        play_groups(h, t)
        sf = t.match("KO-SF-1")
        pi = t.match(sf.sources[1].ref)
        t.record_result(pi.id, 5, 1, now=clock())
        t.match_started(sf.id, now=clock())
        c = t.correct_result(pi.id, 1, 5, now=clock()).conflict
        assert c is not None and c.affected == ["KO-SF-1"]
        t.resolve_conflict(c.id, "apply", now=clock())
        assert sf.status == "ready" and sf.started_at is None and c.annulled[0]["started"]
        with pytest.raises(ConflictError):
            t.resolve_conflict("C9", "keep", now=clock())

    def test_single_qualifier_is_champion(self, h, clock) -> None:
        t, _ = h.build(3, settings=TournamentSettings(qualifiers_per_group=1))
        for m in t.group_matches(1):
            t.record_result(m.id, 3, 0, now=clock())
        assert t.knockout is not None and t.knockout.match_ids == []
        assert t.champion == t.standings(1).rows[0].player_id
        assert t.places()[t.champion] == (1, 1, "F")
        t.close(now=clock())

    def test_no_replacement_by_a_player_who_left(self, h, clock) -> None:
        t, _ = h.build(3)
        for m in t.group_matches(1):
            t.record_result(m.id, 3, 0, now=clock())
        seeds = t.knockout.players
        t.withdraw(seeds[1], "left", now=clock())   # loses the play-in: a walkover
        assert t.match("KO-PI-1").result.winner == seeds[2]
        t.withdraw(seeds[2], "no_show", now=clock())  # would hand the final to seeds[1]...
        assert t.knockout_forfeits == []              # ...who has left too: a walkover
        assert t.champion == seeds[0]
        assert t.points()[seeds[2]].removed[0].rule == "HGV 2.3.8"

    def test_assignments_in_registration_and_unknown_group(self, h) -> None:
        t, _ = h.build(3, start=False)
        assert t.assign_tables(["T1"], now=h.NOW) == []
        t.start_groups(ranking={}, seed=1, now=h.NOW)
        with pytest.raises(PhaseError):
            t.start_groups(ranking={}, seed=1, now=h.NOW)
        with pytest.raises(TournamentError):
            t.standings(2)
        with pytest.raises(TableError):
            t.assignment("G1-1")
        with pytest.raises(TournamentError):
            t.set_match_format("G1-1", length=0, now=h.NOW)


def test_both_players_gone_the_first_named_takes_the_walkover(h, clock) -> None:
    t, _ = h.build(3)
    t.record_result("G1-1", 3, 1, now=clock())        # P0002 beats P0003
    t.record_result("G1-2", 3, 1, now=clock())        # P0001 beats P0002
    t.withdraw(pid(2), "left", now=clock())
    t.withdraw(pid(3), "left", now=clock())           # G1-3 lost by forfeit; the draw is made
    pi = t.match("KO-PI-1")
    assert {pi.a, pi.b} == {pid(2), pid(3)}
    assert pi.result.forfeit and pi.result.winner == pi.a
    assert t.champion == pid(1)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(min_value=2, max_value=80), seed=st.integers(0, 10**6))
def test_forfeits_and_withdrawals_keep_everything_consistent(h, n: int, seed: int) -> None:
    rng = random.Random(seed)
    t, _ = h.build(n, seed=seed)
    clock = h.Clock()
    leaving = rng.sample(sorted(t.entrants), k=min(n - 1, rng.randint(0, 3)))
    uc_tried = False
    while True:
        ready = sorted(t.ready_matches(), key=lambda m: (m.round_no, m.id))
        if leaving and rng.random() < 0.1:
            t.withdraw(leaving.pop(), rng.choice(["left", "no_show"]), now=clock())
            continue
        if not ready:
            if not uc_tried and t.first_knockout_round_done() and t.consolation is None:
                uc_tried = True
                if len(t.consolation_eligible()) >= 2:
                    t.start_consolation(now=clock())
                    continue
            break
        m = ready[0]
        a, b = h.random_score(m, rng)
        t.record_result(m.id, a, b, forfeit=rng.random() < 0.1, now=clock())
    assert t.champion is not None and t.is_finished()
    t.close(now=clock())
    rows = t.final_list()
    assert sorted(r.player_id for r in rows) == sorted(t.entrants)
    counts = Counter((lo, hi) for lo, hi, _ in t.places().values())
    assert all(c == hi - lo + 1 for (lo, hi), c in counts.items())
    assert sum(r.total for r in rows) == formula_total(t)
    for b in t.points().values():
        if b.knockout_forfeit:
            assert b.place_points == 0 and b.wins_knockout == 0
    back = Tournament.from_dict(json.loads(json.dumps(t.to_dict())))
    assert [(r.player_id, r.total) for r in back.final_list()] == [
        (r.player_id, r.total) for r in rows]
