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

from mesa.controller.gestures import Button, ButtonRecognizer, Gesture, GestureSettings
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


class GestureRecognizer(ButtonRecognizer):
    """Turns edges of the clock buttons (and the optional CUBE/PAUSE buttons) into inputs."""

    def __init__(
        self, settings: GestureSettings | None = None, buttons: tuple[str, ...] = BUTTONS
    ) -> None:
        super().__init__(settings, buttons)
        self.context = Context()

    # ── output ──────────────────────────────────────────────────────────
    def decide(self, now: float, out: list[tuple[float, Input]]) -> None:
        self._poll_both(now, out)
        for side in CLOCK_BUTTONS:
            if side in self.buttons:
                self._poll_clock(side, now, out)
        for name, input_name in EXTRA_INPUTS.items():
            if name in self.buttons:
                self._poll_extra(name, input_name, now, out)

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

    def _both_from(self) -> float | None:
        """When both clock buttons, down, became a possible both_held (None: they are not)."""
        pair = self._pair()
        if pair is None or not self._pair_possible(*pair):
            return None
        a, b = pair
        assert a.gesture is not None and b.gesture is not None
        return max(a.gesture.t0, b.gesture.t0)

    def _poll_both(self, now: float, out: list[tuple[float, Input]]) -> None:
        t_both = self._both_from()
        if t_both is None:
            return
        a, b = self.buttons["a"], self.buttons["b"]
        assert a.gesture is not None and b.gesture is not None
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
        if not b.down:
            if self.ended(b, now) is not None:
                self.emit(out, g, Input("press", {"side": side}))
            return
        if g.emitted or b.closed_at(now) < s.min_press:
            return
        if self.context.edge.get(side, False):
            self.emit(out, g, Input("press", {"side": side}))
            g.on_edge = True
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
            self.emit(out, g, Input(name, {"side": side}))

    def _poll_extra(
        self, name: str, input_name: str, now: float, out: list[tuple[float, Input]]
    ) -> None:
        b = self.buttons[name]
        g = b.gesture
        if g is None:
            return
        if not g.emitted and b.closed_at(now) >= self.settings.min_press:
            self.emit(out, g, Input(input_name))
        if not b.down:
            self.ended(b, now)  # emitted above unless a phantom

    # ── what the runtime waits for ──────────────────────────────────────
    def gate(self) -> float | None:
        times = [t for t in (super().gate(), self._both_from()) if t is not None]
        return min(times) if times else None

    def deadline(self) -> float | None:
        t_both = self._both_from()
        times = [super().deadline(), None if t_both is None else t_both + self.settings.hold_time]
        due = [t for t in times if t is not None]
        return min(due) if due else None

    def due_down(self, name: str, b: Button, g: Gesture) -> list[float]:
        s = self.settings
        times = []
        if name not in CLOCK_BUTTONS or self.context.edge.get(name, False):
            times.append(b.since + max(0.0, s.min_press - g.closed))
        if name in CLOCK_BUTTONS:
            times.append(g.t0 + s.hold_time)
        return times
