"""The group draw can be taken back or redrawn until a group match starts; it is audited."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from mesa.tournament.club import Club
from mesa.tournament.errors import DrawLockedError, PhaseError
from mesa.tournament.tournament import Tournament

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
