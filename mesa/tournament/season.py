"""The season (HGV 8): annual and historic rankings, prizes, categories, friendlies.

>>> from datetime import date
>>> book = SeasonBook()
>>> book.add_record(TournamentRecord("T1", "Enero", date(2014, 1, 31), "open", True, (
...     PlayerResult("A", "ALEX", 230, (1, 1), 5),
...     PlayerResult("B", "EL MANU", 134, (2, 2), 6))))
>>> [(e.position, e.name, e.points, e.won, e.finals) for e in book.annual_ranking(2014).entries]
[(1, 'ALEX', 230, 1, 1), (2, 'EL MANU', 134, 0, 1)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mesa.tournament.tournament import Tournament


@dataclass(frozen=True)
class PlayerResult:
    """One player's outcome in one tournament."""

    player_id: str
    name: str
    points: int
    place: tuple[int, int] | None
    wins: int

    @property
    def won(self) -> bool:
        return self.place == (1, 1)

    @property
    def played_final(self) -> bool:
        return self.place in ((1, 1), (2, 2))

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "name": self.name, "points": self.points,
                "place": None if self.place is None else list(self.place), "wins": self.wins}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PlayerResult:
        pl = d.get("place")
        return cls(d["player_id"], d["name"], int(d["points"]),
                   None if pl is None else (int(pl[0]), int(pl[1])), int(d["wins"]))


@dataclass(frozen=True)
class TournamentRecord:
    """What the season keeps of a closed tournament."""

    tournament_id: str
    name: str
    held_on: date
    category: str
    official: bool
    results: tuple[PlayerResult, ...]

    @classmethod
    def from_tournament(cls, t: Tournament) -> TournamentRecord:
        rows = t.final_list()
        return cls(t.id, t.name, t.held_on, t.category, t.official, tuple(
            PlayerResult(r.player_id, r.name, r.total, r.points.place, r.points.wins)
            for r in rows))

    def to_dict(self) -> dict[str, Any]:
        return {"tournament_id": self.tournament_id, "name": self.name,
                "held_on": self.held_on.isoformat(), "category": self.category,
                "official": self.official, "results": [r.to_dict() for r in self.results]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TournamentRecord:
        return cls(d["tournament_id"], d["name"], date.fromisoformat(d["held_on"]),
                   d["category"], bool(d["official"]),
                   tuple(PlayerResult.from_dict(r) for r in d["results"]))


@dataclass(frozen=True)
class RankingEntry:
    """A line of a ranking. ``position`` is shared when every tie-break is equal."""

    position: int
    player_id: str
    name: str
    points: int
    tournaments: int = 0
    won: int = 0
    finals: int = 0
    eligible: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"position": self.position, "player_id": self.player_id, "name": self.name,
                "points": self.points, "tournaments": self.tournaments, "won": self.won,
                "finals": self.finals, "eligible": self.eligible}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RankingEntry:
        return cls(int(d["position"]), d["player_id"], d["name"], int(d["points"]),
                   int(d.get("tournaments", 0)), int(d.get("won", 0)), int(d.get("finals", 0)),
                   bool(d.get("eligible", False)))


@dataclass(frozen=True)
class Ranking:
    """An ordered ranking (annual, historic, or imported from a CSV)."""

    title: str
    category: str
    entries: tuple[RankingEntry, ...]

    def points(self) -> dict[str, int]:
        return {e.player_id: e.points for e in self.entries}

    def entry(self, player_id: str) -> RankingEntry | None:
        return next((e for e in self.entries if e.player_id == player_id), None)

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "category": self.category,
                "entries": [e.to_dict() for e in self.entries]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Ranking:
        return cls(d["title"], d["category"],
                   tuple(RankingEntry.from_dict(e) for e in d["entries"]))


def order_ranking(totals: Mapping[str, list[int]], names: Mapping[str, str], title: str,
                  category: str, need: int | None = None) -> Ranking:
    """Sort by points, then tournaments won, then finals played (HGV 7.5, 8.2); equal on all
    three share a position (listed by name)."""
    keyed = sorted(totals, key=lambda p: (-totals[p][0], -totals[p][2], -totals[p][3],
                                          names.get(p, p).casefold(), p))
    entries: list[RankingEntry] = []
    prev: tuple[int, int, int] | None = None
    pos = 0
    for i, p in enumerate(keyed, start=1):
        pts, played, won, finals = totals[p]
        if (pts, won, finals) != prev:
            pos, prev = i, (pts, won, finals)
        entries.append(RankingEntry(pos, p, names.get(p, p), pts, played, won, finals,
                                    need is not None and played >= need))
    return Ranking(title, category, tuple(entries))


