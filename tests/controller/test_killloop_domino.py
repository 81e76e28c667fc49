"""kill -9 at random instants, many times, on a simulated domino table with four robots: after
each restart the restored game is the journal's (state, hand, points, to the record), its time
continues where the journal left it, and the robots play on.

The loop is bounded: ``MESA_KILL_LOOPS`` restarts (default 8), each under a few seconds.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from mesa.games.domino.machine import DominoTable
from mesa.games.domino.view import domino_view
from support.killloop import KillLoop, SimChild, journal_records, replay

LOOPS = int(os.environ.get("MESA_KILL_LOOPS", "8"))
SPEED = 20.0
# The journal notes the time at least every tick (0.1 real s = 2 table s at this speed) while
# the game's time runs, so a restored game has at most this much table time given back.
GIVEN_BACK = 0.1 * SPEED + 1.0
TIMED = ("ready", "playing", "hand_entry", "hand_confirm")


def sim_child(journal: Path, seed: int) -> SimChild:
    return SimChild([
        "--game", "domino", "--fast", "--journal", str(journal), "--speed", str(SPEED),
        "--status-every", "0.05", "--seed", str(seed), "--log-level", "error",
    ])  # fmt: skip


def reference(folder: Path) -> tuple[DominoTable, float]:
    """The journal read independently: the newest generation with a whole snapshot line and its
    records up to the first bad one."""
    recs = journal_records(folder)
    table = DominoTable.restore(recs[0]["st"])
    return table, replay(table, recs)


def test_kill_9_at_random_instants(tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    loop = KillLoop(lambda: sim_child(journal, seed=5), seed=4321)
    checked = timed_restores = 0
    try:
        for _ in range(LOOPS):
            last, (expected, last_t), start = loop.restart(lambda: reference(journal))
            ref = domino_view(expected, last_t)
            assert start["problems"] == [] or all("cut short" in p for p in start["problems"])
            # The restored game is the journal's, to the record ...
            assert (start["state"], start["game"], start["hand"], start["score"]) == (
                expected.state,
                expected.s.game_id,
                ref.hand,
                ref.score,
            )
            assert start["t"] == pytest.approx(last_t, abs=0.5 * SPEED)
            # ... its time continues where the journal left it (the time down is nobody's) ...
            if start["state"] in TIMED and ref.game_time_left is not None:
                assert start["time_left"] <= ref.game_time_left + 1e-6
                assert start["time_left"] >= ref.game_time_left - 0.5 * SPEED
                # ... within a heartbeat of what the table showed just before it died.
                if last["game"] == start["game"] and last["state"] in TIMED:
                    assert start["time_left"] <= last["time_left"] + GIVEN_BACK
                timed_restores += 1
            # The points never go back: what the table showed is in the journal.
            if last["game"] == start["game"]:
                for pair in ("ns", "ew"):
                    assert start["score"][pair] >= last["score"][pair] - 100  # (penalties)
                assert start["hand"] >= last["hand"]
            checked += 1
        # The robots play on after the last restart.
        child = loop.child
        hand = child.lines[-1]["hand"] if child.lines else 0
        deadline = time.monotonic() + 30
        while (
            time.monotonic() < deadline
            and child.lines[-1]["hand"] == hand
            and (child.lines[-1]["state"] in TIMED)
        ):
            time.sleep(0.1)
        assert child.lines[-1]["hand"] > hand or child.lines[-1]["state"] not in TIMED
    finally:
        loop.child.stop()
    assert checked == LOOPS and timed_restores >= LOOPS // 2
    print(
        f"\nrestarts: {checked}, timed restores: {timed_restores}, "
        f"first line after start: median {sorted(loop.startups)[len(loop.startups) // 2]:.2f} s"
    )
