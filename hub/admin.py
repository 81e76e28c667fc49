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
        if args.what == "hub":
            report = install_hub(args.root, hub_hosts=args.hub_host or (), start=not args.no_start)
        else:
            report = install_table(args.root, bundle=args.bundle, start=not args.no_start)
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


def register(sub: Any) -> None:
    p = sub.add_parser("install", help="set up this machine as the venue's hub or as a table")
    p.add_argument("what", choices=("hub", "table"))
    p.add_argument("--root", type=Path, default=Path("/"), help="install into DIR (packaging)")
    p.add_argument("--no-start", action="store_true", help="enable the services, do not start")
    p.add_argument(
        "--hub-host",
        action="append",
        help="hub: a name or address the tables use for the hub (repeatable; default <hostname>.local)",
    )
    p.add_argument("--bundle", type=Path, help="table: the hub's /etc/mesa/enrol.json")
    p.set_defaults(run=_install)

    p = sub.add_parser("enrolments", help="the new tables waiting to be adopted")
    p.add_argument("--db", help="the hub's store (default: the one in --settings)")
    p.add_argument("--settings", type=Path, default=DESK_SETTINGS)
    p.add_argument("--all", action="store_true", help="the adopted ones too")
    p.set_defaults(run=_enrolments)

    p = sub.add_parser(
        "adopt", help="give a new table (by the code on its screen) its number (the hub does it)"
    )
    p.add_argument("code", help="the pairing code the new table's screen shows (4F7-2K9)")
    p.add_argument("table", help="the table id (1-32 of a-z 0-9 _ -)")
    p.add_argument("--settings", type=Path, default=DESK_SETTINGS)
    p.add_argument("--db", help="the hub's store (default: the one in --settings)")
    p.add_argument(
        "--wait", type=float, default=30.0, help="seconds to wait for the running hub to adopt it"
    )
    p.add_argument("--replace", help="the Pi this number has now, as the refusal names it")
    p.set_defaults(run=_adopt)

    from mesa.hub.broker.accounts import DEFAULT_QUEUE
    from mesa.hub.broker.provision import DEFAULT_PASSWD, DEFAULT_PID_FILE

    p = sub.add_parser(
        "apply-accounts",
        help="root: write the table accounts the hub queued into Mosquitto's (mesa-accounts.path)",
    )
    p.add_argument("--queue", type=Path, default=DEFAULT_QUEUE)
    p.add_argument("--passwd", type=Path, default=DEFAULT_PASSWD)
    p.add_argument("--pid-file", type=Path, default=DEFAULT_PID_FILE)
    p.set_defaults(run=_apply_accounts)

    p = sub.add_parser("backup", help="copy the hub's store, while it runs, to a rotated set")
    p.add_argument("--db", help="the hub's store (default: the hub's setting)")
    p.add_argument("--dir", type=Path, help="the backups' folder (default: MESA_HUB_BACKUP_DIR)")
    p.add_argument("--keep", type=int, help="backups kept, the newest (default: MESA_HUB_BACKUP_KEEP)")
    p.set_defaults(run=_backup)

    p = sub.add_parser("restore", help="bring a backup back as the hub's store (hub stopped)")
    p.add_argument("file", type=Path)
    p.add_argument("--db", help="the hub's store (default: the hub's setting)")
    p.add_argument("--force", action="store_true", help="even while a process holds the store")
    p.set_defaults(run=_restore)
