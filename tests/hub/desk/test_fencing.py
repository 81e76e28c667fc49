"""One match, one table: fencing tokens, stale tables, second results, and assignments that
never put a match on two tables (the findings of the 31-player evenings, each reproduced)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from datetime import datetime
from typing import Any

import httpx
import pytest

from mesa.hub.desk.games.backgammon import TournamentDesk
from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from mesa.protocol import EventEnvelope
from mesa.tournament.errors import TournamentError
from mesa.tournament.store import TournamentStore
from mesa.tournament.tournament import Tournament
from support.hubkit import NOW, TODAY, FakeTable, act, login


def _desk(hub: Hub, **kw: Any) -> TournamentDesk:
    return TournamentDesk(hub.settings.db, hub=hub, now=lambda: NOW, **kw)


def _setup(desk: TournamentDesk, n: int = 6, **settings: Any) -> None:
    def run(club: Any, now: datetime) -> None:
        t = club.create_tournament("T", "Marzo", TODAY)
        if settings:
            t.settings = t.settings.with_changes(**settings)
        for i in range(n):
            club.register("T", club.registry.add_new(f"P{i}").id, now=now)
        club.start("T", seed=5, now=now)

    desk.call(run)


def _tables(hub: Hub, *ids: str) -> list[FakeTable]:
    out = []
    for tid in ids:
        hub.register_table(tid)
        t = FakeTable(hub, tid)
        t.online()
        out.append(t)
    return out


def _give(desk: TournamentDesk, table: FakeTable, match: str = "G1-1") -> None:
    """The director assigns ``match`` to ``table``, and the table takes it."""

    def assign(club: Any, now: datetime) -> None:
        t = club.tournament("T")
        desk.publish_assignment(t, desk.assign_match(t, match, table.id, now, "director"), now)

    desk.call(assign)
    table.serve()


def _play(table: FakeTable, winner: str = "a") -> None:
    """Both players check in and the match is played out, every game to ``winner``."""
    table.apply("press", {"side": "a"})
    table.apply("press", {"side": "b"})
    while table.table.state != "match_over":
        loser = "b" if winner == "a" else "a"
        table.apply("press", {"side": loser})
        table.apply("claim", {"side": winner, "winner": winner, "kind": 1})
        table.apply("confirm", {"side": loser})


def _send(table: FakeTable, type_name: str, data: dict[str, Any], epoch: int | None) -> None:
    """What a broken (or forged) table can put on the wire: any event, any epoch."""
    table.seq += 1
    env = EventEnvelope.build(
        table.id,
        table.stream,
        table.seq,
        type_name,
        data,
        ts=time.time(),
        t=table.now,
        epoch=epoch,
    )
    table._ingest([("event", env.to_payload())])


def _current(desk: TournamentDesk) -> Tournament:
    t = desk.current()
    assert t is not None
    return t


def _move(desk: TournamentDesk, match_id: str, table: str) -> None:
    """The director's "move" action, as ``hub/web/actions/tournament.py`` runs it on the desk."""

    def run(club: Any, now: datetime) -> None:
        t = club.tournament("T")
        old = t.match(match_id).table
        a = t.move_match(match_id, table, actor="director", now=now)
        desk.withdraw_assignment(old)
        desk.publish_assignment(t, a, now)

    desk.call(run)


def test_every_assignment_carries_a_growing_epoch_that_the_table_echoes(hub: Hub) -> None:
    desk = _desk(hub)
    _setup(desk)
    t1, t2 = _tables(hub, "1", "2")
    desk.sync()
    t1.serve()
    t2.serve()
    epochs = {a["table"]: a["epoch"] for a in hub.store.assignments()}
    assert sorted(epochs.values()) == [1, 2]
    assert all(a["args"]["epoch"] == a["epoch"] for a in hub.store.assignments())
    assert t1.table.s.epoch == epochs["1"] and t1.table.snapshot()["epoch"] == epochs["1"]
    assigned = [e for e in hub.events("1") if e["type"] == "table.assigned"]
    assert assigned[0]["epoch"] == epochs["1"] and assigned[0]["fence"] is None
    # The token survives a restart of the hub: the next one is larger still.
    hub.unassign("1")
    assert hub.ingest.epoch("1") is None
    _, epoch = hub.assign_fenced(
        "1", {"match_id": "X", "players": {"a": "A", "b": "B"}, "length": 3}
    )
    assert epoch == 3
    desk.close()


