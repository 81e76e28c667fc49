"""The tables of a club evening: robot tables (the real runtime, outbox and MQTT link, robots
seeded by match), the same as a process that kill -9 can hit, hostile tables speaking with a
table's broker account, and what each table really sent (its outbox, read-only).

Run a table as its own process::

    python -m support.evening_tables --table t4 --port 1883 --dir /tmp/t4 --speed 60 --seed 1

>>> snap = table_snapshot("G1-1", {"a": "A", "b": "B"}, 3)
>>> snap["state"], snap["match_id"], snap["match"]["score"]
('assigned', 'G1-1', {'a': 0, 'b': 0})
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import random
import signal
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from mesa.controller.games.backgammon.robots import FAST, RobotDriver, RobotPlayers
from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.controller.sim import SimTable
from mesa.games.backgammon.machine import Table
from mesa.games.backgammon.view import View
from mesa.protocol import EventEnvelope, StateReport, new_id, table_topic
from support.mosquitto import table_password


class MatchSeededRobots(RobotPlayers):
    """Robots whose dice and choices depend on the evening's seed and the match, not on which
    table plays it or what it played before: the same seed plays the same matches."""

    def __init__(self, seed: int) -> None:
        super().__init__(("a", "b"), seed=seed, style=FAST)
        self._base = seed

    def _observe(self, view: View, now: float) -> None:
        if view.match_id != self._match:
            self.rng = random.Random(f"{self._base}/{view.match_id}")
        super()._observe(view, now)


class RobotTable:
    """One table: the real runtime at ``speed``, robots, the durable outbox and the MQTT link
    (to ``port``, a broker or the proxy in front of it). With ``journal`` it resumes after a
    kill -9 like a real table."""

    def __init__(
        self, tid: str, port: int, folder: Path, speed: float, seed: int, *, journal: bool = False
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.tid = tid
        self.port = port
        self.outbox_path = folder / "outbox.sqlite3"
        self.outbox: Outbox | None = None
        self.sim = SimTable(
            tid,
            speed=speed,
            seed=seed,
            robots=(),
            journal_dir=folder / "journal" if journal else None,
            link=self._link,
        )
        self.driver = RobotDriver(self.sim.runtime, MatchSeededRobots(seed))

    def _link(self, runtime: Any, snapshot: dict[str, Any]) -> TableLink:
        self.outbox = Outbox(self.outbox_path, table=self.tid)
        link = TableLink(
            LinkSettings(
                self.tid,
                host="127.0.0.1",
                port=self.port,
                password=table_password(self.tid),
                reconnect_max=1,
            ),
            self.outbox,
            submitter=runtime,
            snapshot=snapshot,
            clock=runtime.now,
        )
        runtime.add_sink(link)
        link.start()
        return link

    def start(self) -> RobotTable:
        self.sim.start()
        self.driver.start()
        return self

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.driver.stop()
        with contextlib.suppress(Exception):
            self.sim.stop()
        if self.outbox is not None:
            with contextlib.suppress(Exception):
                self.outbox.close()


def table_main(argv: list[str]) -> int:
    """``python -m support.evening_tables --table t4 --port P --dir D --speed S --seed N``."""
    p = argparse.ArgumentParser(prog="support.evening_tables")
    p.add_argument("--table", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--dir", type=Path, required=True)
    p.add_argument("--speed", type=float, required=True)
    p.add_argument("--seed", type=int, required=True)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format=f"{args.table} %(levelname)s %(message)s")
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    table = RobotTable(args.table, args.port, args.dir, args.speed, args.seed, journal=True)
    table.start()
    print(f"table {args.table} up", flush=True)
    try:
        done.wait()
    finally:
        table.stop()
    return 0


# ── hostile tables ───────────────────────────────────────────────────────────
class HostileUnavailable(Exception):
    """The broker would not take the hostile client's message (it was down or busy): the attack
    did not happen, which is the harness's bad luck, not the product's fault."""


class Hostile:
    """Speaks as table ``tid`` (its own broker account) from another client: what a tampered
    Pi, or a stale one coming back, would send."""

    ATTEMPTS = 3

    def __init__(self, port: int, tid: str) -> None:
        self.tid = tid
        self.stream = "evil" + new_id()[:20]
        self.seq = 0
        self.connected = threading.Event()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"evil-{tid}-{new_id()[:8]}",
            protocol=mqtt.MQTTv5,
        )
        self.client.username_pw_set(tid, table_password(tid))
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *_a: self.connected.clear()
        try:
            self.client.connect("127.0.0.1", port, keepalive=10)
        except OSError as e:
            raise HostileUnavailable(f"connect: {e}") from e
        self.client.loop_start()

    def _on_connect(self, _c: Any, _u: Any, _f: Any, reason: Any, _p: Any = None) -> None:
        if not reason.is_failure:
            self.connected.set()

    def publish(self, kind: str, payload: dict[str, Any], *, retain: bool = False) -> None:
        """Publish at QoS 1 and wait for the broker's ack; a dropped connection is retried
        (paho reconnects by itself inside ``loop_start``)."""
        raw = json.dumps(payload, separators=(",", ":")).encode()  # ASCII: lone surrogates pass
        last: Exception | None = None
        for _ in range(self.ATTEMPTS):
            if not self.connected.wait(5):
                last = HostileUnavailable("no CONNACK in 5 s")
                continue
            info = self.client.publish(table_topic(self.tid, kind), raw, qos=1, retain=retain)
            try:
                info.wait_for_publish(5)
            except (RuntimeError, ValueError) as e:
                last = e
                time.sleep(0.5)
                continue
            if info.is_published():
                return
            last = HostileUnavailable("no PUBACK in 5 s")
        raise HostileUnavailable(f"{kind}: {last}")

    def event(self, type_: str, data: dict[str, Any], *, event_id: str | None = None) -> None:
        self.seq += 1
        env = EventEnvelope.build(
            self.tid, self.stream, self.seq, type_, data, ts=time.time(), t=1e6 + self.seq
        ).to_dict()
        if event_id is not None:
            env["id"] = event_id
        self.publish("event", env)

    def state(self, snapshot: dict[str, Any]) -> None:
        report = StateReport(self.tid, self.stream, self.seq, 0, time.time(), {}).to_dict()
        report["snapshot"] = snapshot
        self.publish("state", report, retain=True)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.disconnect()
        self.client.loop_stop()


def table_snapshot(match_id: str, players: dict[str, str], length: int) -> dict[str, Any]:
    t = Table()
    t.apply("assign", {"match_id": match_id, "players": players, "length": length}, now=0.0)
    return t.snapshot()


# ── what the tables really sent ──────────────────────────────────────────────
class Genuine:
    """Reads each table's outbox (read-only, incrementally): which match every event belonged
    to, and every final score a table really reported for a match (match.ended and
    score.corrected)."""

    def __init__(self) -> None:
        self.seen: dict[Path, int] = {}
        self.current: dict[str, str | None] = {}
        self.scores: dict[tuple[str, str], set[tuple[int, int]]] = {}
        self.matches: dict[str, list[str]] = {}  # table → the matches it was given, in order

    def read(self, table: str, path: Path) -> None:
        if not path.exists():
            return
        try:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
            try:
                rows = conn.execute(
                    "SELECT seq, payload FROM outbox WHERE seq > ? ORDER BY seq",
                    (self.seen.get(path, 0),),
                ).fetchall()
            finally:
                conn.close()
        except sqlite3.Error:
            return
        for seq, payload in rows:
            self.seen[path] = seq
            env = json.loads(payload)
            kind, data = env.get("type"), env.get("data") or {}
            if kind == "table.assigned":
                self.current[table] = data.get("match_id")
                self.matches.setdefault(table, []).append(str(data.get("match_id")))
            elif kind == "table.unassigned":
                self.current[table] = None
            elif kind in ("match.ended", "score.corrected"):
                mid = self.current.get(table)
                score = data.get("score") or {}
                if mid is not None:
                    self.scores.setdefault((table, mid), set()).add(
                        (int(score.get("a", -1)), int(score.get("b", -1)))
                    )


def unacked(outbox: Path) -> int:
    """How many of the outbox's events the hub has not acknowledged (0 if unreadable)."""
    try:
        conn = sqlite3.connect(f"file:{outbox}?mode=ro", uri=True, timeout=5)
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        finally:
            conn.close()
        return max(0, int(meta.get("last_seq", 0)) - int(meta.get("acked", 0)))
    except (sqlite3.Error, ValueError):
        return 0


def last_seq(outbox: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{outbox}?mode=ro", uri=True, timeout=5)
        try:
            row = conn.execute("SELECT MAX(seq) FROM outbox").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return 0
    return int(row[0] or 0)


if __name__ == "__main__":
    sys.exit(table_main(sys.argv[1:]))
