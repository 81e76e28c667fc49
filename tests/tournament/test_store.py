"""The SQLite repository, on real temporary files."""

from __future__ import annotations

import random
import sqlite3
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path

import pytest

from mesa.tournament.club import Club
from mesa.tournament.errors import TournamentError
from mesa.tournament.store import TournamentStore


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "hub.sqlite3"


def played_club(h, n: int = 9) -> Club:
    club = Club()
    for i in range(n):
        club.registry.add_new(f"J{i:02d}", card_ids=(f"CARD{i}",))
    t = club.create_tournament("2014-01", "Enero", date(2014, 1, 31))
    now = datetime(2014, 1, 31, 19)
    for p in club.registry:
        club.register(t.id, p.id, now=now)
    club.start(t.id, seed=1, now=now)
    club.withdraw(t.id, "P0009", "left", now=now)
    h.play(t, random.Random(1), clock=h.Clock(now))
    club.close(t.id, now=now.replace(hour=23))
    club.import_ranking("name,points\nJ00,1\n", year=2013)
    return club


def test_pragmas_and_prefixed_tables(path: Path) -> None:
    with TournamentStore(path) as store:
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        names = [r[0] for r in store.db.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")]
        assert names and all(n.startswith("t_") for n in names)


def test_club_survives_a_reopen(h, path: Path) -> None:
    club = played_club(h)
    with TournamentStore(path) as store:
        store.save_club(club)
    with TournamentStore(path) as store:  # a new connection on the same file
        back = store.load_club()
        assert back.to_dict() == club.to_dict()
        assert store.player_by_card("card3") == "P0004"
        assert store.player_by_card("nope") is None
        assert store.tournament_ids() == ["2014-01"]


def test_audit_is_append_only(h, path: Path) -> None:
    club = played_club(h)
    t = club.tournament("2014-01")
    with TournamentStore(path) as store:
        assert store.save_tournament(t) == len(t.audit)
        assert store.save_tournament(t) == 0  # nothing new
        r = t.match("G1-1").result
        t.correct_result("G1-1", r.score_b, r.score_a, now=datetime(2014, 2, 1))
        assert store.save_tournament(t) >= 1
        assert [a.seq for a in store.audit(t.id)] == list(range(1, len(t.audit) + 1))
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store.db.execute("UPDATE t_audit SET actor='x'")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store.db.execute("DELETE FROM t_audit")
        old = store.load_tournament(t.id)
        old.audit = old.audit[:3]
        with pytest.raises(TournamentError) as e:
            store.save_tournament(old)
        assert e.value.code == "audit_rewrite"
        assert len(store.audit(t.id)) == len(t.audit)
        with pytest.raises(TournamentError):
            store.load_tournament("nope")


def test_failed_save_changes_nothing(h, path: Path) -> None:
    club = played_club(h)
    t = club.tournament("2014-01")
    with TournamentStore(path) as store:
        store.save_tournament(t)
        phase = store.db.execute("SELECT phase FROM t_tournaments").fetchone()[0]
        forged = store.load_tournament(t.id)
        last = forged.audit[-1]
        forged.audit = [*forged.audit[:-1], replace(last, action="forged")]
        forged.phase = "groups"
        with pytest.raises(TournamentError):
            store.save_tournament(forged)
        assert store.db.execute("SELECT phase FROM t_tournaments").fetchone()[0] == phase


def test_pieces_separately(h, path: Path) -> None:
    club = played_club(h)
    with TournamentStore(path) as store:
        store.save_registry(club.registry)
        store.save_season(club.season)
        store.save_ratings(club.ratings)
        assert store.load_registry() == club.registry
        assert store.load_season() == club.season
        assert store.load_ratings().to_dict() == club.ratings.to_dict()
