"""``make demo``: the whole system on one laptop, in accelerated time.

One process runs the hub (with its own private Mosquitto and SQLite), the dashboard, and one
room per game asked for (``--game backgammon|domino|both``): robot tables (each a real table
runtime, durable outbox and MQTT link) and a director playing its part. Backgammon's room
(:mod:`~mesa.hub.demo.backgammon`) plays the club's tournaments season after season; domino's
(:mod:`~mesa.hub.demo.domino`) a pairs tournament. It prints the address; Ctrl-C stops
everything.

>>> sorted(ROOMS) == sorted(names())
True
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mesa.cli_options import (
    add_language,
    add_log_level,
    add_password_options,
    default_text,
    log_level,
    read_password,
)
from mesa.errors import ConfigError
from mesa.games.registry import names
from mesa.hub.demo.backgammon import BackgammonRoom
from mesa.hub.demo.backgammon import play_out as play_out  # the tests' finished tournament
from mesa.hub.demo.config import ALL_GAMES, DemoConfig
from mesa.hub.demo.domino import DominoRoom
from mesa.hub.demo.room import Room, RoomContext, stop_each

__all__ = ["ROOMS", "Demo", "DemoConfig", "add_arguments", "config_from", "main", "play_out", "run"]

log = logging.getLogger("mesa.hub.demo.run")

# Each registered game's room, by the game's name.
ROOMS: dict[str, Callable[[RoomContext], Room]] = {
    "backgammon": BackgammonRoom,
    "domino": DominoRoom.in_demo,
}


_ROOM_ES = {"backgammon": "backgammon", "domino": "dominó"}


class Demo:
    """The running demo. :meth:`start` returns once everything is up; :meth:`stop` undoes it."""

    def __init__(self, config: DemoConfig, *, say: Callable[[str], None] | None = None) -> None:
        self.config = config
        # Each stage as it begins (``mesa demo`` prints them: a Pi takes a while to start).
        self.say = say or (lambda line: None)
        self.workdir: Path | None = None
        self._own_workdir = False
        self.hub: Any = None
        self.web: Any = None
        self.rooms: dict[str, Room] = {}  # game name → its running room
        self.server: Any = None
        self.url = ""

    @property
    def played(self) -> int:
        """Tournaments of this run finished and closed, in every room."""
        return sum(room.played for room in self.rooms.values())

    # ── start ───────────────────────────────────────────────────────────
    def start(self) -> Demo:
        cfg = self.config
        if cfg.workdir is None:
            self.workdir = Path(tempfile.mkdtemp(prefix="mesa-demo-"))
            self._own_workdir = True
        else:
            self.workdir = Path(cfg.workdir)
            self.workdir.mkdir(parents=True, exist_ok=True)
        es = cfg.language == "es"
        games = cfg.games()
        total = 3 + len(games)
        try:
            self.say(f"1/{total} " + ("el hub y su broker MQTT…" if es else "the hub and its MQTT broker…"))
            self._start_hub()
            self.say(f"2/{total} " + ("el tablero y los torneos…" if es else "the dashboard and the tournaments…"))
            self._start_web()
            ctx = RoomContext(self.hub, self.web, self.workdir, cfg)
            for n, game in enumerate(games, start=3):
                self.say(f"{n}/{total} " + (f"la sala de {_ROOM_ES.get(game, game)}: mesas simuladas…"
                                             if es else f"the {game} room: simulated tables…"))
                # Kept before it starts: a room that fails half-way is stopped with the rest.
                self.rooms[game] = room = ROOMS[game](ctx)
                room.start()
            self.say(f"{total}/{total} " + ("la página web…" if es else "the web page…"))
            self._start_server()
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
        # The login page shows the demo's own password; one the person chose stays unsaid.
        if cfg.password == DemoConfig.password:
            os.environ["MESA_DEMO"] = "1"
        else:
            os.environ.pop("MESA_DEMO", None)
        settings = self.hub.settings.replace(
            host=cfg.host,
            port=cfg.port,
            director_password=cfg.password,
            time_scale=cfg.speed,
            language=cfg.language,
            low_time=60.0,
        )
        self.web = WebApp(self.hub, settings)
        for tid in cfg.table_ids():  # the dashboard has always listed these, in every room
            self.hub.register_table(tid)

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
        """Stop the browser streams, the server, the rooms (their directors, then their
        tables), the hub; each step even if one before it failed, so nothing is left running."""
        steps: list[Callable[[], Any]] = []
        if self.web is not None:
            steps.append(self.web.stopping.set)
        if self.server is not None:
            steps.append(self.server.stop)
        steps += [room.stop for room in reversed(self.rooms.values())]
        if self.web is not None:
            steps.append(self.web.close)
        if self.hub is not None:
            steps.append(self.hub.stop)
        stop_each(steps)
        self.server = self.web = self.hub = None
        self.rooms = {}
        if self._own_workdir and self.workdir is not None and not self.config.keep:
            shutil.rmtree(self.workdir, ignore_errors=True)


def address_lines(config: DemoConfig, url: str) -> list[str]:
    """What ``mesa demo`` prints once it runs: the address, and the demo's own password (one
    given in a file or the environment is not printed: it may be the club's real one).

    >>> address_lines(DemoConfig(language="en"), "http://127.0.0.1:8080/")[1]
    "  director: user 'director', password 'mesa'  ·  Ctrl-C to stop"
    >>> address_lines(DemoConfig(language="en", password="s3cret"), "u")[1]
    "  director: user 'director', the password you gave  ·  Ctrl-C to stop"
    """
    own = config.password == DemoConfig.password
    if config.language == "es":
        said = f"contraseña «{config.password}»" if own else "la contraseña que usted dio"
        return ["Mesa demo en marcha: " + url,
                f"  dirección: usuario «director», {said}  ·  Ctrl-C para parar"]
    said = f"password '{config.password}'" if own else "the password you gave"
    return ["Mesa demo running: " + url, f"  director: user 'director', {said}  ·  Ctrl-C to stop"]


def run(config: DemoConfig, *, stop: threading.Event | None = None) -> int:
    """Start, print the address, wait for Ctrl-C (SIGINT) or SIGTERM, stop cleanly."""
    done = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, lambda *_: done.set())
        signal.signal(signal.SIGTERM, lambda *_: done.set())
    demo = Demo(config, say=lambda line: print(line, flush=True))
    try:
        demo.start()
    except Exception as e:
        print(f"mesa demo: could not start: {e}", file=sys.stderr, flush=True)
        return 1
    es = config.language == "es"
    for line in address_lines(config, demo.url):
        print(line, flush=True)
    try:
        done.wait()
    finally:
        print("Parando…" if es else "Stopping…", flush=True)
        demo.stop()
        print("Listo." if es else "Done.", flush=True)
    return 0


# The director's password when none is given: the hub's own setting's name (mesa.hub.settings).
PASSWORD_ENV = "MESA_WEB_DIRECTOR_PASSWORD"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``mesa demo``'s options, each default shown by :class:`mesa.cli_options.HelpFormatter`."""
    d = DemoConfig()
    p.add_argument("--host", default=d.host, help="the address the dashboard listens on")
    port = p.add_argument("--port", type=int, default=int(os.environ.get("MESA_WEB_PORT", d.port)),
                          help="the dashboard's port (0: a free one)")
    default_text(port, f"MESA_WEB_PORT, else {d.port}")
    p.add_argument("--tables", type=int, default=d.tables, metavar="N", help="simulated backgammon tables")
    p.add_argument("--players", type=int, default=d.players, metavar="N", help="players in the tournament")
    p.add_argument("--novatos", type=int, default=d.novatos, metavar="N",
                   help="players in the novatos category, on the same evening and tables (0: none)")
    p.add_argument("--speed", type=float, default=d.speed,
                   help="how many times faster than real time the tables run")
    p.add_argument("--pause", type=float, default=d.pause, metavar="SECONDS",
                   help="how long a finished tournament stays on show before the next starts")
    default_text(p.add_argument("--dir", type=Path, default=None, metavar="DIR",
                                help="the work folder (store, broker, tables)"),
                 "a temporary one, removed at the end")
    p.add_argument("--keep", action="store_true", help="keep the work folder afterwards")
    add_password_options(p, env=PASSWORD_ENV, prompt=False,
                         otherwise=f"the demo's password {d.password!r}")
    add_language(p, d.language, help="the language of the printed messages and the tables")
    p.add_argument("--no-history", action="store_true",
                   help="do not play last month's tournament first")
    p.add_argument("--game", choices=(*names(), ALL_GAMES), default=d.game,
                   help=f"which room: a backgammon tournament, a domino pairs tournament, or "
                   f"{ALL_GAMES}")
    p.add_argument("--domino-tables", type=int, default=d.domino_tables, metavar="N",
                   help="simulated domino tables (four robots each)")
    p.add_argument("--domino-rounds", type=int, default=d.domino_rounds, metavar="N",
                   help="rounds of the domino pairs tournament")
    add_log_level(p, "warning")


def config_from(args: argparse.Namespace) -> DemoConfig:
    """The demo's settings from its options; the password from ``--password-file`` or the
    environment, else the demo's own (printed, and shown on the login page)."""
    password = read_password(args, env=PASSWORD_ENV) or DemoConfig.password
    return DemoConfig(
        tables=args.tables,
        players=args.players,
        novatos=args.novatos,
        speed=args.speed,
        pause=args.pause,
        host=args.host,
        port=args.port,
        workdir=args.dir,
        keep=args.keep,
        password=password,
        language=args.language,
        history=not args.no_history,
        game=args.game,
        domino_tables=args.domino_tables,
        domino_rounds=args.domino_rounds,
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m mesa.hub.demo.run", description=__doc__.split("\n")[0])
    add_arguments(p)
    args = p.parse_args(argv)
    logging.basicConfig(level=log_level(args.log_level), format="%(asctime)s %(name)s %(message)s")
    try:
        config = config_from(args)
    except ConfigError as e:
        p.error(str(e))
    return run(config)


if __name__ == "__main__":
    raise SystemExit(main())
