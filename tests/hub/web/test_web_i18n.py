"""Every string in both languages; every key a template or a module uses exists; number formats."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mesa.games.backgammon.inputs import PAUSE_REASONS
from mesa.games.backgammon.transitions import STATES
from mesa.hub.web import i18n as web_i18n
from mesa.hub.web.i18n import (
    LANGUAGES,
    STRINGS,
    Translator,
    format_clock,
    format_number,
    format_points,
    pick_language,
)
from mesa.hub.web.i18n import (
    text as t,
)
from mesa.words import forms

HUB = Path(web_i18n.__file__).parent
TEMPLATES = HUB / "templates"


def test_every_string_exists_in_every_language_with_the_same_placeholders() -> None:
    for key, entry in STRINGS.items():
        assert set(entry) == set(LANGUAGES), key
        fields = {lang: {f for text in forms(e) for f in re.findall(r"{(\w+)}", text)}
                  for lang, e in entry.items()}
        assert fields["es"] == fields["en"], key
        assert all(text.strip() for e in entry.values() for text in forms(e)), key


def _literal_keys() -> set[str]:
    keys: set[str] = set()
    # every module of the dashboard, its subpackages (http/, pages/, actions/, games/) too
    for path in [*TEMPLATES.rglob("*.html"), *HUB.rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        # Whole keys only: ``_('state.' ~ c.state)`` builds keys checked by the test below.
        for fn in ("_", "tr", "t"):
            keys |= set(
                # ``t(lang, "key")`` in the modules, ``_("key")`` in the templates
                re.findall(rf"""\b{fn}\(\s*(?:[\w.]+,\s*)?['"]([a-z_]+\.[a-z_.0-9]*[a-z_0-9])['"]\s*[,)]""",
                           text)
            )
    return keys


def test_every_key_used_by_a_template_or_a_module_is_defined() -> None:
    used = _literal_keys()
    assert len(used) > 100
    missing = sorted(k for k in used if k not in STRINGS)
    assert not missing


@pytest.mark.parametrize(
    "prefix, values",
    [
        (
            "state.",
            STATES,
        ),
        (
            "reason.",
            PAUSE_REASONS,
        ),
        ("how.", ("score", "timeout", "lateness", "penalty", "forfeit", "director")),
        ("call.", ("players", "timeout", "disputed_result")),
        ("kind.", ("0", "1", "2", "3")),
        ("badge.clock_next_", ("on", "off")),
    ],
)
def test_keys_built_from_table_values_exist(prefix: str, values: tuple[str, ...]) -> None:
    from mesa.games.backgammon.inputs import PAUSE_REASONS
    from mesa.games.backgammon.transitions import STATES

    if prefix == "state.":
        values = STATES
    if prefix == "reason.":
        values = PAUSE_REASONS
    for v in values:
        assert prefix + v in STRINGS


def test_every_action_has_a_name_in_both_languages() -> None:
    from mesa.hub.web.games.backgammon import ACTIONS

    for name in ACTIONS:
        assert f"act.{name}" in STRINGS


def test_spanish_is_the_default_and_english_is_selectable() -> None:
    assert pick_language(None, None) == "es"
    assert pick_language("en") == "en"
    assert pick_language("fr", None) == "es"
    assert Translator("xx").lang == "es"
    assert t("es", "nav.draw") == "Cuadro" and t("en", "nav.draw") == "Draw"
    assert t("es", "no.such.key") == "no.such.key"
    assert t("fr", "nav.draw") == "Cuadro"


def test_numbers_use_a_decimal_comma_in_spanish() -> None:
    assert format_points(230, "es") == "2,30"
    assert format_points(230, "en") == "2.30"
    assert format_points(8, "es") == "0,08"
    assert format_number(1534.5, "es", 1) == "1.534,5"
    assert format_number(1534.5, "en", 1) == "1,534.5"
    assert format_points(123456, "es") == "1.234,56"  # grouped past a thousand, as the engine's
    assert format_points(123456, "en") == "1,234.56"


def test_clocks_round_down_like_the_table() -> None:
    assert format_clock(0.2) == "0:00"
    assert format_clock(59.5) == "0:59"
    assert format_clock(0) == "0:00"
    assert format_clock(125) == "2:05"
    assert format_clock(None) == "—"
