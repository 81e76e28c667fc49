"""Season (HGV 8): annual ranking and its tie-breaks, prizes, historic, friendlies, seeding."""

from __future__ import annotations

from datetime import date

from mesa.tournament.season import (
    PlayerResult,
    Ranking,
    RankingEntry,
    SeasonBook,
    TournamentRecord,
)


def rec(tid: str, day: date, results: list[tuple[str, int, tuple[int, int] | None]], *,
        official: bool = True, category: str = "open") -> TournamentRecord:
    return TournamentRecord(tid, tid, day, category, official, tuple(
        PlayerResult(p, p.upper(), pts, place, 0) for p, pts, place in results))


def test_ties_go_to_tournaments_won_then_finals() -> None:
    book = SeasonBook()
    book.add_record(rec("T1", date(2014, 1, 31), [("a", 230, (1, 1)), ("b", 130, (2, 2)),
                                                  ("c", 100, (3, 4))]))
    book.add_record(rec("T2", date(2014, 2, 28), [("b", 100, (2, 2)), ("c", 230, (1, 1)),
                                                  ("d", 330, (3, 4))]))
    r = book.annual_ranking(2014)
    assert [(e.player_id, e.points, e.won, e.finals, e.position) for e in r.entries] == [
        ("c", 330, 1, 1, 1), ("d", 330, 0, 0, 2), ("a", 230, 1, 1, 3), ("b", 230, 0, 2, 4)]


def test_equal_on_everything_shares_the_position() -> None:
    book = SeasonBook()
    book.add_record(rec("T1", date(2014, 1, 31), [("x", 18, (17, 30)), ("y", 18, (17, 30))]))
    assert [e.position for e in book.annual_ranking(2014).entries] == [1, 1]


def test_friendlies_do_not_count_and_categories_are_separate() -> None:
    book = SeasonBook()
    book.add_record(rec("T1", date(2014, 1, 31), [("a", 100, None)]))
    book.add_record(rec("V1", date(2014, 7, 1), [("a", 200, (1, 1))], official=False))
    book.add_record(rec("N1", date(2014, 1, 31), [("n", 230, (1, 1))], category="novatos"))
    assert book.annual_ranking(2014).points() == {"a": 100}
    assert book.annual_ranking(2014, "novatos").points() == {"n": 230}
    assert book.historic_ranking().points() == {"a": 100}
    assert "V1" in book.records  # kept, not counted


def test_prize_needs_six_of_ten() -> None:
    book = SeasonBook()
    assert book.prize_minimum == 6
    for month in range(1, 11):
        players = [("regular", 50, None)] + ([("rare", 90, None)] if month <= 5 else [])
        book.add_record(rec(f"T{month}", date(2014, month, 28), players))
    entries = {e.player_id: e for e in book.annual_ranking(2014).entries}
    assert entries["regular"].eligible and entries["regular"].tournaments == 10
    assert not entries["rare"].eligible and entries["rare"].tournaments == 5
    assert SeasonBook(planned_tournaments=9).prize_minimum == 6  # 5.4 rounds up


def test_historic_spans_seasons_and_imported_bases() -> None:
    book = SeasonBook()
    book.set_base(2013, "open", Ranking("2013", "open", (
        RankingEntry(1, "a", "A", 900, 9, 2, 3),)))
    book.add_record(rec("T1", date(2014, 1, 31), [("a", 100, (1, 1)), ("b", 50, None)]))
    h = book.historic_ranking()
    assert [(e.player_id, e.points, e.tournaments, e.won) for e in h.entries] == [
        ("a", 1000, 10, 3), ("b", 50, 1, 0)]


def test_seeding_uses_the_last_official_ranking() -> None:
    book = SeasonBook()
    book.set_base(2013, "open", Ranking("2013", "open", (RankingEntry(1, "old", "O", 500),)))
    # first tournament of 2014: last season's final ranking
    assert book.seeding_points("open", date(2014, 1, 31)) == {"old": 500}
    book.add_record(rec("T1", date(2014, 1, 31), [("a", 230, (1, 1))]))
    book.add_record(rec("V1", date(2014, 2, 10), [("b", 230, (1, 1))], official=False))
    # later: the season so far (friendlies excluded), only tournaments before this one
    assert book.seeding_points("open", date(2014, 2, 28)) == {"a": 230}
    assert book.seeding_points("open", date(2014, 1, 31)) == {"old": 500}


def test_round_trip() -> None:
    book = SeasonBook(planned_tournaments=11)
    book.set_base(2013, "open", Ranking("2013", "open", (RankingEntry(1, "a", "A", 5),)))
    book.add_record(rec("T1", date(2014, 1, 31), [("a", 100, (1, 1))]))
    assert SeasonBook.from_dict(book.to_dict()) == book
