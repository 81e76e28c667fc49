"""The buttons, LEDs and buzzer through gpiozero (imported lazily: a laptop has no GPIO).

>>> from gpiozero.pins.mock import MockFactory
>>> from mesa.controller.games.backgammon.gestures import GestureRecognizer
>>> from mesa.controller.runtime import TableRuntime
>>> factory = MockFactory()
>>> rt = TableRuntime(buttons=GestureRecognizer())
>>> pad = ButtonPad(rt, {"a": 17, "b": 27}, pin_factory=factory)
>>> factory.pin(17).drive_low()       # a's button closes (wired to ground, pulled up)
>>> [(kind, e.button, e.pressed) for kind, _, e in rt.take_queued()]
[('edge', 'a', False), ('edge', 'b', False), ('edge', 'a', True)]
>>> pad.close()

GPIO callbacks run on gpiozero's background threads: they only stamp the edge and queue it for
the table's one consumer loop (:class:`~mesa.controller.runtime.TableRuntime`), where the game's
recognizer (here backgammon's
:class:`~mesa.controller.games.backgammon.gestures.GestureRecognizer`) turns edges into presses
and holds.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mesa.controller.ports import EdgeSubmitter
from mesa.engine.outcome import Outcome

if TYPE_CHECKING:
    from mesa.controller.games import TableGame

log = logging.getLogger(__name__)

# An edge's age computed from the pin factory's own timestamps is trusted up to this; beyond it
# (a factory whose ticks are not monotonic seconds) the callback's own time is used.
MAX_EDGE_AGE = 0.5


class ButtonPad:
    """The table's buttons: ``pins`` maps ``a``, ``b`` and optionally ``cube``/``pause`` to pins."""

    def __init__(
        self,
        runtime: EdgeSubmitter,
        pins: dict[str, Any],
        *,
        pull_up: bool = True,
        pin_factory: Any = None,
    ) -> None:
        from gpiozero import DigitalInputDevice

        self.runtime = runtime
        self.pull_up = pull_up
        self.devices: dict[str, Any] = {}
        self._callbacks: dict[str, Any] = {}
        self.factory = pin_factory
        try:
            for name, pin in pins.items():
                if pin is None:
                    continue
                dev = DigitalInputDevice(
                    pin, pull_up=pull_up, bounce_time=None, pin_factory=pin_factory
                )
                self.devices[name] = dev
                self.factory = dev.pin_factory
            now = runtime.now()
            for name, dev in self.devices.items():
                # A button already down (held at boot, or stuck) is ignored until released.
                runtime.submit_edge(name, bool(dev.is_active), now, initial=True)
            for name, dev in self.devices.items():
                # gpiozero keeps only a weak reference to the callback: hold it here.
                self._callbacks[name] = self._callback(name)
                dev.pin.when_changed = self._callbacks[name]
        except Exception:
            self.close()
            raise

    def _callback(self, name: str) -> Any:
        def changed(ticks: Any, state: Any) -> None:
            now = self.runtime.now()
            # The edge happened ``age`` ago by the pin factory's clock (lgpio stamps edges in the
            # kernel): date it back so that a busy callback thread costs the player nothing.
            if ticks is not None and self.factory is not None:
                try:
                    age = self.factory.ticks_diff(self.factory.ticks(), ticks)
                except Exception:
                    age = 0.0
                if 0.0 <= age <= MAX_EDGE_AGE:
                    now -= age * self.runtime.speed
            pressed = (not state) if self.pull_up else bool(state)
            self.runtime.submit_edge(name, pressed, now)

        return changed

    def levels(self) -> dict[str, bool]:
        return {name: bool(dev.is_active) for name, dev in self.devices.items()}

    def close(self) -> None:
        for dev in self.devices.values():
            with contextlib.suppress(Exception):
                dev.pin.when_changed = None
                dev.close()
        self.devices = {}


# ── outputs ────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class Beep:
    """A buzzer cue: ``count`` beeps of ``on`` seconds, ``off`` apart."""

    count: int
    on: float = 0.08
    off: float = 0.12


FLAG_BEEP = Beep(count=1, on=1.5, off=0.1)


class TableOutputs:
    """The LEDs of the buttons and the piezo buzzer; ``game`` (a
    :class:`~mesa.controller.games.TableGame` or its name, backgammon by default) says which LED
    shows what and which cues play (:meth:`~mesa.controller.games.TableGame.led_modes`).

    Register :meth:`update` as a view listener and the object itself as a sink (for flag falls).
    Every gpiozero call here is quick or runs in gpiozero's background thread (blink, beep).
    """

    def __init__(
        self,
        leds: dict[str, Any] | None = None,
        buzzer: Any = None,
        *,
        game: TableGame | str = "backgammon",
        warnings: Iterable[float] = (60.0, 30.0, 10.0),
        active_high: bool = True,
        buzzer_active_high: bool = True,
        pin_factory: Any = None,
    ) -> None:
        from mesa.controller.games import as_table_game

        self.game = as_table_game(game)
        self.warnings = tuple(warnings)
        self.leds: dict[str, Any] = {}
        self.buzzer: Any = None
        self._modes: dict[str, str] = {}
        self._last: Any = None
        self.beeps: list[Beep] = []  # every cue played (the simulator shows them)
        if leds or buzzer is not None:
            from gpiozero import LED, Buzzer

            try:
                for side, pin in (leds or {}).items():
                    if pin is not None:
                        self.leds[side] = LED(pin, active_high=active_high, pin_factory=pin_factory)
                if buzzer is not None:
                    self.buzzer = Buzzer(
                        buzzer, active_high=buzzer_active_high, pin_factory=pin_factory
                    )
            except Exception:
                self.close()
                raise

    def update(self, view: Any, now: float) -> None:
        """A view listener: the LEDs, and the cues of the change since the last view."""
        for side, mode in self.game.led_modes(view).items():
            if self._modes.get(side) == mode:
                continue
            self._modes[side] = mode
            led = self.leds.get(side)
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
                log.exception("LED %s failed", side)
        for beep in self.game.view_beeps(self._last, view, self.warnings):
            self.play(beep)
        self._last = view

    def on_outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float) -> None:
        for beep in self.game.outcome_beeps(outcome):
            self.play(beep)

    def play(self, beep: Beep) -> None:
        self.beeps.append(beep)
        if len(self.beeps) > 100:
            del self.beeps[:50]
        if self.buzzer is None:
            return
        try:
            self.buzzer.beep(on_time=beep.on, off_time=beep.off, n=beep.count, background=True)
        except Exception:
            log.exception("buzzer failed")

    @property
    def led_state(self) -> dict[str, str]:
        return dict(self._modes)

    def close(self) -> None:
        for dev in [*self.leds.values(), self.buzzer]:
            if dev is not None:
                with contextlib.suppress(Exception):
                    dev.close()
        self.leds, self.buzzer = {}, None
