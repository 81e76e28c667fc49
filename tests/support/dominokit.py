"""A domino table whose machine runs in the test and whose messages go straight into the hub's
ingest (the domino twin of :class:`support.hubkit.FakeTable`), and a quick game for it; and
:class:`LinkedDomino`, a real table runtime with its real hub link on a test broker.

It reads what the hub published for it from the hub's store (the retained assignment, with
``tiempo``, and the director's commands), as a real table reads its topics.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mesa.games.domino.machine import DominoTable
from mesa.hub.ingest.app import Hub
from mesa.hub.ingest.pipeline import Incoming
from mesa.protocol import EventEnvelope, Response, StateReport, TableStatus, table_topic


@dataclass
class FakeDominoTable:
    hub: Hub
    id: str
    table: DominoTable = field(default_factory=DominoTable)
    now: float = 100.0
    seq: int = 0
    stream: str = ""
    applied: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.stream = self.stream or f"d-{self.id}"

    def _ingest(self, messages: list[tuple[str, bytes]]) -> None:
        self.hub.ingest.handle([Incoming(table_topic(self.id, k), p) for k, p in messages])

    def online(self) -> None:
        self.hub.register_table(self.id)
        self._ingest([("status", TableStatus(self.id, "online", 1, time.time()).to_payload())])
        self.apply("tick", {})

    def apply(self, name: str, args: dict[str, Any], dt: float = 1.0,
              txn: str | None = None) -> Any:
        self.now += dt
        out = self.table.apply(name, args, now=self.now)
        messages = []
        for e in out.events:
            self.seq += 1
            env = EventEnvelope.build(self.id, self.stream, self.seq, e.TYPE, e.to_data(),
                                      ts=time.time(), t=self.now)
            messages.append(("event", env.to_payload()))
        report = StateReport(self.id, self.stream, self.seq, self.seq, time.time(),
                             self.table.snapshot())
        messages.append(("state", report.to_payload()))
        if txn is not None:
            r = out.refusal
            messages.append(("response", Response(self.id, txn, out.accepted,
                                                  r.code if r else None,
                                                  r.message if r else None,
                                                  time.time()).to_payload()))
        self._ingest(messages)
        return out

    def serve(self) -> int:
        """Apply the hub's retained game (and "TIEMPO") and commands, as the link would."""
        done = 0
        for a in self.hub.store.assignments():
            if a["table"] != self.id or a["txn"] in self.applied:
                continue
            self.applied.add(a["txn"])
            args = dict(a["args"] or {})
            tiempo = args.pop("tiempo", None)
            if not args:
                self.apply("unassign", {}, txn=a["txn"])
            elif self.table.s.game_id != args["game_id"] or self.table.state == "idle":
                self.apply("assign", args, txn=a["txn"])
            if tiempo is not None and self.table.state == "assigned":
                self.apply("tiempo", {"start_wall": tiempo, "wall": time.time()}, dt=0.0)
            done += 1
        for c in reversed(self.hub.store.commands(self.id)):
            if c["kind"] == "cmd" and c["txn"] not in self.applied and c["accepted"] is None:
                self.applied.add(c["txn"])
                self.apply(c["input"], c["args"] or {}, txn=c["txn"], dt=0.1)
                done += 1
        return done

    def play_hand(self, lead: str, winner_seat: str, points: int) -> None:
        """A hand: ``lead`` leads, ``winner_seat`` (on turn after the lead? any) dominoes.

        The lead's press starts it; the winner's long hold on its turn ends it with a domino;
        the winning pair claims ``points`` and the other pair confirms.
        """
        from mesa.games.domino.rules import next_seat, opponents, pair_of

        self.apply("press", {"seat": lead})
        seat = next_seat(lead)  # type: ignore[arg-type]
        while seat != winner_seat:
            self.apply("press", {"seat": seat})
            seat = next_seat(seat)
        self.apply("long_hold", {"seat": winner_seat})
        self.apply("claim", {"seat": winner_seat, "points": points})
        self.apply("confirm", {"seat": opponents(pair_of(winner_seat))[0]})  # type: ignore[arg-type]

    def win_game(self, pair: str = "ns") -> None:
        """Play hands until ``pair`` reaches 200 (each hand +100 to it)."""
        from mesa.games.domino.rules import members

        winner = members(pair)[0]  # type: ignore[arg-type]
        while self.table.state != "game_over":
            lead = self.table.s.game.next_lead or "n"  # type: ignore[union-attr]
            self.play_hand(lead, winner, 100)


# ── a domino table on a real broker ──
class Outcomes:
    """A table sink that keeps every outcome, so a test can wait for the one of its input."""

    def __init__(self) -> None:
        self.outcomes: list[Any] = []
        self.cond = threading.Condition()

    def on_outcome(self, outcome: Any, snapshot: dict[str, Any], now: float) -> None:
        with self.cond:
            self.outcomes.append(outcome)
            self.cond.notify_all()

    def count(self) -> int:
        with self.cond:
            return len(self.outcomes)

    def wait_for(self, inp: Any, since: int, timeout: float = 10.0) -> Any:
        """The first outcome after the ``since``-th of an input like ``inp`` (the machine
        fills in its defaults: same name, the same values for ``inp``'s arguments)."""

        def like(o: Any) -> bool:
            return bool(o.input.name == inp.name
                        and all(o.input.args.get(k) == v for k, v in inp.args.items()))

        with self.cond:
            found = self.cond.wait_for(
                lambda: any(like(o) for o in self.outcomes[since:]), timeout)
            assert found, f"the table did not take {inp}"
            return next(o for o in self.outcomes[since:] if like(o))

    def types(self) -> list[str]:
        with self.cond:
            return [e.TYPE for o in self.outcomes for e in o.events]


