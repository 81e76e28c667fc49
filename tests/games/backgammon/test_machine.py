"""The table state machine: whole matches, results confirmed by both, timeouts, bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.engine.inputs import Input
from mesa.games.backgammon.inputs import INPUT_NAMES
from mesa.games.backgammon.machine import Table
from mesa.games.backgammon.transitions import TRANSITIONS
from mesa.games.backgammon.view import table_view
from support.backgammon_builders import (
    Driver,
    assigned,
    between_games,
    on_move,
    play_game,
    running,
)


def types(out) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.TYPE for e in out.events]


# ── a whole match with only the two buttons ─────────────────────────────────
def test_a_match_played_with_two_buttons_only() -> None:
    d = assigned(length=3)
    d.do("press", side="a")  # check-in by a press
    d.do("press", side="b")
    assert d.state == "between_games"
    d.do("press", side="b")  # b rolled lower: a's clock starts
    assert on_move(d) == "a"
    d.do("press", after=14, side="a")
    d.do("hold", after=3, side="b")  # b doubles with a hold
    assert d.state == "cube_offered"
    d.do("press", after=6, side="a")  # a takes with a press
    assert d.table.s.match.cube_value == 2 and d.table.s.match.cube_owner == "a"
    d.do("both_held", after=20)  # b bore off: stop both clocks
    assert d.state == "paused"
    assert table_view(d.table, d.now).menu[d.table.s.menu] == "resume"
    d.do("press", side="b")  # menu → game over
    d.do("hold", side="b")
    assert d.state == "result_entry"
    items = table_view(d.table, d.now).menu
    for _ in range(items.index("b2")):  # b wins a gammon
        d.do("press", side="b")
    out = d.do("hold", side="b")
    assert types(out) == ["result.claimed"] and out.events[0].points == 4
    out = d.do("hold", side="a")  # a confirms by holding
    assert types(out) == ["turn.ended", "game.ended", "match.ended"]
    assert d.state == "match_over"
    assert d.table.s.match.score == {"a": 0, "b": 4}


def test_one_player_cannot_record_a_result_alone() -> None:
    d = running()
    d.do("claim", side="a", winner="a", kind=3)
    assert d.try_("confirm", side="a").refusal.code == "own_claim"
    assert d.try_("hold", side="a").refusal.code == "not_now" or d.state == "result_entry"
    assert d.table.s.match.score == {"a": 0, "b": 0}
    out = d.do("reject", side="b")
    assert types(out) == ["result.rejected", "director.called"]
    assert d.table.s.claim is None and d.table.s.director_call == "disputed_result"
    d.do("claim", side="b", winner="a", kind=1)  # b concedes a single instead
    d.do("confirm", side="a")
    assert d.table.s.match.score == {"a": 1, "b": 0}


def test_a_press_rejects_a_claim_and_the_claimant_cannot_answer() -> None:
    d = running()
    d.do("claim", side="a", winner="a", kind=1)
    assert d.try_("press", side="a").refusal.code == "own_claim"
    d.do("press", side="b")
    assert d.table.s.claim is None and d.state == "result_entry"


def test_concession_through_the_menu_is_recorded_as_conceded() -> None:
    d = running()
    d.do("both_held")
    d.do("press", side="a")
    d.do("press", side="a")  # resume → game_over → concession
    d.do("hold", side="b")
    assert d.state == "result_entry" and d.table.s.pause_reason == "concession"
    d.do("hold", side="b")  # first item: a wins a single
    out = d.do("hold", side="a")
    ended = out.events[-1]
    assert ended.TYPE == "game.ended" and ended.how == "conceded" and ended.winner == "a"


def test_pass_ends_the_game_for_the_cube_before_the_double() -> None:
    d = running()
    mover = on_move(d)
    d.do("double", after=2, side=mover)
    out = d.do("drop", side="b" if mover == "a" else "a")
    assert types(out) == ["cube.passed", "turn.ended", "game.ended"]
    assert d.table.s.match.score[mover] == 1 and d.state == "between_games"


def test_cube_refusals() -> None:
    d = running()
    mover = on_move(d)
    other_side = "b" if mover == "a" else "a"
    assert d.try_("hold", side=other_side).refusal.code == "not_on_move"
    assert d.try_("double", side=other_side).refusal.code == "not_on_move"
    # Crawford: 5-point match at 4–0.
    d = between_games(length=5)
    d.do("director_score", a=4, b=0)
    d.do("press", side="a")
    assert d.table.s.match.crawford_game
    out = d.try_("cube", after=3)
    assert out.refusal.code == "crawford" and d.state == "running"
    assert table_view(d.table, d.now).crawford == "crawford"


def test_a_press_by_the_player_not_on_move_does_nothing() -> None:
    d = running()
    mover = on_move(d)
    before = d.table.snapshot()
    out = d.try_("press", side="b" if mover == "a" else "a")
    assert out.refusal.code == "not_on_move" and out.events == []
    after = d.table.snapshot()
    before.pop("last_now"), after.pop("last_now")
    assert before == after


def test_bounce_and_simultaneous_presses_are_absorbed() -> None:
    d = running()
    mover = on_move(d)
    d.do("press", after=10, side=mover)
    # The same button bouncing 3 ms later: the opponent is now on move, so nothing happens.
    assert d.try_("press", after=0.003, side=mover).refusal.code == "bounce"
    # Both slapped together: the opponent's press 5 ms after their turn began is refused.
    other_side = "b" if mover == "a" else "a"
    assert d.try_("press", after=0.002, side=other_side).refusal.code == "simultaneous"
    assert on_move(d) == other_side
    d.do("press", after=5, side=other_side)
    assert on_move(d) == mover


def test_pause_stops_both_clocks_and_presses_move_the_menu() -> None:
    d = running()
    mover = on_move(d)
    d.do("press", after=4, side=mover)
    d.do("pause", after=3, reason="fallen_die")
    shown = table_view(d.table, d.now).clocks
    d.do("press", after=500, side="a")  # a press during a pause moves the menu, not the clock
    assert table_view(d.table, d.now).clocks == shown
    d.do("resume")
    assert d.state == "running"
    assert table_view(d.table, d.now).clocks["b" if mover == "a" else "a"].delay == pytest.approx(7.0)


def test_director_call_from_the_menu() -> None:
    d = running()
    d.do("both_held")
    items = table_view(d.table, d.now).menu
    for _ in range(items.index("director")):
        d.do("press", side="a")
    out = d.do("hold", side="a")
    assert types(out) == ["clock.pause_reason", "director.called"]
    assert d.table.s.director_call == "players"
    d.do("director_clear_call")
    assert d.table.s.director_call is None


# ── timeouts in each policy ─────────────────────────────────────────────────
def test_timeout_loses_the_match_by_default() -> None:
    d = running(length=5, clock={"reserve": 30.0, "delay": 10.0})
    mover = on_move(d)
    out = d.try_("press", after=40.5, side=mover)  # the flag fell at 40 s
    assert types(out)[:2] == ["clock.flag_fell", "match.ended"]
    assert out.refusal is not None and d.state == "match_over"
    winner = "b" if mover == "a" else "a"
    assert d.table.s.match.score == {winner: 5, mover: 0}  # length for the winner
    assert d.table.s.match.ended_by == "timeout"


def test_tick_settles_the_flag() -> None:
    d = running(length=3, clock={"reserve": 5.0, "delay": 10.0})
    assert d.do("tick", after=14.9).events == []
    out = d.do("tick", after=0.2)
    assert types(out) == ["clock.flag_fell", "match.ended"]


def test_overtime_policy() -> None:
    d = running(length=3, clock={"reserve": 5.0, "delay": 10.0, "timeout_policy": "overtime",
                                 "overtime": 120.0})
    mover = on_move(d)
    out = d.do("tick", after=16)
    assert types(out) == ["clock.flag_fell", "clock.overtime", "clock.paused", "director.called"]
    assert d.state == "paused" and d.table.s.clock.reserve[mover] == 120.0
    d.do("director_resume", after=60)
    assert d.state == "running" and on_move(d) == mover
    assert table_view(d.table, d.now + 1).clocks[mover].delay == 0.0  # no second delay
    out = d.do("tick", after=120.5)
    assert types(out) == ["clock.flag_fell", "match.ended"]
    assert d.state == "match_over"


def test_penalty_points_policy() -> None:
    std = {"preset": "standard", "timeout_policy": "penalty_points"}
    d = running(length=7, first="a", clock=std)  # b on move, 42 minutes each
    out = d.do("tick", after=42 * 60 + 1)
    assert types(out) == ["clock.flag_fell", "clock.penalty", "clock.paused", "director.called"]
    assert out.events[1].points == 2 and d.table.s.match.score == {"a": 2, "b": 0}
    assert d.table.s.clock.reserve["b"] == 300.0
    d.do("director_resume")
    out = d.do("tick", after=301)
    assert out.events[1].points == 1  # every later expiry costs one point
    assert d.table.s.match.score == {"a": 3, "b": 0}


def test_penalty_points_grace_in_the_deciding_game_and_frozen_cube() -> None:
    std = {"preset": "standard", "timeout_policy": "penalty_points"}
    d = between_games(length=5, clock=std)
    d.do("director_score", a=4, b=4)
    d.do("press", side="a")  # double match point: b on move
    out = d.do("tick", after=30 * 60 + 1)
    pen = out.events[1]
    assert pen.grace and pen.points == 0 and d.table.s.match.score == {"a": 4, "b": 4}
    d.do("director_resume")
    out = d.do("tick", after=301)
    assert out.events[1].points == 2 and d.state == "match_over"  # the second expiry scores

    d = between_games(length=5, clock=std)
    d.do("director_score", a=2, b=0)
    d.do("press", side="a")  # b on move
    out = d.do("tick", after=30 * 60 + 1)
    assert out.events[1].frozen_cube and d.table.s.match.score["a"] == 4
    d.do("director_resume")
    assert d.try_("double", after=1, side="b").refusal.code == "cube_frozen"


def test_penalty_points_need_the_standard_clock() -> None:
    d = assigned()
    out = d.try_("director_clock", clock={"preset": "singles", "timeout_policy": "penalty_points"})
    assert out.refusal.code == "bad_clock"


# ── lateness at the table ───────────────────────────────────────────────────
def test_late_arrival_starts_behind_and_forfeit() -> None:
    d = Driver()
    d.do("assign", match_id="G1", players={"a": "Ana", "b": "Beto"}, length=3,
         scheduled_start=100.0, cards={"a": "A1", "b": "B1"})
    d.do("card", card="A1", after=0)
    out = d.do("tick", after=1300)
    assert types(out) == ["lateness.point", "lateness.point"]
    assert table_view(d.table, d.now).lateness.points == {"a": 2, "b": 0}
    out = d.do("card", card="B1")
    assert types(out) == ["player.checked_in", "match.started"]
    assert out.events[1].score == {"a": 2, "b": 0}

    d = Driver()
    d.do("assign", match_id="G1", players={"a": "Ana", "b": "Beto"}, length=3, scheduled_start=0.0)
    d.do("checkin", side="b")
    out = d.do("tick", after=31 * 60)
    assert types(out)[-2:] == ["match.started", "match.ended"] and d.state == "match_over"
    assert out.events[-1].how == "lateness" and out.events[-1].winner == "b"


def test_unknown_card_is_reported_not_accepted() -> None:
    d = assigned()
    out = d.try_("card", card="STRANGER")
    assert out.refusal.code == "unknown_card" and types(out) == ["card.rejected"]
    assert d.table.s.checked_in == []


# ── director ────────────────────────────────────────────────────────────────
def test_director_actions() -> None:
    d = running(length=5)
    mover = on_move(d)
    d.do("director_adjust", side=mover, seconds=-60.0)
    assert d.table.s.clock.reserve[mover] == 540.0
    d.do("director_lose_delay", side="a")
    d.do("director_result", winner="a", kind=2)
    assert d.table.s.match.score == {"a": 2, "b": 0} and d.state == "between_games"
    d.do("director_score", a=2, b=1, reason="scoresheet")
    assert d.table.s.match.score == {"a": 2, "b": 1}
    d.do("director_forfeit", winner="b", reason="left the venue")
    assert d.state == "match_over" and d.table.s.match.winner == "b"
    d.do("director_score", a=2, b=3, reason="forfeit withdrawn")
    assert d.state == "between_games"


def test_a_clock_introduced_mid_match_uses_points_already_scored() -> None:
    d = Driver()
    d.do("assign", match_id="G1", players={"a": "Ana", "b": "Beto"}, length=7, clock=None)
    d.do("checkin", side="a")
    d.do("checkin", side="b")
    assert not d.table.s.timed
    play_game(d, "a", kind=2)
    play_game(d, "b", kind=1)
    d.do("director_clock", clock={"preset": "singles"})
    assert d.table.s.clock.reserve == {"a": 14 * 60 - 3 * 60, "b": 14 * 60 - 3 * 60}


def _untimed(length: int = 5) -> Driver:
    d = Driver()
    d.do("assign", match_id="G1", players={"a": "Ana", "b": "Beto"}, length=length, clock=None)
    d.do("checkin", side="a")
    d.do("checkin", side="b")
    return d


def test_a_clock_imposed_during_a_game_starts_with_the_next_game() -> None:
    """HGV 9.1.1: the order is kept, the game goes on untimed, and the clock starts when the
    game ends, with the HGV 7.6.2 reserve for the score then (5 points, 2-0 → 10 − 2 min)."""
    d = _untimed(length=5)
    play_game(d, "a", kind=1)
    d.do("press", side="b")  # game 2: a on move, no clock
    out = d.do("director_clock", clock={"preset": "singles"})
    assert types(out) == ["clock.pending"] and out.note == "clock_next_game"
    assert out.events[0].to_data() == {"clock": {"preset": "singles"}, "game": 3}
    assert d.state == "running" and not d.table.s.timed
    assert d.table.snapshot()["clock_order"] == {"clock": {"preset": "singles"}}
    assert table_view(d.table, d.now).clock_next == "on"
    d.do("press", after=40, side="a")  # nothing is charged in this game
    d.do("double", after=5, side="b")
    d.do("take", after=5, side="a")  # the cube on 2
    d.do("claim", side="a", winner="a", kind=1)
    out = d.do("confirm", side="b")
    assert types(out) == ["turn.ended", "game.ended", "clock.set"]
    assert d.state == "between_games" and d.table.s.timed
    assert out.events[-1].reserve == {"a": 600.0 - 3 * 60, "b": 600.0 - 3 * 60}  # 3-0
    assert d.table.s.clock_order is None and table_view(d.table, d.now).clock_next is None
    d.do("press", side="b")  # game 3 runs on the clock
    d.do("press", after=20, side="a")
    assert d.table.s.clock.reserve["a"] == pytest.approx(420.0 - 10.0)


@pytest.mark.parametrize("where", ["cube_offered", "paused", "result_entry"])
def test_a_clock_ordered_anywhere_in_a_game_waits_for_it_to_end(where: str) -> None:
    d = _untimed(length=3)
    d.do("press", side="b")  # a on move
    if where == "cube_offered":
        d.do("double", side="a")
    elif where == "paused":
        d.do("pause", reason="fallen_die")
    else:
        d.do("claim", side="a", winner="a", kind=1)
    before = d.state
    out = d.do("director_clock", clock={"preset": "singles"})
    assert d.state == before and types(out) == ["clock.pending"] and not d.table.s.timed
    if where == "cube_offered":
        out = d.do("drop", side="b")
    elif where == "paused":
        d.do("resume")
        out = d.do("director_result", winner="b", kind=1)
    else:
        out = d.do("confirm", side="b")
    assert types(out)[-1] == "clock.set" and d.table.s.timed
    assert d.table.s.clock.reserve["a"] == 6 * 60 - 60  # 3 points, one scored


def test_between_games_a_clock_is_put_on_at_once_even_from_a_pause() -> None:
    d = _untimed(length=3)
    d.do("pause_button")  # a break between games
    out = d.do("director_clock", clock={"preset": "singles"})
    assert types(out) == ["clock.set"] and out.note is None and d.table.s.timed


def test_taking_the_clock_off_during_a_game_waits_too() -> None:
    d = running(length=3)
    out = d.do("director_clock", clock=None)
    assert types(out) == ["clock.pending"] and out.events[0].clock is None
    assert d.table.s.timed and table_view(d.table, d.now).clock_next == "off"
    d.do("press", after=15, side=on_move(d))  # still charged: this game keeps its clock
    assert min(d.table.s.clock.reserve.values()) < 360.0
    d.do("claim", side="a", winner="a", kind=1)
    out = d.do("confirm", side="b")
    assert types(out)[-1] == "clock.set" and out.events[-1].clock is None
    assert not d.table.s.timed and table_view(d.table, d.now).clocks == {}


def test_a_later_order_replaces_the_first_and_a_bad_one_is_refused_at_once() -> None:
    d = _untimed(length=5)
    d.do("press", side="b")
    d.do("director_clock", clock={"preset": "singles"})
    out = d.try_("director_clock", clock={"preset": "blitz"})
    assert out.refusal.code == "bad_clock"
    assert d.table.s.clock_order == {"clock": {"preset": "singles"}}
    d.do("director_clock", clock={"preset": "usbgf"})
    d.do("claim", side="a", winner="a", kind=1)
    out = d.do("confirm", side="b")
    assert [e.TYPE for e in out.events].count("clock.set") == 1
    assert d.table.s.clock.settings.delay == 12.0  # usbgf, the last order


def test_an_order_lapses_when_the_match_ends_first() -> None:
    d = _untimed(length=1)
    d.do("press", side="b")
    d.do("director_clock", clock={"preset": "singles"})
    d.do("claim", side="a", winner="a", kind=1)
    out = d.do("confirm", side="b")
    assert types(out) == ["turn.ended", "game.ended", "match.ended"]
    assert d.state == "match_over" and d.table.s.clock_order is None and not d.table.s.timed
    d = _untimed(length=3)
    d.do("press", side="b")
    d.do("director_clock", clock={"preset": "singles"})
    d.do("director_forfeit", winner="b")
    assert d.table.s.clock_order is None


def test_a_snapshot_keeps_the_order_and_an_old_one_without_it_restores() -> None:
    d = _untimed(length=3)
    d.do("press", side="b")
    d.do("director_clock", clock={"preset": "singles"})
    snap = d.table.snapshot()
    assert Table.restore(snap).s.clock_order == {"clock": {"preset": "singles"}}
    old = {k: v for k, v in snap.items() if k != "clock_order"}
    assert Table.restore(old).s.clock_order is None
    # An order that no longer builds is dropped at the game's end: the result still counts.
    broken = Table.restore({**snap, "clock_order": {"clock": {"preset": "blitz"}}})
    d = Driver(broken, now=d.now)
    d.do("claim", side="a", winner="a", kind=1)
    out = d.do("confirm", side="b")
    assert types(out) == ["turn.ended", "game.ended"] and d.state == "between_games"
    assert broken.s.clock_order is None and not broken.s.timed


# ── bad input ───────────────────────────────────────────────────────────────
@pytest.mark.parametrize(("name", "args", "code"), [
    ("jump", {}, "bad_input"),
    ("press", {}, "bad_input"),
    ("press", {"side": "c"}, "bad_input"),
    ("press", {"side": "a", "force": True}, "bad_input"),
    ("claim", {"side": "a", "winner": "a", "kind": 4}, "bad_input"),
    ("claim", {"side": "a", "winner": "a", "kind": 2, "points": 3}, "bad_points"),
    ("director_adjust", {"side": "a", "seconds": "ten"}, "bad_input"),
])
def test_malformed_inputs_are_refused(name: str, args: dict, code: str) -> None:
    d = running()
    before = d.table.snapshot()
    out = d.try_(name, **args)
    assert out.refusal.code == code and out.refusal.message
    after = d.table.snapshot()
    before.pop("last_now"), after.pop("last_now")
    assert before == after


def test_time_never_runs_backwards() -> None:
    t = Table()
    t.apply("tick", now=10.0)
    assert t.apply("tick", now=9.0).refusal.code == "time_backwards"


def test_assign_refuses_bad_matches() -> None:
    t = Table()
    base = {"match_id": "x", "players": {"a": "A", "b": "B"}, "length": 3}
    assert t.apply("assign", {**base, "length": 0}, now=0).refusal.code == "bad_length"
    assert t.apply("assign", {**base, "players": {"a": "A"}}, now=0).refusal.code == "bad_players"
    assert t.apply("assign", {**base, "clock": {"preset": "x"}}, now=0).refusal.code == "bad_clock"
    assert t.state == "idle"


def test_snapshot_restores_an_identical_table() -> None:
    d = running()
    d.do("press", after=7, side=on_move(d))
    d.do("both_held", after=2)
    copy = Table.restore(d.table.snapshot())
    for name, args in [("resume", {}), ("press", {"side": on_move(d)})]:
        d.now += 3
        a = d.table.apply(name, args, now=d.now)
        b = copy.apply(name, args, now=d.now)
        assert a.to_dict() == b.to_dict()
    assert copy.snapshot() == d.table.snapshot()


# ── properties over random input sequences ──────────────────────────────────
SIDES_ST = st.sampled_from(["a", "b"])
steps = st.lists(
    st.tuples(st.floats(min_value=0.0, max_value=40.0),
              st.sampled_from(["press", "press", "press", "hold", "both_held", "tick", "cube",
                               "pause_button", "claim", "confirm", "reject", "drop", "take"]),
              SIDES_ST, SIDES_ST, st.integers(1, 3)),
    max_size=80,
)


@settings(max_examples=150, deadline=None)
@given(steps=steps)
def test_random_sequences_never_break_the_rules(steps: list) -> None:
    """Random button mashing: never a crash; a press by the player not on move never changes
    anything; refused inputs change nothing; reserves only shrink; the score only grows."""
    d = running(length=5, clock={"reserve": 600.0, "delay": 10.0})
    for after, name, side, winner, kind in steps:
        before = d.table.snapshot()
        args: dict = {}
        if name in ("press", "hold", "confirm", "reject", "drop", "take"):
            args = {"side": side}
        elif name == "claim":
            args = {"side": side, "winner": winner, "kind": kind}
        out = d.try_(name, after=after, **args)
        after_snap = d.table.snapshot()
        flag = any(e.TYPE == "clock.flag_fell" for e in out.events)
        clock = d.table.s.clock
        if name == "press" and d.state == "running" and not flag and before["clock"]["on_move"] not in (None, side):
            assert out.refusal is not None
        if out.refusal is not None and not flag:
            before.pop("last_now"), after_snap.pop("last_now")
            assert before == after_snap
        for s in ("a", "b"):
            assert clock.reserve[s] <= before["clock"]["reserve"][s] + 1e-9
            assert d.table.s.match.score[s] >= before["match"]["score"][s]
        if d.state == "match_over":
            break


def test_every_input_has_a_handler() -> None:
    t = Table()
    for name in INPUT_NAMES:
        assert callable(getattr(t, f"_on_{name}"))


def test_a_hand_built_input_is_validated_and_completed() -> None:
    from mesa.engine.inputs import Input

    t = Table()
    out = t.apply(Input("assign", {"match_id": "M", "players": {"a": "A", "b": "B"}, "length": 3}),
                  now=0.0)
    assert out.accepted and t.state == "assigned"
    out = t.apply(Input("press", {"side": "z"}), now=1.0)
    assert out.refusal.code == "bad_input"


def test_an_internal_error_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    d = running()
    before = d.table.snapshot()

    def boom(self, inp, now):  # type: ignore[no-untyped-def]
        self.s.claim = {"half": "applied"}
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(Table, "_on_pause", boom)
    out = d.try_("pause", reason="dispute")
    assert out.refusal.code == "internal_error"
    after = d.table.snapshot()
    before.pop("last_now"), after.pop("last_now")
    assert before == after


def test_a_move_to_an_undeclared_state_is_refused_and_rolled_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    d = running()
    before = d.table.snapshot()
    assert "idle" not in TRANSITIONS[("running", "pause")].targets

    def jump(self: Table, inp: Input, now: float) -> None:
        self.s.pause_reason = "dispute"
        self._go("idle")

    monkeypatch.setattr(Table, "_on_pause", jump)
    out = d.try_("pause", reason="dispute")
    assert not out.accepted and out.state == "running"
    assert out.refusal is not None and out.refusal.code == "internal_error"
    assert "UndeclaredTransitionError" in out.refusal.message
    assert "pause in running went to idle" in out.refusal.message
    after = d.table.snapshot()
    before.pop("last_now"), after.pop("last_now")
    assert before == after


def test_the_assignment_epoch_is_kept_and_put_on_every_outcome() -> None:
    t = Table()
    args = {"match_id": "G1-1", "players": {"a": "Ana", "b": "Beto"}, "length": 3}
    assert t.apply("tick", {}, now=0.0).epoch is None  # never assigned: no token
    out = t.apply("assign", {**args, "epoch": 7}, now=1.0)
    assert out.accepted and out.epoch == 7 and t.snapshot()["epoch"] == 7
    assert t.apply("press", {"side": "a"}, now=2.0).epoch == 7
    # Epochs only grow: an older assignment (a replaced one, delivered late) is refused.
    late = t.apply("assign", {**args, "match_id": "G1-2", "epoch": 6}, now=3.0)
    assert late.refusal is not None and late.refusal.code == "stale_epoch"
    assert t.s.match_id == "G1-1" and late.epoch == 7
    # The unassignment belongs to the assignment it ends; the next one brings its own token.
    assert t.apply("unassign", {}, now=4.0).epoch == 7
    assert t.apply("assign", {**args, "epoch": 9}, now=5.0).epoch == 9
    assert Table.restore(t.snapshot()).s.epoch == 9
    # An assignment without a token (an older hub) is still taken.
    assert t.apply("assign", {**args, "match_id": "G1-3"}, now=6.0).accepted
