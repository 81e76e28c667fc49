"""``mesa demo`` and ``mesa director-password``.

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> register(sub)
>>> sorted(sub.choices)
['demo', 'director-password']
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

from mesa.cli_options import (
    add_command,
    add_password_options,
    ask_new_password,
    read_password,
)
from mesa.errors import ConfigError

# The director's password, wherever one is given without a prompt: the hub's own setting
# (mesa.hub.settings, director_password), so one name serves the hub, the demo and this command.
PASSWORD_ENV = "MESA_WEB_DIRECTOR_PASSWORD"


def _demo(args: argparse.Namespace) -> int:
    from mesa.cli_options import log_level
    from mesa.hub.demo.run import config_from, run

    logging.basicConfig(level=log_level(args.log_level),
                        format="%(asctime)s %(name)s %(message)s")
    try:
        config = config_from(args)
    except ConfigError as e:
        print(f"mesa demo: {e}", file=sys.stderr)
        return 2
    return run(config)


def _director_password(args: argparse.Namespace) -> int:
    from mesa.hub.settings import HubSettings
    from mesa.hub.web.http.store import WebStore

    try:
        password = read_password(args, env=PASSWORD_ENV, ask=lambda: ask_new_password(args.user))
    except ConfigError as e:
        print(f"mesa director-password: {e}", file=sys.stderr)
        return 1
    if password is None:
        print(
            "mesa director-password: no password given: use --password-file FILE (- for "
            f"standard input), the environment variable {PASSWORD_ENV}, or run it in a terminal "
            "to be asked",
            file=sys.stderr,
        )
        return 1
    if not password:
        print("mesa director-password: empty password", file=sys.stderr)
        return 1
    db = HubSettings.from_env(db=args.db).db
    store = WebStore(db)
    try:
        store.set_password(args.user, password)
    finally:
        store.close()
    print(f"director {args.user!r}: password set in {db}")
    return 0


def register(sub: Any) -> None:
    from mesa.hub.cli import setting_option
    from mesa.hub.demo.run import add_arguments

    p = add_command(
        sub,
        "demo",
        summary="Try it all on one computer: a hub, simulated tables and a season in fast time",
        description="The hub with a private broker and SQLite, 8 simulated tables with robot "
        "players and a 24-player tournament (and 8 novatos) in accelerated time, then the next "
        "one of the season, until Ctrl-C. It prints its stages, then the dashboard's address "
        "and the director's login. --game domino (or both) plays a domino pairs tournament "
        "with robot domino tables.",
        examples=["mesa demo", "mesa demo --language en --game both --port 0"],
    )
    add_arguments(p)
    p.set_defaults(run=_demo)

    p = add_command(
        sub,
        "director-password",
        summary="Set (or change) a director's dashboard password",
        description="The password is typed twice at a terminal, or read from --password-file "
        f"or the environment variable {PASSWORD_ENV}; never from the command line, where ps "
        "and the shell's history would show it. The store is the hub's (its db setting, "
        "MESA_HUB_DB) unless --db names another.",
        examples=[
            "mesa director-password director",
            "mesa director-password director --password-file /root/director.txt "
            "--db /var/lib/mesa/hub.sqlite3",
        ],
    )
    p.add_argument("user", help="the director's user name (the hub's is director)")
    add_password_options(p, env=PASSWORD_ENV, prompt=True)
    setting_option(p, "--db", "db", type=Path, metavar="FILE", help="the hub's store")
    p.set_defaults(run=_director_password)
