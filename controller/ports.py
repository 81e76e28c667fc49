"""The seams between the table's runtime and what surrounds it.

The runtime owns the one consumer loop that applies inputs to :class:`mesa.table.machine.Table`.
Everything else plugs in here: the buttons, the card reader and the hub link *submit* inputs
(thread-safe, timestamped at their source); the display, the journal and the hub link *receive*
what each applied input did.

>>> class Printer:
...     def on_outcome(self, outcome, snapshot, now):
...         print(outcome.input.name, [e.TYPE for e in outcome.events])
>>> isinstance(Printer(), OutcomeSink)
True
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from mesa.table.inputs import Input
from mesa.table.machine import Outcome


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