@dataclass
class SeasonBook:
    """Closed tournaments and imported rankings; computes every ranking from them.

    ``bases[(year, category)]`` holds a ranking imported for a season (points, tournaments,
    wins and finals played before the club used Mesa); it is added to that season.
    """

    records: dict[str, TournamentRecord] = field(default_factory=dict)
    bases: dict[tuple[int, str], Ranking] = field(default_factory=dict)
    planned_tournaments: int = 10
    min_participation_percent: int = 60

    def add_record(self, record: TournamentRecord) -> None:
        """Add or replace (after a late correction) a closed tournament's record."""
        self.records[record.tournament_id] = record

    def set_base(self, year: int, category: str, ranking: Ranking) -> None:
        self.bases[(year, category)] = ranking

    @property
    def prize_minimum(self) -> int:
        """Tournaments needed for the annual prizes: 60 % of 10 = 6 (HGV 8.3)."""
        return -(-self.planned_tournaments * self.min_participation_percent // 100)

    def _accumulate(self, records: Iterable[TournamentRecord],
                    bases: Iterable[Ranking]) -> tuple[dict[str, list[int]], dict[str, str]]:
        totals: dict[str, list[int]] = {}
        names: dict[str, str] = {}
        for base in bases:
            for e in base.entries:
                t = totals.setdefault(e.player_id, [0, 0, 0, 0])
                t[0] += e.points
                t[1] += e.tournaments
                t[2] += e.won
                t[3] += e.finals
                names[e.player_id] = e.name
        for rec in sorted(records, key=lambda r: (r.held_on, r.tournament_id)):
            for r in rec.results:
                t = totals.setdefault(r.player_id, [0, 0, 0, 0])
                t[0] += r.points
                t[1] += 1
                t[2] += r.won
                t[3] += r.played_final
                names[r.player_id] = r.name
        return totals, names

    def official(self, category: str, year: int | None = None,
                 before: date | None = None) -> list[TournamentRecord]:
        return [r for r in self.records.values()
                if r.official and r.category == category
                and (year is None or r.held_on.year == year)
                and (before is None or r.held_on < before)]

    def annual_ranking(self, year: int, category: str = "open", *,
                       before: date | None = None,
                       names: Mapping[str, str] | None = None) -> Ranking:
        """Sum of the year's official tournaments (friendlies do not count, HGV 8.1)."""
        base = self.bases.get((year, category))
        totals, known = self._accumulate(self.official(category, year, before),
                                         [base] if base else [])
        known.update(names or {})
        return order_ranking(totals, known, f"{year}", category, self.prize_minimum)

    def historic_ranking(self, category: str = "open", *,
                         names: Mapping[str, str] | None = None) -> Ranking:
        """Every official tournament ever, with every imported season (HGV 8.2)."""
        bases = [b for (_, c), b in sorted(self.bases.items()) if c == category]
        totals, known = self._accumulate(self.official(category), bases)
        known.update(names or {})
        return order_ranking(totals, known, "historic", category)

    def seeding_points(self, category: str, held_on: date) -> dict[str, int]:
        """The official ranking after the last tournament before ``held_on`` (RULES §4):
        this season's so far, or the previous season's final one for the season's first."""
        year = held_on.year
        if self.official(category, year, held_on) or (year, category) in self.bases:
            return self.annual_ranking(year, category, before=held_on).points()
        return self.annual_ranking(year - 1, category).points()

    def to_dict(self) -> dict[str, Any]:
        return {"records": [r.to_dict() for r in self.records.values()],
                "bases": [{"year": y, "category": c, "ranking": r.to_dict()}
                          for (y, c), r in self.bases.items()],
                "planned_tournaments": self.planned_tournaments,
                "min_participation_percent": self.min_participation_percent}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SeasonBook:
        book = cls(planned_tournaments=int(d.get("planned_tournaments", 10)),
                   min_participation_percent=int(d.get("min_participation_percent", 60)))
        for r in d.get("records", []):
            rec = TournamentRecord.from_dict(r)
            book.records[rec.tournament_id] = rec
        for b in d.get("bases", []):
            book.bases[(int(b["year"]), b["category"])] = Ranking.from_dict(b["ranking"])
        return book
