"""The demo's domino room: robot domino tables playing the two formats the hub runs.

``mesa demo --game domino`` (or ``both``, beside the backgammon room) starts ``tables`` domino
table runtimes (:class:`~mesa.controller.sim.SimTable` of domino, four robots each, with
their real hub links and durable outboxes) and two domino events on them at once: a **fixed
pairs** event on the first half of the tables (an odd number of pairs: a bye each round) and an
**individual** event on the others (partners drawn each round; one more player than the
tables seat: one sits out each round). With a single table the two events take turns on it.

A thread plays the director's part for each event: start a round once its tables are free,
call "TIEMPO" a few seconds later, and after the last round close the event. So that the
records show what the hub does with them, the director also fines a little: talking in the
first round (in the pairs event the partner talks too: the second time, −75 to each of the
two), a wrong lead, a late arrival before the second round's "TIEMPO" (the first: recorded)
and an absent player at the individual event's second round (−100 to him, +100 and a game won
to each of the three present). Everything else — assignments, "TIEMPO" on the retained
message, the games recorded from the tables' ``domino.game.ended`` (hand points only), the
players' records and the standings — is the real hub's.

>>> DominoRoom.table_ids(3)
['d1', 'd2', 'd3']
>>> DominoRoom.split(4), DominoRoom.split(1)
((['d1', 'd2'], ['d3', 'd4']), (['d1'], ['d1']))
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from mesa.games.domino.pairs import PairsError
from mesa.hub.demo.room import Room, RoomContext

log = logging.getLogger("mesa.hub.demo.domino")

NAMES = (
    "ANTONIO", "BEATRIZ", "CARLOS", "DOLORES", "EDUARDO", "FLORA", "GABRIEL", "HORTENSIA",
    "IGNACIO", "JULIA", "LEANDRO", "MARTA", "NICOLÁS", "OLGA", "PEDRO", "QUERALT",
    "ÁLVARO", "ÍÑIGO", "ÓSCAR", "ÚRSULA", "ÁNGELA", "ÉRIKA", "RAMÓN", "SOFÍA",
)  # fmt: skip
PAIR_NAMES = NAMES  # the first demo's name for the list


@dataclass
class DemoEvent:
    """One domino event the demo directs: its id, its tables, how far it got."""

    id: str
    format: str
    tables: list[str]
    rounds_played: int = 0
    tiempo_at: float | None = None  # when to call "TIEMPO" for the round just started
    closed: bool = False
    done: set[str] = field(default_factory=set)  # the extras already given ("late:2"…)


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
        self.events: list[DemoEvent] = []
        self.rounds_played = 0  # every event's rounds started (the first demo's count)

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

    @classmethod
    def split(cls, n: int) -> tuple[list[str], list[str]]:
        """The pairs event's tables and the individual event's (one table: the same one)."""
        ids = cls.table_ids(n)
        if n == 1:
            return ids, ids
        half = (n + 1) // 2
        return ids[:half], ids[half:]

    def _prepare(self) -> None:
        pairs_tables, solo_tables = self.split(len(self.ids))
        n_pairs = 2 * len(pairs_tables) + 1  # odd: a bye each round
        n_solo = 4 * len(solo_tables) + 1  # one more than the tables seat: one sits out
        wanted = 2 * n_pairs + n_solo
        names = [NAMES[i] if i < len(NAMES) else f"DOMINÓ {i + 1}" for i in range(wanted)]

        def players(club: Any, now: datetime) -> list[tuple[str, str]]:
            out = []
            for name in names:
                p = club.registry.find_name(name) or club.registry.add_new(name)
                out.append((p.id, p.name))
            return out

        found = self.web.desk.call(players)
        desk = self.web.domino
        duo = desk.create("Dominó por parejas (demo)", actor="demo", format="pairs")
        paired = found[: 2 * n_pairs]
        for (a, na), (b, nb) in zip(paired[0::2], paired[1::2], strict=True):
            desk.register_pair(a, b, (na, nb), actor="demo", t=duo.id)
        solo = desk.create("Dominó individual (demo)", actor="demo", format="individual")
        for pid, name in found[2 * n_pairs:]:
            desk.register_player(pid, name, actor="demo", t=solo.id)
        self.events = [DemoEvent(duo.id, "pairs", pairs_tables),
                       DemoEvent(solo.id, "individual", solo_tables)]

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
    def _round_over(self, ev: DemoEvent) -> bool:
        games = self.web.domino.read(lambda t: t.round_games(), ev.id)
        return all(g.status == "ended" for g in games)

    def _first_game(self, ev: DemoEvent) -> Any:
        return self.web.domino.read(lambda t: t.round_games()[0], ev.id)

    def _try(self, what: str, fn: Any, wait: float = 8.0) -> Any:
        """A director's action that needs the table to have taken its game: tried again for a
        few seconds (the assignment and the command travel apart); given up, said in the log."""
        deadline = time.monotonic() + wait
        while not self._stopping.is_set():
            try:
                return fn()
            except PairsError as e:
                if e.code not in ("table_refused", "table_timeout") \
                        or time.monotonic() > deadline:
                    log.info("demo domino: %s not given (%s)", what, e)
                    return None
                self._stopping.wait(0.3)
        return None

    def _before_tiempo(self, ev: DemoEvent) -> None:
        """Round 2, before "TIEMPO": a late arrival (pairs), an absent player (individual)."""
        desk = self.web.domino
        if ev.rounds_played != 2:
            return
        g = self._first_game(ev)
        if ev.format == "pairs":
            self._try("a late arrival", lambda: desk.late(g.id, g.seats["e"], actor="demo",
                                                          t=ev.id))
        else:
            self._try("an absence", lambda: desk.absence(g.id, [g.seats["w"]], actor="demo",
                                                         t=ev.id))

    def _after_tiempo(self, ev: DemoEvent) -> None:
        """Round 1, after "TIEMPO": talking (twice in the pairs event: the partner's is the
        second time), a wrong lead."""
        desk = self.web.domino
        if ev.rounds_played != 1:
            return
        g = self._first_game(ev)
        talkers = [g.seats["n"], g.seats["s"]] if ev.format == "pairs" else [g.seats["n"]]
        for p in talkers:
            self._try("a fine", lambda p=p: desk.penalty(g.id, p, "talking", None,
                                                         actor="demo", t=ev.id))
        self._try("a fine", lambda: desk.penalty(g.id, g.seats["w"], "wrong_lead", None,
                                                 actor="demo", t=ev.id))

    def _step_event(self, ev: DemoEvent) -> None:
        desk = self.web.domino
        if ev.tiempo_at is not None:
            if time.monotonic() >= ev.tiempo_at:
                desk.call_tiempo(actor="demo", t=ev.id)
                ev.tiempo_at = None
                self._after_tiempo(ev)
            return
        if not self._round_over(ev):
            return
        if ev.rounds_played >= self.rounds:
            desk.close_tournament(actor="demo", t=ev.id)
            ev.closed = True
            self.played += 1
            return
        free = set(desk.free_tables())
        if not set(ev.tables) <= free:
            return
        desk.start_round(actor="demo", t=ev.id, tables=list(ev.tables))
        ev.rounds_played += 1
        self.rounds_played += 1
        self._before_tiempo(ev)
        ev.tiempo_at = time.monotonic() + self.tiempo_after

    def _direct(self) -> None:
        try:
            while not self._stopping.is_set() and not all(ev.closed for ev in self.events):
                for ev in self.events:
                    if not ev.closed and not self._stopping.is_set():
                        self._step_event(ev)
                self._stopping.wait(0.5)
        except Exception:
            log.exception("the demo's domino director stopped")

    def _stop_tables(self) -> list[Any]:
        steps: list[Any] = [sim.stop for sim in self.sims]
        self.sims = []
        return steps
