"""The domino room of a club evening beside the backgammon events: robot domino tables (the
real runtime and hub link, four robot players), the domino event as the store holds it, and the
director's routine for it (create, pairs, a round started — refused while one of its players
plays backgammon, then confirmed, or started once they are free —, "TIEMPO", the next rounds,
close).

Some of the domino players are in a backgammon event too: the domino desk must not seat them
while they play backgammon (unless the director confirms they will be late), nor the
backgammon desk call them while their domino game is not recorded.

>>> room = DominoRoom(seed=3, players=["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"])
>>> room.pairs()
[('P1', 'P2'), ('P3', 'P4'), ('P5', 'P6'), ('P7', 'P8')]
>>> room.excused("P1", [("velada-3", "t2", "G1-1"), ("D1", "d1", "R1-M1")])
False
>>> room.late[("P1", "D1")] = ("velada-3", "G1-1")
>>> room.excused("P1", [("velada-3", "t2", "G1-1"), ("D1", "d1", "R1-M1")])
True
>>> room.excused("P1", [("velada-3", "t2", "G1-2"), ("D1", "d1", "R1-M1")])
False
"""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.mosquitto import table_password

log = logging.getLogger("support.evening_domino")

DOMINO_TABLES = ("d1", "d2")
ROUNDS = 3  # rounds the domino event plays before the director closes it
ACTION_URL = "/director/domino/actions/{name}"


@dataclass
class DominoState:
    """One domino event as the store holds it."""

    id: str
    phase: str
    rounds: int
    playing: bool  # a game of the current round not yet recorded
    seats: list[tuple[str, str, str, str]]  # (player, event, table, game) of those games
    ended: int  # games recorded


def stored_domino(snapshot: dict[str, list[tuple[str, str]]]) -> dict[str, DominoState]:
    """Every domino event of a :func:`~support.evening_events.read_store` snapshot, by id."""
    from mesa.games.domino.pairs import PairsTournament

    rows = snapshot.get("d", [])
    out = {}
    for tid, state in rows:
        data = json.loads(state)
        data.setdefault("audit", [])  # kept in d_audit; the seats do not need it
        t = PairsTournament.from_dict(data)
        games = t.round_games() if t.current_round else []
        seated = [g for g in games if g.status != "ended"] if t.phase != "closed" else []
        out[str(tid)] = DominoState(
            str(tid),
            t.phase,
            t.current_round,
            bool(seated),
            [(p, t.id, g.table, g.id) for g in seated for p in t.seating(g).values()],
            sum(1 for g in t.games.values() if g.status == "ended"),
        )
    return out


class DominoTables:
    """The room's robot domino tables on the broker, each with its outbox in ``folder``."""

    def __init__(
        self,
        port: int,
        folder: Path,
        speed: float,
        seed: int,
        tables: tuple[str, ...] = DOMINO_TABLES,
    ) -> None:
        self.tables = tables
        self.port = port
        self.folder = folder
        self.speed = speed
        self.seed = seed
        self.sims: list[Any] = []
        self.links: list[Any] = []

    def start(self) -> None:
        from mesa.controller.app import make_link
        from mesa.controller.games.domino.robots import FAST
        from mesa.controller.sim import SimTable

        self.folder.mkdir(parents=True, exist_ok=True)
        for i, tid in enumerate(self.tables):

            def link(runtime: Any, snapshot: dict[str, Any], tid: str = tid) -> Any:
                made = make_link(
                    runtime,
                    table_id=tid,
                    host="127.0.0.1",
                    port=self.port,
                    password=table_password(tid),
                    outbox=self.folder / f"{tid}.sqlite3",
                    snapshot=snapshot,
                )
                self.links.append(made)
                return made

            sim = SimTable(
                tid, game="domino", speed=self.speed, seed=self.seed + i, style=FAST, link=link
            )
            sim.start()
            self.sims.append(sim)

    def refusals(self) -> list[dict[str, Any]]:
        """What the hub sent the domino tables that they could not read (its ``table``,
        ``topic``, ``reason``, ``detail``): each one a message meant for another game's table,
        or a domino message the hub built wrong."""
        out: list[dict[str, Any]] = []
        for link in self.links:
            metrics = getattr(link, "metrics", None)
            if metrics is not None:
                out += metrics.recent_refusals()
        return out

    def stop(self) -> None:
        for sim in self.sims:
            try:
                sim.stop()
            except Exception:
                log.exception("domino table: stopping failed")


@dataclass
class DominoRoom:
    """The director's side of the domino event: who plays (registry ids, in pairs), and what
    happened (the rounds refused, confirmed, started once the players were free)."""

    seed: int
    players: list[str]
    event: str = ""
    tiempo_called: int = 0  # the last round "TIEMPO" was called for
    closed: bool = False
    # (player, domino event) → the backgammon (event, match) the player was playing when the
    # director confirmed the round anyway: that player is excused at two tables until then.
    late: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    said: dict[str, int] = field(default_factory=dict)  # what the room did, counted

    def pairs(self) -> list[tuple[str, str]]:
        return list(zip(self.players[0::2], self.players[1::2], strict=True))

    def excused(self, player: str, seats: list[tuple[str, str, str]]) -> bool:
        """Whether ``player``'s two seats are a late start the director confirmed: their
        domino game and the backgammon match they were playing at that moment."""
        domino = [s for s in seats if (player, s[0]) in self.late]
        if len(domino) != 1 or len(seats) != 2:
            return False
        other = next(s for s in seats if s is not domino[0])
        return self.late[(player, domino[0][0])] == (other[0], other[2])

    def count(self, what: str) -> None:
        self.said[what] = self.said.get(what, 0) + 1

    def next_step(self, state: DominoState | None, rng: random.Random) -> str | None:
        """What the director does next for the room: ``start``, ``tiempo``, ``close``, or
        nothing (a round is being played)."""
        if self.closed or state is None or state.phase == "closed":
            return None
        if state.playing:
            return "tiempo" if self.tiempo_called < state.rounds else None
        if state.rounds >= ROUNDS:
            return "close"
        return "start"
