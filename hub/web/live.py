"""The live tables as the dashboard shows them, and the feed that pushes every change.

A *card* is one table at one instant: the hub's projection (presence, events) joined with the
table's own retained snapshot, read through the table's view code at the hub's "now", so the
clocks, the cube and the badges are exactly what the table itself would show.

>>> from mesa.games.backgammon.machine import Table
>>> t = Table()
>>> _ = t.apply("assign", {"match_id": "G1-1", "players": {"a": "Ana", "b": "Beto"},
...                        "length": 3, "clock": {"preset": "singles"}}, now=0.0)
>>> for now, side in ((1, "a"), (2, "b"), (5, "a")):
...     _ = t.apply("press", {"side": side}, now=float(now))
>>> live = {"table": "3", "status": "online", "events": 4, "seq": 4}
>>> card = build_card(live, {"snapshot": t.snapshot(), "state_ts": 1000.0}, now=1012.0)
>>> card["state"], card["on_move"], card["clocks"]["b"]["delay"], card["clocks"]["b"]["reserve"]
('running', 'b', 0.0, 358.0)
>>> [b["kind"] for b in card["badges"]]
[]
>>> feed = LiveFeed(epoch="e1")
>>> feed.publish("table", "3", card)
'e1:1'
>>> [key for _, _, key, _ in feed.changes_since("e1:0")]
['3']
>>> feed.changes_since("e1:1"), len(feed.changes_since("other:5"))
([], 1)
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mesa.core.sides import SIDES
from mesa.errors import MesaError
from mesa.games.backgammon.machine import Table
from mesa.games.backgammon.view import table_view
from mesa.games.domino.machine import DominoTable
from mesa.games.domino.view import domino_view
from mesa.hub.web.card_check import check_card
from mesa.metrics import Metrics

log = logging.getLogger("mesa.web")

# Reserve at or below which the dashboard warns (seconds of table time).
LOW_TIME_SECONDS = 60.0


def _table_now(snapshot: dict[str, Any], state_ts: float | None, now: float, rate: float) -> float:
    """The table's monotonic clock at the hub's wall-clock ``now``.

    The snapshot is valid at ``last_now`` on the table's clock, published at wall time
    ``state_ts``; the table's clock runs ``rate`` times faster than the wall (1 in a real club,
    more in the accelerated demo).
    """
    last = snapshot.get("last_now")
    if not isinstance(last, int | float):
        return 0.0
    if state_ts is None:
        return float(last)
    return float(last) + max(0.0, now - state_ts) * rate


def build_card(
    live: dict[str, Any],
    row: dict[str, Any] | None,
    *,
    now: float,
    rate: float = 1.0,
    low_time: float = LOW_TIME_SECONDS,
) -> dict[str, Any]:
    """One table's card at wall time ``now`` (JSON-able; the grid's JSON twin lists these).

    ``live`` is the hub's projection of the table, ``row`` its stored status and retained
    snapshot (``hub.store.tables()``); either may be thin for a table that just appeared.
    Times in the card are wall-clock seconds, so the browser can count them down.
    """
    row = row or {}
    snapshot = row.get("snapshot")
    card: dict[str, Any] = {
        "id": live.get("table") or row.get("table"),
        "link": live.get("status") or row.get("status") or "unknown",
        "as_of": now,
        "rate": rate,
        "events": live.get("events", 0),
        "last_event": live.get("last_event"),
        "silent_for": None,
        "state": live.get("state", "idle"),
        "match_id": live.get("match_id"),
        "players": dict(live.get("players") or {}),
        "checked_in": [],
        "length": live.get("length") or 0,
        "score": dict(live.get("score") or {"a": 0, "b": 0}),
        "game": live.get("game", 0),
        "crawford": "off",
        "cube": {"value": live.get("cube", 1), "owner": None, "offered_by": None},
        "on_move": live.get("on_move"),
        "timed": bool(live.get("reserve")),
        "display": "delay",
        "clocks": {
            s: {"reserve": r, "delay": 0.0, "running": False}
            for s, r in (live.get("reserve") or {}).items()
        },
        "paused": None,
        "director_call": live.get("director_call"),
        "claim": None,
        "flag": None,
        "lateness": None,
        "winner": live.get("winner"),
        "ended_by": live.get("ended_by"),
    }
    if live.get("paused") and card["state"] == "paused":
        card["paused"] = {"reason": live["paused"], "by": None}
    heard = max(
        (
            x
            for x in (live.get("last_event_ts"), live.get("snapshot_ts"), live.get("status_ts"))
            if isinstance(x, int | float)
        ),
        default=None,
    )
    if heard is not None:
        card["silent_for"] = max(0.0, now - heard)
    card["kind"] = live.get("kind", "backgammon")
    if isinstance(snapshot, dict) and "game_id" in snapshot:  # a domino table's snapshot
        card["kind"] = "domino"
        card["domino"] = domino_card(snapshot, _table_now(snapshot, row.get("state_ts"), now,
                                                          rate))
        if _snapshot_is_current(live, row) and card["domino"]:
            card["state"] = card["domino"]["state"]
        card["degraded"] = [] if card["domino"] else ["snapshot"]
        card["badges"] = badges(card, low_time=low_time)
        return card
    degraded: list[str] = []
    if isinstance(snapshot, dict) and _snapshot_is_current(live, row):
        try:
            _from_snapshot(card, snapshot, row.get("state_ts"), now, rate)
        except Exception:  # an ill-typed snapshot: the projection alone still shows a lot
            degraded.append("snapshot")
    elif snapshot is not None and not isinstance(snapshot, dict):
        degraded.append("snapshot")
    card["degraded"] = sorted({*degraded, *check_card(card)})
    card["badges"] = badges(card, low_time=low_time)
    return card


def domino_card(snapshot: dict[str, Any], table_now: float) -> dict[str, Any] | None:
    """A domino table's figures for the grid, read through the table's own view code: the
    pairs and their points, the hand, the game's time left, the two minutes to reach the table,
    the play timer, the warnings."""
    try:
        view = domino_view(DominoTable.restore(snapshot), table_now)
    except (MesaError, TypeError, KeyError, ValueError):
        return None
    timer = view.timer
    return {
        "state": view.state,
        "game_id": view.game_id,
        "players": dict(view.players),
        "score": dict(view.score),
        "hand": view.hand,
        "time_left": view.game_time_left,
        "clock_running": view.game_time_left is not None and view.state != "game_over",
        "time_called": view.time_called,
        "last_hand": view.last_hand,
        "on_turn": view.on_turn,
        "timer": None if timer is None else {
            "seat": timer.seat, "left": timer.left, "over": timer.over, "warned": timer.warned,
        },
        "warnings": {s: n for s, n in view.warnings.items() if n},
        "penalties": [dataclasses.asdict(p) for p in view.penalties],
        "winner": view.winner,
        "ended_by": view.ended_by,
        "start_wall": snapshot.get("start_wall"),
        "reach_left": view.reach_left,
    }


def fallback_card(table: Any, now: float) -> dict[str, Any]:
    """What the grid shows of a table whose card could not be built at all.

    >>> fallback_card("3", 5.0)["degraded"]
    ['card']
    """
    card = build_card({"table": table if isinstance(table, str) else "?"}, None, now=now)
    card["degraded"] = ["card"]
    return card


def _snapshot_is_current(live: dict[str, Any], row: dict[str, Any]) -> bool:
    """Use the snapshot unless the projection has seen newer events of the same stream."""
    seq, snap_seq = live.get("seq"), row.get("state_seq")
    same_stream = row.get("state_stream") in (None, live.get("stream"))
    if not same_stream or seq is None or snap_seq is None:
        return True
    return snap_seq >= seq


def _from_snapshot(
    card: dict[str, Any], snapshot: dict[str, Any], state_ts: float | None, now: float, rate: float
) -> None:
    table = Table.restore(snapshot)  # raises on a snapshot it cannot read (build_card catches)
    t_now = _table_now(snapshot, state_ts, now, rate)
    v = table_view(table, t_now)
    card.update(
        state=v.state,
        match_id=v.match_id,
        players=dict(v.players),
        checked_in=list(v.checked_in),
        length=v.length,
        score=dict(v.score),
        game=v.game,
        crawford=v.crawford,
        cube={"value": v.cube_value, "owner": v.cube_owner, "offered_by": v.cube_offered_by},
        on_move=v.on_move,
        timed=v.timed,
        display=v.display,
        director_call=v.director_call,
        claim=dict(v.claim) if v.claim else None,
        flag=v.last_flag,
        winner=v.winner,
        ended_by=v.ended_by,
    )
    card["clocks"] = {
        side: {"reserve": c.reserve, "delay": c.delay, "running": c.running}
        for side, c in v.clocks.items()
    }
    card["paused"] = (
        {"reason": v.pause_reason or "unspecified", "by": v.paused_by}
        if v.state == "paused"
        else None
    )
    if v.lateness is not None:
        present = list(v.lateness.present)
        nxt = v.lateness.next_point_in
        card["lateness"] = {
            "present": present,
            "absent": [s for s in SIDES if s not in present],
            "points": dict(v.lateness.points),
            "next_point_in": nxt,
        }


def badges(card: dict[str, Any], *, low_time: float = LOW_TIME_SECONDS) -> list[dict[str, Any]]:
    """What needs the director's eye, most urgent first: ``{"kind", "level", ...values}``.

    >>> badges({"link": "lost", "state": "idle", "players": {}})
    [{'kind': 'lost', 'level': 'alert'}]
    """
    out: list[dict[str, Any]] = []
    players = card.get("players") or {}
    link = card.get("link")
    if link == "lost":
        out.append({"kind": "lost", "level": "alert"})
    elif link == "offline":
        out.append({"kind": "offline", "level": "warn"})
    if card.get("director_call"):
        out.append({"kind": "director", "level": "alert", "why": card["director_call"]})
    state = card.get("state")
    flag = card.get("flag")
    if flag and (state in ("paused", "match_over") or card.get("ended_by") == "timeout"):
        out.append(
            {"kind": "timeout", "level": "alert", "side": flag, "who": players.get(flag, flag)}
        )
    if card.get("paused"):
        p = card["paused"]
        out.append({"kind": "paused", "level": "warn", "why": p.get("reason"), "by": p.get("by")})
    if card.get("claim"):
        c = card["claim"]
        out.append(
            {
                "kind": "result",
                "level": "info",
                "winner": c.get("winner"),
                "who": players.get(c.get("winner"), c.get("winner")),
                "result_kind": c.get("kind"),
            }
        )
    late = card.get("lateness")
    if late and len(late.get("present", [])) == 1:
        absent = late["absent"][0] if late.get("absent") else None
        out.append(
            {
                "kind": "late",
                "level": "warn",
                "side": absent,
                "who": players.get(absent, absent),
                "next_point_in": late["next_point_in"],
                "points": late["points"],
            }
        )
    if card.get("timed") and state in ("running", "cube_offered", "between_games", "paused"):
        for side, c in (card.get("clocks") or {}).items():
            if 0 < c["reserve"] <= low_time and flag != side:
                out.append(
                    {
                        "kind": "low_time",
                        "level": "warn",
                        "side": side,
                        "who": players.get(side, side),
                        "reserve": c["reserve"],
                    }
                )
    if state == "match_over":
        out.append(
            {
                "kind": "over",
                "level": "info",
                "winner": card.get("winner"),
                "how": card.get("ended_by"),
            }
        )
    return out


def summarize(cards: list[dict[str, Any]]) -> dict[str, int]:
    """Counts for the grid's header line.

    >>> summarize([{"state": "running", "badges": [], "link": "online"}])
    {'tables': 1, 'playing': 1, 'alerts': 0, 'offline': 0, 'calls': 0}
    """
    playing = sum(
        1
        for c in cards
        if c.get("state")
        in ("running", "cube_offered", "between_games", "paused", "result_entry", "checking_in")
    )
    alerts = sum(1 for c in cards if any(b["level"] == "alert" for b in c.get("badges", [])))
    offline = sum(1 for c in cards if c.get("link") in ("offline", "lost"))
    calls = sum(1 for c in cards if c.get("director_call"))
    return {
        "tables": len(cards),
        "playing": playing,
        "alerts": alerts,
        "offline": offline,
        "calls": calls,
    }


# ── the feed ────────────────────────────────────────────────────────────────
@dataclass
class _Entry:
    seq: int
    kind: str
    data: Any


@dataclass
class LiveFeed:
    """A versioned map of what the browsers show (``kind``/``key`` → data), and its waiters.

    Every publish gets the next sequence number; an SSE client that reconnects with
    ``Last-Event-ID: <epoch>:<seq>`` receives only the keys that changed after ``seq``, each in
    its latest version. A client from before a hub restart (another epoch) gets everything.
    Only the event loop's thread touches it.
    """

    epoch: str = field(default_factory=lambda: format(int(time.time() * 1000), "x"))
    seq: int = 0
    entries: dict[str, _Entry] = field(default_factory=dict)
    _waiters: set[asyncio.Event] = field(default_factory=set)

    def publish(self, kind: str, key: str, data: Any) -> str:
        self.seq += 1
        self.entries[f"{kind}/{key}"] = _Entry(self.seq, kind, data)
        for w in self._waiters:
            w.set()
        return self.event_id(self.seq)

    def wake(self) -> None:
        """Wake every waiting stream (to notice it should end); event-loop thread only."""
        for w in self._waiters:
            w.set()

    def event_id(self, seq: int) -> str:
        return f"{self.epoch}:{seq}"

    def get(self, kind: str, key: str) -> Any:
        e = self.entries.get(f"{kind}/{key}")
        return None if e is None else e.data

    def items(self, kind: str) -> list[tuple[str, Any]]:
        prefix = f"{kind}/"
        return sorted(
            ((k[len(prefix) :], e.data) for k, e in self.entries.items() if k.startswith(prefix)),
            key=lambda kv: _natural(kv[0]),
        )

    def parse_last_id(self, last_id: str | None) -> int:
        """The sequence a client has seen (0: send everything)."""
        if not last_id or ":" not in last_id:
            return 0
        epoch, _, seq = last_id.rpartition(":")
        if epoch != self.epoch or not seq.isdigit() or int(seq) > self.seq:
            return 0
        return int(seq)

    def changes_since(self, last_id: str | None) -> list[tuple[int, str, str, Any]]:
        """``(seq, kind, key, data)`` for every entry newer than ``last_id``, oldest first."""
        since = self.parse_last_id(last_id)
        out = []
        for k, e in self.entries.items():
            if e.seq > since:
                out.append((e.seq, e.kind, k.split("/", 1)[1], e.data))
        out.sort(key=lambda x: x[0])
        return out

    async def wait(self, since: int, timeout: float) -> bool:
        """Wait until something newer than ``since`` is published; False on timeout."""
        if self.seq > since:
            return True
        ev = asyncio.Event()
        self._waiters.add(ev)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ev.wait(), timeout)
        finally:
            self._waiters.discard(ev)
        return self.seq > since


def _natural(key: str) -> tuple[Any, ...]:
    """Table "10" after table "9"."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", key))


