"""The journal: exact recovery, torn and corrupt files, compaction, SD-friendly size."""

from __future__ import annotations

import json
import time
import zlib
from pathlib import Path

import pytest
from controller_helpers import Recorder, assign_input

from mesa.controller.games.backgammon.robots import RobotPlayers, play
from mesa.controller.journal import Journal, decode, encode
from mesa.controller.runtime import ManualClock, TableRuntime
from mesa.engine.inputs import Input
from mesa.games.backgammon.view import table_view


def journaled(folder: Path, **kw: object) -> tuple[TableRuntime, ManualClock, Journal]:
    clock = ManualClock()
    journal = Journal(folder, fsync=False, **kw)  # type: ignore[arg-type]
    rt = TableRuntime(clock=clock)
    assert journal.attach(rt) is None
    return rt, clock, journal


def play_match(rt: TableRuntime, clock: ManualClock, seed: int, length: int = 5) -> None:
    rt.submit(assign_input(length=length), clock())
    play(rt, RobotPlayers(seed=seed), clock)


def test_recovery_at_any_point_equals_the_live_table(tmp_path: Path) -> None:
    rt, clock, journal = journaled(tmp_path)
    rt.submit(assign_input(length=5), clock())
    robots = RobotPlayers(seed=4)
    checked = 0
    for stop_at in (30.0, 200.0, 333.3, 700.0, 1500.0):
        play(rt, robots, clock, until=lambda v, t=stop_at: clock() >= t or v.state == "match_over")
        rec = Journal(tmp_path, fsync=False).recover()
        assert rec.problems == []
        # The journal knows the table up to its last record: compare there.
        live = table_view(rt.table, rec.last_t).to_dict()
        again = table_view(rec.table, rec.last_t).to_dict()
        assert again == live
        checked += 1
    journal.close()
    assert checked == 5


def test_a_restart_resumes_paused_with_the_times_of_the_last_record(tmp_path: Path) -> None:
    rt, clock, journal = journaled(tmp_path, heartbeat=1.0)
    rt.submit(assign_input(), 0.0)
    for inp in (
        Input("checkin", {"side": "a"}),
        Input("checkin", {"side": "b"}),
        Input("press", {"side": "a"}),
    ):
        clock.advance(1.0)
        rt.submit(inp, clock())
        rt.step()
    for _ in range(255):  # b thinks for 25.5 s; ticks every 0.1 s, heartbeats every 1 s
        clock.advance(0.1)
        rt.step()
    before = rt.view(clock()).clocks["b"].reserve
    # kill -9: nothing closes, nothing flushes.
    clock2 = ManualClock(start=3.0)  # the monotonic clock of a new boot
    rec2 = Recorder()
    rt2 = TableRuntime(clock=clock2, sinks=[rec2])
    recovery = Journal(tmp_path, fsync=False).attach(rt2)
    assert recovery is not None and recovery.problems == []
    assert rt2.table.state == "paused"
    restored = rt2.view().clocks["b"].reserve
    assert 0.0 <= restored - before <= 1.0  # at most one heartbeat given back
    assert [e.TYPE for e in rec2.outcomes[0].events] == ["clock.paused", "table.restored"]
    journal.close()


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")


def test_a_torn_last_record_is_dropped_and_reported(tmp_path: Path) -> None:
    rt, clock, journal = journaled(tmp_path)
    play_match(rt, clock, seed=2)
    journal.close()
    path = journal.path(journal.generations()[-1])
    good = Journal(tmp_path, fsync=False).recover()
    with path.open("ab") as f:
        f.write(encode({"k": "h", "n": good.sequence + 1, "t": 1e6})[:-7])  # cut mid-write
    rec = Journal(tmp_path, fsync=False).recover()
    assert rec.problems and "cut short" in rec.problems[0]
    assert table_view(rec.table, 0).to_dict() == table_view(good.table, 0).to_dict()


def test_a_corrupt_record_in_the_middle_stops_recovery_there_and_says_so(tmp_path: Path) -> None:
    rt, clock, journal = journaled(tmp_path, compact_bytes=10**9)
    rt.submit(assign_input(length=5), 0.0)
    robots = RobotPlayers(seed=3)
    # Stop in the middle of a game so that the current generation holds many records.
    play(rt, robots, clock, until=lambda v: v.state == "running" and v.game == 1)
    until = clock() + 120
    play(rt, robots, clock, until=lambda v: clock() >= until)
    journal.close()
    path = journal.path(journal.generations()[-1])
    lines = _lines(path)
    assert len(lines) > 20
    victim = len(lines) // 2
    lines[victim] = lines[victim].replace(b'"t":', b'"t":9', 1)  # a flipped byte: crc fails
    path.write_bytes(b"\n".join(lines))
    rec = Journal(tmp_path, fsync=False).recover()
    assert len(rec.problems) == 1
    assert f"line {victim + 1}" in rec.problems[0] and "checksum" in rec.problems[0]
    assert "not applied" in rec.problems[0]
    rest = len([x for x in lines[victim + 1 :] if x])
    assert f"{rest} record(s)" in rec.problems[0]


def test_an_unreadable_snapshot_falls_back_to_the_previous_generation(tmp_path: Path) -> None:
    rt, clock, journal = journaled(tmp_path)
    play_match(rt, clock, seed=5)
    rt.submit(assign_input(match_id="T-2"), clock())  # starts a new generation
    rt.submit(Input("checkin", {"side": "a"}), clock())
    rt.step()
    journal.close()
    gens = journal.generations()
    assert len(gens) == 2
    newest = journal.path(gens[-1])
    lines = _lines(newest)
    lines[0] = b"00000000 " + lines[0][9:]
    newest.write_bytes(b"\n".join(lines))
    rec = Journal(tmp_path, fsync=False).recover()
    assert any("snapshot is unreadable" in p for p in rec.problems)
    assert rec.table.state == "checking_in" and rec.table.s.match_id == "T-2"


