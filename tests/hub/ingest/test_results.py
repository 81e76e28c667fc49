"""A backgammon result that contradicts itself is refused at the hub: the rules of
:mod:`mesa.hub.ingest.results`, then an attacker with a provisioned table's own account on a
real Mosquitto, seen by the ingest, the desk, the director and the public card."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.desk.games.backgammon import TournamentDesk
from mesa.hub.ingest.app import Hub
from mesa.hub.ingest.pipeline import Incoming, Ingest
from mesa.hub.ingest.results import CONTRADICTORY, MAX_GAME_POINTS, result_refusal
from mesa.hub.ingest.store import EventStore
from mesa.hub.web.app import WebApp
from mesa.protocol import EventEnvelope, StateReport, table_topic
from support.harness import hub_settings, wait_until
from support.hubkit import NOW, PASSWORD, TODAY, FakeTable, login
from support.mosquitto import table_password

# ── the rules ──────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("winner", "a", "b", "how", "length"),
    [
        ("a", 5, 0, "score", 5),
        ("b", 3, 7, "score", 7),
        ("a", 4 + MAX_GAME_POINTS, 4, "score", 5),  # a backgammon on a 64 cube from 4-away
        ("a", 9, 2, "score", 5),  # a result above the length (HGV 5.3)
        ("b", 2, 5, "timeout", 5),
        ("a", 5, 0, "lateness", 5),
        ("a", 6, 3, "penalty", 5),  # 2 penalty points at 4-away
        ("b", 1, 9, "director", 5),
        ("a", 3, 1, "score", None),  # no assignment known: the winner leads
    ],
)
def test_results_a_match_can_end_with_pass(
    winner: str, a: int, b: int, how: str, length: int | None
) -> None:
    assert result_refusal(winner, {"a": a, "b": b}, how, length) is None


@pytest.mark.parametrize(
    ("winner", "score", "how", "length", "words"),
    [
        ("a", {"a": 0, "b": 5}, "score", 5, "the score says b won"),
        ("b", {"a": 3, "b": 1}, "score", 3, "the score says a won"),
        ("a", {"a": 2, "b": 1}, "score", 5, "nobody reached 5"),
        ("a", {"a": 5, "b": 5}, "score", 5, "both players"),
        ("a", {"a": 5 + MAX_GAME_POINTS, "b": 0}, "score", 5, "no game is worth more"),
        ("a", {"a": 7, "b": 0}, "timeout", 5, "the winner is given 5"),
        ("a", {"a": 7, "b": 0}, "penalty", 5, "at most 6"),
        ("a", {"a": 1, "b": 2}, "score", None, "the score says b leads"),
        ("c", {"a": 5, "b": 0}, "score", 5, "not a result"),
        ("a", {"a": 5, "b": -1}, "score", 5, "not a result"),
        ("a", {"a": 5}, "score", 5, "not a result"),
        ("a", {"a": True, "b": 0}, "score", 1, "not a result"),
    ],
)
def test_results_that_contradict_themselves_are_refused_with_a_reason(
    winner: str, score: dict[str, Any], how: str, length: int | None, words: str
) -> None:
    why = result_refusal(winner, score, how, length)
    assert why is not None and words in why


def _end(table: str, seq: int, winner: str, a: int, b: int, epoch: int | None) -> Incoming:
    env = EventEnvelope.build(
        table, f"s-{table}", seq, "match.ended",
        {"winner": winner, "score": {"a": a, "b": b}, "how": "score"},
        ts=1.0, t=float(seq), epoch=epoch,
    )  # fmt: skip
    return Incoming(table_topic(table, "event"), env.to_payload())


def test_the_ingest_checks_against_the_length_it_assigned_and_keeps_the_stream_whole(
    tmp_path: Path,
) -> None:
    acks: list[bytes] = []
    ingest = Ingest(EventStore(tmp_path / "hub.sqlite3"), publish=lambda t, p, q, r: acks.append(p))
    ingest.set_epoch("3", 7)
    ingest.set_length("3", 3)
    ingest.handle([_end("3", 1, "a", 0, 3, 7)])
    assert ingest.metrics.get("refused", reason=CONTRADICTORY) == 1
    assert ingest.metrics.get("fenced", reason=CONTRADICTORY) == 1
    # Stored (with the verdict) and acknowledged: the table is not asked to resend it forever,
    # and what it sends next is not held up behind a gap.
    (row,) = ingest.store.events(table="3")
    assert row["fence"] == CONTRADICTORY and json.loads(acks[-1])["seq"] == 1
    live = ingest.projections.get("3")
    assert live is not None and live.winner is None and live.state != "match_over"
    assert live.refused == {"winner": "a", "score": {"a": 0, "b": 3}, "how": "score"}
    # 3-0 for a is a result of a 3-point match, and a 7-point one would be unfinished.
    ingest.handle([_end("3", 2, "a", 3, 0, 7)])
    assert ingest.metrics.get("refused", reason=CONTRADICTORY) == 1
    live = ingest.projections.get("3")
    assert live is not None and live.winner == "a" and live.refused is None
    ingest.set_length("3", 7)
    ingest.handle([_end("3", 3, "a", 3, 0, 7)])
    assert ingest.metrics.get("refused", reason=CONTRADICTORY) == 2


# ── an attacker with a table's own account, on a real Mosquitto ──────────────────────────────


@dataclass
class WireTable(FakeTable):
    """:class:`FakeTable` whose messages go over MQTT with the table's own broker account
    (username = table id, the ACL's %u), as a provisioned table's Pi (or whoever holds its
    password) sends them; ``forge`` rewrites what its program would have sent."""

    client: Any = None

    def _ingest(self, messages: list[tuple[str, bytes]]) -> None:
        state_ts = None
        for kind, payload in messages:
            info = self.client.publish(table_topic(self.id, kind), payload, qos=1)
            info.wait_for_publish(5)
            if kind == "state":
                state_ts = json.loads(payload)["ts"]
        seq = self.seq
        assert wait_until(lambda: self.hub.ingest.contiguous(self.id, self.stream) >= seq, 10)
        if state_ts is not None:  # committed at the hub, not only sent
            assert wait_until(lambda: self._stored_state_ts() == state_ts, 10)

    def _stored_state_ts(self) -> float | None:
        row = next((r for r in self.hub.store.tables() if r["table"] == self.id), None)
        return None if row is None else row["state_ts"]

    def forged_end(self, winner: str, score: dict[str, int]) -> None:
        """A match.ended and a snapshot claiming ``winner`` with ``score``, on the current
        assignment's epoch (the table reads its own retained assignment)."""
        epoch = self.table.s.epoch
        self.seq += 1
        env = EventEnvelope.build(
            self.id, self.stream, self.seq, "match.ended",
            {"winner": winner, "score": score, "how": "score"},
            ts=time.time(), t=self.now, epoch=epoch,
        )  # fmt: skip
        snapshot = self.table.snapshot()
        assert snapshot["match"] is not None
        snapshot["match"].update(winner=winner, score=dict(score), ended_by="score")
        snapshot["state"] = "match_over"
        report = StateReport(self.id, self.stream, self.seq, self.seq, time.time(), snapshot)
        self._ingest([("event", env.to_payload()), ("state", report.to_payload())])


def _client(broker: PrivateMosquitto, table: str) -> mqtt.Client:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=table, protocol=mqtt.MQTTv5)
    c.username_pw_set(table, table_password(table))
    c.connect(broker.host, broker.port, keepalive=10)
    c.loop_start()
    return c


