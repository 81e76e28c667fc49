"""The demo's domino room: robot domino tables playing a pairs tournament the hub runs.

``mesa demo --game domino`` (or ``both``, beside the backgammon room) starts ``tables`` domino
table runtimes (:class:`~mesa.controller.sim.SimTable` of domino, four robots each, with
their real hub links and durable outboxes), registers ``2 × tables`` pairs from the player
registry, and plays the director's part on a thread: start a round once every table is free,
call "TIEMPO" a few seconds later, and after the last round close the tournament. Everything
else — assignments, "TIEMPO" on the retained message, the games recorded from the tables'
``domino.game.ended``, the standings — is the real hub's.

>>> DominoRoom.table_ids(3)
['d1', 'd2', 'd3']
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime
from pathlib import Path
from typing import Any

from mesa.hub.demo.room import Room, RoomContext

log = logging.getLogger("mesa.hub.demo.domino")

PAIR_NAMES = (
    "ANTONIO", "BEATRIZ", "CARLOS", "DOLORES", "EDUARDO", "FLORA", "GABRIEL", "HORTENSIA",
    "IGNACIO", "JULIA", "LEANDRO", "MARTA", "NICOLÁS", "OLGA", "PEDRO", "QUERALT",
)  # fmt: skip


class DominoRoom(Room):
    """See the module docstring. ``web`` is the running :class:`~mesa.hub.web.app.WebApp`."""

    thread_name = "demo-domino"

    def __init__(
        self,
        hub: Any,
        web: Any,
        workdir: Path,
        *,
        tables: int = 4,
        rounds: int = 3,
        speed: float = 30.0,
        seed: int = 2025,
        language: str = "es",
        tiempo_after: float = 3.0,
    ) -> None:
        super().__init__()
        self.hub, self.web, self.workdir = hub, web, workdir
        self.ids = self.table_ids(tables)
        self.rounds, self.speed, self.seed = rounds, speed, seed
        self.language = language
        self.tiempo_after = tiempo_after
        self.sims: list[Any] = []
        self.rounds_played = 0  # ``played``: 1 once its tournament is closed

    @classmethod
    def in_demo(cls, ctx: RoomContext) -> DominoRoom:
        """The room the demo's settings describe (``--domino-tables``, ``--domino-rounds``)."""
        cfg = ctx.config
        return cls(
            ctx.hub, ctx.web, ctx.workdir, tables=cfg.domino_tables, rounds=cfg.domino_rounds,
            speed=cfg.speed, seed=cfg.seed, language=cfg.language,
        )

    @staticmethod
    def table_ids(n: int) -> list[str]:
        return [f"d{i}" for i in range(1, n + 1)]

    def _prepare(self) -> None:
        n = 4 * len(self.ids)
        names = [PAIR_NAMES[i] if i < len(PAIR_NAMES) else f"DOMINÓ {i + 1}" for i in range(n)]

        def players(club: Any, now: datetime) -> list[tuple[str, str]]:
            out = []
            for name in names:
                p = club.registry.find_name(name) or club.registry.add_new(name)
                out.append((p.id, p.name))
            return out

        found = self.web.desk.call(players)
        desk = self.web.domino
        desk.create("Dominó por parejas (demo)", actor="demo")
        for (a, na), (b, nb) in zip(found[0::2], found[1::2], strict=True):
            desk.register_pair(a, b, (na, nb), actor="demo")

    def _start_tables(self) -> None:
        from mesa.controller.app import make_link
        from mesa.controller.games.domino.robots import FAST
        from mesa.controller.sim import SimTable

        broker = self.hub.broker
        assert broker is not None
        for i, tid in enumerate(self.ids, start=1):
            password = secrets.token_urlsafe(12)
            broker.add_user(tid, password)
            self.hub.register_table(tid)
            box = self.workdir / "tables" / tid
            box.mkdir(parents=True, exist_ok=True)

            def link(runtime: Any, snapshot: dict[str, Any], tid: str = tid,
                     password: str = password, box: Path = box) -> Any:
                return make_link(runtime, table_id=tid, host=broker.host,
                                 port=broker.port, password=password,
                                 outbox=box / "outbox.sqlite3", snapshot=snapshot)

            sim = SimTable(tid, game="domino", speed=self.speed, seed=self.seed + i, style=FAST,
                           language=self.language, link=link)
            self.sims.append(sim)
            sim.start()

    # ── the director's part ──
    def _round_over(self) -> bool:
        games = self.web.domino.read(lambda t: [] if t is None else t.round_games())
        return all(g.status == "ended" for g in games)

    def _direct(self) -> None:
        desk = self.web.domino
        try:
            while not self._stopping.is_set() and self.rounds_played < self.rounds:
                if not self._round_over():
                    self._stopping.wait(0.5)
                    continue
                if len(desk.free_tables()) < len(self.ids):
                    self._stopping.wait(0.5)
                    continue
                desk.start_round(actor="demo")
                if self._stopping.wait(self.tiempo_after):
                    return
                desk.call_tiempo(actor="demo")
                self.rounds_played += 1
            while not self._stopping.is_set() and not self._round_over():
                self._stopping.wait(0.5)
            if not self._stopping.is_set():
                desk.close_tournament(actor="demo")
                self.played += 1
        except Exception:
            log.exception("the demo's domino director stopped")

    def _stop_tables(self) -> list[Any]:
        steps: list[Any] = [sim.stop for sim in self.sims]
        self.sims = []
        return steps
