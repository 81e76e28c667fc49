"""The hub process's one list of settings: defaults, a JSON file, the environment, the command
line, in that order; every value checked at the boundary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mesa.errors import ConfigError
from mesa.hub.settings import SETTINGS, HubSettings


def test_one_list_each_with_name_default_help_and_unique_names() -> None:
    names = [s.name for s in SETTINGS]
    assert len(names) == len(set(names))
    envs = [s.env for s in SETTINGS]
    assert len(envs) == len(set(envs))
    for s in SETTINGS:
        assert s.help and (s.default is None or isinstance(s.default, s.type)), s.name
    assert HubSettings().as_dict() == {s.name: s.default for s in SETTINGS}


def test_sources_in_order_json_then_environment_then_command_line(tmp_path: Path) -> None:
    file = tmp_path / "hub.json"
    file.write_text(json.dumps({"port": 9000, "language": "en", "db": "a.sqlite3", "web": False}))
    s = HubSettings.from_env(
        {"MESA_WEB_PORT": "9100", "MESA_HUB_DB": "b.sqlite3"}, json_file=file, db=Path("c.sqlite3")
    )
    assert (s.port, s.language, s.db, s.web) == (9100, "en", Path("c.sqlite3"), False)
    assert s.replace(port=1).port == 1 and s.port == 9100
    with pytest.raises(AttributeError):
        s.port = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("env", "why"),
    [
        ({"MESA_WEB_PORT": "ochenta"}, "port"),
        ({"MESA_WEB_LANGUAGE": "fr"}, "language"),
        ({"MESA_WEB_TIME_SCALE": "0"}, "time_scale"),
        ({"MESA_WEB_TIMED_MATCHES": "some"}, "timed_matches"),
        # A typo in a boolean is refused, not read as false.
        ({"MESA_HUB_EMBEDDED_BROKER": "ture"}, "embedded_broker"),
        ({"MESA_HUB_EMBEDDED_BROKER": "si"}, "embedded_broker"),
    ],
)
def test_bad_values_are_refused_with_the_settings_name(env: dict[str, str], why: str) -> None:
    with pytest.raises(ConfigError, match=why):
        HubSettings.from_env(env)


def test_a_settings_file_is_checked(tmp_path: Path) -> None:
    file = tmp_path / "hub.json"
    for text, why in (
        ("[1, 2]", "one JSON object"),
        ('{"prot": 1}', "unknown settings: prot"),
        ('{"port": "x"}', "port"),
        ('{"port": true}', "port"),
        ("{", "not a settings file"),
    ):
        file.write_text(text)
        with pytest.raises(ConfigError, match=why):
            HubSettings.from_env({}, json_file=file)
    with pytest.raises(ConfigError, match="unknown settings"):
        HubSettings(prot=1)


@pytest.mark.parametrize(("raw", "value"), [("1", True), ("TRUE", True), (" yes ", True),
                                            ("on", True), ("0", False), ("false", False),
                                            ("No", False), ("off", False), ("", False)])
def test_boolean_words(raw: str, value: bool) -> None:
    assert HubSettings.from_env({"MESA_HUB_EMBEDDED_BROKER": raw}).embedded_broker is value
