"""The domino table's behaviour: buttons, the play timer, the points entry, time, restore."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.events import parse_event
from mesa.games.domino.inputs import INPUT_NAMES
from mesa.games.domino.machine import DominoTable
from mesa.games.domino.penalties import REASONS
from mesa.games.domino.rules import SEATS, pair_of
from mesa.games.domino.transitions import STATES
from mesa.games.domino.view import domino_view
from mesa.games.domino.words import LANGUAGES, STRINGS, text
from mesa.words import Catalog, forms
from support.domino_builders import PLAYERS, Driver, assigned, hand_entry, play_hand, playing, ready


def _types(out: Any) -> list[str]:
    return [e.TYPE for e in out.events]


# ── turns and the play timer ───────────────────────────────────────────────
def test_turns_go_round_to_the_right_and_only_the_seat_on_turn_plays() -> None:
    d = playing(lead="e")
    assert d.on_turn == "n"
    assert d.try_("press", seat="s").refusal.code == "not_on_turn"  # type: ignore[union-attr]
    seen = []
    for _ in range(4):
        seen.append(d.on_turn)
        d.do("press", seat=d.on_turn)
    assert seen == ["n", "w", "s", "e"]


def test_slow_play_warning_then_minus_25() -> None:
    d = playing()  # w on turn
    out = d.do("press", after=16, seat="w")
    assert _types(out) == ["domino.turn.ended", "domino.play.warning"]
    for _ in range(3):
        d.do("press", seat=d.on_turn)
    out = d.do("press", after=15.5, seat="w")
    assert _types(out) == ["domino.turn.ended", "domino.penalty"]
    assert out.events[1].to_data() == {"seat": "w", "points": -25, "reason": "slow_play",
                                       "offender": "w", "hand": 1}
    v = domino_view(d.table, d.now)
    assert v.score == {"ns": 0, "ew": 0} and v.player_points["w"] == -25  # noted, not scored
    assert v.warnings["w"] == 1 and v.penalties[-1].reason == "slow_play"


def test_late_pass_gives_25_to_each_opponent() -> None:
    d = playing()  # w on turn
    out = d.do("hold", after=6, seat="w")
    assert _types(out) == ["domino.turn.ended", "domino.penalty", "domino.penalty"]
    assert {(e.seat, e.points) for e in out.events[1:]} == {("n", 25), ("s", 25)}  # type: ignore[attr-defined]
    v = domino_view(d.table, d.now)
    assert v.score == {"ns": 0, "ew": 0} and v.player_points == {"n": 25, "e": 0, "s": 25, "w": 0}


def test_view_shows_the_timer_time_points_and_hand() -> None:
    d = playing()
    v = domino_view(d.table, d.now + 9)
    assert v.timer is not None and v.timer.seat == "w" and v.timer.left == 6.0
    assert v.timer.pass_limit == 5.0 and not v.timer.over
    assert v.game_time_left == 2100.0 - 1 - 9 and v.hand == 1 and v.score == {"ns": 0, "ew": 0}
    assert v.prompt == "prompt.play"
    assert domino_view(d.table, d.now + 20).timer.over  # type: ignore[union-attr]


# ── the hand's points ──────────────────────────────────────────────────────
def test_entry_wheel_units_tens_and_accept() -> None:
    d = hand_entry()  # w placed the last tile... or n: whoever was on turn dominoed
    seat = d.entering()
    partner = {"n": "s", "s": "n", "e": "w", "w": "e"}[seat]
    for _ in range(3):
        d.do("hold", seat=seat)  # tens: 30
    for _ in range(12):
        d.do("press", seat=partner)  # units wrap: 2 (either player of the pair)
    assert domino_view(d.table, d.now).entry["points"] == 32  # type: ignore[index]
    opponent = "n" if seat in ("e", "w") else "e"
    assert d.try_("press", seat=opponent).refusal.code == "not_entering_pair"  # type: ignore[union-attr]
    out = d.do("long_hold", seat=seat)
    assert out.state == "hand_confirm" and out.events[0].to_data()["points"] == 32
    assert d.try_("hold", seat=seat).refusal.code == "own_claim"  # type: ignore[union-attr]
    d.do("press", seat=opponent)  # refused by the other pair: back to entry, digits kept
    assert d.state == "hand_entry" and domino_view(d.table, d.now).entry["points"] == 32  # type: ignore[index]
    d.do("press", seat=seat)
    d.do("long_hold", seat=seat)
    out = d.do("hold", seat=opponent)
    assert out.state == "ready" and out.events[0].to_data()["points"] == 33


def test_block_entry_picks_the_pair_and_zero_is_a_tie() -> None:
    d = hand_entry(block=True)
    assert domino_view(d.table, d.now).prompt == "prompt.pick_pair"
    out = d.do("long_hold", seat="e")  # 0 on a block: a tied block, claimed by e
    assert out.events[0].to_data() == {"hand": 1, "by": "e", "pair": None, "points": 0}
    out = d.do("hold", seat="s")
    ended = out.events[0].to_data()
    assert ended["pair"] is None and ended["how"] == "block" and ended["score"] == {"ns": 0,
                                                                                    "ew": 0}
    assert domino_view(d.table, d.now).next_lead == "w"  # the lead rotates after a tie


def _blocked() -> Driver:
    """The issue's smallest case up to the block: n leads, w plays, then w (off turn) calls it."""
    d = ready()
    d.do("press", seat="n")
    d.do("press", after=2, seat="w")
    d.do("long_hold", after=2, seat="w")
    assert d.state == "hand_entry" and d.table.s.game.hand_how == "block"  # type: ignore[union-attr]
    return d


