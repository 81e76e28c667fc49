"""The domino table's gestures: four seat buttons, edges in, ``press``/``hold``/``long_hold`` out.

Pure: time is passed in. The timings, counters and button state are every table's
(:mod:`mesa.controller.gestures`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mesa.controller.gestures import Button, Gesture, GestureSettings, GestureStats
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


class SeatGestureRecognizer:
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

    def __init__(
        self, settings: GestureSettings | None = None, buttons: tuple[str, ...] = SEAT_BUTTONS
    ) -> None:
        self.settings = settings or GestureSettings()
        self.buttons: dict[str, Button] = {name: Button() for name in buttons}
        self.context = SeatContext()
        self.stats = GestureStats()

    def start(self, levels: dict[str, bool], now: float) -> None:
        """The levels found at start-up; a button already down is ignored until released."""
        for name, down in levels.items():
            if name in self.buttons:
                self.buttons[name] = Button(down=down, since=now, ignored=down)

    def edge(self, name: str, down: bool, t: float) -> None:
        """The contact of ``name`` closed (``down``) or opened at ``t``."""
        b = self.buttons.get(name)
        if b is None:
            return
        self.stats.edges += 1
        if down == b.down:
            self.stats.stale_edges += 1
            return
        t = max(t, b.since)
        if b.ignored and down and t - b.since >= self.settings.lockout:
            b.ignored = False  # released for a whole lockout since start-up, even unpolled
        if b.gesture is not None and b.down:
            b.gesture.closed += t - b.since
        b.down, b.since = down, t
        if down and b.gesture is None and not b.ignored:
            b.gesture = Gesture(t0=t)

    def _wait(self, seat: str) -> float:
        """How long a closed button must stay down before it is decided without a release."""
        s = self.settings
        return s.long_hold if self.context.long.get(seat, False) else s.hold_time

    def _held(self, seat: str) -> str:
        return "hold" if self.context.hold.get(seat, False) else "press"

    def poll(self, now: float) -> list[tuple[float, Input]]:
        """The inputs that are decided by ``now``, oldest first."""
        s = self.settings
        out: list[tuple[float, Input]] = []
        for seat, b in self.buttons.items():
            if b.ignored and not b.down and now - b.since >= s.lockout:
                b.ignored = False
            g = b.gesture
            if g is None:
                continue
            if b.down:
                if g.emitted or b.closed_at(now) < s.min_press or now - g.t0 < self._wait(seat):
                    continue
                name = "long_hold" if self.context.long.get(seat, False) else self._held(seat)
                out.append((g.t0, Input(name, {"seat": seat})))
                g.emitted = True
                self.stats.gestures += 1
                continue
            if now - b.since < s.lockout:
                continue
            b.gesture = None  # open for a whole lockout: the gesture is over
            if g.emitted:
                continue
            if g.closed < s.min_press:
                self.stats.phantoms += 1
                continue
            name = self._held(seat) if b.since - g.t0 >= s.hold_time else "press"
            out.append((g.t0, Input(name, {"seat": seat})))
            self.stats.gestures += 1
        out.sort(key=lambda item: item[0])
        return out

    def gate(self) -> float | None:
        """The earliest timestamp a future output may carry, or None when nothing is pending."""
        times = [
            b.gesture.t0
            for b in self.buttons.values()
            if b.gesture is not None and not b.gesture.emitted
        ]
        return min(times) if times else None

    def deadline(self) -> float | None:
        """When :meth:`poll` may next have something to say (without a new edge)."""
        s = self.settings
        times: list[float] = []
        for seat, b in self.buttons.items():
            if b.ignored and not b.down:
                times.append(b.since + s.lockout)
            g = b.gesture
            if g is None:
                continue
            if not b.down:
                times.append(b.since + s.lockout)
            elif not g.emitted:
                times.append(max(g.t0 + self._wait(seat), b.since + s.min_press - g.closed))
        return min(times) if times else None

    def pressed(self) -> dict[str, bool]:
        """The last known level of each button."""
        return {name: b.down for name, b in self.buttons.items()}
