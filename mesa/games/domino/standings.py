"""A domino event's standings, from the players' records: by player, and by fixed pair.

A player's line is his record (:class:`~mesa.games.domino.records.PlayerRecord`): games won,
then total points (hand points + fines + awards), then fewer fines lost, then registration
order (stable, never random). A fixed pair's line is the **sum of its two players' records**
(a normal win counts two games won, the pair's hand points twice), ranked by the same keys;
``played`` is the pair's games (each of its players played them all).

>>> from mesa.games.domino.records import PlayerRecord
>>> recs = {"a": PlayerRecord("a", 1, 1, 200, -25), "b": PlayerRecord("b", 1, 1, 200),
...         "c": PlayerRecord("c", 1, 0, 120), "d": PlayerRecord("d", 1, 0, 120, 0, 50)}
>>> [(r.pair, r.played, r.won, r.points, r.penalties)
...  for r in pair_standings({"P1": ("A / B", ("a", "b")), "P2": ("C / D", ("c", "d"))}, recs)]
[('P1', 1, 2, 375, -25), ('P2', 1, 0, 290, 0)]
>>> [(r.player, r.rank, r.points) for r in player_standings({"c": "C", "a": "A"}, recs)]
[('a', 1, 175), ('c', 2, 120)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mesa.games.domino.records import PlayerRecord


@dataclass
class StandingRow:
    """One fixed pair's line: its two players' records added. ``penalties`` is the sum of
    their fines (≤ 0; the name of the first pairs tournament's column)."""

    pair: str
    name: str
    played: int = 0
    won: int = 0
    points: int = 0
    penalties: int = 0
    byes: int = 0
    opponents: list[str] = field(default_factory=list)
    rank: int = 0
    order: int = 0  # registration order: the last tie-break (never random)
    hand_points: int = 0
    awards: int = 0
    players: tuple[str, ...] = ()

    @property
    def fines(self) -> int:
        return self.penalties

    def key(self) -> tuple[int, int, int, int]:
        return (-self.won, -self.points, -self.penalties, self.order)


@dataclass
class PlayerRow:
    """One player's line (the individual format's standings, a pair's two players)."""

    player: str
    name: str
    played: int = 0
    won: int = 0
    hand_points: int = 0
    fines: int = 0
    awards: int = 0
    points: int = 0
    byes: int = 0
    talking: int = 0
    late: int = 0
    expelled: bool = False
    red_card: bool = False
    rank: int = 0
    order: int = 0

    def key(self) -> tuple[int, int, int, int]:
        return (-self.won, -self.points, -self.fines, self.order)


def player_row(name: str, rec: PlayerRecord, order: int = 0) -> PlayerRow:
    return PlayerRow(rec.player, name, rec.played, rec.won, rec.hand_points, rec.fines,
                     rec.awards, rec.points, rec.byes, rec.talking, rec.late, rec.expelled,
                     rec.red_card, order=order)


def player_standings(names: Mapping[str, str], records: Mapping[str, PlayerRecord]
                     ) -> list[PlayerRow]:
    """Every player of ``names`` (id → name, in registration order), ranked."""
    rows = [player_row(name, records.get(pid) or PlayerRecord(pid), i)
            for i, (pid, name) in enumerate(names.items())]
    ranked = sorted(rows, key=PlayerRow.key)
    for i, row in enumerate(ranked, 1):
        row.rank = i
    return ranked


def pair_standings(
    pairs: Mapping[str, tuple[str, Sequence[str]]],
    records: Mapping[str, PlayerRecord],
    opponents: Mapping[str, list[str]] | None = None,
) -> list[StandingRow]:
    """Every pair of ``pairs`` (id → (name, its players), in registration order), ranked."""
    rows = []
    for i, (pid, (name, players)) in enumerate(pairs.items()):
        recs = [records.get(p) or PlayerRecord(p) for p in players]
        rows.append(StandingRow(
            pid, name, played=max((r.played for r in recs), default=0),
            won=sum(r.won for r in recs), points=sum(r.points for r in recs),
            penalties=sum(r.fines for r in recs), byes=max((r.byes for r in recs), default=0),
            opponents=list((opponents or {}).get(pid, [])), order=i,
            hand_points=sum(r.hand_points for r in recs), awards=sum(r.awards for r in recs),
            players=tuple(players)))
    ranked = sorted(rows, key=StandingRow.key)
    for i, row in enumerate(ranked, 1):
        row.rank = i
    return ranked