def _ended(out: Any) -> dict[str, Any]:
    ended = [e.to_data() for e in out.events if e.TYPE == "domino.hand.ended"]
    assert len(ended) == 1
    return ended[0]


def test_a_refused_block_claim_reopens_the_entry_for_both_pairs() -> None:
    """The issue's smallest case: ns claim 45, ew refuse; ew's own claim of 10 is accepted."""
    d = _blocked()
    d.do("claim", after=6, seat="n", points=45)
    d.do("reject", seat="e")
    out = d.do("claim", seat="e", points=10)
    assert out.events[0].to_data() == {"hand": 1, "by": "e", "pair": "ew", "points": 10}
    assert d.try_("confirm", seat="w").refusal.code == "own_claim"  # type: ignore[union-attr]
    ended = _ended(d.do("confirm", seat="s"))
    assert (ended["pair"], ended["points"], ended["confirmed_by"]) == ("ew", 10, "s")
    assert ended["score"] == {"ns": 0, "ew": 10}


def test_a_digit_press_after_a_block_does_not_lock_the_entry() -> None:
    d = _blocked()
    d.do("press", seat="n")  # ns start turning the wheel: 1
    out = d.do("claim", seat="e", points=10)
    assert out.state == "hand_confirm" and out.events[0].to_data()["pair"] == "ew"
    assert _ended(d.do("hold", seat="n"))["pair"] == "ew"


def test_the_other_pairs_button_takes_the_block_entry_with_the_digits_reset() -> None:
    d = _blocked()
    for _ in range(4):
        d.do("hold", seat="n")  # ns: 40
    d.do("press", seat="w")  # ew take the entry: their wheel starts at 0, then 1
    v = domino_view(d.table, d.now)
    assert v.entry == {"pair": "ew", "by": "w", "points": 1}
    d.do("hold", seat="e")
    assert domino_view(d.table, d.now).entry == {"pair": "ew", "by": "e", "points": 11}
    d.do("long_hold", seat="e")
    assert _ended(d.do("hold", seat="s"))["points"] == 11


def test_a_refused_tie_claim_reopens_the_entry_for_both_pairs() -> None:
    d = _blocked()
    out = d.do("long_hold", seat="n")  # 0 on the wheel after a block: n claim a tie
    assert out.events[0].to_data() == {"hand": 1, "by": "n", "pair": None, "points": 0}
    d.do("press", seat="e")  # refused
    assert d.state == "hand_entry"
    d.do("claim", seat="e", points=10)
    assert _ended(d.do("confirm", seat="n"))["pair"] == "ew"


def test_a_tie_claimed_by_either_pair_is_answered_by_the_other() -> None:
    d = _blocked()
    d.do("press", seat="n")
    d.do("claim", seat="w", points=0, tie=True)
    assert d.try_("confirm", seat="e").refusal.code == "own_claim"  # type: ignore[union-attr]
    ended = _ended(d.do("confirm", seat="s"))
    assert ended["pair"] is None and ended["points"] == 0


