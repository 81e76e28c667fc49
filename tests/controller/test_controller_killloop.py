"""kill -9 at random instants, many times, on a running simulated table with robots: after each
restart the restored clocks match the journal's reference, and stay within the delay bound of
what the table showed just before it died.

The loop is bounded: ``MESA_KILL_LOOPS`` restarts (default 8), each under a few seconds.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

from mesa.games.backgammon.machine import Table, TableSettings
from support.killloop import SimChild, journal_records

LOOPS = int(os.environ.get("MESA_KILL_LOOPS", "8"))
SPEED = 20.0
DELAY = 10.0  # the singles delay: the bound a restored clock must stay within


def sim_child(journal: Path, seed: int) -> SimChild:
    return SimChild([
        "--journal", str(journal), "--speed", str(SPEED), "--status-every", "0.05",
        "--seed", str(seed), "--length", "5", "--log-level", "error",
    ])  # fmt: skip


def reference(folder: Path) -> tuple[Table, float]:
    """The journal read independently: the newest generation with a whole snapshot line, its
    records up to the first bad one, and a running clock paused at the last instant known."""
    recs = journal_records(folder)
    table = Table.restore(recs[0]["st"], TableSettings(**recs[0]["set"]))
    last_t = recs[0]["t"]
    for r in recs[1:]:
        last_t = max(last_t, r["t"])
        if r["k"] == "i":
            table.apply(r["i"], r.get("a", {}), now=r["t"])
    if table.state in ("running", "cube_offered"):
        table.apply("pause", {"reason": "unspecified"}, now=last_t)
    return table, last_t


def test_kill_9_at_random_instants(tmp_path: Path) -> None:
    rng = random.Random(1234)
    journal = tmp_path / "journal"
    child = sim_child(journal, seed=3)
    child.wait_start()
    checked = running_restores = 0
    startups = []
    for _ in range(LOOPS):
        time.sleep(rng.uniform(0.4, 1.6))
        last = child.kill9()
        expected, last_t = reference(journal)
        was_running = last["state"] in ("running", "cube_offered")
        child = sim_child(journal, seed=3)
        start = child.wait_start()
        startups.append(child.first_line_after)
        assert start["event"] == "start" and start["restored"] is True
        # The restored clocks are the journal's, to the microsecond...
        ref_reserve = {s: expected.s.clock.reserve[s] for s in "ab"} if expected.s.clock else {}
        for side, value in ref_reserve.items():
            assert start["reserve"][side] == pytest.approx(value, abs=1e-3)
        assert start["state"] == expected.state
        assert start["t"] == pytest.approx(last_t, abs=0.5 * SPEED)
        # ... and within the delay bound of what the table showed before it died.
        if last["match"] == start["match"] and last["reserve"]:
            for side in "ab":
                assert abs(start["reserve"][side] - last["reserve"][side]) <= DELAY
        if was_running:
            assert start["state"] == "paused"
            running_restores += 1
        checked += 1
    child.kill9()
    assert checked == LOOPS
    assert running_restores >= 1
    print(
        f"\n{checked} kill -9 restarts, {running_restores} with a clock running; "
        f"restart to restored table: max {max(startups):.2f} s"  # type: ignore[type-var]
    )
