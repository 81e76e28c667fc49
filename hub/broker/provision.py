"""Provisioning: one command gives a table (or the hub) its broker account and its config.

``mesa provision-table 3 --hub-host hub.local`` adds user ``3`` with a fresh random password to
the Mosquitto password file, writes ``table-3.json`` (table id, hub address, credentials) for
the table's Pi, and makes a running Mosquitto reload its passwords. The broker's pattern ACL
ties every topic of table 3 to the username ``3``, so nothing else needs configuring.

>>> import tempfile, pathlib, json
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> creds = provision_table("3", passwd_file=d / "passwd", hub_host="hub.local", out=d / "t3.json")
>>> json.loads((d / "t3.json").read_text())["hub"]["host"], (d / "passwd").read_text()[:5]
('hub.local', '3:$7$')
"""

from __future__ import annotations

import json
import os
import secrets
import signal
from dataclasses import dataclass
from pathlib import Path

from mesa.hub.broker.mosquitto import set_password
from mesa.protocol import HUB_USERNAME, check_table_id

DEFAULT_PASSWD = Path("/etc/mosquitto/mesa.passwd")
DEFAULT_PID_FILE = Path("/run/mosquitto/mosquitto.pid")


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str
    path: Path | None  # the config file written, if any


def write_private(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    tmp.replace(path)


def provision_table(
    table: str,
    *,
    passwd_file: Path = DEFAULT_PASSWD,
    hub_host: str,
    hub_port: int = 1883,
    out: Path | None = None,
    password: str | None = None,
    tls_ca: str | None = None,
) -> Credentials:
    """Give ``table`` a broker account and write its link config (JSON, mode 0600) to ``out``.

    ``tls_ca`` is the venue CA's certificate (PEM): the link file carries it and the table
    trusts only a broker it certifies (``hub_port`` is then the TLS listener's, 8883)."""
    check_table_id(table)
    password = password or secrets.token_urlsafe(18)
    set_password(passwd_file, table, password)
    if out is not None:
        write_private(out, link_config(table, hub_host, hub_port, password, tls_ca))
    return Credentials(table, password, out)


def link_config(
    table: str, hub_host: str, hub_port: int, password: str, tls_ca: str | None
) -> dict[str, object]:
    """A table's link file (``controller.link.LinkSettings.from_file`` reads it)."""
    hub: dict[str, object] = {
        "host": hub_host,
        "port": hub_port,
        "username": table,
        "password": password,
    }
    if tls_ca is not None:
        hub["tls_ca"] = tls_ca
    return {"table": table, "hub": hub}


def provision_hub(
    *, passwd_file: Path = DEFAULT_PASSWD, out: Path | None = None, password: str | None = None
) -> Credentials:
    """Give the hub its broker account; ``out`` gets ``{"username", "password"}`` (0600)."""
    password = password or secrets.token_urlsafe(24)
    set_password(passwd_file, HUB_USERNAME, password)
    if out is not None:
        write_private(out, {"username": HUB_USERNAME, "password": password})
    return Credentials(HUB_USERNAME, password, out)


def reload_broker(pid_file: Path = DEFAULT_PID_FILE) -> bool:
    """Ask a running Mosquitto to re-read its password file (SIGHUP); False if none runs."""
    try:
        pid = int(pid_file.read_text().strip())
        os.kill(pid, signal.SIGHUP)
    except (OSError, ValueError):
        return False
    return True
