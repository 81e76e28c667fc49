"""Reproducible random draws: every outcome is a pure function of a recorded seed.

The engine never touches global randomness. A draw is a SHA-256 of the seed and a few labels,
so the same seed gives the same order on any machine and any Python version, and anyone holding
the seed can recompute (and so check) the outcome.

>>> roll_die(42, "G1", "A,B", "0", "A") == roll_die(42, "G1", "A,B", "0", "A")
True
>>> sorted(draw_order(7, ["ana", "bea", "eva"], "seeding")) == ["ana", "bea", "eva"]
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable


def draw_key(seed: int | str, *parts: str) -> str:
    """The hex digest that orders one item of one draw; lower keys come first."""
    text = "|".join(("mesa-draw", str(seed), *parts))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def draw_order(seed: int | str, items: Iterable[str], *parts: str) -> list[str]:
    """``items`` in the order of their draw keys (a reproducible shuffle)."""
    return sorted(items, key=lambda item: (draw_key(seed, *parts, item), item))


def roll_die(seed: int | str, *parts: str) -> int:
    """A fair die 1…6 derived from the seed (rejection sampling keeps it unbiased)."""
    counter = 0
    while True:
        digest = hashlib.sha256(
            "|".join(("mesa-die", str(seed), *parts, str(counter))).encode("utf-8")
        ).digest()
        for byte in digest:
            if byte < 252:  # 252 = 6 * 42: larger bytes would favour low faces
                return byte % 6 + 1
        counter += 1
