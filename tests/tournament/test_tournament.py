"""The Tournament facade: whole tournaments from registration to final list, and the rarer
paths across parts. The tests of each part are in test_<part>.py (moved from here).
"""

from __future__ import annotations

import ast
import copy
import inspect
import json
import random
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mesa.tournament
from mesa.tournament.errors import (
    ConflictError,
    PhaseError,
    TableError,
    TournamentError,
)
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.tournament import Tournament

# -- whole tournaments -----------------------------------------------------------------------


def test_two_players(h, clock) -> None:
    t, _ = h.build(2)
    out = t.record_result("G1-1", 3, 1, now=clock())
    assert out.draw_made and t.match("KO-F-1").status == "ready"
    t.record_result("KO-F-1", 7, 5, now=clock())
    assert t.champion == h.pid(1) and t.is_finished()
    assert {p: b.total for p, b in t.points().items()} == {h.pid(1): 218, h.pid(2): 110}


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
    assert sum(r.total for r in rows) == h.formula_total(t)
    decided = sum(m.result is not None for m in t.matches.values())
    removed = sum(len(b.removed) for b in t.points().values())
    assert sum(b.wins for b in t.points().values()) == decided - removed


# -- the rarer paths -----------------------------------------------------------------------------


def knockout_after_play_ins(h, clock, n: int = 30) -> Tournament:
    t, _ = h.build(n)
    h.play_groups(t)
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
        h.play_groups(t)
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
    t.withdraw(h.pid(2), "left", now=clock())
    t.withdraw(h.pid(3), "left", now=clock())           # G1-3 lost by forfeit; the draw is made
    pi = t.match("KO-PI-1")
    assert {pi.a, pi.b} == {h.pid(2), h.pid(3)}
    assert pi.result.forfeit and pi.result.winner == pi.a
    assert t.champion == h.pid(1)


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
    assert sum(r.total for r in rows) == h.formula_total(t)
    for b in t.points().values():
        if b.knockout_forfeit:
            assert b.place_points == 0 and b.wins_knockout == 0
    back = Tournament.from_dict(json.loads(json.dumps(t.to_dict())))
    assert [(r.player_id, r.total) for r in back.final_list()] == [
        (r.player_id, r.total) for r in rows]


# -- the facade ----------------------------------------------------------------------------------

API = Path(__file__).parent / "data" / "tournament_api.json"
PARTS = Path(mesa.tournament.__file__).parent


def test_the_facade_keeps_the_single_class_api() -> None:
    """Every public method of the single-class Tournament (written to the file before the
    split), with the same signature; every attribute it set in ``__init__``."""
    api = json.loads(API.read_text(encoding="utf-8"))
    for name, sig in api["methods"].items():
        member = inspect.getattr_static(Tournament, name)
        if sig == "property":
            assert isinstance(member, property), name
        else:
            assert str(inspect.signature(getattr(Tournament, name))) == sig, name
    t = Tournament("T", "Enero", date(2014, 1, 31))
    assert [a for a in api["attributes"] if not hasattr(t, a)] == []


def test_attributes_written_on_the_facade_reach_every_part(h, clock) -> None:
    """The hub and the tests assign some attributes (``t.phase = "closed"``, ``t.settings =
    ...``): the parts read the same state, so they see it at once."""
    t, _ = h.build(3)
    t.settings = t.settings.with_changes(knockout_length=9)
    t.phase = "closed"
    with pytest.raises(PhaseError) as e:
        t.record_result("G1-1", 3, 1, now=clock())
    assert e.value.reason == "closed"
    t.phase = "groups"
    t.audit = t.audit[:1]
    t.record_result("G1-1", 3, 1, now=clock())
    assert [a.seq for a in t.audit] == [1, 2]
    h.play_groups(t)
    assert t.match("KO-PI-1").length == 9  # the knockout stage read the new settings


def test_a_deep_copy_is_a_tournament_of_its_own(h, clock) -> None:
    t, _ = h.build(4)
    twin = copy.deepcopy(t)
    twin.record_result("G1-1", 3, 1, now=clock())
    assert t.match("G1-1").result is None and twin.match("G1-1").result is not None
    assert twin.standings(1).rows[0].wins == 1 and t.standings(1).rows[0].wins == 0


def test_no_module_imports_a_private_name() -> None:
    """The parts share the state object, not each other's privates."""
    for path in sorted(PARTS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mesa."):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert private == [], f"{path.name} imports {private} from {node.module}"
