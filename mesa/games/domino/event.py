"""What both domino formats share: games at tables, rounds, "TIEMPO", the players' records. Pure.

RULES §5 and the one principle: **the table keeps the game, the hub keeps the players'
records.** A game's result, as the table reports it (``domino.game.ended``), counts hand points
only; every fine and award is a :class:`~mesa.games.domino.records.RecordEntry` on a player,
recorded here exactly once, whatever state the game is in:

- :meth:`DominoEvent.fine` (the director's): the seed's escalations are decided from the
  record (:func:`~mesa.games.domino.records.decide_fine`), and the answer
  (:class:`FineResult`) tells the desk what to send to the table — only when the table must
  change the game: an expulsion (``("penalty", {"seat", "reason"})``: the table ends a game in
  progress), an annulled hand (``("annul", {"seat", "reason"})``);
- :meth:`DominoEvent.late` (the ``late`` command, so the table's screen says it),
  :meth:`DominoEvent.absence` (the awards at once; the desk sends ``absence``),
  :meth:`DominoEvent.sheet_unsigned` (the table's ``domino.sheet.unsigned``, once per pair and
  game), :meth:`DominoEvent.table_fine` (the table's timer fines, once per event key; any other
  ``domino.penalty`` is the table echoing the hub and is not recorded).

Subclasses: :class:`~mesa.games.domino.pairs.PairsTournament` (fixed pairs) and
:class:`~mesa.games.domino.individual.IndividualTournament` (partners drawn each round).

>>> from mesa.games.domino.pairs import PairsTournament
>>> t = PairsTournament("D1", "Dominó")
>>> for a, b in (("ana", "beto"), ("carla", "dani")):
...     _ = t.register_pair(a, b, (a.title(), b.title()), actor="director", at="20:00")
>>> (g,) = t.start_round(["1"], actor="director", at="20:05")
>>> t.seating(g)
{'n': 'ana', 'e': 'carla', 's': 'beto', 'w': 'dani'}
>>> [t.fine(g.id, "ana", "talking", actor="juez", at="20:10").step for _ in range(3)]
['talking_first', 'talking_second', 'talking_third']
>>> t.fine(g.id, "carla", "chivo", annul=True, actor="juez", at="20:11").command
('annul', {'seat': 'e', 'reason': 'chivo'})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Literal

from mesa.games.domino.penalties import DIRECTOR_REASONS
from mesa.games.domino.records import (
    ANNULLABLE,
    EXPELLING,
    LATE,
    TALKING,
    TIMER_REASONS,
    Decision,
    Line,
    PlayedGame,
    PlayerRecord,
    RecordEntry,
    decide_absence,
    decide_fine,
    decide_late,
    decide_unsigned,
    player_records,
    stamp,
)
from mesa.games.domino.rules import SEATS, Seat, members, pair_of, partner

Phase = Literal["registration", "playing", "closed"]
GameStatus = Literal["assigned", "playing", "ended"]
SIDES = ("ns", "ew")
VERSION = 2  # the JSON's shape: 2 = records per player (none: the pairs' first shape)


class PairsError(Exception):
    """A refused action (either format): ``code`` is stable (a metric label, a translated
    message). The name is the pairs tournament's, which was first; ``EventError`` is the same."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


EventError = PairsError


@dataclass
class EventGame:
    """One game at ``table``: who sits where (seat → player id), and its result as the table
    reported it: the winning side (``ns``/``ew``, None: nobody), how, each side's hand points."""

    id: str
    round: int
    table: str
    seats: dict[str, str]
    status: GameStatus = "assigned"
    winner_side: str | None = None
    how: str | None = None
    hand_score: dict[str, int] = field(default_factory=dict)  # side → hand points
    hands: int = 0

    def side_of(self, player: str) -> str | None:
        for seat, p in self.seats.items():
            if p == player:
                return pair_of(seat)  # type: ignore[arg-type]
        return None

    def played(self) -> PlayedGame:
        return PlayedGame(self.id, dict(self.seats), self.winner_side, self.how,
                          dict(self.hand_score))


