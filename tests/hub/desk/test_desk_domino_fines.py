"""Fines through the hub: every fine and award lands exactly once on the players' records,
whatever the game's moment (RULES §5: the table keeps the game, the hub keeps the records).

A real Mosquitto, the hub on it (its ingest, its SQLite), the domino desk, and real domino table
runtimes with their real hub links (:class:`support.dominokit.LinkedDomino`), the test playing
their four seats. The desk folds the tables' events when the test says (``room.sync``), so a
fine can be given while the table is at ``game_over`` and the hub has not recorded the game.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesa.games.domino.event import PairsError
from support.dominokit import LinkedDomino, Room, linked_room
from support.harness import wait_until

pytestmark = [pytest.mark.broker]

PAIRS = (("ana", "beto"), ("carla", "dani"))  # seated n=ana e=carla s=beto w=dani
NAMES = {"ana": "ANA", "beto": "BETO", "carla": "CARLA", "dani": "DANI", "eva": "EVA"}


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    with linked_room(tmp_path) as r:
        yield r


def begin(room: Room, *, tiempo: bool = True) -> LinkedDomino:
    """A pairs event of two pairs, its round at t1; "TIEMPO"; the game under way."""
    room.d.create("Dominó", actor="director")
    for a, b in PAIRS:
        room.d.register_pair(a, b, (NAMES[a], NAMES[b]), actor="director")
    (g,) = room.d.start_round(actor="director", tables=["t1"])
    table = room.tables[g.table]
    assert table.wait_state("assigned")
    if tiempo:
        room.d.call_tiempo(actor="director")
        assert table.wait_state("ready")
        room.sync_until(lambda: room.status() == "playing")
    return table


def record_of(room: Room, player: str) -> Any:
    return room.d.read(lambda t: t.records()[player], "D1")


def test_a_fine_at_every_moment_lands_once(room: Room) -> None:
    table = begin(room)
    # During a hand: recorded at once, nothing sent (the game does not change).
    table.do("press", seat="n")
    assert table.state == "playing"
    r = room.d.penalty("R1-M1", "ana", "wrong_lead", None, actor="juez")
    assert (r.step, r.points, r.command, r.warning) == ("wrong_lead", -25, None, "")
    assert table.state == "playing" and table.machine.s.game.penalties == []
    # At game_over, the game not yet recorded by the hub (its game.ended not yet folded).
    table.do("press", seat="w")
    table.do("long_hold", seat="s")  # s on turn: his last tile, a domino for ns
    table.do("claim", seat="n", points=100)
    table.do("confirm", seat="e")
    table.win_game("ns")
    assert table.state == "game_over" and room.status() == "playing"
    room.d.penalty("R1-M1", "carla", "left_before_sheet", None, actor="juez")
    room.sync_until(lambda: room.status() == "ended")
    # After the game is recorded.
    room.d.penalty("R1-M1", "dani", "asked_score", -30, actor="juez")
    want = [("ana", -25, 0, "wrong_lead", "R1-M1"), ("carla", -25, 0, "left_before_sheet",
            "R1-M1"), ("dani", -30, 0, "asked_score", "R1-M1")]
    assert room.entries() == want
    # The game counts hand points only; each record has its fine once.
    g = room.event().games["R1-M1"]
    assert g.hand_score == table.machine.s.game.score and g.winner_side == "ns"
    recs = room.d.read(lambda t: t.records())
    assert (recs["ana"].fines, recs["carla"].fines, recs["dani"].fines) == (-25, -25, -30)
    assert recs["ana"].points == g.hand_score["ns"] - 25
    # Folding again, or after a restart, adds nothing.
    room.d.sync()
    room.d.close()
    room.open_desk()
    room.d.sync()
    assert room.entries() == want


def _slow_plays(table: LinkedDomino) -> None:
    """w plays slowly twice (a warning, then −25) and e passes late (+25 to n and s)."""
    import time

    table.do("press", seat="n")  # n leads; w on turn
    time.sleep(0.85)  # 17 s at 20×
    table.do("press", seat="w")  # the warning
    table.do("press", seat="s")
    table.do("press", seat="e")
    table.do("press", seat="n")
    time.sleep(0.85)
    table.do("press", seat="w")  # −25
    table.do("press", seat="s")
    time.sleep(0.35)  # 7 s to say pass
    table.do("hold", seat="e")  # +25 to n and s


def test_the_tables_timer_fines_land_once_replayed_or_across_a_restart(
    room: Room, caplog: pytest.LogCaptureFixture
) -> None:
    table = begin(room)
    # The desk goes down cleanly (its cursor saved); the table's fines are committed meanwhile.
    room.d.close()
    room.desk = None
    _slow_plays(table)
    assert wait_until(lambda: len([e for e in room.hub.store.events("t1")
                                   if e["type"] == "domino.penalty"]) == 3, 10)
    rows = [e for e in room.hub.store.events("t1") if e["type"] == "domino.penalty"]
    # A desk that folds them, saves the event, and dies before it stores its cursor.
    crashing = room.open_desk()

    def die(cursor: int) -> None:
        raise RuntimeError("killed before the cursor was stored")

    crashing.advance = die  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        crashing.sync()
    assert len(room.entries()) == 3
    crashing.close()
    # The next desk reads them again from the old cursor: the rowid key lands each once.
    room.open_desk()
    room.d.sync()
    want = sorted([("dani", -25, 0, "slow_play", "R1-M1"), ("ana", 25, 0, "late_pass", "R1-M1"),
                   ("beto", 25, 0, "late_pass", "R1-M1")])
    assert sorted(room.entries()) == want
    keys = room.d.read(lambda t: sorted(str(e.key) for e in t.entries))
    assert keys == sorted(f"event:{e['rowid']}" for e in rows)
    # The table sends one of them again (a replay through the broker): nothing new lands.
    caplog.set_level(logging.INFO, logger="mesa.hub.ingest.pipeline")
    _republish(room, rows[0]["rowid"])
    assert wait_until(lambda: "duplicate events of table t1" in caplog.text, 10)
    room.d.sync()
    assert sorted(room.entries()) == want
    assert len([e for e in room.hub.store.events("t1") if e["type"] == "domino.penalty"]) == 3
    rec = record_of(room, "dani")
    assert (rec.fines, rec.awards) == (-25, 0)


def _republish(room: Room, rowid: int) -> None:
    """The committed event ``rowid`` published again on its table's topic, as a table whose
    broker ack was lost publishes it again."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    from mesa.protocol import table_topic
    from support.mosquitto import table_password

    db = sqlite3.connect(str(room.hub.settings.db))
    (payload,) = db.execute("SELECT payload FROM events WHERE rowid = ?", (rowid,)).fetchone()
    db.close()
    sent = json.loads(payload)
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="replay-t1", protocol=mqtt.MQTTv5)
    c.username_pw_set("t1", table_password("t1"))
    c.connect("127.0.0.1", room.broker.port)
    c.loop_start()
    info = c.publish(table_topic("t1", "event"), payload, qos=1)
    info.wait_for_publish(5)
    c.loop_stop()
    c.disconnect()
    same = [e for e in room.hub.store.events("t1")
            if (e["stream"], e["seq"]) == (sent["stream"], sent["seq"])]
    assert len(same) == 1 and sent["type"] == "domino.penalty"


