"""How long a match takes: the pace norm (HGV 2.4), its spread, and the clock's bound.

The model, used by the forecast (:mod:`mesa.tournament.forecast`), the critical scheduler
(:mod:`mesa.tournament.chains`) and ``bench/schedule.py`` (``docs/schedule.md`` shows it):

- **The norm.** A match of length ``L`` takes about ``minutes_per_point × L`` minutes
  (HGV 2.4: 10 minutes per point, a 3-point match in half an hour). This is the *expected*
  duration, the mean the forecast works with.
- **The spread.** A real match is the norm times a lognormal factor ``exp(σ·Z − σ²/2)``, with
  ``Z`` a standard normal and ``σ = SIGMA`` (0.30): the mean stays the norm, half the matches
  lie within about ±20 % of it, one in twenty is 60 % longer. The factor is drawn from a seed
  and the match id (:func:`drawn_s`), so one evening played by two schedulers gives every match
  the same duration.
- **The clock's bound.** While a clock runs, a match cannot last longer than both players'
  reserves plus the delay of every move (a simple delay is not taken off the reserve, HGV 9.1):
  ``2 × reserve + delay × moves``. The moves are estimated as ``MOVES_PER_GAME`` (50: about 25
  a player) for each game, and one game per point of the length (a game scores a bit more than
  a point on average, with the cube and gammons; the loser's points take the rest): a 3-point
  match has at most ``2 × 360 s + 10 s × 150 = 37 min`` on the RULES §1 clock, a 7-point final
  on 14 min + 10 s at most ``2 × 840 s + 10 s × 350 ≈ 86 min``. A match is bounded only when
  its clock runs (a mandatory clock, or one the director imposed).

>>> from mesa.tournament.matches import ClockPreset
>>> expected_s(3)                                   # the norm: 30 minutes
1800.0
>>> clock_bound_s(3, ClockPreset.for_length(3)) / 60
37.0
>>> round(expected_s(7, clock=ClockPreset(840, 10, True)) / 60)   # the norm, under its bound
70
>>> round(expected_s(7, minutes_per_point=15, clock=ClockPreset(840, 10, True)) / 60, 1)
86.3
>>> drawn_s("G1-1", 3, seed=1) == drawn_s("G1-1", 3, seed=1) != drawn_s("G1-2", 3, seed=1)
True
"""

from __future__ import annotations

import hashlib
import math
import random

from mesa.tournament.matches import ClockPreset, Match

# The norm of HGV 2.4 (TournamentSettings.minutes_per_point holds each event's own).
MINUTES_PER_POINT = 10
# The lognormal spread of a match's duration around the norm.
SIGMA = 0.30
# Moves in one game, both players together (the clock's delay is given once per move).
MOVES_PER_GAME = 50


def moves_left(length: int, leader: int = 0) -> int:
    """The estimated moves still to play: one game per point the leader still needs.

    >>> moves_left(5), moves_left(5, leader=4), moves_left(5, leader=7)
    (250, 50, 50)
    """
    return MOVES_PER_GAME * max(1, length - leader)


def clock_bound_s(length: int, clock: ClockPreset, leader: int = 0,
                  reserves_s: tuple[float, float] | None = None) -> float:
    """The longest a match (or what is left of it) can last on ``clock``, in seconds.

    ``reserves_s`` are the reserves the players still have (both full when not given);
    ``leader`` the points the leader has already (fewer games left).
    """
    left = (clock.reserve_s, clock.reserve_s) if reserves_s is None else reserves_s
    return float(max(0.0, left[0]) + max(0.0, left[1]) + clock.delay_s * moves_left(
        length, leader))


def norm_s(length: int, minutes_per_point: float = MINUTES_PER_POINT) -> float:
    """The norm: ``minutes_per_point × length`` minutes, in seconds."""
    return 60.0 * minutes_per_point * length