def test_two_tables_one_match_the_stale_one_is_refused_counted_and_shown(hub: Hub) -> None:
    """KO-R16-3 played at tables 3 and 4: the table that no longer holds the match reports
    first; its result is not recorded but shown as a conflict; the holder's is recorded."""
    desk = _desk(hub, auto_assign=False)
    _setup(desk)
    old, new = _tables(hub, "3", "4")
    mid = "G1-1"

    _give(desk, old, mid)
    _move(desk, mid, "4")  # table 3 never hears of it (its link is down)
    new.serve()
    assert new.table.s.epoch is not None and new.table.s.epoch > (old.table.s.epoch or 0)
    _play(old, "b")  # 0–3 at the stale table, reported first
    _play(new, "a")  # 3–0 at the table that holds the match
    desk.sync()
    t = _current(desk)
    r = t.match(mid).result
    assert r is not None and (r.score_a, r.score_b) == (3, 0) and r.actor == "table 4"
    assert hub.metrics.get("fenced", reason="stale_epoch") >= 3  # assigned, started, ended, ...
    assert hub.metrics.get("table_conflicts", reason="stale") == 1
    (c,) = t.open_conflicts()
    assert c.kinds == ["table"] and c.old is None and c.actor == "table 3"
    assert (c.new["score_a"], c.new["score_b"]) == (0, 3) and "mesa 3" in c.reason
    stale = [e for e in hub.events("3") if e["type"] == "match.ended"]
    assert stale[0]["fence"] == "stale_epoch"  # stored (the stream stays whole), not applied
    # The director keeps the recorded result; nothing changes.
    desk.call(lambda club, now: club.tournament("T").resolve_conflict(c.id, "keep", now=now))
    r = _current(desk).match(mid).result
    assert r is not None and (r.score_a, r.score_b) == (3, 0)
    desk.close()


def test_a_stale_result_before_any_other_can_be_applied_by_the_director(hub: Hub) -> None:
    desk = _desk(hub, auto_assign=False)
    _setup(desk)
    old, _new = _tables(hub, "3", "4")

    _give(desk, old, "G1-1")
    _move(desk, "G1-1", "4")
    _play(old, "b")
    desk.sync()
    t = _current(desk)
    assert t.match("G1-1").result is None and t.match("G1-1").table == "4"
    (c,) = t.open_conflicts()
    assert "mesa 4" in c.reason  # who holds it now
    desk.call(lambda club, now: club.tournament("T").resolve_conflict(c.id, "apply", now=now))
    r = _current(desk).match("G1-1").result
    assert r is not None and (r.score_a, r.score_b) == (0, 3) and r.source == "director"
    desk.close()


