"""What the desk uses of the hub: a typed port instead of ``hub: Any``.

The desk never reaches into the hub beyond these few calls, so a fake hub in a test, or the
real :class:`~mesa.hub.ingest.app.Hub`, only has to provide them (structurally: these are
``typing.Protocol`` classes, nothing subclasses them). The ingest's own ports
(``hub/ingest/ports.py``) describe the same calls from the other side; the two meet here.

A committed event, as the desk reads it, is the row of
:meth:`~mesa.hub.ingest.store.EventStore.events`: a mapping with at least ``rowid`` (its place
in commit order, the desk's cursor), ``table``, ``type``, ``data``, ``epoch`` (the fencing token
the table put on it) and ``fence`` (None: applied; else why the ingest did not apply it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from mesa.hub.settings import HubSettings

__all__ = [
    "CommittedEvent", "DeskCounters", "DeskHub", "DeskStoreReads", "EventSource",
    "HubWithSettings", "LiveTables",
]

# One committed event (see the module docstring for the keys the desk reads).
CommittedEvent = Mapping[str, Any]


class DeskStoreReads(Protocol):
    """The hub store's reads the desk needs (any thread: the store has a reader per thread)."""

    def tables(self) -> list[dict[str, Any]]:
        """Every known table with its last snapshot and ``state_ts`` (the table's clock)."""
        ...

    def assignments(self) -> list[dict[str, Any]]:
        """Every table's retained assignment: ``table``, ``args``, ``epoch``."""
        ...


class DeskCounters(Protocol):
    """The hub's metrics, for the desk's refusals and conflicts."""

    def inc(self, name: str, n: int = 1, **labels: str) -> None: ...


class DeskHub(Protocol):
    """Everything the desk (both games' parts) asks of the hub."""

    @property
    def store(self) -> DeskStoreReads: ...

    @property
    def metrics(self) -> DeskCounters: ...

    # ── reading the tables ──
    def tables(self) -> list[dict[str, Any]]:
        """The live projection of every table (``table``, ``status``, ``state``, ``kind`` …)."""
        ...

    def table(self, table: str) -> dict[str, Any] | None: ...

    def events(
        self, table: str | None = None, *, since: int = 0, limit: int = 1000
    ) -> Sequence[CommittedEvent]:
        """Committed events after rowid ``since``, in commit order (the desk's catch-up)."""
        ...

    def command_status(self, txn: str) -> dict[str, Any] | None:
        """A command's row with the table's answer (``accepted``, ``code``, ``reason``)."""
        ...

    # ── telling the tables ──
    def register_table(self, table: str) -> None: ...

    def assign_fenced(self, table: str, args: dict[str, Any] | None) -> tuple[str, int | None]:
        """Publish a backgammon assignment with a new fencing epoch: ``(txn, epoch)``."""
        ...

    def unassign(self, table: str) -> str: ...

    def domino_assign_many(
        self, games: dict[str, dict[str, Any] | None], tiempo: float | None = None
    ) -> dict[str, str]:
        """Publish domino games (and "TIEMPO") to many tables at once: their txns."""
        ...

    def domino_command(self, table: str, input: str, args: dict[str, Any]) -> str:
        """Send a director's domino command (``penalty``, ``absence``): its txn."""
        ...


class LiveTables(Protocol):
    """The hub's live projection of its tables (a part of :class:`DeskHub`)."""

    def tables(self) -> list[dict[str, Any]]: ...


class EventSource(Protocol):
    """The hub's committed events, for the catch-up (a part of :class:`DeskHub`)."""

    def events(
        self, table: str | None = None, *, since: int = 0, limit: int = 1000
    ) -> Sequence[CommittedEvent]: ...


class HubWithSettings(DeskHub, Protocol):
    """The hub, with the settings it was started with (its database file)."""

    @property
    def settings(self) -> HubSettings: ...
