"""The domino table's link against a real Mosquitto and the real hub: the retained game with its
"TIEMPO", a table that joins late or restarts counting the same time, director commands, the
events reaching the hub."""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mesa.controller.journal import Journal
from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.controller.runtime import TableRuntime
from mesa.engine.inputs import Input
from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.ingest.app import Hub
from mesa.protocol import DominoAssignment, DominoCommand, table_topic
from support.harness import wait_until
from support.mosquitto import table_password

pytestmark = pytest.mark.broker
PLAYERS = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}
GAME = 35 * 60.0


class Director:
    """The hub's side of the domino wire. The hub's domino desk is another change, so this
    publishes the retained game and the commands through the running hub's own connection (the
    broker gives the hub's account one session) and records their txns with the hub, which then
    stores the table's responses like any other."""

    def __init__(self, hub: Hub, table: str) -> None:
        self.hub = hub
        self.table = table
        self._txn = itertools.count(1)

    def _send(
        self,
        kind: str,
        payload: bytes,
        retain: bool,
        txn: str,
        input: str,
        args: dict[str, Any] | None,
    ) -> None:
        self.hub.ingest.write(
            lambda: self.hub.store.record_command(txn, self.table, kind, input, args)
        )
        self.hub._publish(table_topic(self.table, kind), payload, 1, retain)

    def assign(self, args: dict[str, Any] | None, tiempo: float | None = None) -> str:
        txn = f"a{next(self._txn)}-{time.time_ns()}"
        msg = DominoAssignment(self.table, txn, "domino", args, tiempo, time.time())
        self._send("assign", msg.to_payload(), True, txn, "assign" if args else "unassign", args)
        return txn

    def command(self, input: str, args: dict[str, Any], raw: bool = False) -> str:
        txn = f"c{next(self._txn)}-{time.time_ns()}"
        if raw:  # what a hub with a bug might send: the table refuses it with a reason
            payload = json.dumps(
                {
                    "v": 1,
                    "table": self.table,
                    "txn": txn,
                    "game": "domino",
                    "input": input,
                    "args": args,
                    "ts": time.time(),
                }
            ).encode()
        else:
            payload = DominoCommand(
                self.table, txn, "domino", input, args, time.time()
            ).to_payload()
        self._send("cmd", payload, False, txn, input, args)
        return txn

    def answered(self, txn: str, timeout: float = 10.0) -> dict[str, Any]:
        def done() -> bool:
            status = self.hub.command_status(txn)
            return bool(status and status["accepted"] is not None)

        assert wait_until(done, timeout), f"no response to {txn}: {self.hub.command_status(txn)}"
        status = self.hub.command_status(txn)
        assert status is not None
        return status

    def close(self) -> None:
        # The retained game is this test's: leave nothing for another.
        self.hub._publish(table_topic(self.table, "assign"), b"", 1, True)


@dataclass
class Table:
    runtime: TableRuntime
    journal: Journal
    outbox: Outbox
    link: TableLink

    def stop(self) -> None:
        self.link.stop()
        self.runtime.stop()
        self.journal.close()
        self.outbox.close()


def boot(table: str, port: int, folder: Path) -> Table:
    """A domino table as a Pi runs it: journal restore, link, loop (real monotonic time)."""
    runtime = TableRuntime(game="domino", tick_interval=0.05, table_id=table)
    journal = Journal(folder / "journal", game="domino", fsync=False)
    recovery = journal.prepare(runtime)
    outbox = Outbox(folder / "outbox.sqlite3", table)
    snapshot = recovery.table.snapshot() if recovery else runtime.snapshot()
    settings = LinkSettings(
        table=table, port=port, password=table_password(table), keepalive=5, resend_after=2.0
    )
    link = TableLink(
        settings, outbox, runtime, snapshot=snapshot, clock=runtime.now, game="domino"
    )
    runtime.add_sink(link)
    if recovery is not None:
        runtime.restore(recovery)
    link.start()
    runtime.start()
    return Table(runtime, journal, outbox, link)


def press(t: Table, name: str, seat: str) -> None:
    t.runtime.submit(Input(name, {"seat": seat}), t.runtime.now())


def test_a_late_table_a_restart_and_the_director_over_the_wire(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    hub.register_table(table_id)
    director = Director(hub, table_id)
    # "TIEMPO" was called two minutes before this table joined.
    start_wall = time.time() - 120.0
    txn = director.assign({"game_id": "R1-M4", "players": PLAYERS}, tiempo=start_wall)
    t = boot(table_id, mosquitto.port, tmp_path)
    try:
        assert wait_until(lambda: t.runtime.view().state == "ready", 10)
        left = t.runtime.view().game_time_left
        assert left == pytest.approx(GAME - (time.time() - start_wall), abs=1.0)
        assert director.answered(txn)["accepted"] is True

        press(t, "press", "n")  # n leads
        press(t, "press", "w")
        press(t, "hold", "s")  # "paso"
        assert wait_until(lambda: t.runtime.view().on_turn == "e", 5)

        # A director's penalty arrives as a command and is answered.
        pen = director.command("penalty", {"seat": "e", "reason": "talking"})
        answer = director.answered(pen)
        assert answer["accepted"] is True, answer
        assert t.runtime.view().penalties[-1].reason == "talking"
        # "TIEMPO" is not a command (it is the retained game's); an unknown one is refused.
        bad = director.command("tiempo", {"start_wall": 1.0, "wall": 2.0}, raw=True)
        assert director.answered(bad)["code"] == "bad_input"
        bad = director.command("absence", {"seats": ["x"]}, raw=True)
        assert director.answered(bad)["code"] == "bad_input"

        # The events reach the hub, in order, acknowledged.
        assert t.link.flush(10)
        assert wait_until(lambda: t.outbox.pending == 0, 20), t.outbox.pending
        types = [e["type"] for e in hub.events(table_id)]
        assert types[:3] == ["domino.table.assigned", "domino.game.started", "domino.hand.started"]
        assert "domino.penalty" in types and types.count("domino.turn.ended") == 2
    finally:
        t.stop()

    # The table is down for 3 s; it restarts from its journal, reads the retained game again,
    # and re-anchors its time on the hub's start: the time down counts, like at the other tables.
    time.sleep(3.0)
    t = boot(table_id, mosquitto.port, tmp_path)
    try:
        assert wait_until(
            lambda: any(e["type"] == "domino.time.synced" for e in hub.events(table_id)), 15
        )
        view = t.runtime.view()
        assert view.state == "playing" and view.on_turn == "e" and view.hand == 1
        assert view.game_time_left == pytest.approx(GAME - (time.time() - start_wall), abs=1.0)
        types = [e["type"] for e in hub.events(table_id)]
        assert "table.restored" in types
        # The hub withdraws the game.
        gone = director.assign(None)
        assert wait_until(lambda: t.runtime.view().state == "idle", 10)
        assert director.answered(gone)["accepted"] is True
    finally:
        t.stop()
        director.close()
