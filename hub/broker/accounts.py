"""Table accounts the hub asks for, applied to Mosquitto's password file by root.

The hub runs as the unprivileged ``mesa`` user and must not write ``/etc/mosquitto`` nor signal
the broker. When the director adopts a table, the hub's enrolment desk leaves the new account
(its username and the password's hash, never the password) in a queue folder it owns
(``/var/lib/mesa/accounts``); ``mesa-accounts.path`` sees the folder is not empty and starts
``mesa-accounts.service`` (root, one shot), which runs ``mesa apply-accounts``: each queued
account is checked (a table id, never one of the broker's own ``mesa*`` accounts; a Mosquitto
hash), written into the password file, the file is removed, and the broker reloads once.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> queued = queue_account(d / "queue", "7", "s3cret")
>>> apply_queued(d / "queue", d / "mesa.passwd")
(['7'], [])
>>> (d / "mesa.passwd").read_text().startswith("7:$7$"), queued.exists()
(True, False)
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

from mesa.hub.broker.mosquitto import BrokerError, hash_password, set_password_hash
from mesa.protocol import ProtocolError, check_table_id

log = logging.getLogger(__name__)

DEFAULT_QUEUE = Path("/var/lib/mesa/accounts")
MAX_FILE_BYTES = 4096


def queue_account(queue: Path, username: str, password: str) -> Path:
    """Leave ``username``'s new account for ``mesa apply-accounts``; returns the queued file."""
    check_table_id(username)
    queue.mkdir(parents=True, exist_ok=True)
    path = queue / f"{username}.json"
    tmp = queue / f".{username}.tmp"  # not *.json: the helper never reads half a file
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o640)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"username": username, "hash": hash_password(password)}, f)
    tmp.replace(path)
    return path


def wait_applied(path: Path, timeout: float) -> bool:
    """True once ``mesa apply-accounts`` took the queued file (it removes it)."""
    deadline = time.monotonic() + timeout
    while path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def apply_queued(queue: Path, passwd_file: Path) -> tuple[list[str], list[str]]:
    """Write every queued account into ``passwd_file``; returns (applied, refused) usernames.
    Each file is removed once handled: a refused one is logged, never retried."""
    applied: list[str] = []
    refused: list[str] = []
    if not queue.is_dir():
        return applied, refused
    for path in sorted(queue.glob("*.json")):
        try:
            if path.is_symlink() or path.stat().st_size > MAX_FILE_BYTES:
                raise ValueError("not a small regular file")
            data = json.loads(path.read_text(encoding="utf-8"))
            username = check_table_id(data["username"])
            if path.name != f"{username}.json":
                raise ValueError("file name differs from its username")
            hashed = data["hash"]
            if not isinstance(hashed, str):
                raise ValueError("hash must be text")
            set_password_hash(passwd_file, username, hashed)
            applied.append(username)
        except (OSError, ValueError, KeyError, TypeError, ProtocolError, BrokerError) as e:
            log.warning("apply-accounts: %s refused: %s", path.name, e)
            refused.append(path.stem)
        path.unlink(missing_ok=True)
    return applied, refused
