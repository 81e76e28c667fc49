"""The hub process's settings: one list, each entry a name, a default and a help line.

The shape is Datasette's: :data:`SETTINGS` is the only place a setting is declared; a
:class:`HubSettings` holds one value per entry, read from the defaults, then a JSON file of
``{name: value}``, then the ``MESA_HUB_*`` / ``MESA_WEB_*`` environment, then the command line.
``docs/broker.md`` (ingest and broker) and ``docs/dashboard.md`` (dashboard and tournament desk)
document every entry; tests keep them in step.

>>> s = HubSettings.from_env({"MESA_HUB_BROKER_PORT": "1884", "MESA_HUB_DB": "/tmp/h.sqlite3"})
>>> s.broker_port, str(s.db), s.username, s.port
(1884, '/tmp/h.sqlite3', 'mesa-hub', 8080)
>>> s.replace(language="en").language
'en'
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mesa.errors import ConfigError
from mesa.protocol import HUB_USERNAME
from mesa.words import LANGUAGES  # the dashboard's languages: the one list


@dataclass(frozen=True)
class Setting:
    """One setting: ``name``, ``default``, ``help``; its environment variable; its value type
    (from the default unless the default is None); allowed values; a check of the value."""

    name: str
    default: Any
    help: str
    env: str
    kind: type = str
    choices: tuple[Any, ...] = ()
    check: Callable[[Any], bool] | None = None

    @property
    def type(self) -> type:
        return self.kind if self.default is None else type(self.default)


def _hub(name: str, default: Any, help: str, **kw: Any) -> Setting:
    return Setting(name, default, help, "MESA_HUB_" + name.upper(), **kw)


def _web(name: str, default: Any, help: str, **kw: Any) -> Setting:
    return Setting(name, default, help, "MESA_WEB_" + name.upper(), **kw)


SETTINGS: tuple[Setting, ...] = (
    # ── ingest and broker (docs/broker.md) ──
    _hub("db", Path("var/hub.sqlite3"), "the SQLite event store (WAL, synchronous=FULL)"),
    _hub("broker_host", "127.0.0.1", "the MQTT broker's address"),
    _hub("broker_port", 1883, "the MQTT broker's port"),
    _hub("username", HUB_USERNAME, "the hub's broker username"),
    _hub("password", None, "the hub's broker password"),
    _hub(
        "credentials",
        None,
        "a JSON file with username and password (written by `mesa provision-hub`)",
        kind=Path,
    ),
    _hub(
        "embedded_broker",
        False,
        "1: start a private Mosquitto on loopback instead of using a running broker",
    ),
    _hub("broker_dir", Path("var/broker"), "the private broker's config, passwords and data"),
    _hub("keepalive", 15, "MQTT keepalive in seconds"),
    _hub("batch_max", 5000, "most messages committed in one transaction"),
    _hub("web", True, "0: no dashboard (ingest and tournament desk only)"),
    _hub("tls_cert", None, "the dashboard's HTTPS certificate (PEM; the venue CA's)", kind=Path),
    _hub("tls_key", None, "the key of tls_cert (both set: the dashboard is HTTPS)", kind=Path),
    _hub(
        "tls_dir",
        None,
        "the venue CA and the broker's certificate (ca.pem, server.pem): set, the hub renews "
        "the broker's and the dashboard's certificates at its start and daily",
        kind=Path,
    ),
    _hub(
        "enrolment_credentials",
        None,
        "the enrolment desk's JSON (`mesa install hub` writes /etc/mesa/enrolment.json): "
        "set, the hub lists new tables and the director adopts them; unset, no enrolment desk",
        kind=Path,
    ),
    _hub("backup_dir", Path("var/backups"), "where `mesa backup` and the after-tournament backup go"),
    _hub("backup_keep", 30, "how many backups are kept, nightly and after-tournament together (the newest)"),
    # ── dashboard and tournament desk (docs/dashboard.md) ──
    _web("host", "127.0.0.1", "the address the dashboard listens on"),
    _web("port", 8080, "the dashboard's HTTP port"),
    _web("director", "director", "the director's user name"),
    _web(
        "director_password",
        None,
        "sets the director's password at start (stored as an scrypt hash); "
        "or use `mesa director-password`",
    ),
    _web("secure_cookies", False, "1: cookies only over HTTPS"),
    _web("session_hours", 12.0, "how long a director stays logged in"),
    _web(
        "language",
        "es",
        "default language of pages and exports (es or en)",
        choices=LANGUAGES,
    ),
    _web(
        "time_scale",
        1.0,
        "how many times faster than real time the tables' clocks run (the demo's acceleration)",
        check=lambda v: v > 0,
    ),
    _web("low_time", 60.0, "reserve in seconds below which a clock is flagged"),
    _web(
        "timed_matches",
        "all",
        "all: every match gets a clock; mandatory: only where it is mandatory (from the "
        "quarterfinals, HGV 3.1, and any match the director imposed it on)",
        choices=("all", "mandatory"),
    ),
    _web("auto_assign", True, "1: hand ready matches to free tables"),
    _web(
        "scheduler",
        "critical",
        "critical: the ready match that holds up most of the evening first; calendar: each "
        "group's calendar order, knockout before consolation",
        choices=("critical", "calendar"),
    ),
    _web(
        "publish_dir",
        None,
        "closing a tournament writes the static HTML results here (the club's website)",
        kind=Path,
    ),
    _web("command_wait", 5.0, "seconds a director's table command waits for the table's answer"),
)
BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}
DEFAULTS: dict[str, Any] = {s.name: s.default for s in SETTINGS}


class HubSettings:
    """One value per entry of :data:`SETTINGS`, read-only: ``settings.db``, ``settings.port``.

    ``HubSettings(db=...)`` starts from the defaults; unknown names and bad values are refused.
    """

    def __init__(self, **values: Any) -> None:
        unknown = set(values) - set(BY_NAME)
        if unknown:
            raise ConfigError(f"unknown settings: {', '.join(sorted(unknown))}")
        merged = {**DEFAULTS, **values}
        for name, value in merged.items():
            s = BY_NAME[name]
            if value is not None and not isinstance(value, s.type):
                value = _convert(s, value)
            if s.choices and value not in s.choices:
                raise ConfigError(f"{name} must be one of {s.choices}, not {value!r}")
            if value is not None and s.check is not None and not s.check(value):
                raise ConfigError(f"{name}: {value!r} is out of range")
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:  # only reached for names that are not settings
        raise AttributeError(name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("settings are read-only: use replace()")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HubSettings) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash(tuple(sorted((k, str(v)) for k, v in vars(self).items())))

    def __repr__(self) -> str:
        changed = {k: v for k, v in vars(self).items() if v != DEFAULTS[k]}
        return f"HubSettings({', '.join(f'{k}={v!r}' for k, v in changed.items())})"

    def get(self, name: str) -> Any:
        return vars(self)[name]

    def as_dict(self) -> dict[str, Any]:
        return dict(vars(self))

    def replace(self, **changes: Any) -> HubSettings:
        return HubSettings(**{**vars(self), **changes})

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        json_file: Path | None = None,
        **overrides: Any,
    ) -> HubSettings:
        """Defaults, then ``json_file``, then the environment, then ``overrides`` (the command
        line; None means "not given")."""
        values: dict[str, Any] = {}
        if json_file is not None:
            values.update(values_from_json(json_file))
        values.update(values_from_env(SETTINGS, os.environ if env is None else env))
        values.update({k: v for k, v in overrides.items() if v is not None})
        settings = cls(**values)
        if settings.credentials is not None and settings.password is None:
            settings = settings.with_credentials(settings.credentials)
        return settings

    def with_credentials(self, path: Path) -> HubSettings:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            return self.replace(username=str(data["username"]), password=str(data["password"]))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ConfigError(f"{path}: not a credentials file ({e})") from None


def values_from_env(settings: tuple[Setting, ...], env: Mapping[str, str]) -> dict[str, Any]:
    """The values of ``settings`` found in ``env``, converted to each setting's type.

    >>> values_from_env(SETTINGS, {"MESA_WEB_PORT": "9000", "MESA_WEB_AUTO_ASSIGN": "no"})
    {'port': 9000, 'auto_assign': False}
    """
    return {s.name: _convert(s, env[s.env]) for s in settings if s.env in env}


def values_from_json(path: Path) -> dict[str, Any]:
    """A JSON object of ``{setting name: value}`` (the values are checked like any other)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ConfigError(f"{path}: not a settings file ({e})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a settings file holds one JSON object")
    unknown = set(data) - set(BY_NAME)
    if unknown:
        raise ConfigError(f"{path}: unknown settings: {', '.join(sorted(unknown))}")
    return {name: _convert(BY_NAME[name], value) for name, value in data.items()}


TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})


def _convert(s: Setting, raw: Any) -> Any:
    kind = s.type
    try:
        if raw is None:
            return None
        if kind is bool:
            if isinstance(raw, bool):
                return raw
            # A typo ("ture") must not silently read as false: only these words are booleans.
            word = str(raw).strip().lower()
            if word in TRUE_WORDS:
                return True
            if word in FALSE_WORDS:
                return False
            raise ValueError
        if kind is int:
            if isinstance(raw, bool):
                raise ValueError
            return int(raw)
        if kind is float:
            if isinstance(raw, bool):
                raise ValueError
            return float(raw)
        if issubclass(kind, Path):
            return Path(raw)
        if not isinstance(raw, str):
            raise ValueError
        return raw
    except (ValueError, TypeError):
        raise ConfigError(f"{s.name}: {raw!r} is not a valid value") from None