def test_a_domino_stays_the_dominoing_pairs_after_a_refusal() -> None:
    d = hand_entry()
    seat = d.entering()
    other = "e" if seat in ("n", "s") else "n"
    d.do("claim", seat=seat, points=30)
    d.do("reject", seat=other)
    assert d.try_("claim", seat=other, points=10).refusal.code == "not_entering_pair"  # type: ignore[union-attr]
    assert d.try_("press", seat=other).refusal.code == "not_entering_pair"  # type: ignore[union-attr]


def test_a_domino_can_only_be_entered_by_its_pair() -> None:
    d = hand_entry()
    g = d.table.s.game
    assert g is not None and g.ended_by_seat is not None
    other = "e" if g.ended_by_seat in ("n", "s") else "n"
    assert d.try_("claim", seat=other, points=10).refusal.code == "not_entering_pair"  # type: ignore[union-attr]
    assert d.try_("claim", seat=d.entering(), points=500).refusal.code == "bad_points"  # type: ignore[union-attr]


# ── the game's time ────────────────────────────────────────────────────────
def test_tiempo_late_join_and_restart_reanchor() -> None:
    d = assigned()
    out = d.do("tiempo", start_wall=1000.0, wall=1600.0)  # this table joined 10 min late
    assert out.events[0].to_data() == {"start_wall": 1000.0, "elapsed": 600.0,
                                       "time_left": 1500.0}
    d.do("press", seat="n")
    snap = json.loads(json.dumps(d.table.snapshot()))
    # Power cut: the Pi reboots, its monotonic clock restarts near 0; 5 minutes were lost.
    table = DominoTable.restore(snap, now=3.0)
    assert table.apply("press", {"seat": "w"}, now=4.0).accepted  # time goes on from 3.0
    out = table.apply("tiempo", {"start_wall": 1000.0, "wall": 1905.0}, now=5.0)
    assert [e.TYPE for e in out.events] == ["domino.time.synced"]
    v = domino_view(table, 5.0)
    assert v.game_time_left == 2100.0 - 905.0 and v.timer.elapsed == 0.0  # type: ignore[union-attr]


def test_time_called_once_by_a_tick_and_shown() -> None:
    d = playing()
    out = d.try_("tick", after=2100.0)
    assert _types(out) == ["domino.time.called"]
    assert out.events[0].to_data() == {"hand": 1, "final_hand": 1, "in_progress": True}
    assert _types(d.try_("tick")) == []
    v = domino_view(d.table, d.now)
    assert v.time_called and v.last_hand and v.game_time_left == 0.0


def test_time_called_is_kept_when_the_input_is_refused() -> None:
    d = playing()
    out = d.try_("press", after=2200.0, seat="s")  # not on turn, but time is up anyway
    assert out.refusal.code == "not_on_turn" and _types(out) == ["domino.time.called"]  # type: ignore[union-attr]
    assert d.table.s.game.time_called  # type: ignore[union-attr]


def test_tie_at_time_plays_another_hand() -> None:
    d = ready()
    play_hand(d, "ns", 30)
    play_hand(d, "ew", 30)
    d.do("penalty", seat="s", reason="other", points=-20)  # a fine breaks no tie: still 30–30
    d.try_("tick", after=2100)
    play_hand(d, "ns", 0)  # a domino for 0: still 30–30 at time's last hand
    assert d.state == "ready"
    assert domino_view(d.table, d.now).final_hand == 4


# ── penalties, absence, sheet ──────────────────────────────────────────────
def test_expulsion_ends_the_game_for_the_other_pair() -> None:
    d = playing()
    out = d.do("penalty", seat="w", reason="abandoned")
    assert _types(out) == ["domino.penalty", "domino.player.expelled", "domino.game.ended"]
    assert out.events[-1].to_data() == {"winner": "ns", "how": "expulsion",
                                        "score": {"ns": 0, "ew": 0},
                                        "games_won": {"ns": 1, "ew": 0}, "hands": 0,
                                        "absent": [], "expelled": ["w"]}


def test_absence_and_signing_the_sheet() -> None:
    d = ready()
    out = d.do("absence", seats=["n"])
    assert _types(out) == ["domino.absence", "domino.penalty", "domino.game.ended"]
    assert out.events[-1].to_data()["score"] == {"ns": 0, "ew": 0}
    assert out.events[-1].to_data()["absent"] == ["n"]
    assert domino_view(d.table, d.now).prompt == "prompt.sign_sheet"
    assert d.do("press", seat="e").events[0].to_data()["complete"] is False
    assert d.try_("sign", seat="w").refusal.code == "already_signed"  # type: ignore[union-attr]
    assert d.do("sign", seat="s").events[0].to_data() == {"pair": "ns", "seat": "s",
                                                          "complete": True}
    assert domino_view(d.table, d.now).prompt is None


