"""``docs/dashboard.md`` documents every setting, page, action and screenshot there is."""

from __future__ import annotations

import re
from pathlib import Path

from mesa.hub.settings import SETTINGS, HubSettings
from mesa.hub.web.games.backgammon import ACTIONS
from mesa.hub.web.games.domino import domino_actions
from mesa.hub.web.http.paths import EXPORTS, ROUTE_PATHS

# The dashboard's and the desk's settings: the hub process's list, those read from MESA_WEB_*.
WEB_SETTINGS = tuple(s for s in SETTINGS if s.env.startswith("MESA_WEB_"))

ROOT = Path(__file__).resolve().parents[3]
DOC = (ROOT / "docs" / "dashboard.md").read_text(encoding="utf-8")


def _settings_table() -> dict[str, tuple[str, str]]:
    rows = {}
    for line in DOC.splitlines():
        m = re.match(r"\| `(\w+)` \| `(MESA_WEB_\w+)` \| (.+?) \|", line)
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3))
    return rows


def test_every_setting_is_documented_with_its_variable_and_default() -> None:
    rows = _settings_table()
    assert set(rows) == {s.name for s in WEB_SETTINGS}
    defaults = {s.name: getattr(HubSettings(), s.name) for s in WEB_SETTINGS}
    for s in WEB_SETTINGS:
        env, default = rows[s.name]
        assert env == s.env, s.name
        value = defaults[s.name]
        if value is None:
            assert default == "—", s.name
        elif isinstance(value, bool) or (isinstance(value, float) and value.is_integer()):
            assert default == f"`{int(value)}`", s.name
        else:
            assert default == f"`{value}`", s.name
        assert s.default == value, s.name


def test_every_page_action_and_export_is_documented() -> None:
    for name, path in ROUTE_PATHS.items():
        if name in ("logout", "action", "events", "home"):
            continue
        assert f"`{path}" in DOC, path
    for name in ACTIONS:
        assert f"`{name}`" in DOC, name
    for name in domino_actions(None):
        assert f"`{name}`" in DOC, name
    for name, _label, _media in EXPORTS:
        assert f"/exports/{name}" in DOC, name


def test_every_screenshot_is_linked_and_every_link_exists() -> None:
    linked = set(re.findall(r"\(screenshots/([^)]+)\)", DOC))
    assert len(linked) >= 15
    shots = ROOT / "docs" / "screenshots"
    on_disk = {p.name for p in shots.iterdir()} if shots.exists() else set()
    # The browser tests (which run before this module) write them all.
    assert on_disk == linked, (on_disk ^ linked)
    assert {"draw-A4.pdf", "draw-A3.pdf", "demo-live.png"} <= linked
