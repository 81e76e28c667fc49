"""The live grid: cards and badges from the tables' own state, and the event stream's catch-up."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from mesa.games.backgammon.machine import Table
from mesa.hub.web.app import WebApp
from mesa.hub.web.live import LiveFeed, badges, build_card, summarize
from support.hubkit import FakeTable

pytestmark = pytest.mark.anyio

ASSIGN = {
    "match_id": "G1-1",
    "players": {"a": "ALBA", "b": "BRUNO"},
    "length": 3,
    "clock": {"preset": "singles"},
}


def _card(
    table: Table,
    *,
    published: float = 1000.0,
    now: float = 1000.0,
    rate: float = 1.0,
    link: str = "online",
) -> dict[str, Any]:
    live = {"table": "5", "status": link, "events": 1}
    return build_card(
        live, {"snapshot": table.snapshot(), "state_ts": published}, now=now, rate=rate
    )


def _running() -> Table:
    t = Table()
    t.apply("assign", ASSIGN, now=0.0)
    t.apply("press", {"side": "a"}, now=1.0)
    t.apply("press", {"side": "b"}, now=2.0)
    t.apply("press", {"side": "b"}, now=3.0)  # a on move from 3.0
    return t


def kinds(card: dict[str, Any]) -> list[str]:
    return [b["kind"] for b in card["badges"]]


def test_clocks_are_read_at_the_hubs_now_in_table_time() -> None:
    t = _running()
    card = _card(t, published=1000.0, now=1004.0)  # 4 s later: a used 4 s of the delay
    a = card["clocks"]["a"]
    assert a["running"] and a["delay"] == pytest.approx(6.0) and a["reserve"] == 360.0
    card = _card(t, published=1000.0, now=1004.0, rate=10.0)  # the demo: 40 table seconds
    assert card["clocks"]["a"]["delay"] == 0.0
    assert card["clocks"]["a"]["reserve"] == pytest.approx(330.0)
    assert card["on_move"] == "a" and card["score"] == {"a": 0, "b": 0}
    assert kinds(card) == []


def test_badges_for_every_situation_the_director_must_see() -> None:
    t = _running()
    t.apply("pause", {"reason": "fallen_die"}, now=5.0)
    assert kinds(_card(t)) == ["paused"] and _card(t)["badges"][0]["why"] == "fallen_die"
    t.apply("resume", {}, now=6.0)
    t.apply("claim", {"side": "a", "winner": "a", "kind": 2}, now=7.0)
    card = _card(t)
    assert "result" in kinds(card)
    assert card["badges"][kinds(card).index("result")]["who"] == "ALBA"
    t.apply("reject", {"side": "b"}, now=8.0)
    card = _card(t)
    assert kinds(card)[0] == "director" and card["director_call"] == "disputed_result"
    # Low time, then the flag.
    t2 = _running()
    t2.apply("director_adjust", {"side": "a", "seconds": -330.0}, now=4.0)
    assert "low_time" in kinds(_card(t2, published=1000.0, now=1000.0))
    t2.apply("tick", {}, now=100.0)  # 97 s on one turn with 30 s + 10 s: the flag fell
    card = _card(t2)
    assert card["state"] == "match_over" and card["flag"] == "a"
    assert kinds(card)[:1] == ["timeout"] and "over" in kinds(card)
    # Lateness: one player present, the other absent; the countdown to the next point.
    t3 = Table()
    t3.apply("assign", {**ASSIGN, "scheduled_start": 0.0}, now=0.0)
    t3.apply("press", {"side": "b"}, now=30.0)
    card = _card(t3, published=1000.0, now=1000.0)
    late = card["badges"][kinds(card).index("late")]
    assert late["who"] == "ALBA" and late["next_point_in"] == pytest.approx(570.0)
    # Off the network.
    assert kinds(_card(_running(), link="lost"))[0] == "lost"
    assert kinds(_card(_running(), link="offline"))[0] == "offline"


def test_a_card_without_a_snapshot_still_shows_the_projection() -> None:
    live = {
        "table": "9",
        "status": "online",
        "state": "running",
        "match_id": "G2-1",
        "players": {"a": "X", "b": "Y"},
        "score": {"a": 1, "b": 0},
        "reserve": {"a": 100.0},
        "paused": None,
        "events": 5,
    }
    card = build_card(live, None, now=10.0)
    assert card["match_id"] == "G2-1" and card["clocks"]["a"]["reserve"] == 100.0
    assert badges({"link": "online", "state": "idle"}) == []
    assert summarize([card])["playing"] == 1


def test_the_feed_sends_only_what_changed_since_the_last_id() -> None:
    feed = LiveFeed(epoch="e")
    feed.publish("table", "1", {"v": 1})
    second = feed.publish("table", "2", {"v": 1})
    feed.publish("table", "1", {"v": 2})
    assert [(k, d["v"]) for _, _, k, d in feed.changes_since(second)] == [("1", 2)]
    assert len(feed.changes_since(None)) == 2  # a fresh page: everything, latest versions
    assert len(feed.changes_since("old-epoch:3")) == 2  # the hub restarted meanwhile
    assert feed.changes_since(feed.event_id(feed.seq)) == []
    assert [k for k, _ in feed.items("table")] == ["1", "2"]


def _events(body: str) -> list[dict[str, Any]]:
    out = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        ev: dict[str, Any] = {}
        for line in block.splitlines():
            key, _, value = line.partition(": ")
            if key in ("id", "event"):
                ev[key] = value
            elif key == "data":
                ev["data"] = json.loads(value)
        if "event" in ev:
            out.append(ev)
    return out


async def _stream(
    client: httpx.AsyncClient, web: WebApp, headers: dict[str, str] | None = None, query: str = ""
) -> list[dict[str, Any]]:
    """Read the stream until the app ends it (``drop_streams``), as a browser would see it."""
    task = asyncio.create_task(client.get("/events" + query, headers=headers or {}))
    await asyncio.sleep(0.3)
    web.drop_streams()
    r = await asyncio.wait_for(task, 5)
    assert r.headers["content-type"].startswith("text/event-stream")
    return _events(r.text)


async def test_the_stream_sends_cards_in_the_clients_language_and_catches_up(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    fake_table.play_to_running()
    web.poller.poll()
    first = await _stream(client, web)
    assert first[0]["event"] == "hello" and first[0]["data"]["now"] > 0
    cards = [e for e in first if e["event"] == "table"]
    assert [c["data"]["key"] for c in cards] == ["3"]
    assert (
        "Mesa 3" in cards[0]["data"]["html"] and 'data-state="running"' in cards[0]["data"]["html"]
    )
    last = first[-1]["id"]
    # Nothing changed: a reconnection with Last-Event-ID gets nothing but its greeting.
    again = await _stream(client, web, {"Last-Event-ID": last})
    assert [e["event"] for e in again] == ["hello"]
    # Something changed while the browser was away: it gets exactly that, once.
    fake_table.apply("pause", {"reason": "break"})
    web.poller.poll()
    caught = await _stream(client, web, {"Last-Event-ID": last}, "?lang=en")
    tables = [e for e in caught if e["event"] == "table"]
    assert len(tables) == 1 and tables[0]["data"]["data"]["state"] == "paused"
    assert "Table 3" in tables[0]["data"]["html"] and "Paused: break" in tables[0]["data"]["html"]
    assert any(e["event"] == "summary" for e in caught)
    # A browser from before a hub restart (another epoch) is sent everything again.
    full = await _stream(client, web, {"Last-Event-ID": "0000:99"})
    assert [e["data"]["key"] for e in full if e["event"] == "table"] == ["3"]


async def test_the_director_stream_carries_the_action_buttons_only_for_a_session(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    from support.hubkit import login

    fake_table.play_to_running()
    web.poller.poll()
    public = await _stream(client, web, query="?mode=director")  # not logged in: public cards
    assert 'data-act="pause"' not in public[1]["data"]["html"]
    await login(client)
    director = await _stream(client, web, query="?mode=director")
    assert 'data-act="pause"' in director[1]["data"]["html"]


async def test_a_tournament_change_is_announced_to_every_page(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    from support.hubkit import make_tournament

    web.poller.poll()
    make_tournament(web, 6)
    web.poller.poll()
    got = await _stream(client, web)
    versions = [e["data"]["version"] for e in got if e["event"] == "tournament"]
    assert versions == [web.tournament_version]


# ── one path for a message: each snapshot read once, what the ingest checked not checked again ──


def _room(hub: Any, n: int) -> list[FakeTable]:
    tables = []
    for i in range(1, n + 1):
        hub.register_table(str(i))
        t = FakeTable(hub, str(i))
        t.online()
        t.play_to_running(match=f"G1-{i}")
        tables.append(t)
    return tables


def _counting_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the protocol's snapshot check as the live feed calls it."""
    import mesa.hub.web.live as live

    calls: list[int] = []
    real = live.check_snapshot

    def counted(snapshot: Any) -> None:
        calls.append(1)
        real(snapshot)

    monkeypatch.setattr(live, "check_snapshot", counted)
    return calls


