"""The domino desk: the hub's side of the domino pairs tournament, between tables and director.

Like the backgammon :class:`~mesa.hub.desk.desk.TournamentDesk`, it keeps its state in the hub's
SQLite file (:class:`~mesa.games.domino.store.PairsStore`, one thread owns the connection) and:

- applies the director's actions (pairs, rounds, "TIEMPO", the judge's penalties, closing),
  saving after each with its audit line and reloading from the store on an error;
- publishes each game to its table as the retained ``DominoAssignment``, and "TIEMPO" as the
  same message with ``tiempo`` set, for every table of the round at once;
- tails the hub's committed events: a ``domino.game.ended`` from the table that holds the
  game's current assignment (its last ``domino.table.assigned`` names that game) records it.

>>> import tempfile, os
>>> desk = DominoDesk(os.path.join(tempfile.mkdtemp(), "hub.sqlite3"))
>>> desk.create("Dominó de marzo", actor="director").id
'D1'
>>> desk.close()
"""

from __future__ import annotations

import concurrent.futures
import logging
import re
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from mesa.games.domino.pairs import PairsError, PairsGame, PairsTournament
from mesa.games.domino.penalties import DIRECTOR_REASONS
from mesa.games.domino.store import PairsStore

log = logging.getLogger("mesa.web.domino")
T = TypeVar("T")

# A domino table can take the next game in these states.
FREE_STATES = ("idle", "game_over")


def game_key(t: PairsTournament, g: PairsGame) -> str:
    """The ``game_id`` a table receives: unique across tournaments (a table compares it)."""
    return f"{t.id}:{g.id}"


class DominoDesk:
    """See the module docstring. ``hub`` may be None (no tables: tests, a desk without MQTT)."""

    def __init__(
        self,
        path: str | Path,
        *,
        hub: Any = None,
        wall: Callable[[], float] = time.time,
        now: Callable[[], datetime] = datetime.now,
        language: str = "es",
        command_wait: float = 5.0,
    ) -> None:
        self.hub = hub
        self.command_wait = command_wait
        self._wall = wall
        self._now = now
        self.language = language
        self.version = 0
        self.on_change: list[Callable[[], None]] = []
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="mesa-domino")
        self._lock = threading.Lock()
        self._wake_pending = False
        self._closed = False
        self.store: PairsStore = self._pool.submit(PairsStore, path).result()
        self.t: PairsTournament | None = self._pool.submit(self._load_current).result()

    # ── the desk's thread ──
    def _load_current(self) -> PairsTournament | None:
        ids = self.store.ids()
        return self.store.load(ids[-1]) if ids else None

    def read(self, fn: Callable[[PairsTournament | None], T]) -> T:
        """A read-only look at the current tournament, on the desk's thread."""
        return self._pool.submit(lambda: fn(self.t)).result()

    def _apply(self, fn: Callable[[PairsTournament], T]) -> T:
        if self.t is None:
            raise PairsError("no_tournament", "create a domino tournament first")
        try:
            result = fn(self.t)
            self.store.save(self.t)
        except BaseException:
            self.t = self._load_current()  # a half-applied action must not survive
            raise
        with self._lock:
            self.version += 1
        for listener in list(self.on_change):
            try:
                listener()
            except Exception:
                log.exception("domino desk listener failed")
        return result

    def call(self, fn: Callable[[PairsTournament], T]) -> T:
        return self._pool.submit(self._apply, fn).result()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._pool.submit(self.store.close).result()
        self._pool.shutdown(wait=True)

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
            with self._lock:
                self.version += 1
            return t

        return self._pool.submit(make).result()

    def register_pair(self, a: str, b: str, names: tuple[str, str], *, actor: str) -> Any:
        return self.call(lambda t: t.register_pair(a, b, names, actor=actor, at=self._at()))

    def free_tables(self) -> list[str]:
        """Domino tables online and free (idle or their game over), by table id."""
        if self.hub is None:
            return []
        out = []
        for live in self.hub.tables():
            if (
                live.get("kind") == "domino"
                and live.get("status") == "online"
                and live.get("state") in FREE_STATES
            ):
                out.append(live["table"])
        return sorted(out, key=_natural)

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
        deadline = time.monotonic() + self.command_wait
        while time.monotonic() < deadline:
            status = self.hub.command_status(txn)
            if status is not None and status.get("accepted") is not None:
                if status["accepted"]:
                    return
                raise PairsError("table_refused", f"table {table}: "
                                 f"{status.get('code')} {status.get('reason') or ''}".strip())
            time.sleep(0.05)
        raise PairsError("table_timeout", f"table {table} did not answer")

    def close_tournament(self, *, actor: str) -> None:
        self.call(lambda t: t.close(actor=actor, at=self._at()))

    # ── following the tables ──
    def wake(self) -> concurrent.futures.Future[bool] | None:
        """Fold new events soon (coalesced), on the desk's thread."""
        with self._lock:
            if self.hub is None or self._closed or self._wake_pending:
                return None
            self._wake_pending = True
        try:
            return self._pool.submit(self._woken)
        except RuntimeError:
            return None

    def sync(self) -> bool:
        if self.hub is None or self._closed:
            return False
        return self._pool.submit(self._sync).result()

    def _woken(self) -> bool:
        with self._lock:
            self._wake_pending = False
        try:
            return self._sync()
        except Exception:
            log.exception("domino sync failed")
            return False

    def _sync(self) -> bool:
        cursor = int(self.store.get_meta("cursor", 0))
        playing: dict[str, str] = self.store.get_meta("playing", {})
        events = self.hub.events(since=cursor, limit=2000)
        changed = False
        for e in events:
            cursor = e["rowid"]
            kind = e["type"]
            if not kind.startswith("domino."):
                continue
            table = e["table"]
            if kind == "domino.table.assigned":
                playing[table] = e["data"]["game_id"]
            elif kind == "domino.table.unassigned":
                playing.pop(table, None)
            elif kind in ("domino.game.started", "domino.game.ended"):
                try:
                    changed = self._on_game(table, playing.get(table), kind, e) or changed
                except PairsError as err:
                    log.warning("table %s: %s not applied: %s", table, kind, err)
        if events:
            self.store.set_meta("cursor", cursor)
            self.store.set_meta("playing", playing)
        return changed

    def _on_game(self, table: str, key: str | None, kind: str, e: dict[str, Any]) -> bool:
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
