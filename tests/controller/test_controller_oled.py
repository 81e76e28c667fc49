"""The OLED renderer: golden images against docs/oled, the words, the font, both languages."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from luma.core.device import dummy
from PIL import Image, ImageChops

from mesa.controller.font import TextFont, _columns
from mesa.controller.i18n import STRINGS, placeholders, text
from mesa.controller.oled import SIZES, compose, format_clock, render
from mesa.controller.oled_scenes import scenes
from mesa.controller.runtime import TableStatus
from mesa.table.machine import Table
from mesa.table.transitions import STATES
from mesa.table.view import table_view

REFS = Path(__file__).resolve().parents[2] / "docs" / "oled"
SCENES = scenes()
CASES = [(s, size) for s in SCENES for size in s.sizes]


@pytest.mark.parametrize(
    ("scene", "size"), CASES, ids=[f"{s.name}-{s.language}-{w}x{h}" for s, (w, h) in CASES]
)
def test_golden_image(scene, size) -> None:  # type: ignore[no-untyped-def]
    device = dummy(width=size[0], height=size[1], mode="1")
    device.display(render(scene.view, scene.status, scene.now, size))
    ref_path = REFS / scene.filename(size)
    assert ref_path.exists(), f"missing reference {ref_path}: run `mesa oled-refs`"
    with Image.open(ref_path) as ref:
        reference = ref.convert("1")
    diff = ImageChops.difference(reference.convert("L"), device.image.convert("L"))
    assert diff.getbbox() is None, f"{ref_path.name} differs in {diff.getbbox()}"


def test_the_reference_index_lists_every_image() -> None:
    index = (REFS / "README.md").read_text(encoding="utf-8")
    for scene, size in CASES:
        assert scene.filename(size) in index


def test_rendering_is_pure() -> None:
    s = SCENES[4]
    a = render(s.view, s.status, s.now, (128, 64)).tobytes()
    b = render(s.view, s.status, s.now, (128, 64)).tobytes()
    assert a == b


def test_every_state_renders_at_every_size_in_both_languages() -> None:
    seen = {s.view.state for s in SCENES}
    assert seen >= set(STATES)
    for s in SCENES:
        for size in SIZES:
            img = render(s.view, s.status, s.now, size)
            assert img.size == size and img.getbbox() is not None


def test_the_screen_says_what_the_issue_asks_for() -> None:
    by = {(s.name, s.language): s for s in SCENES}
    run = compose(by["running", "es"].view, by["running", "es"].status, by["running", "es"].now)
    assert run.names == ("Ana", "Beto") and run.highlight == "a"
    assert run.clocks is not None and run.score == "0-0 a 5"
    tenths = by["tenths", "en"]
    c = compose(tenths.view, tenths.status, tenths.now)
    assert c.clocks is not None and "." in c.clocks[1]
    cube = compose(by["cube_owned", "en"].view, TableStatus(), by["cube_owned", "en"].now)
    assert (cube.cube, cube.cube_side) == ("2", "a")
    craw = compose(by["crawford", "es"].view, TableStatus(), by["crawford", "es"].now)
    assert craw.tag == "CRAWFORD"
    paused = compose(by["paused", "es"].view, TableStatus(), 0)
    assert paused.banner.startswith("PAUSA") and paused.lines[0] == "> Abandono"
    claim = compose(by["result_claim", "en"].view, TableStatus(), 0)
    assert claim.banner == "Ana wins +4?" and claim.lines[0] == "Beto: hold=yes"
    flag = compose(by["timeout", "es"].view, TableStatus(), 0)
    assert flag.banner == "¡BANDERA! Beto"
    over = compose(by["match_over_timeout", "en"].view, TableStatus(), 0)
    assert over.big == "Ana wins" and over.lines == ("on time",)
    restored = compose(by["restored", "es"].view, by["restored", "es"].status, 0)
    assert restored.banner == "RESTAURADO"


def test_a_restore_with_journal_problems_says_so() -> None:
    s = next(x for x in SCENES if x.name == "restored" and x.language == "en")
    status = replace(s.status, restored_problems=("a", "b"))
    assert compose(s.view, status, s.now).banner == "RESTORED (2 ERR)"


def test_clock_formats() -> None:
    assert [format_clock(x) for x in (0.0, 0.05, 9.99, 10.0, 61.5, 600.0, 3600.0)] == [
        "0.0",
        "0.0",
        "9.9",
        "0:10",
        "1:01",
        "10:00",
        "1:00:00",
    ]


def test_long_lines_scroll_with_time() -> None:
    t = Table()
    t.apply(
        "assign",
        {
            "match_id": "G1-1",
            "players": {"a": "Maximiliano Fernández-Castillo", "b": "Beto"},
            "length": 5,
            "clock": {"preset": "singles"},
        },
        now=0.0,
    )
    t.apply("checkin", {"side": "a"}, now=0.0)
    t.apply("checkin", {"side": "b"}, now=0.0)
    t.apply("press", {"side": "b"}, now=0.0)
    t.apply("double", {"side": "a"}, now=1.0)
    v = table_view(t, 2.0)
    a = render(v, TableStatus(), 2.0).tobytes()
    b = render(v, TableStatus(), 2.5).tobytes()
    assert a != b  # "Maximiliano ... dobla a 2" is wider than the screen: it scrolls


def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    es, en = STRINGS["es"], STRINGS["en"]
    assert set(es) == set(en)
    for key in es:
        assert placeholders(es[key]) == placeholders(en[key]), key


def test_every_character_the_table_says_has_a_glyph() -> None:
    question = _columns("?")
    for lang in STRINGS.values():
        for template in lang.values():
            for ch in template:
                if ch in "?{}\n" or ch == " ":
                    continue
                assert _columns(ch) != question, f"no glyph for {ch!r} in {template!r}"
    font = TextFont()
    assert font.width("ñ") == font.width("n") and font.width("¿") > 0
    assert text("es", "over.winner", name="Óscar") == "Gana Óscar"
