"""The demo's backgammon room: eight robot tables playing the club's tournaments, season after season.

``mesa demo`` (``--game backgammon``, the default, or ``both``) starts ``tables`` table runtimes
(:class:`~mesa.controller.sim.SimTable`, robot players, each with its real hub link and durable
outbox). An evening is a 24-player open tournament created from an imported ranking (with last season
already played, so every ranking and the rating chart have something to show) and, beside it on
the same tables, a novatos one (RULES §4; ``novatos`` players, two of them also in the open);
the groups are drawn, and the hub hands both events' matches to the tables as they free up.
When every event of the evening is over they are closed and, after a short pause, the next
evening of the season starts with the same players (a week later on the calendar), so the demo
is alive whenever someone looks.

>>> len(demo_names(24)), demo_names(24)[0]
(24, 'ALBA')
>>> novato_names(3)
['NOVATO 1', 'NOVATO 2', 'NOVATO 3']
"""

from __future__ import annotations

import contextlib
import functools
import logging
import random
import secrets
import time
from datetime import date, datetime, timedelta
from typing import Any

from mesa.hub.demo.room import Room, RoomContext

log = logging.getLogger("mesa.hub.demo.run")  # the demo's lines, as before the rooms

NAMES = (
    "ALBA", "BRUNO", "CARMEN", "DIEGO", "ELENA", "FÉLIX", "GLORIA", "HUGO", "INÉS", "JORGE",
    "LUCÍA", "MANUEL", "NURIA", "ÓSCAR", "PAULA", "RAMÓN", "SARA", "TOMÁS", "ÚRSULA", "VÍCTOR",
    "WANDA", "XAVI", "YOLANDA", "ZOE", "ALEX", "BEA", "CÉSAR", "DORA", "EMILIO", "FÁTIMA",
)  # fmt: skip


# Table minutes a point the demo's robots take (FAST style), the norm of the demo's tournaments.
ROBOT_MINUTES_PER_POINT = 2


def demo_names(n: int) -> list[str]:
    """``n`` distinct player names (numbered beyond the list)."""
    return [NAMES[i] if i < len(NAMES) else f"JUGADOR {i + 1}" for i in range(n)]


def novato_names(n: int) -> list[str]:
    """``n`` distinct names for the novatos category."""
    return [f"NOVATO {i + 1}" for i in range(n)]


