"""kill -9 at random instants, many times, on a running simulated table with robots: after each
restart the restored clocks match the journal's reference, and stay within the delay bound of
what the table showed just before it died.

The loop is bounded: ``MESA_KILL_LOOPS`` restarts (default 8), each under a few seconds.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mesa.games.backgammon.machine import Table, TableSettings
from support.killloop import KillLoop, SimChild, journal_records, replay

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
    last_t = replay(table, recs)
    if table.state in ("running", "cube_offered"):
        table.apply("pause", {"reason": "unspecified"}, now=last_t)
    return table, last_t


def test_kill_9_at_random_instants(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    loop = KillLoop(lambda: sim_child(journal, seed=3), seed=1234)
    checked = running_restores = 0
    for _ in range(LOOPS):
        last, (expected, last_t), start = loop.restart(lambda: reference(journal))
        was_running = last["state"] in ("running", "cube_offered")
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
    loop.child.kill9()
    assert checked == LOOPS
    assert running_restores >= 1
    print(
        f"\n{checked} kill -9 restarts, {running_restores} with a clock running; "
        f"restart to restored table: max {max(loop.startups):.2f} s"  # type: ignore[type-var]
    )
