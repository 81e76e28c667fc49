"""Live projections: what every table is doing now, folded from its committed events.

The hub applies each committed event, in seq order, to the table's :class:`TableLive`; the
table's retained ``status`` and ``state`` messages fill in presence and the exact state name. On
a restart the projections are rebuilt from the store, so the dashboard loses nothing either.

>>> from mesa.protocol import EventEnvelope
>>> p = Projections()
>>> p.apply_event(EventEnvelope.build("3", "s", 1, "table.assigned", {"match_id": "G1-1",
...     "players": {"a": "Ana", "b": "Beto"}, "length": 3, "timed": False, "clock": None,
...     "scheduled_start": None}, ts=10.0, t=0.0))
>>> live = p.get("3"); live.match_id, live.state, live.players["b"], live.events
('G1-1', 'assigned', 'Beto', 1)
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from dataclasses import dataclass, field
from typing import Any

from mesa.games.registry import UnknownGame, game_of_snapshot
from mesa.protocol import EventEnvelope, StateReport, TableStatus


@dataclass
class TableLive:
    """One table as the dashboard shows it (``to_dict`` is its JSON twin)."""

    table: str
    status: str = "unknown"  # online / offline / lost / unknown
    revision: int = 1  # the protocol revision the table speaks (its status says)
    bdseq: int = 0
    status_ts: float | None = None
    state: str = "idle"
    match_id: str | None = None
    players: dict[str, str] = field(default_factory=dict)
    length: int | None = None
    score: dict[str, int] = field(default_factory=dict)
    game: int = 0
    cube: int = 1
    on_move: str | None = None
    reserve: dict[str, float] = field(default_factory=dict)
    paused: str | None = None
    director_call: str | None = None
    winner: str | None = None
    ended_by: str | None = None
    events: int = 0
    last_event: str | None = None
    last_event_ts: float | None = None
    stream: str | None = None
    seq: int = 0
    snapshot_seq: int | None = None
    snapshot_ts: float | None = None
    kind: str = "backgammon"  # the game's registered name (mesa.games.registry)
    # The length of the match the hub assigned (the hub's word; ``length`` is the table's).
    assigned_length: int | None = None
    # The last match.ended the hub refused as contradictory: {"winner", "score", "how"}.
    refused: dict[str, Any] | None = None
    # The table started a fresh outbox, its old one damaged: {"reason", "moved_to", "ts"}. What
    # the old one still held never reached the hub: the director must hear of it (until the
    # table's next assignment).
    outbox_rebuilt: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """A copy the reader may keep: every field, the three dicts copied. By hand, not
        ``dataclasses.asdict`` (which deep-copies field by field): the live feed reads every
        table's projection at each commit, and ``asdict`` was most of its CPU."""
        d = self.__dict__.copy()
        d["players"], d["score"], d["reserve"] = (
            dict(self.players),
            dict(self.score),
            dict(self.reserve),
        )
        return d


def _other(side: str) -> str:
    return "b" if side == "a" else "a"


