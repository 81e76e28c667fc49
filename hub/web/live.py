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
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from mesa.core.sides import SIDES
from mesa.errors import MesaError
from mesa.games.backgammon.machine import Table
from mesa.games.backgammon.view import table_view
from mesa.games.domino.machine import DominoTable
from mesa.games.domino.view import domino_view
from mesa.games.registry import UnknownGame, game_named, game_of_snapshot, games
from mesa.hub.ingest.ports import Commit, HubReads, StoreReads
from mesa.hub.ingest.results import result_refusal
from mesa.hub.web.card_check import check_card
from mesa.metrics import Metrics
from mesa.protocol import ProtocolError, StateReport, check_snapshot

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


@dataclass(frozen=True)
class Held:
    """One table's retained snapshot as the live feed holds it: read once per version.

    ``row`` is what a card reads (``state_stream``, ``state_seq``, ``state_ts`` and the parsed
    ``snapshot``); ``game`` the registered game it belongs to (None: not one the hub knows);
    ``machine`` that game's machine restored from it (None: it cannot be, the card degrades);
    ``trusted`` whether it passed :func:`mesa.protocol.check_snapshot` (at the ingest, or here
    for one read from the store), so that its figures need no second check.
    """

    version: tuple[Any, ...]  # (stream, seq, ts): what tells a new snapshot from the one held
    row: dict[str, Any]
    game: str | None
    machine: Any
    trusted: bool

    @classmethod
    def read(cls, row: dict[str, Any], *, checked: bool) -> Held:
        """``row``'s snapshot restored; ``checked`` when the ingest already validated it."""
        snapshot = row.get("snapshot")
        version = (row.get("state_stream"), row.get("state_seq"), row.get("state_ts"))
        if not isinstance(snapshot, dict):
            return cls(version, row, None, None, False)
        if not checked:
            try:
                check_snapshot(snapshot)
            except Exception as e:  # a refusal (or worse): never the feed's failure
                if not isinstance(e, ProtocolError):
                    log.warning("table %s: its stored snapshot could not be checked: %r",
                                row.get("table"), e)
                return cls(version, row, _game_of(snapshot), None, False)
        game = _game_of(snapshot)
        return cls(version, row, game, _restore(game, snapshot), game is not None)

    @classmethod
    def of_report(cls, report: StateReport) -> Held:
        """A snapshot the ingest committed (and checked): nothing to parse nor to check."""
        row = {
            "table": report.table,
            "state_stream": report.stream,
            "state_seq": report.seq,
            "state_ts": report.ts,
            "snapshot": report.snapshot,
        }
        return cls.read(row, checked=True)


def _game_of(snapshot: Any) -> str | None:
    """The registered game's name of a snapshot (None: not a dict, or a game nobody knows)."""
    if not isinstance(snapshot, dict):
        return None
    try:
        return game_of_snapshot(snapshot).name
    except UnknownGame:
        return None


def _restore(game: str | None, snapshot: dict[str, Any]) -> Any:
    """The game's machine rebuilt from the snapshot; None when it cannot be (never raises)."""
    if game is None:
        return None
    try:
        return game_named(game).machine.restore(snapshot)
    except Exception:  # whatever the constructors refuse, the card shows the projection
        return None


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
    Times in the card are wall-clock seconds, so the browser can count them down. The snapshot
    is taken as untrusted (restored here, every field checked); the live poller hands over
    the ones it holds already read (:func:`card_of`).
    """
    row = row or {}
    snapshot = row.get("snapshot")
    game = _game_of(snapshot)
    machine = _restore(game, snapshot) if isinstance(snapshot, dict) else None
    return card_of(live, row, game, machine, now=now, rate=rate, low_time=low_time)


# How a card reads what is particular to each game: (card, live, row, machine, trusted, table
# now) → the degraded fields. Keyed by the registered game's name (mesa.games.registry).
Figures = Callable[
    [dict[str, Any], dict[str, Any], dict[str, Any], Any, bool, float], list[str]
]


def card_of(
    live: dict[str, Any],
    row: dict[str, Any],
    game: str | None,
    machine: Any,
    *,
    trusted: bool = False,
    now: float,
    rate: float = 1.0,
    low_time: float = LOW_TIME_SECONDS,
) -> dict[str, Any]:
    """:func:`build_card` from a snapshot already read: its ``game``, its restored ``machine``
    (None: it could not be), and whether it was ``trusted`` (checked by the protocol's own
    check): then the figures read from it are not checked again, only the card's words."""
    snapshot = row.get("snapshot")
    card = _projection_card(live, row, now, rate)
    if game is not None:
        card["kind"] = game
    table_now = (
        _table_now(snapshot, row.get("state_ts"), now, rate) if isinstance(snapshot, dict) else 0.0
    )
    # A game the hub does not know shows what the projection alone says (and degrades).
    figures = GAME_FIGURES.get(game or "", _backgammon_figures)
    card["degraded"] = figures(card, live, row, machine, trusted, table_now)
    card["badges"] = badges(card, low_time=low_time)
    return card


