"""``mesa demo``, ``mesa web`` and ``mesa director-password``.

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
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from mesa.errors import MesaError


def _demo(args: argparse.Namespace) -> int:
    from mesa.hub.demo.run import config_from, run

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    return run(config_from(args))


def _web(args: argparse.Namespace) -> int:
    """The hub and its dashboard in one process (a club's laptop or mini-PC)."""
    from mesa.hub.ingest.app import Hub
    from mesa.hub.settings import HubSettings
    from mesa.hub.web.app import BackgroundServer, WebApp, WebSettings

    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    hub_settings = HubSettings.from_env(
        db=args.db, embedded_broker=True if args.embedded_broker else None
    )
    web_settings = WebSettings.from_env(host=args.host, port=args.port)
    try:
        hub = Hub(hub_settings).start(wait=args.wait)
    except MesaError as e:
        print(f"mesa web: {e}", file=sys.stderr)
        return 1
    done = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: done.set())
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    web = WebApp(hub, web_settings)
    try:
        server = BackgroundServer(web, web_settings.host, web_settings.port).start()
    except MesaError as e:
        print(f"mesa web: {e}", file=sys.stderr)
        web.close()
        hub.stop()
        return 1
    print(f"mesa web: {server.url}", flush=True)
    done.wait()
    server.stop()
    web.close()
    hub.stop()
    return 0


def _director_password(args: argparse.Namespace) -> int:
    from mesa.hub.settings import HubSettings
    from mesa.hub.web.store import WebStore

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
    from mesa.hub.demo.run import add_arguments

    p = sub.add_parser("demo", help="the hub, 8 simulated tables and the dashboard, accelerated")
    add_arguments(p)
    p.set_defaults(run=_demo)

    p = sub.add_parser("web", help="run the hub with its dashboard")
    p.add_argument("--db", type=Path, default=None, help="the hub's SQLite file")
    p.add_argument("--host", default=None, help="dashboard address (MESA_WEB_HOST)")
    p.add_argument("--port", type=int, default=None, help="dashboard port (MESA_WEB_PORT)")
    p.add_argument("--embedded-broker", action="store_true", help="start a private Mosquitto")
    p.add_argument("--wait", type=float, default=10.0, help="seconds to wait for the broker")
    p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(run=_web)

    p = sub.add_parser("director-password", help="set a director's dashboard password")
    p.add_argument("user")
    p.add_argument("--password", default=None, help="(default: asked for)")
    p.add_argument("--db", type=Path, default=None, help="the hub's SQLite file")
    p.set_defaults(run=_director_password)
