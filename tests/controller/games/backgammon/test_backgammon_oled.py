"""The OLED renderer: golden images against docs/oled, the words, the font, both languages."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from mesa.controller.font import CondensedFont, TextFont, _columns, _tiny_columns
from mesa.controller.games.backgammon.oled import SIZES, compose, format_clock, render
from mesa.controller.games.backgammon.scenes import scenes
from mesa.controller.i18n import STRINGS, placeholders, text
from mesa.controller.runtime import TableStatus
from mesa.games.backgammon.machine import Table
from mesa.games.backgammon.transitions import STATES
from mesa.games.backgammon.view import table_view
from support.oled_golden import case_ids, cases, check_golden_image

REFS = Path(__file__).resolve().parents[4] / "docs" / "oled"
SCENES = scenes()
CASES = cases(SCENES)
PLAIN_STATUS = TableStatus(table_id="7")


@pytest.mark.parametrize(("scene", "size"), CASES, ids=case_ids(CASES))
def test_golden_image(scene, size) -> None:  # type: ignore[no-untyped-def]
    check_golden_image(render, REFS, scene, size, "mesa oled-refs")


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
    assert run.info == ("Juego 1 · partido a 5", "Cubo en el centro")
    cube = compose(by["cube_owned", "en"].view, TableStatus(), by["cube_owned", "en"].now)
    assert (cube.cube, cube.cube_side) == ("2", "a") and "Cube on 2, Ana's" in cube.info
    craw = compose(by["crawford", "es"].view, TableStatus(), by["crawford", "es"].now)
    assert craw.tag == "CRAWFORD" and "Nadie puede doblar" in craw.info
    post = compose(by["post_crawford", "en"].view, TableStatus(), 0)
    assert post.tag == "POST-CRAWFORD" and "Cube in the centre" in post.info
    dmp = compose(by["dmp", "es"].view, TableStatus(), 0)
    assert dmp.tag == "DMP" and dmp.score == "4-4 a 5"
    paused = compose(by["paused", "es"].view, TableStatus(), 0)
    assert paused.banner.startswith("PAUSA") and paused.pin == "> Abandono"
    claim = compose(by["result_claim", "en"].view, TableStatus(), 0)
    assert claim.banner == claim.pin == "Ana wins +4?" and claim.lines[0] == "Beto: hold=yes"
    offer = compose(by["cube_offered", "es"].view, TableStatus(), 0)
    assert offer.pin == "Beto dobla a 2"
    between = compose(by["between_games", "es"].view, TableStatus(), 0)
    assert between.lines[0] == "Juego 1" and between.pin == "Pulsa quien saque menos"
    refused = by["refused_double", "es"]
    assert compose(refused.view, refused.status, refused.now).pin == (
        "No se puede doblar\nen el Crawford"
    )
    held = by["match_over_held", "es"]
    over = compose(held.view, held.status, held.now)
    assert held.view.state == "assigned" and over.layout == "over"
    assert over.big == "Gana Beto" and over.score == "3-5" and over.names == ("Ana", "Beto")
    assert over.lines[-1] == "Siguiente: G3-5 · pulsa"
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


def test_a_clock_ordered_for_the_next_game_is_on_the_screen() -> None:
    by = {(s.name, s.language): s for s in SCENES}
    for lang, words in (("es", "Reloj desde el juego 2"), ("en", "Clock from game 2")):
        s = by["clock_coming", lang]
        screen = compose(s.view, s.status, s.now)
        assert screen.clocks is None and screen.title == words  # where the clocks will be
    s = by["running", "en"]
    off = compose(replace(s.view, clock_next="off"), s.status, s.now)
    assert off.clocks is not None and off.info[0] == "No clock from game 2"
    untimed = replace(by["clock_coming", "es"].view, clock_next="off")
    assert compose(untimed, PLAIN_STATUS, 0).title == "Sin reloj"


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


def _table_with(players: dict[str, str]) -> Table:
    t = Table()
    t.apply(
        "assign",
        {"match_id": "G1-1", "players": players, "length": 5, "clock": {"preset": "singles"}},
        now=0.0,
    )
    t.apply("checkin", {"side": "a"}, now=0.0)
    t.apply("checkin", {"side": "b"}, now=0.0)
    t.apply("press", {"side": "b"}, now=0.0)
    t.apply("double", {"side": "a"}, now=1.0)
    return t


def test_nothing_scrolls_and_long_lines_are_condensed_then_cut() -> None:
    v = table_view(_table_with({"a": "Maximiliano Fernández-Castillo", "b": "Beto"}), 2.0)
    for size in SIZES:
        a = render(v, TableStatus(), 2.0, size).tobytes()
        b = render(v, TableStatus(), 2.5, size).tobytes()  # within one 2 s turn
        assert a == b, size  # no marquee: a line that moves cannot be read at a glance
    assert compose(v, TableStatus(), 2.0).pin == "Maximiliano F. dobla a 2"


def test_names_up_to_14_characters_fit_whole_on_128x64() -> None:
    font, small = TextFont(), CondensedFont()
    for name in ("Rafael Urdaneta", "Mª José Lozano", "Bartolomé Ruiz", "WWWWWWWWWWWWWW"[:14]):
        assert small.width(name[:14]) <= 128 // 2 - 2 or font.width(name[:14]) <= 62
    scene = next(s for s in SCENES if s.name == "long_names" and s.language == "es")
    img = render(scene.view, scene.status, scene.now, (128, 64))
    # Each name stays inside its half: the name row's lit pixels of a reach past x = 40.
    row = img.crop((0, 0, 64, 8))
    assert row.getbbox() is not None and row.getbbox()[2] > 40  # type: ignore[index]


def test_on_128x32_what_must_be_read_never_leaves_the_screen() -> None:
    for name in ("cube_offered", "result_claim", "paused", "result_menu", "long_claim"):
        for scene in (s for s in SCENES if s.name == name):
            pinned = {
                render(scene.view, scene.status, scene.now + k * 0.7, (128, 32))
                .crop((0, 19, 128, 26))
                .tobytes()
                for k in range(12)
            }
            assert len(pinned) == 1, (name, scene.language)
    # The secondary row does take turns.
    offer = next(s for s in SCENES if s.name == "cube_offered")
    rows = {
        render(offer.view, offer.status, offer.now + k, (128, 32)).crop((0, 26, 128, 32)).tobytes()
        for k in range(0, 8, 2)
    }
    assert len(rows) > 1


def test_the_reference_captions_match_the_images() -> None:
    index = (REFS / "README.md").read_text(encoding="utf-8")
    shown = set(re.findall(r'<img src="([^"]+\.png)"', index))
    on_disk = {p.name for p in REFS.glob("*.png")}
    assert shown == on_disk  # every PNG has its caption, every caption its PNG
    for block in index.split("\n## ")[1:]:
        heading, _, rest = block.partition("\n")
        assert re.match(r"`[a-z_0-9]+` \((es|en)\): \S", heading), heading
        assert "<img" in rest
    assert {s.language for s in SCENES} == {"es", "en"} and {sz for _, sz in CASES} == set(SIZES)


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
    tiny_question = _tiny_columns("?")
    for lang in STRINGS.values():
        for template in lang.values():
            for ch in template:
                if ch in "?{}\n" or ch == " ":
                    continue
                assert _tiny_columns(ch) != tiny_question, f"no condensed glyph for {ch!r}"
    font = TextFont()
    assert font.width("ñ") == font.width("n") and font.width("¿") > 0
    assert _columns("Á") != _columns("A") and "ÁRBITRO" in text("es", "banner.director")
    assert text("es", "over.winner", name="Óscar") == "Gana Óscar"
