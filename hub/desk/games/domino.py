"""Domino's desk: the hub's side of the domino events (fixed pairs or individual), between the
tables and the director.

It runs on the one desk loop (:class:`~mesa.hub.desk.loop.DeskLoop`: its thread, wakes, cursor
and sync) beside backgammon's :class:`~mesa.hub.desk.games.backgammon.TournamentDesk`, and is
domino's :class:`~mesa.hub.desk.loop.DeskGame` there. It keeps its state in the hub's
SQLite file (:class:`~mesa.games.domino.store.PairsStore`, one thread owns the connection).

A club evening may hold several domino events at once (RULES §4: the domino room beside the
backgammon categories, a second pairs event), so the desk runs every open domino tournament,
each named by its id (``D1``, ``D2``…; the pages' ``t``), on the domino tables they share:

- the open tournaments are held in memory by id; a closed one is read from the store for its
  final list and exports (and kept: it no longer changes); a restart reloads them all;
- the director's actions (pairs, rounds, "TIEMPO", the judge's penalties, closing) name the
  tournament; an unknown or closed one is refused with the reason. Each is saved with its audit
  line, and a failure reloads the open tournaments from the store;
- a round's games go to domino tables that are free and not held by another domino event's
  game not yet recorded (a table is free on the grid a moment before it has taken its game);
- each game is published to its table as the retained ``DominoAssignment``, "TIEMPO" as the
  same message with ``tiempo`` set, for every table of that round at once;
- the hub's committed events (the loop hands them over) are routed by the game the table was
  last assigned (``game_key``, ``"<tournament id>:<game id>"``): a ``domino.game.ended`` from
  the table that holds the game's current assignment records it in that tournament;
- the players' records (RULES §5: the table keeps the game, the hub keeps the records): every
  fine and award is recorded here once, whatever state the game is in (during a hand, at
  ``game_over``, after the game is recorded). A command goes to the table only when the table
  must change the game: an expulsion (``penalty``), an annulled hand (``annul``), an absence
  (``absence``), a late arrival (``late``, its screen says it). See :meth:`DominoDesk.penalty`
  for what is recorded before and after the table's answer;
- from the tables: a timer fine (``domino.penalty`` with ``slow_play``/``late_pass``) is
  recorded keyed by the committed event's rowid (``event:<rowid>``: an event folded again after
  a restart, before the cursor was saved, lands once); any other ``domino.penalty`` echoes the
  hub's own command and is not recorded again; ``domino.sheet.unsigned`` fines the pairs named
  on the table's previous game (the event precedes the next ``domino.table.assigned``);
- the players: with a :class:`~mesa.hub.desk.venue.Venue` the desk publishes, at start and
  after every change, who it has seated (every player of a game not yet recorded). A round is
  not started while one of its players sits at another table (another game's event, or another
  domino event's game) unless the director confirms: a domino round's games start together and
  a late arrival is fined, so the director must know who will be late.

>>> import tempfile, os
>>> desk = DominoDesk(os.path.join(tempfile.mkdtemp(), "hub.sqlite3"))
>>> desk.create("Dominó de marzo", actor="director").id, desk.create("Parejas", actor="d").id
('D1', 'D2')
>>> [(e["id"], e["phase"], e["open"]) for e in desk.events()]
[('D1', 'registration', True), ('D2', 'registration', True)]
>>> desk.register_pair("a", "b", ("A", "B"), actor="director")
Traceback (most recent call last):
  ...
mesa.games.domino.event.PairsError: which_tournament: 2 domino tournaments are open: name one
>>> desk.register_pair("a", "b", ("A", "B"), actor="director", t="D2").name
'A / B'
>>> desk.create("Individual", actor="d", format="individual").format
'individual'
>>> desk.register_pair("c", "d", ("C", "D"), actor="director", t="D3")
Traceback (most recent call last):
  ...
mesa.games.domino.event.PairsError: wrong_format: D3 is an individual event: register players
>>> desk.register_player("c", "C", actor="director", t="D3").name
'C'
>>> desk.close()
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from mesa.games.domino.event import DominoEvent, EventGame, FineResult, PairsError
from mesa.games.domino.individual import IndividualTournament
from mesa.games.domino.pairs import PairsTournament
from mesa.games.domino.penalties import DIRECTOR_REASONS
from mesa.games.domino.records import TIMER_REASONS
from mesa.games.domino.store import DominoStore, event_from_dict
from mesa.games.registry import game_named
from mesa.hub.desk.loop import OnDeskLoop
from mesa.hub.desk.ports import CommittedEvent, DeskHub
from mesa.hub.desk.tables import free_tables_of
from mesa.hub.desk.venue import Seat, Venue

__all__ = ["FORMATS", "DeskFine", "DominoDesk", "Elsewhere", "PlayersBusy", "game_key"]

log = logging.getLogger("mesa.web.domino")
T = TypeVar("T")

GAME = game_named("domino")
Assignments = dict[str, dict[str, Any] | None]  # table → what it is given (the hub's port)
# A domino table can take the next game in these states.
FREE_STATES = ("idle", "game_over")
# The two formats a director may create (RULES §5): fixed pairs, or partners drawn each round.
FORMATS: dict[str, type[DominoEvent]] = {"pairs": PairsTournament,
                                         "individual": IndividualTournament}


def game_key(t: DominoEvent, g: EventGame) -> str:
    """The ``game_id`` a table receives: unique across tournaments (a table compares it), and
    what routes the table's events back to the tournament (:func:`split_key`)."""
    return f"{t.id}:{g.id}"