def test_a_missing_record_is_detected_by_the_sequence(tmp_path: Path) -> None:
    rt, clock, journal = journaled(tmp_path, compact_bytes=10**9)
    rt.submit(assign_input(), 0.0)
    for side in "ab":
        clock.advance(1.0)
        rt.submit(Input("checkin", {"side": side}), clock())
        rt.step()
    for _ in range(5):
        clock.advance(3.0)
        on_move = rt.table.s.clock.on_move if rt.table.s.clock else None
        rt.submit(Input("press", {"side": on_move or "a"}), clock())
        rt.step()
    journal.close()
    path = journal.path(journal.generations()[-1])
    lines = _lines(path)
    del lines[2]
    path.write_bytes(b"\n".join(lines))
    rec = Journal(tmp_path, fsync=False).recover()
    assert any("records missing" in p for p in rec.problems)


def test_garbage_files_give_an_empty_table_and_a_report(tmp_path: Path) -> None:
    (tmp_path / "journal-000001.jsonl").write_bytes(b"\x00\xff garbage\nmore\n")
    rec = Journal(tmp_path).recover()
    assert rec.table.state == "idle" and rec.last_t is None
    assert rec.problems[-1].startswith("no readable snapshot")


def test_decode_refuses_what_is_not_a_record() -> None:
    body = json.dumps({"k": "x", "n": 1, "t": 0}).encode()
    for bad in (b"", b"zz", b"12345678 {}", f"{zlib.crc32(body):08x} ".encode() + body):
        with pytest.raises(ValueError):
            decode(bad)


def test_compaction_keeps_two_small_generations(tmp_path: Path) -> None:
    rt, clock, journal = journaled(tmp_path)
    for seed in range(3):
        play_match(rt, clock, seed=seed, length=3)
        rt.submit(Input("unassign"), clock())
        rt.step()
    journal.close()
    time.sleep(0.05)
    gens = journal.generations()
    assert len(gens) <= 2
    assert journal.size_on_disk() < 64 * 1024
    assert journal.stats.compactions > 6


def test_a_match_writes_well_under_a_megabyte(tmp_path: Path) -> None:
    rt, clock, journal = journaled(tmp_path, heartbeat=1.0)
    rt.submit(assign_input(length=7), clock())
    play(rt, RobotPlayers(seed=11), clock)
    journal.close()
    minutes = clock() / 60
    assert minutes > 20  # a real match's worth of heartbeats
    assert journal.stats.bytes_written < 1_000_000
    assert journal.stats.heartbeats > 60 * minutes * 0.5


def test_urgent_records_are_synced_by_the_syncer(tmp_path: Path) -> None:
    clock = ManualClock()
    journal = Journal(tmp_path, fsync=True, sync_interval=60.0)
    rt = TableRuntime(clock=clock)
    journal.attach(rt)
    base = journal.stats.syncs
    deadline = time.monotonic() + 5
    while journal.stats.syncs == base and time.monotonic() < deadline:
        time.sleep(0.005)
    synced = journal.stats.syncs
    rt.submit(assign_input(), 0.0)
    rt.step()  # an assignment: urgent, and a new generation
    deadline = time.monotonic() + 5
    while journal.stats.syncs == synced and time.monotonic() < deadline:
        time.sleep(0.005)
    assert journal.stats.syncs > synced
    journal.close()


@pytest.mark.parametrize(
    "damage",
    [
        {"st": {"state": 7, "clock": "x"}},
        {"st": [1, 2, 3]},
        {"st": {"state": "running", "clock": {"reserve": "lots"}, "match": None}},
        {"set": {"bounce": "fast"}},
        {"st": {"lateness": {"scheduled_start": "soon"}}},
    ],
    ids=["wrong-types", "a-list", "clock-of-strings", "bad-settings", "bad-lateness"],
)
def test_a_whole_snapshot_line_with_wrong_types_is_skipped(
    tmp_path: Path, damage: dict[str, object]
) -> None:
    """Its CRC holds, its contents do not: recovery falls back to the previous generation and
    replays on, exactly as for an unreadable snapshot; the table starts."""
    rt, clock, journal = journaled(tmp_path)
    play_match(rt, clock, seed=5)
    rt.submit(assign_input(match_id="T-2"), clock())  # starts a new generation
    rt.submit(Input("checkin", {"side": "a"}), clock())
    rt.step()
    journal.close()
    newest = journal.path(journal.generations()[-1])
    lines = _lines(newest)
    snap = decode(lines[0])
    lines[0] = encode({**snap, **damage}).rstrip(b"\n")
    newest.write_bytes(b"\n".join(lines))
    rec = Journal(tmp_path, fsync=False).recover()
    assert any("snapshot cannot be restored" in p for p in rec.problems), rec.problems
    assert rec.table.state == "checking_in" and rec.table.s.match_id == "T-2"
    # And a table whose only snapshot is bad starts empty, saying why.
    for gen in journal.generations()[:-1]:
        journal.path(gen).unlink()
    again = TableRuntime(clock=ManualClock())
    recovery = Journal(tmp_path, fsync=False).attach(again)
    assert recovery is not None and again.table.state == "idle"
    assert recovery.problems[-1].startswith("no readable snapshot")
