"""A match moved from one table to another goes on where it was: ``resume_of`` reads the old
table, ``assign``'s ``resume`` puts it on the new one (issue 22, finding 2)."""

from __future__ import annotations

from typing import Any

import pytest

from mesa.games.backgammon.machine import Table
from mesa.games.backgammon.resume import parse_resume, resume_of
from support.backgammon_builders import Driver, between_games, on_move, play_game


def _moved(old: Driver, length: int = 5, clock: dict[str, Any] | None = None) -> Driver:
    """A new table given ``old``'s match, as the hub's move gives it."""
    new = Driver()
    new.do("assign", match_id="T-1", players={"a": "Ana", "b": "Beto"}, length=length,
           clock=clock if clock is not None else {"preset": "singles"}, scheduled_start=0.0,
           resume=resume_of(old.table))  # fmt: skip
    return new


def test_a_match_moved_between_games_keeps_its_score_and_crawford_state() -> None:
    old = between_games(length=5)
    for _ in range(4):
        play_game(old, "a")  # 4-0: a is one away
    new = _moved(old)
    m = new.table.s.match
    assert m is not None and m.score == {"a": 4, "b": 0} and not m.crawford_played
    assert new.table.s.lateness is None  # they were both there: no lateness runs again
    new.do("press", side="a")
    new.do("press", side="b")
    new.do("press", side="b")  # the Crawford game, the fifth
    assert (m.game_number, m.crawford_state) == (5, "crawford")
    assert new.try_("double", side=on_move(new)).refusal.code == "crawford"


def test_a_match_moved_mid_game_goes_on_with_its_cube_and_reserves() -> None:
    old = between_games(length=5)
    play_game(old, "b")  # 0-1
    old.do("press", side="a")  # game 2: b on move
    old.do("press", after=30, side="b")  # b's turn costs 20 s of the reserve
    old.do("double", side="a")
    old.do("take", side="b")  # the cube on 2, b owns it; a on move again
    reserve = dict(old.table.s.clock.reserve)  # type: ignore[union-attr]
    new = _moved(old)
    new.do("checkin", side="a")
    new.do("checkin", side="b")
    assert new.state == "between_games"
    # a is on move in the game moved here: the other player presses, as after the opening.
    assert new.try_("press", side="a").refusal.code == "resumed_on_move"
    out = new.do("press", side="b")
    m = new.table.s.match
    assert m is not None and new.state == "running" and on_move(new) == "a"
    assert [e.TYPE for e in out.events] == ["game.started"] and out.events[0].game == 2
    assert (m.cube_value, m.cube_owner, m.score) == (2, "b", {"a": 0, "b": 1})
    assert new.table.s.clock is not None and new.table.s.clock.reserve == reserve
    assert new.try_("double", side="a").refusal.code == "not_cube_owner"
    new.do("claim", side="a", winner="a", kind=2)  # a gammon with the cube on 2
    new.do("confirm", side="b")
    m = new.table.s.match
    assert m is not None and m.score == {"a": 4, "b": 1} and m.game_number == 2


def test_a_move_survives_a_restart_of_the_new_table_before_the_players_arrive() -> None:
    old = between_games(length=5)
    old.do("press", side="a")  # game 1 under way
    new = _moved(old)
    again = Table.restore(new.table.snapshot())
    assert again.s.resumed_game == new.table.s.resumed_game is not None
    # and a second move before anyone played on carries the game still waiting
    assert resume_of(again) is None  # nobody checked in yet: the game waits where it went
    new.do("checkin", side="a")
    new.do("checkin", side="b")
    # the screen between games shows the game to come: the one moved here, game 1 again
    assert new.table.s.match is not None and new.table.s.match.game_number + 1 == 1
    carried = resume_of(new.table) or {}
    assert carried["game"] == new.table.s.resumed_game and carried["games"] == 1


def test_an_assign_without_resume_starts_afresh_as_before() -> None:
    d = Driver()
    d.do("assign", match_id="T-1", players={"a": "Ana", "b": "Beto"}, length=3, clock=None,
         scheduled_start=0.0)  # fmt: skip
    m = d.table.s.match
    assert m is not None and m.score == {"a": 0, "b": 0} and d.table.s.lateness is not None
    assert d.table.s.resumed_game is None


@pytest.mark.parametrize(
    ("resume", "why"),
    [
        ({"score": {"a": 5, "b": 0}}, "score"),
        ({"score": {"a": 1}}, "score"),
        ({"score": {"a": True, "b": 0}}, "score"),
        ({"score": {"a": 0, "b": 0}, "games": -1}, "games"),
        ({"score": {"a": 0, "b": 0}, "crawford_played": "yes"}, "crawford_played"),
        ({"score": {"a": 0, "b": 0}, "reserve": {"a": -1, "b": 0}}, "reserve"),
        ({"score": {"a": 0, "b": 0}, "games": 1, "game": {"cube": 3}}, "game.cube"),
        ({"score": {"a": 0, "b": 0}, "games": 1, "game": {"cube": 2}}, "game.owner"),
        ({"score": {"a": 0, "b": 0}, "games": 1, "game": {"cube": 1, "owner": "a"}},
         "game.owner"),
        ({"score": {"a": 0, "b": 0}, "games": 1, "game": {"cube": 2, "owner": "a",
                                                           "crawford": True}}, "game.crawford"),
        ({"score": {"a": 0, "b": 0}, "game": {"cube": 1}}, "games"),
        ({"score": {"a": 0, "b": 0}, "extra": 1}, "keys"),
    ],
)
def test_a_bad_resume_is_refused_and_the_table_keeps_what_it_had(
    resume: dict[str, Any], why: str
) -> None:
    d = Driver()
    d.do("tick")
    before = d.table.snapshot()
    out = d.try_("assign", match_id="T-2", players={"a": "A", "b": "B"}, length=5,
                 resume=resume)  # fmt: skip
    assert out.refusal is not None and out.refusal.code == "bad_resume"
    assert f"resume.{why}" in out.refusal.message
    assert {**d.table.snapshot(), "last_now": None} == {**before, "last_now": None}
    with pytest.raises(Exception, match="resume"):
        parse_resume(resume, length=5)


def test_fallen_flags_penalties_and_a_frozen_cube_move_with_the_match() -> None:
    """Under the overtime policy a second flag loses: a move must not give a first one back;
    DE 5.1 penalty points and the DE 5.2 frozen cube follow too."""
    old = between_games(length=5, clock={"reserve": 300.0, "delay": 0.0, "kind": "standard",
                                         "timeout_policy": "penalty_points"})  # fmt: skip
    play_game(old, "a")
    assert old.table.s.clock is not None and old.table.s.match is not None
    old.table.s.clock.expiries = {"a": 0, "b": 1}
    old.table.s.penalties = {"b": 1}
    old.table.s.match.frozen_until = {"b": 2}
    new = _moved(old, clock={"reserve": 300.0, "delay": 0.0, "kind": "standard",
                             "timeout_policy": "penalty_points"})  # fmt: skip
    s = new.table.s
    assert s.clock is not None and s.match is not None
    assert (s.clock.expiries, s.penalties, s.match.frozen_until) == (
        {"a": 0, "b": 1}, {"b": 1}, {"b": 2})  # fmt: skip
