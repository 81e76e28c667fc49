"""A domino individual tournament (the seed's federation format): partners drawn each round. Pure.

Players register one by one. Each round is drawn from the player standings
(:func:`mesa.games.domino.individual_pairing.draw_individual`): tables of four, leaders with leaders,
nobody partnering or facing the same player twice while that can be avoided, the fewest
repeats otherwise. A field not divisible by four sits out its lowest players who have not sat
out yet; a sit-out counts as a bye: a game won and +100. Standings by player (games won, then
total points, then fewer fines lost, then registration order: see
:mod:`mesa.games.domino.standings`); every fine, award and absence is per player
(:class:`~mesa.games.domino.event.DominoEvent`).

>>> t = IndividualTournament("D2", "Individual de abril")
>>> for p in ("ana", "beto", "carla", "dani", "eva"):
...     _ = t.register_player(p, p.title(), actor="director", at="20:00")
>>> (g,) = t.start_round(["7"], actor="director", at="20:05")
>>> sorted(g.seats.values()), t.sitouts[0]
(['ana', 'beto', 'carla', 'dani'], ['eva'])
>>> _ = t.record_game(g.id, winner="ns", how="points", score={"ns": 200, "ew": 150},
...                   games_won={"ns": 1, "ew": 0}, hands=6, actor="table 7", at="20:45")
>>> [(r.player, r.won, r.points) for r in t.standings()][:3]  # doctest: +ELLIPSIS
[(..., 1, 200), (..., 1, 200), ('eva', 1, 100)]
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from mesa.games.domino.event import DominoEvent, EventGame, PairsError
from mesa.games.domino.individual_pairing import IndividualDraw, draw_individual
from mesa.games.domino.rules import SEATS
from mesa.games.domino.standings import PlayerRow, player_standings

__all__ = ["DominoPlayer", "IndividualTournament"]

PARTNERS = (("n", "s"), ("e", "w"))
OPPONENTS = (("n", "e"), ("n", "w"), ("s", "e"), ("s", "w"))


@dataclass
class DominoPlayer:
    id: str  # the club registry's id
    name: str
    withdrawn: bool = False  # expelled: out of the next rounds


class IndividualTournament(DominoEvent):
    """See the module docstring."""

    format = "individual"

    def __init__(self, id: str, name: str, *, settings: dict[str, Any] | None = None) -> None:
        super().__init__(id, name, settings=settings)
        self.players: dict[str, DominoPlayer] = {}
        self.sitouts: list[list[str]] = []  # per round: who sat out (a bye each)

    # ── what the format provides ──
    def player_names(self) -> dict[str, str]:
        return {p.id: p.name for p in self.players.values()}

    def bye_players(self) -> list[str]:
        return [p for r in self.sitouts for p in r]

    def withdraw(self, player: str) -> None:
        if player in self.players:
            self.players[player].withdrawn = True

    # ── players ──
    def register_player(self, player: str, name: str, *, actor: str, at: str) -> DominoPlayer:
        """A registered player of the club (id ``player``), before the first round."""
        if self.phase != "registration":
            raise PairsError("registration_closed", "players register before the first round")
        if not player:
            raise PairsError("no_player", "name a player")
        if player in self.players:
            raise PairsError("already_registered", f"player {player[:40]} is already in")
        p = DominoPlayer(player, name)
        self.players[player] = p
        self._log(actor, at, "register_player", player=player, name=name)
        return p

    def remove_player(self, player: str, *, actor: str, at: str) -> None:
        if self.phase != "registration":
            raise PairsError("registration_closed", "players are removed before the first round")
        if self.players.pop(player, None) is None:
            raise PairsError("no_player", f"no player {player[:40]}")
        self._log(actor, at, "remove_player", player=player)

    # ── rounds ──
    def partnered(self) -> list[frozenset[str]]:
        """One ``{a, b}`` per game in which ``a`` and ``b`` were partners."""
        return [frozenset({g.seats[a], g.seats[b]}) for g in self.games.values()
                for a, b in PARTNERS]

    def faced(self) -> list[frozenset[str]]:
        """One ``{a, b}`` per game in which ``a`` and ``b`` were opponents."""
        return [frozenset({g.seats[a], g.seats[b]}) for g in self.games.values()
                for a, b in OPPONENTS]

    def active(self) -> list[str]:
        return [p.id for p in self.players.values() if not p.withdrawn]

    def next_draw(self) -> IndividualDraw:
        """The next round's draw over the standings (the withdrawn left out)."""
        out = {p for p in self.players if self.players[p].withdrawn}
        order = [r.player for r in self.standings() if r.player not in out]
        return draw_individual(order, self.partnered(), self.faced(), set(self.bye_players()))

    def next_players(self) -> list[str]:
        if self.phase == "closed" or len(self.active()) < 4 or any(
                g.status != "ended" for g in self.round_games()):
            return []
        return [p for table in self.next_draw().tables for p in table.values()]

    def _draw(self, n: int, tables: list[str]) -> tuple[list[EventGame], dict[str, Any]]:
        if len(self.active()) < 4:
            raise PairsError("too_few_players", "a round needs at least four players")
        plan = self.next_draw()
        if len(tables) < len(plan.tables):
            raise PairsError(
                "not_enough_tables",
                f"{len(plan.tables)} games need {len(plan.tables)} tables, "
                f"{len(tables)} are free",
            )
        games = [EventGame(f"R{n}-M{i}", n, table, {s: seats[s] for s in SEATS})
                 for i, (seats, table) in enumerate(zip(plan.tables, tables, strict=False), 1)]
        self.sitouts.append(list(plan.sitting_out))
        return list(games), {"sitting_out": list(plan.sitting_out),
                             "partner_repeats": plan.partner_repeats,
                             "opponent_repeats": plan.opponent_repeats}

    # ── standings ──
    def standings(self) -> list[PlayerRow]:
        return player_standings(self.player_names(), self.records())

    # ── JSON ──
    def to_dict(self) -> dict[str, Any]:
        return {**self._base_dict(), "players": [asdict(p) for p in self.players.values()],
                "sitouts": self.sitouts}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> IndividualTournament:
        t = cls(d["id"], d["name"], settings=d.get("settings") or {})
        for p in d["players"]:
            t.players[p["id"]] = DominoPlayer(**p)
        t.sitouts = [list(r) for r in d["sitouts"]]
        t._load_base(d)
        for g in d["games"]:
            t.games[g["id"]] = EventGame(**g)
        return t
