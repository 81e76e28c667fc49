"""A domino pairs tournament (fixed pairs): pairs, rounds at tables, results, records. Pure.

The hub's desk drives it (``hub/desk/games/domino.py``): it registers pairs from the player
registry, starts rounds (:func:`mesa.games.domino.pairing.pair_round` over the standings),
gives each game a table, records a table's ``domino.game.ended`` (hand points only) and every
fine and award on the players' records (:class:`~mesa.games.domino.event.DominoEvent`), and
keeps an audit line for every change. Everything is JSON (``to_dict``/``from_dict``).

A pair's standings line is the sum of its two players' records (a win counts two games won:
see :mod:`mesa.games.domino.standings`); a bye gives each of its players a game won and +100.

>>> t = PairsTournament("D1", "Dominó de marzo")
>>> for i, (a, b) in enumerate([("p1", "p2"), ("p3", "p4"), ("p5", "p6"), ("p7", "p8")]):
...     _ = t.register_pair(a, b, (a.upper(), b.upper()), actor="director", at="20:00")
>>> games = t.start_round(["1", "2"], actor="director", at="20:05")
>>> [(g.id, g.table, g.ns, g.ew) for g in games]
[('R1-M1', '1', 'P1', 'P2'), ('R1-M2', '2', 'P3', 'P4')]
>>> _ = t.record_game("R1-M1", winner="ns", how="points", score={"ns": 205, "ew": 120},
...                   games_won={"ns": 1, "ew": 0}, hands=7, actor="table 1", at="20:40")
>>> _ = t.fine("R1-M1", "p1", "wrong_lead", actor="juez", at="20:41")
>>> [(r.pair, r.won, r.points, r.penalties) for r in t.standings()][:2]
[('P1', 2, 385, -25), ('P2', 0, 240, 0)]

**The first JSON shape** (no ``version``: a pairs tournament before records per player) is
read as it was meant: its game scores held the fines the table applied during the game
(``at_table`` penalties), so each such fine is taken back out of its game's score and
becomes the player's record entry (the fined player's total is unchanged; the game's score
is its hand points again); its hub-recorded penalties become entries as they were. An old
absence game's win (the table gave it to the complete present pair) is kept as a 0-point
award with the win, since its ±100 are already inside that game's score. What the table
applied without telling the hub apart (its timer fines, the absence's and a forfeit's
points) stays inside the game's score, as the old standings counted it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from mesa.games.domino.event import (
    SIDES,
    AuditLine,
    DominoEvent,
    EventGame,
    FineResult,
    GameStatus,
    PairsError,
    PenaltyLine,
    Phase,
)
from mesa.games.domino.pairing import Pairing, pair_round
from mesa.games.domino.records import (
    ABSENCE_AWARD,
    BYE_POINTS,
    Decision,
    Line,
    scope_seats,
)
from mesa.games.domino.rules import SEATS, Seat, pair_of
from mesa.games.domino.standings import StandingRow, pair_standings

__all__ = ["BYE_POINTS", "AuditLine", "DominoPair", "FineResult", "GameStatus", "PairsError",
           "PairsGame", "PairsTournament", "PenaltyEntry", "Phase"]


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
class PairsGame(EventGame):
    """One game of a round: pair ``ns`` at seats n/s, ``ew`` at e/w, at ``table``."""

    ns: str = ""
    ew: str = ""

    def pair_at(self, seat: Seat) -> str:
        return self.ns if pair_of(seat) == "ns" else self.ew

    def _pair(self, side: str) -> str:
        return self.ns if side == "ns" else self.ew

    @property
    def winner(self) -> str | None:
        """The winning pair's id (None: nobody)."""
        return None if self.winner_side is None else self._pair(self.winner_side)

    @property
    def score(self) -> dict[str, int]:
        """Pair id → the game's hand points (empty until recorded)."""
        return {self._pair(s): v for s, v in self.hand_score.items()}

    @property
    def won(self) -> dict[str, int]:
        """Pair id → 1 if the result gave it the game (empty until recorded)."""
        if self.status != "ended":
            return {}
        return {self._pair(s): int(self.winner_side == s) for s in SIDES}


@dataclass(frozen=True)
class PenaltyEntry(PenaltyLine):
    """A judge's penalty in the first JSON shape (read by :meth:`PairsTournament.from_dict`
    only): a penalty line, and ``at_table``: it was sent to the table while the game ran and
    its score held it."""

    records: list[tuple[str, str, int]]  # (pair id, player id, points) recorded on the hub


