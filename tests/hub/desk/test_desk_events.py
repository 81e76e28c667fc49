"""Several events on shared tables (RULES §4): the desk runs every open tournament at once,
a player is never at two tables, and a player seated at another game's table waits."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from mesa.hub.desk.games.backgammon import TournamentDesk
from mesa.hub.desk.venue import Seat, Venue
from mesa.hub.ingest.app import Hub
from support.hubkit import NOW, TODAY, FakeTable


def _desk(hub: Hub, **kw: Any) -> TournamentDesk:
    return TournamentDesk(hub.settings.db, hub=hub, now=lambda: NOW, **kw)


def _two_events(desk: TournamentDesk, shared: str = "ANA") -> dict[str, str]:
    """An open tournament and a novatos one on the same evening, ``shared`` in both."""
    ids: dict[str, str] = {}

    def run(club: Any, now: datetime) -> None:
        club.create_tournament("open", "Open", TODAY)
        club.create_tournament("nov", "Novatos", TODAY, category="novatos")
        ids[shared] = club.registry.add_new(shared).id
        for name in ("BEA", "EVA", "IVO"):
            ids[name] = club.registry.add_new(name).id
        for name in ("LUZ", "MAR", "NOE"):
            ids[name] = club.registry.add_new(name, category="novatos").id
        for name in (shared, "BEA", "EVA", "IVO"):
            club.register("open", ids[name], now=now)
        for name in (shared, "LUZ", "MAR", "NOE"):
            club.register("nov", ids[name], now=now, override=True)
        club.start("open", seed=5, now=now)
        club.start("nov", seed=5, now=now)

    desk.call(run)
    return ids


def _online(hub: Hub, ids: list[str]) -> list[FakeTable]:
    out = []
    for tid in ids:
        hub.register_table(tid)
        t = FakeTable(hub, tid)
        t.online()
        out.append(t)
    return out


def _seated(desk: TournamentDesk) -> list[tuple[str, str, str]]:
    return desk.read(
        lambda club: [
            (t.id, m.table, p)
            for t in club.tournaments.values()
            for m in t.matches.values()
            if m.status in ("assigned", "playing")
            for p in m.players
        ]
    )


def test_both_events_share_the_tables_and_no_player_sits_twice(hub: Hub) -> None:
    _online(hub, ["1", "2", "3", "4"])
    desk = _desk(hub)
    _two_events(desk)
    assert desk.sync() is True
    seated = _seated(desk)
    players = [p for _, _, p in seated]
    assert len(players) == len(set(players)), seated
    assert {tid for tid, _, _ in seated} == {"open", "nov"}, "both events play"
    tables = {(tid, table) for tid, table, _ in seated}
    assert len({table for _, table in tables}) == len(tables), "one match per table"
    # Every seat is the venue's: another game's desk sees them.
    busy = desk.venue.busy(besides="domino")
    assert {s.player for s in busy.values()} == set(players)
    assert {s.event for s in busy.values()} == {"open", "nov"}
    desk.close()


def test_a_player_at_another_games_table_waits_and_is_called_when_free(hub: Hub) -> None:
    _online(hub, ["1", "2", "3", "4"])
    venue = Venue()
    desk = _desk(hub, venue=venue)
    ids = _two_events(desk)
    everyone = set(ids.values())
    # Everyone but one novato sits at the domino room: nothing can start.
    venue.publish(
        "domino",
        [Seat(p, "d1", "D1", "Dominó", "domino") for p in everyone - {ids["NOE"]}],
    )
    desk.sync()
    assert _seated(desk) == []
    venue.publish("domino", [])  # the domino game is recorded: the venue wakes the desk
    deadline = datetime.now().timestamp() + 10
    while not _seated(desk) and datetime.now().timestamp() < deadline:
        desk.sync()
    assert _seated(desk), "the waiting matches start the moment the players are free"
    desk.close()


def test_reserved_tables_serve_only_their_event(hub: Hub) -> None:
    _online(hub, ["1", "2", "3", "4"])
    desk = _desk(hub)

    def run(club: Any, now: datetime) -> None:
        from mesa.tournament.settings import TournamentSettings

        club.create_tournament("open", "Open", TODAY)
        club.create_tournament(
            "nov", "Novatos", TODAY, category="novatos",
            settings=TournamentSettings(reserved_tables=("4",)),
        )
        for i in range(8):
            club.register("open", club.registry.add_new(f"O{i}").id, now=now)
        for i in range(4):
            club.register("nov", club.registry.add_new(f"N{i}", category="novatos").id, now=now)
        club.start("open", seed=1, now=now)
        club.start("nov", seed=1, now=now)

    desk.call(run)
    desk.sync()
    seated = _seated(desk)
    assert all(tid == "nov" for tid, table, _ in seated if table == "4"), seated
    assert any(table == "4" for _, table, _ in seated), "the reserved table is used"
    desk.close()


def test_a_result_reaches_its_own_event_when_match_codes_repeat(hub: Hub) -> None:
    tables = _online(hub, ["1", "2"])
    desk = _desk(hub)
    _two_events(desk, shared="ZOE")
    desk.sync()
    for t in tables:
        t.serve()
    held = {table: (tid, mid) for tid, table, mid in desk.read(
        lambda club: [(t.id, m.table, m.id) for t in club.tournaments.values()
                      for m in t.matches.values() if m.status == "assigned"])}
    table = tables[0]
    tid, mid = held[table.id]
    table.apply("press", {"side": "a"})
    table.apply("press", {"side": "b"})
    while table.table.state != "match_over":
        table.apply("press", {"side": "b"})
        table.apply("claim", {"side": "a", "winner": "a", "kind": 1})
        table.apply("confirm", {"side": "b"})
    desk.sync()
    results = desk.read(lambda club: {
        t.id: [m.id for m in t.matches.values() if m.result is not None]
        for t in club.tournaments.values()})
    assert results[tid] == [mid]
    other = next(x for x in results if x != tid)
    assert results[other] == [], "the same code in the other event is untouched"
    desk.close()


def test_a_player_seated_in_an_event_with_nothing_ready_is_not_called_by_another(
    hub: Hub,
) -> None:
    # The novatos event's only match is playing (nothing of it is ready): its players are
    # still seated, and the open event's match with the same player waits for them.
    _online(hub, ["1", "2", "3"])
    desk = _desk(hub)
    ids: dict[str, str] = {}

    def run(club: Any, now: datetime) -> None:
        club.create_tournament("open", "Open", TODAY)
        club.create_tournament("nov", "Novatos", TODAY, category="novatos")
        for name in ("ANA", "BEA"):
            ids[name] = club.registry.add_new(name).id
        ids["LUZ"] = club.registry.add_new("LUZ", category="novatos").id
        club.register("nov", ids["ANA"], now=now, override=True)
        club.register("nov", ids["LUZ"], now=now)
        club.start("nov", seed=5, now=now)

    desk.call(run)
    desk.sync()
    assert {p for _, _, p in _seated(desk)} == {ids["ANA"], ids["LUZ"]}

    def later(club: Any, now: datetime) -> None:
        for name in ("ANA", "BEA"):
            club.register("open", ids[name], now=now)
        club.start("open", seed=5, now=now)

    desk.call(later)
    desk.sync()
    seated = _seated(desk)
    players = [p for _, _, p in seated]
    assert len(players) == len(set(players)), seated
    assert all(tid == "nov" for tid, _, _ in seated), "ANA is at the novatos' table"
    desk.close()


def test_the_directors_assign_refuses_a_player_or_table_of_another_event(hub: Hub) -> None:
    import pytest

    from mesa.tournament.errors import TableError

    _online(hub, ["1", "2", "3", "4"])
    desk = _desk(hub, auto_assign=False)
    ids = _two_events(desk)

    def first(club: Any, now: datetime) -> tuple[str, str]:
        m = next(m for m in club.tournaments["nov"].ready_matches() if ids["ANA"] in m.players)
        desk.assign_match(club.tournaments["nov"], m.id, "1", now, "director")
        o = next(m for m in club.tournaments["open"].ready_matches() if ids["ANA"] in m.players)
        free = next(m for m in club.tournaments["open"].ready_matches() if ids["ANA"] not in m.players)
        return o.id, free.id

    with_ana, without = desk.call(first)
    with pytest.raises(TableError) as busy:
        desk.call(lambda club, now: desk.assign_match(
            club.tournaments["open"], with_ana, "2", now, "director"))
    assert busy.value.reason == "players_busy"
    with pytest.raises(TableError) as table:
        desk.call(lambda club, now: desk.assign_match(
            club.tournaments["open"], without, "1", now, "director"))
    assert table.value.reason == "table_busy"
    desk.call(lambda club, now: desk.assign_match(
        club.tournaments["open"], without, "2", now, "director"))
    players = [p for _, _, p in _seated(desk)]
    assert len(players) == len(set(players)) == 4
    desk.close()


def test_a_match_moved_onto_a_table_another_event_holds_is_refused(hub: Hub) -> None:
    import pytest

    from mesa.tournament.errors import TableError

    _online(hub, ["1", "2", "3", "4"])
    desk = _desk(hub)
    _two_events(desk)
    desk.sync()
    held = {table: (tid, mid) for tid, table, mid in desk.read(lambda club: [
        (t.id, m.table, m.id) for t in club.tournaments.values() for m in t.matches.values()
        if m.status == "assigned"])}  # fmt: skip
    nov_table = next(table for table, (tid, _) in held.items() if tid == "nov")
    open_table, (_, open_match) = next((x, h) for x, h in held.items() if h[0] == "open")

    def move(club: Any, now: datetime) -> None:
        a = club.tournaments["open"].move_match(open_match, nov_table, actor="director", now=now)
        desk.publish_assignment(club.tournaments["open"], a, now)

    with pytest.raises(TableError) as refused:
        desk.call(move)
    assert refused.value.reason == "table_busy"
    assert desk.read(lambda club: club.tournaments["open"].match(open_match).table) == open_table
    desk.close()


def test_the_directors_assign_refuses_a_domino_table(hub: Hub) -> None:
    import pytest

    from mesa.tournament.errors import TableError
    from support.dominokit import FakeDominoTable

    _online(hub, ["1"])
    FakeDominoTable(hub, "d1").online()
    desk = _desk(hub, auto_assign=False)
    _two_events(desk)

    def assign(club: Any, now: datetime) -> None:
        m = club.tournaments["open"].ready_matches()[0]
        desk.assign_match(club.tournaments["open"], m.id, "d1", now, "director")

    with pytest.raises(TableError) as refused:
        desk.call(assign)
    assert refused.value.reason == "table_other_game"
    assert desk.read(lambda club: [m.table for m in club.tournaments["open"].matches.values()
                                   if m.table]) == []  # fmt: skip
    desk.close()


def test_two_desks_seating_at_once_never_seat_one_player_twice(hub: Hub, monkeypatch: Any) -> None:
    """The domino desk checks the venue and seats while this desk is planning: the venue's
    hold makes it wait for this plan's seats, so it sees them (a reviewer's race)."""
    import threading
    import time

    import mesa.hub.desk.games.backgammon as bg

    _online(hub, ["1", "2", "3", "4"])
    desk = _desk(hub, auto_assign=False)
    ids = _two_events(desk)
    venue = desk.venue
    planning = threading.Event()
    real = bg.plan_evening

    def slow_plan(*a: Any, **kw: Any) -> Any:
        planning.set()
        time.sleep(0.3)  # the other desk's thread tries to seat now
        return real(*a, **kw)

    seated_at_domino: list[str] = []

    def domino_desk() -> None:
        planning.wait(5)
        with venue.seating():  # what DominoDesk.start_round does: check, seat, publish
            if ids["ANA"] not in venue.busy(besides="domino"):
                venue.publish("domino", [Seat(ids["ANA"], "d1", "D1", "Dominó", "domino")])
                seated_at_domino.append(ids["ANA"])

    monkeypatch.setattr(bg, "plan_evening", slow_plan)
    other = threading.Thread(target=domino_desk)
    other.start()
    desk.auto_assign = True
    desk.sync()
    other.join(5)
    at_backgammon = {p for _, _, p in _seated(desk)}
    assert ids["ANA"] in at_backgammon | set(seated_at_domino)
    assert not at_backgammon & set(seated_at_domino), "a player at two tables"
    desk.close()


def test_an_older_event_still_open_takes_no_table_unasked(hub: Hub) -> None:
    """Last month's tournament, reopened by a late correction (or never closed), must not
    take tonight's tables: only the evening's events are handed tables by the desk."""
    from datetime import timedelta

    _online(hub, ["1", "2", "3", "4"])
    desk = _desk(hub)

    def run(club: Any, now: datetime) -> None:
        club.create_tournament("old", "Noviembre", TODAY - timedelta(days=28))
        club.create_tournament("tonight", "Diciembre", TODAY)
        for tid, names in (("old", ["A1", "A2", "A3", "A4"]), ("tonight", ["B1", "B2", "B3"])):
            for n in names:
                club.register(tid, club.registry.add_new(n).id, now=now)
            club.start(tid, seed=2, now=now)

    desk.call(run)
    desk.sync()
    assert {tid for tid, _, _ in _seated(desk)} == {"tonight"}
    assert [t.id for t in desk.read(lambda club: desk.evening_events())] == ["tonight"]
    desk.close()
