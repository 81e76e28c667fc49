"""``make demo``: the whole system on one laptop, in accelerated time.

One process runs the hub (with its own private Mosquitto and SQLite), eight simulated tables with
robot players (each a real table runtime, durable outbox and MQTT link), and the dashboard. A
24-player tournament is created from an imported ranking (with last season already played, so
every ranking and the rating chart have something to show), the groups are drawn, and the hub
hands matches to the tables as they free up. When a tournament is over it is closed and, after
a short pause, the next one of the season starts with the same players (a week later on the
calendar), so the demo is alive whenever someone looks. It prints the address; Ctrl-C stops
everything.

>>> cfg = DemoConfig(tables=2, players=6)
>>> cfg.table_ids()
['1', '2']
>>> len(demo_names(24)), demo_names(24)[0]
(24, 'ALBA')
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import os
import random
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

log = logging.getLogger("mesa.hub.demo.run")

NAMES = (
    "ALBA", "BRUNO", "CARMEN", "DIEGO", "ELENA", "FÉLIX", "GLORIA", "HUGO", "INÉS", "JORGE",
    "LUCÍA", "MANUEL", "NURIA", "ÓSCAR", "PAULA", "RAMÓN", "SARA", "TOMÁS", "ÚRSULA", "VÍCTOR",
    "WANDA", "XAVI", "YOLANDA", "ZOE", "ALEX", "BEA", "CÉSAR", "DORA", "EMILIO", "FÁTIMA",
)  # fmt: skip


def demo_names(n: int) -> list[str]:
    """``n`` distinct player names (numbered beyond the list)."""
    return [NAMES[i] if i < len(NAMES) else f"JUGADOR {i + 1}" for i in range(n)]


@dataclass
class DemoConfig:
    tables: int = 8
    players: int = 24
    # Table seconds per real second: a 3-point group match takes a few real seconds.
    speed: float = 30.0
    host: str = "127.0.0.1"
    port: int = 8080
    workdir: Path | None = None
    password: str = "mesa"
    seed: int = 2025
    history: bool = True  # play last season's tournament first (rankings and ratings)
    keep: bool = False  # keep the work directory after stopping
    language: str = "es"
    # Real seconds a finished tournament stays on show before it is closed and the next starts.
    pause: float = 20.0
    extra_env: dict[str, str] = field(default_factory=dict)
    game: str = "backgammon"  # backgammon, domino, or both rooms
    domino_tables: int = 4
    domino_rounds: int = 3

    def table_ids(self) -> list[str]:
        return [str(i) for i in range(1, self.tables + 1)]


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


class Demo:
    """The running demo. :meth:`start` returns once everything is up; :meth:`stop` undoes it."""

    def __init__(self, config: DemoConfig) -> None:
        self.config = config
        self.workdir: Path | None = None
        self._own_workdir = False
        self.hub: Any = None
        self.web: Any = None
        self.sims: list[Any] = []
        self.links: list[Any] = []
        self.outboxes: list[Any] = []
        self.server: Any = None
        self.domino: Any = None
        self.url = ""
        self.played = 0  # tournaments of this run finished and closed
        self._season: threading.Thread | None = None
        self._stopping = threading.Event()

    # ── start ───────────────────────────────────────────────────────────
    def start(self) -> Demo:
        cfg = self.config
        if cfg.workdir is None:
            self.workdir = Path(tempfile.mkdtemp(prefix="mesa-demo-"))
            self._own_workdir = True
        else:
            self.workdir = Path(cfg.workdir)
            self.workdir.mkdir(parents=True, exist_ok=True)
        try:
            self._start_hub()
            self._start_web()
            if cfg.game in ("backgammon", "both"):
                self._prepare_tournament()
                self._start_tables()
            if cfg.game in ("domino", "both"):
                self._start_domino()
            self._start_server()
            self._start_season()
        except BaseException:
            self.stop()
            raise
        return self

    def _start_hub(self) -> None:
        from mesa.hub.broker.mosquitto import free_port
        from mesa.hub.ingest.app import Hub
        from mesa.hub.settings import HubSettings

        assert self.workdir is not None
        settings = HubSettings(
            db=self.workdir / "hub.sqlite3",
            embedded_broker=True,
            broker_dir=self.workdir / "broker",
            broker_port=free_port(),
        )
        self.hub = Hub(settings).start(wait=15.0)

    def _start_web(self) -> None:
        from mesa.hub.web.app import WebApp

        cfg = self.config
        os.environ["MESA_DEMO"] = "1"  # the login page shows the demo's password
        settings = self.hub.settings.replace(
            host=cfg.host,
            port=cfg.port,
            director_password=cfg.password,
            time_scale=cfg.speed,
            language=cfg.language,
            low_time=60.0,
        )
        self.web = WebApp(self.hub, settings)
        for tid in cfg.table_ids():
            self.hub.register_table(tid)

    def _prepare_tournament(self) -> None:
        cfg = self.config
        rng = random.Random(cfg.seed)
        names = demo_names(cfg.players)
        today = date.today()
        csv_text = _ranking_csv(names, rng)

        def prepare(club: Any, now: datetime) -> None:
            club.import_ranking(csv_text, year=today.year - 1, create_missing=True)
            for name in names:
                if club.registry.find_name(name) is None:
                    club.registry.add_new(name)
            if cfg.history:
                past = today - timedelta(days=28)
                pid = f"{past.isoformat()}"
                club.create_tournament(pid, "Torneo del mes pasado", past)
                for p in list(club.registry)[: max(4, cfg.players - 4)]:
                    club.register(pid, p.id, now=now - timedelta(days=28))
                club.start(pid, seed=cfg.seed, now=now - timedelta(days=28))
                play_out(club, pid, rng, now - timedelta(days=28))
            _start_tournament(club, today, "Torneo de demostración", names, cfg.seed, now)

        self.web.desk.call(prepare)

    def _start_season(self) -> None:
        self._season = threading.Thread(target=self._season_loop, name="demo-season", daemon=True)
        self._season.start()

    def _season_loop(self) -> None:
        """Watch the current tournament; once it is over (and has been on show for
        ``pause`` seconds) close it and start the next one, until the demo stops."""
        cfg = self.config
        names = demo_names(cfg.players)
        finished_at: float | None = None
        while not self._stopping.wait(0.5):
            try:
                over = self.web.desk.read(_current_is_over)
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
                _next_tournament, names=names, seed=cfg.seed + number, number=number
            )
            try:
                tid = self.web.desk.call(next_one)
            except Exception:
                log.exception("demo: the next tournament could not start")
                self._stopping.wait(5.0)
                continue
            self.played += 1
            finished_at = None
            log.info("demo: tournament %s started", tid)
            self.web.desk.wake()

    def _start_tables(self) -> None:
        from mesa.controller.link import LinkSettings, TableLink
        from mesa.controller.outbox import Outbox
        from mesa.controller.robots import FAST
        from mesa.controller.sim import SimTable

        assert self.workdir is not None and self.hub.broker is not None
        cfg = self.config
        broker = self.hub.broker
        for i, tid in enumerate(cfg.table_ids(), start=1):
            password = secrets.token_urlsafe(12)
            broker.add_user(tid, password)
            outbox = Outbox.open(self.workdir / "tables" / tid / "outbox.sqlite3", table=tid)
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

    def _start_domino(self) -> None:
        from mesa.hub.demo.domino import DominoRoom

        assert self.workdir is not None
        cfg = self.config
        self.domino = DominoRoom(
            self.hub, self.web, self.workdir, tables=cfg.domino_tables,
            rounds=cfg.domino_rounds, speed=cfg.speed, seed=cfg.seed, language=cfg.language,
        ).start()

    def _start_server(self) -> None:
        from mesa.errors import ConfigError
        from mesa.hub.web.http.server import BackgroundServer

        try:
            self.server = BackgroundServer(self.web, self.config.host, self.config.port).start()
        except ConfigError:
            if self.config.port == 0:
                raise
            # The port is taken (another demo?): any free port will do, the address is printed.
            log.warning("port %d is busy; using a free one", self.config.port)
            self.server = BackgroundServer(self.web, self.config.host, 0).start()
        self.url = self.server.url

    # ── stop ────────────────────────────────────────────────────────────
    def stop(self) -> None:
        """Stop the browser streams, the server, the tables, the hub; each step even if one
        before it failed, so nothing is left running."""
        steps = []
        self._stopping.set()
        if self._season is not None:
            steps.append(self._join_season)
        if self.web is not None:
            steps.append(self.web.stopping.set)
        if self.server is not None:
            steps.append(self._stop_server)
        if self.domino is not None:
            steps.append(self.domino.stop)
        for sim in self.sims:
            steps.append(sim.stop)
        for link in self.links:
            steps.append(link.stop)
        for box in self.outboxes:
            steps.append(box.close)
        if self.web is not None:
            steps.append(self.web.close)
        if self.hub is not None:
            steps.append(self.hub.stop)
        for step in steps:
            try:
                step()
            except Exception:
                log.exception("demo: stopping failed at %s", getattr(step, "__qualname__", step))
        self.sims, self.links, self.outboxes = [], [], []
        self.server = self.web = self.hub = self.domino = None
        if self._own_workdir and self.workdir is not None and not self.config.keep:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def _stop_server(self) -> None:
        self.server.stop()

    def _join_season(self) -> None:
        if self._season is not None:
            self._season.join(10)
            self._season = None


def _start_tournament(
    club: Any, held_on: date, name: str, names: list[str], seed: int, now: datetime
) -> str:
    """Create, fill and draw a demo tournament; its id is its date."""
    tid = held_on.isoformat()
    club.create_tournament(tid, name, held_on)
    for player_name in names:
        player = club.registry.find_name(player_name)
        club.register(tid, player.id, now=now)
    club.start(tid, seed=seed, now=now)
    return tid


def _current_is_over(club: Any) -> bool:
    """Whether the newest tournament has nothing left to play (closed, or finished)."""
    ts = sorted(club.tournaments.values(), key=lambda x: (x.held_on, x.id))
    if not ts:
        return False
    newest = ts[-1]
    return bool(newest.phase == "closed" or newest.is_finished())


def _next_tournament(
    club: Any, now: datetime, *, names: list[str], seed: int, number: int
) -> str:
    """Close the newest tournament if it is still open and start the next, a week later."""
    ts = sorted(club.tournaments.values(), key=lambda x: (x.held_on, x.id))
    newest = ts[-1]
    if newest.phase != "closed":
        club.close(newest.id, actor="demo", now=now)
    held_on = max(newest.held_on, date.today()) + timedelta(days=7)
    return _start_tournament(club, held_on, f"Torneo de demostración nº {number}", names, seed, now)


def run(config: DemoConfig, *, stop: threading.Event | None = None) -> int:
    """Start, print the address, wait for Ctrl-C (SIGINT) or SIGTERM, stop cleanly."""
    done = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, lambda *_: done.set())
        signal.signal(signal.SIGTERM, lambda *_: done.set())
    demo = Demo(config)
    try:
        demo.start()
    except Exception as e:
        print(f"mesa demo: could not start: {e}", file=sys.stderr, flush=True)
        return 1
    es = config.language == "es"
    print(("Mesa demo en marcha: " if es else "Mesa demo running: ") + demo.url, flush=True)
    print(
        (
            f"  dirección: usuario «director», contraseña «{config.password}»  ·  Ctrl-C para parar"
            if es
            else f"  director: user 'director', password '{config.password}'  ·  Ctrl-C to stop"
        ),
        flush=True,
    )
    try:
        done.wait()
    finally:
        print("Parando…" if es else "Stopping…", flush=True)
        demo.stop()
        print("Listo." if es else "Done.", flush=True)
    return 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    d = DemoConfig()
    p.add_argument("--host", default=d.host, help=f"address to listen on (default {d.host})")
    p.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("MESA_WEB_PORT", d.port)),
        help=f"dashboard port (default {d.port}; 0 picks a free one)",
    )
    p.add_argument("--tables", type=int, default=d.tables, help="simulated tables")
    p.add_argument("--players", type=int, default=d.players, help="players in the tournament")
    p.add_argument(
        "--speed",
        type=float,
        default=d.speed,
        help="how many times faster than real time the tables run",
    )
    p.add_argument(
        "--pause",
        type=float,
        default=d.pause,
        help=f"seconds a finished tournament stays on show before the next starts "
        f"(default {d.pause:g})",
    )
    p.add_argument("--dir", type=Path, default=None, help="work directory (default: temporary)")
    p.add_argument("--keep", action="store_true", help="keep the work directory afterwards")
    p.add_argument("--password", default=d.password, help="the director's password")
    p.add_argument(
        "--lang",
        choices=("es", "en"),
        default=d.language,
        help="language of the printed messages and the tables",
    )
    p.add_argument(
        "--no-history", action="store_true", help="do not play last month's tournament first"
    )
    p.add_argument(
        "--game",
        choices=("backgammon", "domino", "both"),
        default=d.game,
        help="which room: backgammon (default), a domino pairs tournament, or both",
    )
    p.add_argument("--domino-tables", type=int, default=d.domino_tables,
                   help="simulated domino tables (four robots each)")
    p.add_argument("--domino-rounds", type=int, default=d.domino_rounds,
                   help="rounds of the domino pairs tournament")


def config_from(args: argparse.Namespace) -> DemoConfig:
    return DemoConfig(
        tables=args.tables,
        players=args.players,
        speed=args.speed,
        pause=args.pause,
        host=args.host,
        port=args.port,
        workdir=args.dir,
        keep=args.keep,
        password=args.password,
        language=args.lang,
        history=not args.no_history,
        game=args.game,
        domino_tables=args.domino_tables,
        domino_rounds=args.domino_rounds,
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m mesa.hub.demo.run", description=__doc__.split("\n")[0])
    add_arguments(p)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    return run(config_from(args))


if __name__ == "__main__":
    raise SystemExit(main())