class PairsTournament(DominoEvent):
    """See the module docstring."""

    format = "pairs"

    def __init__(self, id: str, name: str, *, settings: dict[str, Any] | None = None) -> None:
        super().__init__(id, name, settings=settings)
        self.pairs: dict[str, DominoPair] = {}
        self.byes: list[str | None] = []
        self.games: dict[str, PairsGame] = {}  # type: ignore[assignment]

    # ── what the format provides ──
    def player_names(self) -> dict[str, str]:
        return {pid: nm for p in self.pairs.values()
                for pid, nm in zip(p.players, p.names, strict=True)}

    def bye_players(self) -> list[str]:
        return [pid for b in self.byes if b and b in self.pairs for pid in self.pairs[b].players]

    def withdraw(self, player: str) -> None:
        pair = self.player_pair(player)
        if pair is not None:
            pair.withdrawn = True

    def round_games(self, n: int | None = None) -> list[PairsGame]:  # type: ignore[override]
        return super().round_games(n)  # type: ignore[return-value]

    def game_at(self, table: str) -> PairsGame | None:
        return super().game_at(table)  # type: ignore[return-value]

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
        # Numbered on from the highest (a removed pair's number is not given again).
        n = max((int(k[1:]) for k in self.pairs if k[1:].isdigit()), default=0)
        pair = DominoPair(f"P{n + 1}", (a, b), (names[0], names[1]))
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
    def met(self) -> list[frozenset[str]]:
        return [frozenset({g.ns, g.ew}) for g in self.games.values()]

    def next_pairing(self) -> Pairing:
        order = [r.pair for r in self.standings() if not self.pairs[r.pair].withdrawn]
        return pair_round(order, self.met(), {b for b in self.byes if b})

    def next_players(self) -> list[str]:
        active = [p for p in self.pairs.values() if not p.withdrawn]
        if self.phase == "closed" or len(active) < 2 or any(
                g.status != "ended" for g in self.round_games()):
            return []
        plan = self.next_pairing()
        return [pid for pair in plan.games for p in pair for pid in self.pairs[p].players]

    def start_round(self, tables: list[str], *, actor: str, at: str) -> list[PairsGame]:
        """Pair the next round and give its games to ``tables`` (in that order)."""
        return super().start_round(tables, actor=actor, at=at)

    def _draw(self, n: int, tables: list[str]) -> tuple[list[EventGame], dict[str, Any]]:
        active = [p for p in self.pairs.values() if not p.withdrawn]
        if len(active) < 2:
            raise PairsError("too_few_pairs", "a round needs at least two pairs")
        plan = self.next_pairing()
        if len(tables) < len(plan.games):
            raise PairsError(
                "not_enough_tables",
                f"{len(plan.games)} games need {len(plan.games)} tables, {len(tables)} are free",
            )
        games: list[EventGame] = []
        for i, ((a, b), table) in enumerate(zip(plan.games, tables, strict=False), 1):
            pa, pb = self.pairs[a].players, self.pairs[b].players
            seats = {"n": pa[0], "e": pb[0], "s": pa[1], "w": pb[1]}
            games.append(PairsGame(f"R{n}-M{i}", n, table, seats, ns=a, ew=b))
        self.byes.append(plan.bye)
        return games, {"bye": plan.bye, "rematches": plan.rematches,
                       "pairs": [[a, b] for a, b in plan.games]}

    # ── standings ──
    def standings(self) -> list[StandingRow]:
        opponents: dict[str, list[str]] = {p: [] for p in self.pairs}
        for g in self.games.values():
            if g.status == "ended":
                opponents.setdefault(g.ns, []).append(g.ew)
                opponents.setdefault(g.ew, []).append(g.ns)
        return pair_standings({p.id: (p.name, p.players) for p in self.pairs.values()},
                              self.records(), opponents)

    # ── JSON ──
    def to_dict(self) -> dict[str, Any]:
        return {**self._base_dict(), "pairs": [asdict(p) for p in self.pairs.values()],
                "byes": self.byes}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PairsTournament:
        """This shape, or the first one (no ``version``; see the module docstring)."""
        t = cls(d["id"], d["name"], settings=d.get("settings") or {})
        for p in d["pairs"]:
            pair = DominoPair(p["id"], tuple(p["players"]), tuple(p["names"]), p["withdrawn"])
            t.pairs[pair.id] = pair
        t.byes = list(d["byes"])
        if "version" not in d:
            t._load_first_shape(d)
            return t
        t._load_base(d)
        for g in d["games"]:
            t.games[g["id"]] = PairsGame(**g)
        return t

    def _load_first_shape(self, d: dict[str, Any]) -> None:
        self._load_base({**d, "entries": []})
        for g in d["games"]:
            ns, ew = g["ns"], g["ew"]
            seats = {"n": self.pairs[ns].players[0], "e": self.pairs[ew].players[0],
                     "s": self.pairs[ns].players[1], "w": self.pairs[ew].players[1]}
            side = {ns: "ns", ew: "ew"}
            game = PairsGame(
                g["id"], g["round"], g["table"], seats, status=g["status"],
                winner_side=side.get(g["winner"]) if g["winner"] else None, how=g["how"],
                hand_score={side[p]: int(v) for p, v in g["score"].items()},
                hands=g["hands"], ns=ns, ew=ew)
            self.games[game.id] = game
        for raw in d["penalties"]:
            self._migrate(PenaltyEntry(**{**raw, "records": [tuple(r) for r in raw["records"]]}))
        for game in self.games.values():
            if game.how == "absence" and game.winner_side is not None:
                lines = tuple(Line(game.seats[s], 0, ABSENCE_AWARD, games=1)
                              for s in SEATS if pair_of(s) == game.winner_side)
                self._stamp(game, Decision("migrated", lines), source="hub",
                            actor="migration", at="")

    def _migrate(self, e: PenaltyEntry) -> None:
        """One penalty of the first shape → record entries (see the module docstring)."""
        game = self.games.get(e.game_id)
        if game is None:
            return
        if e.at_table:
            seat: Seat = e.seat  # type: ignore[assignment]
            seats = scope_seats(seat, e.reason)
            lines = tuple(Line(game.seats[s], e.points, e.reason,
                               offender="" if game.seats[s] == e.player else e.player)
                          for s in seats)
            if game.status == "ended":  # the table's score held it: take it back out
                for s in seats:
                    game.hand_score[pair_of(s)] -= e.points
        else:
            lines = tuple(Line(p, pts, e.reason, offender="" if p == e.player else e.player)
                          for _pair, p, pts in e.records)
        self._stamp(game, Decision("migrated", lines), source="director", actor=e.actor,
                    at=e.at)
