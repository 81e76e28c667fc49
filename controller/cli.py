"""``mesa controller``, ``mesa sim``, ``mesa hardware-check`` and ``mesa oled-refs``.

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> register(sub)
>>> sorted(sub.choices)
['controller', 'hardware-check', 'oled-refs', 'sim']

Nothing heavy is imported here: each command imports what it needs when it runs.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

STARTED = time.monotonic()
log = logging.getLogger("mesa.controller")


def _logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level.upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a size is WIDTHxHEIGHT, not {text!r}") from None
    from mesa.controller.games.backgammon.oled import SIZES

    if (w, h) not in SIZES:
        raise argparse.ArgumentTypeError(
            f"supported sizes: {', '.join(f'{a}x{b}' for a, b in SIZES)}"
        )
    return (w, h)


def _stop_on_signals(stop: threading.Event) -> None:
    def handler(signum: int, frame: Any) -> None:
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)


# ── mesa controller ────────────────────────────────────────────────────────
def _controller(args: argparse.Namespace) -> int:
    from mesa.controller.app import TableApp
    from mesa.controller.config import load_config
    from mesa.controller.sim_shell import link_factory
    from mesa.errors import ConfigError

    _logging(args.log_level)
    try:
        cfg = load_config(args.config)
        link_file = args.link or cfg.hub.link
        if link_file and Path(link_file).exists():
            from mesa.controller.enrol import with_link_table

            cfg = with_link_table(cfg, link_file)  # an adopted table's number is in its link
        hub = args.hub or (f"{cfg.hub.host}:{cfg.hub.port}" if cfg.hub.host else None)
        ns = argparse.Namespace(link=link_file, hub=hub, table_id=args.table_id or cfg.table.id)
        app = TableApp(cfg, link_factory=link_factory(ns, cfg.hub.outbox))
    except ConfigError as e:
        print(f"mesa controller: {e}", file=sys.stderr)
        return 2
    stop = threading.Event()
    _stop_on_signals(stop)
    try:
        app.start()
    except ConfigError as e:  # e.g. a second program on this table's outbox: touch nothing
        print(f"mesa controller: {e}", file=sys.stderr)
        return 2
    try:
        stop.wait()
    finally:
        app.stop()
    return 0


# ── mesa sim ───────────────────────────────────────────────────────────────
ROBOTS = ("both", "a", "b", "none")  # who the robots play: each game says which seats these are
EXAMPLE_NAMES = ("Ana", "Beto", "Carla", "Dani")
NUMBERS = {2: "two", 4: "four"}


def _status_line(sim: Any, event: str, **extra: Any) -> str:
    data: dict[str, Any] = {"event": event, **sim.game.status_line(sim.runtime, sim.matches_ended)}
    data.update(extra)
    return json.dumps(data, ensure_ascii=False)


def _players(args: argparse.Namespace, game: Any) -> tuple[str, ...] | None:
    """``--players``, one name a seat (a ConfigError naming how many when they do not fit)."""
    from mesa.errors import ConfigError

    if not args.players:
        return None
    n = len(game.seats)
    players = tuple(args.players.split(",", n - 1))
    if len(players) != n:
        example = ",".join(EXAMPLE_NAMES[:n])
        raise ConfigError(
            f"--players takes {NUMBERS.get(n, n)} names for a {game.name} table, {example!r}"
        )
    return players


def _sim(args: argparse.Namespace) -> int:
    from mesa.controller.games import table_game
    from mesa.controller.sim import SimTable
    from mesa.controller.sim_shell import (
        headless,
        link_factory,
        sim_journal,
        sim_outbox,
        sim_table_id,
        start_info,
    )
    from mesa.errors import ConfigError

    _logging(args.log_level)
    game = table_game(args.game)
    ui = "none" if args.headless else args.ui
    seats = game.robot_seats[args.robots or ("both" if ui == "none" else "none")]
    count = args.games if args.games is not None else args.matches
    try:
        players = _players(args, game)
        table_id = sim_table_id(args)
        sim = SimTable(
            table_id,
            game=game.name,
            speed=args.speed,
            seed=args.seed,
            robots=seats,
            style=game.robot_style(args.fast, args.robot_ui),
            journal_dir=sim_journal(args),
            heartbeat=args.heartbeat,
            auto_assign=not (args.hub or args.link),
            length=args.length,
            language=args.language,
            matches=count,
            players=players,
            buttons=ui == "window",
            link=link_factory(args, sim_outbox(args)),
        )
    except ConfigError as e:  # a bad option, a link file, an outbox another table holds
        print(f"mesa sim: {e}", file=sys.stderr)
        return 2
    stop = threading.Event()
    _stop_on_signals(stop)
    info = start_info(sim, STARTED)
    sim.start()
    try:
        if ui == "none":
            headless(
                args,
                stop,
                lambda event, **extra: _status_line(sim, event, **extra),
                info,
                lambda: count is not None and sim.matches_ended >= count,
            )
        else:
            game.run_ui(sim, ui, args, stop)
    finally:
        sim.stop()
    if ui == "none":
        print(_status_line(sim, "stop"), flush=True)
    return 0


# ── mesa hardware-check ────────────────────────────────────────────────────
def _hardware_check(args: argparse.Namespace) -> int:
    from mesa.controller.config import load_config
    from mesa.controller.hwcheck import PARTS, report, run_checks
    from mesa.errors import ConfigError

    _logging(args.log_level)
    try:
        cfg = load_config(args.config)
    except ConfigError as e:
        print(f"mesa hardware-check: {e}", file=sys.stderr)
        return 2
    only = set(args.only.split(",")) if args.only else None
    if only and only - set(PARTS):
        print(f"mesa hardware-check: parts are {', '.join(PARTS)}", file=sys.stderr)
        return 2

    def ask(question: str) -> bool:
        if args.yes:
            return True
        return input(f"{question} [y/n] ").strip().lower().startswith(("y", "s"))

    results = run_checks(cfg, only=only, ask=ask, timeout=args.timeout)
    print(report(results))
    return 0 if results and all(r.ok for r in results) else 1


# ── mesa oled-refs ─────────────────────────────────────────────────────────
def _oled_refs(args: argparse.Namespace) -> int:
    from mesa.controller.games import table_game

    game = table_game(args.game)
    # Each game's screens have their own folder (the default's is the game's).
    out = Path(args.out if args.out != "docs/oled" else game.reference_dir)
    written = game.write_references(out)
    print(f"{len(written)} files written to {out}")
    return 0


class _RegisteredGames:
    """``--game``'s choices: the registered games (:mod:`mesa.games.registry`), read only when
    a ``--game`` is checked or a help is printed (``mesa --help`` must stay light; ``metavar``
    spares argparse iterating them when the option is declared)."""

    def _names(self) -> tuple[str, ...]:
        from mesa.games.registry import names

        return names()

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())


GAMES = _RegisteredGames()
DEFAULT_GAME = "backgammon"  # the registry's first: a test holds them equal


def register(sub: Any) -> None:
    p = sub.add_parser("controller", help="run the table on a Raspberry Pi (buttons, OLED, ...)")
    p.add_argument("--config", default="/etc/mesa/table.toml", help="the table's TOML file")
    p.add_argument("--link", help="the hub link file written by `mesa provision-table`")
    p.add_argument("--hub", metavar="HOST:PORT", help="the hub's broker (without --link)")
    p.add_argument("--table-id", help="this table's id (default: [table] id)")
    p.add_argument("--log-level", default="info")
    p.set_defaults(run=_controller)

    p = sub.add_parser("sim", help="the table on a laptop: emulated OLED, keys or robot players")
    p.add_argument("--game", choices=GAMES, default=DEFAULT_GAME, metavar="GAME",
                   help="the table's game: %(choices)s (domino: four seats, robots for all four)")
    p.add_argument("--games", type=int, help="domino: stop after this many games")
    p.add_argument("--speed", type=float, default=1.0, help="time runs this many times faster")
    p.add_argument("--seed", type=int, default=0, help="the robots' random seed")
    p.add_argument(
        "--robots",
        choices=sorted(ROBOTS),
        help="who the robots play (default: both when headless, none otherwise)",
    )
    p.add_argument(
        "--robot-ui",
        choices=["menu", "buttons"],
        default="menu",
        help="robots use the menu inputs, or only the two buttons",
    )
    p.add_argument("--fast", action="store_true", help="quick robots, short games (demos, tests)")
    p.add_argument("--ui", choices=["terminal", "window", "none"], default="terminal")
    p.add_argument("--headless", action="store_true", help="no screen: print status lines")
    p.add_argument("--size", type=_size, default=(128, 64), help="emulated OLED, e.g. 128x32")
    p.add_argument(
        "--journal",
        help="journal folder: a killed simulator resumes from it (default with --link or --hub: "
        "var/sim/<table>)",
    )
    p.add_argument("--heartbeat", type=float, default=1.0, help="journal heartbeat (table s)")
    p.add_argument("--length", type=int, default=3, help="match length of assigned matches")
    p.add_argument("--language", choices=["es", "en"], default="es")
    p.add_argument("--players", help="the players' names, one a seat: 'Ana,Beto'")
    p.add_argument("--matches", type=int, help="stop after this many matches")
    p.add_argument("--duration", type=float, help="stop after this many real seconds")
    p.add_argument(
        "--status-every",
        type=float,
        default=0.0,
        help="headless: print a status line every this many real seconds",
    )
    p.add_argument("--link", help="the hub link file written by `mesa provision-table`")
    p.add_argument("--hub", metavar="HOST:PORT", help="connect to the hub's broker")
    p.add_argument("--table-id", help="this table's id (default: sim)")
    p.add_argument("--log-level", default="warning")
    p.set_defaults(run=_sim)

    p = sub.add_parser("hardware-check", help="self-test a table's buttons, LEDs, display, ...")
    p.add_argument("--config", default="/etc/mesa/table.toml", help="the table's TOML file")
    p.add_argument("--only", help="comma-separated parts: buttons,leds,display,buzzer,card")
    p.add_argument("--timeout", type=float, default=15.0, help="seconds to wait for a person")
    p.add_argument("--yes", action="store_true", help="answer every question yes")
    p.add_argument("--log-level", default="warning")
    p.set_defaults(run=_hardware_check)

    p = sub.add_parser("oled-refs", help="write the OLED reference images (docs/oled)")
    p.add_argument("--out", default="docs/oled", help="the folder (default: docs/oled)")
    p.add_argument("--game", choices=GAMES, default=DEFAULT_GAME, metavar="GAME",
                   help="%(choices)s; domino: the domino screens, into docs/oled/domino by default")
    p.set_defaults(run=_oled_refs)
