"""What one input did, for any game: its events, or why it was refused.

>>> out = Outcome(Input("press", {"side": "a"}), 2.0, "running",
...               refusal=Refusal("not_on_move", "a is not on move"))
>>> out.accepted, out.to_dict()["refused"]
(False, {'code': 'not_on_move', 'reason': 'a is not on move'})
>>> raise Refused("bounce", "pressed again")
Traceback (most recent call last):
  ...
mesa.engine.outcome.Refused: pressed again
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mesa import events as ev
from mesa.engine.inputs import Input

__all__ = ["Outcome", "Refusal", "Refused"]


@dataclass(frozen=True)
class Refusal:
    code: str
    message: str


class Refused(Exception):
    """Raised by a handler to refuse its input: the apply loop rolls back and reports it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.refusal = Refusal(code, message)


@dataclass
class Outcome:
    """What one input did: the events it caused, or why it was refused (then nothing changed,
    except that what time settled before the input is still reported in ``events``)."""

    input: Input
    now: float
    state: str
    events: list[ev.Event] = field(default_factory=list)
    refusal: Refusal | None = None
    # The fencing token of the assignment the events belong to (the table's epoch after the
    # input); the link puts it on every event's envelope. None: no epoch was ever given.
    epoch: int | None = None
    # Accepted, with something the sender must be told (a code, e.g. ``clock_next_game``: a
    # clock ordered during a game waits for the next one); the link answers with it.
    note: str | None = None

    @property
    def accepted(self) -> bool:
        return self.refusal is None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "t": self.now,
            "input": self.input.name,
            "args": self.input.args,
            "accepted": self.accepted,
            "state": self.state,
            "events": [e.to_dict() for e in self.events],
        }
        if self.refusal:
            out["refused"] = {"code": self.refusal.code, "reason": self.refusal.message}
        if self.note:
            out["note"] = self.note
        return out
