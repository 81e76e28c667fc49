"""Backups of the hub's store: a copy taken while the hub runs, kept in a rotated set.

A season's results live in one SQLite file. :func:`backup` copies it with SQLite's online
backup API (a consistent snapshot while events keep arriving) to
``<dir>/hub-YYYYmmddTHHMMSSZ.sqlite3`` and keeps the newest ``keep``; ``mesa backup`` runs it
(nightly from ``mesa-backup.timer``, and after each published tournament through
:func:`backup_now`). :func:`restore` puts one back after checking it.

>>> import tempfile, pathlib, sqlite3
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> with sqlite3.connect(d / "hub.sqlite3") as c:
...     _ = c.execute("CREATE TABLE events (seq INTEGER)")
>>> made = backup(d / "hub.sqlite3", d / "backups", keep=2)
>>> made.name.startswith("hub-") and check_backup(made, required=("events",)) == []
True
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import shutil
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

from mesa.errors import MesaError

log = logging.getLogger(__name__)

DEFAULT_DIR = Path("/var/lib/mesa/backups")
DEFAULT_KEEP = 14
PATTERN = "hub-*.sqlite3"
# A hub store has at least the event store's tables (hub/ingest/store.py).
REQUIRED_TABLES: tuple[str, ...] = ("meta", "events", "streams", "tables")


class BackupError(MesaError):
    """A backup cannot be made, or a file is not one to restore."""


def _stamp(now: dt.datetime | None = None) -> str:
    return (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%dT%H%M%S%fZ")


def backup(
    db: str | Path, directory: str | Path = DEFAULT_DIR, *, keep: int = DEFAULT_KEEP
) -> Path:
    """Copy ``db`` (while it is in use) to a new timestamped file in ``directory``; keep the
    newest ``keep`` backups. The copy is written beside its final name, then renamed: a backup
    that was cut short never looks like one."""
    src = Path(db)
    if not src.exists():
        raise BackupError(f"no store at {src}")
    if keep < 1:
        raise BackupError("keep at least one backup")
    out_dir = Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / f"hub-{_stamp()}.sqlite3"
    tmp = final.with_suffix(".partial")
    source = sqlite3.connect(f"file:{src}?mode=ro", uri=True, timeout=30)
    try:
        target = sqlite3.connect(tmp)
        try:
            # pages=-1: one step, under one read transaction: a consistent snapshot, and the
            # hub's writers (WAL) are not held up by it.
            source.backup(target, pages=-1)
            target.execute("PRAGMA journal_mode=DELETE")
        finally:
            target.close()
    except sqlite3.Error as e:
        tmp.unlink(missing_ok=True)
        raise BackupError(f"backup of {src} failed: {e}") from None
    finally:
        source.close()
    os.chmod(tmp, 0o640)
    tmp.replace(final)
    rotate(out_dir, keep)
    return final


def backups(directory: str | Path) -> list[Path]:
    """The backups in ``directory``, oldest first (the names sort by time)."""
    return sorted(Path(directory).glob(PATTERN))


def rotate(directory: str | Path, keep: int) -> list[Path]:
    """Remove all but the newest ``keep`` backups; returns the removed ones."""
    old = backups(directory)[:-keep]
    for path in old:
        path.unlink(missing_ok=True)
    return old


def check_backup(path: str | Path, required: Iterable[str] = ()) -> list[str]:
    """What is wrong with a backup (empty: nothing): SQLite's integrity check, and every
    ``required`` table present."""
    problems: list[str] = []
    try:
        conn = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
        try:
            result = [r[0] for r in conn.execute("PRAGMA integrity_check")]
            if result != ["ok"]:
                problems += [f"integrity: {r}" for r in result[:5]]
            tables = {
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
        finally:
            conn.close()
    except sqlite3.Error as e:
        return [f"not an SQLite database ({e})"]
    problems += [f"table {t} missing" for t in required if t not in tables]
    return problems


def hub_holds(db: str | Path) -> bool:
    """Whether a process has the store open (a running hub): any open descriptor of it or its
    WAL files, from /proc (Linux)."""
    targets = {str(Path(db).resolve()), f"{Path(db).resolve()}-wal", f"{Path(db).resolve()}-shm"}
    me = os.getpid()
    for proc in Path("/proc").glob("[0-9]*"):
        if int(proc.name) == me:
            continue
        with contextlib.suppress(OSError):
            for fd in (proc / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in targets:
                        return True
    return False


def restore(
    backup_file: str | Path,
    db: str | Path,
    *,
    required: Iterable[str] = (),
    force: bool = False,
) -> Path | None:
    """Replace ``db`` by ``backup_file`` once it checks out; the store it replaces is kept as a
    backup of its own (returned). Refused while a hub holds the store, unless ``force``."""
    src, dst = Path(backup_file), Path(db)
    problems = check_backup(src, required)
    if problems:
        raise BackupError(f"{src} is not a sound backup: " + "; ".join(problems))
    if not force and hub_holds(dst):
        raise BackupError(f"a hub has {dst} open: stop it first (or --force)")
    saved: Path | None = None
    if dst.exists():
        saved = backup(dst, dst.parent / "before-restore", keep=5)
    tmp = dst.with_name(dst.name + ".restoring")
    shutil.copyfile(src, tmp)
    for suffix in ("-wal", "-shm"):
        Path(f"{dst}{suffix}").unlink(missing_ok=True)
    tmp.replace(dst)
    return saved


# ── after a published tournament ─────────────────────────────────────────────────────────
_settings: tuple[Path, Path, int] | None = None


def configure(db: Path, directory: Path, keep: int = DEFAULT_KEEP) -> None:
    """Where :func:`backup_now` copies from and to (the hub calls this at start)."""
    global _settings
    _settings = (Path(db), Path(directory), keep)


def backup_now() -> threading.Thread | None:
    """A backup in the background (the desk calls it when a tournament's final list is
    published); nothing when :func:`configure` was not called. Never raises: a failed backup is
    logged, the publication stands."""
    if _settings is None:
        return None
    db, directory, keep = _settings

    def run() -> None:
        try:
            made = backup(db, directory, keep=keep)
            log.info("backup after publication: %s", made)
        except (BackupError, OSError) as e:
            log.error("backup after publication failed: %s", e)

    t = threading.Thread(target=run, name="mesa-backup", daemon=True)
    t.start()
    return t