class Projections:
    """Every table's :class:`TableLive`, updated by the ingest thread, read by anyone."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[str, TableLive] = {}

    def _live(self, table: str) -> TableLive:
        live = self._tables.get(table)
        if live is None:
            live = self._tables[table] = TableLive(table)
        return live

    def get(self, table: str) -> TableLive | None:
        with self._lock:
            live = self._tables.get(table)
            return dataclasses.replace(live) if live else None

    def all(self) -> list[dict[str, Any]]:
        """Every table's projection, sorted by table id."""
        with self._lock:
            return [self._tables[k].to_dict() for k in sorted(self._tables)]

    def apply_status(self, status: TableStatus) -> None:
        with self._lock:
            live = self._live(status.table)
            live.status, live.bdseq, live.status_ts = status.state, status.bdseq, status.ts
            live.revision = status.revision

    def mark_silent(self, table: str) -> bool:
        """``table``'s beats stopped (:mod:`mesa.hub.ingest.beats`): it shows ``lost``, as its
        will would make it, if it showed ``online``. True when it did. The store keeps the
        status the table last told (a restarted hub reads the will, or the table, again)."""
        return self._switch(table, "online", "lost")

    def beat_again(self, table: str) -> bool:
        """A table found silent beats again: it shows ``online`` again, if it showed ``lost``
        (nothing else said otherwise meanwhile). True when it did."""
        return self._switch(table, "lost", "online")

    def _switch(self, table: str, shown: str, then: str) -> bool:
        """``table`` shows ``then`` if it showed ``shown`` (True), else nothing changes."""
        with self._lock:
            live = self._tables.get(table)
            if live is None or live.status != shown:
                return False
            live.status = then
            return True

    def broker_lost(self) -> None:
        """The hub itself lost the broker: it cannot know any table is still there, so none
        shows "online" until the broker says so again (the retained statuses the hub receives
        when it subscribes anew). The store keeps the statuses as the tables last told them."""
        with self._lock:
            for live in self._tables.values():
                if live.status == "online":
                    live.status = "lost"

    def apply_state(self, report: StateReport) -> None:
        with self._lock:
            live = self._live(report.table)
            live.snapshot_seq, live.snapshot_ts = report.seq, report.ts
            # The snapshot names the state exactly (menus, result entry); events only imply it.
            if report.stream == live.stream and report.seq >= live.seq:
                state = report.snapshot.get("state")
                if isinstance(state, str):
                    live.state = state
            # The ingest checked the snapshot, and with it the game it names (or implies).
            with contextlib.suppress(UnknownGame):  # (a projection is never worth a failure)
                live.kind = game_of_snapshot(report.snapshot).name

    def set_length(self, table: str, length: int | None) -> None:
        """The length of the match the hub has just assigned to ``table`` (None: none)."""
        with self._lock:
            self._live(table).assigned_length = length

    def apply_event(self, env: EventEnvelope, *, refused: bool = False) -> None:
        """Fold one committed event; ``refused``: a match.ended the hub refused as
        contradictory (:mod:`mesa.hub.ingest.results`), kept aside, never shown as a result."""
        with self._lock:
            self._fold(self._live(env.table), env, refused)

    def apply_events(self, envs: list[EventEnvelope], *, refused: set[str] | None = None) -> None:
        """:meth:`apply_event` for each, in order, under one lock (``refused``: event ids)."""
        if not envs:
            return
        with self._lock:
            tables = self._tables
            for env in envs:
                live = tables.get(env.table)
                if live is None:
                    live = tables[env.table] = TableLive(env.table)
                self._fold(live, env, refused is not None and env.id in refused)

    def _fold(self, live: TableLive, env: EventEnvelope, refused: bool = False) -> None:
        d = env.data
        live.events += 1
        live.last_event, live.last_event_ts = env.type, env.ts
        live.stream, live.seq = env.stream, env.seq
        kind = env.type
        if refused:
            # The score, the winner and the state stay as the hub last accepted them.
            live.refused = {"winner": d.get("winner"), "score": d.get("score"), "how": d.get("how")}
            return
        if kind in _CLEARS_REFUSAL:
            live.refused = None
        if kind == "table.outbox_rebuilt":
            live.outbox_rebuilt = {"reason": str(d.get("reason", ""))[:200],
                                   "moved_to": str(d.get("moved_to", ""))[:200], "ts": env.ts}
            return
        if kind in ("table.assigned", "domino.table.assigned"):
            live.outbox_rebuilt = None
        if kind.startswith("domino."):
            _fold_domino(live, kind, d)
            return
        if kind == "table.assigned":
            live.match_id, live.players, live.length = (
                d["match_id"],
                dict(d["players"]),
                d["length"],
            )
            live.score, live.game, live.cube, live.on_move = {"a": 0, "b": 0}, 0, 1, None
            live.winner = live.ended_by = live.paused = live.director_call = None
            live.reserve = {}
            live.state = "assigned"
        elif kind == "table.unassigned":
            live.match_id, live.players, live.length, live.score = None, {}, None, {}
            live.winner = live.ended_by = live.paused = live.on_move = None
            live.state = "idle"
        elif kind == "player.checked_in":
            live.state = "checking_in"
        elif kind == "match.started":
            live.score, live.reserve = dict(d["score"]), dict(d["reserve"])
            live.state = "between_games"
        elif kind == "game.started":
            live.game, live.on_move, live.cube = d["game"], d["first_on_move"], 1
            live.score = dict(d["score"])
            live.state = "running"
        elif kind == "turn.ended":
            live.reserve[d["side"]] = d["reserve"]
            live.on_move = _other(d["side"])
        elif kind == "cube.offered":
            live.state = "cube_offered"
        elif kind == "cube.taken":
            live.cube, live.state = d["value"], "running"
        elif kind == "game.ended":
            live.score, live.on_move, live.state = dict(d["score"]), None, "between_games"
            live.paused = None
        elif kind == "match.ended":
            live.score, live.winner, live.ended_by = dict(d["score"]), d["winner"], d["how"]
            live.on_move, live.state, live.paused = None, "match_over", None
        elif kind == "clock.paused":
            live.paused, live.state = d["reason"], "paused"
        elif kind == "clock.pause_reason":
            live.paused = d["reason"]
        elif kind == "clock.resumed":
            live.paused = None
        elif kind in ("clock.adjusted", "clock.penalty"):
            live.reserve[d["side"]] = d["reserve"]
        elif kind == "director.called":
            live.director_call = d["reason"]
        elif kind == "director.call_cleared":
            live.director_call = None
        elif kind == "score.corrected":
            live.score = dict(d["score"])
        elif kind == "table.restored":
            live.state, live.reserve = d["state"], dict(d["reserve"])


