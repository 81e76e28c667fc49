"""A domino table whose machine runs in the test and whose messages go straight into the hub's
ingest (the domino twin of :class:`support.hubkit.FakeTable`), and a quick game for it.

It reads what the hub published for it from the hub's store (the retained assignment, with
``tiempo``, and the director's commands), as a real table reads its topics.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
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
