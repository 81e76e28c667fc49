"""Backups of the hub's store: a copy taken while the hub runs, kept in a rotated set.

A season's results live in one SQLite file. :func:`backup` copies it with SQLite's online
backup API (a consistent snapshot while events keep arriving) to
``<dir>/hub-YYYYmmddTHHMMSSffffffZ.sqlite3`` and keeps the newest ``keep`` (only files it made
count: a folder or a link named like one is left alone); ``mesa backup`` runs it (nightly from
``mesa-backup.timer``, and after each published tournament through :func:`backup_now`).

:func:`restore` puts one back, trusting nothing of the file it is given: it reads a regular
file only (a link is not followed, a named pipe does not block it), copies it beside the store
(``<store>.restoring``, never through a link planted there) and checks the copy: the exact
schema the hub writes (:class:`StoreSchema`, read from a store the hub's own code has just made:
:func:`mesa.hub.store_schema.hub_schema`), nothing the hub does not create (a trigger, a view,
an index), SQLite's ``integrity_check`` and ``foreign_key_check``, and the store version a fresh
store has (:mod:`mesa.hub.store_version`): a copy of an older release's store is migrated first,
as ``mesa hub`` would at its start, one of a newer release refused. Only then is the store it
replaces kept in ``before-restore/`` and the copy renamed into place.

>>> import tempfile, pathlib, sqlite3
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> with sqlite3.connect(d / "hub.sqlite3") as c:
...     _ = c.execute("CREATE TABLE events (seq INTEGER)")
>>> made = backup(d / "hub.sqlite3", d / "backups", keep=2)
>>> schema = StoreSchema(read_schema(d / "hub.sqlite3"), frozenset({"events"}))
>>> made.name.startswith("hub-") and check_backup(made, schema) == []
True
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import re
import sqlite3
import stat
import threading
import urllib.parse
from collections.abc import Container, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from mesa.errors import MesaError
from mesa.hub import store_version
from mesa.hub.safe_files import (
    UnsafePath,
    create_new,
    describe,
    fd_path,
    open_folder,
    open_regular,
)

log = logging.getLogger(__name__)

DEFAULT_DIR = Path("/var/lib/mesa/backups")
DEFAULT_KEEP = 30  # the one count: nightly and after-tournament backups share the folder
# Exactly the names :func:`backup` gives (see :func:`_stamp`): nothing else is rotated.
OWN_NAME = re.compile(r"hub-\d{8}T\d{12}Z\.sqlite3")
BEFORE_RESTORE = "before-restore"


class BackupError(MesaError):
    """A backup cannot be made, or a file is not one to restore."""


def _stamp(now: dt.datetime | None = None) -> str:
    """
    >>> OWN_NAME.fullmatch(f"hub-{_stamp()}.sqlite3") is not None
    True
    """
    return (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%dT%H%M%S%fZ")


# ── the schema: what a store holds, compared object by object ──────────────────────────────
_TOKEN = re.compile(
    r"""(?P<skip>\s+|--[^\n]*|/\*.*?(?:\*/|\Z))
      |(?P<str>'(?:[^']|'')*')
      |(?P<qid>"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\])
      |(?P<word>[A-Za-z0-9_$]+)
      |(?P<punct>.)""",
    re.X | re.S,
)
_SIMPLE_NAME = re.compile(r"[a-z_][a-z0-9_$]*")
# What starts a table constraint rather than a column definition.
_CONSTRAINT_WORDS = frozenset({"constraint", "primary", "unique", "check", "foreign"})


def _tokens(sql: str) -> list[tuple[str, str]]:
    """``sql`` as (kind, text) tokens, comments and spacing dropped, names in lower case (as
    SQLite compares them), a quoted simple name the same as the bare one.

    >>> [t for _, t in _tokens('CREATE TABLE "Meta" (key TEXT -- why\\n)')]
    ['create', 'table', 'meta', '(', 'key', 'text', ')']
    """
    out: list[tuple[str, str]] = []
    for m in _TOKEN.finditer(sql):
        kind, text = m.lastgroup or "punct", m.group()
        if kind == "skip":
            continue
        if kind == "qid":
            inner = text[1:-1].lower()
            kind, text = ("word", inner) if _SIMPLE_NAME.fullmatch(inner) else (kind, f'"{inner}"')
        elif kind == "word":
            text = text.lower()
        out.append((kind, text))
    return out


def definition(sql: str | None, kind: str) -> tuple[str, ...]:
    """A comparable form of an object's ``CREATE`` statement. A table's is its head, its
    column definitions in order and its table constraints in order, kept apart: a column the
    hub added later (``ALTER TABLE … ADD COLUMN``) is written after the constraints in the text
    SQLite keeps, and is the same table as one created with it.

    >>> a = definition("CREATE TABLE t (a INT, b TEXT, UNIQUE (a))", "table")
    >>> a == definition("CREATE TABLE t (a INT, UNIQUE (a), b TEXT)", "table")
    True
    >>> a == definition("CREATE TABLE t (b TEXT, a INT, UNIQUE (a))", "table")
    False
    """
    if sql is None:
        return ()
    tokens = _tokens(sql)
    words = [t for _, t in tokens]
    if kind != "table" or "(" not in words:
        return (" ".join(words),)
    first = words.index("(")
    items: list[list[tuple[str, str]]] = [[]]
    depth, end = 0, len(tokens)
    for i in range(first + 1, len(tokens)):
        k, t = tokens[i]
        if k == "punct" and t == "(":
            depth += 1
        elif k == "punct" and t == ")":
            if depth == 0:
                end = i
                break
            depth -= 1
        if depth == 0 and k == "punct" and t == ",":
            items.append([])
            continue
        items[-1].append((k, t))

    def is_constraint(item: list[tuple[str, str]]) -> bool:
        return bool(item) and item[0][0] == "word" and item[0][1] in _CONSTRAINT_WORDS

    def text(item: list[tuple[str, str]]) -> str:
        return " ".join(t for _, t in item)

    return (
        "head " + " ".join(words[:first]),
        "tail " + " ".join(words[end + 1 :]),
        *("column " + text(i) for i in items if not is_constraint(i)),
        *("constraint " + text(i) for i in items if is_constraint(i)),
    )


@dataclass(frozen=True)
class SchemaObject:
    """One entry of ``sqlite_master``: a table (with its columns as ``table_xinfo`` gives
    them), an index, a trigger or a view."""

    type: str
    name: str
    table: str
    definition: tuple[str, ...]
    columns: tuple[tuple[object, ...], ...] = ()

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(str(c[1]) for c in self.columns)


@dataclass(frozen=True)
class StoreSchema:
    """What a hub store may hold (``objects``, by name) and must hold (``required`` tables);
    ``version``: the store version it must have (None: any)."""

    objects: Mapping[str, SchemaObject]
    required: frozenset[str]
    version: int | None = None


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _open_ro(path: str | Path, *, immutable: bool = True) -> sqlite3.Connection:
    """Read-only, with the schema's SQL not trusted to call functions; ``immutable``: as an
    unchanging file, its main file alone (no -wal, -shm or journal read or made beside it)."""
    uri = f"file:{urllib.parse.quote(str(path))}?mode=ro" + ("&immutable=1" if immutable else "")
    conn = sqlite3.connect(uri, uri=True)
    conn.execute("PRAGMA trusted_schema=OFF")
    return conn


def _read_schema(
    conn: sqlite3.Connection, known: Container[str] | None = None
) -> dict[str, SchemaObject]:
    """The objects of ``conn``'s database; the columns of its tables (only of those named in
    ``known`` when given: another, a virtual table of an unknown module say, is refused by its
    name alone)."""
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    out: dict[str, SchemaObject] = {}
    for kind, name, table, sql in rows:
        columns: tuple[tuple[object, ...], ...] = ()
        if kind == "table" and (known is None or name in known):
            columns = tuple(conn.execute(f"PRAGMA table_xinfo({_quote(name)})").fetchall())
        out[name] = SchemaObject(kind, name, table, definition(sql, kind), columns)
    return out


def read_schema(path: str | Path) -> dict[str, SchemaObject]:
    """Every object of the SQLite store ``path`` (read-only; its WAL read too)."""
    conn = _open_ro(path, immutable=False)
    try:
        return _read_schema(conn)
    finally:
        conn.close()


def _short(names: tuple[str, ...]) -> str:
    return ", ".join(names[:6]) + (", …" if len(names) > 6 else "")


def schema_problems(found: Mapping[str, SchemaObject], expected: StoreSchema) -> list[str]:
    """How ``found`` differs from what the hub writes (empty: it does not)."""
    problems: list[str] = []
    for name in sorted(found):
        got = found[name]
        want = expected.objects.get(name)
        if want is None:
            problems.append(f"{got.type} {name} is not one the hub creates")
        elif (got.type, got.table) != (want.type, want.table):
            problems.append(f"{name} is a {got.type} on {got.table}, the hub's a {want.type}")
        elif got.column_names != want.column_names:
            problems.append(
                f"table {name} has the columns ({_short(got.column_names)}), "
                f"the hub's ({_short(want.column_names)})"
            )
        elif got.definition != want.definition or got.columns != want.columns:
            problems.append(f"{got.type} {name} is defined otherwise than the hub's")
    tables = {n for n, o in found.items() if o.type == "table"}
    for name in sorted(expected.required - tables):
        problems.append(f"table {name} missing")
    for name, want in sorted(expected.objects.items()):
        # What belongs to a table that is there (its indexes, triggers) is there too.
        if want.table in tables and want.name != want.table and name not in found:
            problems.append(f"{want.type} {name} of table {want.table} missing")
    return problems


def _check(conn: sqlite3.Connection, schema: StoreSchema) -> list[str]:
    problems = schema_problems(_read_schema(conn, schema.objects), schema)
    version = store_version.read_version(conn)
    if schema.version is not None and version != schema.version:
        problems.insert(0, f"store version {version}, the hub's {schema.version}")
    result = [r[0] for r in conn.execute("PRAGMA integrity_check")]
    if result != ["ok"]:
        problems += [f"integrity: {r}" for r in result[:5]]
    for table, rowid, parent, _ in conn.execute("PRAGMA foreign_key_check").fetchall()[:5]:
        problems.append(f"foreign key: {table} row {rowid} refers to a missing {parent}")
    return problems


def check_backup(path: str | Path, schema: StoreSchema) -> list[str]:
    """What is wrong with a backup (empty: nothing): its schema against ``schema``, SQLite's
    integrity check and its foreign keys. ``path`` is read as it is: :func:`restore` checks a
    copy of its own, made without following links."""
    try:
        conn = _open_ro(path)
        try:
            return _check(conn, schema)
        finally:
            conn.close()
    except sqlite3.Error as e:
        return [f"not an SQLite database of the hub ({e})"]


# ── making and rotating backups ──────────────────────────────────────────────────────────
def backup(
    db: str | Path, directory: str | Path = DEFAULT_DIR, *, keep: int = DEFAULT_KEEP
) -> Path:
    """Copy ``db`` (while it is in use) to a new timestamped file in ``directory``; keep the
    newest ``keep`` backups. The copy is written beside its final name, then renamed: a backup
    that was cut short never looks like one. A ``directory`` that is a link is refused."""
    src = Path(db)
    if not src.exists():
        raise BackupError(f"no store at {src}")
    if keep < 1:
        raise BackupError("keep at least one backup")
    out_dir = Path(directory)
    try:
        d = open_folder(out_dir)
    except UnsafePath as e:
        raise BackupError(f"no backup made: {e}") from None
    try:
        name = f"hub-{_stamp()}.sqlite3"
        tmp = name.removesuffix(".sqlite3") + ".partial"
        fd = create_new(tmp, 0o640, dir_fd=d)
        try:
            _copy_store(src, fd_path(d, tmp))
            os.fchmod(fd, 0o640)
            os.fsync(fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=d)
            raise
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=d, dst_dir_fd=d)
        os.fsync(d)
        _rotate(d, out_dir, keep)
    finally:
        os.close(d)
    return out_dir / name


def _copy_store(src: Path, target_path: str) -> None:
    source = sqlite3.connect(f"file:{urllib.parse.quote(str(src))}?mode=ro", uri=True, timeout=30)
    try:
        target = sqlite3.connect(target_path)
        try:
            # pages=-1: one step, under one read transaction: a consistent snapshot, and the
            # hub's writers (WAL) are not held up by it.
            source.backup(target, pages=-1)
            target.execute("PRAGMA journal_mode=DELETE")
        finally:
            target.close()
    except sqlite3.Error as e:
        raise BackupError(f"backup of {src} failed: {e}") from None
    finally:
        source.close()


def _own(entries: Iterator[os.DirEntry[str]]) -> list[str]:
    """The names of the regular files named as :func:`backup` names them, oldest first."""
    return sorted(
        e.name for e in entries if OWN_NAME.fullmatch(e.name) and e.is_file(follow_symlinks=False)
    )


def backups(directory: str | Path) -> list[Path]:
    """The backups in ``directory``, oldest first (the names sort by time); a folder or a
    link named like one is not one."""
    try:
        with os.scandir(directory) as it:
            return [Path(directory) / n for n in _own(it)]
    except FileNotFoundError:
        return []


def _rotate(d: int, directory: Path, keep: int) -> list[Path]:
    with os.scandir(d) as it:
        old = _own(it)[:-keep]
    for name in old:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=d)
    return [directory / n for n in old]


def rotate(directory: str | Path, keep: int) -> list[Path]:
    """Remove all but the newest ``keep`` backups (their own files only); the removed ones."""
    d = open_folder(directory)
    try:
        return _rotate(d, Path(directory), keep)
    finally:
        os.close(d)


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


# ── restoring ─────────────────────────────────────────────────────────────────────────────
_STORE_SUFFIXES = ("-wal", "-shm", "-journal")  # what SQLite keeps beside a store


def _lkind(name: str, d: int) -> int | None:
    """The file type at ``name`` in ``d`` (not following a link); None when nothing is."""
    try:
        return stat.S_IFMT(os.lstat(name, dir_fd=d).st_mode)
    except FileNotFoundError:
        return None


def _preflight(d: int, folder: Path, name: str) -> None:
    """Refuse, before anything is written, what restore would write into or through."""
    staging = name + ".restoring"
    for entry, wanted in (
        (name, stat.S_IFREG),
        (BEFORE_RESTORE, stat.S_IFDIR),
        *((f"{name}{s}", stat.S_IFREG) for s in _STORE_SUFFIXES),
        (staging, stat.S_IFREG),
        *((f"{staging}{s}", stat.S_IFREG) for s in _STORE_SUFFIXES),
    ):
        kind = _lkind(entry, d)
        if kind is not None and kind != wanted:
            raise BackupError(
                f"{folder / entry} is {describe(entry, dir_fd=d)}: restore writes there and "
                "follows no link; remove it"
            )


def _stage(source_fd: int, d: int, staging: str, like: os.stat_result | None) -> None:
    """Copy the open backup into ``staging`` (made new, O_EXCL | O_NOFOLLOW), with the
    owner and mode of the store it will replace, else the folder's owner and 0640 (the hub
    must be able to write it; ``mesa restore`` may run as root)."""
    for leftover in (staging, *(staging + s for s in _STORE_SUFFIXES)):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(leftover, dir_fd=d)  # of an interrupted restore: regular files only
    out = create_new(staging, 0o600, dir_fd=d)
    try:
        while chunk := os.read(source_fd, 1 << 20):
            os.write(out, chunk)
        owner = like if like is not None else os.fstat(d)
        if (owner.st_uid, owner.st_gid) != (os.geteuid(), os.getegid()):
            with contextlib.suppress(PermissionError):
                os.fchown(out, owner.st_uid, owner.st_gid)
        os.fchmod(out, stat.S_IMODE(like.st_mode) if like is not None else 0o640)
        os.fsync(out)
    finally:
        os.close(out)


def _older(staged: str, src: Path) -> bool:
    """Whether the staged copy is a store of an older release (to migrate as ``mesa hub`` would
    at its start); one of a newer release is refused here, with what to do instead."""
    try:
        conn = _open_ro(staged)
        try:
            version = store_version.read_version(conn)
            fresh = store_version.is_fresh(conn)
        finally:
            conn.close()
        store_version.check_known(version, str(src))
    except sqlite3.Error:
        return False  # the check has said what is wrong with it
    except store_version.StoreVersionError as e:
        raise BackupError(f"not restored: {e}") from None
    return not fresh and version < store_version.STORE_VERSION


def _migrate_copy(staged: str, src: Path) -> None:
    """Migrate the staged copy (never ``src``); it is then checked as any other: against the
    schema the hub makes, so no step can let through what the hub does not create."""
    try:
        conn = sqlite3.connect(staged, isolation_level=None)
        try:
            conn.execute("PRAGMA trusted_schema=OFF")
            done = store_version.migrate(conn)
        finally:
            conn.close()
    except (sqlite3.Error, store_version.StoreVersionError) as e:
        log.info("restore: %s could not be migrated: %s", src, e)
        return
    log.info("restore: %s migrated (%d steps) before its check", src, len(done))


def restore(
    backup_file: str | Path,
    db: str | Path,
    *,
    schema: StoreSchema,
    force: bool = False,
) -> Path | None:
    """Replace ``db`` by ``backup_file`` once a copy of it checks out against ``schema``; the
    store it replaces is kept as a backup of its own (returned). Refused while a hub holds the
    store, unless ``force``. A refusal leaves every file as it was."""
    src, dst = Path(backup_file), Path(db)
    try:
        source_fd = open_regular(src)
    except UnsafePath as e:
        raise BackupError(f"not restored: {e}") from None
    try:
        if not force and hub_holds(dst):
            raise BackupError(f"a hub has {dst} open: stop it first (or --force)")
        d = os.open(dst.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            return _restore_into(source_fd, src, d, dst, schema)
        finally:
            os.close(d)
    finally:
        os.close(source_fd)


def _restore_into(
    source_fd: int, src: Path, d: int, dst: Path, schema: StoreSchema
) -> Path | None:
    _preflight(d, dst.parent, dst.name)
    staging = dst.name + ".restoring"
    like = None
    with contextlib.suppress(FileNotFoundError):
        like = os.stat(dst.name, dir_fd=d, follow_symlinks=False)
    _stage(source_fd, d, staging, like)
    try:
        staged = fd_path(d, staging)
        problems = check_backup(staged, schema)
        if problems and _older(staged, src):
            # What the file holds is reported as it came, should a migrated copy still fail.
            _migrate_copy(staged, src)
            if not check_backup(staged, schema):
                problems = []
        if problems:
            more = f"; and {len(problems) - 8} more" if len(problems) > 8 else ""
            raise BackupError(f"{src} is not a sound backup: " + "; ".join(problems[:8]) + more)
        saved = None
        if like is not None:
            saved = backup(dst, dst.parent / BEFORE_RESTORE, keep=5)
        for suffix in _STORE_SUFFIXES:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(dst.name + suffix, dir_fd=d)
        os.replace(staging, dst.name, src_dir_fd=d, dst_dir_fd=d)
        os.fsync(d)
        return saved
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(staging, dir_fd=d)
        raise


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