def _setup(desk: TournamentDesk) -> None:
    def run(club: Any, now: datetime) -> None:
        club.create_tournament("T", "Marzo", TODAY)
        for i in range(6):
            club.register("T", club.registry.add_new(f"P{i}").id, now=now)
        club.start("T", seed=5, now=now)

    desk.call(run)


def _give(desk: TournamentDesk, table: FakeTable, match: str = "G1-1") -> None:
    def assign(club: Any, now: datetime) -> None:
        t = club.tournament("T")
        desk.publish_assignment(t, desk.assign_match(t, match, table.id, now, "director"), now)

    desk.call(assign)
    table.serve()


def _two_games_to(table: FakeTable, winner: str) -> None:
    """Both check in; ``winner`` wins two single games (2-0 in a 3-point match)."""
    loser = "b" if winner == "a" else "a"
    table.apply("press", {"side": "a"})
    table.apply("press", {"side": "b"})
    for _ in range(2):
        table.apply("press", {"side": loser})
        table.apply("claim", {"side": winner, "winner": winner, "kind": 1})
        table.apply("confirm", {"side": loser})
    assert table.table.snapshot()["match"]["score"] == {winner: 2, loser: 0}


@pytest.fixture
def venue(tmp_path: Path, mosquitto: PrivateMosquitto) -> Any:
    settings = hub_settings(tmp_path / "hub.sqlite3", mosquitto).replace(
        director_password=PASSWORD, command_wait=2.0, auto_assign=False
    )
    hub = Hub(settings).start()
    web = WebApp(hub, settings, now=lambda: NOW)
    clients: list[mqtt.Client] = []

    def table(tid: str) -> WireTable:
        c = _client(mosquitto, tid)
        clients.append(c)
        hub.register_table(tid)
        t = WireTable(hub, tid, client=c)
        t.online()
        return t

    try:
        yield hub, web, table
    finally:
        for c in clients:
            c.disconnect()
            c.loop_stop()
        web.close()
        hub.stop()


def _card(cards: list[dict[str, Any]], tid: str) -> dict[str, Any]:
    return next(c for c in cards if c["id"] == tid)


