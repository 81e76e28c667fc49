"""The club: seeding from the season, sanctions across tournaments, closing, categories."""

from __future__ import annotations

import json
import random
from datetime import date, datetime

import pytest

from mesa.tournament.club import Club
from mesa.tournament.errors import SanctionedError, TournamentError


def club_with(n: int, category: str = "open") -> Club:
    club = Club()
    for i in range(n):
        club.registry.add_new(f"{category[0].upper()}{i + 1:02d}", category=category,
                              card_ids=(f"C{category[0]}{i}",))
    return club


def run(h, club: Club, tid: str, day: date, *, seed: int, official: bool = True,
        category: str = "open", players=None) -> None:
    t = club.create_tournament(tid, tid, day, official=official, category=category)
    now = datetime.combine(day, datetime.min.time()).replace(hour=19)
    for p in players or [p.id for p in club.registry if p.category == category]:
        club.register(tid, p, now=now)
    club.start(tid, seed=seed, now=now)
    h.play(t, random.Random(seed), clock=h.Clock(now))
    club.close(tid, now=now.replace(hour=23))


def test_a_season(h) -> None:
    club = club_with(12)
    run(h, club, "2014-01", date(2014, 1, 31), seed=1)
    jan = club.tournament("2014-01")
    champion = jan.champion
    # February is seeded by January's ranking (the season so far)
    feb = club.create_tournament("2014-02", "Febrero", date(2014, 2, 28))
    now = datetime(2014, 2, 28, 19)
    for p in club.registry:
        club.register(feb.id, p.id, now=now)
    club.start(feb.id, seed=2, now=now)
    jan_points = {r.player_id: r.total for r in jan.final_list()}
    order = feb.seeding.order
    assert [jan_points[p] for p in order] == sorted(jan_points.values(), reverse=True)
    assert order[0] == champion
    ranking = club.annual_ranking(2014)
    assert ranking.entries[0].player_id == champion and ranking.entries[0].won == 1
    assert len(club.ratings.players) == 12 and "2014-01" in club.ratings.applied


def test_sanction_bars_the_next_tournament_and_is_then_served(h) -> None:
    club = club_with(6)
    t = club.create_tournament("2014-01", "Enero", date(2014, 1, 31))
    now = datetime(2014, 1, 31, 19)
    for p in club.registry:
        club.register(t.id, p.id, now=now)
    club.start(t.id, seed=3, now=now)
    club.withdraw(t.id, "P0004", "left", now=now)
    assert club.registry.pending_sanctions("P0004", "2014-02")
    h.play(t, random.Random(3), clock=h.Clock(now))
    club.close(t.id, now=now.replace(hour=23))
    feb = club.create_tournament("2014-02", "Febrero", date(2014, 2, 28))
    with pytest.raises(SanctionedError):
        club.register(feb.id, "P0004", now=now)
    with pytest.raises(SanctionedError):
        club.register_card(feb.id, "co3", now=now)  # a card reader cannot override
    for p in ("P0001", "P0002", "P0003"):
        club.register(feb.id, p, now=now)
    club.start(feb.id, seed=4, now=datetime(2014, 2, 28, 19))
    assert club.registry.sanctions[0].served_in == "2014-02"
    mar = club.create_tournament("2014-03", "Marzo", date(2014, 3, 28))
    club.register(mar.id, "P0004", now=now)  # served: free again


def test_friendly_and_beginners(h) -> None:
    club = club_with(6)
    for i in range(4):
        club.registry.add_new(f"NOVATO {i}", category="novatos")
    run(h, club, "2014-07", date(2014, 7, 15), seed=5, official=False)
    run(h, club, "N-2014-01", date(2014, 1, 31), seed=6, category="novatos")
    assert club.annual_ranking(2014).entries == ()
    assert len(club.annual_ranking(2014, "novatos").entries) == 4
    assert club.historic_ranking("novatos").entries[0].points >= 210


def test_import_ranking_seeds_the_first_tournament(h) -> None:
    club = club_with(4)
    club.import_ranking("nombre;puntos\nO04;5,00\nO03;4,00\n", year=2013)
    t = club.create_tournament("2014-01", "Enero", date(2014, 1, 31))
    now = datetime(2014, 1, 31, 19)
    for p in club.registry:
        club.register(t.id, p.id, now=now)
    club.start(t.id, seed=9, now=now)
    assert t.seeding.order[:2] == ["P0004", "P0003"]


def test_refresh_after_a_late_correction(h) -> None:
    club = club_with(6)
    run(h, club, "2014-01", date(2014, 1, 31), seed=7)
    t = club.tournament("2014-01")
    with pytest.raises(TournamentError):
        club.create_tournament("2014-01", "again", date(2014, 1, 31))
    m = t.match("G1-1")
    t.correct_result("G1-1", m.result.score_a, m.result.score_b, forfeit=True,
                     now=datetime(2014, 2, 1))
    record = club.refresh("2014-01")
    assert record.results and club.season.records["2014-01"] == record


def test_round_trip(h) -> None:
    club = club_with(6)
    run(h, club, "2014-01", date(2014, 1, 31), seed=8)
    back = Club.from_dict(json.loads(json.dumps(club.to_dict())))
    assert back.to_dict() == club.to_dict()
    with pytest.raises(TournamentError):
        back.tournament("nope")


@pytest.mark.parametrize("bad", ["../etc", "a/b", "", "x" * 65, "ñu", "a..b", ".x", "<b>"])
def test_a_tournament_id_that_would_name_a_path_is_refused(bad: str) -> None:
    club = Club()
    with pytest.raises(TournamentError) as err:
        club.create_tournament(bad, "Marzo", date(2026, 12, 4))
    assert err.value.reason == "tournament_id"
    assert club.tournaments == {}


def test_the_usual_ids_are_fine() -> None:
    club = Club()
    for tid in ("2026-12-04", "2026-12-04-novatos", "2026-12-04-2", "x0", "T"):
        club.create_tournament(tid, "Marzo", date(2026, 12, 4))
    assert len(club.tournaments) == 5
