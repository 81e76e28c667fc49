"""The club: players, seasons, ratings and tournaments together, as the hub uses them.

>>> from datetime import date, datetime
>>> club = Club()
>>> now = datetime(2014, 1, 31, 19, 30)
>>> ids = [club.registry.add_new(n).id for n in ("ALEX", "EL MANU", "IGLESIAS", "ROCIO")]
>>> t = club.create_tournament("2014-01", "Enero", date(2014, 1, 31))
>>> for pid in ids:
...     _ = club.register("2014-01", pid, now=now)
>>> _ = club.start("2014-01", seed=31, now=now)
>>> len(t.groups), t.phase
(1, 'groups')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from mesa.tournament.errors import TournamentError
from mesa.tournament.players import Category, PlayerRegistry, SanctionKind
from mesa.tournament.ranking_csv import ImportedRanking, import_ranking
from mesa.tournament.rating import RatingBook
from mesa.tournament.records import Entrant, Outcome
from mesa.tournament.season import Ranking, SeasonBook, TournamentRecord
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.tournament import Tournament

# A tournament's id: letters, digits, '.', '-' and '_', 64 at most (a date, "2026-12-04-novatos").
TOURNAMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass
class Club:
    """Everything the hub persists about the club (see :mod:`mesa.tournament.store`)."""

    registry: PlayerRegistry = field(default_factory=PlayerRegistry)
    season: SeasonBook = field(default_factory=SeasonBook)
    ratings: RatingBook = field(default_factory=RatingBook)
    tournaments: dict[str, Tournament] = field(default_factory=dict)

    def create_tournament(self, id: str, name: str, held_on: date, *,
                          category: Category = "open", official: bool = True,
                          settings: TournamentSettings | None = None) -> Tournament:
        if not TOURNAMENT_ID.fullmatch(id) or ".." in id:
            # The id names files and folders (the static site, the exports) and URLs.
            raise TournamentError(f"{id[:40]!r} is not a tournament id", code="bad_setting",
                                  reason="tournament_id", tournament=id[:40])
        if id in self.tournaments:
            raise TournamentError(f"tournament {id!r} already exists",
                                  code="duplicate_tournament", reason="tournament_exists",
                                  tournament=id)
        t = Tournament(id, name, held_on, category=category, official=official,
                       settings=settings)
        self.tournaments[id] = t
        return t

    def tournament(self, id: str) -> Tournament:
        try:
            return self.tournaments[id]
        except KeyError:
            raise TournamentError(f"no tournament {id!r}", code="unknown_tournament",
                                  reason="unknown_tournament", tournament=id) from None

    def register(self, tournament_id: str, player_id: str, *, override: bool = False,
                 actor: str = "director", now: datetime) -> Entrant:
        return self.tournament(tournament_id).register(self.registry, player_id,
                                                       override=override, actor=actor, now=now)

    def register_card(self, tournament_id: str, card_id: str, *, actor: str = "card",
                      now: datetime) -> Entrant:
        """Registration by member card; sanctions cannot be overridden from a card reader."""
        return self.register(tournament_id, self.registry.by_card(card_id).id, actor=actor,
                             now=now)

    def start(self, tournament_id: str, *, seed: int | str, now: datetime,
              actor: str = "director", n_groups: int | None = None,
              start_at: datetime | None = None) -> Outcome:
        """Seed by the official ranking before this tournament, fill groups, serve bans."""
        t = self.tournament(tournament_id)
        ranking = self.season.seeding_points(t.category, t.held_on)
        out = t.start_groups(ranking=ranking, seed=seed, now=now, actor=actor,
                             n_groups=n_groups, start_at=start_at)
        self.registry.serve_sanctions(t.id, t.held_on)
        return out

    def redraw(self, tournament_id: str, *, seed: int | str, now: datetime,
               actor: str = "director", n_groups: int | None = None) -> list[str]:
        """Draw the groups again with a new seed (the old draw stays in the audit).

        Returns the tables the old draw had matches at. Refused like
        :meth:`Tournament.undo_groups` once the group draw counts.
        """
        t = self.tournament(tournament_id)
        tables = t.undo_groups(actor=actor, now=now, why="redraw")
        self.start(tournament_id, seed=seed, now=now, actor=actor, n_groups=n_groups)
        return tables

    def withdraw(self, tournament_id: str, player_id: str, kind: SanctionKind, *,
                 actor: str = "director", now: datetime, note: str = "") -> Outcome:
        """HGV 2.3.5/2.3.6; the ban is on the player's record at once (not only at closing)."""
        t = self.tournament(tournament_id)
        out = t.withdraw(player_id, kind, actor=actor, now=now, note=note)
        for s in t.sanctions:
            self.registry.add_sanction(s)
        return out

    def close(self, tournament_id: str, *, actor: str = "director",
              now: datetime) -> TournamentRecord:
        """Close a tournament: its record joins the season, its matches the ratings."""
        t = self.tournament(tournament_id)
        t.close(actor=actor, now=now)
        return self.refresh(tournament_id)

    def refresh(self, tournament_id: str) -> TournamentRecord:
        """Re-record a closed tournament after a late correction; ratings are rebuilt."""
        t = self.tournament(tournament_id)
        if t.phase != "closed":
            raise TournamentError(f"{tournament_id} is not closed", code="wrong_phase",
                                  reason="not_closed", tournament=tournament_id)
        record = TournamentRecord.from_tournament(t)
        self.season.add_record(record)
        for s in t.sanctions:
            self.registry.add_sanction(s)
        self.ratings = RatingBook.rebuild(x for x in self.tournaments.values()
                                          if x.phase == "closed")
        return record

    def import_ranking(self, text: str, *, year: int, category: Category = "open",
                       create_missing: bool = False) -> ImportedRanking:
        """A season's ranking from CSV (e.g. last season's final one) as that season's base."""
        imported = import_ranking(text, self.registry, category=category, title=str(year),
                                  create_missing=create_missing)
        self.season.set_base(year, category, imported.ranking)
        return imported

    def names(self) -> dict[str, str]:
        return {p.id: p.name for p in self.registry}

    def annual_ranking(self, year: int, category: Category = "open") -> Ranking:
        return self.season.annual_ranking(year, category, names=self.names())

    def historic_ranking(self, category: Category = "open") -> Ranking:
        return self.season.historic_ranking(category, names=self.names())

    def to_dict(self) -> dict[str, Any]:
        return {"registry": self.registry.to_dict(), "season": self.season.to_dict(),
                "ratings": self.ratings.to_dict(),
                "tournaments": [t.to_dict() for t in self.tournaments.values()]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Club:
        club = cls(PlayerRegistry.from_dict(d["registry"]), SeasonBook.from_dict(d["season"]),
                   RatingBook.from_dict(d["ratings"]))
        for td in d["tournaments"]:
            t = Tournament.from_dict(td)
            club.tournaments[t.id] = t
        return club
