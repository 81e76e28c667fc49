"""Files read and written without following symbolic links: what ``mesa install`` and
``mesa restore`` use where someone else may have planted a link.

Every path is walked from an open directory one name at a time with ``O_NOFOLLOW``, so a link
anywhere on the way is refused instead of followed; files are written under a unique temporary
name made with ``O_EXCL | O_NOFOLLOW`` in their own folder and renamed over the old one (a
planted ``x.tmp`` link is never written through), and modes and owners are set on the open
descriptor, never on a path a link could redirect.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> with SafeTree(root) as tree:
...     tree.write("etc/mesa/x.conf", b"a = 1\\n", 0o644), tree.write("etc/mesa/x.conf", b"a = 1\\n", 0o644)
(True, False)
>>> (root / "etc/mesa/x.conf").read_bytes()
b'a = 1\\n'
>>> (root / "link").symlink_to(root / "etc")
>>> with SafeTree(root) as tree:
...     tree.write("link/y.conf", b"", 0o644)
Traceback (most recent call last):
mesa.hub.safe_files.UnsafePath: link is a symbolic link (to ...), not followed
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from types import TracebackType

from mesa.errors import MesaError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafePath(MesaError):
    """A path is, or passes through, a symbolic link, or is not the kind of file expected."""


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    ):
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def describe(path: str | Path, *, dir_fd: int | None = None) -> str:
    """What is at ``path`` (not following a link), for a refusal's reason.

    >>> describe("/")
    'a folder'
    """
    st = os.lstat(path, dir_fd=dir_fd)
    kind = _kind(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        kind += f" (to {os.readlink(path, dir_fd=dir_fd)})"
    return kind


def open_regular(
    path: str | Path,
    *,
    dir_fd: int | None = None,
    follow: bool = False,
    shown: str | Path | None = None,
) -> int:
    """A descriptor of ``path`` for reading, checked (``fstat``) to be a regular file before
    anything is read; a link is refused unless ``follow``, a named pipe does not block.
    ``shown``: the name the refusal gives (default ``path``)."""
    flags = _READ_FLAGS & ~(os.O_NOFOLLOW if follow else 0)
    shown = path if shown is None else shown
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise UnsafePath(f"{shown} is {describe(path, dir_fd=dir_fd)}, not followed") from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise UnsafePath(f"{shown} is {_kind(st.st_mode)}, not a regular file")
    os.set_blocking(fd, True)
    return fd


def read_regular(path: str | Path, *, limit: int, follow: bool = False) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see :func:`open_regular`)."""
    fd = open_regular(path, follow=follow)
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise UnsafePath(f"{path} is larger than {limit} bytes")
    return data


def _not_a_folder(shown: str | Path, name: str, dir_fd: int) -> str:
    what = describe(name, dir_fd=dir_fd)
    return f"{shown} is {what}, " + ("not followed" if what.startswith("a symbolic") else "not a folder")


def open_folder(path: str | Path, mode: int = 0o750) -> int:
    """A descriptor of the folder ``path``, made (``mode``) if missing; its last part must not
    be a link (its parents are the path given). Refused if it is a link or not a folder."""
    path = Path(os.path.abspath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    parent = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(path.name, mode, dir_fd=parent)
        try:
            return os.open(path.name, _DIR_FLAGS, dir_fd=parent)
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.ENOTDIR):
                raise UnsafePath(_not_a_folder(path, path.name, parent)) from None
            raise
    finally:
        os.close(parent)


def create_new(name: str, mode: int, *, dir_fd: int) -> int:
    """A new file ``name`` in the folder ``dir_fd``, opened for writing: ``O_EXCL`` and
    ``O_NOFOLLOW``, so nothing planted there (a link, a file) is ever written through."""
    return os.open(name, _NEW_FLAGS, mode, dir_fd=dir_fd)


def real_root(root: str | Path) -> Path:
    """``root`` as an absolute path, refused if it is or passes through a symbolic link (the
    folder given must be the folder written into).

    >>> real_root("/")
    PosixPath('/')
    """
    absolute = Path(os.path.abspath(root))
    real = Path(os.path.realpath(absolute))
    if real != absolute:
        raise UnsafePath(
            f"{absolute} is or passes through a symbolic link (it is {real}): give the real path"
        )
    return absolute


def _parts(rel: str | Path) -> list[str]:
    p = PurePosixPath(rel)
    if p.is_absolute() or ".." in p.parts:
        raise UnsafePath(f"{rel} is not a path inside the folder")
    return [x for x in p.parts if x not in ("", ".")]


def fd_path(dir_fd: int, name: str) -> str:
    """A path naming ``name`` in the open directory ``dir_fd`` (for SQLite, which takes paths:
    the folder is the one opened, whatever its path points to now). Linux."""
    return f"/proc/self/fd/{dir_fd}/{name}"