def _ranking_csv(names: list[str], rng: random.Random) -> str:
    """Last season's final ranking, as the club would export it (some names missing)."""
    lines = ["nombre;puntos;torneos;ganados;finales"]
    ranked = names[: max(2, len(names) * 3 // 4)]
    points = sorted((rng.randint(10, 400) for _ in ranked), reverse=True)
    for name, pts in zip(ranked, points, strict=True):
        won = rng.randint(0, 1)
        lines.append(
            f"{name};{pts // 100},{pts % 100:02d};{rng.randint(3, 10)};"
            f"{won};{won + rng.randint(0, 1)}"
        )
    return "\n".join(lines) + "\n"


def play_out(club: Any, tournament_id: str, rng: random.Random, now: datetime) -> None:
    """Finish a tournament instantly with random results (last season's, for the demo)."""
    from mesa.tournament.errors import TournamentError

    t = club.tournament(tournament_id)
    for _ in range(10_000):
        if t.is_finished():
            break
        if t.knockout is not None and t.consolation is None and t.settings.consolation:
            with contextlib.suppress(TournamentError):
                t.start_consolation(actor="demo", now=now)
        ready = t.ready_matches()
        if not ready:
            if t.pending_dice():
                g, tie = t.pending_dice()[0]
                t.enter_dice(g, {p: i + 1 for i, p in enumerate(tie)}, actor="demo", now=now)
                continue
            break
        for m in ready:
            loser = rng.randint(0, m.length - 1)
            score = (m.length, loser) if rng.random() < 0.5 else (loser, m.length)
            now += timedelta(minutes=1)
            t.record_result(m.id, *score, source="director", actor="demo", now=now)
    club.close(tournament_id, actor="demo", now=now)


class BackgammonRoom(Room):
    """See the module docstring: the room's tables, its tournament and its season (its
    director: ``played`` counts the tournaments it finished and closed)."""

    thread_name = "demo-season"

    def __init__(self, ctx: RoomContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.sims: list[Any] = []
        self.links: list[Any] = []
        self.outboxes: list[Any] = []

    def _prepare(self) -> None:
        cfg = self.ctx.config
        rng = random.Random(cfg.seed)
        names = demo_names(cfg.players)
        today = date.today()
        csv_text = _ranking_csv(names, rng)

        def prepare(club: Any, now: datetime) -> None:
            club.import_ranking(csv_text, year=today.year - 1, create_missing=True)
            for name in names:
                if club.registry.find_name(name) is None:
                    club.registry.add_new(name)
            for name in novato_names(cfg.novatos):
                if club.registry.find_name(name) is None:
                    club.registry.add_new(name, category="novatos")
            if cfg.history:
                past = today - timedelta(days=28)
                pid = f"{past.isoformat()}"
                club.create_tournament(pid, "Torneo del mes pasado", past)
                for p in list(club.registry)[: max(4, cfg.players - 4)]:
                    club.register(pid, p.id, now=now - timedelta(days=28))
                club.start(pid, seed=cfg.seed, now=now - timedelta(days=28))
                play_out(club, pid, rng, now - timedelta(days=28))
            _start_evening(club, today, 1, names, cfg.novatos, cfg.seed, now)

        self.ctx.web.desk.call(prepare)

    def _direct(self) -> None:
        """Watch the current evening; once every event of it is over (and has been on show
        for ``pause`` seconds) close them and start the next evening, until the demo stops."""
        cfg = self.ctx.config
        desk = self.ctx.web.desk
        names = demo_names(cfg.players)
        finished_at: float | None = None
        while not self._stopping.wait(0.5):
            try:
                over = desk.read(_evening_is_over)
            except Exception:
                log.exception("demo: cannot read the current tournament")
                continue
            if not over:
                finished_at = None
                continue
            if finished_at is None:
                finished_at = time.monotonic()
            if time.monotonic() - finished_at < cfg.pause:
                continue
            number = self.played + 2
            next_one = functools.partial(
                _next_evening, names=names, novatos=cfg.novatos, seed=cfg.seed + number,
                number=number,
            )
            try:
                tid = desk.call(next_one)
            except Exception:
                log.exception("demo: the next tournament could not start")
                self._stopping.wait(5.0)
                continue
            self.played += 1
            finished_at = None
            log.info("demo: tournament %s started", tid)
            desk.wake()

    def _start_tables(self) -> None:
        from mesa.controller.games.backgammon.robots import FAST
        from mesa.controller.link import LinkSettings, TableLink
        from mesa.controller.outbox import Outbox
        from mesa.controller.sim import SimTable

        hub, cfg = self.ctx.hub, self.ctx.config
        assert hub.broker is not None
        broker = hub.broker
        for i, tid in enumerate(cfg.table_ids(), start=1):
            password = secrets.token_urlsafe(12)
            broker.add_user(tid, password)
            outbox = Outbox.open(self.ctx.workdir / "tables" / tid / "outbox.sqlite3", table=tid)
            sim = SimTable(
                tid,
                speed=cfg.speed,
                seed=cfg.seed + i,
                robots=("a", "b"),
                style=FAST,
                language=cfg.language,
            )
            link = TableLink(
                LinkSettings(tid, host=broker.host, port=broker.port, password=password),
                outbox,
                submitter=sim.runtime,
                snapshot=sim.runtime.snapshot(),
                clock=sim.runtime.now,
            )  # commands are stamped on the table's clock
            sim.runtime.add_sink(link)
            self.outboxes.append(outbox)
            self.links.append(link)
            self.sims.append(sim)
            link.start()
            sim.start()

    def _stop_tables(self) -> list[Any]:
        steps: list[Any] = [sim.stop for sim in self.sims]
        steps += [link.stop for link in self.links]
        steps += [box.close for box in self.outboxes]
        self.sims, self.links, self.outboxes = [], [], []
        return steps


def _start_tournament(
    club: Any, tid: str, held_on: date, name: str, names: list[str], seed: int, now: datetime,
    *, category: str = "open",
) -> str:
    """Create, fill and draw a demo tournament."""
    from mesa.tournament.settings import TournamentSettings

    # The demo's robots play about two minutes a point (table time), not a club's ten (HGV
    # 2.4): the pace and the forecast on its pages are measured against what they do.
    club.create_tournament(tid, name, held_on, category=category,
                           settings=TournamentSettings(minutes_per_point=ROBOT_MINUTES_PER_POINT))
    for player_name in names:
        player = club.registry.find_name(player_name)
        # An open player who also plays the novatos event needs the director's override.
        club.register(tid, player.id, now=now, override=player.category != category)
    club.start(tid, seed=seed, now=now)
    return tid


def _start_evening(
    club: Any, held_on: date, number: int, names: list[str], novatos: int, seed: int,
    now: datetime,
) -> str:
    """The evening's events: the open tournament (its id is its date) and, with ``novatos``
    players, the novatos one beside it on the same tables (two open players play both, so a
    player busy in one event waits for the other). Returns the open tournament's id."""
    suffix = "" if number == 1 else f" nº {number}"
    tid = _start_tournament(
        club, held_on.isoformat(), held_on, f"Torneo de demostración{suffix}", names, seed, now
    )
    if novatos:
        _start_tournament(
            club, f"{held_on.isoformat()}-novatos", held_on, f"Novatos{suffix}",
            novato_names(novatos) + names[-2:], seed + 1, now, category="novatos",
        )
    return tid


def _evening_is_over(club: Any) -> bool:
    """Whether every event of the newest evening has nothing left to play (closed, or
    finished)."""
    if not club.tournaments:
        return False
    last = max(t.held_on for t in club.tournaments.values())
    return all(
        t.phase == "closed" or t.is_finished()
        for t in club.tournaments.values()
        if t.held_on == last
    )


def _next_evening(
    club: Any, now: datetime, *, names: list[str], novatos: int, seed: int, number: int
) -> str:
    """Close the newest evening's events still open and start the next evening, a week
    later."""
    last = max(t.held_on for t in club.tournaments.values())
    for t in sorted(club.tournaments.values(), key=lambda x: x.id):
        if t.held_on == last and t.phase != "closed":
            club.close(t.id, actor="demo", now=now)
    held_on = max(last, date.today()) + timedelta(days=7)
    return _start_evening(club, held_on, number, names, novatos, seed, now)
