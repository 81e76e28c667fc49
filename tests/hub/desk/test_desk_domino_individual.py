"""An individual domino event through the hub: partners drawn each round, the draw's seats at
the tables, the venue's seats, a round waiting for a player seated elsewhere, and the records
per player (a real Mosquitto, the hub, real domino table runtimes with their links)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mesa.games.domino.event import PairsError
from mesa.hub.desk.games.domino import PlayersBusy
from mesa.hub.desk.venue import Seat
from support.dominokit import Room, linked_room

pytestmark = [pytest.mark.broker]

PLAYERS = ["ana", "beto", "carla", "dani", "eva"]


@pytest.fixture
def room(tmp_path: Path) -> Iterator[Room]:
    with linked_room(tmp_path) as r:
        yield r


def test_an_individual_event_draws_seats_and_keeps_records_per_player(room: Room) -> None:
    d = room.d
    t = d.create("Individual", actor="director", format="individual")
    assert t.format == "individual"
    assert [(e["id"], e["format"]) for e in d.events()] == [("D1", "individual")]
    for p in PLAYERS:
        d.register_player(p, p.upper(), actor="director")
    with pytest.raises(PairsError) as refused:
        d.register_pair("x", "y", ("X", "Y"), actor="director")
    assert refused.value.code == "wrong_format"
    d.remove_player("eva", actor="director")
    d.register_player("eva", "EVA", actor="director")
    # A drawn player sits at a backgammon table: the round waits unless confirmed.
    nxt = d.read(lambda x: x.next_players())
    assert len(nxt) == 4
    room.venue.publish("backgammon", [Seat(nxt[0], "9", "2026-12", "Open", "backgammon")])
    with pytest.raises(PlayersBusy) as busy:
        d.start_round(actor="director")
    assert [e.name for e in busy.value.elsewhere] == [nxt[0].upper()]
    room.venue.publish("backgammon", [])
    (g,) = d.start_round(actor="director")
    seats = d.read(lambda x: x.seating(x.games[g.id]))
    assert sorted(seats.values()) == sorted(nxt)
    sat_out = d.read(lambda x: x.sitouts[0])
    assert sat_out == [p for p in PLAYERS if p not in nxt]
    # The venue knows the four drawn players at that table; the table shows their names.
    busy_now = room.venue.busy(besides="backgammon")
    assert sorted(busy_now) == sorted(nxt) and {s.table for s in busy_now.values()} == {g.table}
    table = room.tables[g.table]
    assert table.wait_state("assigned")
    assert table.machine.s.players == {s: p.upper() for s, p in seats.items()}
    d.call_tiempo(actor="director")
    assert table.wait_state("ready")
    table.do("press", seat="n")
    fine = d.penalty(g.id, seats["e"], "talking", None, actor="juez")
    assert fine.step == "talking_first"
    table.win_game("ns")
    room.sync_until(lambda: room.status(g.id) == "ended")
    recs = d.read(lambda x: x.records())
    hand = table.machine.s.game.score
    assert recs[seats["n"]].won == 1 and recs[seats["s"]].won == 1
    assert recs[seats["n"]].points == hand["ns"]
    assert recs[seats["e"]].points == hand["ew"] - 25 and recs[seats["w"]].points == hand["ew"]
    # The sit-out: a game won and +100, as a bye.
    assert (recs[sat_out[0]].won, recs[sat_out[0]].points) == (1, 100)
    rows = d.read(lambda x: [(r.player, r.won) for r in x.standings()])
    assert len(rows) == 5 and rows[0][1] == 1
    # The next round's draw: the sit-out plays now.
    assert sat_out[0] in d.read(lambda x: x.next_players())