def _backgammon_figures(
    card: dict[str, Any],
    live: dict[str, Any],
    row: dict[str, Any],
    machine: Any,
    trusted: bool,
    table_now: float,
) -> list[str]:
    """A backgammon table's figures through its own view code, when its snapshot is current;
    every field is checked unless they came from a snapshot the protocol's check passed."""
    snapshot = row.get("snapshot")
    degraded: list[str] = []
    read = False
    if isinstance(snapshot, dict) and _snapshot_is_current(live, row):
        if machine is None:
            degraded.append("snapshot")  # ill-typed, or a game the hub does not know
        else:
            try:
                _from_snapshot(card, machine, table_now)
                read = True
            except Exception:  # an ill-typed snapshot: the projection alone still shows a lot
                degraded.append("snapshot")
    elif snapshot is not None and not isinstance(snapshot, dict):
        degraded.append("snapshot")
    bad = check_card(card, figures=not (read and trusted))
    _no_impossible_result(card, live)
    return sorted({*degraded, *bad})


def _no_impossible_result(card: dict[str, Any], live: dict[str, Any]) -> None:
    """The card never shows a result the tournament cannot hold: one the hub refused as
    contradictory (the projection kept it aside), or a snapshot's winner and score that
    contradict each other or the length the hub assigned. The card shows the score the hub
    last accepted, no winner, the state ``result_refused``, and the claim under ``refused``
    (a badge for the director)."""
    length = live.get("assigned_length") or card.get("length")
    refused = live.get("refused")
    winner = card.get("winner")
    if refused is None and winner is not None:
        if result_refusal(winner, card.get("score"), card.get("ended_by"), length) is None:
            return
        refused = {"winner": winner, "score": card.get("score"), "how": card.get("ended_by")}
    if refused is None:
        return
    claimed = refused.get("score") if isinstance(refused.get("score"), dict) else {}
    card["refused"] = {
        "winner": refused.get("winner") if refused.get("winner") in SIDES else None,
        "score_a": claimed.get("a") if isinstance(claimed.get("a"), int) else None,
        "score_b": claimed.get("b") if isinstance(claimed.get("b"), int) else None,
    }
    card["winner"] = card["ended_by"] = None
    card["score"] = {s: int((live.get("score") or {}).get(s, 0)) for s in SIDES}
    if card.get("state") == "match_over":
        card["state"] = "result_refused"


def _domino_card_figures(
    card: dict[str, Any],
    live: dict[str, Any],
    row: dict[str, Any],
    machine: Any,
    trusted: bool,
    table_now: float,
) -> list[str]:
    """A domino table's figures under ``card["domino"]`` (:func:`domino_card`)."""
    snapshot = row.get("snapshot")
    assert isinstance(snapshot, dict)  # (its game was read from it)
    card["domino"] = None if machine is None else _domino_figures(machine, snapshot, table_now)
    if _snapshot_is_current(live, row) and card["domino"]:
        card["state"] = card["domino"]["state"]
    return [] if card["domino"] else ["snapshot"]


def _projection_card(
    live: dict[str, Any], row: dict[str, Any], now: float, rate: float
) -> dict[str, Any]:
    """The card as the hub's projection alone shows it (a snapshot fills in the rest)."""
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
        "outbox_rebuilt": live.get("outbox_rebuilt"),
        "claim": None,
        "flag": None,
        "lateness": None,
        "winner": live.get("winner"),
        "ended_by": live.get("ended_by"),
        "kind": live.get("kind", "backgammon"),
    }
    if live.get("paused") and card["state"] == "paused":
        card["paused"] = {"reason": live["paused"], "by": None}
    heard = [
        x
        for x in (live.get("last_event_ts"), live.get("snapshot_ts"), live.get("status_ts"))
        if isinstance(x, int | float)
    ]
    if heard:
        card["silent_for"] = max(0.0, now - max(heard))
    return card


