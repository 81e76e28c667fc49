"""The event store's reads: the tables' rows with their snapshots parsed, or as stored."""

from __future__ import annotations

import json
from pathlib import Path

from mesa.games.backgammon.machine import Table
from mesa.hub.ingest.store import EventStore
from mesa.protocol import StateReport


def test_table_rows_leave_the_snapshot_as_its_stored_text(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "hub.sqlite3")
    snap = Table().snapshot()
    with store.transaction():
        store.register_table("2")
        store.set_state(StateReport("3", "s3", 4, 4, 10.0, snap))
    rows = {r["table"]: r for r in store.table_rows()}
    assert rows["2"]["snapshot_json"] is None and "snapshot" not in rows["2"]
    assert json.loads(rows["3"]["snapshot_json"]) == snap
    assert (rows["3"]["state_stream"], rows["3"]["state_seq"], rows["3"]["state_ts"]) == (
        "s3", 4, 10.0,
    )
    parsed = {r["table"]: r for r in store.tables()}
    assert parsed["3"]["snapshot"] == snap and parsed["2"]["snapshot"] is None
    assert {k for k in parsed["3"] if k != "snapshot"} == {
        k for k in rows["3"] if k != "snapshot_json"
    }
    store.close()
