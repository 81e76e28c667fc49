"""The hub's ports: what a commit listener is told, and the hub has every member its ports name."""

from __future__ import annotations

import inspect
import time
from pathlib import Path

import pytest

from mesa.games.backgammon.machine import Table
from mesa.hub.ingest.app import Hub
from mesa.hub.ingest.pipeline import Incoming, Ingest
from mesa.hub.ingest.ports import (
    Commit,
    CommitSource,
    HubCommands,
    HubPort,
    HubReads,
    StoreReads,
)
from mesa.hub.ingest.store import EventStore
from mesa.hub.settings import HubSettings
from mesa.protocol import EventEnvelope, StateReport, TableStatus, table_topic


def _env(seq: int) -> EventEnvelope:
    return EventEnvelope.build("3", "s1", seq, "clock.resumed", {"by": "players"}, ts=1.0,
                               t=float(seq))


def test_a_commit_is_the_sequence_of_its_events() -> None:
    one, two = _env(1), _env(2)
    report = StateReport("4", "s4", 0, 0, 1.0, Table().snapshot())
    commit = Commit((one, two), (report,), (TableStatus("5", "online", 1, 1.0),))
    assert len(commit) == 2 and list(commit) == [one, two] and commit[1] is two
    assert list(commit[:1]) == [one] and commit.tables() == {"3", "4", "5"}
    assert len(Commit()) == 0 and not Commit()


def test_listeners_are_told_the_snapshots_and_statuses_a_commit_took(tmp_path: Path) -> None:
    """The live feed reads the snapshots the ingest parsed and checked from the commit itself,
    so a commit of a snapshot alone (no event) is told too, with it."""
    ingest = Ingest(EventStore(tmp_path / "h.sqlite3"))
    heard: list[Commit] = []
    ingest.listeners.append(heard.append)
    snap = Table().snapshot()
    report = StateReport("3", "s1", 0, 0, time.time(), snap)
    status = TableStatus("3", "online", 1, time.time())
    ingest.handle([Incoming(table_topic("3", "status"), status.to_payload())])
    ingest.handle([Incoming(table_topic("3", "state"), report.to_payload())])
    bad = StateReport("3", "s1", 0, 0, time.time(), {**snap, "match": "x"})
    ingest.handle([Incoming(table_topic("3", "state"), bad.to_payload())])  # refused: not told
    ingest.handle([Incoming(table_topic("3", "event"), _env(1).to_payload())])
    assert [(len(c), len(c.states), len(c.statuses)) for c in heard] == [
        (0, 0, 1), (0, 1, 0), (1, 0, 0),
    ]
    assert heard[1].states[0].snapshot == snap and heard[0].statuses[0].state == "online"
    assert [e.seq for e in heard[2]] == [1]


def _members(port: type) -> set[str]:
    """The names a Protocol declares (its own and its bases')."""
    names: set[str] = set()
    for cls in inspect.getmro(port):
        if cls.__module__ == "mesa.hub.ingest.ports":
            names |= {n for n in vars(cls) if not n.startswith("_")}
            names |= set(getattr(cls, "__annotations__", {}))
    return names


@pytest.mark.parametrize("port", [HubPort, HubReads, HubCommands])
def test_the_hub_has_what_its_ports_name(tmp_path: Path, port: type) -> None:
    hub = Hub(HubSettings(db=tmp_path / "hub.sqlite3"))
    try:
        missing = {n for n in _members(port) if not hasattr(hub, n)}
        assert missing == set()
        assert not {n for n in _members(StoreReads) if not hasattr(hub.store, n)}
        assert not {n for n in _members(CommitSource) if not hasattr(hub.ingest, n)}
    finally:
        hub.close()
