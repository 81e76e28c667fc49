"""The domino table's hub link: :class:`~mesa.controller.link.TableLink` (outbox, events, acks,
state, presence: all the same) reading the domino vocabulary on ``assign`` and ``cmd``.

The hub assigns a domino game and calls "TIEMPO" through one retained message on
``mesa/v1/table/<id>/assign``, a :class:`~mesa.protocol.DominoAssignment`: the game's
``args``, and ``tiempo``, the hub's wall-clock instant at which the game's time started. The link
turns it into the machine's inputs:

- a new game: ``assign``, then (when ``tiempo`` is set) ``tiempo {start_wall, wall}`` with this
  table's wall clock at that moment;
- the same game with a new ``txn`` (the director called "TIEMPO"): ``tiempo``;
- the same message again (every reconnection, every restart: it is retained): ``tiempo`` again,
  unanswered, which re-anchors the game's start on the table's monotonic clock; a table that
  restarts or joins late therefore counts the same 35 minutes as the others;
- ``args`` null: ``unassign``.

Director commands (``penalty``, ``absence``) arrive on ``cmd`` as
:class:`~mesa.protocol.DominoCommand` and are answered on ``response`` like any command.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.controller.runtime import TableRuntime
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome
from mesa.errors import ConfigError
from mesa.games.domino.inputs import parse_input
from mesa.protocol import (
    HUB_STATUS_TOPIC,
    DominoAssignment,
    DominoCommand,
    ProtocolError,
    decode,
    parse_topic,
)

# The states in which "TIEMPO" means something to the machine (re-anchoring included).
TIEMPO_STATES = frozenset({"assigned", "ready", "playing", "hand_entry", "hand_confirm"})


class DominoLink(TableLink):
    """A domino table's MQTT link (see the module)."""

    def _message(self, topic: str, payload: bytes) -> None:
        kind = None
        if topic != HUB_STATUS_TOPIC:
            try:
                kind = parse_topic(topic)[1]
            except ProtocolError:
                kind = None
        if kind not in ("assign", "cmd"):
            super()._message(topic, payload)
            return
        try:
            table, _ = parse_topic(topic)
            if table != self.table:
                raise ProtocolError("table_mismatch", f"message for table {table!r}")
            if kind == "assign":
                self._domino_assign(decode(DominoAssignment, payload, table))
            else:
                c = decode(DominoCommand, payload, table)
                self._submit(parse_input(c.input, c.args), c.txn, "cmd")
        except ProtocolError as e:
            self.metrics.refuse(e.code, e.reason, table=self.table, topic=topic)
            self._refuse_txn(topic, payload, e)

    def _tiempo(self, start_wall: float) -> Input:
        return parse_input("tiempo", {"start_wall": float(start_wall), "wall": self._wall()})

    def _domino_assign(self, a: DominoAssignment) -> None:
        snap = self._snapshot or {}
        state = snap.get("state", "idle")
        seen = a.txn == self.outbox.get_meta("assign_txn")
        if a.args is None:
            if seen:
                return
            if state == "idle":
                self._done_assign(a.txn, True, None, None)
            else:
                self._submit(Input("unassign", {}), a.txn, "assign")
            return
        same_game = state != "idle" and snap.get("game_id") == a.args.get("game_id")
        if not same_game:
            self._submit(parse_input("assign", a.args), a.txn, "assign")
            if a.tiempo is not None:
                self._submit(self._tiempo(a.tiempo), a.txn, "sync")
            return
        if a.tiempo is None or state not in TIEMPO_STATES:
            if not seen:
                self._done_assign(a.txn, True, "already_assigned", None)
            return
        # The same game: "TIEMPO" called now, or the retained call read again after a restart
        # or a reconnection (then unanswered: the hub has its answer already).
        self._submit(self._tiempo(a.tiempo), a.txn, "sync" if seen else "assign")
        self.metrics.inc("tiempo", reason="sync" if seen else "called")

    def _answer(self, outcome: Outcome) -> None:
        for i, p in enumerate(self._pending):
            if p.kind == "sync" and p.input == outcome.input:
                del self._pending[i]
                return
        super()._answer(outcome)

    def _expire_pending(self) -> None:
        # A re-anchoring nobody waits for is never answered.
        while (
            self._pending
            and self._pending[0].kind == "sync"
            and (time.monotonic() - self._pending[0].at > 30.0)
        ):
            self._pending.popleft()
        super()._expire_pending()


def make_domino_link(
    runtime: TableRuntime,
    *,
    table_id: str | None = None,
    host: str | None = None,
    port: int = 1883,
    link_file: str | None = None,
    password: str | None = None,
    outbox: str | Path,
    snapshot: dict[str, Any] | None = None,
) -> DominoLink:
    """:func:`mesa.controller.app.make_link` for a domino table: added as a sink and started."""
    if link_file is not None:
        settings = LinkSettings.from_file(link_file)
    else:
        if host is None or table_id is None:
            raise ConfigError("a hub link needs --link FILE, or --hub HOST:PORT and --table-id")
        settings = LinkSettings(table=table_id, host=host, port=port, password=password)
    box = Outbox(outbox, table=settings.table)
    link = DominoLink(
        settings,
        box,
        submitter=runtime,
        snapshot=snapshot if snapshot is not None else runtime.snapshot(),
        clock=runtime.now,
    )
    runtime.add_sink(link)
    link.start()
    last = [0.0]

    def watch(now: float) -> None:  # the hub's reachability on the screen, once a second
        t = time.monotonic()
        if t - last[0] < 1.0:
            return
        last[0] = t
        hub = "online" if link.connected and link.hub_online else "offline"
        if runtime.status.hub != hub:
            runtime.update_status(hub=hub)

    runtime.add_iteration_hook(watch)
    return link
