"""Backgammon's desk: the club's tournament as the hub runs it, between the tables and the director.

It runs on the one desk loop (:class:`~mesa.hub.desk.loop.DeskLoop`: its thread, wakes, cursor
and sync) and is backgammon's :class:`~mesa.hub.desk.loop.DeskGame` there. The desk owns the
:class:`~mesa.tournament.club.Club` (loaded from and saved to the
:class:`~mesa.tournament.store.TournamentStore` in the hub's SQLite file) and does four things:

- it applies the director's actions, one at a time, on its own thread (SQLite connections belong
  to the thread that opened them), saving after each and rolling back from the store on an error;
- it folds the hub's committed events (the loop hands them over): ``match.started`` and
  ``match.ended`` at a table become the tournament's ``match_started`` and ``record_result``, but only from the table holding the
  match's current assignment (the event's fencing epoch); a stale table's result, or a second
  result for a decided match, becomes a conflict for the director, never an overwrite;
- it hands ready matches to free tables (online, idle or done) and publishes the assignments,
  each with a new fencing epoch, never one match on two tables. Every open tournament of the
  evening shares the backgammon tables (RULES §4: open, novatos, a friendly): one plan for them
  all (:func:`~mesa.tournament.scheduler.plan_evening`), and a player seated in any event, or
  at another game's table (the :class:`~mesa.hub.desk.venue.Venue`), is never called twice.
- it takes back a match from a table that still holds it once the match is no longer that
  table's to play (decided, annulled or moved by the director): :meth:`release_stale`.

>>> import tempfile, os
>>> from datetime import date, datetime
>>> desk = TournamentDesk(os.path.join(tempfile.mkdtemp(), "hub.sqlite3"),
...                       now=lambda: datetime(2025, 3, 7, 20, 0))
>>> t = desk.call(lambda club, now: club.create_tournament("2025-03", "Marzo", date(2025, 3, 7)))
>>> desk.current().name, desk.version
('Marzo', 1)
>>> desk.close()
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from mesa.games.backgammon.resume import resume_of
from mesa.games.registry import game_named, game_of_snapshot
from mesa.hub.backup import backup_now
from mesa.hub.desk.loop import OnDeskLoop
from mesa.hub.desk.ports import CommittedEvent, DeskHub
from mesa.hub.desk.tables import free_tables_of, game_of_table
from mesa.hub.desk.timing import EveningTime, evening_time
from mesa.hub.desk.venue import Seat, Venue
from mesa.tournament.club import Club
from mesa.tournament.errors import TableError, TournamentError
from mesa.tournament.i18n import text
from mesa.tournament.matches import Match, validate_score
from mesa.tournament.scheduler import Assignment, Priority, calendar_priority, plan_evening
from mesa.tournament.store import TournamentStore
from mesa.tournament.tournament import Tournament

# The hub's verdict on a match.ended that contradicts itself (mesa.hub.ingest.results).
CONTRADICTORY = "contradictory_result"

log = logging.getLogger("mesa.web.desk")
T = TypeVar("T")

GAME = game_named("backgammon")
# Table states in which a table can take the next match.
FREE_STATES = ("idle", "match_over")
TimedPolicy = str  # "all": every match has a clock; "mandatory": only where the rules demand


class TournamentDesk(OnDeskLoop):
    """See the module docstring. ``hub`` may be None (no tables: the director enters results)."""

    log = log
    refusals: tuple[type[Exception], ...] = (TournamentError,)

    def __init__(
        self,
        path: str | Path,
        *,
        hub: DeskHub | None = None,
        now: Callable[[], datetime] = datetime.now,
        wall: Callable[[], float] = time.time,
        rate: float = 1.0,
        timed: TimedPolicy = "all",
        auto_assign: bool = True,
        language: str = "es",
        venue: Venue | None = None,
        priority: Priority = calendar_priority,
    ) -> None:
        self.path = str(path)
        self.rate = rate
        self.timed = timed
        self.auto_assign = auto_assign
        self.priority = priority
        # Who sits where across every game's desk; this desk's own seats are published after
        # every change, and another game's change wakes this desk (a player becomes free).
        self.venue = venue if venue is not None else Venue()
        self._open_loop(hub, now=now, wall=wall, language=language, thread="mesa-desk")
        self.store: TournamentStore = self._loop.call(lambda: TournamentStore(self.path))
        self.club: Club = self._loop.call(self.store.load_club)
        self._meta = self._loop.call(self._load_meta)
        self._loop.call(self._publish_seats)
        self.venue.listen(GAME.name, self._on_venue_change)
        self._time: tuple[tuple[int, int], EveningTime] | None = None

    # ── running things on the desk's thread ──────────────────────────────
    def submit(self, fn: Callable[[Club, datetime], T]) -> concurrent.futures.Future[T]:
        """Run ``fn(club, now)`` on the desk's thread; the club is saved if it returns."""
        return self._loop.submit(lambda: self._apply(fn))

    def call(self, fn: Callable[[Club, datetime], T]) -> T:
        """:meth:`submit` and wait for the result (or the exception)."""
        return self.submit(fn).result()

    def read(self, fn: Callable[[Club], T]) -> T:
        """Run a read-only ``fn(club)`` on the desk's thread (no save, no version bump)."""
        return self.submit_read(fn).result()

    def submit_read(self, fn: Callable[[Club], T]) -> concurrent.futures.Future[T]:
        """Reads go through the desk's thread too, so a page never sees half an action."""
        return self._loop.submit(lambda: fn(self.club))

    def _apply(self, fn: Callable[[Club, datetime], T]) -> T:
        return self._loop.apply(lambda: self._step(fn))

    def _step(self, fn: Callable[[Club, datetime], T]) -> T:
        closed = sum(t.phase == "closed" for t in self.club.tournaments.values())
        result = fn(self.club, self._now())
        self.store.save_club(self.club)
        self._publish_seats()
        if sum(t.phase == "closed" for t in self.club.tournaments.values()) > closed:
            backup_now()  # a tournament's final list is out: keep a copy of the season
        return result

    def reload(self) -> None:
        """A half-applied action must not survive: the store holds the last good state."""
        self.club = self.store.load_club()
        self._publish_seats()

    def seats(self) -> list[Seat]:
        """Every player this desk has seated: an assigned or playing match of any event."""
        return [
            Seat(p, m.table, t.id, t.name, GAME.name)
            for t in self.club.tournaments.values()
            for m in t.matches.values()
            if m.table is not None and m.status in ("assigned", "playing")
            for p in m.players
        ]

    def _on_venue_change(self) -> None:
        """Another game's seats changed (a domino game recorded): a waiting match may start."""
        self.wake()

    def _publish_seats(self) -> None:
        self.venue.publish(GAME.name, self.seats())

    # ── what is current ──────────────────────────────────────────────────
    def current(self) -> Tournament | None:
        """The tournament the dashboard shows by default: the newest still open, else the
        newest closed (every open one runs: :meth:`open_tournaments`)."""
        ts = sorted(self.club.tournaments.values(), key=lambda t: (t.held_on, t.id))
        open_ = [t for t in ts if t.phase != "closed"]
        if open_:
            return open_[-1]
        return ts[-1] if ts else None

    def open_tournaments(self) -> list[Tournament]:
        """Every tournament not yet closed, oldest first."""
        return sorted(
            (t for t in self.club.tournaments.values() if t.phase != "closed"),
            key=lambda t: (t.held_on, t.id),
        )

    def evening_events(self) -> list[Tournament]:
        """The open tournaments held on the evening's date (the newest an open one has): those
        the desk hands tables to and forecasts by itself. An older one still open (last
        month's, never closed, or reopened by a late correction) gets a table only from the
        director's own "Asignar a mesa": it must not take tonight's tables unasked."""
        events = self.open_tournaments()
        if not events:
            return []
        tonight = max(t.held_on for t in events)
        return [t for t in events if t.held_on == tonight]

    # ── the evening against the clock ───────────────────────────────────
    def evening_time(self) -> EveningTime:
        """The pace of every match under way and the forecast of the rest (desk's thread):
        made again when the tournaments change, else at most every 30 seconds."""
        now = self._now()
        key = (self.version, int(now.timestamp() // 30))
        if self._time is None or self._time[0] != key:
            live = self.hub.tables() if self.hub is not None else []
            tables = [
                str(x["table"])
                for x in live
                if x.get("status") == "online" and game_of_table(x) == GAME.name
            ]
            elsewhere = sorted(self.venue.busy(besides=GAME.name))
            made = evening_time(
                self.evening_events(), live, now, tables=tables, elsewhere=elsewhere,
                timed=lambda m: self.timed == "all" or m.clock.mandatory, rate=self.rate,
                priority=self.priority,
            )
            self._time = (key, made)
        return self._time[1]

    # ── the desk's own small memory (which match each table was given) ──
    def _load_meta(self) -> dict[str, Any]:
        self.store.db.execute(
            "CREATE TABLE IF NOT EXISTS web_desk (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )
        rows = self.store.db.execute("SELECT key, value FROM web_desk").fetchall()
        # cursor: last event read; tables: what each table was last given; given: which
        # tournament each (table, match) assignment belongs to; epochs: the assignment behind
        # each fencing token the desk published, epoch → [tournament, table, match].
        meta: dict[str, Any] = {"cursor": 0, "tables": {}, "given": {}, "epochs": {}}
        for k, v in rows:
            meta[k] = json.loads(v)
        return meta

    def _save_meta(self) -> None:
        with self.store.transaction():
            for k, v in self._meta.items():
                self.store.db.execute(
                    "INSERT INTO web_desk(key, value) VALUES (?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (k, json.dumps(v)),
                )

    # ── tables ───────────────────────────────────────────────────────────
    def _table_clock(self, table: str) -> float | None:
        """The table's own clock now, from its last snapshot (for the lateness start)."""
        if self.hub is None:
            return None
        for row in self.hub.store.tables():
            if row["table"] == table:
                snap = row.get("snapshot") or {}
                last, ts = snap.get("last_now"), row.get("state_ts")
                if isinstance(last, int | float) and isinstance(ts, int | float):
                    return float(last) + max(0.0, self._wall() - ts) * self.rate
        return None

    def assign_args(
        self, t: Tournament, a: Assignment, now: datetime, carry: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """The ``assign`` input a table receives for a tournament assignment; ``carry`` (from
        :meth:`carried`) replaces what a match moved from another table takes with it."""
        m = t.match(a.match_id)
        timed = self.timed == "all" or m.clock.mandatory
        clock = (
            {"reserve": float(m.clock.reserve_s), "delay": float(m.clock.delay_s)}
            if timed
            else None
        )
        start = None
        table_now = self._table_clock(a.table)
        if table_now is not None:
            ahead = max(0.0, (a.scheduled_start - now).total_seconds())
            start = table_now + ahead * self.rate
        cards: dict[str, str] = {}
        for side, pid in (("a", a.a), ("b", a.b)):
            if pid in self.club.registry and self.club.registry.get(pid).card_ids:
                cards[side] = self.club.registry.get(pid).card_ids[0]
        args: dict[str, Any] = {
            "match_id": a.match_id,
            "players": {"a": t.name_of(a.a), "b": t.name_of(a.b)},
            "length": m.length,
            "clock": clock,
            "scheduled_start": start,
            "language": self.language,
        }
        if cards:
            args["cards"] = cards
        if carry:
            args.update(carry)
        return args

    def carried(
        self, t: Tournament, match_id: str, table: str | None, *, unknown_ok: bool = False
    ) -> dict[str, Any] | None:
        """What a match moved away from ``table`` takes to its new one, as ``assign``
        arguments (``resume``, the old table's clock, no lateness): None when it has not begun
        there. From the table's last state report, which must be as new as its events.

        :class:`TableError` ``move_decided`` when the table has already ended the match (its
        result is on its way), ``move_score_unknown`` when the match began there and the hub
        does not know where it stands (no state, or an older one than its events), unless
        ``unknown_ok`` (the director chose to start it again from 0–0)."""
        if self.hub is None or table is None:
            return None
        row = next((r for r in self.hub.store.tables() if r["table"] == table), None) or {}
        snap = row.get("snapshot") or {}
        live = self.hub.table(table) or {}
        machine = None
        if snap.get("match_id") == match_id:
            try:
                machine = GAME.machine.restore(snap) if game_of_snapshot(snap) is GAME else None
            except Exception:  # a state the hub cannot read tells nothing: as if none came
                machine = None
        current = row.get("state_stream") != live.get("stream") or int(
            row.get("state_seq") or 0
        ) >= int(live.get("seq") or 0)
        if machine is not None and current:
            if machine.state == "match_over":
                m = machine.s.match
                score = "" if m is None else f"{m.score['a']}–{m.score['b']}"
                raise TableError(
                    f"{match_id} has ended at table {table} ({score})",
                    reason="move_decided", match=match_id, table=table, score=score,
                )  # fmt: skip
            resume = resume_of(machine)
            if resume is None:
                return None  # assigned, players checking in: it starts afresh where it goes
            carry: dict[str, Any] = {"resume": resume, "scheduled_start": None}
            if machine.s.timed and machine.s.clock is not None:
                carry["clock"] = machine.s.clock.settings.to_dict()  # the clock it had
            return carry
        if t.match(match_id).status == "playing" and not unknown_ok:
            raise TableError(
                f"the score of {match_id} at table {table} is not known",
                reason="move_score_unknown", match=match_id, table=table,
            )  # fmt: skip
        return None

    @staticmethod
    def carried_score(carry: dict[str, Any] | None) -> str:
        """The score a move carried ("2–1"), "" when it carried none."""
        resume = (carry or {}).get("resume")
        if not resume:
            return ""
        return f"{resume['score']['a']}–{resume['score']['b']}"

    def publish_assignment(
        self, t: Tournament, a: Assignment, now: datetime, carry: dict[str, Any] | None = None
    ) -> None:
        """Tell ``a.table`` its match, with a new fencing epoch. Only what the club holds now
        is published, and a match is never left on two tables: another table still holding it
        at the hub (a result annulled, a match moved) is withdrawn first. ``carry``: what a
        moved match takes with it (:meth:`carried`)."""
        if self.hub is None:
            return
        current = self.club.tournaments.get(t.id)
        m = None if current is None else current.matches.get(a.match_id)
        if (
            current is not t
            or m is None
            or m.table != a.table
            or m.status not in ("assigned", "playing")
        ):
            # The club was reloaded after the plan was made (an action refused meanwhile):
            # publishing it would give a table a match the tournament does not know it has.
            raise TableError(f"{a.match_id} is not assigned to table {a.table}: not published")
        # The tournament checks its own tables only: a match moved onto a table another
        # event holds is refused here (the desk rolls the move back), never two on one table.
        self.refuse_table(t, a.table)
        for other, held in list(self._meta["tables"].items()):
            if other != a.table and held == [t.id, a.match_id]:
                log.warning("table %s: %s moves to table %s", other, a.match_id, a.table)
                self.withdraw_assignment(other)
        args = self.assign_args(t, a, now, carry)
        self.hub.register_table(a.table)
        _, epoch = self.hub.assign_fenced(a.table, args)
        self._meta["tables"][a.table] = [t.id, a.match_id]
        self._meta["given"][f"{a.table}/{a.match_id}"] = t.id
        self._meta["epochs"][str(epoch)] = [t.id, a.table, a.match_id]
        self._save_meta()

    def withdraw_assignment(self, table: str) -> None:
        if self.hub is None:
            return
        self.hub.unassign(table)
        self._meta["tables"].pop(table, None)
        self._save_meta()

    def stale_hold(self, table: str) -> tuple[str, str] | None:
        """``(match_id, why)`` when ``table`` holds a match that is no longer its to play.

        ``why`` is ``decided`` (it has a result), ``annulled`` (gone from the tournament, or
        annulled and waiting to be played again) or ``elsewhere`` (moved, or taken off it).
        The table's own word (its state report) says what it holds.
        """
        mid = self._held(table)
        if mid is None:
            return None
        why = self._not_its_own(table, mid)
        return None if why is None else (mid, why)

    def _held(self, table: str) -> str | None:
        """The match ``table`` says it holds (its last state report), None when idle."""
        if self.hub is None:
            return None
        live = self.hub.table(table)
        if live is None or live.get("state") == "idle" or not live.get("match_id"):
            return None
        return str(live["match_id"])

    def _not_its_own(self, table: str, mid: str) -> str | None:
        tid = self._meta["given"].get(f"{table}/{mid}")
        if tid is None:
            return None  # not a match the desk gave this table (a friendly, a test): not ours
        t = self.club.tournaments.get(tid)
        m = None if t is None else t.matches.get(mid)
        if m is None:
            return "annulled"
        if m.result is not None:
            return "decided"
        if m.table != table or m.status not in ("assigned", "playing"):
            annulled = any(h.get("action") == "annul" for h in m.history)
            return "annulled" if annulled and m.table is None else "elsewhere"
        return None

    def foreign_hold(self, table: str) -> str | None:
        """The match ``table`` says it holds when the hub never gave it that match (a Pi with
        an old or foreign assignment, a forged state): the director may free the table."""
        mid = self._held(table)
        if mid is None or self.hub is None or f"{table}/{mid}" in self._meta["given"]:
            return None
        current = next(
            (r for r in self.hub.store.assignments() if r["table"] == table and r["args"]), None
        )
        if current is not None and current["args"].get("match_id") == mid:
            return None  # the hub's own assignment (made outside the desk): not foreign
        return mid

    def release_table(self, table: str) -> None:
        """Withdraw the retained assignment: the table goes back to idle (the director's
        "Liberar mesa")."""
        self.withdraw_assignment(table)

    def release_stale(self) -> list[str]:
        """Withdraw every retained assignment of a match the tournament has since decided,
        annulled or moved, whether the table has taken it yet or not; returns the tables.

        A table showing the end of a match it finished itself (``match_over``, or idle) keeps
        it on screen until its next match."""
        if self.hub is None:
            return []
        out = []
        for row in self.hub.store.assignments():
            table, args = row["table"], row["args"]
            if not args or not args.get("match_id"):
                continue
            mid = str(args["match_id"])
            live = self.hub.table(table) or {}
            if live.get("state") in FREE_STATES and live.get("match_id") == mid:
                continue
            why = self._not_its_own(table, mid)
            if why is None:
                continue
            log.info("table %s: %s is %s; withdrawn", table, mid, why)
            self.withdraw_assignment(table)
            out.append(table)
        return out

    def free_tables(self) -> list[str]:
        """Tables the hub can give a match now: online and idle (or done), busy in no event."""
        if self.hub is None:
            return []
        busy = {
            m.table
            for t in self.club.tournaments.values()
            for m in t.matches.values()
            if m.status in ("assigned", "playing")
        }
        return [tid for tid in free_tables_of(self.hub, GAME, FREE_STATES) if tid not in busy]

    def takes_next_match(self, table: str) -> bool:
        """Whether ``table`` gets its next match from the desk by itself: the desk hands out
        matches, and the table is connected and free (idle, or done with its own)."""
        if self.hub is None or not self.auto_assign:
            return False
        return table in free_tables_of(self.hub, GAME, FREE_STATES)

    def refuse_table(self, t: Tournament, table: str) -> None:
        """:class:`TableError` when ``table`` may not take a match of ``t``: another open event
        has a match there, or it is another game's table (the grid offers every table). The
        tournament checks its own tables only; call this before anything is withdrawn."""
        for other in self.open_tournaments():
            if other.id == t.id:
                continue
            for o in other.matches.values():
                if o.table == table and o.status in ("assigned", "playing"):
                    raise TableError(
                        f"table {table} is busy with {o.id} ({other.name})",
                        reason="table_busy",
                        table=table,
                        match=f"{o.id} ({other.name})",
                    )
        live = self.hub.table(table) if self.hub is not None else None
        if live is not None and game_of_table(live) != GAME.name:
            game = game_of_table(live)
            raise TableError(
                f"table {table} plays {game}", reason="table_other_game", table=table, game=game
            )

    def assign_match(
        self, t: Tournament, match_id: str, table: str, now: datetime, actor: str
    ) -> Assignment:
        """Give one ready match to one table (the director's choice, not the calendar's).

        The tournament knows only its own matches; the evening's other events and games
        share the tables and some players: a table another event holds, or a player seated
        at another table, is refused here (RULES §4: never two tables at once)."""
        self.refuse_table(t, table)
        seated = {s.player for s in self.seats() if s.event != t.id}
        seated |= set(self.venue.busy(besides=GAME.name))
        busy = [p for p in t.match(match_id).players if p in seated]
        if busy:
            names = ", ".join(t.name_of(p) for p in busy)
            raise TableError(
                f"{match_id} cannot start now: {names} seated at another table",
                code="players_busy",
                reason="players_busy",
                players=names,
            )
        return t.assign_match(match_id, table, now=now, actor=actor)

    # ── following the tables (the loop's DeskGame) ───────────────────────
    def cursor(self) -> int:
        """The rowid of the last event folded."""
        return int(self._meta["cursor"])

    def advance(self, cursor: int) -> None:
        self._meta["cursor"] = cursor
        self._save_meta()

    def settle(self) -> bool:
        """After the events: take back stale matches, start Último Chance when due, give
        ready matches to free tables. True if anything changed."""
        if self.hub is None:
            return False
        # Every step below names the tournament by id and looks it up in the club it runs on:
        # a refused step reloads the club from the store, and an object taken before that
        # would take the next step's changes with it, unsaved (matches published to a table
        # but "ready" in the tournament, then given to a second table).
        tids = [t.id for t in self.evening_events()]
        if not tids:
            return False
        changed = bool(self.release_stale())
        for tid in tids:
            changed = self._start_consolation(tid) or changed
        return self._assign_free(tids) or changed

    def _start_consolation(self, tid: str) -> bool:
        """Último Chance starts once every first knockout match is decided."""
        t = self.club.tournaments[tid]
        if not (
            self.auto_assign
            and t.knockout is not None
            and t.consolation is None
            and t.settings.consolation
            and t.phase != "closed"
            and t.first_knockout_round_done()
        ):
            return False
        try:
            self._apply(
                lambda club, now: club.tournaments[tid].start_consolation(actor="auto", now=now)
            )
        except TournamentError as err:
            log.warning("Último Chance not started: %s", err)
            return False
        return True

    def _assign_free(self, tids: list[str]) -> bool:
        """Give every open event's ready matches to the free tables (one plan for the whole
        evening) and tell each table its match."""
        if not self.auto_assign:
            return False
        # Every running event goes into the plan, not only those with a ready match: an event
        # whose matches are all at tables still seats its players (a player in both
        # categories, playing a novatos match, is not called to the open's next one).
        playing = [
            tid for tid in tids if self.club.tournaments[tid].phase in ("groups", "knockout")
        ]
        free = self.free_tables()
        if not free or not any(self.club.tournaments[tid].ready_matches() for tid in playing):
            return False
        now = self._now()

        def assign(club: Club, now: datetime) -> list[tuple[str, Assignment]]:
            # Read the other games' seats, seat, publish: one hold of the venue, so the domino
            # desk never seats a player this plan is seating (and the reverse).
            with self.venue.seating():
                elsewhere = set(self.venue.busy(besides=GAME.name))
                # and those at a table for an event outside tonight's plan (an older one the
                # director gave a table by hand)
                elsewhere |= {
                    p
                    for t in club.tournaments.values()
                    if t.id not in playing
                    for m in t.matches.values()
                    if m.status in ("assigned", "playing")
                    for p in m.players
                }
                events = [club.tournaments[tid] for tid in playing]
                plans = plan_evening(
                    events, free, now, busy_elsewhere=elsewhere, priority=self.priority
                )
                given = [
                    (tid, a)
                    for tid, plan in plans.items()
                    for a in club.tournaments[tid].give_tables(plan, now=now)
                ]
                self._publish_seats()
            return given

        given = self._apply(assign)
        for tid, a in given:
            try:
                self.publish_assignment(self.club.tournaments[tid], a, now)
            except Exception:
                # Never leave a match "assigned" to a table that was not told.
                log.exception("table %s: assignment of %s failed", a.table, a.match_id)
                self._apply(self._unassign_step(tid, a.match_id))
        return bool(given)

    @staticmethod
    def _unassign_step(tid: str, match_id: str) -> Callable[[Club, datetime], None]:
        def step(club: Club, now: datetime) -> None:
            club.tournaments[tid].unassign(match_id, actor="auto", now=now)

        return step

    def on_event(self, e: CommittedEvent) -> bool:
        """Fold one committed event: a backgammon table's start, end or correction."""
        kind = e["type"]
        if kind not in ("match.started", "match.ended", "score.corrected"):
            return False
        given = self._given(e)
        if given is None:
            return False
        tid, _, match_id = given
        t = self.club.tournaments.get(tid)
        if t is None or match_id not in t.matches:
            return False
        m = t.match(match_id)
        stale = self._stale(e, m)
        if kind == "match.started":
            if stale or m.status not in ("ready", "assigned"):
                return False
            self._apply(lambda club, now: club.tournaments[tid].match_started(match_id, now=now))
            return True
        return self._on_score(e, tid, m, stale)

    def _given(self, e: CommittedEvent) -> list[str] | None:
        """``[tournament, table, match]`` the event is about, or None (refused, counted).

        Which match the event is about is the desk's own record of the assignment behind
        the event's fencing epoch, never the table's word (a table.assigned naming an old
        match, then a score.corrected, once rewrote that old match's result)."""
        table, epoch = e["table"], e.get("epoch")
        given = self._meta["epochs"].get(str(epoch)) if isinstance(epoch, int) else None
        if given is None and isinstance(epoch, int):
            given = self._epoch_from_store(table, epoch)
        if given is None or given[1] != table:
            why = "missing_epoch" if epoch is None else "unknown_epoch"
            self._count("table_events_refused", reason=why)
            log.warning(
                "table %s: %s (epoch %s) not applied: %s",
                table,
                e["type"],
                epoch,
                why.replace("_", " "),
            )
            return None
        return list(given)

    def _stale(self, e: CommittedEvent, m: Match) -> bool:
        """Whether the table no longer held the match when it reported (counted)."""
        if e.get("fence") is not None:
            self._count("table_events_refused", reason=str(e.get("fence")))
            return True
        if m.result is None and (m.table != e["table"] or m.status not in ("assigned", "playing")):
            # The tournament no longer has the match at this table (moved, taken off, annulled)
            # while the table still had its token: as stale as a fenced event. Never "playing"
            # with no table, never a result recorded from a table that no longer holds it.
            self._count("table_events_refused", reason="not_held")
            return True
        return False

    def _on_score(self, e: CommittedEvent, tid: str, m: Match, stale: bool) -> bool:
        """A match's end or its score corrected: the result, or a conflict for the director."""
        if e.get("fence") == CONTRADICTORY:
            return self._on_contradiction(e, tid, m)
        kind, table, d = e["type"], e["table"], e["data"]
        score_a, score_b = int(d["score"]["a"]), int(d["score"]["b"])
        if max(score_a, score_b) < m.length:
            return False  # a correction within the match: its match.ended decides
        if kind == "score.corrected":
            forfeit = m.result.forfeit if m.result is not None else False
        else:
            forfeit = d.get("how") in ("forfeit", "lateness")
        actor = f"table {table}"
        match_id = m.id
        if not stale and m.result is None:
            if kind != "match.ended":
                return False  # the match.ended that follows records it
            self._apply(
                lambda club, now: club.tournaments[tid].record_result(
                    match_id,
                    score_a,
                    score_b,
                    forfeit=forfeit,
                    source="table",
                    actor=actor,
                    now=now,
                )
            )
            return True
        r = m.result
        if r is not None and (r.score_a, r.score_b, r.forfeit) == (score_a, score_b, forfeit):
            return False  # the same result again
        # A result from a table that no longer holds the match, or a second result for a
        # decided one: a recorded result changes only by the director's decision.
        if r is None:
            holder = m.table if m.status in ("assigned", "playing") else None
            reason = text(self.language, "conflict_stale_table", table=table, holder=holder or "—")
        else:
            reason = text(self.language, "conflict_second_result", table=table)
        out = self._apply(
            lambda club, now: club.tournaments[tid].table_conflict(
                match_id,
                score_a,
                score_b,
                forfeit=forfeit,
                actor=actor,
                now=now,
                reason=reason,
            )
        )
        if out.conflict is not None:
            self._count("table_conflicts", reason="stale" if stale else "second_result")
            log.warning(
                "table %s: %s %d-%d for %s not applied, conflict %s: %s",
                table,
                kind,
                score_a,
                score_b,
                match_id,
                out.conflict.id,
                reason,
            )
        return True

    def _on_contradiction(self, e: CommittedEvent, tid: str, m: Match) -> bool:
        """A match.ended the hub refused (its winner against its score, or a score the match
        could not give): never a result. A score a match could end with becomes a conflict
        for the director to decide; one no match could end with is only counted and logged
        (the grid's card shows the refusal)."""
        table, d = e["table"], e["data"]
        score_a, score_b = int(d["score"]["a"]), int(d["score"]["b"])
        match_id = m.id
        try:
            validate_score(m.length, score_a, score_b)
        except TournamentError as err:
            self._count("table_conflicts", reason="impossible_result")
            log.warning("table %s: impossible %d-%d for %s refused: %s",
                        table, score_a, score_b, match_id, err)  # fmt: skip
            return False
        reason = text(self.language, "conflict_contradictory", table=table,
                      winner=str(d.get("winner")), a=score_a, b=score_b)  # fmt: skip
        self._apply(
            lambda club, now: club.tournaments[tid].table_conflict(
                match_id, score_a, score_b, actor=f"table {table}", now=now, reason=reason
            )
        )
        self._count("table_conflicts", reason="contradictory_result")
        log.warning("table %s: contradictory match.ended %d-%d for %s: conflict for the director",
                    table, score_a, score_b, match_id)  # fmt: skip
        return True

    def _epoch_from_store(self, table: str, epoch: int) -> list[str] | None:
        """The match behind ``table``'s *current* assignment epoch, from the hub's store, for
        an epoch the desk's own record lacks (the hub stopped between publishing the
        assignment and saving that record): the table's result must not be lost for it."""
        if self.hub is None:
            return None
        for row in self.hub.store.assignments():
            args = row.get("args") or {}
            mid = args.get("match_id")
            if row.get("table") != table or row.get("epoch") != epoch:
                continue
            # Match codes repeat across events (G1-1 in the open and in novatos): the one the
            # club has at this table is the one the assignment gave it.
            held = [
                t.id
                for t in self.open_tournaments()
                if mid in t.matches and t.matches[mid].table == table
            ]
            if len(held) == 1:
                found = [held[0], table, str(mid)]
                self._meta["epochs"][str(epoch)] = found
                self._save_meta()
                return found
        return None

    def _count(self, name: str, **labels: str) -> None:
        if self.hub is not None:
            self.hub.metrics.inc(name, 1, **labels)

    # ── helpers for the web layer ────────────────────────────────────────
    def match_at(self, table: str) -> Match | None:
        """The match (of any event) assigned to or playing at ``table`` now, if any."""
        held = self.event_at(table)
        return None if held is None else held[1]

    def event_at(self, table: str) -> tuple[Tournament, Match] | None:
        """The event and match assigned to or playing at ``table`` now, if any."""
        for t in self.open_tournaments():
            for m in t.matches.values():
                if m.table == table and m.status in ("assigned", "playing"):
                    return t, m
        return None