def test_talking_three_times_escalates_to_expulsion_ending_the_game(room: Room) -> None:
    table = begin(room)
    table.do("press", seat="n")
    steps = [room.d.penalty("R1-M1", p, "talking", None, actor="juez")
             for p in ("carla", "dani")]
    # carla −25; her partner dani the second time: −75 to each of the two.
    assert [s.step for s in steps] == ["talking_first", "talking_second"]
    assert room.entries() == [("carla", -25, 0, "talking", "R1-M1"),
                              ("dani", -75, 0, "talking_second", "R1-M1"),
                              ("carla", -75, 0, "talking_second", "R1-M1")]
    assert table.state == "playing"  # nothing sent so far
    third = room.d.penalty("R1-M1", "carla", "talking", None, actor="juez")
    assert (third.step, third.expelled, third.command, third.warning) == (
        "talking_third", "carla", ("penalty", {"seat": "e", "reason": "talking_third"}), "")
    # The table ended the game, won by the other pair; the hub records it.
    assert table.wait_state("game_over")
    assert table.machine.s.game.ended_by == "expulsion"
    room.sync_until(lambda: room.status() == "ended")
    g = room.event().games["R1-M1"]
    assert (g.winner_side, g.how) == ("ns", "expulsion")
    recs = room.d.read(lambda t: t.records())
    assert (recs["ana"].won, recs["ana"].awards, recs["beto"].won) == (1, 100, 1)
    assert recs["carla"].expelled and recs["carla"].fines == -100 and recs["carla"].won == 0
    assert room.d.read(lambda t: t.pairs["P2"].withdrawn)