def test_a_table_cannot_rewrite_an_old_result(hub: Hub) -> None:
    """Table 9 played KO-PI-1 (0–5), then got the next match; it sends
    ``table.assigned{old match}`` and ``score.corrected{5–0}``: the old result stays."""
    desk = _desk(hub)
    _setup(desk)
    (t9,) = _tables(hub, "9")
    desk.sync()
    t9.serve()
    first = t9.table.s.match_id
    first_epoch = t9.table.s.epoch
    assert first is not None and first_epoch is not None
    _play(t9, "b")
    desk.sync()  # recorded; table 9 gets its next match
    t9.serve()
    assert t9.table.s.match_id != first
    before = _current(desk).match(first).result
    assert before is not None and (before.score_a, before.score_b) == (0, 3)
    assigned = {
        "match_id": first,
        "players": {"a": "X", "b": "Y"},
        "length": 3,
        "timed": False,
        "clock": None,
        "scheduled_start": None,
    }
    corrected = {"before": {"a": 0, "b": 3}, "score": {"a": 3, "b": 0}, "reason": "x"}
    # With the current epoch: the events are about the match table 9 holds now, not the old one.
    _send(t9, "table.assigned", assigned, t9.table.s.epoch)
    _send(t9, "score.corrected", corrected, t9.table.s.epoch)
    # With the old epoch: fenced; the old match is decided, so it is a conflict, not a rewrite.
    _send(t9, "table.assigned", assigned, first_epoch)
    _send(t9, "score.corrected", corrected, first_epoch)
    _send(
        t9, "match.ended", {"winner": "a", "score": {"a": 3, "b": 0}, "how": "score"}, first_epoch
    )
    # Without an epoch (or one it was never given): refused outright.
    _send(t9, "match.ended", {"winner": "a", "score": {"a": 3, "b": 0}, "how": "score"}, None)
    _send(t9, "match.ended", {"winner": "a", "score": {"a": 3, "b": 0}, "how": "score"}, 999)
    desk.sync()
    t = _current(desk)
    after = t.match(first).result
    assert after == before
    assert not [h for h in t.match(first).history if h["action"] == "correct"]
    assert t.match(t9.table.s.match_id or "").result is None
    (c,) = t.open_conflicts()  # one conflict, however many times the table says it
    assert c.match_id == first and c.old is not None and c.kinds[0] == "table"
    assert hub.metrics.get("fenced", reason="missing_epoch") == 1
    assert hub.metrics.get("table_events_refused", reason="unknown_epoch") == 1
    desk.close()


def test_a_second_match_ended_becomes_a_conflict_not_an_overwrite(hub: Hub) -> None:
    desk = _desk(hub, auto_assign=False)
    _setup(desk)
    (t3,) = _tables(hub, "3")

    _give(desk, t3, "G1-1")
    _play(t3, "a")
    desk.sync()
    epoch = t3.table.s.epoch
    _send(t3, "match.ended", {"winner": "a", "score": {"a": 3, "b": 0}, "how": "score"}, epoch)
    _send(t3, "match.ended", {"winner": "b", "score": {"a": 1, "b": 3}, "how": "score"}, epoch)
    desk.sync()
    t = _current(desk)
    r = t.match("G1-1").result
    assert r is not None and (r.score_a, r.score_b) == (3, 0)
    (c,) = t.open_conflicts()
    assert (c.new["score_a"], c.new["score_b"]) == (1, 3)
    assert hub.metrics.get("table_conflicts", reason="second_result") == 1
    desk.close()


def test_a_forfeit_is_not_overwritten_by_a_late_table_result(hub: Hub) -> None:
    desk = _desk(hub, auto_assign=False)
    _setup(desk)
    (t3,) = _tables(hub, "3")

    _give(desk, t3, "G1-1")
    t3.apply("press", {"side": "a"})
    t3.apply("press", {"side": "b"})
    desk.sync()
    m = _current(desk).match("G1-1")
    assert m.status == "playing"
    loser = m.b
    desk.call(lambda club, now: club.tournament("T").withdraw(loser, "left", now=now))
    _play(t3, "b")  # the table plays on and reports the withdrawn player as the winner
    desk.sync()
    t = _current(desk)
    r = t.match("G1-1").result
    assert r is not None and r.forfeit and r.score_a == 3
    assert len(t.open_conflicts()) == 1
    desk.close()


