"""The domino table's seat buttons: press, hold and long hold from real edge timings."""

from __future__ import annotations

import pytest

from mesa.controller.config import load_config, parse_config
from mesa.controller.games.domino.gestures import (
    SEAT_BUTTONS,
    SeatContext,
    SeatGestureRecognizer,
)
from mesa.controller.gestures import GestureSettings
from mesa.errors import ConfigError

ALL = dict.fromkeys(SEAT_BUTTONS, True)
NONE = dict.fromkeys(SEAT_BUTTONS, False)


def recognizer(
    hold: dict[str, bool] = ALL, long: dict[str, bool] = ALL, **settings: float
) -> SeatGestureRecognizer:
    g = SeatGestureRecognizer(GestureSettings(**settings))  # type: ignore[arg-type]
    g.context = SeatContext(hold=dict(hold), long=dict(long))
    g.start(dict.fromkeys(SEAT_BUTTONS, False), 0.0)
    return g


def names(out: list) -> list[tuple[float, str, str]]:  # type: ignore[type-arg]
    return [(t, i.name, i.args["seat"]) for t, i in out]


def test_press_hold_and_long_hold_are_timed_at_the_first_edge() -> None:
    g = recognizer()
    g.edge("n", True, 1.0)
    g.edge("n", False, 1.2)
    assert g.gate() == 1.0 and g.poll(1.25) == []  # inside the lockout
    assert names(g.poll(1.3)) == [(1.0, "press", "n")]
    g.edge("e", True, 2.0)
    assert g.poll(2.9) == []  # past hold_time, but it may still become a long hold
    g.edge("e", False, 3.5)
    assert names(g.poll(3.6)) == [(2.0, "hold", "e")]
    g.edge("s", True, 5.0)
    assert g.deadline() == pytest.approx(7.0)
    assert names(g.poll(7.0)) == [(5.0, "long_hold", "s")]  # emitted with the button down
    g.edge("s", False, 8.0)
    assert g.poll(9.0) == [] and g.gate() is None


def test_bounce_and_phantoms_are_absorbed() -> None:
    g = recognizer()
    for level, t in [
        (True, 1.000),
        (False, 1.002),
        (True, 1.003),
        (False, 1.100),
        (True, 1.104),
        (False, 1.105),
    ]:
        g.edge("w", level, t)
    assert names(g.poll(1.3)) == [(1.0, "press", "w")]
    g.edge("w", True, 2.0)
    g.edge("w", False, 2.005)  # 5 ms of contact: a phantom
    assert g.poll(2.2) == [] and g.stats.phantoms == 1


def test_where_a_long_hold_means_nothing_a_hold_is_decided_at_hold_time() -> None:
    g = recognizer(long=NONE)
    g.edge("n", True, 1.0)
    assert names(g.poll(1.8)) == [(1.0, "hold", "n")]  # without waiting for the release
    g.edge("n", False, 4.0)
    assert g.poll(4.2) == []


def test_where_a_hold_means_nothing_a_long_press_is_a_press() -> None:
    g = recognizer(hold=NONE, long=NONE)
    g.edge("e", True, 1.0)
    assert names(g.poll(1.8)) == [(1.0, "press", "e")]
    g = recognizer(hold=NONE, long=ALL)  # off turn in play: a block or nothing
    g.edge("e", True, 1.0)
    g.edge("e", False, 2.0)
    assert names(g.poll(2.1)) == [(1.0, "press", "e")]


def test_four_seats_at_once_each_get_their_gesture() -> None:
    g = recognizer()
    for i, seat in enumerate(SEAT_BUTTONS):
        g.edge(seat, True, 1.0 + i * 0.01)
    g.edge("n", False, 1.1)
    g.edge("e", False, 2.0)
    out = names(g.poll(3.1))
    assert out == [
        (1.0, "press", "n"),
        (1.01, "hold", "e"),
        (1.02, "long_hold", "s"),
        (1.03, "long_hold", "w"),
    ]


def test_a_button_down_at_start_up_is_ignored_until_released() -> None:
    g = SeatGestureRecognizer()
    g.start({"n": True, "e": False, "s": False, "w": False}, 0.0)
    assert g.poll(5.0) == []
    g.edge("n", False, 5.0)
    g.edge("n", True, 5.5)
    g.edge("n", False, 5.6)
    assert names(g.poll(5.8)) == [(5.5, "press", "n")]


def test_the_long_hold_threshold_is_configurable_and_checked() -> None:
    assert GestureSettings().long_hold == 2.0
    assert GestureSettings(long_hold_time=3.0).long_hold == 3.0
    with pytest.raises(ConfigError):
        GestureSettings(hold_time=0.8, long_hold_time=1.0)
    g = recognizer(long_hold_time=3.0)
    g.edge("w", True, 0.0)
    assert g.poll(2.9) == []
    assert names(g.poll(3.0)) == [(0.0, "long_hold", "w")]


def test_the_domino_hardware_file_and_the_config_checks() -> None:
    cfg = load_config("hardware/mesa-domino.toml")
    assert cfg.table.game == "domino"
    assert cfg.seat_buttons == {"n": 17, "e": 27, "s": 22, "w": 23}
    assert (cfg.leds.n, cfg.leds.w) == (5, 16) and cfg.buttons.long_hold_time == 2.0
    bad = {
        '[table]\ngame = "domino"\n[buttons]\nn = 17\n': "buttons.e, buttons.s, buttons.w",
        '[table]\ngame = "domino"\n[buttons]\na = 17\nb = 27\n': "not buttons.a, buttons.b",
        "[buttons]\nn = 17\n": 'table.game = "domino"',
        '[table]\ngame = "chess"\n': "table.game",
        '[table]\ngame = "domino"\n[buttons]\nlong_hold_time = 1.0\n': "long_hold_time",
        '[table]\ngame = "domino"\n[buttons]\nn = 17\ne = 17\ns = 1\nw = 4\n': "used twice",
    }
    for text, message in bad.items():
        with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
            parse_config(text)
