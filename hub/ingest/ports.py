"""The ingest's ports: what the desk and the web may ask of the hub, typed, and nothing more.

The desk and the dashboard are handed the running :class:`~mesa.hub.ingest.app.Hub`, but they
see it only through these small interfaces (structural: ``typing.Protocol``, so the hub needs
no base class and a test can hand over any object of the same shape). Each port is one job:

- :class:`StoreReads`: the event store's reads (each reading thread has its own connection);
- :class:`HubReads`: the live projections, the committed events and the commands' answers;
- :class:`HubCommands`: what the director's side publishes to the tables (assignments, commands);
- :class:`CommitSource`: the commit listeners, told of every commit with what it committed
  (a :class:`Commit`), on the committing thread;
- :class:`HubPort`: all of the above, with the hub's settings and metrics (what the web needs).

>>> from mesa.protocol import EventEnvelope
>>> env = EventEnvelope.build("3", "s", 1, "clock.resumed", {"by": "players"}, ts=1.0, t=0.0)
>>> commit = Commit((env,))
>>> len(commit), [e.seq for e in commit], commit.states, commit.tables()
(1, [1], (), {'3'})
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, overload

from mesa.hub.settings import HubSettings
from mesa.metrics import Metrics
from mesa.protocol import EventEnvelope, StateReport, TableStatus

__all__ = [
    "Commit",
    "CommitListener",
    "CommitSource",
    "HubCommands",
    "HubPort",
    "HubReads",
    "StoreReads",
]


@dataclass(frozen=True, eq=False)
class Commit(Sequence[EventEnvelope]):
    """What one commit of the ingest stored, as it was validated there: its events in commit
    order (the commit *is* the sequence of its events, so a listener that wants only them
    iterates it), and the tables' retained snapshots and statuses it took. A commit may hold
    no event (a snapshot or a status alone). Listeners read it, never change it."""

    events: tuple[EventEnvelope, ...] = ()
    states: tuple[StateReport, ...] = ()  # each snapshot already passed protocol.check_snapshot
    statuses: tuple[TableStatus, ...] = ()
    # The events again as the store's reads give them (``rowid``, ``fence`` …), for the desk.
    rows: tuple[Mapping[str, Any], ...] = ()

    def __len__(self) -> int:
        return len(self.events)

    @overload
    def __getitem__(self, index: int) -> EventEnvelope: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[EventEnvelope]: ...
    def __getitem__(self, index: int | slice) -> EventEnvelope | Sequence[EventEnvelope]:
        return self.events[index]

    def __iter__(self) -> Iterator[EventEnvelope]:
        return iter(self.events)

    def tables(self) -> set[str]:
        """The tables this commit changed (an event, a snapshot or a status of theirs)."""
        return (
            {e.table for e in self.events}
            | {s.table for s in self.states}
            | {s.table for s in self.statuses}
        )


# Called on the committing thread after each commit: it must only hand the news to its own
# thread (queue a wake, call_soon_threadsafe), never block nor do the work there.
CommitListener = Callable[[Commit], None]


class CommitSource(Protocol):
    """Where the commit listeners are registered (the hub's ingest)."""

    @property
    def listeners(self) -> list[CommitListener]: ...


class StoreReads(Protocol):
    """The event store's reads, from any thread (``mesa.hub.ingest.store.EventStore``)."""

    def tables(self) -> list[dict[str, Any]]:
        """Every known table with its last status and retained snapshot (parsed)."""
        ...

    def table_rows(self) -> list[dict[str, Any]]:
        """:meth:`tables` with each snapshot left as the stored JSON text (``snapshot_json``):
        a reader that caches parsed snapshots parses only those that changed."""
        ...

    def known(self, table: str) -> bool: ...

    def assignments(self) -> list[dict[str, Any]]: ...

    def commands(self, table: str | None = None, limit: int = 200) -> list[dict[str, Any]]: ...


class HubReads(Protocol):
    """What the hub knows: the live projections and the committed events."""

    @property
    def store(self) -> StoreReads: ...

    def tables(self) -> list[dict[str, Any]]:
        """Every table's live projection (``TableLive.to_dict()``), sorted by table id."""
        ...

    def table(self, table: str) -> dict[str, Any] | None: ...

    def events(
        self, table: str | None = None, *, since: int = 0, limit: int = 1000
    ) -> list[dict[str, Any]]: ...

    def command_status(self, txn: str) -> dict[str, Any] | None: ...


class HubCommands(Protocol):
    """What the director's side sends the tables (each recorded in the store, then published)."""

    def register_table(self, table: str) -> None: ...

    def assign_fenced(
        self, table: str, args: dict[str, Any] | None
    ) -> tuple[str, int | None]: ...

    def unassign(self, table: str) -> str: ...

    def command(self, table: str, input: str, args: dict[str, Any] | None = None) -> str: ...

    def domino_assign_many(
        self, games: dict[str, dict[str, Any] | None], tiempo: float | None = None
    ) -> dict[str, str]: ...

    def domino_command(self, table: str, input: str, args: dict[str, Any]) -> str: ...


class HubPort(HubReads, HubCommands, Protocol):
    """The whole hub as the dashboard uses it."""

    @property
    def settings(self) -> HubSettings: ...

    @property
    def metrics(self) -> Metrics: ...

    @property
    def ingest(self) -> CommitSource: ...

    @property
    def online(self) -> bool: ...
