"""The table clock: a simple-delay clock (or a standard clock), pure, with time passed in.

Each turn the player first spends the delay, then the reserve: a turn of ``t`` seconds costs
``max(0, t - delay)``, and the flag falls when one turn exceeds ``delay + reserve``.

>>> s = ClockSettings(reserve=360.0, delay=10.0)
>>> c = Clock(s)
>>> c.start_turn("b", now=0.0)          # the lower die pressed: b's clock runs
>>> c.end_turn("b", now=25.0).charged   # 25 s turn, 10 s delay
15.0
>>> c.reserve["b"], c.on_move
(345.0, 'a')
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from mesa.core.sides import SIDES, Side, other
from mesa.errors import ConfigError, RuleError

# No clock setting is longer than a day: beyond it a value is a mistake or an attack, and
# the screen and the arithmetic should never meet it.
MAX_SETTING_SECONDS = 86_400.0

ClockKind = Literal["delay", "standard"]
Display = Literal["delay", "bronstein"]
TimeoutPolicy = Literal["lose_match", "overtime", "penalty_points"]

CLOCK_KINDS: tuple[str, ...] = ("delay", "standard")
DISPLAYS: tuple[str, ...] = ("delay", "bronstein")
TIMEOUT_POLICIES: tuple[str, ...] = ("lose_match", "overtime", "penalty_points")


@dataclass(frozen=True)
class ClockSettings:
    """How a match is timed. Build one with :meth:`for_match` to apply the club's formulas.

    ``reserve`` is each player's reserve in seconds at the start of the match.

    >>> ClockSettings.for_match(length=5).reserve
    600.0
    >>> ClockSettings.for_match(length=5, scored=3).reserve   # clock introduced at 2-1
    420.0
    >>> ClockSettings.for_match(length=3, preset="standard").reserve
    1080.0
    """

    reserve: float
    delay: float = 10.0
    kind: ClockKind = "delay"
    display: Display = "delay"
    timeout_policy: TimeoutPolicy = "lose_match"
    overtime: float = 60.0
    penalty_reset: float = 300.0

    PRESETS = {  # noqa: RUF012 — read-only table of the club's presets
        # name: (seconds per match point, seconds off per point scored, delay, kind)
        "singles": (120.0, 60.0, 10.0, "delay"),
        "doubles": (150.0, 75.0, 18.0, "delay"),
        "usbgf": (120.0, 60.0, 12.0, "delay"),
        "standard": (360.0, 180.0, 0.0, "standard"),
    }

    def __post_init__(self) -> None:
        problems = []
        if self.kind not in CLOCK_KINDS:
            problems.append(f"kind must be one of {CLOCK_KINDS}, not {self.kind!r}")
        if self.display not in DISPLAYS:
            problems.append(f"display must be one of {DISPLAYS}, not {self.display!r}")
        if self.timeout_policy not in TIMEOUT_POLICIES:
            problems.append(
                f"timeout_policy must be one of {TIMEOUT_POLICIES}, not {self.timeout_policy!r}"
            )
        for name in ("reserve", "delay", "overtime", "penalty_reset"):
            value = getattr(self, name)
            if (
                not isinstance(value, int | float)
                or isinstance(value, bool)
                or not 0 <= value <= MAX_SETTING_SECONDS
            ):
                problems.append(
                    f"{name} must be a number of seconds from 0 to {MAX_SETTING_SECONDS:g}, "
                    f"not {value!r}"
                )
        if self.kind == "standard" and self.delay:
            problems.append("a standard clock has no delay")
        if self.timeout_policy == "penalty_points" and self.kind != "standard":
            problems.append("penalty_points applies only to the standard clock (DE 5.1)")
        if problems:
            raise ConfigError("; ".join(problems))

    @classmethod
    def for_match(
        cls,
        length: int,
        scored: int = 0,
        preset: str = "singles",
        **overrides: Any,
    ) -> ClockSettings:
        """The club's settings for a match of ``length`` with ``scored`` points already played.

        ``scored`` is both players' points added (HGV 7.6.2, DE 2.1).
        """
        if preset not in cls.PRESETS:
            raise ConfigError(f"unknown clock preset {preset!r}; known: {sorted(cls.PRESETS)}")
        if length < 1:
            raise ConfigError(f"match length must be ≥ 1, not {length}")
        per_point, per_scored, delay, kind = cls.PRESETS[preset]
        reserve = max(0.0, per_point * length - per_scored * scored)
        values: dict[str, Any] = {"reserve": reserve, "delay": delay, "kind": kind}
        values.update(overrides)
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ClockSettings:
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(f"unknown clock settings: {sorted(unknown)}")
        return cls(**data)


@dataclass(frozen=True)
class TurnCharge:
    """What one turn cost: ``charged = max(0, seconds - delay_allowed)``."""

    side: Side
    seconds: float
    delay_allowed: float
    charged: float
    reserve_left: float


@dataclass
class Clock:
    """Both players' reserves and whose clock runs.

    A turn's time excludes pauses: a pause freezes the turn and resuming continues it, so the
    delay is never granted twice for one turn.
    """

    settings: ClockSettings
    reserve: dict[str, float] = field(default_factory=dict)
    on_move: Side | None = None
    running_since: float | None = None  # None while stopped or paused
    turn_elapsed: float = 0.0  # time of the current turn before the last pause
    no_delay: list[str] = field(default_factory=list)  # sides whose next turn has no delay
    turn_delay: float = 0.0  # the delay granted to the turn in progress
    expiries: dict[str, int] = field(default_factory=dict)
    timed: bool = True  # False: a match without a clock; turns are tracked, never charged

    def __post_init__(self) -> None:
        if not self.reserve:
            self.reserve = {s: float(self.settings.reserve) for s in SIDES}
        if not self.expiries:
            self.expiries = {s: 0 for s in SIDES}

    # ── state ────────────────────────────────────────────────────────────
    @property
    def running(self) -> bool:
        return self.running_since is not None

    @property
    def in_turn(self) -> bool:
        """A turn is under way (running, or frozen by a pause)."""
        return self.on_move is not None

    def elapsed(self, now: float) -> float:
        """Seconds of the turn in progress, pauses excluded."""
        if self.running_since is None:
            return self.turn_elapsed
        return self.turn_elapsed + max(0.0, now - self.running_since)

    def remaining(self, side: Side, now: float) -> tuple[float, float]:
        """``(reserve left, delay left)`` for ``side`` at ``now``, as the display shows them."""
        reserve = self.reserve[side]
        if side != self.on_move:
            delay = 0.0 if side in self.no_delay else self.settings.delay
            return reserve, delay
        t = self.elapsed(now)
        delay_left = max(0.0, self.turn_delay - t)
        reserve_left = reserve - max(0.0, t - self.turn_delay)
        return max(0.0, reserve_left), delay_left

    def shown(self, side: Side, now: float) -> float:
        """The main figure on the display: the reserve, or reserve + unused delay (bronstein)."""
        reserve, delay = self.remaining(side, now)
        return reserve + delay if self.settings.display == "bronstein" else reserve

    def flag_at(self) -> float | None:
        """The instant the running clock's flag falls, or None when no clock runs."""
        if self.running_since is None or self.on_move is None or not self.timed:
            return None
        limit = self.turn_delay + self.reserve[self.on_move]
        return self.running_since + (limit - self.turn_elapsed)

    def flagged(self, now: float) -> bool:
        """True once the turn in progress exceeds delay + reserve (strictly)."""
        if self.on_move is None or not self.timed:
            return False
        return self.elapsed(now) > self.turn_delay + self.reserve[self.on_move]

    # ── turns ────────────────────────────────────────────────────────────
    def start_turn(self, side: Side, now: float) -> None:
        """Start ``side``'s clock for a new turn (the opening press, or after a resume)."""
        self.on_move = side
        self.running_since = now
        self.turn_elapsed = 0.0
        if side in self.no_delay:
            self.no_delay.remove(side)
            self.turn_delay = 0.0
        else:
            self.turn_delay = self.settings.delay

    def end_turn(self, side: Side, now: float) -> TurnCharge:
        """``side`` slaps the clock: charge the turn and start the opponent's clock."""
        charge = self._charge(side, now)
        self.start_turn(other(side), now)
        return charge

    def stop(self, now: float) -> TurnCharge | None:
        """Stop both clocks for good (end of game), charging the turn in progress."""
        if self.on_move is None:
            return None
        charge = self._charge(self.on_move, now)
        self.on_move = None
        self.running_since = None
        self.turn_elapsed = 0.0
        return charge

    def _charge(self, side: Side, now: float) -> TurnCharge:
        if side != self.on_move:
            raise RuleError("not_on_move", f"{side} is not on move")
        if self.flagged(now):
            raise RuleError("flag_fell", f"{side}'s flag has fallen")
        seconds = self.elapsed(now)
        charged = max(0.0, seconds - self.turn_delay) if self.timed else 0.0
        self.reserve[side] = max(0.0, self.reserve[side] - charged)
        return TurnCharge(side, seconds, self.turn_delay, charged, self.reserve[side])

    # ── pause ────────────────────────────────────────────────────────────
    def pause(self, now: float) -> None:
        """Freeze the turn in progress (both clocks stop)."""
        if self.running_since is not None:
            self.turn_elapsed = self.elapsed(now)
            self.running_since = None

    def resume(self, now: float) -> None:
        """Continue the frozen turn where it stopped."""
        if self.on_move is not None and self.running_since is None:
            self.running_since = now

    # ── flag fall and director actions ──────────────────────────────────
    def expire(self, now: float) -> Side:
        """Record the flag fall of the side on move: reserve to zero, clocks stopped."""
        side = self.on_move
        if side is None or not self.flagged(now):
            raise RuleError("no_flag", "no flag has fallen")
        self.reserve[side] = 0.0
        self.expiries[side] += 1
        self.pause(now)
        # The expired turn is over; what follows (overtime, penalty reset) is a fresh segment
        # of the same turn without a second delay.
        self.turn_elapsed = 0.0
        self.turn_delay = 0.0
        return side

    def set_reserve(self, side: Side, seconds: float) -> None:
        self.reserve[side] = max(0.0, float(seconds))

    def adjust(self, side: Side, seconds: float, now: float) -> float:
        """Director's time adjustment (may add or remove time); returns the new reserve.

        On the running turn the adjustment moves the reserve the turn is measured against.
        """
        if not math.isfinite(seconds):
            raise RuleError("bad_adjustment", f"adjustment must be a finite number, not {seconds}")
        used = 0.0
        if side == self.on_move:
            used = max(0.0, self.elapsed(now) - self.turn_delay)
        new = self.reserve[side] + seconds
        if new - used < 0:
            raise RuleError(
                "bad_adjustment",
                f"{side} would have {new - used:.1f} s left; an adjustment cannot go below zero",
            )
        self.reserve[side] = new
        return new

    def forfeit_delay(self, side: Side) -> None:
        """HGV 9.4.1: picking up the dice early costs the delay of the offender's next turn."""
        if side not in self.no_delay:
            self.no_delay.append(side)

    # ── persistence ──────────────────────────────────────────────────────
    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["settings"] = self.settings.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Clock:
        values = dict(data)
        values["settings"] = ClockSettings.from_dict(values["settings"])
        return cls(**values)

    def with_settings(self, settings: ClockSettings) -> Clock:
        """A fresh clock (both reserves full) with other settings; used between games."""
        return replace(self, settings=settings, reserve={}, expiries={}, no_delay=[])