@pytest.mark.anyio
async def test_a_tables_own_account_cannot_record_or_show_a_contradictory_result(
    venue: Any, tmp_path: Path, mosquitto: PrivateMosquitto
) -> None:
    """Table t1 plays G1-1 (3 points) to 0-2, then sends match.ended "a won, 0-3" and a
    snapshot saying the same. Refused with its reason and counted; the match has no result;
    the director gets a conflict to decide; the public card shows 0-2 and no winner, before
    and after a restart of the hub."""
    hub, web, table = venue
    t1 = table("t1")
    desk = web.desk
    _setup(desk)
    _give(desk, t1)
    _two_games_to(t1, "b")
    t1.forged_end("a", {"a": 0, "b": 3})

    assert hub.metrics.get("refused", reason=CONTRADICTORY) == 1
    recent = [r for r in hub.metrics.recent_refusals() if r["reason"] == CONTRADICTORY]
    assert recent and "the score says b won" in recent[-1]["detail"] and recent[-1]["table"] == "t1"
    assert [e["fence"] for e in hub.events("t1") if e["type"] == "match.ended"] == [CONTRADICTORY]
    desk.sync()
    t = desk.current()
    assert t is not None
    m = t.match("G1-1")
    assert m.result is None and m.status == "playing"
    (conflict,) = t.open_conflicts()
    assert conflict.match_id == "G1-1" and "contradice" in conflict.reason
    assert hub.metrics.get("table_conflicts", reason=CONTRADICTORY) == 1

    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(web.asgi()), base_url="http://mesa.test"
    ) as client:
        web.poller.poll()
        card = _card((await client.get("/live.json")).json()["tables"], "t1")
        assert card["winner"] is None and card["ended_by"] is None
        assert card["score"] == {"a": 0, "b": 2} and card["state"] == "result_refused"
        assert card["refused"] == {"winner": "a", "score_a": 0, "score_b": 3}
        public = (await client.get("/live")).text
        # t1's own card (another test's table may show a result it really ended with)
        mine = public.split('id="table-t1"', 1)[1].split("<article", 1)[0]
        assert "Ganó" not in mine and "Resultado imposible rechazado" in mine
        await login(client)
        page = (await client.get("/director")).text
        assert f'data-conflict="{conflict.id}"' in page and "contradice" in page

    # After a restart the hub knows the same: the refused end is not folded again.
    web.close()
    hub.stop()
    again = Hub(hub_settings(tmp_path / "hub.sqlite3", mosquitto))
    try:
        live = again.projections.get("t1")
        assert live is not None and live.winner is None and live.score == {"a": 0, "b": 2}
        assert live.refused is not None and live.assigned_length == 3
    finally:
        again.close()


@pytest.mark.anyio
async def test_a_score_no_match_could_end_with_is_refused_and_never_shown(venue: Any) -> None:
    """0-300 in a 3-point match: no game is worth that much. Nothing for the director to
    apply (it is no result), so no conflict: counted, logged, and the card shows the refusal.
    A snapshot alone claiming the same (no event at all) is not shown either."""
    hub, web, table = venue
    t2, t3 = table("t2"), table("t3")
    desk = web.desk
    _setup(desk)
    _give(desk, t2, "G1-1")
    _give(desk, t3, "G2-1")
    _two_games_to(t2, "b")
    t2.forged_end("b", {"a": 0, "b": 300})
    # t3: only a retained snapshot, "a won 9-0" in a 3-point match ... by timeout.
    _two_games_to(t3, "a")
    snapshot = t3.table.snapshot()
    snapshot["match"].update(winner="a", score={"a": 9, "b": 0}, ended_by="timeout")
    snapshot["state"] = "match_over"
    report = StateReport("t3", t3.stream, t3.seq, t3.seq, time.time(), snapshot)
    t3._ingest([("state", report.to_payload())])

    assert hub.metrics.get("refused", reason=CONTRADICTORY) == 1
    desk.sync()
    t = desk.current()
    assert t is not None
    assert t.match("G1-1").result is None and t.match("G2-1").result is None
    assert t.open_conflicts() == []
    assert hub.metrics.get("table_conflicts", reason="impossible_result") == 1
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(web.asgi()), base_url="http://mesa.test"
    ) as client:
        web.poller.poll()
        cards = (await client.get("/live.json")).json()["tables"]
        c2, c3 = _card(cards, "t2"), _card(cards, "t3")
        assert c2["winner"] is None and c2["score"] == {"a": 0, "b": 2}
        assert c2["refused"] == {"winner": "b", "score_a": 0, "score_b": 300}
        assert c3["winner"] is None and c3["state"] == "result_refused"
        assert c3["score"] == {"a": 2, "b": 0}
        assert "300" not in json.dumps(c2["score"]) and c3["ended_by"] is None
