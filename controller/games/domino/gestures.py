"""The domino table's gestures: four seat buttons, edges in, ``press``/``hold``/``long_hold`` out.

Pure: time is passed in. The timings, counters and button state are every table's
(:mod:`mesa.controller.gestures`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mesa.controller.gestures import Button, ButtonRecognizer, Gesture, GestureSettings
from mesa.engine.inputs import Input

SEAT_BUTTONS: tuple[str, ...] = ("n", "e", "s", "w")


def _no_seat() -> dict[str, bool]:
    return dict.fromkeys(SEAT_BUTTONS, False)


@dataclass(frozen=True)
class SeatContext:
    """What a seat's longer gestures mean in the domino table's state (the runtime recomputes it).

    ``hold[seat]``: a hold does something ("paso", the tens digit, a confirmation); where it does
    not, a long press is a press. ``long[seat]``: a long hold does something (domino, block,
    accept the points); only then does the recognizer wait past ``hold_time`` to tell the two
    apart, so elsewhere a hold is decided at ``hold_time``.
    """

    hold: dict[str, bool] = field(default_factory=_no_seat)
    long: dict[str, bool] = field(default_factory=_no_seat)


class SeatGestureRecognizer(ButtonRecognizer):
    """The domino table's four seat buttons: edges in, ``press``/``hold``/``long_hold`` out.

    The same rules as backgammon's
    :class:`~mesa.controller.games.backgammon.gestures.GestureRecognizer` (first-edge timestamps,
    release lockout, phantom edges, a button down at start-up ignored), with a third gesture:

    >>> g = SeatGestureRecognizer()
    >>> g.context = SeatContext(hold=dict.fromkeys(SEAT_BUTTONS, True),
    ...                         long=dict.fromkeys(SEAT_BUTTONS, True))
    >>> g.start(dict.fromkeys(SEAT_BUTTONS, False), now=0.0)
    >>> g.edge("w", True, 1.0); g.edge("w", False, 1.1); g.poll(1.2)
    [(1.0, Input(name='press', args={'seat': 'w'}))]
    >>> g.edge("w", True, 2.0); g.edge("w", False, 3.0); g.poll(3.1)       # 1 s: a hold
    [(2.0, Input(name='hold', args={'seat': 'w'}))]
    >>> g.edge("n", True, 4.0); g.poll(5.9), g.poll(6.0)                   # 2 s: a long hold
    ([], [(4.0, Input(name='long_hold', args={'seat': 'n'}))])

    A hold where a long hold means nothing is emitted at ``hold_time``, without waiting for the
    release; the long hold is emitted as soon as it is reached, with the button still down.
    """

    ignore_ends_on_edge = True  # see ButtonRecognizer

    def __init__(
        self, settings: GestureSettings | None = None, buttons: tuple[str, ...] = SEAT_BUTTONS
    ) -> None:
        super().__init__(settings, buttons)
        self.context = SeatContext()

    def _wait(self, seat: str) -> float:
        """How long a closed button must stay down before it is decided without a release."""
        s = self.settings
        return s.long_hold if self.context.long.get(seat, False) else s.hold_time

    def _held(self, seat: str) -> str:
        return "hold" if self.context.hold.get(seat, False) else "press"

    def decide(self, now: float, out: list[tuple[float, Input]]) -> None:
        s = self.settings
        for seat, b in self.buttons.items():
            g = b.gesture
            if g is None:
                continue
            if not b.down:
                if self.ended(b, now) is not None:
                    name = self._held(seat) if b.since - g.t0 >= s.hold_time else "press"
                    self.emit(out, g, Input(name, {"seat": seat}))
                continue
            if g.emitted or b.closed_at(now) < s.min_press or now - g.t0 < self._wait(seat):
                continue
            name = "long_hold" if self.context.long.get(seat, False) else self._held(seat)
            self.emit(out, g, Input(name, {"seat": seat}))

    def due_down(self, name: str, b: Button, g: Gesture) -> list[float]:
        return [max(g.t0 + self._wait(name), b.since + self.settings.min_press - g.closed)]