def test_a_late_arrival_is_noted_and_shown_between_hands() -> None:
    d = assigned()
    out = d.do("late", seat="s")
    assert [e.to_dict() for e in out.events] == [
        {"type": "domino.player.late", "data": {"seat": "s", "hand": 0}}]
    assert out.state == "assigned" and domino_view(d.table, d.now).late == ("s",)
    d.do("tiempo", start_wall=1000.0, wall=1000.0)
    play_hand(d, "ns", 20)
    assert domino_view(d.table, d.now).late == ()  # shown until the next hand
    out = d.do("late", seat="s")
    assert out.events[0].to_data() == {"seat": "s", "hand": 1}
    assert d.table.s.game.score == {"ns": 20, "ew": 0}  # type: ignore[union-attr]
    d.do("press", seat="w")
    assert d.try_("late", seat="n").refusal.code == "not_now"  # type: ignore[union-attr]


def test_an_annulled_hand_scores_nothing_and_the_lead_rotates() -> None:
    d = ready()
    play_hand(d, "ns", 20)  # n led hand 1
    d.do("press", seat="w")
    d.do("press", seat="s")
    out = d.do("annul", seat="s", reason="pass_with_playable")
    assert [e.to_dict() for e in out.events] == [{"type": "domino.hand.annulled", "data": {
        "hand": 2, "seat": "s", "reason": "pass_with_playable", "score": {"ns": 20, "ew": 0}}}]
    assert out.state == "ready"
    v = domino_view(d.table, d.now)
    assert v.next_lead == "s" and v.annulled == {"hand": 2, "seat": "s",
                                                 "reason": "pass_with_playable"}
    assert v.timer is None and v.entry is None and v.score == {"ns": 20, "ew": 0}
    # In the entry and in the confirmation too.
    d.do("press", seat="s")
    d.do("long_hold", seat="n")  # a block
    d.do("press", seat="e")
    assert d.do("annul", seat="w", reason="chivo").state == "ready"
    assert domino_view(d.table, d.now).annulled == {"hand": 3, "seat": "w", "reason": "chivo"}
    play_hand(d, "ew", 10)
    assert domino_view(d.table, d.now).annulled is None
    assert d.try_("annul", seat="n", reason="chivo").refusal.code == "not_now"  # type: ignore[union-attr]
    assert not d.try_("annul", seat="n", reason="talking").accepted


def test_an_annulled_last_hand_ends_the_game_on_time_or_plays_another_on_a_tie() -> None:
    d = ready()
    play_hand(d, "ew", 30)
    d.do("press", seat="w")
    d.try_("tick", after=2100)  # this hand is the last
    out = d.do("annul", seat="n", reason="chivo")
    assert _types(out) == ["domino.hand.annulled", "domino.game.ended"]
    assert out.events[-1].to_data()["how"] == "time" and out.state == "game_over"
    t = ready()
    t.do("press", seat="n")
    t.try_("tick", after=2100)
    out = t.do("annul", seat="n", reason="chivo")  # 0–0: time's tie plays another hand
    assert _types(out) == ["domino.hand.annulled", "domino.time.extended"]
    assert out.state == "ready"


def test_an_unsigned_sheet_is_reported_when_the_table_moves_on() -> None:
    d = ready(target_points=50)
    play_hand(d, "ew", 60)
    d.do("sign", seat="e")
    out = d.do("assign", game_id="R2-M1", players=PLAYERS)
    assert out.events[0].to_dict() == {
        "type": "domino.sheet.unsigned", "data": {"game_id": "R1-M1", "pairs": ["ns"]}}
    assert _types(out) == ["domino.sheet.unsigned", "domino.table.assigned"]
    assert domino_view(d.table, d.now).unsigned_before == ("ns",)
    # A game not over, or a sheet signed by both, reports nothing.
    assert _types(d.do("unassign")) == ["domino.table.unassigned"]
    assert domino_view(d.table, d.now).unsigned_before == ()
    e = ready(target_points=50)
    play_hand(e, "ew", 60)
    out = e.do("unassign")
    assert [x.to_data() for x in out.events] == [{"game_id": "R1-M1", "pairs": ["ns", "ew"]},
                                                 {"game_id": "R1-M1"}]
    f = ready(target_points=50)
    play_hand(f, "ew", 60)
    f.do("sign", seat="n")
    f.do("sign", seat="w")
    assert _types(f.do("assign", game_id="R2-M1", players=PLAYERS)) == ["domino.table.assigned"]