@dataclass(frozen=True)
class FineResult:
    """What a fine did: the ``step`` that applied (``talking_second``…), the entries it wrote,
    whom it expelled, and the ``command`` the desk must send to the table (None: nothing; the
    table's game does not change). ``player``/``points``/``reason``: the offender's entry."""

    game_id: str
    seat: str
    step: str
    entries: tuple[RecordEntry, ...]
    command: tuple[str, dict[str, Any]] | None = None
    expelled: str | None = None

    def _first(self) -> RecordEntry | None:
        return self.entries[0] if self.entries else None

    @property
    def player(self) -> str:
        e = self._first()
        return "" if e is None else (e.offender or e.player)

    @property
    def points(self) -> int:
        e = self._first()
        return 0 if e is None else e.points

    @property
    def reason(self) -> str:
        e = self._first()
        return self.step if e is None else e.reason


@dataclass(frozen=True)
class PenaltyLine:
    """An entry as the pages of the first pairs tournament listed its penalties (``seat`` in
    its game; ``at_table`` always False now: every fine is the hub's)."""

    seq: int
    game_id: str
    player: str
    seat: str
    reason: str
    points: int
    at_table: bool
    actor: str
    at: str


@dataclass
class AuditLine:
    seq: int
    at: str
    actor: str
    action: str
    details: dict[str, Any]


