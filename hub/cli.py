"""``mesa hub`` (ingest, tournament desk and dashboard), ``mesa provision-table`` and
``mesa provision-hub``.

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> register(sub)
>>> sorted(sub.choices)
['hub', 'provision-hub', 'provision-table']
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mesa.errors import MesaError

DEFAULT_TABLE_LINKS = Path("var/tables")  # where provision-table writes a table's link file

if TYPE_CHECKING:
    from mesa.hub.broker.mosquitto import PrivateMosquitto
    from mesa.hub.settings import HubSettings


def _hub(args: argparse.Namespace) -> int:
    """Ingest, tournament desk and dashboard in one process (the venue's hub)."""
    from mesa.hub.process import HubProcess
    from mesa.hub.settings import HubSettings

    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    try:
        settings = HubSettings.from_env(
            json_file=args.settings,
            db=args.db,
            broker_host=args.broker_host,
            broker_port=args.broker_port,
            credentials=args.credentials,
            embedded_broker=True if args.embedded_broker else None,
            broker_dir=args.broker_dir,
            host=args.host,
            port=args.port,
            web=False if args.no_web else None,
        )
    except MesaError as e:
        print(f"mesa hub: {e}", file=sys.stderr)
        return 1
    from mesa.hub.backup import configure as configure_backups

    configure_backups(settings.db, settings.backup_dir, settings.backup_keep)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    try:
        process = HubProcess(settings).start(wait=args.wait)
    except MesaError as e:
        print(f"mesa hub: {e}", file=sys.stderr)
        return 1
    assert process.hub is not None
    print(start_line(settings, process.hub.broker, process.url), flush=True)
    if process.web is not None and process.web.first_run.open():
        print(first_run_notice(process.url, process.web.first_run.code, settings.db), flush=True)
    done.wait()
    process.stop()
    return 0


def start_line(settings: HubSettings, embedded: PrivateMosquitto | None, url: str) -> str:
    """What ``mesa hub`` says once online: the broker it connected to (the private one's
    address when ``embedded``, else the ``broker_host``/``broker_port`` settings, as
    :meth:`mesa.hub.ingest.app.Hub.start` connects), the store and the dashboard.

    >>> from mesa.hub.settings import HubSettings
    >>> s = HubSettings(db="hub.sqlite3", broker_port=1884, port=8080)
    >>> start_line(s, None, "")
    'mesa hub: online, broker mqtt://127.0.0.1:1884, store hub.sqlite3, no dashboard'
    """
    if embedded is not None:
        host, port = embedded.host, embedded.port
    else:
        host, port = settings.broker_host, settings.broker_port
    dashboard = f", dashboard {url}" if url else ", no dashboard"
    return f"mesa hub: online, broker mqtt://{host}:{port}, store {settings.db}{dashboard}"


def first_run_notice(url: str, code: str | None, db: object) -> str:
    """What the console says while the store has no director account.

    >>> print(first_run_notice("http://127.0.0.1:8080/", "ab12cd34", "hub.sqlite3"))
    mesa hub: no director account yet. Create one:
      - in a browser on this machine: http://127.0.0.1:8080/first-run
      - from another machine: the same page, with the one-time code ab12cd34
      - or here: mesa director-password director --db hub.sqlite3
    """
    return (
        "mesa hub: no director account yet. Create one:\n"
        f"  - in a browser on this machine: {url.rstrip('/')}/first-run\n"
        f"  - from another machine: the same page, with the one-time code {code}\n"
        f"  - or here: mesa director-password director --db {db}"
    )


def add_hub_arguments(p: argparse.ArgumentParser) -> None:
    """``mesa hub``'s options (``mesa web`` is the same command). Every setting can also come
    from the environment or ``--settings FILE.json``; see docs/broker.md and docs/dashboard.md."""
    p.add_argument("--settings", type=Path, help="a JSON file of {setting: value}")
    p.add_argument("--db", type=Path, help="the event store (default var/hub.sqlite3)")
    p.add_argument("--broker-host", help="the broker's address (default 127.0.0.1)")
    p.add_argument("--broker-port", type=int, help="the broker's port (default 1883)")
    p.add_argument("--credentials", type=Path, help="JSON from `mesa provision-hub`")
    p.add_argument(
        "--embedded-broker",
        action="store_true",
        help="start a private Mosquitto on loopback (demo, laptop)",
    )
    p.add_argument("--broker-dir", type=Path, help="the private broker's files (var/broker)")
    p.add_argument("--host", default=None, help="dashboard address (MESA_WEB_HOST, 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="dashboard port (MESA_WEB_PORT, 8080)")
    p.add_argument("--no-web", action="store_true", help="no dashboard (ingest and desk only)")
    p.add_argument("--wait", type=float, default=30.0, help="seconds to wait for the broker")
    p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(run=_hub)


def _provision_table(args: argparse.Namespace) -> int:
    from mesa.hub.broker.provision import provision_table, reload_broker

    # Under var/ by default, which git ignores: the file holds the table's password, and a
    # checkout is no place for it.
    out = args.out or DEFAULT_TABLE_LINKS / f"table-{args.table}.json"
    ca_file = args.tls_dir / "ca.pem"
    tls_ca = ca_file.read_text() if ca_file.exists() and not args.no_tls else None
    if tls_ca is None:
        print(f"no venue CA used ({ca_file}): the table speaks plain MQTT (a demo, a test)")
    port = args.hub_port or (8883 if tls_ca is not None else 1883)
    try:
        provision_table(
            args.table,
            passwd_file=args.passwd,
            hub_host=args.hub_host,
            hub_port=port,
            out=out,
            tls_ca=tls_ca,
        )
    except (MesaError, OSError) as e:
        print(f"mesa provision-table: {e}", file=sys.stderr)
        return 1
    print(f"table {args.table}: account added to {args.passwd}; copy {out} to the table's Pi")
    if not args.no_reload:
        reloaded = reload_broker(args.pid_file)
        print("broker reloaded" if reloaded else f"no broker pid in {args.pid_file}: reload it")
    return 0


def _provision_hub(args: argparse.Namespace) -> int:
    from mesa.hub.broker.provision import provision_hub, reload_broker
    from mesa.hub.broker.tls import ensure_venue_tls

    tls_dir = args.tls_dir or args.out.parent / "tls"
    try:
        provision_hub(passwd_file=args.passwd, out=args.out)
        files = ensure_venue_tls(tls_dir, hosts=args.hub_host or ())
    except (MesaError, OSError) as e:
        print(f"mesa provision-hub: {e}", file=sys.stderr)
        return 1
    print(f"hub account added to {args.passwd}; credentials in {args.out}")
    print(f"venue CA {files.ca}; the broker's certificate {files.cert}")
    if not args.no_reload:
        reload_broker(args.pid_file)
    return 0


def register(sub: Any) -> None:
    from mesa.hub.broker.provision import DEFAULT_PASSWD, DEFAULT_PID_FILE

    p = sub.add_parser("hub", help="run the hub: ingest, tournament desk and dashboard")
    add_hub_arguments(p)

    p = sub.add_parser("provision-table", help="give a table its broker account and config")
    p.add_argument("table", help="the table id (1-32 of a-z 0-9 _ -)")
    p.add_argument("--hub-host", required=True, help="the hub's address as the table sees it")
    p.add_argument(
        "--hub-port", type=int, help="the broker's port (default 8883 with TLS, 1883 without)"
    )
    p.add_argument(
        "--tls-dir", type=Path, default=Path("/etc/mesa/tls"), help="the venue CA (ca.pem)"
    )
    p.add_argument("--no-tls", action="store_true", help="plain MQTT even if a venue CA exists")
    p.add_argument("--passwd", type=Path, default=DEFAULT_PASSWD, help="Mosquitto password file")
    p.add_argument("--out", type=Path, help="the table's config, with its password (default var/tables/table-<id>.json)")
    p.add_argument("--pid-file", type=Path, default=DEFAULT_PID_FILE)
    p.add_argument("--no-reload", action="store_true", help="do not SIGHUP the broker")
    p.set_defaults(run=_provision_table)

    p = sub.add_parser("provision-hub", help="give the hub its broker account")
    p.add_argument("--passwd", type=Path, default=DEFAULT_PASSWD, help="Mosquitto password file")
    p.add_argument("--out", type=Path, default=Path("/etc/mesa/hub-credentials.json"))
    p.add_argument("--pid-file", type=Path, default=DEFAULT_PID_FILE)
    p.add_argument("--no-reload", action="store_true", help="do not SIGHUP the broker")
    p.add_argument(
        "--tls-dir", type=Path, help="the venue CA and certificates (default: beside --out, tls/)"
    )
    p.add_argument(
        "--hub-host",
        action="append",
        help="a name or address of the hub for its certificate (repeatable)",
    )
    p.set_defaults(run=_provision_hub)