class LivePoller:
    """Reads the hub's projections and publishes the cards that changed.

    :meth:`poll` runs on the event loop, when the ingest's commit listener schedules it there
    (``call_soon_threadsafe``) and on the dashboard's slow tick for time-only changes; the web
    layer never runs on the ingest's thread.
    """

    def __init__(
        self,
        hub: Any,
        feed: LiveFeed,
        *,
        rate: float = 1.0,
        low_time: float = LOW_TIME_SECONDS,
        clock: Callable[[], float] = time.time,
        extra: Callable[[], None] | None = None,
    ) -> None:
        self.hub = hub
        self.feed = feed
        self.rate = rate
        self.low_time = low_time
        self._clock = clock
        self._versions: dict[str, tuple[Any, ...]] = {}
        self._extra = extra
        self.cards: dict[str, dict[str, Any]] = {}
        self.metrics = Metrics()  # the web app hands over the hub's
        self.degraded: dict[str, list[str]] = {}  # table → the fields shown as "?"

    def _card(
        self, tid: str, live: dict[str, Any], row: dict[str, Any] | None, now: float
    ) -> dict[str, Any]:
        """One card; never raises: a hostile stored value degrades the card, logged and
        counted once per table and set of fields."""
        try:
            card = build_card(live, row, now=now, rate=self.rate, low_time=self.low_time)
        except Exception:
            log.exception("table %s: its card could not be built", tid)
            card = fallback_card(tid, now)
        bad = card["degraded"]
        if bad != self.degraded.get(tid, []):
            if bad:
                self.metrics.inc("web_card_degraded")
                log.warning("table %s: ill-typed stored values shown as '?': %s", tid, bad)
                self.degraded[tid] = bad
            else:
                self.degraded.pop(tid, None)
        return card

    def poll(self) -> list[str]:
        """One round: returns the ids of the tables whose cards changed."""
        lives = {d["table"]: d for d in self.hub.tables()}
        changed = []
        for tid, live in lives.items():
            version = (
                live.get("status"),
                live.get("bdseq"),
                live.get("status_ts"),
                live.get("events"),
                live.get("seq"),
                live.get("snapshot_ts"),
                live.get("snapshot_seq"),
                live.get("state"),
            )
            if self._versions.get(tid) != version:
                changed.append(tid)
                self._versions[tid] = version
        if changed:
            rows = {r["table"]: r for r in self.hub.store.tables()}
            now = self._clock()
            for tid in changed:
                card = self._card(tid, lives[tid], rows.get(tid), now)
                self.cards[tid] = card
                self.feed.publish("table", tid, card)
            self.feed.publish("summary", "all", summarize(list(self.cards.values())))
        if self._extra is not None:
            self._extra()
        return changed

    def current(self) -> list[dict[str, Any]]:
        """Every card, recomputed at this instant (the JSON twin wants exact figures)."""
        lives = {d["table"]: d for d in self.hub.tables()}
        rows = {r["table"]: r for r in self.hub.store.tables()}
        now = self._clock()
        return [
            self._card(tid, lives.get(tid, {"table": tid}), rows.get(tid), now)
            for tid in sorted(set(lives) | set(rows), key=lambda k: _natural(str(k)))
        ]
