"""The domino table's LEDs and buzzer: one LED in each seat's button, the same piezo.

>>> from mesa.games.domino.machine import DominoTable
>>> from mesa.games.domino.view import domino_view
>>> t = DominoTable()
>>> _ = t.apply("assign", {"game_id": "G", "players": {"n": "Ana", "e": "Beto", "s": "Carla",
...                        "w": "Dani"}}, now=0.0)
>>> _ = t.apply("tiempo", {"start_wall": 0.0, "wall": 0.0}, now=0.0)
>>> led_modes(domino_view(t, 1.0))                    # hand 1: anyone may lead
{'n': 'blink', 'e': 'blink', 's': 'blink', 'w': 'blink'}
>>> _ = t.apply("press", {"seat": "n"}, now=2.0)
>>> led_modes(domino_view(t, 3.0))                    # west on turn
{'n': 'off', 'e': 'off', 's': 'off', 'w': 'on'}
>>> led_modes(domino_view(t, 20.0))["w"]              # over the 15 s
'blink'

Lit: the seat on turn. Blinking: whoever the table waits for (the lead between hands, a player
over the 15 s, the pair entering or confirming the points, a pair still to sign). The buzzer:
one beep when the player on turn passes the 15 s, two for a warning, three for a penalty, a
long one when "TIEMPO" is called.
"""

from __future__ import annotations

import logging
from typing import Any

from mesa.controller.gpio import FLAG_BEEP, Beep, TableOutputs
from mesa.engine.outcome import Outcome
from mesa.games.domino.rules import PAIRS, SEATS, members, pair_of
from mesa.games.domino.view import DominoView

log = logging.getLogger(__name__)


def led_modes(view: DominoView) -> dict[str, str]:
    """``on``, ``off`` or ``blink`` for each seat's LED (see the module)."""
    modes: dict[str, str] = dict.fromkeys(SEATS, "off")
    st = view.state
    if st == "ready":
        for seat in [view.next_lead] if view.next_lead else SEATS:
            modes[seat] = "blink"
    elif st == "playing" and view.on_turn in modes:
        modes[view.on_turn] = "blink" if view.timer is not None and view.timer.over else "on"
    elif st == "hand_entry" and view.entry is not None:
        pair = view.entry["pair"]
        for seat in SEATS:
            if pair is None or pair_of(seat) == pair:
                modes[seat] = "blink"
    elif st == "hand_confirm" and view.claim is not None:
        claimer = pair_of(view.claim["by"])
        for seat in SEATS:
            if pair_of(seat) != claimer:
                modes[seat] = "blink"
    elif st == "game_over":
        for pair in PAIRS:
            if pair not in view.signed:
                for seat in members(pair):
                    modes[seat] = "blink"
    return modes


WARNING_BEEP = Beep(count=2)
PENALTY_BEEP = Beep(count=3)
OVER_BEEP = Beep(count=1)


class DominoOutputs(TableOutputs):
    """The seat LEDs and the buzzer; register :meth:`update` as a view listener and the object
    as a sink, like :class:`~mesa.controller.gpio.TableOutputs`."""

    def update(self, view: DominoView, now: float) -> None:  # type: ignore[override]
        for seat, mode in led_modes(view).items():
            if self._modes.get(seat) == mode:
                continue
            self._modes[seat] = mode
            led = self.leds.get(seat)
            if led is None:
                continue
            try:
                if mode == "on":
                    led.on()
                elif mode == "off":
                    led.off()
                else:
                    led.blink(on_time=0.4, off_time=0.4, background=True)
            except Exception:
                log.exception("LED %s failed", seat)
        last: Any = self._last
        if (
            last is not None
            and view.timer is not None
            and view.timer.over
            and last.timer is not None
            and last.timer.seat == view.timer.seat
            and not last.timer.over
        ):
            self.play(OVER_BEEP)
        self._last = view  # type: ignore[assignment]

    def on_outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float) -> None:
        types = {e.TYPE for e in outcome.events}
        if "domino.time.called" in types:
            self.play(FLAG_BEEP)
        if "domino.penalty" in types:
            self.play(PENALTY_BEEP)
        elif "domino.play.warning" in types:
            self.play(WARNING_BEEP)
