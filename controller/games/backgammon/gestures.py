"""The backgammon table's gestures: the two clock buttons (and the optional CUBE and PAUSE),
timestamped edges in, table inputs out. Pure: time is passed in.

>>> g = GestureRecognizer()
>>> g.start({"a": False, "b": False}, now=0.0)
>>> for level, t in [(True, 1.000), (False, 1.002), (True, 1.003), (False, 1.110), (True, 1.113),
...                  (False, 1.114)]:                   # bounce on press and on release
...     g.edge("a", level, t)
>>> g.poll(1.15), g.gate()                              # still inside the release lockout
([], 1.0)
>>> g.poll(1.2)                                         # one press, timed at its first edge
[(1.0, Input(name='press', args={'side': 'a'}))]

The rules, for each button:

- A gesture starts at the first closing edge; its timestamp is that edge, whatever follows.
- Bounce is absorbed by an application-level **lockout**: the gesture ends only once the
  contact has stayed open for ``lockout`` seconds, so chatter on release (and on press) is part of
  the same gesture. A contact closed for less than ``min_press`` in total is a phantom edge.
- A **press** is emitted when the gesture ends; a **hold** once the button has been down
  ``hold_time``. Both clock buttons down together for ``hold_time`` make one **both_held**.
  Where a hold means nothing (see :class:`Context`), a long press is a press.
- With the optional CUBE and PAUSE buttons present a hold of a clock button is not needed in
  ``running``, so there a press is emitted on the edge (after ``min_press``) instead of at release.
- A button found down at start-up is ignored until it has been released (a held button at boot).

:meth:`gate` is the earliest timestamp a future output may carry: the runtime applies nothing
later than it (no ``tick`` either) so that a press emitted at release is never older than the
last input the table saw. The gate is never closed longer than about ``2 × hold_time``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mesa.controller.gestures import Button, Gesture, GestureSettings, GestureStats
from mesa.engine.inputs import Input

CLOCK_BUTTONS: tuple[str, str] = ("a", "b")
EXTRA_INPUTS: dict[str, str] = {"cube": "cube", "pause": "pause_button"}
BUTTONS: tuple[str, ...] = (*CLOCK_BUTTONS, *EXTRA_INPUTS)


@dataclass(frozen=True)
class Context:
    """What a gesture means in the table's current state (the runtime recomputes it).

    ``hold[side]``: a hold by ``side`` does something of its own (double, pass, choose, confirm).
    ``both``: both buttons held together mean pause/resume. ``edge[side]``: a press by ``side``
    may be emitted on its edge because it can't turn into anything else.
    """

    hold: dict[str, bool] = field(default_factory=lambda: {"a": True, "b": True})
    both: bool = True
    edge: dict[str, bool] = field(default_factory=lambda: {"a": False, "b": False})


class GestureRecognizer:
    """Turns edges of the clock buttons (and the optional CUBE/PAUSE buttons) into inputs."""

    def __init__(
        self, settings: GestureSettings | None = None, buttons: tuple[str, ...] = BUTTONS
    ) -> None:
        self.settings = settings or GestureSettings()
        self.buttons: dict[str, Button] = {name: Button() for name in buttons}
        self.context = Context()
        self.stats = GestureStats()

    # ── input ───────────────────────────────────────────────────────────
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
        t = max(t, b.since)  # edge timestamps from another thread may arrive a hair out of order
        if b.gesture is not None and b.down:
            b.gesture.closed += t - b.since
        b.down, b.since = down, t
        if down and b.gesture is None and not b.ignored:
            b.gesture = Gesture(t0=t)

    # ── output ──────────────────────────────────────────────────────────
    def poll(self, now: float) -> list[tuple[float, Input]]:
        """The inputs that are decided by ``now``, oldest first."""
        s = self.settings
        out: list[tuple[float, Input]] = []
        for b in self.buttons.values():
            if b.ignored and not b.down and now - b.since >= s.lockout:
                b.ignored = False
        self._poll_both(now, out)
        for side in CLOCK_BUTTONS:
            if side in self.buttons:
                self._poll_clock(side, now, out)
        for name, input_name in EXTRA_INPUTS.items():
            if name in self.buttons:
                self._poll_extra(name, input_name, now, out)
        out.sort(key=lambda item: item[0])
        return out

    def _pair(self) -> tuple[Button, Button] | None:
        a, b = self.buttons.get("a"), self.buttons.get("b")
        if a is None or b is None or a.gesture is None or b.gesture is None:
            return None
        if not (a.down and b.down):
            return None
        return a, b

    def _pair_possible(self, a: Button, b: Button) -> bool:
        """Could these two gestures still become a both_held (each started before the other's
        hold was due)?"""
        assert a.gesture is not None and b.gesture is not None
        h = self.settings.hold_time
        ga, gb = a.gesture, b.gesture
        if (
            not self.context.both
            or (ga.emitted and not ga.on_edge)
            or (gb.emitted and not gb.on_edge)
        ):
            return False
        return (ga.on_edge or gb.t0 < ga.t0 + h) and (gb.on_edge or ga.t0 < gb.t0 + h)

    def _poll_both(self, now: float, out: list[tuple[float, Input]]) -> None:
        pair = self._pair()
        if pair is None or not self._pair_possible(*pair):
            return
        a, b = pair
        assert a.gesture is not None and b.gesture is not None
        t_both = max(a.gesture.t0, b.gesture.t0)
        s = self.settings
        if (
            now - t_both >= s.hold_time
            and a.closed_at(now) >= s.min_press
            and b.closed_at(now) >= s.min_press
        ):
            out.append((t_both, Input("both_held")))
            a.gesture.emitted = b.gesture.emitted = True
            a.gesture.on_edge = b.gesture.on_edge = False
            self.stats.gestures += 1

    def _poll_clock(self, side: str, now: float, out: list[tuple[float, Input]]) -> None:
        s = self.settings
        b = self.buttons[side]
        g = b.gesture
        if g is None:
            return
        if b.down:
            if g.emitted:
                return
            closed = b.closed_at(now)
            if closed < s.min_press:
                return
            if self.context.edge.get(side, False):
                out.append((g.t0, Input("press", {"side": side})))
                g.emitted = g.on_edge = True
                self.stats.gestures += 1
                return
            if now - g.t0 >= s.hold_time:
                other = self.buttons.get("b" if side == "a" else "a")
                if (
                    other is not None
                    and other.down
                    and other.gesture is not None
                    and self._pair_possible(b, other)
                ):
                    return  # both buttons are down: this may be a both_held, decided above
                name = "hold" if self.context.hold.get(side, False) else "press"
                out.append((g.t0, Input(name, {"side": side})))
                g.emitted = True
                self.stats.gestures += 1
            return
        if now - b.since < s.lockout:
            return
        # Open for a whole lockout: the gesture is over.
        b.gesture = None
        if g.emitted:
            return
        if g.closed < s.min_press:
            self.stats.phantoms += 1
            return
        out.append((g.t0, Input("press", {"side": side})))
        self.stats.gestures += 1

    def _poll_extra(
        self, name: str, input_name: str, now: float, out: list[tuple[float, Input]]
    ) -> None:
        s = self.settings
        b = self.buttons[name]
        g = b.gesture
        if g is None:
            return
        if not g.emitted and b.closed_at(now) >= s.min_press:
            out.append((g.t0, Input(input_name)))
            g.emitted = True
            self.stats.gestures += 1
        if not b.down and now - b.since >= s.lockout:
            if not g.emitted:
                self.stats.phantoms += 1
            b.gesture = None

    # ── what the runtime waits for ──────────────────────────────────────
    def gate(self) -> float | None:
        """The earliest timestamp a future output may carry, or None when nothing is pending."""
        times = [
            b.gesture.t0
            for b in self.buttons.values()
            if b.gesture is not None and not b.gesture.emitted
        ]
        pair = self._pair()
        if pair is not None and self._pair_possible(*pair):
            a, b = pair
            assert a.gesture is not None and b.gesture is not None
            times.append(max(a.gesture.t0, b.gesture.t0))
        return min(times) if times else None

    def deadline(self) -> float | None:
        """When :meth:`poll` may next have something to say (without a new edge)."""
        s = self.settings
        times: list[float] = []
        for name, b in self.buttons.items():
            if b.ignored and not b.down:
                times.append(b.since + s.lockout)
            g = b.gesture
            if g is None:
                continue
            if not b.down:
                times.append(b.since + s.lockout)
            elif not g.emitted:
                if name not in CLOCK_BUTTONS or self.context.edge.get(name, False):
                    times.append(b.since + max(0.0, s.min_press - g.closed))
                if name in CLOCK_BUTTONS:
                    times.append(g.t0 + s.hold_time)
        pair = self._pair()
        if pair is not None and self._pair_possible(*pair):
            a, b = pair
            assert a.gesture is not None and b.gesture is not None
            times.append(max(a.gesture.t0, b.gesture.t0) + s.hold_time)
        return min(times) if times else None

    def pressed(self) -> dict[str, bool]:
        """The last known level of each button."""
        return {name: b.down for name, b in self.buttons.items()}
