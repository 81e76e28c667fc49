"""The domino table's journal: the backgammon table's journal (same files, lines, checksums,
generations and fsync policy) around a :class:`~mesa.games.domino.machine.DominoTable`.

>>> import tempfile
>>> from mesa.engine.inputs import Input
>>> from mesa.controller.runtime import ManualClock
>>> from mesa.controller.domino_runtime import DominoRuntime
>>> folder = tempfile.mkdtemp()
>>> journal = DominoJournal(folder, fsync=False)
>>> rt = DominoRuntime(journal.recover().table, clock=ManualClock(), sinks=[journal])
>>> journal.open(rt.snapshot(), rt.now())
>>> players = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}
>>> rt.submit(Input("assign", {"game_id": "R1-M1", "players": players}), 0.0)
>>> _ = rt.step(); journal.close()
>>> again = DominoJournal(folder, fsync=False).recover()
>>> again.table.state, again.table.s.players["w"]
('assigned', 'Dani')

What differs: the chapters after which a new generation starts (a game assigned, started,
ended; the table unassigned), the states in which heartbeats note the time (the game's time
runs from "TIEMPO" to the end, between hands too), and which records may wait for the
periodic sync (a tile played in time: the timer's own record, replayed identically anyway).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from mesa.controller.journal import Journal
from mesa.engine.outcome import Outcome
from mesa.games.domino.machine import DominoTable
from mesa.games.domino.view import domino_view

DOMINO_COMPACT_AFTER = frozenset(
    {
        "domino.table.assigned",
        "domino.table.unassigned",
        "domino.game.started",
        "domino.hand.ended",
        "domino.game.ended",
    }
)
DOMINO_HEARTBEAT_STATES = frozenset({"assigned", "ready", "playing", "hand_entry", "hand_confirm"})


class DominoJournal(Journal):
    """A :class:`~mesa.controller.journal.Journal` of a domino table (see the module)."""

    compact_after = DOMINO_COMPACT_AFTER
    heartbeat_states = DOMINO_HEARTBEAT_STATES

    def fresh_machine(self) -> DominoTable:
        return DominoTable()

    def restore_machine(self, snap: dict[str, Any]) -> DominoTable:
        # Instants are kept as recorded: the runtime's clock continues at the journal's last one.
        return DominoTable.restore(snap["st"])

    def machine_settings(self) -> dict[str, Any]:
        return {}  # a domino game's settings travel in its snapshot

    def probe_machine(self, machine: Any, t: float) -> None:
        """A restored domino table must draw its view, snapshot itself and take a tick."""
        domino_view(machine, t)
        machine.snapshot()
        outcome = machine.apply("tick", {}, now=t)
        if outcome.refusal is not None and outcome.refusal.code == "internal_error":
            raise ValueError(outcome.refusal.message)

    def on_outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float) -> None:
        """Journal one applied input. The runtime's own ``table.restored`` (added to the
        restore's outcome for the hub) is not the machine's: a replay would not produce it."""
        if any(e.TYPE == "table.restored" for e in outcome.events):
            outcome = dataclasses.replace(
                outcome, events=[e for e in outcome.events if e.TYPE != "table.restored"]
            )
        super().on_outcome(outcome, snapshot, now)

    def is_lazy(self, outcome: Outcome) -> bool:
        return outcome.input.name in ("press", "hold") and all(
            e.TYPE == "domino.turn.ended" for e in outcome.events
        )
