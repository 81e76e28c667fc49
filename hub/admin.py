"""The venue's admin commands: ``mesa install``, ``mesa enrolments``, ``mesa adopt``,
``mesa apply-accounts``, ``mesa backup`` and ``mesa restore``.

>>> import argparse
>>> sub = argparse.ArgumentParser().add_subparsers()
>>> register(sub)
>>> sorted(sub.choices)
['adopt', 'apply-accounts', 'backup', 'enrolments', 'install', 'restore']
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from pathlib import Path
from typing import Any

from mesa.errors import MesaError

DESK_SETTINGS = Path("/etc/mesa/enrolment.json")


def _install(args: argparse.Namespace) -> int:
    from mesa.hub.install import install_hub, install_table

    try:
        def say(line: str) -> None:  # each step as it begins: a Pi takes a while
            print(f"mesa install {args.what}: {line}", flush=True)

        if args.what == "hub":
            report = install_hub(args.root, hub_hosts=args.hub_host or (), start=not args.no_start,
                                 say=say)
        else:
            report = install_table(args.root, bundle=args.bundle, start=not args.no_start, say=say)
    except (MesaError, OSError) as e:
        print(f"mesa install {args.what}: {e}", file=sys.stderr)
        return 1
    for rel in report.changed:
        print(f"  wrote   {rel}")
    print(f"mesa install {args.what}: {len(report.changed)} written, {len(report.kept)} unchanged")
    for note in report.notes:
        print(f"  {note}")
    return 0


def _db(args: argparse.Namespace) -> Path:
    from mesa.hub.settings import HubSettings

    return Path(args.db) if args.db else HubSettings.from_env().db


def _when(t: float | None) -> str:
    return "-" if t is None else dt.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M")


def _enrolment_db(args: argparse.Namespace) -> Path:
    """--db, else the store named in the desk's settings (an installed hub), else the hub's."""
    if args.db:
        return Path(args.db)
    from mesa.hub.broker.enrolment import EnrolmentSettings

    if args.settings.exists():
        try:
            return EnrolmentSettings.from_file(args.settings).db
        except MesaError:
            pass  # an unreadable enrolment file: the hub's own setting names the store
    return _db(args)


def _enrolments(args: argparse.Namespace) -> int:
    from mesa.hub.broker.enrolment import EnrolmentStore

    store = EnrolmentStore(_enrolment_db(args))
    try:
        pending, adopted = store.pending(), store.adoptions()
        audit = store.audit_log(20) if args.all else []
    finally:
        store.close()
    # No codes here: the director reads a table's code off its own screen.
    print("Mesa nueva (waiting to be adopted):" if pending else "No new table is waiting.")
    for p in pending:
        hw = ", ".join(f"{k} {v}" for k, v in sorted(p.hwcheck.items())) or "no hardware check"
        print(f"  {p.serial:<20} first {_when(p.first_seen)}  last {_when(p.last_seen)}  {hw}")
    if pending:
        print("Adopt one with: mesa adopt CODE TABLE (CODE: on the table's screen)")
    if adopted and args.all:
        print("Adopted:")
        for a in adopted:
            if a.replaced_at:
                state = f"replaced {_when(a.replaced_at)}"
            else:
                state = "online" if a.cleared_at else "waiting for it to come online"
            print(f"  {a.serial:<20} table {a.table_id:<6} {_when(a.adopted_at)}  {state}")
    if audit:
        print("Adoptions asked for (newest first):")
        for e in audit:
            replaced = f", replacing {e.replaced}" if e.replaced else ""
            print(
                f"  {_when(e.at)}  {e.by or '?'}: {e.code} → table {e.table_id}"
                f" ({e.serial or '?'}{replaced}): {e.outcome}"
            )
    return 0


def _adopt(args: argparse.Namespace) -> int:
    """Leave the adoption in the store for the running hub's enrolment desk (the only client
    that answers Pis) and wait for its outcome. The desk applies the rules (the code must be a
    waiting Pi's; a number that has a Pi needs ``--replace`` naming it), as for the dashboard."""
    from mesa.hub.broker.enrolment import (
        EnrolmentError,
        EnrolmentStore,
        check_adoptable_table,
        check_code,
    )

    try:
        code = check_code(args.code)
        check_adoptable_table(args.table)
        store = EnrolmentStore(_enrolment_db(args))
    except (MesaError, OSError) as e:
        print(f"mesa adopt: {e}", file=sys.stderr)
        return 1
    try:
        if not store.with_code(code):
            raise EnrolmentError(f"no new table showing code {code} is waiting")
        store.request_adoption(code, args.table, args.replace, time.time())
        deadline = time.monotonic() + args.wait
        outcome = store.request_outcome(code)
        while outcome is None and time.monotonic() < deadline:
            time.sleep(0.2)
            outcome = store.request_outcome(code)
    except (MesaError, OSError) as e:
        print(f"mesa adopt: {e}", file=sys.stderr)
        return 1
    finally:
        store.close()
    if outcome is None:
        print(
            f"mesa adopt: asked; the hub has not taken it within {args.wait:g} s (is `mesa hub`"
            " running with enrolment_credentials?). It will when it does.",
            file=sys.stderr,
        )
        return 1
    if outcome != "ok":
        print(f"mesa adopt: the hub refused: {outcome}", file=sys.stderr)
        if "confirm with replace=" in outcome:
            pi = outcome.rsplit("replace=", 1)[1]
            print(f"  mesa adopt {code} {args.table} --replace {pi}", file=sys.stderr)
        return 1
    print(f"{code} is table {args.table}: its account is made and its answer is sent")
    return 0


def _apply_accounts(args: argparse.Namespace) -> int:
    """Root's side of adopting (mesa-accounts.service): queued accounts into Mosquitto."""
    from mesa.hub.broker.accounts import apply_queued
    from mesa.hub.broker.provision import reload_broker

    try:
        applied, refused = apply_queued(args.queue, args.passwd)
    except (MesaError, OSError) as e:
        print(f"mesa apply-accounts: {e}", file=sys.stderr)
        return 1
    if applied and not reload_broker(args.pid_file):
        print(f"mesa apply-accounts: no broker to reload ({args.pid_file})", file=sys.stderr)
    for name in applied:
        print(f"  account {name}: written")
    for name in refused:
        print(f"  account {name}: refused (see the log)", file=sys.stderr)
    return 1 if refused else 0


def _backup(args: argparse.Namespace) -> int:
    from mesa.hub.backup import backup
    from mesa.hub.settings import HubSettings

    try:
        # One folder and one count for every backup, nightly or after a publication: the
        # hub's settings (MESA_HUB_BACKUP_DIR, MESA_HUB_BACKUP_KEEP) unless given here.
        settings = HubSettings.from_env()
        folder = args.dir if args.dir is not None else settings.backup_dir
        keep = args.keep if args.keep is not None else settings.backup_keep
        made = backup(_db(args), folder, keep=keep)
    except (MesaError, OSError) as e:
        print(f"mesa backup: {e}", file=sys.stderr)
        return 1
    print(f"mesa backup: {made}")
    return 0


def _restore(args: argparse.Namespace) -> int:
    from mesa.hub.backup import restore
    from mesa.hub.store_schema import hub_schema

    try:
        saved = restore(args.file, _db(args), schema=hub_schema(), force=args.force)
    except (MesaError, OSError) as e:
        print(f"mesa restore: {e}", file=sys.stderr)
        return 1
    kept = f"; the store it replaced is in {saved}" if saved else ""
    print(f"mesa restore: {args.file} is the hub's store{kept}")
    return 0


def _store_option(p: argparse.ArgumentParser, *, enrolment: bool = False) -> None:
    """``--db``: the hub's store (for the enrolment commands, the one the desk's settings name)."""
    from mesa.cli_options import default_text
    from mesa.hub.settings import BY_NAME

    db = BY_NAME["db"]
    action = p.add_argument("--db", metavar="FILE", help="the hub's store")
    shown = f"{db.env}, else {db.default}"
    default_text(action, f"the one in --enrolment-credentials, else {shown}" if enrolment
                 else shown)


def _desk_option(p: argparse.ArgumentParser) -> None:
    """``--enrolment-credentials``: the hub's setting of that name, the enrolment desk's file.
    (It was ``--settings``, which still works: ``mesa hub --settings`` is another file.)"""
    from mesa.cli_options import add_old_name

    action = p.add_argument(
        "--enrolment-credentials", dest="settings", type=Path, default=DESK_SETTINGS,
        metavar="FILE", help="the enrolment desk's file, with the hub's store (written by "
        "`mesa install hub`)")
    add_old_name(p, "--settings", action)


def register(sub: Any) -> None:
    from mesa.cli_options import add_command, default_text
    from mesa.hub.cli import setting_option

    p = add_command(
        sub,
        "install",
        summary="Set up this machine as the venue's hub or as a table, in one command",
        description="hub: the services (mesa-hub, mesa-accounts, the nightly backup), the "
        "mesa user, Mosquitto's settings, the venue CA and certificates, the hub's accounts "
        "and the enrolment bundle /etc/mesa/enrol.json for the tables. table: mesa-enrol and "
        "mesa-table, the sample /etc/mesa/table.toml and the bundle. Run it again at any time: "
        "what is in place is kept, what is missing or outdated is written. docs/install.md "
        "goes from a blank SD card to a running venue.",
        examples=[
            "sudo .venv/bin/mesa install hub --hub-host mesa-hub.local --hub-host 192.168.1.10",
            "sudo .venv/bin/mesa install table --bundle enrol.json",
        ],
    )
    p.add_argument("what", choices=("hub", "table"), help="what this machine is")
    p.add_argument("--root", type=Path, default=Path("/"), metavar="DIR",
                   help="install into DIR (packaging, tests)")
    p.add_argument("--no-start", action="store_true", help="enable the services, do not start")
    default_text(p.add_argument("--hub-host", action="append", metavar="HOST",
                                help="hub: a name or address the tables use for the hub "
                                "(repeatable)"),
                 "<hostname>.local")
    default_text(p.add_argument("--bundle", type=Path, metavar="FILE",
                                help="table: the hub's /etc/mesa/enrol.json"),
                 "the one already installed")
    p.set_defaults(run=_install)

    p = add_command(
        sub,
        "enrolments",
        summary="The new tables waiting to be adopted (and, with --all, those adopted)",
        description="The Pis that announced themselves (`mesa enrol`), each with its serial, "
        "when it was first and last seen, and its hardware check: what the director's home "
        "shows as Mesa nueva.",
        examples=["sudo /opt/mesa/.venv/bin/mesa enrolments --all"],
    )
    _store_option(p, enrolment=True)
    _desk_option(p)
    p.add_argument("--all", action="store_true", help="the adopted ones too")
    p.set_defaults(run=_enrolments)

    p = add_command(
        sub,
        "adopt",
        summary="Give a new table (by the code on its screen) its table number",
        description="The request is left to the running hub, which makes the table's broker "
        "account and sends the Pi its link file, sealed to the Pi's own key; the command waits "
        "for the outcome. A number that already has a Pi needs --replace naming that Pi. The "
        "dashboard's Mesa nueva does the same.",
        examples=["sudo /opt/mesa/.venv/bin/mesa adopt 4F7-2K9 7",
                  "sudo /opt/mesa/.venv/bin/mesa adopt 4F7-2K9 7 --replace 10000000a1b2c3d4"],
    )
    p.add_argument("code", help="the pairing code the new table's screen shows (4F7-2K9)")
    p.add_argument("table", help="the table id (1-32 of a-z 0-9 _ -)")
    _desk_option(p)
    _store_option(p, enrolment=True)
    p.add_argument("--wait", type=float, default=30.0, metavar="SECONDS",
                   help="how long to wait for the running hub to adopt it")
    p.add_argument("--replace", metavar="PI",
                   help="the Pi this number has now, as the refusal names it")
    p.set_defaults(run=_adopt)

    from mesa.hub.broker.accounts import DEFAULT_QUEUE
    from mesa.hub.broker.provision import DEFAULT_PASSWD, DEFAULT_PID_FILE

    p = add_command(
        sub,
        "apply-accounts",
        summary="Root: write the table accounts the hub queued into Mosquitto's files",
        description="Root's small part in adopting a table: systemd/mesa-accounts.path runs it "
        "when the hub (which is not root) queues an account; the broker is reloaded.",
        examples=["sudo /opt/mesa/.venv/bin/mesa apply-accounts --queue /var/lib/mesa/accounts"],
    )
    p.add_argument("--queue", type=Path, default=DEFAULT_QUEUE, metavar="DIR",
                   help="the folder the hub queues accounts in")
    p.add_argument("--passwd", type=Path, default=DEFAULT_PASSWD, metavar="FILE",
                   help="Mosquitto's password file")
    p.add_argument("--pid-file", type=Path, default=DEFAULT_PID_FILE, metavar="FILE",
                   help="the broker's pid file (it is reloaded with SIGHUP)")
    p.set_defaults(run=_apply_accounts)

    p = add_command(
        sub,
        "backup",
        summary="Copy the hub's store, while it runs, into a rotated set of backups",
        description="A consistent copy made with SQLite's backup API while the hub keeps "
        "writing; the oldest beyond --keep are removed. systemd/mesa-backup.timer runs it "
        "nightly; the hub makes one after each closed tournament, into the same folder with "
        "the same count.",
        examples=["mesa backup", "mesa backup --dir /var/lib/mesa/backups --keep 30"],
    )
    _store_option(p)
    # One folder and one count for every backup (the nightly one and the hub's after each
    # closed tournament): the hub's settings, unless given here.
    setting_option(p, "--dir", "backup_dir", type=Path, metavar="DIR", help="the backups' folder")
    setting_option(p, "--keep", "backup_keep", type=int, metavar="N",
                   help="how many backups are kept (the newest)")
    p.set_defaults(run=_backup)

    p = add_command(
        sub,
        "restore",
        summary="Bring a backup back as the hub's store (the hub stopped)",
        description="The backup is checked against the hub's schema first (a refusal changes "
        "nothing); the store it replaces is kept as a backup of its own, named in the output.",
        examples=["sudo systemctl stop mesa-hub && sudo -u mesa /opt/mesa/.venv/bin/mesa "
                  "restore /var/lib/mesa/backups/hub-20260302T040000000000Z.sqlite3"],
    )
    p.add_argument("file", type=Path, help="the backup to bring back")
    _store_option(p)
    p.add_argument("--force", action="store_true",
                   help="even while a process holds the store")
    p.set_defaults(run=_restore)