class LinkedDomino:
    """A real domino table runtime (``SimTable``, no robots) with its real hub link on the
    test broker: the test is its four players (:meth:`do` gives it an input and waits for
    what it did). ``speed``: its clock runs that many times faster (15 s of play is 0.75 s at
    20×; a 35-minute game lasts 105 s, longer than any test here)."""

    def __init__(self, table: str, port: int, folder: Path, *, speed: float = 20.0) -> None:
        from mesa.controller.app import make_link
        from mesa.controller.sim import SimTable
        from support.mosquitto import table_password

        self.id = table
        self.outcomes = Outcomes()
        folder.mkdir(parents=True, exist_ok=True)

        def link(runtime: Any, snapshot: dict[str, Any]) -> Any:
            return make_link(runtime, table_id=table, host="127.0.0.1", port=port,
                             password=table_password(table), outbox=folder / f"{table}.sqlite3",
                             snapshot=snapshot)

        self.sim = SimTable(table, game="domino", speed=speed, robots=(), link=link,
                            sinks=[self.outcomes])
        self.sim.start()

    @property
    def state(self) -> str:
        return str(self.sim.runtime.view().state)

    @property
    def machine(self) -> DominoTable:
        return self.sim.runtime.table  # type: ignore[no-any-return]

    def do(self, name: str, **args: Any) -> Any:
        """Give the table ``name`` (``args``) now and wait for its outcome."""
        from mesa.engine.inputs import Input

        inp = Input(name, args)
        since = self.outcomes.count()
        self.sim.runtime.submit(inp, self.sim.runtime.now())
        return self.outcomes.wait_for(inp, since)

    def wait_state(self, state: str, timeout: float = 15.0) -> bool:
        from support.harness import wait_until

        return wait_until(lambda: self.state == state, timeout)

    def play_hand(self, lead: str, winner_seat: str, points: int) -> None:
        """A hand that ``winner_seat`` dominoes for ``points``: the lead leads, every seat
        plays in turn until the winner's last tile, the other pair confirms."""
        from mesa.games.domino.rules import next_seat, opponents, pair_of

        self.do("press", seat=lead)
        seat = next_seat(lead)  # type: ignore[arg-type]
        while seat != winner_seat:
            self.do("press", seat=seat)
            seat = next_seat(seat)
        self.do("long_hold", seat=winner_seat)
        self.do("claim", seat=winner_seat, points=points)
        self.do("confirm", seat=opponents(pair_of(winner_seat))[0])  # type: ignore[arg-type]

    def lead(self) -> str:
        g = self.machine.s.game
        return (g.next_lead if g is not None else None) or "n"

    def win_game(self, pair: str = "ns") -> None:
        """Hands of 100 to ``pair`` until it has 200."""
        from mesa.games.domino.rules import members

        while self.state != "game_over":
            self.play_hand(self.lead(), members(pair)[0], 100)  # type: ignore[arg-type]

    def stop(self) -> None:
        self.sim.stop()


@dataclass
class Room:
    """A hub on its own broker with two linked domino tables (``t1``, ``t2``) and a domino
    desk that folds the tables' events when the test says (:meth:`sync_until`), so a fine can
    be given while a table is at ``game_over`` and the hub has not recorded the game."""

    folder: Path
    broker: Any
    hub: Hub
    tables: dict[str, LinkedDomino]
    venue: Any = None
    desk: Any = None

    def open_desk(self, command_wait: float = 5.0) -> Any:
        from mesa.hub.desk.games.domino import DominoDesk

        self.desk = DominoDesk(self.hub.settings.db, hub=self.hub, venue=self.venue,
                               command_wait=command_wait)
        return self.desk

    @property
    def d(self) -> Any:
        assert self.desk is not None
        return self.desk

    def sync_until(self, pred: Any, timeout: float = 15.0) -> None:
        from support.harness import wait_until

        assert wait_until(lambda: (self.d.sync(), pred())[1], timeout), "never came"

    def event(self, tid: str = "D1") -> Any:
        return self.d.read(lambda t: t, tid)

    def entries(self, tid: str = "D1") -> list[tuple[str, int, int, str, str]]:
        return self.d.read(lambda t: [(e.player, e.points, e.games, e.reason, e.game_id)  # type: ignore[no-any-return]
                                      for e in t.entries], tid)

    def status(self, gid: str = "R1-M1", tid: str = "D1") -> str:
        return self.d.read(lambda t: t.games[gid].status, tid)  # type: ignore[no-any-return]


@contextlib.contextmanager
def linked_room(folder: Path) -> Iterator[Room]:
    """A :class:`Room` in ``folder``, everything stopped afterwards. Its broker is its own: a
    game retained for another test's ``t1`` must not reach this one's."""
    import pytest

    from mesa.hub.desk.venue import Venue
    from support.harness import hub_settings, wait_until
    from support.mosquitto import have_mosquitto, start_broker

    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    broker = start_broker(folder / "broker", tables=("t1", "t2"))
    hub = Hub(hub_settings(folder / "hub.sqlite3", broker)).start()
    tables = {t: LinkedDomino(t, broker.port, folder / "tables") for t in ("t1", "t2")}
    r = Room(folder, broker, hub, tables, Venue())
    r.open_desk()
    try:
        assert wait_until(lambda: r.d.free_tables() == ["t1", "t2"], 20), r.d.free_tables()
        yield r
    finally:
        if r.desk is not None:
            r.desk.close()
        for t in tables.values():
            t.stop()
        hub.stop()
        broker.stop()
