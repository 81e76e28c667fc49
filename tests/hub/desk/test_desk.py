"""The tournament desk: tables get matches, their results reach the tournament exactly once."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from mesa.hub.desk.games.backgammon import TournamentDesk
from mesa.hub.ingest.app import Hub
from mesa.hub.settings import HubSettings
from mesa.tournament.errors import TournamentError
from support.harness import wait_until
from support.hubkit import NOW, TODAY, FakeTable


def _desk(hub: Hub, **kw: Any) -> TournamentDesk:
    return TournamentDesk(hub.settings.db, hub=hub, now=lambda: NOW, **kw)


def _setup(desk: TournamentDesk, n: int = 6) -> None:
    def run(club: Any, now: datetime) -> None:
        club.create_tournament("T", "Marzo", TODAY)
        for i in range(n):
            club.register("T", club.registry.add_new(f"P{i}").id, now=now)
        club.start("T", seed=5, now=now)

    desk.call(run)


def _play(table: FakeTable, winner: str = "a") -> None:
    """Both players check in and the match is played out, every game to ``winner``."""
    table.apply("press", {"side": "a"})
    table.apply("press", {"side": "b"})
    while table.table.state != "match_over":
        loser = "b" if winner == "a" else "a"
        table.apply("press", {"side": loser})  # the loser rolled lower: the winner is on move
        table.apply("claim", {"side": winner, "winner": winner, "kind": 1})
        table.apply("confirm", {"side": loser})


@pytest.fixture
def tables(hub: Hub) -> list[FakeTable]:
    out = []
    for tid in ("1", "2"):
        hub.register_table(tid)
        t = FakeTable(hub, tid)
        t.online()
        out.append(t)
    return out


def test_free_tables_get_ready_matches_and_results_come_back(
    hub: Hub, tables: list[FakeTable]
) -> None:
    desk = _desk(hub)
    _setup(desk)
    assert desk.sync() is True  # two tables, two groups: one match each
    for t in tables:
        assert t.serve() == 1 and t.table.state == "assigned"
    args = hub.store.assignments()[0]["args"]
    assert args["clock"] == {"reserve": 360.0, "delay": 10.0} and args["language"] == "es"
    assert isinstance(args["scheduled_start"], float)
    _play(tables[0], "b")
    desk.sync()
    t = desk.current()
    assert t is not None
    m = next(m for m in t.matches.values() if m.table == "1")
    assert m.result is not None and (m.result.score_a, m.result.score_b) == (0, 3)
    assert m.result.source == "table" and m.result.actor == "table 1"
    # The next match of that group went to the table that is free again.
    tables[0].serve()
    assert tables[0].table.state == "assigned" and tables[0].table.s.match_id != m.id
    desk.close()
    # A restarted hub reads the same events again: nothing is applied twice.
    again = _desk(hub)
    assert again.sync() is False
    t2 = again.current()
    assert t2 is not None and sum(1 for x in t2.matches.values() if x.result) == 1
    again.close()


def test_a_table_nobody_assigned_changes_nothing(hub: Hub) -> None:
    desk = _desk(hub, auto_assign=False)
    _setup(desk)
    hub.register_table("9")
    stray = FakeTable(hub, "9")
    stray.online()
    stray.apply("assign", {"match_id": "G1-1", "players": {"a": "X", "b": "Y"}, "length": 3})
    _play(stray)
    assert desk.sync() is False
    t = desk.current()
    assert t is not None and t.match("G1-1").result is None
    desk.close()


def test_a_score_corrected_at_the_table_after_the_end_is_a_conflict_the_director_applies(
    hub: Hub, tables: list[FakeTable]
) -> None:
    desk = _desk(hub)
    _setup(desk)
    desk.sync()
    tables[0].serve()
    _play(tables[0], "a")
    desk.sync()
    mid = tables[0].table.s.match_id
    tables[0].apply("director_score", {"a": 3, "b": 2, "reason": "faltaban puntos"})
    assert tables[0].table.state == "match_over"
    desk.sync()
    t = desk.current()
    assert t is not None
    # A recorded result changes only by the director's decision: the table's word waits.
    r = t.match(mid).result
    assert r is not None and (r.score_a, r.score_b) == (3, 0)
    (c,) = t.open_conflicts()
    assert c.match_id == mid and c.kinds[0] == "table" and c.actor == "table 1"
    assert (c.new["score_a"], c.new["score_b"]) == (3, 2)
    assert hub.metrics.get("table_conflicts", reason="stale") == 1  # table 1 has a new match
    desk.call(lambda club, now: club.tournament("T").resolve_conflict(c.id, "apply", now=now))
    r = desk.current().match(mid).result  # type: ignore[union-attr]
    assert r is not None and (r.score_a, r.score_b) == (3, 2) and r.source == "director"
    desk.close()


def test_a_refused_action_leaves_the_stored_state_untouched(hub: Hub) -> None:
    desk = _desk(hub)
    _setup(desk)
    before = desk.read(lambda club: club.to_dict())

    def half(club: Any, now: datetime) -> None:
        club.tournament("T").match("G1-1").table = "5"  # a change the engine then refuses
        raise TournamentError("refused", code="wrong_phase")

    with pytest.raises(TournamentError):
        desk.call(half)
    assert desk.read(lambda club: club.to_dict()) == before
    desk.close()


def test_the_desk_keeps_its_state_in_the_hubs_file(tmp_path: Path) -> None:
    hub = Hub(HubSettings(db=tmp_path / "hub.sqlite3"))
    desk = _desk(hub)
    _setup(desk)
    desk.close()
    again = _desk(hub)
    t = again.current()
    assert t is not None and t.name == "Marzo" and len(t.groups) == 2
    again.close()
    hub.close()


def test_a_commit_wakes_the_desk_no_sync_called(hub: Hub, tables: list[FakeTable]) -> None:
    """Driven as the hub process drives it: the ingest's commit listener wakes the desk, which
    folds the result on its own thread (nobody calls sync, nothing polls)."""
    desk = _desk(hub)
    _setup(desk)
    woken: list[int] = []

    def committed(commit: Any) -> None:
        woken.append(len(commit))
        desk.wake(commit.rows)  # as the process does: the committed rows, no read back

    hub.ingest.listeners.append(committed)
    wake = desk.wake()  # the process's first wake: the free tables get their matches
    assert wake is not None and wake.result() is True
    for t in tables:
        assert t.serve() == 1
    _play(tables[0], "b")
    assert woken and sum(woken) > 0

    def decided(club: Any) -> bool:
        t = club.tournament("T")
        return any(m.result is not None for m in t.matches.values())

    # The desk's thread runs in order: a read queued now runs after the wakes queued above.
    assert wait_until(lambda: desk.read(decided), timeout=10)
    hub.ingest.listeners.remove(committed)
    desk.close()
    assert desk.wake() is None  # a closed desk ignores wakes


def test_the_committed_events_handed_to_wake_are_folded_once_whatever_their_order(
    hub: Hub, tables: list[FakeTable]
) -> None:
    """The ingest hands each commit's events to the desk's wake: handed out of order, twice,
    or while the desk's cursor is behind, a result is recorded once and never a conflict."""
    desk = _desk(hub)
    _setup(desk)
    assert desk.sync() is True
    start = desk.cursor()
    for t in tables:
        t.serve()
    _play(tables[0], "b")
    rows = list(hub.events(since=start))
    assert len(rows) > 3
    tail = rows[len(rows) // 2 :]
    wake = desk.wake(list(reversed(tail)))  # the cursor is behind: the gap comes from the store
    assert wake is not None and wake.result() is True
    again = desk.wake(rows + rows)  # every event handed again, twice
    assert again is not None and again.result() is False
    t = desk.current()
    assert t is not None and desk.cursor() == rows[-1]["rowid"]
    decided = [m for m in t.matches.values() if m.result is not None]
    assert len(decided) == 1
    r = decided[0].result
    assert r is not None and (r.score_a, r.score_b) == (0, 3)
    assert t.open_conflicts() == [] and hub.metrics.get("table_conflicts", reason="stale") == 0
    desk.close()
