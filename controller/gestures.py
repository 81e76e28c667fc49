"""Button gestures, what every table shares: timestamped edges in, table inputs out. Pure: time
is passed in.

Each game's recognizer is its own (:mod:`mesa.controller.games.backgammon.gestures`: two clock
buttons and the optional CUBE and PAUSE; :mod:`mesa.controller.games.domino.gestures`: a button
per seat); here are their timings (:class:`GestureSettings`), their counters
(:class:`GestureStats`), the state of a button and of its gesture (:class:`Button`,
:class:`Gesture`) and the machinery every recognizer shares (:class:`ButtonRecognizer`).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import ClassVar

from mesa.engine.inputs import Input
from mesa.errors import ConfigError


@dataclass(frozen=True)
class GestureSettings:
    """Timing of the gestures, in seconds of the table's clock."""

    lockout: float = 0.08
    hold_time: float = 0.8
    min_press: float = 0.02
    # The domino table's third gesture (a seat's "domino" or "tranque"); None: the default,
    # twice ``hold_time`` and at least 2 s, far enough from a hold that no one slips into it.
    long_hold_time: float | None = None

    def __post_init__(self) -> None:
        if not 0.0 < self.lockout <= 0.5:
            raise ConfigError(f"lockout must be in (0, 0.5] s, not {self.lockout}")
        if not 0.0 <= self.min_press < self.lockout:
            raise ConfigError("min_press must be ≥ 0 and shorter than the lockout")
        if not self.hold_time > self.lockout:
            raise ConfigError("hold_time must be longer than the lockout")
        if self.long_hold_time is not None and not self.long_hold_time >= self.hold_time + 0.5:
            raise ConfigError("long_hold_time must be at least 0.5 s longer than hold_time")

    @property
    def long_hold(self) -> float:
        """The long hold's threshold in effect (see ``long_hold_time``).

        >>> GestureSettings().long_hold, GestureSettings(hold_time=1.5).long_hold
        (2.0, 3.0)
        """
        if self.long_hold_time is not None:
            return self.long_hold_time
        return max(2.0, 2 * self.hold_time)


@dataclass
class Gesture:
    t0: float  # the first closing edge
    closed: float = 0.0  # contact time accumulated before the button's last edge
    emitted: bool = False  # its press/hold (or a both_held) is out: the rest is ignored
    on_edge: bool = False  # emitted as a press on its edge: may still pair into a both_held


@dataclass
class Button:
    down: bool = False
    since: float = 0.0  # time of the last edge
    gesture: Gesture | None = None
    ignored: bool = False  # down at start-up: ignored until released for a lockout

    def closed_at(self, now: float) -> float:
        g = self.gesture
        assert g is not None
        return g.closed + (max(0.0, now - self.since) if self.down else 0.0)


@dataclass
class GestureStats:
    gestures: int = 0
    phantoms: int = 0
    edges: int = 0
    stale_edges: int = 0  # an edge repeating the known level (a missed edge in between)


class ButtonRecognizer(abc.ABC):
    """What every table's recognizer does alike, whatever its buttons mean.

    The levels found at start-up (a button already down is ignored until it has stayed open a
    lockout), the edges (a gesture starts at the first closing edge, a repeated level is a stale
    edge), the end of a gesture once the contact has stayed open a whole ``lockout`` (a contact
    closed for less than ``min_press`` in all is a phantom), the gate and the deadline. A game's
    recognizer adds what its gestures are: :meth:`decide` (the inputs due by ``now``) and
    :meth:`due_down` (when a button still down may be decided), and sets ``context``.

    >>> class Plain(ButtonRecognizer):                 # no gestures of its own
    ...     def decide(self, now, out): pass
    ...     def due_down(self, name, b, g): return []
    >>> r = Plain(buttons=("x",))
    >>> r.start({"x": True}, now=0.0)                  # down at start-up: ignored
    >>> r.edge("x", False, 0.5); r.edge("x", False, 0.6); r.stats
    GestureStats(gestures=0, phantoms=0, edges=2, stale_edges=1)
    >>> r.gate(), r.deadline(), r.pressed()
    (None, 0.58, {'x': False})
    """

    # A button ignored since start-up counts as released by a closing edge a whole lockout after
    # it opened, even when :meth:`poll` did not run in between (else only ``poll`` releases it).
    ignore_ends_on_edge: ClassVar[bool] = False

    def __init__(
        self, settings: GestureSettings | None = None, buttons: tuple[str, ...] = ()
    ) -> None:
        self.settings = settings or GestureSettings()
        self.buttons: dict[str, Button] = {name: Button() for name in buttons}
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
        if (
            self.ignore_ends_on_edge
            and b.ignored
            and down
            and t - b.since >= self.settings.lockout
        ):
            b.ignored = False  # released for a whole lockout since start-up, even unpolled
        if b.gesture is not None and b.down:
            b.gesture.closed += t - b.since
        b.down, b.since = down, t
        if down and b.gesture is None and not b.ignored:
            b.gesture = Gesture(t0=t)

    # ── output ──────────────────────────────────────────────────────────
    def poll(self, now: float) -> list[tuple[float, Input]]:
        """The inputs that are decided by ``now``, oldest first."""
        for b in self.buttons.values():
            if b.ignored and not b.down and now - b.since >= self.settings.lockout:
                b.ignored = False
        out: list[tuple[float, Input]] = []
        self.decide(now, out)
        out.sort(key=lambda item: item[0])
        return out

    @abc.abstractmethod
    def decide(self, now: float, out: list[tuple[float, Input]]) -> None:
        """Append to ``out`` the game's inputs decided by ``now`` (any order)."""

    def emit(self, out: list[tuple[float, Input]], g: Gesture, inp: Input) -> None:
        """``inp``, timed at the first edge of the gesture ``g``, which it decides."""
        out.append((g.t0, inp))
        g.emitted = True
        self.stats.gestures += 1

    def ended(self, b: Button, now: float) -> Gesture | None:
        """For button ``b``, up, with a gesture: once open a whole lockout its gesture is over
        and forgotten; it is returned when it is still to be emitted (a phantom is counted)."""
        g = b.gesture
        assert g is not None and not b.down
        if now - b.since < self.settings.lockout:
            return None
        b.gesture = None
        if g.emitted:
            return None
        if g.closed < self.settings.min_press:
            self.stats.phantoms += 1
            return None
        return g

    # ── what the runtime waits for ──────────────────────────────────────
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
        for name, b in self.buttons.items():
            if b.ignored and not b.down:
                times.append(b.since + s.lockout)
            g = b.gesture
            if g is None:
                continue
            if not b.down:
                times.append(b.since + s.lockout)
            elif not g.emitted:
                times += self.due_down(name, b, g)
        return min(times) if times else None

    @abc.abstractmethod
    def due_down(self, name: str, b: Button, g: Gesture) -> list[float]:
        """When the undecided gesture ``g`` of button ``name``, still down, may be decided."""

    def pressed(self) -> dict[str, bool]:
        """The last known level of each button."""
        return {name: b.down for name, b in self.buttons.items()}