class SafeTree:
    """A folder (``root``) whose paths are walked without following links. ``create`` makes the
    root when it is missing. Use it as a context manager (it holds the root open)."""

    def __init__(self, root: str | Path, *, create: bool = True) -> None:
        self.root = real_root(root)
        if create:
            self.root.mkdir(parents=True, exist_ok=True)
        try:
            self.fd = os.open(self.root, _DIR_FLAGS)
        except OSError as e:
            raise UnsafePath(f"{self.root} is not a folder to write into ({e.strerror})") from None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> SafeTree:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ── checking ──
    def check(self, rel: str | Path) -> None:
        """Refuse ``rel`` if any part of it that exists is a symbolic link (a preflight: nothing
        is written); a missing part is fine (it will be made)."""
        here = self.root
        for name in _parts(rel):
            here = here / name
            try:
                st = os.lstat(here)
            except FileNotFoundError:
                return
            if stat.S_ISLNK(st.st_mode):
                raise UnsafePath(f"{here.relative_to(self.root)} is {describe(here)}, not followed")
            if not stat.S_ISDIR(st.st_mode):
                if here != self.root.joinpath(*_parts(rel)):
                    raise UnsafePath(f"{here.relative_to(self.root)} is {describe(here)}, not a folder")
                return

    # ── folders ──
    @contextlib.contextmanager
    def folder(
        self, rel: str | Path, mode: int | None = None, *, make: bool = True
    ) -> Iterator[int]:
        """An open descriptor of the folder ``rel``: with ``make`` its missing parts are made
        (0755, the last one ``mode``), and ``mode`` is set on the last one when given; without,
        a missing part raises :class:`FileNotFoundError`."""
        fd = os.dup(self.fd)
        try:
            names = _parts(rel)
            for i, name in enumerate(names):
                last = i == len(names) - 1
                if make:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, mode if last and mode is not None else 0o755, dir_fd=fd)
                try:
                    nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError as e:
                    if e.errno in (errno.ELOOP, errno.ENOTDIR):
                        where = "/".join(names[: i + 1])
                        raise UnsafePath(_not_a_folder(where, name, fd)) from None
                    raise
                os.close(fd)
                fd = nxt
                if last and mode is not None and stat.S_IMODE(os.fstat(fd).st_mode) != mode:
                    os.fchmod(fd, mode)
            yield fd
        finally:
            os.close(fd)

    def _split(self, rel: str | Path) -> tuple[str, str]:
        names = _parts(rel)
        if not names:
            raise UnsafePath("a file needs a name")
        return "/".join(names[:-1]), names[-1]

    # ── files ──
    def read(self, rel: str | Path) -> bytes | None:
        """A regular file's bytes, None when there is none; a link or other kind is refused."""
        folder, name = self._split(rel)
        try:
            with self.folder(folder, make=False) as d:
                return self._read_in(d, name, rel)
        except FileNotFoundError:
            return None

    def _read_in(self, d: int, name: str, rel: str | Path) -> bytes | None:
        """``name``'s bytes in the folder ``d`` (None: there is none)."""
        try:
            fd = open_regular(name, dir_fd=d, shown=rel)
        except FileNotFoundError:
            return None
        with os.fdopen(fd, "rb") as f:
            return f.read()

    def write(self, rel: str | Path, data: bytes, mode: int) -> bool:
        """Put ``data`` at ``rel`` with ``mode`` unless it is there already (its mode put right
        then, on the open file); True when written. Atomic: a unique new file in the same
        folder, renamed over the old one."""
        folder, name = self._split(rel)
        with self.folder(folder) as d:
            fd = -1
            with contextlib.suppress(FileNotFoundError):
                fd = open_regular(name, dir_fd=d, shown=rel)
            if fd >= 0:
                with os.fdopen(fd, "rb") as f:
                    if f.read() == data:
                        if stat.S_IMODE(os.fstat(fd).st_mode) != mode:
                            os.fchmod(fd, mode)
                        return False
            self._replace(d, name, data, mode)
            return True

    def _replace(self, d: int, name: str, data: bytes, mode: int) -> None:
        tmp = f".{name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(tmp, _NEW_FLAGS, mode, dir_fd=d)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fchmod(f.fileno(), mode)  # the umask does not decide a key's mode
                os.fsync(f.fileno())
            os.replace(tmp, name, src_dir_fd=d, dst_dir_fd=d)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=d)
            raise
        os.fsync(d)

    def touch(self, rel: str | Path, mode: int) -> bool:
        """Make an empty ``rel`` if there is none (a link there is refused); True if made."""
        if self.read(rel) is not None:
            return False
        folder, name = self._split(rel)
        with self.folder(folder) as d:
            try:
                os.close(os.open(name, _NEW_FLAGS, mode, dir_fd=d))
            except FileExistsError:
                return False
        return True

    def chown(self, rel: str | Path, user: str, group: str) -> bool:
        """Give ``rel`` (a file or folder, never a link's target) to ``user``:``group``;
        False where they do not exist or this process may not."""
        import grp
        import pwd

        try:
            uid, gid = pwd.getpwnam(user).pw_uid, grp.getgrnam(group).gr_gid
        except KeyError:
            return False
        folder, name = self._split(rel)
        with self.folder(folder) as d:
            try:
                fd = os.open(name, _READ_FLAGS, dir_fd=d)  # a file or a folder, not a link
            except OSError as e:
                if e.errno == errno.ELOOP:
                    raise UnsafePath(f"{rel} is {describe(name, dir_fd=d)}, not followed") from None
                raise
            try:
                os.fchown(fd, uid, gid)
            except PermissionError:
                return False
            finally:
                os.close(fd)
        return True

    # ── links of our own ──
    def link(self, rel: str | Path, target: str) -> bool:
        """Make ``rel`` the symbolic link to ``target`` (an enabled unit); a link or file there
        is replaced, never followed. True when made."""
        folder, name = self._split(rel)
        with self.folder(folder) as d:
            try:
                st = os.lstat(name, dir_fd=d)
            except FileNotFoundError:
                st = None
            if st is not None:
                if stat.S_ISLNK(st.st_mode) and os.readlink(name, dir_fd=d) == target:
                    return False
                if stat.S_ISDIR(st.st_mode):
                    raise UnsafePath(f"{rel} is a folder, not a link")
                os.unlink(name, dir_fd=d)
            os.symlink(target, name, dir_fd=d)
        return True

    def unlink(self, rel: str | Path) -> bool:
        """Remove ``rel`` (a file or a link, not followed); False when there was none."""
        folder, name = self._split(rel)
        with self.folder(folder) as d:
            try:
                os.unlink(name, dir_fd=d)
            except FileNotFoundError:
                return False
        return True
