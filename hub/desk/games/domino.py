"""Domino's desk: the hub's side of the domino pairs tournament, between tables and director.

It runs on the one desk loop (:class:`~mesa.hub.desk.loop.DeskLoop`: its thread, wakes, cursor
and sync) beside backgammon's :class:`~mesa.hub.desk.games.backgammon.TournamentDesk`, and is
domino's :class:`~mesa.hub.desk.loop.DeskGame` there. It keeps its state in the hub's
SQLite file (:class:`~mesa.games.domino.store.PairsStore`, one thread owns the connection) and:

- applies the director's actions (pairs, rounds, "TIEMPO", the judge's penalties, closing),
  saving after each with its audit line and reloading from the store on an error;
- publishes each game to its table as the retained ``DominoAssignment``, and "TIEMPO" as the
  same message with ``tiempo`` set, for every table of the round at once;
- folds the hub's committed events (the loop hands them over): a ``domino.game.ended`` from the table that holds the
  game's current assignment (its last ``domino.table.assigned`` names that game) records it.

>>> import tempfile, os
>>> desk = DominoDesk(os.path.join(tempfile.mkdtemp(), "hub.sqlite3"))
>>> desk.create("Dominó de marzo", actor="director").id
'D1'
>>> desk.close()
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from mesa.games.domino.pairs import PairsError, PairsGame, PairsTournament
from mesa.games.domino.penalties import DIRECTOR_REASONS
from mesa.games.domino.store import PairsStore
from mesa.games.registry import game_named
from mesa.hub.desk.loop import OnDeskLoop
from mesa.hub.desk.ports import CommittedEvent, DeskHub
from mesa.hub.desk.tables import free_tables_of

log = logging.getLogger("mesa.web.domino")
T = TypeVar("T")

GAME = game_named("domino")
# A domino table can take the next game in these states.
FREE_STATES = ("idle", "game_over")


def game_key(t: PairsTournament, g: PairsGame) -> str:
    """The ``game_id`` a table receives: unique across tournaments (a table compares it)."""
    return f"{t.id}:{g.id}"


class DominoDesk(OnDeskLoop):
    """See the module docstring. ``hub`` may be None (no tables: tests, a desk without MQTT)."""

    log = log
    refusals: tuple[type[Exception], ...] = (PairsError,)

    def __init__(
        self,
        path: str | Path,
        *,
        hub: DeskHub | None = None,
        wall: Callable[[], float] = time.time,
        now: Callable[[], datetime] = datetime.now,
        language: str = "es",
        command_wait: float = 5.0,
    ) -> None:
        self.command_wait = command_wait
        self._open_loop(hub, now=now, wall=wall, language=language, thread="mesa-domino")
        self.store: PairsStore = self._loop.call(lambda: PairsStore(path))
        self.t: PairsTournament | None = self._loop.call(self._load_current)
        # The cursor and which game each table holds (its last domino.table.assigned), as
        # stored with the cursor: the events fold into these, one write per batch.
        self._cursor: int = self._loop.call(lambda: int(self.store.get_meta("cursor", 0)))
        self._playing: dict[str, str] = self._loop.call(lambda: self.store.get_meta("playing", {}))

    # ── the desk's thread ──
    def _load_current(self) -> PairsTournament | None:
        ids = self.store.ids()
        return self.store.load(ids[-1]) if ids else None

    def reload(self) -> None:
        self.t = self._load_current()  # a half-applied action must not survive

    def read(self, fn: Callable[[PairsTournament | None], T]) -> T:
        """A read-only look at the current tournament, on the desk's thread."""
        return self._loop.call(lambda: fn(self.t))

    def _apply(self, fn: Callable[[PairsTournament], T]) -> T:
        return self._loop.apply(lambda: self._step(fn))

    def _step(self, fn: Callable[[PairsTournament], T]) -> T:
        if self.t is None:
            raise PairsError("no_tournament", "create a domino tournament first")
        result = fn(self.t)
        self.store.save(self.t)
        return result

    def call(self, fn: Callable[[PairsTournament], T]) -> T:
        return self._loop.call(lambda: self._apply(fn))

    def _at(self) -> str:
        return self._now().isoformat(timespec="seconds")

    # ── the director's actions ──
    def create(self, name: str, *, actor: str, settings: dict[str, Any] | None = None
               ) -> PairsTournament:
        name = name.strip()
        if not 1 <= len(name) <= 80:
            raise PairsError("bad_name", "a name of 1 to 80 characters")

        def make() -> PairsTournament:
            n = len(self.store.ids()) + 1
            t = PairsTournament(f"D{n}", name, settings=settings)
            t._log(actor, self._at(), "create", name=name)
            self.store.save(t)
            self.t = t
            self._loop.bump()
            return t

        return self._loop.call(make)

    def register_pair(self, a: str, b: str, names: tuple[str, str], *, actor: str) -> Any:
        return self.call(lambda t: t.register_pair(a, b, names, actor=actor, at=self._at()))

    def free_tables(self) -> list[str]:
        """Domino tables online and free (idle or their game over), by table id."""
        return sorted(free_tables_of(self.hub, GAME, FREE_STATES), key=_natural)

    def assign_args(self, t: PairsTournament, g: PairsGame) -> dict[str, Any]:
        args: dict[str, Any] = {
            "game_id": game_key(t, g),
            "players": t.seat_names(g),
            "language": self.language,
        }
        if t.settings:
            args["settings"] = dict(t.settings)
        return args

    def start_round(self, *, actor: str, tables: list[str] | None = None) -> list[PairsGame]:
        """Pair the next round, give its games to free tables, publish the assignments."""
        free = self.free_tables() if tables is None else list(tables)
        games = self.call(lambda t: t.start_round(free, actor=actor, at=self._at()))
        if self.hub is not None:
            t = self.t
            assert t is not None
            for g in games:
                self.hub.register_table(g.table)
            self.hub.domino_assign_many({g.table: self.assign_args(t, g) for g in games})
        return games

    def call_tiempo(self, *, actor: str) -> float:
        """"TIEMPO" for the whole room: one instant, one retained message per table."""
        start = self._wall()

        def tiempo(t: PairsTournament) -> list[PairsGame]:
            t.call_tiempo(start, actor=actor, at=self._at())
            return [g for g in t.round_games() if g.status != "ended"]

        games = self.call(tiempo)
        if self.hub is not None and games:
            t = self.t
            assert t is not None
            self.hub.domino_assign_many({g.table: self.assign_args(t, g) for g in games}, start)
        return start

    def penalty(
        self, game_id: str, player: str, reason: str, points: int | None, *, actor: str
    ) -> Any:
        """The judge's penalty. While the game runs it is the table's: the command is sent and
        the table's answer awaited (``command_wait`` seconds) before the tournament records it,
        so the record never claims a penalty the table refused. After the game it is recorded
        here at once."""

        def check(t: PairsTournament | None) -> tuple[str, str, bool]:
            if t is None:
                raise PairsError("no_tournament", "create a domino tournament first")
            g = t.games.get(game_id)
            if g is None:
                raise PairsError("no_game", f"no game {game_id[:40]}")
            if reason not in DIRECTOR_REASONS:
                raise PairsError("bad_reason", f"{reason[:40]!r} is not a director's reason")
            return g.table, t.seat_of(g, player), g.status != "ended"

        table, seat, in_play = self.read(check)
        if in_play and self.hub is not None:
            args: dict[str, Any] = {"seat": seat, "reason": reason}
            if points is not None:
                args["points"] = points
            txn = self.hub.domino_command(table, "penalty", args)
            self._await_answer(table, txn)
        return self.call(
            lambda t: t.penalty(game_id, player, reason, points=points, actor=actor,
                                at=self._at())
        )

    def absence(self, game_id: str, players: list[str], *, actor: str) -> list[str]:
        """Players absent at the start of a game: the table's ``absence`` command (its answer
        awaited), then the tournament's audit line; the result arrives as the table's
        ``domino.game.ended``."""

        def check(t: PairsTournament | None) -> tuple[str, list[str]]:
            if t is None:
                raise PairsError("no_tournament", "create a domino tournament first")
            g = t.games.get(game_id)
            if g is None:
                raise PairsError("no_game", f"no game {game_id[:40]}")
            if g.status == "ended":
                raise PairsError("game_ended", f"game {game_id} is already recorded")
            return g.table, [t.seat_of(g, p) for p in dict.fromkeys(players)]

        table, seats = self.read(check)
        if not seats:
            raise PairsError("no_players", "name at least one absent player")
        if self.hub is not None:
            self._await_answer(table, self.hub.domino_command(table, "absence", {"seats": seats}))
        return list(self.call(lambda t: t.absence(game_id, players, actor=actor, at=self._at())))

    def _await_answer(self, table: str, txn: str) -> None:
        """The table's answer to a command (its row in the hub's store), polled: answers
        reach the store on the ingest's thread, and a refusal must reach the director."""
        hub = self.hub
        assert hub is not None  # only a desk with tables sends commands
        deadline = time.monotonic() + self.command_wait
        while time.monotonic() < deadline:
            status = hub.command_status(txn)
            if status is not None and status.get("accepted") is not None:
                if status["accepted"]:
                    return
                raise PairsError("table_refused", f"table {table}: "
                                 f"{status.get('code')} {status.get('reason') or ''}".strip())
            time.sleep(0.05)
        raise PairsError("table_timeout", f"table {table} did not answer")

    def close_tournament(self, *, actor: str) -> None:
        self.call(lambda t: t.close(actor=actor, at=self._at()))

    # ── following the tables (the loop's DeskGame) ──
    def cursor(self) -> int:
        return self._cursor

    def on_event(self, e: CommittedEvent) -> bool:
        """Fold one committed event: a domino table's assignment, or its game's start or end
        from the table that holds it."""
        kind = e["type"]
        table = e["table"]
        if kind == "domino.table.assigned":
            self._playing[table] = e["data"]["game_id"]
        elif kind == "domino.table.unassigned":
            self._playing.pop(table, None)
        elif kind in ("domino.game.started", "domino.game.ended"):
            return self._on_game(table, self._playing.get(table), kind, e)
        return False

    def advance(self, cursor: int) -> None:
        self._cursor = cursor
        self.store.set_meta("cursor", cursor)
        self.store.set_meta("playing", self._playing)

    def settle(self) -> bool:
        return False  # rounds and "TIEMPO" are the director's, never the events'

    def _on_game(self, table: str, key: str | None, kind: str, e: CommittedEvent) -> bool:
        t = self.t
        if t is None or key is None:
            return False
        g = t.game_at(table)
        # Only the table that holds the game's current assignment, reporting that game.
        if g is None or game_key(t, g) != key or g.status == "ended":
            return False
        if kind == "domino.game.started":
            return self._apply(lambda t: t.game_started(g.id))
        d = e["data"]
        self._apply(
            lambda t: t.record_game(
                g.id, winner=d["winner"], how=d["how"], score=dict(d["score"]),
                games_won=dict(d["games_won"]), hands=int(d["hands"]),
                actor=f"table {table}", at=self._at(),
            )
        )
        return True


def _natural(key: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", key))
