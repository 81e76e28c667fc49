"""``mesa hub`` (ingest, tournament desk and dashboard; ``mesa web`` is another name of it),
``mesa provision-table`` and ``mesa provision-hub``.

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> register(sub)
>>> sorted(sub.choices)
['hub', 'provision-hub', 'provision-table', 'web']
>>> sub.choices["web"] is sub.choices["hub"]
True
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mesa.cli_options import add_command, add_language, add_log_level, default_text, log_level
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
        level=log_level(args.log_level),
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
            language=args.language,
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


def setting_option(
    p: argparse.ArgumentParser, flag: str, name: str, *, shown: str | None = None, **kw: Any
) -> argparse.Action:
    """``flag`` for the hub setting ``name`` (:data:`mesa.hub.settings.SETTINGS`): its help, and
    its default as the setting's environment variable, else the setting's default (``shown``
    when that needs words). The option's own default is None, "not given"."""
    from mesa.hub.settings import BY_NAME

    s = BY_NAME[name]
    kw.setdefault("help", s.help)
    action = p.add_argument(flag, default=None, **kw)
    if shown is None:
        shown = "none" if s.default is None else (
            f"{s.default:g}" if isinstance(s.default, float) else str(s.default))
    default_text(action, f"{s.env}, else {shown}")
    return action


HUB_DESCRIPTION = """Every setting is read from its default, then a JSON file (--settings), then
the environment (MESA_HUB_*, MESA_WEB_*), then these options: docs/broker.md and
docs/dashboard.md list them all. `mesa web` is another name of this command."""


def add_hub_arguments(p: argparse.ArgumentParser) -> None:
    """``mesa hub``'s options (``mesa web`` is the same command)."""
    from mesa.hub.settings import BY_NAME

    p.add_argument("--settings", type=Path, metavar="FILE",
                   help="a JSON file of {setting: value}, read before the environment")
    setting_option(p, "--db", "db", type=Path, metavar="FILE")
    setting_option(p, "--broker-host", "broker_host", metavar="HOST")
    setting_option(p, "--broker-port", "broker_port", type=int, metavar="PORT")
    setting_option(p, "--credentials", "credentials", type=Path, metavar="FILE")
    flag = p.add_argument("--embedded-broker", action="store_true",
                          help="start a private Mosquitto on loopback (a demo, a laptop venue)")
    default_text(flag, f"{BY_NAME['embedded_broker'].env}, else a running broker")
    setting_option(p, "--broker-dir", "broker_dir", type=Path, metavar="DIR")
    setting_option(p, "--host", "host")
    setting_option(p, "--port", "port", type=int)
    flag = p.add_argument("--no-web", action="store_true",
                          help="no dashboard (ingest and the tournament desk only)")
    default_text(flag, f"{BY_NAME['web'].env}, else the dashboard runs")
    action = add_language(p, None, help=BY_NAME["language"].help,
                          languages=BY_NAME["language"].choices)
    default_text(action, f"{BY_NAME['language'].env}, else {BY_NAME['language'].default}")
    p.add_argument("--wait", type=float, default=30.0, metavar="SECONDS",
                   help="how long to wait for the broker at the start")
    add_log_level(p, "info")
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

    p = add_command(
        sub,
        "hub",
        aliases=["web"],
        summary="The venue's hub: ingest, the tournament desk and the dashboard, in one process",
        description="What systemd/mesa-hub.service runs on an installed hub. Without a "
        "Mosquitto of its own (a laptop venue), --embedded-broker starts a private one.\n\n"
        + HUB_DESCRIPTION,
        examples=[
            "mesa hub --embedded-broker --db var/hub.sqlite3 --port 8080",
            "MESA_WEB_TIME_SCALE=30 mesa hub --embedded-broker --host 0.0.0.0",
        ],
    )
    add_hub_arguments(p)

    p = add_command(
        sub,
        "provision-table",
        summary="Give a table its broker account and its link file, by hand",
        description="Adds the table's account to Mosquitto's password file, reloads the broker "
        "and writes the table's link file (its address, account and the venue CA), which is "
        "copied to the table's Pi. The file holds the table's password: it goes under var/, "
        "which git ignores. Tables installed with `mesa install table` are adopted instead "
        "(`mesa adopt`).",
        examples=[
            "mesa provision-table 4 --hub-host hub.local",
            "mesa provision-table 4 --hub-host 127.0.0.1 --passwd var/broker/passwd "
            "--pid-file var/broker/mosquitto.pid   # beside mesa hub --embedded-broker",
        ],
    )
    p.add_argument("table", help="the table id (1-32 of a-z 0-9 _ -)")
    p.add_argument("--hub-host", required=True, metavar="HOST",
                   help="the hub's address as the table sees it")
    default_text(p.add_argument("--hub-port", type=int, metavar="PORT", help="the broker's port"),
                 "8883 with TLS, 1883 without")
    p.add_argument("--tls-dir", type=Path, default=Path("/etc/mesa/tls"), metavar="DIR",
                   help="the folder of the venue CA (ca.pem)")
    p.add_argument("--no-tls", action="store_true", help="plain MQTT even if a venue CA exists")
    p.add_argument("--passwd", type=Path, default=DEFAULT_PASSWD, metavar="FILE",
                   help="Mosquitto's password file")
    default_text(
        p.add_argument("--out", type=Path, metavar="FILE",
                       help="the table's link file, with its password"),
        f"{DEFAULT_TABLE_LINKS}/table-<id>.json",
    )
    p.add_argument("--pid-file", type=Path, default=DEFAULT_PID_FILE, metavar="FILE",
                   help="the broker's pid file (it is reloaded with SIGHUP)")
    p.add_argument("--no-reload", action="store_true", help="do not reload the broker")
    p.set_defaults(run=_provision_table)

    p = add_command(
        sub,
        "provision-hub",
        summary="Give the hub its broker account and the venue its CA, by hand",
        description="Adds the hub's account to Mosquitto's password file, writes its "
        "credentials file (what `mesa hub --credentials` reads) and makes the venue CA and the "
        "broker's certificate when they do not exist yet. `mesa install hub` does this and more.",
        examples=["mesa provision-hub --hub-host hub.local --hub-host 192.168.1.10"],
    )
    p.add_argument("--passwd", type=Path, default=DEFAULT_PASSWD, metavar="FILE",
                   help="Mosquitto's password file")
    p.add_argument("--out", type=Path, default=Path("/etc/mesa/hub-credentials.json"),
                   metavar="FILE", help="the hub's credentials file (username and password)")
    p.add_argument("--pid-file", type=Path, default=DEFAULT_PID_FILE, metavar="FILE",
                   help="the broker's pid file (it is reloaded with SIGHUP)")
    p.add_argument("--no-reload", action="store_true", help="do not reload the broker")
    default_text(
        p.add_argument("--tls-dir", type=Path, metavar="DIR",
                       help="the venue CA and the broker's certificate"),
        "tls/ beside --out",
    )
    p.add_argument("--hub-host", action="append", metavar="HOST",
                   help="a name or address of the hub for its certificate (repeatable)")
    p.set_defaults(run=_provision_hub)
