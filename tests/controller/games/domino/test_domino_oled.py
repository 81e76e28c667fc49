"""The domino table's screen: golden images against docs/oled/domino, the words, both
languages, every state at every size, and nothing cut off."""

from __future__ import annotations

from pathlib import Path

import pytest

from mesa.controller.font import TextFont
from mesa.controller.games.domino.oled import SIZES, compose, render
from mesa.controller.games.domino.scenes import scenes
from mesa.controller.runtime import TableStatus
from mesa.games.domino.transitions import STATES
from support.oled_golden import case_ids, cases, check_golden_image

REFS = Path(__file__).resolve().parents[4] / "docs" / "oled" / "domino"
SCENES = scenes()
CASES = cases(SCENES)
BY = {(s.name, s.language): s for s in SCENES}


@pytest.mark.parametrize(("scene", "size"), CASES, ids=case_ids(CASES))
def test_golden_image(scene, size) -> None:  # type: ignore[no-untyped-def]
    check_golden_image(render, REFS, scene, size, "mesa oled-refs --game domino")


def test_every_state_renders_at_every_size_in_both_languages() -> None:
    assert {s.view.state for s in SCENES} == set(STATES)
    for language in ("es", "en"):
        assert {s.view.state for s in SCENES if s.language == language} == set(STATES)
    for s in SCENES:
        for size in SIZES:
            img = render(s.view, s.status, s.now, size)
            assert img.size == size and img.getbbox() is not None


def test_rendering_is_pure() -> None:
    s = BY["playing", "es"]
    assert render(s.view, s.status, s.now).tobytes() == render(s.view, s.status, s.now).tobytes()


def test_no_line_needs_to_scroll_on_the_small_screens() -> None:
    font = TextFont()
    for s in SCENES:
        screen = compose(s.view, s.status, s.now)
        for line in (*screen.lines, screen.alert, screen.banner):
            assert font.width(line) <= 126, (s.name, s.language, line)


def test_the_screen_says_what_the_issue_asks_for() -> None:
    play = compose(BY["playing", "es"].view, TableStatus(), BY["playing", "es"].now)
    assert play.big == "11" and play.side == ("Este", "Beto")  # the play timer, the seat on turn
    assert play.header[0] == "Mano 1" and play.header[1].count(":") == 1  # hand, game time left
    assert play.info == ("NS 0", "a 200", "EO 0")  # both pairs' points
    assert "PASO: 1 s" in play.lines and "Juega o di PASO" in play.lines
    slow = compose(BY["playing_slow", "en"].view, TableStatus(), BY["playing_slow", "en"].now)
    assert slow.big.startswith("-") and slow.alert == "Slow: -25"
    pen = compose(BY["penalty", "es"].view, TableStatus(), BY["penalty", "es"].now)
    # The +25s are north's and south's, noted; the pairs' points are the game's hand points.
    assert pen.lines[0] == "+25 E Pase tardío" and pen.info[0] == "NS 0"
    called = compose(BY["time_called", "en"].view, TableStatus(), 0)
    assert called.header[1] == "Last hand"
    entry = compose(BY["hand_entry", "en"].view, TableStatus(), 0)
    assert entry.big == "37" and entry.side[0] == "EW" and "press +1 hold +10" in entry.lines
    block = compose(BY["hand_entry_block", "es"].view, TableStatus(), 0)
    assert block.side[0] == "?" and block.lines[0] == "Pareja ganadora: pulse"
    confirm = compose(BY["hand_confirm", "es"].view, TableStatus(), 0)
    assert confirm.big == "37" and confirm.lines == ("Otra pareja: mantén=sí", "pulsa = no")
    tie = compose(BY["hand_confirm_tie", "en"].view, TableStatus(), 0)
    assert tie.big_text == "Tied block"
    over = compose(BY["game_over", "es"].view, TableStatus(), 0)
    assert over.header[0] == "Gana Este-Oeste" and over.big_text == "0 - 215"
    assert over.lines == ("por 200 tantos", "Firmen la hoja")
    signed = compose(BY["game_over_signed", "en"].view, TableStatus(), 0)
    assert signed.lines[-1] == "To sign: NS"
    assert compose(BY["restored", "es"].view, BY["restored", "es"].status, 0).banner == "RESTAURADA"
    idle = compose(BY["idle", "en"].view, BY["idle", "en"].status, 0)
    assert idle.title == "Domino · Table 7" and idle.lines == ("No game",)


def test_late_annulled_and_unsigned_are_said_on_the_screen() -> None:
    late = compose(BY["ready_late", "es"].view, TableStatus(), 0)
    assert late.lines[0] == "Tarde: S"
    annulled = compose(BY["ready_annulled", "en"].view, TableStatus(), 0)
    assert annulled.lines == ("Hand 1 annulled", "West leads: press")
    unsigned = compose(BY["assigned_unsigned", "es"].view, TableStatus(), 0)
    assert "Sin firmar: NS" in unsigned.lines and unsigned.header[0] == "R3-M2"


def test_the_sheet_shows_the_points_noted_on_each_player() -> None:
    from mesa.games.domino.machine import DominoTable
    from mesa.games.domino.view import domino_view

    t = DominoTable()
    t.apply("assign", {"game_id": "G", "players": {"n": "A", "e": "B", "s": "C", "w": "D"}},
            now=0.0)
    t.apply("tiempo", {"start_wall": 0.0, "wall": 0.0}, now=0.0)
    t.apply("press", {"seat": "n"}, now=1.0)
    t.apply("hold", {"seat": "w"}, now=9.0)  # a late pass: +25 to n and s
    t.apply("penalty", {"seat": "e", "reason": "abandoned"}, now=10.0)
    screen = compose(domino_view(t, 11.0), TableStatus(), 11.0)
    assert screen.big_text == "0 - 0"  # the game's hand points: none
    assert screen.lines[-1] == "Anotado: N +25 E -200 S +25"
