"""Fault runs: tables, hub and broker as real processes on loopback; kill -9 one of them in the
middle of the matches, cut a table off the network; then the checker compares every event each
table sent with the hub's store: zero lost, zero duplicated, order kept per table.

Each run is bounded: a few tables playing one match each (a few hundred events), every wait
has a deadline, and every process is killed at the end whatever happened.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.ingest.app import Hub
from support.checker import CheckReport, check
from support.harness import (
    ASSIGN_ARGS,
    Process,
    hub_process,
    hub_settings,
    sim_table,
    start_hub,
    wait_until,
)
from support.mosquitto import have_mosquitto, start_broker
from support.netcut import CutProxy

pytestmark = pytest.mark.broker

TABLES = ("t1", "t2", "t3")
PACE = 0.01  # wall seconds between a table's inputs: a match lasts a few seconds
# "Offline for minutes": the table plays its whole match (minutes on its own clock) with no
# network; on the wall it stays cut off this long.
OFFLINE_SECONDS = float(os.environ.get("MESA_FAULT_OFFLINE_SECONDS", "5"))


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[PrivateMosquitto]:
    """A broker of the run's own: these runs kill it."""
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    b = start_broker(tmp_path / "broker")
    yield b
    b.kill()


@pytest.fixture
def procs() -> Iterator[list[Process]]:
    started: list[Process] = []
    yield started
    for p in started:
        p.kill9()