def test_an_annulled_hand_at_the_table_and_its_fine_once(room: Room) -> None:
    table = begin(room)
    table.do("press", seat="n")
    table.do("press", seat="w")
    r = room.d.penalty("R1-M1", "beto", "pass_with_playable", None, actor="juez", annul=True)
    assert (r.step, r.points, r.command) == (
        "pass_with_playable", -25, ("annul", {"seat": "s", "reason": "pass_with_playable"}))
    assert table.state == "ready"
    hand = table.machine.s.game.hands[-1]
    assert (hand.how, hand.points) == ("annulled", 0)
    assert table.lead() == "w"  # the lead rotates
    assert room.entries() == [("beto", -25, 0, "pass_with_playable", "R1-M1")]
    # The grid's card follows: the hand annulled, the table ready for the next.
    assert wait_until(lambda: room.hub.table("t1")["state"] == "ready", 10)  # type: ignore[index]
    room.d.sync()
    assert room.entries() == [("beto", -25, 0, "pass_with_playable", "R1-M1")]
    # Annulling now (no hand on) is refused by the table: nothing recorded, said why.
    with pytest.raises(PairsError) as refused:
        room.d.penalty("R1-M1", "beto", "chivo", None, actor="juez", annul=True)
    assert refused.value.code == "table_refused"
    assert len(room.entries()) == 1


def test_late_twice_and_an_unsigned_sheet_at_the_next_assignment(room: Room) -> None:
    table = begin(room, tiempo=False)
    first = room.d.late("R1-M1", "ana", actor="juez")
    assert (first.step, first.points, first.command) == ("late_first", 0, ("late", {"seat": "n"}))
    assert "domino.player.late" in table.outcomes.types()
    room.d.call_tiempo(actor="director")
    assert table.wait_state("ready")
    table.win_game("ew")
    table.do("sign", seat="e")  # ew sign; ns never do
    room.sync_until(lambda: room.status() == "ended")
    assert wait_until(lambda: "t1" in room.d.free_tables(), 10)
    (g2,) = room.d.start_round(actor="director", tables=["t1"])
    assert table.wait_state("assigned")
    assert "domino.sheet.unsigned" in table.outcomes.types()
    room.sync_until(lambda: len(room.entries()) == 3)
    second = room.d.late(g2.id, "ana", actor="juez")
    assert (second.step, second.points) == ("late_repeat", -50)
    assert room.entries() == [("ana", 0, 0, "late_arrival", "R1-M1"),
                              ("ana", -25, 0, "sheet_unsigned", "R1-M1"),
                              ("beto", -25, 0, "sheet_unsigned", "R1-M1"),
                              ("ana", -50, 0, "late_arrival_repeat", "R2-M1")]
    rec = record_of(room, "ana")
    assert (rec.late, rec.fines) == (2, -75)
    room.d.sync()
    assert len(room.entries()) == 4


def test_abandonment_gives_the_other_three_a_game_and_100(room: Room) -> None:
    table = begin(room)
    table.do("press", seat="n")
    r = room.d.penalty("R1-M1", "dani", "abandoned", None, actor="juez")
    assert (r.step, r.expelled) == ("abandoned", "dani")
    assert table.wait_state("game_over")
    room.sync_until(lambda: room.status() == "ended")
    recs = room.d.read(lambda t: t.records())
    assert [(p, recs[p].won, recs[p].awards, recs[p].fines) for p in
            ("ana", "beto", "carla", "dani")] == [
        ("ana", 1, 100, 0), ("beto", 1, 100, 0), ("carla", 1, 100, 0), ("dani", 0, 0, -200)]
    assert recs["dani"].expelled and recs["dani"].red_card
    assert room.event().games["R1-M1"].how == "expulsion"


