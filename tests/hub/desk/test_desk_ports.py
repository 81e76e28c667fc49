"""The desk's port: what the desks use of the hub is what the real hub provides, and the desks
are handed that port, never ``hub: Any``."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from mesa.hub.desk.ports import DeskCounters, DeskHub, DeskStoreReads
from mesa.hub.ingest.app import Hub
from mesa.hub.ingest.store import EventStore
from mesa.hub.settings import HubSettings
from mesa.metrics import Metrics

DESK = Path(__file__).resolve().parents[3] / "hub" / "desk"


def _members(protocol: type) -> list[str]:
    return [n for n in vars(protocol) if not n.startswith("_")]


def _same_calls(protocol: type, real: type) -> None:
    for name in _members(protocol):
        wanted = getattr(protocol, name)
        if isinstance(wanted, property):
            continue  # an instance attribute: checked on a real hub below
        assert hasattr(real, name), f"{real.__name__} has no {name}"
        got = inspect.signature(getattr(real, name)).parameters
        assert list(inspect.signature(wanted).parameters) == list(got), (real.__name__, name)


def test_the_real_hub_provides_every_call_of_the_desks_port(tmp_path: Path) -> None:
    _same_calls(DeskHub, Hub)
    _same_calls(DeskStoreReads, EventStore)
    _same_calls(DeskCounters, Metrics)
    hub = Hub(HubSettings(db=tmp_path / "hub.sqlite3"))
    try:
        assert isinstance(hub.store, EventStore) and isinstance(hub.metrics, Metrics)
    finally:
        hub.close()


def test_no_desk_module_is_handed_an_untyped_hub() -> None:
    for path in DESK.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\bhub: Any\b(?!``)", text), path  # in code, not the docs
        assert "getattr(self.hub" not in text, path
        assert '"kind") == "domino"' not in text, path  # the game comes from the registry
