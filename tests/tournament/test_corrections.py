"""Corrections and conflicts (mesa.tournament.corrections), through the Tournament facade.

Moved from test_tournament.py.
"""

from __future__ import annotations

import json
import random

import pytest

from mesa.tournament.errors import (
    ConflictError,
    MatchNotReadyError,
)
from mesa.tournament.tournament import Tournament

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
        h.play_groups(t)
        sf = t.match("KO-SF-1")
        pi = t.match(sf.sources[1].ref)
        t.record_result(pi.id, 5, 1, now=clock())
        assert sf.b == pi.a
        out = t.correct_result(pi.id, 1, 5, now=clock())
        assert out.conflict is None and sf.b == pi.b and "KO-SF-1" in out.changed

    def test_correction_after_later_rounds_is_a_conflict(self, h, clock) -> None:
        t, _ = h.build(6)
        h.play_groups(t)
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
        h.play_groups(t)
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

        h.play_groups(t, better_seed_wins)
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


# -- the trial on a copy -------------------------------------------------------------------------


def test_what_apply_would_do_is_tried_on_a_copy(h, clock) -> None:
    """Asking what ``apply`` would annul plays it on a copy of the state: the tournament itself
    (matches, audit, the conflict) is left byte for byte as it was."""
    t, _ = h.build(6)
    h.play_groups(t)
    sf = t.match("KO-SF-1")
    pi = t.match(sf.sources[1].ref)
    t.record_result(pi.id, 5, 1, now=clock())
    t.record_result(sf.id, 7, 3, now=clock())
    c = t.correct_result(pi.id, 1, 5, now=clock()).conflict
    assert c is not None
    before = json.dumps(t.to_dict())
    assert t.conflict_annuls(c.id, now=clock()) == ["KO-SF-1"]
    assert json.dumps(t.to_dict()) == before and c.annulled == []
    with pytest.raises(ConflictError) as e:   # the director confirmed another list
        t.resolve_conflict(c.id, "apply", expected=[], now=clock())
    assert e.value.reason == "conflict_annuls_changed" and json.dumps(t.to_dict()) == before


def test_a_table_report_for_an_undecided_match_is_recorded_as_the_directors(h, clock) -> None:
    t, _ = h.build(3)
    m = t.group_matches(1)[0]
    c = t.table_conflict(m.id, 3, 1, actor="T7", now=clock(), reason="not_its_match").conflict
    assert c is not None and c.kinds == ["table"] and m.result is None
    again = t.table_conflict(m.id, 3, 1, actor="T7", now=clock(), reason="not_its_match")
    assert again.conflict is c and len(t.conflicts) == 1   # the same report: no second one
    out = t.resolve_conflict(c.id, "apply", actor="joselo", now=clock())
    assert out.conflict is c and c.status == "applied" and c.resolved_by == "joselo"
    assert m.result is not None and m.result.source == "director" and m.result.actor == "joselo"
    assert [a.action for a in t.audit[-2:]] == ["result", "resolve_conflict"]