def test_knockout_assignments_survive_a_consolation_start_the_engine_refuses(
    hub: Hub,
) -> None:
    """Every knockout match showed ``table: null`` while played, then went to a second table:
    a refused Último Chance start reloaded the club under the desk's feet."""
    desk = _desk(hub)
    _setup(desk, 8)

    def groups_done(club: Any, now: datetime) -> None:
        t = club.tournament("T")
        for m in list(t.matches.values()):
            if m.phase == "group":
                t.record_result(m.id, 3, 0, source="director", actor="director", now=now)

    desk.call(groups_done)
    t = _current(desk)
    assert t.knockout is not None and t.consolation is None and t.settings.consolation
    tables = _tables(hub, "1", "2", "3")
    desk.sync()
    for table in tables:
        table.serve()
    held = {tb.id: tb.table.s.match_id for tb in tables if tb.table.s.match_id}
    assert held, "no knockout match was assigned"
    for _ in range(3):
        desk.sync()
    t = _current(desk)
    for tid, mid in held.items():
        assert t.match(mid).table == tid and t.match(mid).status == "assigned"
    # ...also as stored (what /director/tournament.json shows after any reload) ...
    with TournamentStore(desk.path) as store:
        stored = store.load_club().tournament("T")
    assert {mid: stored.match(mid).table for mid in held.values()} == {
        mid: tid for tid, mid in held.items()
    }
    # ... and no match is held by two tables at the hub.
    current = [a["args"]["match_id"] for a in hub.store.assignments() if a["args"]]
    assert len(current) == len(set(current))
    # Played on to Último Chance: every match keeps its table while it is played.
    seen: set[str] = set()
    for _ in range(12):
        for table in tables:
            if table.table.state == "assigned":
                _play(table, "a")
        desk.sync()
        for table in tables:
            table.serve()
        t = _current(desk)
        for table in tables:
            playing = table.table.s.match_id
            if table.table.state == "assigned" and playing is not None:
                assert t.match(playing).table == table.id, (playing, table.id)
                seen.add(t.match(playing).phase)
        current = [a["args"]["match_id"] for a in hub.store.assignments() if a["args"]]
        assert len(current) == len(set(current))
    assert seen == {"knockout", "consolation"}
    desk.close()


def test_concurrent_assignment_of_one_match_to_two_tables_exactly_one_wins(hub: Hub) -> None:
    desk = _desk(hub, auto_assign=False)
    _setup(desk)
    _tables(hub, "1", "2")
    start = threading.Barrier(2)

    def assign(table: str) -> str:
        start.wait()

        def run(club: Any, now: datetime) -> str:
            t = club.tournament("T")
            a = desk.assign_match(t, "G1-1", table, now, "director")
            desk.publish_assignment(t, a, now)
            return a.table

        return desk.call(run)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(assign, tb) for tb in ("1", "2")]
        results: list[str | TournamentError] = []
        for f in futures:
            try:
                results.append(f.result())
            except TournamentError as e:
                results.append(e)
    winners = [r for r in results if isinstance(r, str)]
    assert len(winners) == 1
    assert [a["table"] for a in hub.store.assignments() if a["args"]] == winners
    assert _current(desk).match("G1-1").table == winners[0]
    desk.close()


@pytest.mark.anyio
async def test_two_directors_assign_one_match_at_once_exactly_one_wins(
    web: WebApp, client: httpx.AsyncClient
) -> None:
    _setup(web.desk)
    assert web.hub is not None
    _tables(web.hub, "1", "2")
    csrf = await login(client)
    responses = await asyncio.gather(
        act(client, csrf, "assign", match_id="G1-1", table="1"),
        act(client, csrf, "assign", match_id="G1-1", table="2"),
    )
    assert sorted(r.status_code for r in responses) == [200, 409], [r.text for r in responses]
    held = [a["table"] for a in web.hub.store.assignments() if a["args"]]
    assert len(held) == 1
    # The director sees the table on the match while it is assigned and played.
    r = await client.get("/director/tournament.json")
    match = next(m for m in r.json()["matches"] if m["id"] == "G1-1")
    assert match["table"] == held[0]


@pytest.mark.anyio
async def test_the_director_page_shows_a_stale_tables_conflict(
    web: WebApp, client: httpx.AsyncClient
) -> None:
    desk = web.desk
    _setup(desk)
    assert web.hub is not None
    old, _new = _tables(web.hub, "3", "4")

    _give(desk, old, "G1-1")
    _move(desk, "G1-1", "4")
    _play(old, "b")
    desk.sync()
    await login(client)
    page = (await client.get("/director")).text
    assert 'data-conflict="C1"' in page and "—" in page and "mesa 3" in page