def split_key(key: str) -> tuple[str, str]:
    """``"D2:R1-M3"`` → ``("D2", "R1-M3")`` (a key without a tournament names none).

    >>> split_key("D2:R1-M3"), split_key("R1-M3")
    (('D2', 'R1-M3'), ('', 'R1-M3'))
    """
    tid, sep, gid = key.partition(":")
    return (tid, gid) if sep else ("", key)


@dataclass(frozen=True)
class DeskFine(FineResult):
    """A :class:`FineResult` as the desk answers it: ``warning`` (with its ``warning_code``,
    ``table_refused`` or ``table_timeout``) when the record stands but the table did not take
    the command — an expulsion: the player is out of the event whatever the table says, and
    the director must know the table's game still runs (end it there, or send it again).
    Empty when the table took it, or when nothing had to be sent."""

    warning: str = ""
    warning_code: str = ""

    @classmethod
    def of(cls, r: FineResult, warning: str = "", code: str = "") -> DeskFine:
        return cls(**{f.name: getattr(r, f.name) for f in fields(FineResult)},
                   warning=warning, warning_code=code)


@dataclass(frozen=True)
class Elsewhere:
    """A player of a domino round seated at another table now: ``name`` as the event says
    it, ``seat`` where (another game's event or another domino event)."""

    name: str
    seat: Seat


class PlayersBusy(PairsError):
    """A round refused because some of its players sit elsewhere (``elsewhere``); the director
    may start it anyway (``confirm``)."""

    def __init__(self, elsewhere: list[Elsewhere]) -> None:
        said = "; ".join(f"{e.name} plays at table {e.seat.table} ({e.seat.event_name})"
                         for e in elsewhere)
        super().__init__("players_busy", f"{said}: confirm to start the round anyway")
        self.elsewhere = elsewhere


