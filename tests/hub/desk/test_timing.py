"""The evening against the clock as the desk sees it: the pace of a match under way from its
table's live score, and every event's forecast, made again as the evening moves."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from mesa.hub.desk.games.backgammon import TournamentDesk
from mesa.hub.desk.timing import evening_time
from mesa.hub.ingest.app import Hub
from support.hubkit import NOW, TODAY, FakeTable


def _events(desk: TournamentDesk) -> None:
    def run(club: Any, now: datetime) -> None:
        club.create_tournament("open", "Open", TODAY)
        club.create_tournament("nov", "Novatos", TODAY, category="novatos")
        for i in range(6):
            club.register("open", club.registry.add_new(f"O{i}").id, now=now)
        for i in range(4):
            club.register("nov", club.registry.add_new(f"N{i}", category="novatos").id, now=now)
        club.start("open", seed=1, now=now)
        club.start("nov", seed=1, now=now)

    desk.call(run)


def test_a_match_under_way_has_its_pace_and_every_event_its_final(hub: Hub) -> None:
    clock = {"now": NOW}
    tables = []
    for tid in ("1", "2", "3"):
        hub.register_table(tid)
        t = FakeTable(hub, tid)
        t.online()
        tables.append(t)
    desk = TournamentDesk(hub.settings.db, hub=hub, now=lambda: clock["now"])
    _events(desk)
    desk.sync()
    for t in tables:
        t.serve()
    first = tables[0]
    first.apply("press", {"side": "a"})
    first.apply("press", {"side": "b"})  # both checked in: the match starts
    desk.sync()
    et = desk.read(lambda club: desk.evening_time())
    playing = [(e, mid) for e, ms in et.paces.items() for mid in ms]
    assert len(playing) == 1, et.paces
    event, mid = playing[0]
    pace = et.pace(event, mid)
    assert pace is not None and not pace.flagged and pace.elapsed_s == 0
    assert set(et.events) == {"open", "nov"}
    for e in et.events.values():
        assert e["final_start"] is not None and e["finish"] is not None
        assert e["final_start"] >= NOW.isoformat()
    assert et.match(event, mid) is not None
    # Forty minutes later still 0-0 (a 3-point match): behind by more than a point's norm.
    clock["now"] = NOW + timedelta(minutes=40)
    later = desk.read(lambda club: desk.evening_time())
    slow = later.pace(event, mid)
    assert slow is not None and slow.behind_s > 0
    # The table runs a clock (the desk's default timed="all"): a match on the clock is
    # bounded already and never flagged.
    assert not slow.flagged and slow.bound_s is not None
    desk.close()


def test_without_tables_there_are_paces_but_no_forecast() -> None:
    from datetime import date

    from mesa.tournament.club import Club

    club = Club()
    club.create_tournament("T", "T", date(2026, 12, 4))
    for n in ("ANA", "BEA", "EVA"):
        club.register("T", club.registry.add_new(n).id, now=NOW)
    club.start("T", seed=1, now=NOW)
    et = evening_time(list(club.tournaments.values()), [], NOW, tables=[])
    assert et.events == {} and et.paces == {}


def _one_match_at_1_0() -> tuple[Any, Any, list[dict[str, Any]]]:
    """A two-player tournament whose only match is under way at table 1, reported at 1-0."""
    from datetime import date

    from mesa.tournament.club import Club

    club = Club()
    club.create_tournament("T", "T", date(2026, 12, 4))
    for n in ("ANA", "BEA"):
        club.register("T", club.registry.add_new(n).id, now=NOW)
    club.start("T", seed=1, now=NOW)
    t = club.tournament("T")
    m = next(iter(t.matches.values()))
    t.assign_tables(["1"], now=NOW)
    t.match_started(m.id, now=NOW)
    return t, m, [{"table": "1", "match_id": m.id, "score": {"a": 1, "b": 0}, "reserve": {}}]


def test_an_untimed_match_behind_the_norm_is_flagged() -> None:
    t, m, live = _one_match_at_1_0()
    et = evening_time([t], live, NOW + timedelta(minutes=45), tables=["1"])
    pace = et.pace("T", m.id)
    assert pace is not None and pace.flagged  # 1-0 after 45 minutes of a 3-point match
    assert et.events["T"]["final_start"] is not None


def test_in_the_demos_accelerated_time_the_pace_is_the_tables_and_the_times_the_hubs() -> None:
    t, m, live = _one_match_at_1_0()
    # Ten table seconds a hub second: 4.5 hub minutes are 45 table minutes at 1-0.
    et = evening_time([t], live, NOW + timedelta(minutes=4.5), tables=["1"], rate=10.0)
    pace = et.pace("T", m.id)
    assert pace is not None and pace.flagged and pace.elapsed_s == 45 * 60
    assert pace.expected_remaining_s < 5 * 60  # a few hub minutes, not table ones
    final = et.events["T"]["final_start"]
    assert final is not None and final < (NOW + timedelta(minutes=30)).isoformat()