def expected_s(length: int, *, minutes_per_point: float = MINUTES_PER_POINT,
               clock: ClockPreset | None = None) -> float:
    """The expected duration in seconds: the norm, at most the clock's bound when a clock
    runs (``clock`` given: pass a match's clock only when it runs)."""
    d = norm_s(length, minutes_per_point)
    return d if clock is None else min(d, clock_bound_s(length, clock))


def running_clock(m: Match) -> ClockPreset | None:
    """The clock that bounds ``m`` in a forecast: its clock when mandatory, else none."""
    return m.clock if m.clock.mandatory else None


def match_expected_s(m: Match, minutes_per_point: float = MINUTES_PER_POINT) -> float:
    """:func:`expected_s` for a match of the draw (its length, its clock when mandatory)."""
    return expected_s(m.length, minutes_per_point=minutes_per_point, clock=running_clock(m))


def _cdf(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def moments_s(length: int, *, minutes_per_point: float = MINUTES_PER_POINT,
              clock: ClockPreset | None = None, sigma: float = SIGMA) -> tuple[float, float]:
    """The mean and variance (seconds, seconds²) of a duration drawn by the model: the norm
    times the lognormal spread, at most the running clock's bound. A bound cuts off the long
    tail: the mean is a little under the norm and the spread much narrower (a 7-point final on
    14 min + 10 s: about 67 ± 15 minutes rather than 70 ± 21), which is what the forecast's
    slowest of parallel matches needs.

    >>> m, v = moments_s(3)
    >>> round(m / 60), round(v ** 0.5 / 60, 1)                  # the norm, its spread
    (30, 9.2)
    >>> m, v = moments_s(7, clock=ClockPreset(840, 10, True))
    >>> round(m / 60, 1), round(v ** 0.5 / 60, 1)
    (66.7, 15.4)
    """
    a = norm_s(length, minutes_per_point)
    s2 = sigma * sigma
    if clock is None or sigma <= 0:
        mean = a if clock is None else min(a, clock_bound_s(length, clock))
        return mean, a * a * (math.exp(s2) - 1) if clock is None else 0.0
    # min(a·X, b) for X = exp(σZ − σ²/2): the lognormal's partial moments below c = b / a.
    b = clock_bound_s(length, clock)
    lc = math.log(b / a) if b > 0 else -math.inf
    above = 1 - _cdf((lc + s2 / 2) / sigma)
    first = _cdf((lc - s2 / 2) / sigma) + (b / a) * above
    second = math.exp(s2) * _cdf((lc - 1.5 * s2) / sigma) + (b / a) ** 2 * above
    return a * first, max(0.0, a * a * (second - first * first))


def match_moments_s(m: Match, minutes_per_point: float = MINUTES_PER_POINT,
                    sigma: float = SIGMA) -> tuple[float, float]:
    """:func:`moments_s` for a match of the draw (its length, its clock when mandatory)."""
    return moments_s(m.length, minutes_per_point=minutes_per_point, clock=running_clock(m),
                     sigma=sigma)


def _rng(seed: int | str, match_id: str) -> random.Random:
    digest = hashlib.sha256(f"mesa-duration|{seed}|{match_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def spread(seed: int | str, key: str, sigma: float = SIGMA) -> float:
    """The lognormal factor (mean 1) drawn for ``key`` under ``seed``.

    >>> 0.3 < spread(7, "KO-F-1") < 3
    True
    """
    z = _rng(seed, key).gauss(0.0, 1.0)
    return math.exp(sigma * z - sigma * sigma / 2)


def drawn_s(match_id: str, length: int, *, seed: int | str,
            minutes_per_point: float = MINUTES_PER_POINT, clock: ClockPreset | None = None,
            sigma: float = SIGMA) -> float:
    """One simulated duration in seconds: the norm times the spread, at most the clock's
    bound when a clock runs. The same seed and match id always give the same duration."""
    d = norm_s(length, minutes_per_point) * spread(seed, match_id, sigma)
    return d if clock is None else min(d, clock_bound_s(length, clock))

