"""The domino rules core (RULES §5, seed 002): hands, timer, penalties, absence, end of time."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.errors import ConfigError, RuleError
from mesa.games.domino.game import DominoGame, LateRecord, TimeCall
from mesa.games.domino.penalties import DIRECTOR_REASONS, PENALTIES
from mesa.games.domino.rules import PLAY_ORDER, SEATS, DominoSettings, next_seat, pair_of

MIN = 60.0


def _hand(g: DominoGame, now: float, pair: str | None, points: int, how: str = "domino",
          lead: str | None = None) -> float:
    """Play one quick hand from between hands: the lead, one play, then domino/block."""
    g.start_hand(lead or g.next_lead or "n", now)  # type: ignore[arg-type]
    assert g.on_turn is not None
    now += 3
    if how == "domino":
        seat = g.on_turn
        if pair is not None and pair_of(seat) != pair:
            g.play(seat, now)
            now += 3
            seat = g.on_turn
        g.end_hand(seat, "domino", now)
    else:
        g.end_hand("n", "block", now)
    g.record_hand(pair, points)  # type: ignore[arg-type]
    return now + 30


# ── seats, settings ─────────────────────────────────────────────────────────
def test_play_order_goes_round_to_the_right() -> None:
    seat = "n"
    seen = []
    for _ in range(4):
        seen.append(seat)
        seat = next_seat(seat)  # type: ignore[arg-type]
    assert tuple(seen) == PLAY_ORDER and set(seen) == set(SEATS) and seat == "n"
    # Partners sit opposite: never consecutive in the play order.
    assert all(pair_of(a) != pair_of(b) for a, b in itertools.pairwise(PLAY_ORDER))


def test_settings_defaults_are_the_seeds_and_validated() -> None:
    s = DominoSettings()
    assert (s.target_points, s.game_minutes, s.play_seconds, s.pass_seconds) == (200, 35, 15, 5)
    assert s.penalty_points["slow_play"] == -25 and s.penalty_points["late_pass"] == 25
    assert s.penalty_points["absent"] == -100 and s.absence_points == 100
    assert DominoSettings(penalty_points={"chivo": -50}).penalty_points["false_pass"] == -25
    for bad in ({"play_seconds": 0}, {"game_minutes": float("nan")}, {"penalty_points": {"x": 1}},
                {"play_warnings": -1}, {"forfeit_points": 1.5}):
        with pytest.raises(ConfigError):
            DominoSettings(**bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown"):
        DominoSettings.from_dict({"speed": 1})
    assert DominoSettings.from_dict(s.to_dict()) == s


# ── hands ───────────────────────────────────────────────────────────────────
def test_first_lead_is_free_then_rotates_even_after_a_tied_block() -> None:
    g = DominoGame()
    g.start(0.0)
    now = _hand(g, 10.0, "ns", 20, lead="e")
    with pytest.raises(RuleError) as e:
        g.start_hand("e", now)
    assert e.value.code == "not_lead"
    now = _hand(g, now, None, 0, how="block")  # a tied block: nobody wins, the lead rotates
    now = _hand(g, now, "ew", 10)
    assert [h.lead for h in g.hands] == ["e", "n", "w"]
    assert g.hands[1].pair is None and g.score == {"ns": 20, "ew": 10}


def test_a_domino_belongs_to_the_pair_that_made_it() -> None:
    g = DominoGame()
    g.start(0.0)
    g.start_hand("n", 1.0)
    g.end_hand("w", "domino", 5.0)
    assert g.record_refusal("ns", 10).code == "not_winner"  # type: ignore[union-attr]
    assert g.record_refusal(None, 0).code == "no_winner"  # type: ignore[union-attr]
    assert g.record_refusal("ew", 170).code == "bad_points"  # type: ignore[union-attr]
    assert g.record_hand("ew", 42).pair == "ew"


def test_block_is_won_by_either_pair_and_a_tie_scores_zero() -> None:
    g = DominoGame()
    g.start(0.0)
    g.start_hand("n", 1.0)
    g.end_hand("s", "block", 5.0)  # called by a player not on turn
    assert g.record_refusal(None, 5).code == "no_winner"  # type: ignore[union-attr]
    assert g.record_hand("ew", 30).how == "block"


def test_turns_only_for_the_seat_on_turn() -> None:
    g = DominoGame()
    g.start(0.0)
    with pytest.raises(RuleError) as e:
        g.play("n", 1.0)
    assert e.value.code == "no_hand"
    g.start_hand("n", 1.0)
    with pytest.raises(RuleError) as e:
        g.play("s", 2.0)
    assert e.value.code == "not_on_turn"


# ── the play timer ──────────────────────────────────────────────────────────
def test_slow_play_is_a_warning_first_then_minus_25_each_time() -> None:
    g = DominoGame()
    g.start(0.0)
    g.start_hand("n", 0.0)  # w on turn
    first = g.play("w", 15.0)  # exactly 15 s is in time
    assert not first.warning and not first.penalties
    for _ in range(3):  # s, e, n
        g.play(g.on_turn, g.turn_started + 1)  # type: ignore[arg-type,operator]
    slow = g.play("w", g.turn_started + 15.5)  # type: ignore[operator]
    assert slow.warning and not slow.penalties
    for _ in range(3):
        g.play(g.on_turn, g.turn_started + 1)  # type: ignore[arg-type,operator]
    again = g.play("w", g.turn_started + 20)  # type: ignore[operator]
    assert not again.warning and [(p.seat, p.points, p.reason) for p in again.penalties] == [
        ("w", -25, "slow_play")]
    # Noted on w, never in the game's score (RULES §5: fines are the players' records).
    assert g.score == {"ns": 0, "ew": 0} and g.player_points("w") == -25


def test_late_pass_gives_25_to_each_player_of_the_other_pair() -> None:
    g = DominoGame()
    g.start(0.0)
    g.start_hand("e", 0.0)  # n on turn
    assert not g.pass_("n", 5.0).penalties  # exactly 5 s is in time
    late = g.pass_("w", 10.01)
    assert sorted((p.seat, p.points) for p in late.penalties) == [("n", 25), ("s", 25)]
    assert all(p.offender == "w" for p in late.penalties)
    assert g.score == {"ns": 0, "ew": 0} and g.player_points("n") == g.player_points("s") == 25


# ── the end of time (RULES §5) ──────────────────────────────────────────────
def _at_time(g: DominoGame) -> float:
    assert g.end_at is not None
    return g.end_at


def test_time_with_the_last_tile_not_placed_makes_this_hand_the_last() -> None:
    g = DominoGame()
    g.start(0.0)
    now = _hand(g, 10.0, "ns", 40)
    g.start_hand(g.next_lead, now)  # type: ignore[arg-type]
    call = g.settle_time(_at_time(g))
    assert call == TimeCall(hand=2, final_hand=2, in_progress=True)
    assert g.settle_time(_at_time(g) + 100) is None  # called once
    g.end_hand(g.on_turn, "domino", _at_time(g) + 10)  # type: ignore[arg-type]
    g.record_hand(pair_of(g.ended_by_seat), 5)  # type: ignore[arg-type]
    assert g.over and g.ended_by == "time" and len(g.hands) == 2


def test_time_while_counting_plays_one_more_hand() -> None:
    g = DominoGame()
    g.start(0.0)
    g.start_hand("n", 10.0)
    g.end_hand("w", "domino", 2000.0)  # the last tile is down before TIEMPO
    call = g.settle_time(_at_time(g))
    assert call == TimeCall(hand=1, final_hand=2, in_progress=False)
    g.record_hand("ew", 30)
    assert not g.over
    _hand(g, _at_time(g) + 60, "ns", 50)
    assert g.over and g.ended_by == "time" and g.winner == "ns"


def test_time_between_hands_plays_one_more_hand() -> None:
    g = DominoGame()
    g.start(0.0)
    now = _hand(g, 10.0, "ns", 30)
    assert g.settle_time(max(now, _at_time(g))) == TimeCall(1, 2, False)
    _hand(g, _at_time(g) + 1, "ns", 10)
    assert g.over and g.ended_by == "time"


def test_time_with_200_reached_in_the_counted_hand_ends_by_points() -> None:
    g = DominoGame()
    g.start(0.0)
    now = _hand(g, 10.0, "ns", 150)
    g.start_hand(g.next_lead, now)  # type: ignore[arg-type]
    g.end_hand(g.on_turn, "domino", 2099.0)  # type: ignore[arg-type]
    g.settle_time(2100.0)
    g.record_hand(pair_of(g.ended_by_seat), 60)  # type: ignore[arg-type]
    assert g.over and g.ended_by == "points"


def test_a_tie_at_time_plays_another_hand_until_it_breaks() -> None:
    g = DominoGame()
    g.start(0.0)
    now = _hand(g, 10.0, "ns", 30)
    now = _hand(g, now, "ew", 30)
    g.settle_time(_at_time(g))
    assert g.final_hand == 3
    now = _hand(g, _at_time(g), None, 0, how="block")  # tied block: still 30–30
    assert not g.over and g.final_hand == 4
    _hand(g, now, "ew", 12)
    assert g.over and g.winner == "ew" and len(g.hands) == 4


def test_200_points_end_the_game_before_time() -> None:
    g = DominoGame()
    g.start(0.0)
    now = _hand(g, 10.0, "ns", 120)
    now = _hand(g, now, "ew", 90)
    _hand(g, now, "ns", 85)
    assert g.over and g.ended_by == "points" and g.winner == "ns" and g.games_won["ns"] == 1
    with pytest.raises(RuleError):
        g.start_hand("w", now + 100)


def test_a_start_in_the_past_and_a_reanchor() -> None:
    g = DominoGame()
    g.start(-2200.0)  # a table that joined after the 35 minutes
    assert g.time_left(0.0) == 0.0
    assert g.settle_time(0.0) == TimeCall(0, 1, False)  # one hand is still played
    g2 = DominoGame()
    g2.start(0.0)
    g2.start_hand("n", 10.0)
    g2.anchor(started_at=-600.0, now=50.0)  # restarted: the hub says 10 minutes more passed
    assert g2.time_left(50.0) == 2100.0 - 650.0 and g2.turn_elapsed(50.0) == 0.0


# ── penalties, absence, expulsion, sheet ────────────────────────────────────
@pytest.mark.parametrize("reason", DIRECTOR_REASONS)
def test_every_director_reason_records_per_player(reason: str) -> None:
    g = DominoGame()
    g.start(0.0)
    records = g.penalize("n", reason)
    rule = PENALTIES[reason]
    expected = {"offender": {"n"}, "offender_and_partner": {"n", "s"},
                "offender_pair": {"n", "s"}, "other_pair": {"e", "w"},
                "table": set(SEATS)}[rule.scope]
    if rule.points:
        assert {r.seat for r in records} == expected
        assert all(r.points == rule.points and r.reason == reason for r in records)
    assert g.over == rule.expels
    if rule.expels:
        assert g.winner == "ew" and g.ended_by == "expulsion" and g.expelled == ["n"]


def test_fines_never_change_a_game() -> None:
    """The issue's case: a fine that would have taken ns under 200, or broken a tie at time,
    changes nothing; the game is counted in hand points."""
    g = DominoGame()
    g.start(0.0)
    now = _hand(g, 10.0, "ns", 150)
    g.penalize("n", "talking_second")  # −75 to n and to s, noted
    _hand(g, now, "ns", 50)
    assert g.over and g.ended_by == "points" and g.winner == "ns"
    assert g.score == {"ns": 200, "ew": 0} and g.player_points("s") == -75
    t = DominoGame()
    t.start(0.0)
    now = _hand(t, 10.0, "ns", 30)
    now = _hand(t, now, "ew", 30)
    t.penalize("e", "chivo")
    t.settle_time(_at_time(t))
    assert not t.over and t.final_hand == 3  # the tie at time stands: another hand is played


def test_an_expulsion_ends_the_game_with_no_points_given() -> None:
    g = DominoGame()
    g.start(0.0)
    now = _hand(g, 10.0, "ew", 40)
    g.penalize("e", "abandoned")
    assert g.over and (g.winner, g.ended_by, g.expelled) == ("ns", "expulsion", ["e"])
    assert g.score == {"ns": 0, "ew": 40} and g.player_points("e") == -200
    assert g.games_won == {"ns": 1, "ew": 0}
    with pytest.raises(RuleError):
        g.start_hand("n", now)


def test_an_annulled_hand_scores_nothing_and_the_lead_rotates() -> None:
    g = DominoGame()
    g.start(0.0)
    now = _hand(g, 10.0, "ns", 20, lead="e")
    g.start_hand("n", now)
    g.play("w", now + 2)
    record = g.annul_hand("s", "pass_with_playable")
    assert (record.how, record.pair, record.points, record.by, record.lead) == (
        "annulled", None, 0, "s", "n")
    assert g.phase == "between" and g.on_turn is None and g.score == {"ns": 20, "ew": 0}
    assert g.next_lead == "w"
    with pytest.raises(RuleError) as e:
        g.annul_hand("s", "chivo")  # between hands: nothing to annul
    assert e.value.code == "no_hand"
    g.start_hand("w", now + 10)
    g.end_hand("n", "block", now + 12)
    g.annul_hand("e", "chivo")  # while its points are counted
    assert [h.how for h in g.hands] == ["domino", "annulled", "annulled"]
    with pytest.raises(RuleError) as e:
        g.start_hand("n", now + 20)
    assert e.value.code == "not_lead"  # the lead rotated past both annulled hands: s leads
    g.start_hand("s", now + 20)
    with pytest.raises(RuleError) as e:
        g.annul_hand("e", "talking")
    assert e.value.code == "bad_reason"


def test_an_annulled_last_hand_ends_the_game_on_time() -> None:
    g = DominoGame()
    g.start(0.0)
    now = _hand(g, 10.0, "ew", 30)
    g.start_hand(g.next_lead, now)  # type: ignore[arg-type]
    assert g.settle_time(_at_time(g)) == TimeCall(2, 2, True)
    g.annul_hand("n", "chivo")
    assert g.over and (g.winner, g.ended_by) == ("ew", "time")
    tied = DominoGame()
    tied.start(0.0)
    tied.start_hand("n", 1.0)
    tied.settle_time(_at_time(tied))
    tied.annul_hand("n", "chivo")  # 0–0 at time's last hand: another is played
    assert not tied.over and tied.final_hand == 2


def test_late_arrivals_are_noted_between_hands() -> None:
    g = DominoGame()
    assert g.note_late("n") == 1
    g.start(0.0)
    assert g.note_late("n") == 2 and g.late == [LateRecord("n", 0), LateRecord("n", 0)]
    assert DominoGame.from_dict(g.to_dict()) == g
    g.start_hand("e", 1.0)
    with pytest.raises(RuleError) as e:
        g.note_late("s")
    assert e.value.code == "not_between_hands"


def test_the_pairs_that_did_not_sign() -> None:
    g = DominoGame()
    g.declare_absent(["n", "s"])  # ns absent whole: nobody of theirs can sign
    assert g.unsigned == ["ew"]
    g.sign("w")
    assert g.unsigned == []
    h = DominoGame()
    h.declare_absent(["s"])
    assert h.unsigned == ["ns", "ew"]


def test_an_old_snapshot_with_awards_still_loads() -> None:
    g = DominoGame()
    g.declare_absent(["e"])
    data = g.to_dict()
    data["awards"] = [{"pair": "ns", "points": 100, "reason": "absence"}]
    assert DominoGame.from_dict(data).score == {"ns": 0, "ew": 0}


def test_the_seeds_penalty_amounts() -> None:
    amounts = {r.points for r in PENALTIES.values()}
    assert {-25, -50, -75, -100, -200, 25} <= amounts
    assert any(r.expels for r in PENALTIES.values())


def test_absence_gives_the_present_pair_a_game_and_100() -> None:
    g = DominoGame()
    records = g.declare_absent(["e"])
    assert [(r.seat, r.points) for r in records] == [("e", -100)]
    assert g.over and g.winner == "ns" and g.ended_by == "absence"
    # The +100 and the −100 are the players' records: the game scores no hand.
    assert g.games_won == {"ns": 1, "ew": 0} and g.score == {"ns": 0, "ew": 0}
    assert g.player_points("e") == -100 and g.absent == ["e"]
    both = DominoGame()
    both.declare_absent(["n", "w"])
    assert both.winner is None and both.score == {"ns": 0, "ew": 0}
    late = DominoGame()
    late.start(0.0)
    _hand(late, 1.0, "ns", 10)
    with pytest.raises(RuleError) as e:
        late.declare_absent(["n"])
    assert e.value.code == "game_under_way"


def test_sheet_is_signed_by_one_player_of_each_pair() -> None:
    g = DominoGame()
    with pytest.raises(RuleError):
        g.sign("n")
    g.declare_absent(["w"])
    assert g.sign("n") and not g.sign("s") and not g.sheet_signed
    assert g.sign("e") and g.sheet_signed and g.signed == {"ns": "n", "ew": "e"}


def test_round_trip() -> None:
    g = DominoGame()
    g.start(0.0)
    now = _hand(g, 1.0, "ns", 10)
    g.start_hand(g.next_lead, now)  # type: ignore[arg-type]
    g.pass_(g.on_turn, now + 9)  # type: ignore[arg-type]
    assert DominoGame.from_dict(g.to_dict()) == g


# ── properties ──────────────────────────────────────────────────────────────
_HAND = st.tuples(st.just("hand"), st.sampled_from(["ns", "ew", None]), st.integers(0, 169),
                  st.lists(st.floats(0.0, 20.0), max_size=6), st.booleans())
ACTIONS = st.one_of(
    _HAND, _HAND, _HAND, _HAND,
    st.tuples(st.just("wait"), st.floats(0.0, 400.0)),
    st.tuples(st.just("lead"), st.sampled_from([*SEATS, None, None, None])),
    st.tuples(st.just("play"), st.floats(0.0, 20.0)),
    st.tuples(st.just("pass"), st.floats(0.0, 8.0)),
    st.tuples(st.just("domino"), st.floats(0.0, 20.0)),
    st.tuples(st.just("block"), st.sampled_from(SEATS)),
    st.tuples(st.just("record"), st.sampled_from(["ns", "ew", None]), st.integers(0, 169)),
    st.tuples(st.just("penalty"), st.sampled_from(SEATS),
              st.sampled_from([r for r in DIRECTOR_REASONS if not PENALTIES[r].expels])),
    st.tuples(st.just("absent"), st.lists(st.sampled_from(SEATS), min_size=1, max_size=2,
                                          unique=True)),
    st.tuples(st.just("sign"), st.sampled_from(SEATS)),
    st.tuples(st.just("annul"), st.sampled_from(SEATS), st.sampled_from(["chivo", "other"])),
    st.tuples(st.just("late"), st.sampled_from(SEATS)),
)


def _apply(g: DominoGame, action: tuple[Any, ...], now: float) -> tuple[float, TimeCall | None]:
    kind = action[0]
    if kind in ("wait", "play", "pass", "domino"):
        now += action[1]
    call = g.settle_time(now)
    seat = g.on_turn or "n"
    if kind == "lead":
        g.start_hand(action[1] or g.next_lead or "n", now)  # None: the rotation's lead
    elif kind == "play":
        g.play(seat, now)
    elif kind == "pass":
        g.pass_(seat, now)
    elif kind == "domino":
        g.end_hand(seat, "domino", now)
    elif kind == "block":
        g.end_hand(action[1], "block", now)
    elif kind == "record":
        pair = action[1]
        if g.hand_how == "domino" and pair is not None and g.ended_by_seat is not None:
            pair = pair_of(g.ended_by_seat)
        g.record_hand(pair, action[2] if pair is not None else 0)
    elif kind == "penalty":
        g.penalize(action[1], action[2])
    elif kind == "absent":
        g.declare_absent(action[1])
    elif kind == "sign":
        g.sign(action[1])
    elif kind == "annul":
        g.annul_hand(action[1], action[2])
    elif kind == "late":
        g.note_late(action[1])
    elif kind == "hand":  # a whole hand: the lead, some plays, a domino or block, its points
        _, pair, points, plays, block = action
        g.start_hand(g.next_lead or "n", now)
        for seconds in plays:
            now += seconds
            assert g.on_turn is not None
            g.play(g.on_turn, now)
        now += 2
        assert g.on_turn is not None
        g.end_hand(g.on_turn, "block" if block else "domino", now)
        if not block:
            assert g.ended_by_seat is not None
            pair = pair_of(g.ended_by_seat)
        g.record_hand(pair, points if pair is not None else 0)
        now += 20
    return now, call


WHOLE_HANDS = st.one_of(
    _HAND, _HAND, _HAND,
    st.tuples(st.just("wait"), st.floats(0.0, 900.0)),
    st.tuples(st.just("penalty"), st.sampled_from(SEATS), st.sampled_from(["chivo", "talking"])),
)


@settings(max_examples=300, deadline=None)
@given(actions=st.lists(ACTIONS, max_size=80), late_start=st.floats(0.0, 2200.0))
def test_game_invariants(actions: list[tuple[Any, ...]], late_start: float) -> None:
    _check_invariants(actions, late_start)


@settings(max_examples=300, deadline=None)
@given(actions=st.lists(WHOLE_HANDS, min_size=3, max_size=30), late_start=st.floats(0.0, 2200.0))
def test_game_invariants_with_whole_hands(actions: list[tuple[Any, ...]],
                                          late_start: float) -> None:
    _check_invariants(actions, late_start)


def _check_invariants(actions: list[tuple[Any, ...]], late_start: float) -> None:
    """Whatever happens: points move only with hands; a pair's score is its hands' points (fines
    are noted per player, never in it); refusals change nothing; the lead rotates (annulled
    hands included); the game ends once, by the rules of 200 points and of time, never on a
    tie."""
    g = DominoGame()
    g.start(-late_start)
    now = 0.0
    ended: tuple[Any, ...] | None = None
    calls: list[TimeCall] = []
    for action in actions:
        before = g.to_dict()
        counts = len(g.hands)
        score_before = g.score
        try:
            now, call = _apply(g, action, now)
        except RuleError as e:
            assert e.code and str(e)
            # A refusal may only have settled the time (which is time's doing, not the input's).
            after = g.to_dict()
            for key in ("time_called", "final_hand"):
                before.pop(key), after.pop(key)
            assert after == before, action
            continue
        if call is not None:
            calls.append(call)
        if action[0] in ("record", "annul") and not g.over:
            # Still on after a hand: nobody has 200 and time's last hand is not done, or a tie.
            tied = g.score["ns"] == g.score["ew"]
            assert tied or (max(g.score.values()) < 200
                            and not (g.time_called and g.hand >= (g.final_hand or 0)))
        # Points change only through new hands, by exactly what they say (never by a fine).
        new_hands = g.hands[counts:]
        for pair in ("ns", "ew"):
            delta = sum(h.points for h in new_hands if h.pair == pair)
            assert g.score[pair] - score_before[pair] == delta
        # The game ends exactly once and its result never changes afterwards.
        if ended is not None:
            assert g.over and (g.winner, g.ended_by, len(g.hands)) == ended
        elif g.over:
            ended = (g.winner, g.ended_by, len(g.hands))
            if g.ended_by in ("points", "time"):
                assert g.score["ns"] != g.score["ew"]
                assert g.winner == max(("ns", "ew"), key=lambda p: g.score[p])
                assert sum(g.games_won.values()) == 1 and g.games_won[g.winner] == 1
            if g.ended_by == "points":
                assert max(g.score.values()) >= 200
            if g.ended_by == "time":
                assert g.time_called and g.final_hand == len(g.hands)
    # The score is the hands' sum, pair by pair: hand points only.
    for pair in ("ns", "ew"):
        assert g.score[pair] == sum(h.points for h in g.hands if h.pair == pair)
    # The lead rotates hand after hand, tied blocks included.
    for a, b in itertools.pairwise(g.hands):
        assert b.lead == next_seat(a.lead)
    assert [h.number for h in g.hands] == list(range(1, len(g.hands) + 1))
    # Time is called at most once; no hand starts after the final one; a tie extends it.
    assert len(calls) <= 1
    if calls:
        call = calls[0]
        assert call.final_hand == call.hand + (0 if call.in_progress else 1)
        assert g.hand <= max(g.final_hand or 0, call.final_hand)
    assert DominoGame.from_dict(g.to_dict()) == g