# Events after which a refused result no longer stands for the table's match.
_CLEARS_REFUSAL = frozenset(
    {"table.assigned", "table.unassigned", "match.started", "match.ended", "score.corrected"}
)


# The domino table's states an event implies (the retained snapshot names them exactly).
_DOMINO_STATES = {
    "domino.table.assigned": "assigned",
    "domino.table.unassigned": "idle",
    "domino.game.started": "ready",
    "domino.hand.started": "playing",
    "domino.hand.over": "hand_entry",
    "domino.hand.claimed": "hand_confirm",
    "domino.hand.rejected": "hand_entry",
    "domino.hand.ended": "ready",
    # An annulled hand scores nothing: the next hand is led (or the game.ended that follows
    # it, when it was time's last hand, says game_over).
    "domino.hand.annulled": "ready",
    "domino.game.ended": "game_over",
}


def _fold_domino(live: TableLive, kind: str, d: dict[str, Any]) -> None:
    """A domino table's events: the game, the pairs' points and the outcome (the grid's card
    reads the rest, the play timer and the time left, from the table's snapshot)."""
    live.kind = "domino"
    state = _DOMINO_STATES.get(kind)
    if state is not None:
        live.state = state
    if kind == "domino.table.assigned":
        live.match_id, live.players = d["game_id"], dict(d["players"])
        live.score, live.game, live.winner, live.ended_by = {"ns": 0, "ew": 0}, 0, None, None
    elif kind == "domino.table.unassigned":
        live.match_id, live.players, live.score, live.winner = None, {}, {}, None
    elif kind == "domino.hand.started":
        live.game = d["hand"]
    elif kind in ("domino.hand.ended", "domino.time.extended", "domino.hand.annulled"):
        live.score = dict(d["score"])
    elif kind == "domino.game.ended":
        live.score, live.winner, live.ended_by = dict(d["score"]), d["winner"], d["how"]
