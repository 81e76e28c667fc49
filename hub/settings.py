"""The hub's settings: one list, each with its environment variable, default and meaning.

``docs/broker.md`` documents every entry of :data:`SETTINGS`; a test keeps the two in step.

>>> s = HubSettings.from_env({"MESA_HUB_BROKER_PORT": "1884", "MESA_HUB_DB": "/tmp/h.sqlite3"})
>>> s.broker_port, str(s.db), s.username
(1884, '/tmp/h.sqlite3', 'mesa-hub')
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mesa.errors import ConfigError
from mesa.protocol import HUB_USERNAME


@dataclass(frozen=True)
class Setting:
    name: str
    env: str
    doc: str


SETTINGS: tuple[Setting, ...] = (
    Setting("db", "MESA_HUB_DB", "the SQLite event store (WAL, synchronous=FULL)"),
    Setting("broker_host", "MESA_HUB_BROKER_HOST", "the MQTT broker's address"),
    Setting("broker_port", "MESA_HUB_BROKER_PORT", "the MQTT broker's port"),
    Setting("username", "MESA_HUB_USERNAME", "the hub's broker username"),
    Setting("password", "MESA_HUB_PASSWORD", "the hub's broker password"),
    Setting(
        "credentials",
        "MESA_HUB_CREDENTIALS",
        "a JSON file with username and password (written by `mesa provision-hub`)",
    ),
    Setting(
        "embedded_broker",
        "MESA_HUB_EMBEDDED_BROKER",
        "1: start a private Mosquitto on loopback instead of using a running broker",
    ),
    Setting("broker_dir", "MESA_HUB_BROKER_DIR", "the private broker's config, passwords and data"),
    Setting("keepalive", "MESA_HUB_KEEPALIVE", "MQTT keepalive in seconds"),
    Setting("batch_max", "MESA_HUB_BATCH_MAX", "most messages committed in one transaction"),
    Setting("tls_cert", "MESA_HUB_TLS_CERT", "the dashboard's HTTPS certificate (PEM; the venue CA's)"),
    Setting("tls_key", "MESA_HUB_TLS_KEY", "the key of tls_cert (both set: the dashboard is HTTPS)"),
    Setting("backup_dir", "MESA_HUB_BACKUP_DIR", "where `mesa backup` and the after-tournament backup go"),
    Setting("backup_keep", "MESA_HUB_BACKUP_KEEP", "how many backups are kept (the newest)"),
)


@dataclass(frozen=True)
class HubSettings:
    db: Path = Path("var/hub.sqlite3")
    broker_host: str = "127.0.0.1"
    broker_port: int = 1883
    username: str = HUB_USERNAME
    password: str | None = None
    credentials: Path | None = None
    embedded_broker: bool = False
    broker_dir: Path = Path("var/broker")
    keepalive: int = 15
    batch_max: int = 5000
    tls_cert: Path | None = None
    tls_key: Path | None = None
    backup_dir: Path = Path("var/backups")
    backup_keep: int = 14

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> HubSettings:
        """Defaults, then ``MESA_HUB_*`` variables, then ``overrides`` (command-line options)."""
        values = values_from_env(cls, SETTINGS, os.environ if env is None else env)
        values.update({k: v for k, v in overrides.items() if v is not None})
        settings = cls(**values)
        if settings.credentials is not None and settings.password is None:
            settings = settings.with_credentials(settings.credentials)
        return settings

    def with_credentials(self, path: Path) -> HubSettings:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            return dataclasses.replace(
                self, username=str(data["username"]), password=str(data["password"])
            )
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ConfigError(f"{path}: not a credentials file ({e})") from None


def values_from_env(
    cls: type, settings: tuple[Setting, ...], env: Mapping[str, str]
) -> dict[str, Any]:
    """The values of ``settings`` found in ``env``, converted to the types of ``cls``'s fields."""
    types = {f.name: str(f.type) for f in dataclasses.fields(cls)}
    return {s.name: _convert(s.name, types[s.name], env[s.env]) for s in settings if s.env in env}


def _convert(name: str, type_text: str, raw: str) -> Any:
    try:
        if "bool" in type_text:
            return raw.strip().lower() in ("1", "true", "yes", "on")
        if "int" in type_text:
            return int(raw)
        if "float" in type_text:
            return float(raw)
        if "Path" in type_text:
            return Path(raw)
        return raw
    except ValueError:
        raise ConfigError(f"{name}: {raw!r} is not a valid value") from None
