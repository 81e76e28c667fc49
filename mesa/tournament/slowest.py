"""The expected start of a match that waits for the slowest of several: Clark's approximation.

A knockout match starts when both of its feeders have ended, the knockout draw when every
group has: the expected start is the expected *maximum* of uncertain ends, later than the
latest expected end (two parallel semifinals of 70 ± 21 minutes end, the later one, about
12 minutes after 70). The forecast (:mod:`mesa.tournament.forecast`) plays the evening with
expected durations, which gives the latest expected end; this module gives each match's
expected start from its precedences alone (tables ignored), by C. E. Clark's moments of the
maximum of two normal variables (1961), folded over the predecessors. The forecast takes the
later of the two.

A match's duration has the spread of :mod:`mesa.tournament.durations`: a lognormal of
coefficient of variation ``CV = √(exp(σ²) − 1)`` (0.31 for σ = 0.30).

>>> m, v = clark_max((70.0, 21.0 ** 2), (70.0, 21.0 ** 2))
>>> round(m, 1), round(v ** 0.5, 1)
(81.8, 17.3)
>>> clark_max((10.0, 0.0), (5.0, 0.0))
(10.0, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from mesa.tournament.durations import SIGMA


def cv_of(sigma: float) -> float:
    """The coefficient of variation of a lognormal spread of ``sigma``.

    >>> round(cv_of(0.30), 3), cv_of(0.0)
    (0.307, 0.0)
    """
    return math.sqrt(math.exp(sigma * sigma) - 1)


CV = cv_of(SIGMA)

# (mean, variance), in seconds and seconds squared.
Moments = tuple[float, float]


def _phi(x: float) -> float:
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _cdf(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def clark_max(x: Moments, y: Moments) -> Moments:
    """The mean and variance of max(X, Y) for independent normal X, Y (Clark 1961)."""
    (m1, v1), (m2, v2) = x, y
    theta = math.sqrt(max(0.0, v1 + v2))
    if theta < 1e-9:
        return (m1, v1) if m1 >= m2 else (m2, v2)
    a = (m1 - m2) / theta
    p, q, d = _cdf(a), _cdf(-a), _phi(a)
    mean = m1 * p + m2 * q + theta * d
    second = (m1 * m1 + v1) * p + (m2 * m2 + v2) * q + (m1 + m2) * theta * d
    return mean, max(0.0, second - mean * mean)


def fold_max(items: Iterable[Moments]) -> Moments:
    """max over several, folded pairwise (largest means first: the approximation is best
    when the first terms dominate); (0, 0) for none."""
    ordered = sorted(items, key=lambda mv: -mv[0])
    if not ordered:
        return (0.0, 0.0)
    acc = ordered[0]
    for item in ordered[1:]:
        acc = clark_max(acc, item)
    return acc


def expected_starts(preds: Mapping[str, Sequence[str]], duration: Mapping[str, Moments],
                    fixed: Mapping[str, Moments] | None = None,
                    release: Mapping[str, float] | None = None) -> dict[str, Moments]:
    """Each node's start (mean, variance) from now (0): the maximum of now, its
    ``release`` (a time it cannot start before, when given) and its predecessors' ends;
    ``fixed`` nodes (under way) have their end given instead.

    >>> preds = {"SF-1": [], "SF-2": [], "F": ["SF-1", "SF-2"]}
    >>> dur = {k: (70.0, 21.0 ** 2) for k in preds}
    >>> round(expected_starts(preds, dur)["F"][0], 1)
    81.8
    """
    fixed = fixed or {}
    release = release or {}
    start: dict[str, Moments] = {}
    end: dict[str, Moments] = {}
    for key in preds:
        stack = [key]
        while stack:
            k = stack[-1]
            if k in end:
                stack.pop()
                continue
            if k in fixed:
                start[k] = (0.0, 0.0)
                end[k] = fixed[k]
                stack.pop()
                continue
            todo = [p for p in preds.get(k, ()) if p not in end and p in preds]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            s = fold_max([(release.get(k, 0.0), 0.0),
                          *(end[p] for p in preds.get(k, ()) if p in end)])
            d = duration[k]
            start[k] = s
            end[k] = (s[0] + d[0], s[1] + d[1])
    return start
