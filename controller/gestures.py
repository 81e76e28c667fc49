"""Button gestures, what every table shares: timestamped edges in, table inputs out. Pure: time
is passed in.

Each game's recognizer is its own (:mod:`mesa.controller.games.backgammon.gestures`: two clock
buttons and the optional CUBE and PAUSE; :mod:`mesa.controller.games.domino.gestures`: a button
per seat); here are their timings (:class:`GestureSettings`), their counters
(:class:`GestureStats`) and the state of a button and of its gesture (:class:`Button`,
:class:`Gesture`).
"""

from __future__ import annotations

from dataclasses import dataclass

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
