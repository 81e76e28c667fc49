"""A domino pairs tournament: pairs, rounds at tables, results, the judge's penalties. Pure.

The hub's desk drives it (``hub/desk/games/domino.py``): it registers pairs from the player registry,
starts rounds (:func:`mesa.games.domino.pairing.pair_round` over the standings), gives each game a
table, records a table's ``domino.game.ended`` and the judge's penalties, and keeps an audit
line for every change. Everything is JSON (``to_dict``/``from_dict``) for the hub's SQLite.

>>> t = PairsTournament("D1", "Dominó de marzo")
>>> for i, (a, b) in enumerate([("p1", "p2"), ("p3", "p4"), ("p5", "p6"), ("p7", "p8")]):
...     _ = t.register_pair(a, b, (a.upper(), b.upper()), actor="director", at="20:00")
>>> games = t.start_round(["1", "2"], actor="director", at="20:05")
>>> [(g.id, g.table, g.ns, g.ew) for g in games]
[('R1-M1', '1', 'P1', 'P2'), ('R1-M2', '2', 'P3', 'P4')]
>>> _ = t.record_game("R1-M1", winner="ns", how="points", score={"ns": 205, "ew": 120},
...                   games_won={"ns": 1, "ew": 0}, hands=7, actor="table 1", at="20:40")
>>> [(r.pair, r.won, r.points) for r in t.standings()][:2]
[('P1', 1, 205), ('P2', 0, 120)]
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from mesa.games.domino.pairing import Pairing, pair_round
from mesa.games.domino.penalties import DEFAULT_PENALTY_POINTS, DIRECTOR_REASONS, PENALTIES
from mesa.games.domino.rules import SEATS, Seat, members, opponents, pair_of, partner
from mesa.games.domino.standings import GameLine, StandingRow, standings

Phase = Literal["registration", "playing", "closed"]
GameStatus = Literal["assigned", "playing", "ended"]
BYE_POINTS = 100  # a bye counts as a game won by forfeit (the seed's +100)


class PairsError(Exception):
    """A refused action: ``code`` is stable (a metric label, a translated message)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass
class DominoPair:
    id: str
    players: tuple[str, str]  # player ids in the club's registry
    names: tuple[str, str]
    withdrawn: bool = False  # an expelled player takes the pair out of the next rounds

    @property
    def name(self) -> str:
        return f"{self.names[0]} / {self.names[1]}"


@dataclass
class PairsGame:
    """One game of a round: pair ``ns`` at seats n/s, ``ew`` at e/w, at ``table``."""

    id: str
    round: int
    table: str
    ns: str
    ew: str
    status: GameStatus = "assigned"
    winner: str | None = None  # a pair id, None for a draw or no winner
    how: str | None = None
    score: dict[str, int] = field(default_factory=dict)  # pair id → points at the table
    won: dict[str, int] = field(default_factory=dict)  # pair id → games won
    hands: int = 0

    def pair_at(self, seat: Seat) -> str:
        return self.ns if pair_of(seat) == "ns" else self.ew


@dataclass
class PenaltyEntry:
    """One judge's penalty on one player. ``at_table``: sent to the table while the game ran
    (the table's score holds it); otherwise recorded here and counted by the standings."""

    seq: int
    game_id: str
    player: str
    seat: str
    reason: str
    points: int
    at_table: bool
    actor: str
    at: str
    # The per-player records it made on the hub (pair id, player id, points); empty at_table.
    records: list[tuple[str, str, int]] = field(default_factory=list)


@dataclass
class AuditLine:
    seq: int
    at: str
    actor: str
    action: str
    details: dict[str, Any]


