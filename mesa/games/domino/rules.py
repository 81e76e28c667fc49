"""The domino pairs table: four seats, two pairs, the play order, and every number the seed sets.

Seats are named by the compass: ``n`` and ``s`` are one pair, ``e`` and ``w`` the other. The turn
passes to the right (seed 002: a player plays after "la persona de la izquierda"); seen from
above with north at the top, the player at the right of north is west, so the order is
n → w → s → e → n. The lead ("salida") rotates the same way, hand after hand.

>>> next_seat("n"), pair_of("w"), partner("e"), opponents("ns")
('w', 'ew', 'w', ('e', 'w'))
>>> DominoSettings().target_points, DominoSettings().game_seconds
(200, 2100.0)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from mesa.errors import ConfigError
from mesa.games.domino.penalties import DEFAULT_PENALTY_POINTS

Seat = Literal["n", "e", "s", "w"]
Pair = Literal["ns", "ew"]

SEATS: tuple[Seat, ...] = ("n", "e", "s", "w")
PAIRS: tuple[Pair, ...] = ("ns", "ew")
PLAY_ORDER: tuple[Seat, ...] = ("n", "w", "s", "e")
_NEXT: dict[str, Seat] = {"n": "w", "w": "s", "s": "e", "e": "n"}
_PAIR_OF: dict[str, Pair] = {"n": "ns", "s": "ns", "e": "ew", "w": "ew"}
_MEMBERS: dict[str, tuple[Seat, Seat]] = {"ns": ("n", "s"), "ew": ("e", "w")}


def is_seat(value: object) -> bool:
    return value in SEATS


def is_pair(value: object) -> bool:
    return value in PAIRS


def next_seat(seat: Seat) -> Seat:
    """The seat that plays after ``seat`` (to its right)."""
    return _NEXT[seat]


def pair_of(seat: Seat) -> Pair:
    return _PAIR_OF[seat]


def members(pair: Pair) -> tuple[Seat, Seat]:
    return _MEMBERS[pair]


def other_pair(pair: Pair) -> Pair:
    return "ew" if pair == "ns" else "ns"


def partner(seat: Seat) -> Seat:
    a, b = members(pair_of(seat))
    return b if seat == a else a


def opponents(pair: Pair) -> tuple[Seat, Seat]:
    """The two seats of the other pair."""
    return members(other_pair(pair))


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class DominoSettings:
    """Every number of a domino game, with the seed's defaults (RULES §5, seed 002).

    Point settings carry their sign: a penalty is negative, a bonus positive. The points of each
    penalty reason (slow play −25, late pass +25 to each opponent, absent −100, …) are in
    ``penalty_points``, keyed by the reasons of :mod:`mesa.games.domino.penalties`.

    >>> DominoSettings(play_seconds=20).play_seconds
    20.0
    >>> DominoSettings(target_points=0)
    Traceback (most recent call last):
      ...
    mesa.errors.ConfigError: target_points must be an integer ≥ 1, not 0
    """

    target_points: int = 200  # "JUEGOS de 200 tantos"
    game_minutes: float = 35.0  # "o 35 minutos, lo que ocurra primero"
    play_seconds: float = 15.0  # "QUINCE (15) SEGUNDOS" per play
    pass_seconds: float = 5.0  # "NO puede tomar más de 5 segundos para decir PASO"
    play_warnings: int = 1  # breaches answered with a warning before the first penalty
    absence_points: int = 100  # to the present pair ("cien +(100) puntos")
    absence_games: int = 1  # games won by the present pair
    forfeit_points: int = 100  # to the pair left at the table when a player is expelled
    max_hand_points: int = 169  # the entry wheel's top: tens 0…16, units 0…9
    penalty_points: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_PENALTY_POINTS))

    def __post_init__(self) -> None:
        problems: list[str] = []
        for name in ("target_points", "max_hand_points", "absence_games"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                problems.append(f"{name} must be an integer ≥ 1, not {value!r}")
        if not isinstance(self.play_warnings, int) or self.play_warnings < 0:
            problems.append(f"play_warnings must be an integer ≥ 0, not {self.play_warnings!r}")
        for name in ("game_minutes", "play_seconds", "pass_seconds"):
            value = getattr(self, name)
            if not _number(value) or value <= 0:
                problems.append(f"{name} must be a number > 0, not {value!r}")
            else:
                object.__setattr__(self, name, float(value))
        for name in ("absence_points", "forfeit_points"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                problems.append(f"{name} must be an integer, not {value!r}")
        unknown = set(self.penalty_points) - set(DEFAULT_PENALTY_POINTS)
        if unknown:
            problems.append(f"unknown penalty reasons {sorted(unknown)}")
        if any(not isinstance(v, int) or isinstance(v, bool) for v in self.penalty_points.values()):
            problems.append("penalty points must be integers")
        if problems:
            raise ConfigError("; ".join(problems))
        # A partial table overrides some reasons; the others keep the seed's numbers.
        object.__setattr__(
            self, "penalty_points", {**DEFAULT_PENALTY_POINTS, **self.penalty_points}
        )

    @property
    def game_seconds(self) -> float:
        return self.game_minutes * 60.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DominoSettings:
        known = set(cls.__dataclass_fields__)
        unknown = set(data) - known
        if unknown:
            raise ConfigError(f"unknown domino settings: {sorted(unknown)}")
        return cls(**data)
