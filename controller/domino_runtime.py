"""The domino table's consumer loop: :class:`TableRuntime`'s loop around a
:class:`~mesa.games.domino.machine.DominoTable`, its four seat buttons and its view.

>>> from mesa.controller.runtime import ManualClock
>>> from mesa.engine.inputs import Input
>>> clock = ManualClock()
>>> rt = DominoRuntime(clock=clock)
>>> players = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}
>>> rt.submit(Input("assign", {"game_id": "R1-M1", "players": players}), rt.now())
>>> rt.submit(Input("tiempo", {"start_wall": 1000.0, "wall": 1000.0}), rt.now())
>>> _ = rt.step(); rt.view().state, rt.view().game_time_left
('ready', 2100.0)

The loop, the queue, the gate of undecided gestures and the sinks are the backgammon table's
(:mod:`mesa.controller.runtime`); what differs is the machine, the view, what a seat's hold and
long hold mean (:func:`seat_context`) and the restore: the domino game's time never stops
("El tiempo transcurrirá igual"), so a restored table resumes where its journal left it and the
hub's retained "TIEMPO" re-anchors the game's start as soon as the link is up.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from mesa import events as ev
from mesa.controller.gestures import SEAT_BUTTONS, SeatContext, SeatGestureRecognizer
from mesa.controller.ports import OutcomeSink
from mesa.controller.runtime import TableRuntime
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome
from mesa.games.domino.machine import DominoTable
from mesa.games.domino.rules import pair_of
from mesa.games.domino.view import DominoView, domino_view

if TYPE_CHECKING:
    from mesa.controller.journal import Recovery

log = logging.getLogger(__name__)

# The states in which the game's time runs: the screen animates, the journal beats.
TIMED_STATES = frozenset({"ready", "playing", "hand_entry", "hand_confirm"})


def seat_context(table: DominoTable) -> SeatContext:
    """What each seat's hold and long hold mean now (docs/domino.md, "The buttons").

    >>> ctx = seat_context(DominoTable())
    >>> ctx.hold["n"], ctx.long["n"]
    (False, False)
    """
    s, g = table.s, table.s.game
    hold = dict.fromkeys(SEAT_BUTTONS, False)
    long = dict.fromkeys(SEAT_BUTTONS, False)
    if s.state == "playing" and g is not None:
        # On turn: "paso" and domino; off turn: a block. Everyone's long hold means something.
        long = dict.fromkeys(SEAT_BUTTONS, True)
        if g.on_turn is not None:
            hold[g.on_turn] = True
    elif s.state == "hand_entry" and s.entry is not None:
        pair = s.entry["pair"]
        for seat in SEAT_BUTTONS:
            hold[seat] = long[seat] = pair is None or pair_of(seat) == pair  # type: ignore[arg-type]
    elif s.state == "hand_confirm" and s.claim is not None:
        claimer = pair_of(s.claim["by"])
        for seat in SEAT_BUTTONS:
            hold[seat] = pair_of(seat) != claimer  # type: ignore[arg-type]
    return SeatContext(hold=hold, long=long)


class DominoRuntime(TableRuntime):
    """The domino table's loop (see the module). ``buttons`` is a
    :class:`~mesa.controller.gestures.SeatGestureRecognizer` (or None: inputs only)."""

    table: DominoTable  # type: ignore[assignment]

    def __init__(
        self,
        table: DominoTable | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        speed: float | None = None,
        sinks: Iterable[OutcomeSink] = (),
        buttons: SeatGestureRecognizer | None = None,
        tick_interval: float = 0.1,
        table_id: str = "",
        language: str | None = None,
    ) -> None:
        # The base class builds a backgammon Table when given none: give it ours first.
        super().__init__(
            table or DominoTable(),  # type: ignore[arg-type]
            clock=clock,
            speed=speed,
            sinks=sinks,
            buttons=buttons,  # type: ignore[arg-type]
            tick_interval=tick_interval,
            table_id=table_id,
            language=language,
        )

    # ── reading ─────────────────────────────────────────────────────────
    def view(self, now: float | None = None) -> DominoView:  # type: ignore[override]
        with self._lock:
            return domino_view(self.table, self.now() if now is None else now)

    @property
    def latest_view(self) -> DominoView | None:  # type: ignore[override]
        return self._latest_view  # type: ignore[return-value]

    # ── restore ─────────────────────────────────────────────────────────
    def restore(self, recovery: Recovery) -> Outcome:
        """Adopt a table recovered from the journal, before :meth:`start`.

        The table's clock continues at the last instant the journal knew; nothing is paused
        (a domino game has no pause). Sinks receive the outcome with a ``table.restored``
        event; the link's retained "TIEMPO" then re-anchors the game's start exactly.
        """
        with self._lock:
            self.table = recovery.table  # type: ignore[assignment]
            self._last_snapshot = None
            if recovery.last_t is not None:
                self._offset = recovery.last_t - self._clock()
            now = self.now()
            outcome = self.table.apply("tick", {}, now=now)
            outcome.events.append(ev.TableRestored(state=self.table.state, reserve={}))
            self._status = replace(
                self._status,
                restored=True,
                restored_problems=tuple(recovery.problems),
                restored_state=self.table.state,
                restored_until=now + 10.0,
            )
            self._update_context()
            self._deliver(outcome)
        self._publish(now)
        return outcome

    # ── the seams the base class calls ──────────────────────────────────
    def _update_context(self) -> None:
        if self.buttons is not None:
            self.buttons.context = seat_context(self.table)  # type: ignore[assignment]

    def _publish(self, now: float) -> None:
        with self._lock:
            view = domino_view(self.table, now)
        self._latest_view = view  # type: ignore[assignment]
        self._bump()
        for fn in self._view_listeners:
            try:
                fn(view, now)  # type: ignore[arg-type]
            except Exception:
                log.exception("view listener failed")


def submit_tiempo(runtime: TableRuntime, start_wall: float, wall: float | None = None) -> None:
    """Submit "TIEMPO": the game started at ``start_wall`` on the hub's wall clock; ``wall`` is
    this table's wall clock now (default ``time.time()``)."""
    now_wall = time.time() if wall is None else wall
    runtime.submit(
        Input("tiempo", {"start_wall": float(start_wall), "wall": float(now_wall)}), runtime.now()
    )


__all__ = ["TIMED_STATES", "DominoRuntime", "seat_context", "submit_tiempo"]