def test_refusals_are_clear_logged_and_change_nothing(
    room: Room, caplog: pytest.LogCaptureFixture
) -> None:
    table = begin(room)
    table.do("press", seat="n")
    before = room.event().to_dict()
    caplog.set_level(logging.WARNING, logger="mesa.web.domino")
    cases: list[tuple[str, Any]] = [
        ("no_game", lambda: room.d.penalty("R9-M9", "ana", "talking", None, actor="j")),
        ("not_in_game", lambda: room.d.penalty("R1-M1", "zoe", "talking", None, actor="j")),
        ("bad_reason", lambda: room.d.penalty("R1-M1", "ana", "slow_play", None, actor="j")),
        ("wrong_format", lambda: room.d.register_player("zoe", "ZOE", actor="j")),
        ("bad_format", lambda: room.d.create("X", actor="j", format="teams")),
        ("unknown_tournament", lambda: room.d.late("R1-M1", "ana", actor="j", t="D9")),
        # The table refuses a late arrival during a hand.
        ("table_refused", lambda: room.d.late("R1-M1", "ana", actor="j")),
    ]
    for code, action in cases:
        with pytest.raises(PairsError) as refused:
            action()
        assert refused.value.code == code, (code, refused.value)
        assert code in caplog.text
    assert room.event().to_dict() == before
    # A table that does not answer: the annul records nothing.
    room.d.close()
    room.open_desk(command_wait=1.0)
    table.stop()
    with pytest.raises(PairsError) as refused:
        room.d.penalty("R1-M1", "ana", "chivo", None, actor="j", annul=True)
    assert refused.value.code == "table_timeout"
    after = room.event().to_dict()
    assert after["entries"] == before["entries"] and after["games"] == before["games"]
    # A closed event refuses everything.
    room.d.create("Otro", actor="j")
    other = room.d.read(lambda t: t.id, "D2")
    room.d.close_tournament(actor="j", t=other)
    with pytest.raises(PairsError) as refused:
        room.d.penalty("R1-M1", "ana", "talking", None, actor="j", t=other)
    assert refused.value.code == "closed"


def test_an_expulsion_stands_when_the_table_does_not_answer(room: Room) -> None:
    table = begin(room)
    table.do("press", seat="n")
    for _ in range(2):
        room.d.penalty("R1-M1", "ana", "talking", None, actor="juez")
    room.d.close()
    room.open_desk(command_wait=1.0)
    table.stop()  # the table is gone: the third time is recorded, the director warned
    r = room.d.penalty("R1-M1", "ana", "talking", None, actor="juez")
    assert (r.step, r.expelled, r.warning_code) == ("talking_third", "ana", "table_timeout")
    assert "did not answer" in r.warning
    recs = room.d.read(lambda t: t.records())
    assert recs["ana"].expelled and room.d.read(lambda t: t.pairs["P1"].withdrawn)
    assert room.status() == "playing"  # the table never ended it: the director sees it runs


def test_an_absence_is_recorded_though_the_tables_end_of_game_comes_first(room: Room) -> None:
    """The desk follows the tables live (woken at every commit, as the web app wakes it): the
    table ends its game the moment it takes the absence, and the hub records the absence
    all the same (the answer and the record are one step of the desk)."""
    table = begin(room, tiempo=False)
    room.hub.ingest.listeners.append(lambda commit: room.d.wake(commit.rows))
    seats = room.d.absence("R1-M1", ["dani"], actor="juez")
    assert seats == ["w"] and table.state == "game_over"
    room.sync_until(lambda: room.status() == "ended")
    assert sorted(room.entries()) == sorted([
        ("dani", -100, 0, "absent", "R1-M1"), ("ana", 100, 1, "absence_award", "R1-M1"),
        ("beto", 100, 1, "absence_award", "R1-M1"), ("carla", 100, 1, "absence_award", "R1-M1")])
    recs = room.d.read(lambda t: t.records())
    # The game's own result gives no win: the awards do, one each to the present players.
    assert [(p, recs[p].won, recs[p].points) for p in ("ana", "beto", "carla", "dani")] == [
        ("ana", 1, 100), ("beto", 1, 100), ("carla", 1, 100), ("dani", 0, -100)]
    assert room.event().games["R1-M1"].how == "absence"
