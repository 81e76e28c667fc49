"""How the table's link reads the retained assignment, without a broker: the table is brought
to the hub's latest word whatever the link remembers, queued or repeated copies are applied once
and in order, and an assignment the table cannot take as it stands is taken anyway."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mesa.controller.games.backgammon import on_assign
from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.engine.inputs import Input
from mesa.games.backgammon.machine import Table
from mesa.protocol import Assignment

PLAYERS = {"a": "Ana", "b": "Beto"}


def args(epoch: int, match_id: str = "KO-F-1", **kw: Any) -> dict[str, Any]:
    return {"match_id": match_id, "players": PLAYERS, "length": 3, "epoch": epoch, **kw}


class Bench:
    """A table, its outbox and its link; the runtime's part is played by :meth:`run`, which
    applies what the link submitted, in order, and hands each outcome back."""

    def __init__(self, tmp_path: Path, table: Table | None = None) -> None:
        self.table = table or Table()
        self.now = 0.0
        self.outbox = Outbox(tmp_path / "outbox.sqlite3", "t9")
        self.queued: list[Input] = []
        self.applied: list[str] = []
        self.answers: list[tuple[str, bool, str | None]] = []
        self.link = TableLink(
            LinkSettings(table="t9"),
            self.outbox,
            self,
            snapshot=self.table.snapshot(),
            clock=lambda: self.now,
        )
        self.link._respond = lambda txn, ok, code, reason: self.answers.append((txn, ok, code))  # type: ignore[method-assign]

    def submit(self, inp: Input, now: float) -> None:
        self.queued.append(inp)

    def send(self, txn: str, a: dict[str, Any] | None) -> None:
        on_assign(self.link, Assignment("t9", txn, a, 0.0))

    def act(self, name: str, **a: Any) -> None:
        """The players (or the director at the table) do something: the link sees the state."""
        self.now += 1.0
        out = self.table.apply(name, a, now=self.now)
        assert out.accepted, out.refusal
        self.link._snapshot = self.table.snapshot()

    def run(self) -> None:
        while self.queued:
            inp = self.queued.pop(0)
            self.now += 1.0
            out = self.table.apply(inp.name, dict(inp.args), now=self.now)
            self.applied.append(inp.name)
            self.link._outcome(out, self.table.snapshot(), self.now, 0.0)

    def close(self) -> None:
        self.outbox.close()


@pytest.fixture
def bench(tmp_path: Path) -> Any:
    b = Bench(tmp_path)
    yield b
    b.close()


def test_a_copy_of_an_assignment_on_its_way_is_not_applied_twice(bench: Bench) -> None:
    bench.send("X1", args(1))
    bench.send("X1", args(1))  # QoS 1 redelivery before the table applied the first
    bench.run()
    assert bench.applied == ["assign"] and bench.answers == [("X1", True, None)]


def test_the_remembered_txn_does_not_hide_a_table_that_lost_its_match(
    tmp_path: Path, bench: Bench
) -> None:
    bench.send("X1", args(1))
    bench.run()
    bench.close()
    # The journal lost its last lines: the table restarts idle, the outbox remembers X1.
    again = Bench(tmp_path)
    try:
        again.send("X1", args(1))
        again.run()
        assert again.table.state == "assigned" and again.table.s.epoch == 1
    finally:
        again.close()


def test_a_repeat_of_what_the_table_holds_is_answered_not_applied(bench: Bench) -> None:
    bench.send("X1", args(1))
    bench.run()
    bench.act("checkin", side="a")
    bench.send("X1", args(1))  # the retained copy at the next reconnection
    bench.send("X2", args(1))  # the same assignment under another txn (a restored table)
    bench.run()
    assert bench.applied == ["assign"] and bench.table.state == "checking_in"
    assert bench.answers[-1] == ("X2", True, "already_assigned")


def test_an_older_epoch_for_the_match_held_is_refused(bench: Bench) -> None:
    bench.send("X5", args(5))
    bench.run()
    bench.send("X3", args(3))  # a hub restored from an older backup
    bench.run()
    assert bench.answers[-1] == ("X3", False, "stale_epoch") and bench.table.s.epoch == 5


def test_given_back_after_it_ended_here_the_match_is_played_afresh(bench: Bench) -> None:
    bench.send("X1", args(1))
    bench.run()
    bench.act("director_forfeit", winner="a")
    bench.send("X4", args(4))  # annulled and drawn again between the same players
    bench.run()
    assert bench.table.state == "assigned" and bench.table.s.epoch == 4
    assert bench.answers[-1] == ("X4", True, None)


def test_another_match_while_a_game_is_on_replaces_it(bench: Bench) -> None:
    bench.send("X1", args(1, clock={"preset": "singles"}))
    bench.run()
    for side in ("a", "b"):
        bench.act("checkin", side=side)
    bench.act("press", side="a")  # the lower die: the game is on
    assert bench.table.state == "running"
    # The withdrawal of KO-F-1 was lost on the way; only the latest assignment arrives.
    bench.send("X7", args(7, match_id="KO-F-2"))
    bench.run()
    assert bench.applied[-2:] == ["unassign", "assign"]
    assert bench.table.s.match_id == "KO-F-2" and bench.table.s.epoch == 7
    assert bench.answers == [("X1", True, None), ("X7", True, None)]


def test_an_assignment_that_met_a_fallen_flag_is_applied_after_it(bench: Bench) -> None:
    bench.send("X1", args(1, clock={"reserve": 5.0, "delay": 1.0}))
    bench.run()
    for side in ("a", "b"):
        bench.act("checkin", side=side)
    bench.act("press", side="a")
    assert bench.table.state == "running"
    bench.now += 60.0  # the flag falls, and no tick settles it before the withdrawal arrives
    bench.send("X2", None)
    bench.run()
    assert bench.applied[-2:] == ["unassign", "unassign"]  # the first one settled the fall
    assert bench.table.state == "idle" and bench.answers[-1] == ("X2", True, None)
