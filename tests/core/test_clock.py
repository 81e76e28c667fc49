"""The delay clock: charges, flag fall, pauses, displays, director actions (RULES §1)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.core.clock import Clock, ClockSettings
from mesa.errors import ConfigError, RuleError


def test_settings_follow_the_club_formulas() -> None:
    assert ClockSettings.for_match(5).reserve == 600.0  # 2 min × 5 (HGV 9.2.1)
    assert ClockSettings.for_match(5).delay == 10.0
    assert ClockSettings.for_match(7).reserve == 14 * 60  # semifinal and final: 14 min + 10 s
    # A clock introduced at 3–2 in a 7-point match: 2 min × 7 − 1 min × 5 (HGV 7.6.2, DE 2.1).
    assert ClockSettings.for_match(7, scored=5).reserve == 14 * 60 - 5 * 60
    doubles = ClockSettings.for_match(4, preset="doubles")
    assert (doubles.reserve, doubles.delay) == (600.0, 18.0)  # HGV 9.2.2
    std = ClockSettings.for_match(5, scored=2, preset="standard")
    assert (std.reserve, std.delay, std.kind) == (30 * 60 - 6 * 60, 0.0, "standard")  # DE 2.1
    assert ClockSettings.for_match(5, preset="usbgf").delay == 12.0
    assert ClockSettings.for_match(1, scored=9).reserve == 0.0  # never negative


@pytest.mark.parametrize(
    "kwargs",
    [
        {"reserve": -1},
        {"reserve": float("nan")},
        {"reserve": 60, "kind": "hourglass"},
        {"reserve": 60, "display": "fischer"},
        {"reserve": 60, "timeout_policy": "shrug"},
        {"reserve": 60, "kind": "standard", "delay": 10},
        {"reserve": 60, "timeout_policy": "penalty_points"},  # only with the standard clock
    ],
)
def test_bad_settings_are_refused(kwargs: dict) -> None:
    with pytest.raises(ConfigError):
        ClockSettings(**kwargs)


def test_unknown_preset_and_fields() -> None:
    with pytest.raises(ConfigError):
        ClockSettings.for_match(5, preset="blitz")
    with pytest.raises(ConfigError):
        ClockSettings.from_dict({"reserve": 60, "increment": 5})


def test_a_turn_spends_the_delay_then_the_reserve() -> None:
    c = Clock(ClockSettings(reserve=100.0, delay=10.0))
    c.start_turn("a", 0.0)
    assert c.end_turn("a", 8.0).charged == 0.0  # inside the delay
    assert c.reserve["a"] == 100.0
    assert c.on_move == "b"
    assert c.end_turn("b", 8.0 + 25.0).charged == 15.0
    assert c.reserve["b"] == 85.0


def test_display_delay_and_bronstein() -> None:
    delay = Clock(ClockSettings(reserve=100.0, delay=10.0))
    bron = Clock(ClockSettings(reserve=100.0, delay=10.0, display="bronstein"))
    for c in (delay, bron):
        c.start_turn("a", 0.0)
    assert delay.remaining("a", 4.0) == (100.0, 6.0)
    assert delay.shown("a", 4.0) == 100.0
    assert bron.shown("a", 4.0) == 106.0  # reserve + unused delay
    assert bron.shown("a", 15.0) == delay.shown("a", 15.0) == 95.0
    # The charge and the flag fall are identical in both displays.
    assert bron.end_turn("a", 30.0).charged == delay.end_turn("a", 30.0).charged == 20.0


def test_flag_falls_only_when_a_turn_exceeds_delay_plus_reserve() -> None:
    c = Clock(ClockSettings(reserve=5.0, delay=10.0))
    c.start_turn("a", 0.0)
    assert c.flag_at() == 15.0
    assert not c.flagged(15.0)  # exactly delay + reserve is still in time
    assert c.flagged(15.0001)
    with pytest.raises(RuleError) as e:
        c.end_turn("a", 15.5)
    assert e.value.code == "flag_fell"
    assert c.expire(15.5) == "a"
    assert c.reserve["a"] == 0.0 and c.expiries["a"] == 1


def test_pause_freezes_the_turn_without_a_second_delay() -> None:
    c = Clock(ClockSettings(reserve=100.0, delay=10.0))
    c.start_turn("a", 0.0)
    c.pause(6.0)
    assert c.remaining("a", 500.0) == (100.0, 4.0)  # time stands still while paused
    c.resume(600.0)
    assert c.end_turn("a", 612.0).charged == 8.0  # 6 + 12 = 18 s turn, 10 s delay


def test_stop_charges_the_turn_in_progress() -> None:
    c = Clock(ClockSettings(reserve=100.0, delay=10.0))
    c.start_turn("a", 0.0)
    charge = c.stop(30.0)
    assert charge is not None and charge.charged == 20.0
    assert c.on_move is None and not c.running
    assert c.stop(40.0) is None


def test_lost_delay_applies_to_the_next_turn_only() -> None:
    c = Clock(ClockSettings(reserve=100.0, delay=10.0))
    c.start_turn("b", 0.0)
    c.forfeit_delay("a")
    c.end_turn("b", 5.0)
    assert c.remaining("a", 5.0) == (100.0, 0.0)
    assert c.end_turn("a", 10.0).charged == 5.0  # no delay this turn
    c.end_turn("b", 11.0)
    assert c.end_turn("a", 16.0).charged == 0.0  # the delay is back


def test_director_adjustment() -> None:
    c = Clock(ClockSettings(reserve=100.0, delay=10.0))
    c.start_turn("a", 0.0)
    assert c.adjust("a", 30.0, now=20.0) == 130.0
    assert c.adjust("b", -40.0, now=20.0) == 60.0
    with pytest.raises(RuleError):
        c.adjust("a", -125.0, now=20.0)  # 10 s already used this turn: it would go below zero
    with pytest.raises(RuleError):
        c.adjust("a", math.inf, now=20.0)


def test_untimed_clock_tracks_turns_and_never_flags() -> None:
    c = Clock(ClockSettings(reserve=0.0, delay=0.0), timed=False)
    c.start_turn("a", 0.0)
    assert not c.flagged(10_000.0)
    assert c.end_turn("a", 10_000.0).charged == 0.0
    assert c.on_move == "b"


def test_round_trip() -> None:
    c = Clock(ClockSettings(reserve=100.0, delay=10.0, display="bronstein"))
    c.start_turn("a", 3.0)
    c.forfeit_delay("b")
    assert Clock.from_dict(c.to_dict()) == c


turns = st.lists(st.floats(min_value=0.0, max_value=120.0, allow_nan=False), min_size=1, max_size=60)


@settings(max_examples=300, deadline=None)
@given(turns=turns, delay=st.sampled_from([0.0, 10.0, 12.0, 18.0]),
       reserve=st.floats(min_value=0.0, max_value=1200.0))
def test_charges_add_up_and_the_flag_falls_exactly(turns: list[float], delay: float,
                                                   reserve: float) -> None:
    """Σ charged = Σ max(0, turn − delay); reserves never grow; the flag falls exactly when a
    single turn exceeds delay + remaining reserve."""
    c = Clock(ClockSettings(reserve=reserve, delay=delay))
    now = 0.0
    c.start_turn("a", now)
    charged = {"a": 0.0, "b": 0.0}
    expected = {"a": 0.0, "b": 0.0}
    for t in turns:
        side = c.on_move
        assert side is not None
        before = dict(c.reserve)
        limit = delay + c.reserve[side]
        end = now + t
        t = end - now  # the turn as the clock sees it: a difference of two float timestamps
        if t > limit:
            assert c.flagged(end)
            assert c.flag_at() == pytest.approx(now + limit)
            with pytest.raises(RuleError):
                c.end_turn(side, end)
            return
        assert not c.flagged(end)
        charge = c.end_turn(side, end)
        charged[side] += charge.charged
        expected[side] += max(0.0, t - delay)
        now = end
        assert all(c.reserve[s] <= before[s] for s in c.reserve)
        assert c.reserve[side] == pytest.approx(reserve - charged[side], abs=1e-6)
    for s in charged:
        assert charged[s] == pytest.approx(expected[s], abs=1e-6)


@settings(max_examples=200, deadline=None)
@given(turns=turns, pauses=st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=60),
       lengths=st.lists(st.floats(min_value=0.0, max_value=600.0), max_size=60))
def test_pauses_are_never_charged(turns: list[float], pauses: list[float],
                                  lengths: list[float]) -> None:
    """A pause at any point of a turn, of any length, leaves the charge unchanged."""
    plain = Clock(ClockSettings(reserve=10_000.0, delay=10.0))
    paused = Clock(ClockSettings(reserve=10_000.0, delay=10.0))
    plain.start_turn("a", 0.0)
    paused.start_turn("a", 0.0)
    now_plain = now_paused = 0.0
    for i, t in enumerate(turns):
        side = plain.on_move
        assert side is not None
        now_plain += t
        a = plain.end_turn(side, now_plain)
        at = pauses[i] * t if i < len(pauses) else t / 2
        gap = lengths[i] if i < len(lengths) else 30.0
        paused.pause(now_paused + at)
        paused.resume(now_paused + at + gap)
        now_paused += t + gap
        b = paused.end_turn(side, now_paused)
        assert a.charged == pytest.approx(b.charged, abs=1e-6)
    assert plain.reserve == pytest.approx(paused.reserve)


@pytest.mark.parametrize("field", ["reserve", "delay", "overtime", "penalty_reset"])
@pytest.mark.parametrize("value", [math.inf, 1e308, 86_400.5, True])
def test_clock_settings_beyond_a_day_are_refused(field: str, value: float) -> None:
    """A value no club uses would otherwise reach the screen and the arithmetic (1e308 s)."""
    with pytest.raises(ConfigError, match=field):
        ClockSettings.from_dict({"reserve": 360.0, "delay": 12.0, field: value})
