"""The tournament engine: groups, knockout, Último Chance, points, rankings and ratings.

A pure core (no I/O, no clock, no global randomness): time and seeds are passed in, and all
state round-trips through plain JSON-able dicts. See ``docs/tournament.md``.

>>> from datetime import date, datetime
>>> from mesa.tournament import Club
>>> club = Club()
>>> now = datetime(2014, 1, 31, 19, 30)
>>> for name in ("ALEX", "EL MANU"):
...     _ = club.registry.add_new(name)
>>> t = club.create_tournament("2014-01", "Enero", date(2014, 1, 31))
>>> for p in club.registry:
...     _ = club.register(t.id, p.id, now=now)
>>> _ = club.start(t.id, seed=1, now=now)
>>> _ = t.record_result("G1-1", 3, 1, now=now)        # the group decides the seeding
>>> final = t.match("KO-F-1")
>>> final.length, final.clock.reserve_s, final.clock.mandatory
(7, 840, True)
"""

from mesa.tournament.club import Club
from mesa.tournament.errors import (
    AlreadyDecidedError,
    CategoryError,
    ConflictError,
    DuplicatePlayerError,
    InvalidResultError,
    MatchNotReadyError,
    NotEnoughPlayersError,
    PhaseError,
    RankingCSVError,
    RowError,
    SanctionedError,
    TableError,
    TournamentError,
    UnknownMatchError,
    UnknownPlayerError,
)
from mesa.tournament.matches import ClockPreset, Match, Result
from mesa.tournament.players import Player, PlayerRegistry, Sanction
from mesa.tournament.points import PointsBreakdown, format_points, parse_points
from mesa.tournament.rating import RatingBook, fibs_change
from mesa.tournament.records import Conflict, FinalRow, Outcome
from mesa.tournament.scheduler import Assignment
from mesa.tournament.season import Ranking, SeasonBook, TournamentRecord
from mesa.tournament.settings import PointsScale, TournamentSettings
from mesa.tournament.store import TournamentStore
from mesa.tournament.tournament import Tournament

__all__ = [
    "AlreadyDecidedError", "Assignment", "CategoryError", "ClockPreset", "Club", "Conflict",
    "ConflictError", "DuplicatePlayerError", "FinalRow", "InvalidResultError", "Match",
    "MatchNotReadyError", "NotEnoughPlayersError", "Outcome", "PhaseError", "Player",
    "PlayerRegistry", "PointsBreakdown", "PointsScale", "Ranking", "RankingCSVError",
    "RatingBook", "Result", "RowError", "Sanction", "SanctionedError", "SeasonBook",
    "TableError", "Tournament", "TournamentError", "TournamentRecord", "TournamentSettings",
    "TournamentStore", "UnknownMatchError", "UnknownPlayerError", "fibs_change",
    "format_points", "parse_points",
]