def test_the_poller_parses_only_the_snapshots_that_changed_once(
    web: WebApp, hub: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the commit listener (no server runs), the feed reads snapshots from the store:
    each new one is parsed and checked once, the others are not read again."""
    tables = _room(hub, 5)
    checks = _counting_checks(monkeypatch)
    assert len(web.poller.current()) == 5
    assert web.poller.snapshots.parsed == 5 and len(checks) == 5
    tables[1].apply("press", {"side": "a"})
    assert web.poller.poll() == ["1", "2", "3", "4", "5"]  # (the first round sends every card)
    assert web.poller.snapshots.parsed == 6 and len(checks) == 6  # table 2's new snapshot only
    assert web.poller.poll() == [] and web.poller.snapshots.parsed == 6
    web.poller.current()
    web.poller.current()
    assert web.poller.snapshots.parsed == 6 and len(checks) == 6
    assert web.poller.cards["2"]["on_move"] == "b" and web.poller.cards["2"]["degraded"] == []


def test_the_snapshots_a_commit_hands_over_are_neither_parsed_nor_checked_again(
    web: WebApp, hub: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the server runs it: the ingest's listener hands the poller what it committed; the
    card is read from the snapshot the ingest parsed and checked, and the store is not read."""
    tables = _room(hub, 3)
    web.poller.current()
    hub.ingest.listeners.append(web.poller.committed)
    checks = _counting_checks(monkeypatch)
    parsed = web.poller.snapshots.parsed
    reads: list[int] = []
    real_rows = hub.store.table_rows
    monkeypatch.setattr(hub.store, "table_rows", lambda: reads.append(1) or real_rows())
    web.poller.poll()
    for side in ("a", "b", "a"):
        tables[0].apply("press", {"side": side})
        assert web.poller.poll() == ["1"]
    card = web.poller.cards["1"]
    assert card["on_move"] == "b" and card["degraded"] == [] and card["state"] == "running"
    assert (web.poller.snapshots.parsed, checks, reads) == (parsed, [], [])
    # The card is the same as one built from the store's copy, checked field by field.
    row = next(r for r in hub.store.tables() if r["table"] == "1")
    again = build_card(hub.table("1"), row, now=card["as_of"])
    assert again == card


def test_a_snapshot_planted_in_the_store_is_checked_once_and_degrades_its_card(
    web: WebApp, hub: Any
) -> None:
    """The store is the one source the feed was not handed by the ingest: what it reads there
    passes the protocol's own check first; one that does not shows a degraded card."""
    import copy
    import time

    from mesa.protocol import StateReport

    (table,) = _room(hub, 1)
    web.poller.poll()
    snap = copy.deepcopy(table.table.snapshot())
    snap["match"]["score"] = {"a": "<b>", "b": 0}
    report = StateReport("1", table.stream, table.seq + 1, table.seq, time.time(), snap)
    with hub.store.transaction():
        hub.store.set_state(report)
    hub.projections.apply_state(report)
    assert web.poller.poll() == ["1"]
    card = web.poller.cards["1"]
    assert card["degraded"] == ["snapshot"] and card["score"] == {"a": 0, "b": 0}
    parsed = web.poller.snapshots.parsed
    web.poller.current()
    assert web.poller.snapshots.parsed == parsed


def test_a_domino_card_comes_from_the_registered_game_of_its_snapshot() -> None:
    from mesa.games.domino.machine import DominoTable

    t = DominoTable()
    t.apply("assign", {"game_id": "R1", "players": {"n": "Ana", "e": "Beto", "s": "Carla",
                                                  "w": "Dani"}}, now=0.0)
    snap = t.snapshot()  # (an old one: no "game_name", the registry knows it by its keys)
    card = build_card({"table": "7", "status": "online"}, {"snapshot": snap}, now=1.0)
    assert card["kind"] == "domino" and card["domino"]["game_id"] == "R1"
    assert card["degraded"] == []
    unknown = build_card({"table": "7"}, {"snapshot": {**snap, "game_name": "chess"}}, now=1.0)
    assert unknown["degraded"] == ["snapshot"] and "domino" not in unknown


def test_every_registered_game_has_its_card() -> None:
    from mesa.games.registry import names
    from mesa.hub.web.live import GAME_FIGURES

    assert set(GAME_FIGURES) == set(names())


@pytest.mark.parametrize("text", ["not json", "[" * 100_000 + "]" * 100_000, "5"])
def test_stored_text_no_card_can_read_degrades_that_card_only(
    web: WebApp, hub: Any, text: str
) -> None:
    _room(hub, 2)
    web.poller.current()
    with hub.store.transaction():  # as a damaged store would hold it
        hub.store._db.execute(
            "UPDATE tables SET snapshot = ?, state_ts = 1.0 WHERE table_id = '2'", (text,)
        )
    cards = {c["id"]: c for c in web.poller.current()}
    assert cards["2"]["degraded"] == ["snapshot"] and cards["1"]["degraded"] == []


async def test_a_table_that_started_a_fresh_outbox_is_shown_to_the_director(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    """A table whose outbox was damaged starts a new one (``table.outbox_rebuilt``): what the
    old one held never reached the hub, and the grid said nothing. It says so now, until the
    table's next assignment."""
    import time

    from mesa.hub.ingest.pipeline import Incoming
    from mesa.protocol import EventEnvelope, table_topic

    fake_table.play_to_running()
    fake_table.seq += 1
    env = EventEnvelope.build(
        fake_table.id, fake_table.stream, fake_table.seq, "table.outbox_rebuilt",
        {"reason": "not an outbox (file is not a database)",
         "moved_to": "outbox.sqlite3.damaged-20261202T050000Z"},
        ts=time.time(), t=fake_table.now,
    )
    web.hub.ingest.handle([Incoming(table_topic(fake_table.id, "event"), env.to_payload())])
    web.poller.poll()
    card = next(c for c in (await client.get("/live.json")).json()["tables"]
                if c["id"] == fake_table.id)
    assert "outbox_rebuilt" in kinds(card)
    page = (await client.get("/live")).text
    assert "La mesa empezó un registro nuevo" in page
    fake_table.apply("unassign")
    fake_table.apply("assign", {"match_id": "G1-2", "players": {"a": "CARLA", "b": "DANI"},
                                "length": 3})
    web.poller.poll()
    card = next(c for c in (await client.get("/live.json")).json()["tables"]
                if c["id"] == fake_table.id)
    assert "outbox_rebuilt" not in kinds(card)
