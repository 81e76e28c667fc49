"""The tournament's settings: the club's defaults (RULES §1, §4), each one changeable.

>>> s = TournamentSettings()
>>> s.group_length, s.knockout_length, s.final_rounds_length
(3, 5, 7)
>>> TournamentSettings.from_dict(s.to_dict()) == s
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal

from mesa.tournament.errors import TournamentError

DiceBy = Literal["hub", "director"]

# (first place, last place, points in hundredths) — HGV 7.5.
DEFAULT_PLACE_BANDS: tuple[tuple[int, int, int], ...] = (
    (1, 1, 200),
    (2, 2, 100),
    (3, 4, 50),
    (5, 8, 25),
    (9, 16, 15),
    (17, 32, 8),
)


@dataclass(frozen=True)
class PointsScale:
    """Tournament points in hundredths of a point (HGV 7.5), so every sum is exact.

    >>> PointsScale().band_points(17, 30)
    8
    >>> PointsScale().band_points(33, 39)
    0
    """

    place_bands: tuple[tuple[int, int, int], ...] = DEFAULT_PLACE_BANDS
    participation: int = 10
    consolation_finalist: int = 15
    per_win: int = 4

    def band_points(self, first: int, last: int) -> int:
        """Points for a place range: the band that contains the whole range, else 0."""
        for lo, hi, pts in self.place_bands:
            if lo <= first and last <= hi:
                return pts
        return 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "place_bands": [list(b) for b in self.place_bands],
            "participation": self.participation,
            "consolation_finalist": self.consolation_finalist,
            "per_win": self.per_win,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PointsScale:
        return cls(
            place_bands=tuple((int(a), int(b), int(c)) for a, b, c in d["place_bands"]),
            participation=int(d["participation"]),
            consolation_finalist=int(d["consolation_finalist"]),
            per_win=int(d["per_win"]),
        )


@dataclass(frozen=True)
class TournamentSettings:
    """Defaults from RULES §1 and §4; the director may change any of them per tournament."""

    group_length: int = 3
    knockout_length: int = 5
    final_rounds_length: int = 7
    consolation_length: int = 3
    qualifiers_per_group: int = 3
    # RULES §1: 2 min per point, 10 s delay; semifinal and final 14 min + 10 s (HGV 7.3.1).
    reserve_per_point_s: int = 120
    delay_s: int = 10
    final_rounds_reserve_s: int = 840
    final_rounds_delay_s: int = 10
    # Rounds with at most this many players use the final-rounds length and clock (mandatory):
    # 4 = semifinal and final, 7 points with 14 min + 10 s (HGV 7.3.1, RULES §4).
    final_rounds_from: int = 4
    # Rounds with at most this many players have a mandatory clock (HGV 3.1, RULES §4: from
    # the quarterfinals, 8): a quarterfinal is played to knockout_length on its usual clock.
    clock_from: int = 8
    consolation: bool = True
    separate_groups: bool = True
    # Calendar slot of one group round (HGV 2.4: about half an hour for a 3-point match).
    minutes_per_group_round: int = 30
    # The pace norm (HGV 2.4): a match of length L takes about L × this many minutes.
    minutes_per_point: int = 10
    play_early: bool = True  # HGV 2.3.4
    feature_tables: tuple[str, ...] = ()  # tables reserved for the semifinals and final
    # Tables given to this event's matches only (the other events of the evening share the
    # rest, RULES §4); the event may still use any table nobody reserves.
    reserved_tables: tuple[str, ...] = ()
    dice_by: DiceBy = "hub"
    points: PointsScale = field(default_factory=PointsScale)

    def __post_init__(self) -> None:
        for name in ("group_length", "knockout_length", "final_rounds_length",
                     "consolation_length", "qualifiers_per_group", "minutes_per_point"):
            if getattr(self, name) < 1:
                raise TournamentError(f"setting {name} must be at least 1", code="bad_setting",
                                      reason="setting_min", setting=name)
        if self.dice_by not in ("hub", "director"):
            raise TournamentError("dice_by must be 'hub' or 'director'", code="bad_setting",
                                  reason="dice_by")

    def with_changes(self, **changes: Any) -> TournamentSettings:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["feature_tables"] = list(self.feature_tables)
        d["reserved_tables"] = list(self.reserved_tables)
        d["points"] = self.points.to_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TournamentSettings:
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in d.items() if k in known}
        for name in ("feature_tables", "reserved_tables"):
            if name in kwargs:
                kwargs[name] = tuple(kwargs[name])
        if "points" in kwargs:
            kwargs["points"] = PointsScale.from_dict(kwargs["points"])
        return cls(**kwargs)