def last_seq(outbox: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{outbox}?mode=ro", uri=True, timeout=5)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'last_seq'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return 0
    return int(row[0]) if row else 0


def assign_all(db: Path, broker: PrivateMosquitto, tables: tuple[str, ...]) -> None:
    """Assign a match to each table (retained on the broker) with a short-lived hub."""
    hub = start_hub(db, broker)
    for t in tables:
        hub.register_table(t)
        hub.assign(t, {**ASSIGN_ARGS, "match_id": f"M-{t}"})
    hub.stop()


def start_tables(
    tmp: Path,
    port: int,
    procs: list[Process],
    tables: tuple[str, ...] = TABLES,
) -> dict[str, Process]:
    out = {}
    for t in tables:
        p = sim_table(t, tmp / f"{t}.sqlite3", port, tmp / f"{t}.log", pace=PACE).start()
        procs.append(p)
        out[t] = p
    return out


def finish(tables: dict[str, Process], timeout: float = 90.0) -> None:
    """Every table exits by itself once its match is over and the hub acknowledged it all."""
    deadline = time.monotonic() + timeout
    for name, p in tables.items():
        rc = p.wait(max(0.1, deadline - time.monotonic()))
        assert rc == 0, f"table {name} did not finish (rc={rc}); see {p.log}:\n" + _tail(p.log)


def _tail(path: Path) -> str:
    return path.read_text(errors="replace")[-2000:] if path.exists() else ""


def verify(tmp: Path, db: Path, tables: tuple[str, ...] = TABLES) -> CheckReport:
    report = check([tmp / f"{t}.sqlite3" for t in tables], db)
    assert report.ok, report.summary() + f" lost={report.lost[:10]}"
    assert report.sent == report.stored
    assert report.sent > 50 * len(tables)  # whole matches, not a handful of events
    return report


def test_broker_kill_9_mid_match(
    tmp_path: Path, broker: PrivateMosquitto, procs: list[Process]
) -> None:
    db = tmp_path / "hub.sqlite3"
    assign_all(db, broker, TABLES)
    hub = start_hub(db, broker)
    try:
        tables = start_tables(tmp_path, broker.port, procs)
        assert wait_until(lambda: all(last_seq(tmp_path / f"{t}.sqlite3") > 25 for t in TABLES), 30)
        broker.kill()  # kill -9: its unsaved queue and retained messages are gone
        time.sleep(1.0)  # the tables keep playing meanwhile
        broker.restart()
        finish(tables)
        report = verify(tmp_path, db)
        assert all(hub.table(t)["state"] == "match_over" for t in TABLES), report.summary()
        assert hub.metrics.get("disconnects") >= 1
    finally:
        hub.stop()


def test_table_kill_9_mid_match(
    tmp_path: Path, broker: PrivateMosquitto, procs: list[Process]
) -> None:
    db = tmp_path / "hub.sqlite3"
    assign_all(db, broker, TABLES)
    hub = start_hub(db, broker)
    try:
        tables = start_tables(tmp_path, broker.port, procs)
        victim = tmp_path / "t1.sqlite3"
        for threshold in (20, 60):  # killed twice, restarted from its outbox each time
            assert wait_until(lambda t=threshold: last_seq(victim) > t, 30)
            tables["t1"].kill9()
            restarted = sim_table("t1", victim, broker.port, tmp_path / "t1.log", pace=PACE)
            procs.append(restarted.start())
            tables["t1"] = restarted
        finish(tables)
        verify(tmp_path, db)
        assert hub.table("t1")["state"] == "match_over"
    finally:
        hub.stop()


def test_hub_kill_9_mid_match(
    tmp_path: Path, broker: PrivateMosquitto, procs: list[Process]
) -> None:
    db = tmp_path / "hub.sqlite3"
    assign_all(db, broker, TABLES)

    def hub_proc() -> Process:
        p = hub_process(db, broker.port, tmp_path / "hub.log").start()
        procs.append(p)
        assert wait_until(lambda: "online" in _tail(tmp_path / "hub.log"), 20), _tail(p.log)
        return p

    hub = hub_proc()
    tables = start_tables(tmp_path, broker.port, procs)
    assert wait_until(lambda: all(last_seq(tmp_path / f"{t}.sqlite3") > 25 for t in TABLES), 30)
    hub.kill9()  # mid-batch, perhaps mid-commit: what was not committed was not acknowledged
    time.sleep(1.0)
    (tmp_path / "hub.log").write_text("")
    hub = hub_proc()
    finish(tables)
    verify(tmp_path, db)
    assert hub.terminate() == 0


def test_table_offline_for_a_whole_match(
    tmp_path: Path, broker: PrivateMosquitto, procs: list[Process]
) -> None:
    db = tmp_path / "hub.sqlite3"
    assign_all(db, broker, TABLES)
    hub = Hub(hub_settings(db, broker)).start()
    proxy = CutProxy(broker.host, broker.port).start()
    try:
        # t1 reaches the broker through a cable that will be pulled; t2 and t3 directly.
        t1 = sim_table("t1", tmp_path / "t1.sqlite3", proxy.port, tmp_path / "t1.log", pace=PACE)
        procs.append(t1.start())
        assert wait_until(lambda: last_seq(tmp_path / "t1.sqlite3") >= 3, 20)
        proxy.cut()
        tables = {"t1": t1, **start_tables(tmp_path, broker.port, procs, ("t2", "t3"))}
        assert wait_until(lambda: hub.table("t1")["status"] == "lost", 20)  # the Last Will
        # While t1 is away, the director sends it a command; the broker keeps it for t1.
        txn = hub.command("t1", "director_clear_call")
        time.sleep(OFFLINE_SECONDS)
        sent_offline = last_seq(tmp_path / "t1.sqlite3")
        assert sent_offline > 50  # it played on without the network
        assert hub.contiguous("t1", _stream(tmp_path / "t1.sqlite3")) < sent_offline
        proxy.restore()
        finish(tables)
        verify(tmp_path, db)
        assert hub.table("t1")["status"] == "offline"  # said goodbye cleanly at the end
        assert wait_until(lambda: (hub.command_status(txn) or {}).get("accepted") is not None, 10)
    finally:
        proxy.stop()
        hub.stop()


def _stream(outbox: Path) -> str:
    conn = sqlite3.connect(f"file:{outbox}?mode=ro", uri=True)
    try:
        return str(conn.execute("SELECT value FROM meta WHERE key = 'stream'").fetchone()[0])
    finally:
        conn.close()