def test_the_game_ended_names_the_absent_and_the_expelled() -> None:
    d = ready()
    out = d.do("absence", seats=["n", "s"])
    ended = out.events[-1].to_data()
    assert (ended["winner"], ended["absent"], ended["expelled"]) == ("ew", ["n", "s"], [])
    # Nobody of ns is left to sign: only ew's signature is missing.
    assert d.do("assign", game_id="R2", players=PLAYERS).events[0].to_data()["pairs"] == ["ew"]


def test_a_snapshot_from_before_the_records_moved_to_the_hub_restores() -> None:
    """An older table's journal: no late arrivals, no unsigned sheet, the pairs' awards kept in
    the game. It restores, and its score is its hands'."""
    d = ready()
    play_hand(d, "ns", 20)
    snap = json.loads(json.dumps(d.table.snapshot()))
    snap.pop("unsigned_before")
    snap["game"].pop("late")
    snap["game"]["awards"] = [{"pair": "ew", "points": 100, "reason": "absence"}]
    for h in snap["game"]["hands"]:
        h.pop("reason")
    table = DominoTable.restore(snap)
    assert table.s.game.score == {"ns": 20, "ew": 0}  # type: ignore[union-attr]
    assert table.apply("press", {"seat": "w"}, now=d.now + 1).accepted


def test_assign_checks_players_and_settings() -> None:
    d = Driver()
    bad = d.try_("assign", game_id="x", players={"n": "A", "e": "B", "s": "C"})
    assert bad.refusal.code == "bad_players"  # type: ignore[union-attr]
    bad = d.try_("assign", game_id="x", players=PLAYERS, settings={"play_seconds": -1})
    assert bad.refusal.code == "bad_settings"  # type: ignore[union-attr]
    ok = d.do("assign", game_id="x", players=PLAYERS, settings={"play_seconds": 20})
    assert ok.events[0].to_data()["settings"]["play_seconds"] == 20.0


# ── texts ──────────────────────────────────────────────────────────────────
def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    es, en = STRINGS["es"], STRINGS["en"]
    assert set(es) == set(en)
    for key in es:
        want = {f for form in forms(es[key]) for f in re.findall(r"{(\w+)}", form)}
        assert {f for form in forms(en[key]) for f in re.findall(r"{(\w+)}", form)} == want, key
    Catalog.by_language(STRINGS)  # mesa.words' own check: each plural form agrees too


def test_every_code_a_player_can_read_has_a_text() -> None:
    keys = set(STRINGS["es"])
    assert {f"state.{s}" for s in STATES} <= keys
    assert {f"reason.{r}" for r in REASONS} <= keys
    assert {f"seat.{s}" for s in SEATS} <= keys
    source = "\n".join(p.read_text(encoding="utf-8")
                       for p in (Path(__file__).resolve().parents[3] / "mesa" / "games" / "domino").glob("*.py"))
    codes = set(re.findall(r'(?:RuleError|Refused|Refusal)\(\s*"(\w+)"', source))
    codes |= {"bad_input", "time_backwards", "internal_error", "not_now"}
    assert {f"refusal.{c}" for c in codes} <= keys, {c for c in codes if f"refusal.{c}" not in keys}
    prompts = set(re.findall(r'"(prompt\.\w+)"', source))
    assert prompts and prompts <= keys
    for lang in LANGUAGES:
        assert text(lang, "label.penalty", points=-25, reason=text(lang, "reason.chivo"))