class PairsTournament:
    """See the module docstring."""

    def __init__(self, id: str, name: str, *, settings: dict[str, Any] | None = None) -> None:
        self.id = id
        self.name = name
        self.settings: dict[str, Any] = dict(settings or {})
        self.phase: Phase = "registration"
        self.pairs: dict[str, DominoPair] = {}
        self.games: dict[str, PairsGame] = {}
        self.rounds: list[list[str]] = []
        self.byes: list[str | None] = []
        self.tiempo: dict[int, float] = {}  # round → the hub's wall-clock "TIEMPO"
        self.penalties: list[PenaltyEntry] = []
        self.audit: list[AuditLine] = []

    # ── audit ──
    def _log(self, actor: str, at: str, action: str, **details: Any) -> None:
        self.audit.append(AuditLine(len(self.audit) + 1, at, actor, action, details))

    # ── pairs ──
    def player_pair(self, player: str) -> DominoPair | None:
        for p in self.pairs.values():
            if player in p.players:
                return p
        return None

    def register_pair(
        self, a: str, b: str, names: tuple[str, str], *, actor: str, at: str
    ) -> DominoPair:
        """A pair of two registered players (ids ``a``, ``b``), before the first round."""
        if self.phase != "registration":
            raise PairsError("registration_closed", "pairs register before the first round")
        if a == b:
            raise PairsError("same_player", "a pair is two different players")
        for pid in (a, b):
            if self.player_pair(pid) is not None:
                raise PairsError("already_paired", f"player {pid} is already in a pair")
        pair = DominoPair(f"P{len(self.pairs) + 1}", (a, b), (names[0], names[1]))
        self.pairs[pair.id] = pair
        self._log(actor, at, "register_pair", pair=pair.id, players=[a, b], names=list(names))
        return pair

    def remove_pair(self, pair_id: str, *, actor: str, at: str) -> None:
        if self.phase != "registration":
            raise PairsError("registration_closed", "pairs are removed before the first round")
        if self.pairs.pop(pair_id, None) is None:
            raise PairsError("no_pair", f"no pair {pair_id}")
        self._log(actor, at, "remove_pair", pair=pair_id)

    # ── rounds ──
    @property
    def current_round(self) -> int:
        return len(self.rounds)

    def round_games(self, n: int | None = None) -> list[PairsGame]:
        n = self.current_round if n is None else n
        if not 1 <= n <= len(self.rounds):
            return []
        return [self.games[g] for g in self.rounds[n - 1]]

    def met(self) -> list[frozenset[str]]:
        return [frozenset({g.ns, g.ew}) for g in self.games.values()]

    def next_pairing(self) -> Pairing:
        order = [r.pair for r in self.standings() if not self.pairs[r.pair].withdrawn]
        return pair_round(order, self.met(), {b for b in self.byes if b})

    def start_round(self, tables: list[str], *, actor: str, at: str) -> list[PairsGame]:
        """Pair the next round and give its games to ``tables`` (in that order)."""
        if self.phase == "closed":
            raise PairsError("closed", "the tournament is closed")
        if any(g.status != "ended" for g in self.round_games()):
            raise PairsError("round_in_play", "the current round has games still in play")
        active = [p for p in self.pairs.values() if not p.withdrawn]
        if len(active) < 2:
            raise PairsError("too_few_pairs", "a round needs at least two pairs")
        plan = self.next_pairing()
        if len(tables) < len(plan.games):
            raise PairsError(
                "not_enough_tables",
                f"{len(plan.games)} games need {len(plan.games)} tables, {len(tables)} are free",
            )
        n = self.current_round + 1
        games = []
        for i, ((a, b), table) in enumerate(zip(plan.games, tables, strict=False), 1):
            g = PairsGame(f"R{n}-M{i}", n, table, a, b)
            self.games[g.id] = g
            games.append(g)
        self.rounds.append([g.id for g in games])
        self.byes.append(plan.bye)
        self.phase = "playing"
        self._log(actor, at, "start_round", round=n, bye=plan.bye, rematches=plan.rematches,
                  games=[[g.id, g.table, g.ns, g.ew] for g in games])
        return games

    def call_tiempo(self, start_wall: float, *, actor: str, at: str) -> int:
        """The director's "TIEMPO" for the current round (once per round)."""
        n = self.current_round
        if n == 0:
            raise PairsError("no_round", "no round has been started")
        if n in self.tiempo:
            raise PairsError("tiempo_called", f"TIEMPO was already called for round {n}")
        self.tiempo[n] = float(start_wall)
        self._log(actor, at, "tiempo", round=n, start_wall=float(start_wall))
        return n

    # ── results ──
    def game_at(self, table: str) -> PairsGame | None:
        """The game of the current round at ``table`` (any status)."""
        for g in self.round_games():
            if g.table == table:
                return g
        return None

    def game_started(self, game_id: str) -> bool:
        g = self.games.get(game_id)
        if g is None or g.status != "assigned":
            return False
        g.status = "playing"
        return True

    def record_game(
        self,
        game_id: str,
        *,
        winner: str | None,
        how: str,
        score: dict[str, int],
        games_won: dict[str, int],
        hands: int,
        actor: str,
        at: str,
    ) -> PairsGame:
        """A table's ``domino.game.ended`` (sides ``ns``/``ew``) for game ``game_id``."""
        g = self.games.get(game_id)
        if g is None:
            raise PairsError("no_game", f"no game {game_id}")
        if g.status == "ended":
            raise PairsError("game_ended", f"game {game_id} is already recorded")
        for side in ("ns", "ew"):
            for d in (score, games_won):
                if not isinstance(d.get(side), int) or isinstance(d.get(side), bool):
                    raise PairsError("bad_result", f"{side} must be an integer in {d!r}")
            if not -10_000 <= score[side] <= 10_000 or games_won[side] not in (0, 1):
                raise PairsError("bad_result", "score or games won out of range")
        if winner not in (None, "ns", "ew"):
            raise PairsError("bad_result", f"winner {winner!r}")
        g.status = "ended"
        g.winner = None if winner is None else (g.ns if winner == "ns" else g.ew)
        g.how, g.hands = how, int(hands)
        g.score = {g.ns: score["ns"], g.ew: score["ew"]}
        g.won = {g.ns: games_won["ns"], g.ew: games_won["ew"]}
        self._log(actor, at, "record_game", game=game_id, winner=g.winner, how=how,
                  score=dict(g.score), won=dict(g.won), hands=g.hands)
        return g

    # ── the judge's penalties ──
    def penalty(
        self,
        game_id: str,
        player: str,
        reason: str,
        *,
        points: int | None,
        actor: str,
        at: str,
    ) -> PenaltyEntry:
        """A penalty on ``player`` in game ``game_id`` for ``reason`` (the seed's list).

        While the game is in play it is the table's (``at_table``: the desk sends the command
        and the table's score holds it); after the game it is recorded here, per player, with
        the reason's scope (offender, partner, the other pair, the four).
        """
        g = self.games.get(game_id)
        if g is None:
            raise PairsError("no_game", f"no game {game_id}")
        if reason not in DIRECTOR_REASONS:
            raise PairsError("bad_reason", f"{reason!r} is not a director's reason")
        if points is not None and not -1000 <= points <= 1000:
            raise PairsError("bad_points", "points must be between -1000 and 1000")
        seat = self.seat_of(g, player)
        rule = PENALTIES[reason]
        pts = DEFAULT_PENALTY_POINTS[reason] if points is None else int(points)
        entry = PenaltyEntry(len(self.penalties) + 1, game_id, player, seat, reason, pts,
                             g.status != "ended", actor, at)
        if not entry.at_table:
            seats: list[Seat] = {
                "offender": [seat],
                "offender_and_partner": [seat, partner(seat)],
                "offender_pair": list(members(pair_of(seat))),
                "other_pair": list(opponents(pair_of(seat))),
                "table": list(SEATS),
            }[rule.scope]
            for s in seats:
                entry.records.append((g.pair_at(s), self.player_at(g, s), pts))
        if rule.expels:
            self.pairs[g.pair_at(seat)].withdrawn = True
        self.penalties.append(entry)
        self._log(actor, at, "penalty", game=game_id, player=player, seat=seat, reason=reason,
                  points=pts, at_table=entry.at_table, expels=rule.expels,
                  records=[list(r) for r in entry.records])
        return entry

    def absence(self, game_id: str, players: list[str], *, actor: str, at: str) -> list[Seat]:
        """The director declared ``players`` absent at the start of ``game_id`` (the table
        applies it: −100 each, the complete present pair wins with +100); the audit line."""
        g = self.games.get(game_id)
        if g is None:
            raise PairsError("no_game", f"no game {game_id}")
        if g.status == "ended":
            raise PairsError("game_ended", f"game {game_id} is already recorded")
        if not players:
            raise PairsError("no_players", "name at least one absent player")
        seats = [self.seat_of(g, p) for p in dict.fromkeys(players)]
        self._log(actor, at, "absence", game=game_id, players=list(dict.fromkeys(players)),
                  seats=list(seats))
        return seats

    def seat_of(self, g: PairsGame, player: str) -> Seat:
        for seat in SEATS:
            if self.player_at(g, seat) == player:
                return seat
        raise PairsError("not_in_game", f"player {player} does not play game {g.id}")

    def player_at(self, g: PairsGame, seat: Seat) -> str:
        pair = self.pairs[g.pair_at(seat)]
        return pair.players[0] if seat in ("n", "e") else pair.players[1]

    def seating(self, g: PairsGame) -> dict[str, str]:
        """Seat → player id."""
        return {s: self.player_at(g, s) for s in SEATS}

    def seat_names(self, g: PairsGame) -> dict[str, str]:
        out: dict[str, str] = {}
        for s in SEATS:
            pair = self.pairs[g.pair_at(s)]
            out[s] = pair.names[0] if s in ("n", "e") else pair.names[1]
        return out

    # ── standings and the end ──
    def standings(self) -> list[StandingRow]:
        lines = [
            GameLine(g.ns, g.ew, (g.won[g.ns], g.won[g.ew]), (g.score[g.ns], g.score[g.ew]))
            for g in self.games.values()
            if g.status == "ended"
        ]
        adjustments = [(pair, pts) for e in self.penalties for pair, _, pts in e.records]
        names = {p.id: p.name for p in self.pairs.values()}
        return standings(names, lines, adjustments=adjustments,
                         byes=[b for b in self.byes if b], bye_points=BYE_POINTS)

    def close(self, *, actor: str, at: str) -> None:
        if any(g.status != "ended" for g in self.round_games()):
            raise PairsError("round_in_play", "the current round has games still in play")
        self.phase = "closed"
        self._log(actor, at, "close", rounds=self.current_round)

    # ── JSON ──
    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "settings": self.settings,
            "phase": self.phase,
            "pairs": [asdict(p) for p in self.pairs.values()],
            "games": [asdict(g) for g in self.games.values()],
            "rounds": self.rounds,
            "byes": self.byes,
            "tiempo": {str(k): v for k, v in self.tiempo.items()},
            "penalties": [asdict(e) for e in self.penalties],
            "audit": [asdict(a) for a in self.audit],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PairsTournament:
        t = cls(d["id"], d["name"], settings=d.get("settings") or {})
        t.phase = d["phase"]
        for p in d["pairs"]:
            pair = DominoPair(p["id"], tuple(p["players"]), tuple(p["names"]), p["withdrawn"])
            t.pairs[pair.id] = pair
        for g in d["games"]:
            t.games[g["id"]] = PairsGame(**g)
        t.rounds = [list(r) for r in d["rounds"]]
        t.byes = list(d["byes"])
        t.tiempo = {int(k): float(v) for k, v in d["tiempo"].items()}
        t.penalties = [
            PenaltyEntry(**{**e, "records": [tuple(r) for r in e["records"]]})
            for e in d["penalties"]
        ]
        t.audit = [AuditLine(**a) for a in d["audit"]]
        return t
