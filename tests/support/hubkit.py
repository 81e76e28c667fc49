"""Helpers for the hub's tests: a hub (not connected to any broker), the web app on top,
an in-process HTTP client (``httpx.ASGITransport``), and tables that talk to the hub through its
real ingest path (envelopes, state reports, responses) without a network."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import httpx

from mesa.games.backgammon.machine import Table
from mesa.hub.ingest.app import Hub
from mesa.hub.ingest.pipeline import Incoming
from mesa.hub.web.app import WebApp
from mesa.protocol import EventEnvelope, Response, StateReport, TableStatus, table_topic

PASSWORD = "tablero-verde"
TODAY = date(2025, 3, 7)
NOW = datetime(2025, 3, 7, 20, 0)


async def login(client: httpx.AsyncClient, user: str = "director", password: str = PASSWORD) -> str:
    """Log in through the form; returns the session's CSRF token (read from a page)."""
    r = await client.post("/login", data={"user": user, "password": password})
    assert r.status_code == 303, r.text
    r = await client.get("/login.json")
    assert r.json()["user"] == user
    page = (await client.get("/director")).text
    marker = 'data-csrf="'
    start = page.index(marker) + len(marker)
    return page[start : page.index('"', start)]


async def act(
    client: httpx.AsyncClient, csrf: str | None, action: str, /, **fields: Any
) -> httpx.Response:
    """A director action as the dashboard's script posts it."""
    headers = {"Accept": "application/json"}
    if csrf is not None:
        headers["X-CSRF-Token"] = csrf
    data = {k: ("1" if v is True else "" if v is False else str(v)) for k, v in fields.items()}
    return await client.post(f"/director/actions/{action}", data=data, headers=headers)


def make_tournament(
    web: WebApp, n: int = 6, *, start: bool = True, tid: str = "2025-03"
) -> list[str]:
    """A tournament of ``n`` players (ALBA, BRUNO, …), groups drawn if ``start``."""
    names = [
        "ALBA",
        "BRUNO",
        "CARMEN",
        "DIEGO",
        "ELENA",
        "FÉLIX",
        "GLORIA",
        "HUGO",
        "INÉS",
        "JORGE",
        "LUCÍA",
        "MANUEL",
    ][:n]

    def run(club: Any, now: datetime) -> list[str]:
        club.create_tournament(tid, "Marzo", TODAY)
        ids = [club.registry.add_new(name).id for name in names]
        for pid in ids:
            club.register(tid, pid, now=now)
        if start:
            club.start(tid, seed=7, now=now)
        return ids

    return web.desk.call(run)


@dataclass
class FakeTable:
    """A table whose machine runs here and whose messages go straight into the hub's ingest."""

    hub: Hub
    id: str
    table: Table = field(default_factory=Table)
    now: float = 100.0
    seq: int = 0
    bdseq: int = 1
    stream: str = ""
    applied: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.stream = self.stream or f"s-{self.id}"

    def _ingest(self, messages: list[tuple[str, bytes]]) -> None:
        self.hub.ingest.handle([Incoming(table_topic(self.id, k), p) for k, p in messages])

    def online(self, state: str = "online") -> None:
        msg = TableStatus(self.id, state, self.bdseq, time.time())  # type: ignore[arg-type]
        self._ingest([("status", msg.to_payload())])
        if state == "online":
            if self.table.s.last_now is None:
                self.table.apply("tick", {}, now=self.now)  # the table's clock is known
            self.publish_state()

    def publish_state(self) -> None:
        report = StateReport(
            self.id, self.stream, self.seq, self.seq, time.time(), self.table.snapshot()
        )
        self._ingest([("state", report.to_payload())])

    def apply(
        self, name: str, args: dict[str, Any] | None = None, dt: float = 1.0, txn: str | None = None
    ) -> Any:
        """Apply one input at the table, send its events and its new snapshot to the hub."""
        self.now += dt
        out = self.table.apply(name, args or {}, now=self.now)
        messages = []
        for e in out.events:
            self.seq += 1
            env = EventEnvelope.build(
                self.id,
                self.stream,
                self.seq,
                e.TYPE,
                e.to_data(),
                ts=time.time(),
                t=self.now,
                epoch=out.epoch,  # the assignment's fencing token, as the link sends it
            )
            messages.append(("event", env.to_payload()))
        report = StateReport(
            self.id, self.stream, self.seq, self.seq, time.time(), self.table.snapshot()
        )
        messages.append(("state", report.to_payload()))
        if txn is not None:
            r = out.refusal
            resp = Response(
                self.id,
                txn,
                out.accepted,
                r.code if r else out.note,  # accepted, the note (as the link answers)
                r.message if r else None,
                time.time(),
            )
            messages.append(("response", resp.to_payload()))
        self._ingest(messages)
        return out

    def serve(self) -> int:
        """Apply what the hub sent this table (assignments and commands) and answer."""
        done = 0
        for a in self.hub.store.assignments():
            if a["table"] == self.id and a["txn"] not in self.applied:
                self.applied.add(a["txn"])
                self.apply("assign" if a["args"] else "unassign", a["args"] or {}, txn=a["txn"])
                done += 1
        for c in reversed(self.hub.store.commands(self.id)):
            if c["kind"] == "cmd" and c["txn"] not in self.applied and c["accepted"] is None:
                self.applied.add(c["txn"])
                self.apply(c["input"], c["args"] or {}, txn=c["txn"], dt=0.1)
                done += 1
        return done

    def play_to_running(
        self, match: str = "G1-1", names: tuple[str, str] = ("ALBA", "BRUNO"), length: int = 3
    ) -> None:
        """Assigned, both checked in, a game under way with a on move."""
        if self.table.state == "idle":
            self.apply(
                "assign",
                {
                    "match_id": match,
                    "players": {"a": names[0], "b": names[1]},
                    "length": length,
                    "clock": {"preset": "singles"},
                },
            )
        self.apply("press", {"side": "a"})
        self.apply("press", {"side": "b"})
        self.apply("press", {"side": "b"})  # b rolled lower: a's clock runs


@contextlib.asynccontextmanager
async def serving(*tables: FakeTable) -> AsyncIterator[None]:
    """The fake tables answer the hub's commands while the block runs (as a real one would)."""
    stop = asyncio.Event()

    async def loop() -> None:
        while not stop.is_set():
            for table in tables:
                await asyncio.to_thread(table.serve)
            await asyncio.sleep(0.02)

    task = asyncio.create_task(loop())
    try:
        yield
    finally:
        stop.set()
        await task
