"""The gesture recognizer, pure: bounce, phantoms, holds, both held, start-up levels, edge mode."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.controller.games.backgammon.gestures import Context, GestureRecognizer
from mesa.controller.gestures import GestureSettings
from mesa.engine.inputs import Input
from mesa.errors import ConfigError

S = GestureSettings(lockout=0.08, hold_time=0.8, min_press=0.02)


def fresh(**context: object) -> GestureRecognizer:
    g = GestureRecognizer(S)
    g.start({"a": False, "b": False, "cube": False, "pause": False}, now=0.0)
    if context:
        g.context = Context(**context)  # type: ignore[arg-type]
    return g


def drain(g: GestureRecognizer, until: float, step: float = 0.005) -> list[tuple[float, Input]]:
    out = []
    t = 0.0
    while t <= until:
        out += g.poll(t)
        t += step
    return out


def test_a_clean_press_is_one_press_at_its_first_edge() -> None:
    g = fresh()
    g.edge("a", True, 1.0)
    g.edge("a", False, 1.1)
    assert g.poll(1.15) == []
    assert g.gate() == 1.0
    assert g.poll(1.19) == [(1.0, Input("press", {"side": "a"}))]
    assert g.gate() is None


@settings(max_examples=300, deadline=None)
@given(
    press_bounce=st.lists(st.floats(0.0005, 0.015), min_size=0, max_size=12),
    hold=st.floats(0.03, 0.6),
    release_bounce=st.lists(st.floats(0.0005, 0.015), min_size=0, max_size=12),
)
def test_bounce_on_press_and_release_is_absorbed(
    press_bounce: list[float], hold: float, release_bounce: list[float]
) -> None:
    g = fresh()
    t0 = 1.0
    # Press: the first edge closes, then chatter, ending closed.
    offsets = [0.0]
    for d in press_bounce:
        offsets.append(offsets[-1] + d)
    if len(offsets) % 2 == 0:
        offsets.append(offsets[-1] + 0.001)
    level = True
    for off in offsets:
        g.edge("a", level, t0 + off)
        level = not level
    # Release: opens, then chatter, ending open.
    r0 = t0 + offsets[-1] + hold
    roffs = [0.0]
    for d in release_bounce:
        roffs.append(roffs[-1] + d)
    if len(roffs) % 2 == 0:
        roffs.append(roffs[-1] + 0.001)
    level = False
    for off in roffs:
        g.edge("a", level, r0 + off)
        level = not level
    out = drain(g, r0 + roffs[-1] + 0.2)
    assert out == [(t0, Input("press", {"side": "a"}))]


def test_a_phantom_spike_is_ignored() -> None:
    g = fresh()
    g.edge("a", True, 1.0)
    g.edge("a", False, 1.0004)  # 0.4 ms: noise, not a finger
    assert drain(g, 2.0) == []
    assert g.stats.phantoms == 1
    assert g.gate() is None


def test_a_phantom_release_while_idle_is_ignored() -> None:
    g = fresh()
    g.edge("a", False, 1.0)  # already open: a stale edge
    assert drain(g, 2.0) == []
    assert g.stats.stale_edges == 1


def test_a_hold_is_emitted_at_hold_time_with_the_first_edge() -> None:
    g = fresh()
    g.edge("a", True, 1.0)
    assert g.poll(1.79) == []
    assert g.poll(1.8) == [(1.0, Input("hold", {"side": "a"}))]
    g.edge("a", False, 3.0)
    assert drain(g, 4.0) == []  # the release of a hold is nothing


def test_where_a_hold_means_nothing_a_long_press_is_a_press_and_opens_the_gate() -> None:
    g = fresh(hold={"a": False, "b": False}, both=False)
    g.edge("a", True, 1.0)
    assert g.poll(1.8) == [(1.0, Input("press", {"side": "a"}))]
    assert g.gate() is None  # the button may stay down: the clock does not wait for it


def test_both_held_pauses_and_swallows_the_single_gestures() -> None:
    g = fresh()
    g.edge("a", True, 1.0)
    g.edge("b", True, 1.3)
    assert g.poll(1.9) == []  # a's hold is due, but b is down too: wait for the pair
    assert g.gate() == 1.0
    assert g.poll(2.1) == [(1.3, Input("both_held"))]
    g.edge("a", False, 3.0)
    g.edge("b", False, 3.1)
    assert drain(g, 4.0) == []


def test_two_quick_slaps_together_are_two_presses_and_the_gate_keeps_their_order() -> None:
    g = fresh()
    g.edge("b", True, 1.00)
    g.edge("a", True, 1.02)
    g.edge("a", False, 1.10)
    g.edge("b", False, 1.12)
    assert g.poll(1.19) == [(1.02, Input("press", {"side": "a"}))]
    # b's press (1.00) is still to come: nothing after 1.00 may be applied before it.
    assert g.gate() == 1.0
    assert g.poll(1.21) == [(1.0, Input("press", {"side": "b"}))]
    assert g.gate() is None


def test_a_late_second_button_does_not_turn_a_hold_into_both_held() -> None:
    g = fresh()
    g.edge("a", True, 1.0)
    assert g.poll(1.85) == [(1.0, Input("hold", {"side": "a"}))]
    g.edge("b", True, 2.0)  # b comes down after a's hold: b's own gesture
    g.edge("b", False, 2.1)
    assert drain(g, 2.5)[-1] == (2.0, Input("press", {"side": "b"}))


def test_a_button_held_at_boot_is_ignored_until_released() -> None:
    g = GestureRecognizer(S)
    g.start({"a": True, "b": False}, now=0.0)
    assert drain(g, 5.0) == []
    assert g.gate() is None
    g.edge("a", False, 5.0)
    g.edge("a", True, 5.02)  # release bounce: still ignored
    g.edge("a", False, 5.03)
    assert drain(g, 6.0) == []
    g.edge("a", True, 7.0)
    g.edge("a", False, 7.1)
    assert g.poll(7.3) == [(7.0, Input("press", {"side": "a"}))]


def test_edge_mode_emits_the_press_after_min_press_before_release() -> None:
    g = fresh(hold={"a": False, "b": False}, both=True, edge={"a": True, "b": False})
    g.edge("a", True, 1.0)
    assert g.poll(1.01) == []
    assert g.poll(1.021) == [(1.0, Input("press", {"side": "a"}))]
    g.edge("a", False, 1.2)
    assert drain(g, 2.0) == []


def test_cube_and_pause_buttons_are_edge_inputs() -> None:
    g = fresh()
    g.edge("cube", True, 1.0)
    g.edge("cube", False, 1.001)
    g.edge("cube", True, 1.002)  # bounce
    assert g.poll(1.03) == [(1.0, Input("cube"))]
    g.edge("cube", False, 1.2)
    g.edge("pause", True, 2.0)
    assert g.poll(2.05) == [(2.0, Input("pause_button"))]


def test_the_deadline_says_when_to_poll() -> None:
    g = fresh()
    assert g.deadline() is None
    g.edge("a", True, 1.0)
    assert g.deadline() == pytest.approx(1.8)  # the hold
    g.edge("cube", True, 1.0)
    assert g.deadline() == pytest.approx(1.0 + S.min_press)  # the cube's press is due
    g.poll(1.05)
    assert g.deadline() == pytest.approx(1.8)
    g.edge("a", False, 1.2)
    assert g.deadline() == pytest.approx(1.28)


def test_out_of_order_edges_are_clamped_not_trusted() -> None:
    g = fresh()
    g.edge("a", True, 1.0)
    g.edge("a", False, 0.9)  # stamped before the press: treated as at 1.0 (zero contact)
    assert drain(g, 2.0) == []  # a phantom


def test_settings_are_checked() -> None:
    with pytest.raises(ConfigError):
        GestureSettings(lockout=0.0)
    with pytest.raises(ConfigError):
        GestureSettings(lockout=0.1, min_press=0.2)
    with pytest.raises(ConfigError):
        GestureSettings(lockout=0.1, hold_time=0.05)