class DominoEvent:
    """See the module docstring. A subclass registers its players and draws its rounds."""

    format: ClassVar[str] = ""

    def __init__(self, id: str, name: str, *, settings: dict[str, Any] | None = None) -> None:
        self.id = id
        self.name = name
        self.settings: dict[str, Any] = dict(settings or {})
        self.phase: Phase = "registration"
        self.games: dict[str, EventGame] = {}
        self.rounds: list[list[str]] = []
        self.tiempo: dict[int, float] = {}  # round → the hub's wall-clock "TIEMPO"
        self.entries: list[RecordEntry] = []
        self.audit: list[AuditLine] = []

    # ── what a format provides ──
    def player_names(self) -> dict[str, str]:
        """Every registered player id → name, in registration order."""
        raise NotImplementedError

    def bye_players(self) -> list[str]:
        """One player id per bye (sit-out) given so far."""
        raise NotImplementedError

    def withdraw(self, player: str) -> None:
        """``player`` was expelled: out of the next rounds."""
        raise NotImplementedError

    def next_players(self) -> list[str]:
        """Who plays the next round (its draw, the byes left out); none while it cannot
        start."""
        raise NotImplementedError

    def _draw(self, n: int, tables: list[str]) -> tuple[list[EventGame], dict[str, Any]]:
        """Round ``n``'s games at ``tables`` and what its audit line adds."""
        raise NotImplementedError

    def standings(self) -> list[Any]:
        raise NotImplementedError

    # ── audit ──
    def _log(self, actor: str, at: str, action: str, **details: Any) -> None:
        self.audit.append(AuditLine(len(self.audit) + 1, at, actor, action, details))

    # ── rounds ──
    @property
    def current_round(self) -> int:
        return len(self.rounds)

    def round_games(self, n: int | None = None) -> list[EventGame]:
        n = self.current_round if n is None else n
        if not 1 <= n <= len(self.rounds):
            return []
        return [self.games[g] for g in self.rounds[n - 1]]

    def start_round(self, tables: list[str], *, actor: str, at: str) -> list[Any]:
        """Draw the next round and give its games to ``tables`` (in that order)."""
        if self.phase == "closed":
            raise PairsError("closed", "the tournament is closed")
        if any(g.status != "ended" for g in self.round_games()):
            raise PairsError("round_in_play", "the current round has games still in play")
        n = self.current_round + 1
        games, details = self._draw(n, list(tables))
        for g in games:
            self.games[g.id] = g
        self.rounds.append([g.id for g in games])
        self.phase = "playing"
        self._log(actor, at, "start_round", round=n, **details,
                  games=[[g.id, g.table, dict(g.seats)] for g in games])
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

    def close(self, *, actor: str, at: str) -> None:
        if any(g.status != "ended" for g in self.round_games()):
            raise PairsError("round_in_play", "the current round has games still in play")
        self.phase = "closed"
        self._log(actor, at, "close", rounds=self.current_round)

    # ── seats ──
    def _game(self, game_id: str) -> EventGame:
        g = self.games.get(game_id)
        if g is None:
            raise PairsError("no_game", f"no game {game_id[:40]}")
        return g

    def seating(self, g: EventGame) -> dict[str, str]:
        """Seat → player id."""
        return {s: g.seats[s] for s in SEATS}

    def seat_names(self, g: EventGame) -> dict[str, str]:
        names = self.player_names()
        return {s: names.get(g.seats[s], g.seats[s]) for s in SEATS}

    def player_at(self, g: EventGame, seat: Seat) -> str:
        return g.seats[seat]

    def seat_of(self, g: EventGame, player: str) -> Seat:
        for seat in SEATS:
            if g.seats.get(seat) == player:
                return seat
        raise PairsError("not_in_game", f"player {player[:40]} does not play game {g.id}")

    def game_at(self, table: str) -> EventGame | None:
        """The game of the current round at ``table`` (any status)."""
        for g in self.round_games():
            if g.table == table:
                return g
        return None

    def partnered_games(self, a: str, b: str) -> set[str]:
        """The games in which ``a`` and ``b`` sat as partners."""
        return {g.id for g in self.games.values()
                if g.side_of(a) is not None and g.side_of(a) == g.side_of(b)}

    # ── results ──
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
        score: Mapping[str, int],
        games_won: Mapping[str, int],
        hands: int,
        actor: str,
        at: str,
    ) -> Any:
        """A table's ``domino.game.ended`` (sides ``ns``/``ew``; ``score`` in hand points).
        ``games_won`` is checked but not counted: who won is ``winner`` (and, for an absence
        or an abandonment, the award entries: see :mod:`mesa.games.domino.records`)."""
        g = self._game(game_id)
        if g.status == "ended":
            raise PairsError("game_ended", f"game {game_id} is already recorded")
        for side in SIDES:
            for d in (score, games_won):
                if not isinstance(d.get(side), int) or isinstance(d.get(side), bool):
                    raise PairsError("bad_result", f"{side} must be an integer in {d!r}")
            if not -10_000 <= score[side] <= 10_000 or games_won[side] not in (0, 1):
                raise PairsError("bad_result", "score or games won out of range")
        if winner not in (None, *SIDES):
            raise PairsError("bad_result", f"winner {winner!r}")
        g.status = "ended"
        g.winner_side, g.how, g.hands = winner, how, int(hands)
        g.hand_score = {side: int(score[side]) for side in SIDES}
        self._log(actor, at, "record_game", game=game_id, winner=winner, how=how,
                  score=dict(g.hand_score), hands=g.hands)
        return g

    # ── the records ──
    def _stamp(self, g: EventGame, d: Decision, *, source: str, actor: str, at: str,
               key: str | None = None) -> list[RecordEntry]:
        new = stamp(self.entries, d, game_id=g.id, source=source, actor=actor, at=at, key=key)
        self.entries.extend(new)
        return new

    def _logged(self, action: str, g: EventGame, seat: str, d: Decision,
                new: list[RecordEntry], command: tuple[str, dict[str, Any]] | None, *,
                actor: str, at: str, **more: Any) -> FineResult:
        self._log(actor, at, action, game=g.id, seat=seat, step=d.step, **more,
                  entries=[[e.seq, e.player, e.points, e.games, e.reason] for e in new],
                  expelled=d.expel, command=None if command is None else command[0])
        return FineResult(g.id, seat, d.step, tuple(new), command, d.expel)

    def fine(
        self,
        game_id: str,
        player: str,
        reason: str,
        *,
        points: int | None = None,
        annul: bool = False,
        actor: str,
        at: str,
    ) -> FineResult:
        """The director's fine on ``player`` for ``reason`` (a director's reason of the
        seed's list), at any moment of the game. Talking and late arrival are escalated
        from the record (say any of their reasons: the record picks the step), as are the
        expulsions' consequences; ``points`` overrides the seed's points of the others.
        ``annul`` (``pass_with_playable``, ``chivo``, a game not yet recorded): the hand is
        annulled too."""
        g = self._game(game_id)
        if reason not in DIRECTOR_REASONS:
            raise PairsError("bad_reason", f"{reason[:40]!r} is not a director's reason")
        escalated = reason in TALKING or reason in LATE or reason in EXPELLING
        if points is not None and escalated:
            raise PairsError("points_fixed", f"{reason}: the record decides the points")
        if points is not None and not -1000 <= points <= 1000:
            raise PairsError("bad_points", "points must be between -1000 and 1000")
        in_play = g.status != "ended"
        if annul and reason not in ANNULLABLE:
            raise PairsError("not_annullable", f"{reason} does not annul a hand")
        if annul and not in_play:
            raise PairsError("game_ended", f"game {game_id} is already recorded")
        if reason in LATE:
            return self.late(game_id, player, actor=actor, at=at)
        seat = self.seat_of(g, player)
        mate = g.seats[partner(seat)]
        d = decide_fine(reason, seat, self.seating(g), self.entries,
                        partnered_games=self.partnered_games(player, mate),
                        points=points, in_play=in_play)
        new = self._stamp(g, d, source="escalation" if escalated else "director",
                          actor=actor, at=at)
        command: tuple[str, dict[str, Any]] | None = None
        if d.expel is not None:
            self.withdraw(d.expel)
            if in_play:
                command = ("penalty", {"seat": seat, "reason": new[0].reason})
        elif annul:
            command = ("annul", {"seat": seat, "reason": reason})
        return self._logged("fine", g, seat, d, new, command, actor=actor, at=at,
                            reason=reason, annul=annul)

    def penalty(self, game_id: str, player: str, reason: str, *, points: int | None,
                actor: str, at: str) -> FineResult:
        """The first pairs tournament's name for :meth:`fine` (no annulment)."""
        return self.fine(game_id, player, reason, points=points, actor=actor, at=at)

    def late(self, game_id: str, player: str, *, actor: str, at: str) -> FineResult:
        """``player`` reached the table after the two minutes: the first time recorded, then
        −50 each time; once per game. The command tells the table (its screen says it)."""
        g = self._game(game_id)
        seat = self.seat_of(g, player)
        if any(e.game_id == g.id and e.player == player and e.reason in LATE
               for e in self.entries):
            raise PairsError("already_late", f"{player[:40]} is already late in {g.id}")
        prior = sum(1 for e in self.entries if e.player == player and e.reason in LATE)
        d = decide_late(player, prior)
        new = self._stamp(g, d, source="escalation", actor=actor, at=at)
        command = ("late", {"seat": seat}) if g.status != "ended" else None
        return self._logged("late", g, seat, d, new, command, actor=actor, at=at)

    def sheet_unsigned(self, game_id: str, pairs: Iterable[str], *, actor: str, at: str
                       ) -> FineResult:
        """The table's ``domino.sheet.unsigned``: −25 to each player of each pair named, once
        per pair and game (the event read again lands nowhere)."""
        g = self._game(game_id)
        new: list[RecordEntry] = []
        sides = [p for p in dict.fromkeys(pairs) if p in SIDES]
        for side in sides:
            players = [g.seats[s] for s in members(side)]  # type: ignore[arg-type]
            new += self._stamp(g, decide_unsigned(players), source="table", actor=actor,
                               at=at, key=f"sheet:{g.id}:{side}")
        d = Decision("sheet_unsigned", ())
        return self._logged("sheet_unsigned", g, "", d, new, None, actor=actor, at=at,
                            pairs=sides)

    def absence(self, game_id: str, players: list[str], *, actor: str, at: str) -> list[Seat]:
        """``players`` absent at the start of ``game_id`` (before its first hand; the desk
        sends the table's ``absence``): each −100, each present player +100 and a game won,
        recorded at once. The seats, as the table's command names them."""
        g = self._game(game_id)
        if g.status == "ended":
            raise PairsError("game_ended", f"game {game_id} is already recorded")
        absent = list(dict.fromkeys(players))
        if not absent:
            raise PairsError("no_players", "name at least one absent player")
        seats = [self.seat_of(g, p) for p in absent]
        if any(e.game_id == g.id and e.reason == "absent" for e in self.entries):
            raise PairsError("absence_recorded", f"an absence is already recorded in {g.id}")
        present = [g.seats[s] for s in SEATS if s not in seats]
        d = decide_absence(absent, present)
        new = self._stamp(g, d, source="director", actor=actor, at=at, key=f"absence:{g.id}")
        self._logged("absence", g, ",".join(seats), d, new, ("absence", {"seats": seats}),
                     actor=actor, at=at, players=absent, seats=list(seats))
        return seats

    def table_fine(
        self,
        game_id: str,
        seat: str,
        reason: str,
        points: int,
        *,
        key: str,
        actor: str,
        at: str,
        offender: str | None = None,
    ) -> RecordEntry | None:
        """A table's ``domino.penalty`` (``seat`` receives ``points``; ``offender`` the seat
        whose play caused it), keyed by the committed event (``"event:<rowid>"``): recorded
        once. Only the table's timer fines (``slow_play``, ``late_pass``) are: any other reason
        is the table echoing the hub's own command (None)."""
        if reason not in TIMER_REASONS:
            return None
        g = self._game(game_id)
        if seat not in SEATS or (offender is not None and offender not in SEATS):
            raise PairsError("bad_seat", f"seat {seat[:4]!r}")
        player = g.seats[seat]
        by = "" if offender is None else g.seats[offender]
        d = Decision(reason, (Line(player, int(points), reason,
                                   offender="" if by == player else by),))
        new = self._stamp(g, d, source="table", actor=actor, at=at, key=key)
        if not new:
            return None
        self._logged("table_fine", g, seat, d, new, None, actor=actor, at=at, key=key)
        return new[0]

    def records(self) -> dict[str, PlayerRecord]:
        """Every player's record (registration order, then anyone else entries name)."""
        ended = [g.played() for g in self.games.values() if g.status == "ended"]
        return player_records(self.player_names(), ended, self.entries,
                              byes=self.bye_players())

    def player_entries(self, player: str) -> list[RecordEntry]:
        return [e for e in self.entries if e.player == player]

    @property
    def penalties(self) -> list[PenaltyLine]:
        """Every entry as the first pairs pages listed penalties (its seat in its game)."""
        out = []
        for e in self.entries:
            g = self.games.get(e.game_id)
            seat = next((s for s, p in (g.seats.items() if g else ()) if p == e.player), "")
            out.append(PenaltyLine(e.seq, e.game_id, e.player, seat, e.reason, e.points, False,
                                   e.actor, e.at))
        return out

    # ── JSON ──
    def _base_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "version": VERSION,
            "id": self.id,
            "name": self.name,
            "settings": self.settings,
            "phase": self.phase,
            "games": [asdict(g) for g in self.games.values()],
            "rounds": self.rounds,
            "tiempo": {str(k): v for k, v in self.tiempo.items()},
            "entries": [asdict(e) for e in self.entries],
            "audit": [asdict(a) for a in self.audit],
        }

    def _load_base(self, d: Mapping[str, Any]) -> None:
        self.phase = d["phase"]
        self.rounds = [list(r) for r in d["rounds"]]
        self.tiempo = {int(k): float(v) for k, v in d["tiempo"].items()}
        self.entries = [RecordEntry(**e) for e in d.get("entries", [])]
        self.audit = [AuditLine(**a) for a in d["audit"]]

    def to_dict(self) -> dict[str, Any]:
        return self._base_dict()
