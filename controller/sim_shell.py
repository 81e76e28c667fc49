"""What ``mesa sim`` and ``mesa controller`` do alike for both games: the hub link built from the
command line, the start figures of a simulated table, the headless status loop and the terminal's
key loop. Each game's keys, lines and screens are its own (``controller/games/<game>/shell.py``).

>>> import argparse
>>> link_factory(argparse.Namespace(link=None, hub=None), "outbox.sqlite3") is None
True

Only the standard library at the top: ``mesa --help`` must stay light.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def link_factory(args: argparse.Namespace, outbox: str | Path) -> Any:
    """A link factory when ``--link`` or ``--hub`` was given, else None (see
    :func:`app.make_link`: the link reads the hub's messages in the runtime's game)."""
    if not (getattr(args, "link", None) or getattr(args, "hub", None)):
        return None
    from mesa.controller.app import make_link, parse_hub

    host, port = parse_hub(args.hub) if args.hub else (None, 1883)

    def factory(runtime: Any, snapshot: dict[str, Any]) -> Any:
        return make_link(
            runtime,
            table_id=args.table_id,
            host=host,
            port=port,
            link_file=args.link,
            password=os.environ.get("MESA_HUB_PASSWORD"),
            outbox=outbox,
            snapshot=snapshot,
        )

    return factory


def sim_table_id(args: argparse.Namespace) -> str:
    """The simulated table's id: ``--table-id``, else the link file's table, else ``sim``.

    Eight ``mesa sim --link table-N.json`` started from one folder once all took ``sim`` and
    shared one outbox; each is now its own table."""
    if getattr(args, "table_id", None):
        return str(args.table_id)
    if getattr(args, "link", None):
        from mesa.controller.link import LinkSettings

        return LinkSettings.from_file(args.link).table
    return "sim"


SIM_JOURNALS = Path("var/sim")  # a linked simulator's journal by default (git ignores var/)


def sim_journal(args: argparse.Namespace) -> Path | None:
    """The simulated table's journal folder: ``--journal``; a table linked to a hub keeps one
    of its own by default (``var/sim/<table>``), so a restarted simulator resumes its match
    instead of beginning it again at 0–0; an unlinked one plays from memory."""
    if getattr(args, "journal", None):
        return Path(args.journal)
    if getattr(args, "link", None) or getattr(args, "hub", None):
        return SIM_JOURNALS / sim_table_id(args)
    return None


def sim_outbox(args: argparse.Namespace) -> Path:
    """Where a simulated table keeps its outbox: beside its journal, named by its table."""
    return (sim_journal(args) or Path(".")) / f"outbox-{sim_table_id(args)}.sqlite3"


def start_info(sim: Any, started: float) -> dict[str, Any]:
    """The first status line's figures: what the table restored and how long it took to start."""
    rec = sim.recovery
    return {
        "restored": rec is not None,
        "problems": rec.problems if rec else [],
        "restore_ms": round(1000 * rec.seconds, 2) if rec else None,
        "startup_s": round(time.monotonic() - started, 3),
    }


def headless(
    args: argparse.Namespace,
    stop: threading.Event,
    line: Callable[..., str],
    info: dict[str, Any],
    done: Callable[[], bool],
) -> None:
    """Print ``line("start")``, then ``line("status")`` every ``--status-every`` seconds until
    ``done()``, ``--duration`` or a signal."""
    print(line("start", **info), flush=True)
    deadline = time.monotonic() + args.duration if args.duration else None
    every = args.status_every
    while not stop.is_set():
        if done():
            break
        if deadline is not None and time.monotonic() >= deadline:
            break
        stop.wait(every if every else 0.2)
        if every:
            print(line("status"), flush=True)


def key_loop(display: Any, stop: threading.Event, on_key: Callable[[str], None]) -> None:
    """Run ``display`` in a cleared terminal and hand each key read to ``on_key`` until ``q``,
    Esc, end of input or a signal; the terminal is given back as it was, cursor included."""
    import select
    import termios
    import tty

    fd = sys.stdin.fileno()
    interactive = os.isatty(fd)
    saved = termios.tcgetattr(fd) if interactive else None
    sys.stdout.write("\x1b[2J\x1b[?25l")
    display.start()
    try:
        if interactive:
            tty.setcbreak(fd)
        while not stop.is_set():
            ready, _, _ = select.select([sys.stdin], [], [], 0.2)
            if not ready:
                continue
            ch = sys.stdin.read(1)
            if not ch or ch in ("q", "\x1b"):
                break
            on_key(ch)
    finally:
        display.stop()
        if saved is not None:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        sys.stdout.write("\x1b[?25h\n")