# ── properties ─────────────────────────────────────────────────────────────
SEAT = st.sampled_from(SEATS)
INPUTS = st.one_of(
    st.tuples(st.sampled_from(["press", "hold", "long_hold", "sign", "confirm", "reject"]),
              st.fixed_dictionaries({"seat": SEAT})),
    st.tuples(st.just("claim"), st.fixed_dictionaries({"seat": SEAT, "points": st.integers(-5, 200),
                                                       "tie": st.booleans()})),
    st.tuples(st.just("tick"), st.just({})),
    st.tuples(st.just("tiempo"), st.fixed_dictionaries({"start_wall": st.floats(0, 3000),
                                                        "wall": st.floats(0, 3000)})),
    st.tuples(st.just("penalty"), st.fixed_dictionaries({"seat": SEAT, "reason": st.sampled_from(
        ["chivo", "talking_second", "wrong_seats", "abandoned", "sheet_unsigned"])})),
    st.tuples(st.just("absence"), st.fixed_dictionaries({"seats": st.lists(SEAT, max_size=2)})),
    st.tuples(st.just("late"), st.fixed_dictionaries({"seat": SEAT})),
    st.tuples(st.just("annul"), st.fixed_dictionaries({"seat": SEAT, "reason": st.sampled_from(
        ["chivo", "pass_with_playable", "talking"])})),
    st.tuples(st.just("assign"), st.just({"game_id": "R9", "players": PLAYERS})),
    st.tuples(st.sampled_from(INPUT_NAMES), st.just({})),
)


@settings(max_examples=200, deadline=None)
@given(steps=st.lists(st.tuples(INPUTS, st.floats(0, 120)), max_size=60))
def test_random_inputs_never_break_the_table(steps: list[tuple[tuple[str, dict[str, Any]],
                                                               float]]) -> None:
    """Whatever arrives: no internal error, a refusal changes nothing but time's call, every
    event is valid against the vocabulary, and a snapshot restores the same table."""
    d = ready()
    d.do("press", seat="n")
    for (name, args), dt in steps:
        before = d.table.snapshot()
        out = d.try_(name, after=dt, **args)
        for e in out.events:
            assert parse_event(e.TYPE, e.to_data()) == e
        if out.accepted:
            assert out.state in STATES
        else:
            assert out.refusal is not None and out.refusal.code != "internal_error", out.refusal
            after = d.table.snapshot()
            for snap in (before, after):
                snap.pop("last_now")
                if snap["game"]:
                    snap["game"].pop("time_called")
                    snap["game"].pop("final_hand")
            assert after == before
        domino_view(d.table, d.now)
        snap = json.loads(json.dumps(d.table.snapshot()))
        assert DominoTable.restore(snap).snapshot() == d.table.snapshot()


# ── the block dispute, as a property ───────────────────────────────────────
DISPUTE = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(["press", "hold", "long_hold"]), SEAT, st.just(0),
                  st.just(False)),
        st.tuples(st.just("claim"), SEAT, st.integers(0, 169), st.booleans()),
    ),
    max_size=12,
)


def _both_pairs_can_claim(d: Driver) -> None:
    for seat in ("n", "e"):
        probe = DominoTable.restore(json.loads(json.dumps(d.table.snapshot())))
        out = probe.apply("claim", {"seat": seat, "points": 7}, now=d.now)
        assert out.accepted, (seat, out.refusal)


@settings(max_examples=300, deadline=None)
@given(rounds=st.lists(DISPUTE, max_size=6), last=st.tuples(SEAT, st.integers(0, 169),
                                                            st.booleans()))
def test_any_block_dispute_ends_with_the_claim_both_pairs_confirmed(
        rounds: list[list[tuple[str, str, int, bool]]], last: tuple[str, int, bool]) -> None:
    """Claims and refusals in any order after a block: the entry is never locked to a pair (a
    player of either pair can always claim), and the hand recorded is the last claim, made by
    one pair and confirmed by the other."""
    d = _blocked()
    for steps in rounds:
        for name, seat, points, tie in steps:
            if d.state != "hand_entry":
                break
            _both_pairs_can_claim(d)
            args: dict[str, Any] = {"seat": seat}
            if name == "claim":
                args |= {"points": 0 if tie else points, "tie": tie}
            assert d.try_(name, **args).accepted, (name, args)
        if d.state == "hand_confirm":
            d.do("reject", seat=d.confirmer())
        assert d.state == "hand_entry"
    _both_pairs_can_claim(d)
    seat, points, tie = last
    d.do("claim", seat=seat, points=0 if tie else points, tie=tie)
    claimer = seat
    answer = d.confirmer()
    assert pair_of(answer) != pair_of(claimer)
    ended = _ended(d.do("confirm", seat=answer))
    assert ended["pair"] == (None if tie else pair_of(claimer))
    assert ended["points"] == (0 if tie else points) and ended["confirmed_by"] == answer