def domino_card(snapshot: dict[str, Any], table_now: float) -> dict[str, Any] | None:
    """A domino table's figures for the grid, read through the table's own view code: the
    pairs and their points, the hand, the game's time left, the two minutes to reach the table,
    the play timer, the warnings. None for a snapshot that code cannot read."""
    try:
        return _domino_figures(DominoTable.restore(snapshot), snapshot, table_now)
    except (MesaError, TypeError, KeyError, ValueError):
        return None


def _domino_figures(
    machine: DominoTable, snapshot: dict[str, Any], table_now: float
) -> dict[str, Any] | None:
    try:
        view = domino_view(machine, table_now)
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


GAME_FIGURES: dict[str, Figures] = {
    "backgammon": _backgammon_figures,
    "domino": _domino_card_figures,
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


def _from_snapshot(card: dict[str, Any], table: Table, t_now: float) -> None:
    """The card's figures through the table's own view code, at the table's clock ``t_now``."""
    v = table_view(table, t_now)
    card.update(
        state=v.state,
        match_id=v.match_id,
        players=dict(v.players),
        checked_in=list(v.checked_in),
        length=v.length,
        score={s: v.score.get(s, 0) for s in SIDES},
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
        clock_next=v.clock_next,  # a clock ordered for the next game (on, off), or None
    )
    card["clocks"] = {
        side: {"reserve": float(c.reserve), "delay": float(c.delay), "running": c.running}
        for side, c in v.clocks.items()
    }
    card["paused"] = (
        {"reason": v.pause_reason or "unspecified", "by": v.paused_by}
        if v.state == "paused"
        else None
    )
    if v.lateness is not None:
        present = list(v.lateness.present)
        card["lateness"] = {
            "present": present,
            "absent": [s for s in SIDES if s not in present],
            "points": {s: v.lateness.points.get(s, 0) for s in SIDES},
            "next_point_in": v.lateness.next_point_in,
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
    refused = card.get("refused")
    if refused:
        who = refused.get("winner")
        out.append({"kind": "refused", "level": "alert", "who": players.get(who, who or "?"),
                    "score_a": refused.get("score_a"), "score_b": refused.get("score_b")})  # fmt: skip
    if card.get("outbox_rebuilt"):
        out.append({"kind": "outbox_rebuilt", "level": "warn"})
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
    if card.get("clock_next") in ("on", "off") and state != "match_over":
        # "Imponer reloj" during a game: the table starts (or takes off) the clock next game.
        out.append({"kind": "clock_next", "level": "info", "what": card["clock_next"]})
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
    """Counts for the grid's header line: a table is playing in the states its game says a
    game is under way in (``Game.in_play``: a domino hand counts as a backgammon game does).

    >>> summarize([{"state": "running", "badges": [], "link": "online"},
    ...            {"state": "playing", "kind": "domino", "badges": [], "link": "online"}])
    {'tables': 2, 'playing': 2, 'alerts': 0, 'offline': 0, 'calls': 0}
    """
    playing = sum(1 for c in cards if c.get("state") in _in_play(c.get("kind")))
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


def _in_play(kind: Any) -> frozenset[str]:
    """The states a card's game is under way in (a card of no known game: the first game's)."""
    try:
        return game_named(kind).in_play
    except UnknownGame:
        return games()[0].in_play


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


class SnapshotCache:
    """The tables' retained snapshots, each read once per version (:class:`Held`).

    The ingest's commit listener hands over the snapshots it committed, already parsed and
    checked (:meth:`offer`, any thread); a snapshot the feed was not handed (those of before
    the server started, or written while no listener ran) is read from the store's text, parsed
    and checked once. Only the event loop's thread calls the rest.
    """

    def __init__(self, store: StoreReads) -> None:
        self._store = store  # its table_rows(): the snapshots as JSON text
        self._held: dict[str, Held] = {}
        self._offered: dict[str, StateReport] = {}
        self._lock = threading.Lock()
        self.parsed = 0  # snapshots parsed from the store's text (the tests count them)

    def offer(self, reports: Iterable[StateReport]) -> None:
        """Snapshots just committed (the committing thread: only kept, read on the loop)."""
        with self._lock:
            for report in reports:
                self._offered[report.table] = report

    def get(self, table: str) -> Held | None:
        return self._held.get(table)

    def take_offered(self) -> None:
        with self._lock:
            offered, self._offered = self._offered, {}
        for table, report in offered.items():
            held = self._held.get(table)
            if held is None or held.version != (report.stream, report.seq, report.ts):
                self._held[table] = Held.of_report(report)

    def follow(self, lives: dict[str, dict[str, Any]], tables: Iterable[str]) -> None:
        """Make sure the snapshot held for each of ``tables`` is the one its projection saw
        last; the store is read only when one is not (a snapshot the feed was not handed)."""
        self.take_offered()
        for table in tables:
            live = lives.get(table, {})
            held = self._held.get(table)
            seen = (live.get("snapshot_seq"), live.get("snapshot_ts"))
            if seen != (None, None) and (held.version[1:] if held else None) != seen:
                self.update(self._store.table_rows())
                return

    def update(self, rows: list[dict[str, Any]]) -> None:
        """Follow the store's rows: parse (and check) only the snapshots not held yet."""
        self.take_offered()
        for row in rows:
            table = row["table"]
            version = (row.get("state_stream"), row.get("state_seq"), row.get("state_ts"))
            held = self._held.get(table)
            if held is not None and held.version == version:
                continue
            text = row.get("snapshot_json")
            snapshot = None
            if text is not None:
                self.parsed += 1
                try:
                    snapshot = json.loads(text)
                except (ValueError, RecursionError):
                    snapshot = text  # not JSON a card can read: shown as a degraded card
            self._held[table] = Held.read(
                {k: row.get(k) for k in _ROW_KEYS} | {"snapshot": snapshot}, checked=False
            )


# What a card reads of a table's stored row.
_ROW_KEYS = ("table", "status", "state_stream", "state_seq", "state_ts")


class LivePoller:
    """Reads the hub's projections and publishes the cards that changed.

    :meth:`poll` runs on the event loop, when the ingest's commit listener schedules it there
    (``call_soon_threadsafe``, after handing over the committed snapshots: :meth:`committed`)
    and on the dashboard's slow tick for time-only changes; the web layer never runs on the
    ingest's thread.
    """

    def __init__(
        self,
        hub: HubReads,
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
        self.snapshots = SnapshotCache(hub.store)
        # (table, card) → the event the table serves now, or None (the site sets it: the
        # card says whose match it holds when several events share the tables).
        self.label: Callable[[str, dict[str, Any]], dict[str, Any] | None] | None = None

    def relabel(self, tables: Iterable[str]) -> None:
        """These tables now serve another event: their cards are built and sent again on the
        next :meth:`poll`."""
        for tid in tables:
            self._versions.pop(tid, None)

    def committed(self, commit: Commit) -> None:
        """The ingest's commit (its thread): keep the snapshots it validated for the next poll."""
        if commit.states:
            self.snapshots.offer(commit.states)

    def _card(
        self, tid: str, live: dict[str, Any], held: Held | None, now: float
    ) -> dict[str, Any]:
        """One card; never raises: a hostile stored value degrades the card, logged and
        counted once per table and set of fields."""
        try:
            if held is None:
                card = build_card(live, None, now=now, rate=self.rate, low_time=self.low_time)
            else:
                card = card_of(
                    live, held.row, held.game, held.machine, trusted=held.trusted,
                    now=now, rate=self.rate, low_time=self.low_time,
                )
        except Exception:
            log.exception("table %s: its card could not be built", tid)
            card = fallback_card(tid, now)
        try:
            label = None if self.label is None else self.label(tid, card)
        except Exception:  # the label is a courtesy: never the reason a card is missing
            log.exception("table %s: its event could not be read", tid)
            label = None
        if label is not None:
            card["event"] = label
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
            self.snapshots.follow(lives, changed)
            now = self._clock()
            for tid in changed:
                card = self._card(tid, lives[tid], self.snapshots.get(tid), now)
                self.cards[tid] = card
                self.feed.publish("table", tid, card)
            self.feed.publish("summary", "all", summarize(list(self.cards.values())))
        if self._extra is not None:
            self._extra()
        return changed

    def current(self) -> list[dict[str, Any]]:
        """Every card, recomputed at this instant (the JSON twin wants exact figures)."""
        lives = {d["table"]: d for d in self.hub.tables()}
        rows = self.hub.store.table_rows()  # also the tables never heard from
        self.snapshots.update(rows)
        now = self._clock()
        ids = set(lives) | {r["table"] for r in rows}
        return [
            self._card(tid, lives.get(tid, {"table": tid}), self.snapshots.get(tid), now)
            for tid in sorted(ids, key=lambda k: _natural(str(k)))
        ]