def test_a_result_is_not_lost_when_the_desk_never_saved_the_epoch(hub: Hub) -> None:
    """The hub stopped between publishing an assignment and saving the desk's record of its
    epoch: the hub's store still knows the table's current epoch, and the result counts."""
    desk = _desk(hub, auto_assign=False)
    _setup(desk)
    (table,) = _tables(hub, "5")
    mid = "G1-1"

    _give(desk, table, mid)

    def forget(club: Any, now: datetime) -> None:  # as if the record had never been written
        desk._meta["epochs"].clear()
        desk._save_meta()

    desk.call(forget)
    _play(table, "a")
    desk.sync()
    m = _current(desk).match(mid)
    assert m.result is not None and (m.result.score_a, m.result.score_b) == (3, 0)
    desk.close()


def test_a_table_whose_match_was_taken_off_it_cannot_start_or_decide_it(hub: Hub) -> None:
    """The tournament took the match off the table (the director's decision) while the table
    still held its token: its start and its result apply to nothing; the result is a conflict,
    and the match is never "playing" with no table."""
    desk = _desk(hub, auto_assign=False)
    _setup(desk)
    (table,) = _tables(hub, "6")
    mid = "G1-1"

    def assign(club: Any, now: datetime) -> None:
        t = club.tournament("T")
        desk.publish_assignment(t, desk.assign_match(t, mid, "6", now, "director"), now)

    def take_off(club: Any, now: datetime) -> None:
        club.tournament("T").unassign(mid, actor="director", now=now)  # the hub not told yet

    desk.call(assign)
    table.serve()
    desk.call(take_off)
    _play(table, "b")
    desk.sync()
    m = _current(desk).match(mid)
    assert m.status == "ready" and m.table is None and m.result is None
    assert hub.metrics.get("table_events_refused", reason="not_held") >= 1
    assert any(c.match_id == mid and c.status == "open" for c in _current(desk).conflicts)
    desk.close()


# ── a moved match takes its state with it (issue 22, finding 2) ─────────────
def _carried(desk: TournamentDesk, match: str, table: str, **kw: Any) -> Any:
    return desk.read(lambda club: desk.carried(club.tournament("T"), match, table, **kw))


def test_a_move_carries_what_the_old_table_last_reported(hub: Hub) -> None:
    desk = _desk(hub, auto_assign=False)
    _setup(desk)
    (old,) = _tables(hub, "3")
    _give(desk, old, "G1-1")
    assert _carried(desk, "G1-1", "3") is None  # not begun: it starts afresh where it goes
    old.apply("press", {"side": "a"})
    old.apply("press", {"side": "b"})
    old.apply("press", {"side": "b"})  # game 1, a on move
    carry = _carried(desk, "G1-1", "3")
    assert carry["scheduled_start"] is None and carry["clock"]["reserve"] > 0
    assert carry["resume"]["score"] == {"a": 0, "b": 0}
    assert carry["resume"]["game"] == {"cube": 1, "owner": None, "crawford": False, "on_move": "a"}
    assert desk.carried_score(carry) == "0–0"
    # An event the hub has, newer than the table's last state: the state is not trusted.
    _send(old, "turn.ended", {"side": "a", "seconds": 3.0, "delay": 10.0, "charged": 0.0,
                              "reserve": 590.0}, old.table.s.epoch)  # fmt: skip
    desk.sync()
    with pytest.raises(TournamentError) as e:
        _carried(desk, "G1-1", "3")
    assert e.value.reason == "move_score_unknown"
    assert _carried(desk, "G1-1", "3", unknown_ok=True) is None  # the director's 0–0
    desk.close()


def test_a_match_the_table_has_ended_does_not_move(hub: Hub) -> None:
    desk = _desk(hub, auto_assign=False)
    _setup(desk)
    (old,) = _tables(hub, "3")
    _give(desk, old, "G1-1")
    _play(old, "b")  # ended at the table; its result not folded yet
    with pytest.raises(TournamentError) as e:
        _carried(desk, "G1-1", "3")
    assert e.value.reason == "move_decided" and e.value.params["score"] == "0–3"
    desk.close()
