"""The seams between the table's runtime and what surrounds it.

The runtime owns the one consumer loop that applies inputs to :class:`mesa.games.backgammon.machine.Table`.
Everything else plugs in here: the buttons, the card reader and the hub link *submit* inputs
(thread-safe, timestamped at their source); the display, the journal and the hub link *receive*
what each applied input did. Devices are typed by the port they use, never by the concrete
:class:`~mesa.controller.runtime.TableRuntime` (which provides them all), so each can be driven
by a fake in a test and none depends on the loop's internals.

>>> class Printer:
...     def on_outcome(self, outcome, snapshot, now):
...         print(outcome.input.name, [e.TYPE for e in outcome.events])
>>> isinstance(Printer(), OutcomeSink)
True
>>> from mesa.controller.runtime import TableRuntime
>>> rt = TableRuntime()
>>> all(isinstance(rt, p) for p in (InputSubmitter, EdgeSubmitter, StatusBoard, ViewSource))
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome

if TYPE_CHECKING:
    from mesa.controller.games import TableGame
    from mesa.controller.runtime import TableStatus


@runtime_checkable
class InputSubmitter(Protocol):
    def submit(self, inp: Input, now: float) -> None:
        """Queue ``inp``, timestamped ``now`` on the table's monotonic clock. Never blocks."""


@runtime_checkable
class OutcomeSink(Protocol):
    def on_outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float) -> None:
        """Called by the consumer loop after every applied input (accepted or refused).

        ``snapshot`` is :meth:`Table.snapshot` after the input. Must not block for long: a sink
        that does I/O hands the work to its own thread.
        """


@runtime_checkable
class TableClock(Protocol):
    def now(self) -> float:
        """The table's clock: every submitter stamps its inputs with it."""


@runtime_checkable
class StatusBoard(TableClock, Protocol):
    """What the screen shows beside the table (reader, display, hub, disk), and short notices."""

    @property
    def status(self) -> TableStatus: ...

    def update_status(self, **changes: Any) -> None: ...

    def notice(self, key: str, arg: str = "", seconds: float = 5.0) -> None: ...


@runtime_checkable
class EdgeSubmitter(TableClock, Protocol):
    """What the buttons need: the clock, its rate against real time, and edges."""

    speed: float

    def submit_edge(self, button: str, pressed: bool, now: float, initial: bool = False) -> None:
        """Queue a button edge. Thread-safe; never blocks."""


@runtime_checkable
class CardSubmitter(InputSubmitter, StatusBoard, Protocol):
    """What the card reader needs: submit cards, stamp them, say whether it is plugged in."""


@runtime_checkable
class ViewSource(StatusBoard, Protocol):
    """What the display needs: the view to draw, its game (which draws it), and a way to sleep
    until it changes."""

    game: TableGame

    @property
    def version(self) -> int: ...

    # The game's own view: the display hands it to the game's renderer.
    def view(self, now: float | None = None) -> Any: ...

    def wait_for_change(self, version: int, timeout: float) -> int: ...
