"""Simulated tables for fault runs and benchmarks: a real :class:`Table`, a real
:class:`TableLink` and outbox, a minimal consumer loop, and a scripted pair of players.

Run one as a process (what the fault runs kill -9)::

    python -m support.tables --table t1 --outbox /tmp/t1.sqlite3 --port 1883 \\
        --password pw-t1 --exit-when-acked

It waits for the hub's assignment, plays the match with simulated time (seconds on the table's
clock pass much faster than on the wall), and resumes after a restart from its outbox.

>>> t = Table()
>>> _ = t.apply("assign", {"match_id": "M", "players": {"a": "A", "b": "B"}, "length": 1},
...             now=0.0)
>>> next_input(t, random.Random(1), 0)
('press', {'side': 'a'})
"""

from __future__ import annotations

import argparse
import logging
import queue
import random
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome
from mesa.games.backgammon.inputs import parse_input
from mesa.games.backgammon.machine import Table


def _other(side: str) -> str:
    return "b" if side == "a" else "a"


def next_input(table: Table, rng: random.Random, turns: int) -> tuple[str, dict[str, Any]] | None:
    """What the players do next in ``table``'s state (None: nothing until the hub acts)."""
    s = table.s
    st = s.state
    if st in ("assigned", "checking_in"):
        side = "a" if "a" not in s.checked_in else "b"
        return "press", {"side": side}
    if st == "between_games":
        return "press", {"side": rng.choice("ab")}
    if st == "running":
        on_move = s.clock.on_move if s.clock else None
        if on_move is None:
            return "resume", {}
        if turns > 8 and rng.random() < 0.08:
            return "claim", {"side": on_move, "winner": on_move, "kind": rng.choice((1, 1, 2))}
        if rng.random() < 0.04:
            return "hold", {"side": on_move}  # a double (refused when the cube is not theirs)
        return "press", {"side": on_move}
    if st == "cube_offered":
        doubler = s.match.cube_offered_by if s.match else "a"
        responder = _other(doubler or "a")
        return ("press" if rng.random() < 0.75 else "hold"), {"side": responder}
    if st == "result_entry":
        if s.claim is not None:
            return "confirm", {"side": _other(s.claim["by"])}
        return "pause_button", {}
    if st == "paused":
        return "resume", {}
    return None


class SimRuntime:
    """The smallest real runtime: one thread applies queued inputs in order and tells sinks."""

    def __init__(self, table: Table, sinks: Sequence[Any] = ()) -> None:
        self.table = table
        self.sinks = list(sinks)
        self.inputs: queue.SimpleQueue[tuple[Input, float]] = queue.SimpleQueue()
        self.now = table.s.last_now or 0.0
        self.lock = threading.Lock()

    def submit(self, inp: Input, now: float) -> None:
        self.inputs.put((inp, now))

    def clock(self) -> float:
        return self.now

    def apply(self, inp: Input, now: float) -> Outcome:
        with self.lock:  # one consumer at a time, whichever thread calls
            # Stamps from other threads (the link) can trail the last input by a hair.
            now = max(now, self.table.s.last_now or 0.0)
            outcome = self.table.apply(inp, now=now)
            snapshot = self.table.snapshot()
            for sink in self.sinks:
                sink.on_outcome(outcome, snapshot, now)
            return outcome

    def drain(self) -> None:
        while True:
            try:
                inp, now = self.inputs.get_nowait()
            except queue.Empty:
                return
            self.apply(inp, now)


def play(
    runtime: SimRuntime,
    rng: random.Random,
    *,
    pace: float = 0.005,
    stop: threading.Event | None = None,
    max_inputs: int = 100_000,
) -> None:
    """Play until the match is over (or ``stop``), pacing inputs ``pace`` wall seconds apart."""
    turns = 0
    game = -1
    for _ in range(max_inputs):
        if stop is not None and stop.is_set():
            return
        runtime.drain()
        table = runtime.table
        if table.state == "match_over":
            return
        if table.s.match is not None and table.s.match.game_number != game:
            game, turns = table.s.match.game_number, 0
        step = next_input(table, rng, turns)
        if step is None:
            time.sleep(0.02)
            continue
        runtime.now += rng.uniform(0.5, 12.0)
        outcome = runtime.apply(parse_input(*step), runtime.now)
        if step[0] == "press" and outcome.accepted:
            turns += 1
        if pace:
            time.sleep(pace)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="one simulated table (tests and benchmarks)")
    p.add_argument("--table", required=True)
    p.add_argument("--outbox", required=True, type=Path)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--pace", type=float, default=0.005)
    p.add_argument("--exit-when-acked", action="store_true")
    p.add_argument("--keepalive", type=int, default=5)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format=f"{args.table} %(levelname)s %(message)s")

    outbox = Outbox(args.outbox, args.table)
    restored = outbox.snapshot()
    table = Table.restore(restored) if restored else Table()
    runtime = SimRuntime(table)
    settings = LinkSettings(
        table=args.table,
        host=args.host,
        port=args.port,
        password=args.password,
        keepalive=args.keepalive,
        reconnect_max=2,
        resend_after=3.0,
    )
    # As the table's own program does (controller/app.py): a new table reports its idle state
    # at once, so the hub knows it is a backgammon table that can take a match.
    link = TableLink(settings, outbox, runtime, snapshot=restored or table.snapshot(),
                     clock=runtime.clock)
    runtime.sinks.append(link)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    link.start()
    rng = random.Random(f"{args.table}-{outbox.last_seq}")
    try:
        play(runtime, rng, pace=args.pace, stop=stop)
        while not stop.is_set():
            runtime.drain()
            link.flush()
            if args.exit_when_acked and outbox.pending == 0 and table.state == "match_over":
                break
            time.sleep(0.05)
    finally:
        link.flush()
        link.stop()
        outbox.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
