"""FIBS ratings (RULES §4, beyond the regulation): start 1500, experience 0.

``P_upset = 1 / (10^(D·√n/2000) + 1)``; the winner gains ``4·K·√n·P`` and the loser loses
``4·K·√n·P``, where P is the chance the result had of going the other way and each player's
``K = max(1, 5 − experience/100)``.

>>> round(fibs_change(1500, 1500, 1, 0, 0)[0], 2)
10.0
>>> [round(x, 6) for x in fibs_change(1600, 1500, 3, 400, 400)]
[3.119854, 3.119854]
>>> round(fibs_change(1500, 1600, 3, 400, 400)[0], 6)
3.808349
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mesa.tournament.tournament import Tournament

START_RATING = 1500.0


def p_upset(diff: float, length: int) -> float:
    """Probability that the lower-rated player wins a ``length``-point match."""
    return 1.0 / (10 ** (abs(diff) * math.sqrt(length) / 2000) + 1)


def k_factor(experience: int) -> float:
    return max(1.0, 5 - experience / 100)


def fibs_change(winner: float, loser: float, length: int, winner_exp: int,
                loser_exp: int) -> tuple[float, float]:
    """(points the winner gains, points the loser loses)."""
    upset = p_upset(winner - loser, length)
    p = upset if winner >= loser else 1 - upset
    root = math.sqrt(length)
    return 4 * k_factor(winner_exp) * root * p, 4 * k_factor(loser_exp) * root * p


@dataclass(frozen=True)
class RatingChange:
    tournament_id: str
    match_id: str
    opponent: str
    length: int
    won: bool
    before: float
    after: float
    experience: int

    def to_dict(self) -> dict[str, Any]:
        return {"tournament_id": self.tournament_id, "match_id": self.match_id,
                "opponent": self.opponent, "length": self.length, "won": self.won,
                "before": self.before, "after": self.after, "experience": self.experience}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RatingChange:
        return cls(d["tournament_id"], d["match_id"], d["opponent"], int(d["length"]),
                   bool(d["won"]), float(d["before"]), float(d["after"]),
                   int(d["experience"]))


@dataclass
class PlayerRating:
    rating: float = START_RATING
    experience: int = 0
    history: list[RatingChange] = field(default_factory=list)


@dataclass
class RatingBook:
    """Every player's rating and its history, folded over matches in the order played."""

    players: dict[str, PlayerRating] = field(default_factory=dict)
    applied: list[str] = field(default_factory=list)

    def get(self, player_id: str) -> PlayerRating:
        return self.players.setdefault(player_id, PlayerRating())

    def rating(self, player_id: str) -> float:
        return self.players[player_id].rating if player_id in self.players else START_RATING

    def apply_match(self, tournament_id: str, match_id: str, winner: str, loser: str,
                    length: int) -> tuple[float, float]:
        w, lo = self.get(winner), self.get(loser)
        gain, loss = fibs_change(w.rating, lo.rating, length, w.experience, lo.experience)
        w.history.append(RatingChange(tournament_id, match_id, loser, length, True, w.rating,
                                      w.rating + gain, w.experience))
        lo.history.append(RatingChange(tournament_id, match_id, winner, length, False,
                                       lo.rating, lo.rating - loss, lo.experience))
        w.rating += gain
        lo.rating -= loss
        w.experience += length
        lo.experience += length
        return gain, loss

    def apply_tournament(self, t: Tournament) -> int:
        """Rate every match actually played (forfeits are not), in finishing order."""
        from mesa.tournament.tournament import play_order

        if t.id in self.applied:
            return 0
        n = 0
        for m in play_order(t.matches.values()):
            r = m.result
            if r is None or r.forfeit:
                continue
            self.apply_match(t.id, m.id, r.winner, r.loser, m.length)
            n += 1
        self.applied.append(t.id)
        return n

    @classmethod
    def rebuild(cls, tournaments: Iterable[Tournament]) -> RatingBook:
        """Ratings from scratch (after a late correction), tournaments by date."""
        book = cls()
        for t in sorted(tournaments, key=lambda t: (t.held_on, t.id)):
            book.apply_tournament(t)
        return book

    def to_dict(self) -> dict[str, Any]:
        return {"applied": list(self.applied), "players": {
            p: {"rating": r.rating, "experience": r.experience,
                "history": [h.to_dict() for h in r.history]} for p, r in self.players.items()}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RatingBook:
        book = cls(applied=list(d.get("applied", [])))
        for p, r in d.get("players", {}).items():
            book.players[p] = PlayerRating(float(r["rating"]), int(r["experience"]),
                                           [RatingChange.from_dict(h) for h in r["history"]])
        return book