class DominoDesk(OnDeskLoop):
    """See the module docstring. ``hub`` may be None (no tables: tests, a desk without MQTT;
    then no command is sent and every fine is recorded at once); ``venue`` None: no other
    game's seats to respect, none published."""

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
        venue: Venue | None = None,
    ) -> None:
        self.command_wait = command_wait
        self.venue = venue
        self._open_loop(hub, now=now, wall=wall, language=language, thread="mesa-domino")
        self.store: DominoStore = self._loop.call(lambda: DominoStore(path))
        self.open: dict[str, DominoEvent] = {}  # the open tournaments by id (desk thread)
        self._closed: dict[str, DominoEvent] = {}  # closed ones read so far (they stay so)
        # What other threads read without waiting for the desk: replaced whole after a change.
        self._events: tuple[dict[str, Any], ...] = ()
        self._seats: tuple[Seat, ...] = ()
        self._loop.call(self._load_open)
        # The cursor and which game each table holds (its last domino.table.assigned), as
        # stored with the cursor: the events fold into these, one write per batch.
        self._cursor: int = self._loop.call(lambda: int(self.store.get_meta("cursor", 0)))
        self._playing: dict[str, str] = self._loop.call(lambda: self.store.get_meta("playing", {}))

    # ── the desk's thread ──
    def _load_open(self) -> None:
        self.open = {}
        for tid, _name, phase, _rounds in self.store.summaries():
            if phase != "closed":
                t = self.store.load(tid)
                assert t is not None  # listed by the store just now
                self.open[tid] = t
        self._refresh()

    def reload(self) -> None:
        self._closed = {}  # a half-applied action must not survive, nor a close half done
        self._load_open()

    def _find(self, tid: str) -> DominoEvent | None:
        """An open tournament, or a closed one from the store (kept: it no longer changes)."""
        if tid in self.open:
            return self.open[tid]
        if tid not in self._closed:
            t = self.store.load(tid)
            if t is None:
                return None
            self._closed[tid] = t
        return self._closed[tid]

    def _default(self) -> DominoEvent | None:
        """What a reader that names no tournament sees: the newest open, else the newest."""
        if self.open:
            return list(self.open.values())[-1]
        ids = self.store.ids()
        return self._find(ids[-1]) if ids else None

    def _open_one(self, tid: str | None) -> DominoEvent:
        """The open tournament an action names; None: the only one open."""
        if tid is None or tid == "":
            if len(self.open) == 1:
                return next(iter(self.open.values()))
            if not self.open:
                raise PairsError("no_tournament", "create a domino tournament first")
            raise PairsError("which_tournament",
                             f"{len(self.open)} domino tournaments are open: name one")
        if tid in self.open:
            return self.open[tid]
        if self._find(tid) is not None:
            raise PairsError("closed", f"the domino tournament {tid} is closed")
        raise PairsError("unknown_tournament", f"no domino tournament {tid[:40]!r}")

    def read(self, fn: Callable[[Any], T], t: str | None = None) -> T:
        """A read-only look at tournament ``t`` (open or closed; a :class:`DominoEvent`: its
        ``format`` says which), on the desk's thread; None: the newest open, else the newest
        (None if there is none). An unknown ``t`` raises :class:`PairsError`
        ``unknown_tournament``."""

        def look() -> T:
            if t is None:
                return fn(self._default())
            tour = self._find(t)
            if tour is None:
                raise PairsError("unknown_tournament", f"no domino tournament {t[:40]!r}")
            return fn(tour)

        return self._loop.call(look)

    def read_open(self, fn: Callable[[Any], T]) -> list[T]:
        """``fn`` over every open tournament (a :class:`DominoEvent`), oldest first, on the
        desk's thread."""
        return self._loop.call(lambda: [fn(t) for t in self.open.values()])

    def _apply(self, tid: str | None, fn: Callable[[Any], T]) -> T:
        return self._loop.apply(lambda: self._step(tid, fn))

    def _step(self, tid: str | None, fn: Callable[[Any], T]) -> T:
        t = self._open_one(tid)
        result = fn(t)
        self.store.save(t)
        if t.phase == "closed":
            del self.open[t.id]
            self._closed[t.id] = t
        self._refresh()
        return result

    def call(self, fn: Callable[[Any], T], t: str | None = None) -> T:
        """Change open tournament ``t`` (None: the only one open) with ``fn``, saved."""
        return self._loop.call(lambda: self._apply(t, fn))

    def _at(self) -> str:
        return self._now().isoformat(timespec="seconds")

    def _refused(self, action: str, fn: Callable[[], T]) -> T:
        """Run a director's action; a refusal is logged (with its code) and raised as is."""
        try:
            return fn()
        except PairsError as e:
            log.warning("domino %s refused: %s", action, e)
            raise

    # ── what the other pages and desks read ──
    def events(self) -> list[dict[str, Any]]:
        """Every domino event: the open ones first (oldest first), then the closed (newest
        first); each ``{"id", "name", "format", "phase", "open", "round", "game", "href"}``.
        Any thread, without waiting for the desk."""
        return [dict(e) for e in self._events]

    def seats(self) -> list[Seat]:
        """Who the domino events have seated now (every player of a game not yet recorded).
        Any thread, without waiting for the desk."""
        return list(self._seats)

    def _refresh(self) -> None:
        """After a change (desk thread): the events' list and the seats, published."""
        open_: list[dict[str, Any]] = []
        closed: list[dict[str, Any]] = []
        formats = self.store.formats()
        for tid, name, phase, rounds in self.store.summaries():
            t = self.open.get(tid)
            e = {"id": tid, "name": name, "format": t.format if t else formats.get(tid, "pairs"),
                 "phase": t.phase if t else phase,
                 "open": t is not None, "round": t.current_round if t else rounds,
                 "game": GAME.name, "href": f"/domino?t={tid}"}
            (open_ if t is not None else closed).append(e)
        self._events = tuple(open_ + closed[::-1])
        seats = tuple(s for t in self.open.values() for s in _seated(t))
        self._seats = seats
        if self.venue is not None:
            self.venue.publish(GAME.name, seats)

    def _seating(self) -> contextlib.AbstractContextManager[None]:
        """The venue's hold for check-then-seat (nothing to hold without a venue)."""
        return self.venue.seating() if self.venue is not None else contextlib.nullcontext()

    def _elsewhere(self, t: DominoEvent, players: Iterable[str]) -> list[Elsewhere]:
        """``players`` of ``t`` seated at another table now: by another game's desk (the
        venue) or by another open domino event."""
        busy: dict[str, Seat] = {}
        if self.venue is not None:
            busy.update(self.venue.busy(besides=GAME.name))
        for other in self.open.values():
            if other is not t:
                busy.update({s.player: s for s in _seated(other)})
        names = t.player_names()
        return [Elsewhere(names.get(p, p), busy[p]) for p in dict.fromkeys(players) if p in busy]

    def elsewhere(self, t: str | None = None) -> list[Elsewhere]:
        """Who of tournament ``t``'s next round (in registration or between rounds) or of its
        current round's games not yet begun is seated at another table now: who is, or will
        be, late."""

        def look() -> list[Elsewhere]:
            tour = self._open_one(t)
            assigned = [g for g in tour.round_games() if g.status == "assigned"]
            if assigned:
                return self._elsewhere(tour, [p for g in assigned
                                              for p in tour.seating(g).values()])
            return self._elsewhere(tour, _next_players(tour))

        return self._loop.call(look)

    # ── the director's actions: the event and its players ──
    def create(self, name: str, *, actor: str, settings: dict[str, Any] | None = None,
               format: str = "pairs") -> DominoEvent:
        """A new open domino event beside the others (``D<n>``), of ``format`` ``pairs``
        (fixed pairs) or ``individual`` (partners drawn each round); anything else is
        refused (``bad_format``)."""
        name = name.strip()

        def make() -> DominoEvent:
            if format not in FORMATS:
                raise PairsError("bad_format", f"{str(format)[:40]!r}: pairs or individual")
            if not 1 <= len(name) <= 80:
                raise PairsError("bad_name", "a name of 1 to 80 characters")
            n = len(self.store.ids()) + 1
            t = FORMATS[format](f"D{n}", name, settings=settings)
            t._log(actor, self._at(), "create", name=name, format=format)
            self.store.save(t)
            self.open[t.id] = t
            self._refresh()
            return t

        return self._refused("create", lambda: self._loop.call(lambda: self._loop.apply(make)))

    def _of_format(self, fmt: str, action: str, t: str | None,
                   fn: Callable[[Any], T]) -> T:
        """``fn`` on open event ``t``, refused (``wrong_format``) unless it is of ``fmt``."""

        def run(x: DominoEvent) -> T:
            if x.format != fmt:
                said = {"pairs": "a pairs event: register pairs",
                        "individual": "an individual event: register players"}
                raise PairsError("wrong_format", f"{x.id} is {said.get(x.format, x.format)}")
            return fn(x)

        return self._refused(action, lambda: self.call(run, t))

    def register_pair(self, a: str, b: str, names: tuple[str, str], *, actor: str,
                      t: str | None = None) -> Any:
        """A pair of two registered players in fixed-pairs event ``t`` (its
        :class:`~mesa.games.domino.pairs.DominoPair`)."""
        return self._of_format("pairs", "register_pair", t, lambda x: x.register_pair(
            a, b, names, actor=actor, at=self._at()))

    def remove_pair(self, pair_id: str, *, actor: str, t: str | None = None) -> None:
        """A pair out of fixed-pairs event ``t`` (during registration only)."""
        self._of_format("pairs", "remove_pair", t, lambda x: x.remove_pair(
            pair_id, actor=actor, at=self._at()))

    def register_player(self, player: str, name: str, *, actor: str, t: str | None = None
                        ) -> Any:
        """A registered player in individual event ``t`` (its
        :class:`~mesa.games.domino.individual.DominoPlayer`)."""
        return self._of_format("individual", "register_player", t, lambda x: x.register_player(
            player, name, actor=actor, at=self._at()))

    def remove_player(self, player: str, *, actor: str, t: str | None = None) -> None:
        """A player out of individual event ``t`` (during registration only)."""
        self._of_format("individual", "remove_player", t, lambda x: x.remove_player(
            player, actor=actor, at=self._at()))

    # ── rounds ──
    def free_tables(self) -> list[str]:
        """Domino tables online and free (idle or their game over) and not held by a game of
        an open domino event not yet recorded, by table id."""
        held = {s.table for s in self._seats}
        return sorted((x for x in free_tables_of(self.hub, GAME, FREE_STATES) if x not in held),
                      key=_natural)

    def assign_args(self, t: DominoEvent, g: EventGame) -> dict[str, Any]:
        args: dict[str, Any] = {
            "game_id": game_key(t, g),
            "players": t.seat_names(g),
            "language": self.language,
        }
        if t.settings:
            args["settings"] = dict(t.settings)
        return args

    def start_round(self, *, actor: str, t: str | None = None, tables: list[str] | None = None,
                    confirm: bool = False) -> list[EventGame]:
        """Draw tournament ``t``'s next round (pairs paired, or players drawn into tables of
        four), give its games to free tables, publish the assignments. Refused
        (:class:`PlayersBusy`) while one of its players sits at another table, unless
        ``confirm``: then it starts and the audit says who will be late."""
        free = self.free_tables() if tables is None else list(tables)

        def start(x: DominoEvent) -> tuple[list[EventGame], Assignments]:
            # Check the seats, seat the round, publish: one hold of the venue, so the
            # backgammon desk never seats a player this round is seating (and the reverse).
            with self._seating():
                away = self._elsewhere(x, _next_players(x))
                if away and not confirm:
                    raise PlayersBusy(away)
                # Held now, on the desk's thread: another event's round may have taken a table
                # since the grid said it was free.
                held = {s.table for s in self._seats}
                games = x.start_round([f for f in free if f not in held], actor=actor,
                                      at=self._at())  # fmt: skip
                if away:
                    x._log(actor, self._at(), "late", players=[
                        {"player": e.seat.player, "name": e.name, "table": e.seat.table,
                         "event": e.seat.event, "game": e.seat.game} for e in away])
                self._refresh()  # the round's seats, published before the venue is let go
            return games, {g.table: self.assign_args(x, g) for g in games}

        games, assignments = self._refused("start_round", lambda: self.call(start, t))
        if self.hub is not None:
            for g in games:
                self.hub.register_table(g.table)
            self.hub.domino_assign_many(assignments)
        return games

    def call_tiempo(self, *, actor: str, t: str | None = None) -> float:
        """"TIEMPO" for tournament ``t``'s round: one instant, one retained message per table."""
        start = self._wall()

        def tiempo(x: DominoEvent) -> Assignments:
            x.call_tiempo(start, actor=actor, at=self._at())
            return {g.table: self.assign_args(x, g) for g in x.round_games()
                    if g.status != "ended"}

        assignments = self._refused("tiempo", lambda: self.call(tiempo, t))
        if self.hub is not None and assignments:
            self.hub.domino_assign_many(assignments, start)
        return start

    def close_tournament(self, *, actor: str, t: str | None = None) -> None:
        self._refused("close", lambda: self.call(lambda x: x.close(actor=actor, at=self._at()),
                                                 t))

    # ── the director's actions: fines, late arrivals, absences ──
    # Each of these runs whole on the desk's thread, the table's answer awaited there too: no
    # event is folded between the table taking a command and the record of it (a table that
    # ends its game on an absence or on time's last hand annulled reports the end at once,
    # and the record must not find the game recorded before it).
    def _rehearse(self, tour: DominoEvent, fn: Callable[[DominoEvent], T]) -> T:
        """``fn`` on a copy of ``tour``, kept nowhere: its refusals are the real one's and its
        answer says what to ask the table, before anything is recorded."""
        return fn(event_from_dict(tour.to_dict()))

    def penalty(
        self, game_id: str, player: str, reason: str, points: int | None, *, actor: str,
        t: str | None = None, annul: bool = False,
    ) -> DeskFine:
        """The director's fine on ``player`` (a registry id) for ``reason`` at any moment of
        the game: escalated from the records (talking: −25, −75 to both, expulsion; late
        arrival: see :meth:`late`), ``points`` (None: the reason's own) for the others; the
        answer (:class:`DeskFine`) says the step, the entries written and whom it expelled.

        What the table is told, and when the record is written:

        - ``annul`` (``pass_with_playable``/``chivo``, a game not yet recorded): the table's
          ``annul`` is sent first and its acceptance awaited (``command_wait`` seconds);
          refused or unanswered, **nothing is recorded** and the refusal says why
          (``table_refused``/``table_timeout``);
        - an expulsion (talking's third time, marked tiles, misconduct, abandonment) of a game
          not yet recorded: **recorded first** (the player is out of the event whatever the
          table says), then the table's ``penalty`` sent (it ends the game, won by the other
          pair) and its answer awaited; a refusal or silence comes back as
          :attr:`DeskFine.warning` (and is logged);
        - any other fine: recorded, nothing sent (the game does not change).
        """

        def fine(x: DominoEvent) -> FineResult:
            return x.fine(game_id, player, reason, points=points, annul=annul, actor=actor,
                          at=self._at())

        def run() -> DeskFine:
            if reason not in DIRECTOR_REASONS:
                raise PairsError("bad_reason", f"{reason[:40]!r} is not a director's reason")
            tour = self._open_one(t)
            command = self._rehearse(tour, fine).command
            if self.hub is not None and command is not None and command[0] == "annul":
                self._send(tour, game_id, command)
                return DeskFine.of(self._apply(tour.id, fine))
            done = self._apply(tour.id, fine)
            if self.hub is None or done.command is None:
                return DeskFine.of(done)
            try:
                self._send(tour, game_id, done.command)
            except PairsError as e:
                log.warning("domino fine %s on %s in %s: recorded, but %s", done.step, player,
                            game_id, e)
                return DeskFine.of(done, e.message, e.code)
            return DeskFine.of(done)

        return self._refused("penalty", lambda: self._loop.call(run))

    def late(self, game_id: str, player: str, *, actor: str, t: str | None = None) -> DeskFine:
        """``player`` reached the table after the two minutes: the table's ``late`` (its
        screen says it) sent and its acceptance awaited, then recorded: the first late
        arrival 0 points (recorded), the second and later −50. Refused or unanswered by the
        table: nothing recorded. A game already recorded: recorded at once, nothing sent."""

        def late(x: DominoEvent) -> FineResult:
            return x.late(game_id, player, actor=actor, at=self._at())

        def run() -> DeskFine:
            tour = self._open_one(t)
            command = self._rehearse(tour, late).command
            if self.hub is not None and command is not None:
                self._send(tour, game_id, command)
            return DeskFine.of(self._apply(tour.id, late))

        return self._refused("late", lambda: self._loop.call(run))

    def absence(self, game_id: str, players: list[str], *, actor: str,
                t: str | None = None) -> list[str]:
        """Players absent at the start of a game (before its first hand): the table's
        ``absence`` sent and its acceptance awaited, then recorded at once (each absent −100,
        each present player +100 and a game won); the game's end arrives as the table's
        ``domino.game.ended`` (it gives no win). Refused or unanswered: nothing recorded. The
        absent players' seats."""

        def absent(x: DominoEvent) -> list[str]:
            return list(x.absence(game_id, list(players), actor=actor, at=self._at()))

        def run() -> list[str]:
            tour = self._open_one(t)
            seats = self._rehearse(tour, absent)
            if self.hub is not None:
                self._send(tour, game_id, ("absence", {"seats": seats}))
            return self._apply(tour.id, absent)

        return self._refused("absence", lambda: self._loop.call(run))

    def _send(self, tour: DominoEvent, game_id: str, command: tuple[str, dict[str, Any]]
              ) -> None:
        """Send ``command`` to the table of ``game_id`` and await its acceptance."""
        assert self.hub is not None
        table = tour._game(game_id).table
        name, args = command
        self._await_answer(table, self.hub.domino_command(table, name, dict(args)))

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

    # ── following the tables (the loop's DeskGame) ──
    def cursor(self) -> int:
        return self._cursor

    def on_event(self, e: CommittedEvent) -> bool:
        """Fold one committed event: a domino table's assignment, its game's start or end, its
        timer fines and its unsigned sheet, from the table that holds the game."""
        kind = e["type"]
        table = e["table"]
        if kind == "domino.table.assigned":
            self._playing[table] = e["data"]["game_id"]
        elif kind == "domino.table.unassigned":
            self._playing.pop(table, None)
        elif kind in ("domino.game.started", "domino.game.ended"):
            return self._on_game(table, self._playing.get(table), kind, e)
        elif kind == "domino.penalty" and e["data"].get("reason") in TIMER_REASONS:
            return self._on_timer_fine(table, e)
        elif kind == "domino.sheet.unsigned":
            return self._on_unsigned(table, e)
        return False

    def advance(self, cursor: int) -> None:
        self._cursor = cursor
        self.store.set_meta("cursor", cursor)
        self.store.set_meta("playing", self._playing)

    def settle(self) -> bool:
        return False  # rounds and "TIEMPO" are the director's, never the events'

    def _held(self, table: str, key: str | None) -> tuple[DominoEvent, EventGame] | None:
        """The open event and game ``key`` names, if ``table`` holds that game."""
        if key is None:
            return None
        tid, gid = split_key(key)
        t = self.open.get(tid)
        g = None if t is None else t.games.get(gid)
        if t is None or g is None or g.table != table:
            return None
        return t, g

    def _on_game(self, table: str, key: str | None, kind: str, e: CommittedEvent) -> bool:
        held = self._held(table, key)
        # Only the table that holds the game's current assignment, reporting that game of its
        # tournament's current round, not yet recorded.
        if held is None:
            return False
        t, g = held
        if g.status == "ended" or g.round != t.current_round:
            return False
        if kind == "domino.game.started":
            return self._apply(t.id, lambda x: x.game_started(g.id))
        d = e["data"]
        self._apply(
            t.id,
            lambda x: x.record_game(
                g.id, winner=d["winner"], how=d["how"], score=dict(d["score"]),
                games_won=dict(d["games_won"]), hands=int(d["hands"]),
                actor=f"table {table}", at=self._at(),
            ),
        )
        return True

    def _on_timer_fine(self, table: str, e: CommittedEvent) -> bool:
        """The table's own timer fine: on the player's record, once per committed event."""
        held = self._held(table, self._playing.get(table))
        if held is None:
            return False
        t, g = held
        d = e["data"]
        new = self._apply(t.id, lambda x: x.table_fine(
            g.id, d["seat"], d["reason"], int(d["points"]), key=f"event:{int(e['rowid'])}",
            offender=d.get("offender"), actor=f"table {table}", at=self._at()))
        return new is not None

    def _on_unsigned(self, table: str, e: CommittedEvent) -> bool:
        """The previous game's sheet left unsigned (reported before the next assignment):
        −25 to each player of each pair named, on that game."""
        key = self._playing.get(table) or str(e["data"].get("game_id") or "")
        held = self._held(table, key)
        if held is None:
            return False
        t, g = held
        pairs = [str(p) for p in e["data"].get("pairs", [])]
        done = self._apply(t.id, lambda x: x.sheet_unsigned(g.id, pairs, actor=f"table {table}",
                                                            at=self._at()))
        return bool(done.entries)


def _seated(t: DominoEvent) -> list[Seat]:
    """Every player of ``t``'s games not yet recorded, at its table."""
    return [
        Seat(p, g.table, t.id, t.name, GAME.name)
        for g in t.round_games() if g.status != "ended" for p in t.seating(g).values()
    ]


def _next_players(t: DominoEvent) -> list[str]:
    """Who plays ``t``'s next round (its pairing or its draw, byes and sit-outs left out);
    none while it cannot start (closed, a round in play, too few: its own refusal says
    why)."""
    return t.next_players()


def _natural(key: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", key))
