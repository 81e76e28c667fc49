"""A small SQLite repository for the club: players, rankings, tournaments and their audit.

WAL journal and ``synchronous=FULL`` (a committed result survives a power cut); the tables are
prefixed ``t_`` so they can share the hub's database file. Tournament state is stored as JSON;
the audit is a separate append-only table (triggers refuse UPDATE and DELETE).

>>> import tempfile, os
>>> from datetime import date
>>> path = os.path.join(tempfile.mkdtemp(), "club.sqlite3")
>>> with TournamentStore(path) as store:
...     reg = PlayerRegistry(); _ = reg.add_new("ALEX", card_ids=("04A1",))
...     store.save_registry(reg)
...     store.load_registry().by_card("04a1").name
'ALEX'
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from mesa.tournament.club import Club
from mesa.tournament.errors import TournamentError
from mesa.tournament.players import PlayerRegistry, normalize_card
from mesa.tournament.rating import PlayerRating, RatingBook, RatingChange
from mesa.tournament.records import AuditEntry
from mesa.tournament.season import Ranking, SeasonBook, TournamentRecord
from mesa.tournament.tournament import Tournament

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS t_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS t_players (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS t_player_cards (
    card_id TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES t_players(id) ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS t_sanctions (
    id TEXT PRIMARY KEY, player_id TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS t_rankings (
    year INTEGER NOT NULL, category TEXT NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (year, category));
CREATE TABLE IF NOT EXISTS t_records (
    tournament_id TEXT PRIMARY KEY, held_on TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS t_ratings (player_id TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS t_tournaments (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, held_on TEXT NOT NULL, category TEXT NOT NULL,
    official INTEGER NOT NULL, phase TEXT NOT NULL, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS t_audit (
    tournament_id TEXT NOT NULL, seq INTEGER NOT NULL, at TEXT NOT NULL, actor TEXT NOT NULL,
    action TEXT NOT NULL, details TEXT NOT NULL, PRIMARY KEY (tournament_id, seq));
CREATE TRIGGER IF NOT EXISTS t_audit_no_update BEFORE UPDATE ON t_audit
    BEGIN SELECT RAISE(ABORT, 't_audit is append-only'); END;
CREATE TRIGGER IF NOT EXISTS t_audit_no_delete BEFORE DELETE ON t_audit
    BEGIN SELECT RAISE(ABORT, 't_audit is append-only'); END;
"""


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class TournamentStore:
    """Save and load the club's state; each ``save_*`` is one transaction."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.db = sqlite3.connect(self.path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)  # idempotent: IF NOT EXISTS everywhere
        with self.transaction():
            row = self.db.execute("SELECT value FROM t_meta WHERE key='schema'").fetchone()
            if row is None:
                self.db.execute("INSERT INTO t_meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) != SCHEMA_VERSION:
                raise TournamentError(f"tournament tables have schema {row[0]}, "
                                      f"this code knows {SCHEMA_VERSION}", code="bad_schema",
                                      reason="bad_schema")

    def __enter__(self) -> TournamentStore:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- players ------------------------------------------------------------------------------

    def _save_registry(self, reg: PlayerRegistry) -> None:
        db = self.db
        db.execute("DELETE FROM t_player_cards")
        ids = list(reg.players)
        db.execute(f"DELETE FROM t_players WHERE id NOT IN ({','.join('?' * len(ids))})", ids)
        for p in reg:
            db.execute("INSERT INTO t_players VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE "
                       "SET name=excluded.name, category=excluded.category, data=excluded.data",
                       (p.id, p.name, p.category, _json(p.to_dict())))
            db.executemany("INSERT INTO t_player_cards VALUES (?, ?)",
                           [(c, p.id) for c in p.card_ids])
        db.execute("DELETE FROM t_sanctions")
        db.executemany("INSERT INTO t_sanctions VALUES (?, ?, ?)",
                       [(s.id, s.player_id, _json(s.to_dict())) for s in reg.sanctions])

    def save_registry(self, reg: PlayerRegistry) -> None:
        with self.transaction():
            self._save_registry(reg)

    def load_registry(self) -> PlayerRegistry:
        players = [json.loads(r[0]) for r in
                   self.db.execute("SELECT data FROM t_players ORDER BY rowid")]
        sanctions = [json.loads(r[0]) for r in
                     self.db.execute("SELECT data FROM t_sanctions ORDER BY rowid")]
        return PlayerRegistry.from_dict({"players": players, "sanctions": sanctions})

    def player_by_card(self, card_id: str) -> str | None:
        """The player id holding a card, straight from SQL (the card reader's fast path)."""
        row = self.db.execute("SELECT player_id FROM t_player_cards WHERE card_id=?",
                              (normalize_card(card_id),)).fetchone()
        return None if row is None else str(row[0])

    # -- season and ratings -------------------------------------------------------------------

    def _save_season(self, book: SeasonBook) -> None:
        db = self.db
        db.execute("DELETE FROM t_rankings")
        db.executemany("INSERT INTO t_rankings VALUES (?, ?, ?)",
                       [(y, c, _json(r.to_dict())) for (y, c), r in book.bases.items()])
        db.execute("DELETE FROM t_records")
        db.executemany("INSERT INTO t_records VALUES (?, ?, ?)",
                       [(r.tournament_id, r.held_on.isoformat(), _json(r.to_dict()))
                        for r in book.records.values()])
        db.execute("INSERT OR REPLACE INTO t_meta VALUES ('season', ?)", (_json({
            "planned_tournaments": book.planned_tournaments,
            "min_participation_percent": book.min_participation_percent}),))

    def save_season(self, book: SeasonBook) -> None:
        with self.transaction():
            self._save_season(book)

    def load_season(self) -> SeasonBook:
        row = self.db.execute("SELECT value FROM t_meta WHERE key='season'").fetchone()
        book = SeasonBook(**json.loads(row[0])) if row else SeasonBook()
        for y, c, data in self.db.execute("SELECT year, category, data FROM t_rankings"):
            book.bases[(int(y), c)] = Ranking.from_dict(json.loads(data))
        for (data,) in self.db.execute("SELECT data FROM t_records ORDER BY held_on"):
            rec = TournamentRecord.from_dict(json.loads(data))
            book.records[rec.tournament_id] = rec
        return book

    def _save_ratings(self, book: RatingBook) -> None:
        self.db.execute("DELETE FROM t_ratings")
        self.db.executemany("INSERT INTO t_ratings VALUES (?, ?)", [
            (p, _json({"rating": r.rating, "experience": r.experience,
                       "history": [h.to_dict() for h in r.history]}))
            for p, r in book.players.items()])
        self.db.execute("INSERT OR REPLACE INTO t_meta VALUES ('ratings_applied', ?)",
                        (_json(book.applied),))

    def save_ratings(self, book: RatingBook) -> None:
        with self.transaction():
            self._save_ratings(book)

    def load_ratings(self) -> RatingBook:
        row = self.db.execute("SELECT value FROM t_meta WHERE key='ratings_applied'").fetchone()
        book = RatingBook(applied=json.loads(row[0]) if row else [])
        for p, data in self.db.execute("SELECT player_id, data FROM t_ratings"):
            d = json.loads(data)
            book.players[p] = PlayerRating(float(d["rating"]), int(d["experience"]),
                                           [RatingChange.from_dict(h) for h in d["history"]])
        return book

    # -- tournaments --------------------------------------------------------------------------

    def _save_tournament(self, t: Tournament) -> int:
        db = self.db
        state = t.to_dict()
        audit = state.pop("audit")
        db.execute("INSERT INTO t_tournaments VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO "
                   "UPDATE SET name=excluded.name, held_on=excluded.held_on, "
                   "category=excluded.category, official=excluded.official, "
                   "phase=excluded.phase, state=excluded.state",
                   (t.id, t.name, t.held_on.isoformat(), t.category, int(t.official), t.phase,
                    _json(state)))
        stored = db.execute("SELECT COALESCE(MAX(seq), 0) FROM t_audit WHERE tournament_id=?",
                            (t.id,)).fetchone()[0]
        if stored > len(audit):
            raise TournamentError(
                f"{t.id}: the store holds {stored} audit entries, this state only "
                f"{len(audit)}: refusing to lose history", code="audit_rewrite",
                reason="audit_rewrite")
        if stored:
            last = db.execute("SELECT action, at FROM t_audit WHERE tournament_id=? AND seq=?",
                              (t.id, stored)).fetchone()
            mine = audit[stored - 1]
            if (last[0], last[1]) != (mine["action"], mine["at"]):
                raise TournamentError(f"{t.id}: audit entry {stored} differs from the stored "
                                      "one: refusing to rewrite history", code="audit_rewrite",
                                      reason="audit_rewrite")
        new = audit[stored:]
        db.executemany("INSERT INTO t_audit VALUES (?, ?, ?, ?, ?, ?)",
                       [(t.id, a["seq"], a["at"], a["actor"], a["action"], _json(a["details"]))
                        for a in new])
        return len(new)

    def save_tournament(self, t: Tournament) -> int:
        """Save the state and append the audit entries not yet stored; returns how many."""
        with self.transaction():
            return self._save_tournament(t)

    def load_tournament(self, tournament_id: str) -> Tournament:
        row = self.db.execute("SELECT state FROM t_tournaments WHERE id=?",
                              (tournament_id,)).fetchone()
        if row is None:
            raise TournamentError(f"no tournament {tournament_id!r} stored",
                                  code="unknown_tournament", reason="unknown_tournament",
                                  tournament=tournament_id)
        state = json.loads(row[0])
        state["audit"] = [a.to_dict() for a in self.audit(tournament_id)]
        return Tournament.from_dict(state)

    def tournament_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT id FROM t_tournaments ORDER BY held_on, id")]

    def audit(self, tournament_id: str) -> list[AuditEntry]:
        return [AuditEntry.from_dict({"seq": seq, "at": at, "actor": actor, "action": action,
                                      "details": json.loads(details)})
                for seq, at, actor, action, details in self.db.execute(
                    "SELECT seq, at, actor, action, details FROM t_audit "
                    "WHERE tournament_id=? ORDER BY seq", (tournament_id,))]

    # -- the whole club -----------------------------------------------------------------------

    def save_club(self, club: Club) -> None:
        with self.transaction():
            self._save_registry(club.registry)
            self._save_season(club.season)
            self._save_ratings(club.ratings)
            for t in club.tournaments.values():
                self._save_tournament(t)

    def load_club(self) -> Club:
        club = Club(self.load_registry(), self.load_season(), self.load_ratings())
        for tid in self.tournament_ids():
            club.tournaments[tid] = self.load_tournament(tid)
        return club

