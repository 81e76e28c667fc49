"""``mesa demo``, ``mesa web`` (an alias of ``mesa hub``) and ``mesa director-password``.

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> register(sub)
>>> sorted(sub.choices)
['demo', 'director-password', 'web']
"""

from __future__ import annotations

import argparse
import getpass
import logging
import sys
from pathlib import Path
from typing import Any


def _demo(args: argparse.Namespace) -> int:
    from mesa.hub.demo.run import config_from, run

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    return run(config_from(args))


def _director_password(args: argparse.Namespace) -> int:
    from mesa.hub.settings import HubSettings
    from mesa.hub.web.http.store import WebStore

    password = args.password or getpass.getpass(f"password for {args.user}: ")
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
    from mesa.hub.cli import add_hub_arguments
    from mesa.hub.demo.run import add_arguments

    p = sub.add_parser("demo", help="the hub, 8 simulated tables and the dashboard, accelerated")
    add_arguments(p)
    p.set_defaults(run=_demo)

    p = sub.add_parser("web", help="the same as `mesa hub` (ingest, desk and dashboard)")
    add_hub_arguments(p)

    p = sub.add_parser("director-password", help="set a director's dashboard password")
    p.add_argument("user")
    p.add_argument("--password", default=None, help="(default: asked for)")
    p.add_argument("--db", type=Path, default=None, help="the hub's SQLite file")
    p.set_defaults(run=_director_password)
