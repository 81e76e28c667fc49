"""Named screens for the reference images in ``docs/oled/`` and their golden-image tests.

>>> names = [s.name for s in scenes()]
>>> "running" in names and "result_claim" in names
True
>>> sorted({s.language for s in scenes()})
['en', 'es']

Each scene drives a real :class:`~mesa.games.backgammon.machine.Table` through its inputs, so the images show
exactly what the table would. ``mesa oled-refs`` writes the PNGs and ``docs/oled/README.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mesa.controller import oled_references as references
from mesa.controller.oled import SIZES, render
from mesa.controller.oled_references import Play, Scene
from mesa.controller.runtime import TableStatus
from mesa.games.backgammon.machine import Table
from mesa.games.backgammon.view import View, table_view

PLAYERS = {"a": "Ana", "b": "Beto"}
LONG_PLAYERS = {"a": "Rafael Urdaneta", "b": "Mª José Lozano"}  # 15 and 14 characters


class _Play(Play[Table]):
    def __init__(self, language: str) -> None:
        super().__init__(language, Table())


def _assigned(language: str, **extra: Any) -> _Play:
    p = _Play(language)
    args: dict[str, Any] = {
        "match_id": "G3-2",
        "players": PLAYERS,
        "length": 5,
        "clock": {"preset": "singles"},
        "language": language,
        "cards": {"a": "04A1B2C3", "b": "04D4E5F6"},
    }
    args.update(extra)
    return p.do("assign", **args)


def _running(language: str) -> _Play:
    p = _assigned(language).do("checkin", side="a").do("checkin", side="b")
    return p.do("press", side="a")  # a rolled lower: b on move


def _scenes_for(language: str) -> list[tuple[str, str, Callable[[], tuple[_Play, TableStatus]]]]:
    plain = TableStatus(table_id="7")
    reader = TableStatus(table_id="7", card_reader="ok")

    def idle() -> tuple[_Play, TableStatus]:
        p = _Play(language)
        p.table.s.language = language
        return p, plain

    def checkin() -> tuple[_Play, TableStatus]:
        p = _assigned(language, scheduled_start=0.0).do("press", side="a", after=30.0)
        return p.wait(100.0), reader

    def unknown_card() -> tuple[_Play, TableStatus]:
        p = _assigned(language)
        st = TableStatus(
            table_id="7",
            card_reader="ok",
            notice="notice.unknown_card",
            notice_arg="0099AA",
            notice_until=p.now + 5,
        )
        return p, st

    def between() -> tuple[_Play, TableStatus]:
        return _assigned(language).do("checkin", side="a").do("checkin", side="b"), plain

    def running() -> tuple[_Play, TableStatus]:
        p = _running(language).wait(4.0).do("press", side="b", after=0.0)
        return p.wait(23.4), plain  # a: 13.4 s into the reserve

    def tenths() -> tuple[_Play, TableStatus]:
        p = _running(language).do("director_adjust", side="b", seconds=-590.0)
        return p.wait(12.6), plain  # b: delay gone, 7.4 s left

    def cube_owned() -> tuple[_Play, TableStatus]:
        p = _running(language).do("double", side="b").do("take", side="a")
        return p.wait(3.0), plain

    def cube_offered() -> tuple[_Play, TableStatus]:
        p = _running(language).do("double", side="b")
        return p.wait(2.0), plain

    def crawford() -> tuple[_Play, TableStatus]:
        p = _assigned(language).do("checkin", side="a").do("checkin", side="b")
        p.do("director_score", a=4, b=2)
        return p.do("press", side="b").wait(5.0), plain

    def post_crawford() -> tuple[_Play, TableStatus]:
        p = _assigned(language).do("checkin", side="a").do("checkin", side="b")
        p.do("director_score", a=4, b=2).do("press", side="b")
        p.do("claim", side="b", winner="b", kind=1).do("confirm", side="a")
        return p.do("press", side="a").wait(5.0), plain  # 4-3: doubling allowed again

    def dmp() -> tuple[_Play, TableStatus]:
        p, _ = post_crawford()
        p.do("claim", side="b", winner="b", kind=1).do("confirm", side="a")
        return p.do("press", side="a").wait(5.0), plain  # 4-4 after the Crawford game

    def refused_double() -> tuple[_Play, TableStatus]:
        p = _assigned(language).do("checkin", side="a").do("checkin", side="b")
        p.do("director_score", a=4, b=2).do("press", side="b").wait(5.0)
        out = p.table.apply("hold", {"side": "a"}, now=p.now)
        assert out.refusal is not None and out.refusal.code == "crawford"
        st = TableStatus(
            table_id="7", notice="refusal.crawford", notice_until=p.now + 2.0
        )  # what the runtime sets after that refusal
        return p.wait(0.5), st

    def long_names() -> tuple[_Play, TableStatus]:
        p = _assigned(language, players=LONG_PLAYERS).do("checkin", side="a")
        p.do("checkin", side="b").do("press", side="a").wait(4.0)
        return p.do("double", side="b", after=0.0).wait(2.0), plain

    def long_claim() -> tuple[_Play, TableStatus]:
        p = _assigned(language, players=LONG_PLAYERS).do("checkin", side="a")
        p.do("checkin", side="b").do("press", side="a")
        return p.do("claim", side="b", winner="b", kind=3), plain

    def paused() -> tuple[_Play, TableStatus]:
        p = _running(language).do("both_held").do("press", side="a").do("press", side="a")
        return p, plain  # the cursor on "concession"

    def result_menu() -> tuple[_Play, TableStatus]:
        p = _running(language).do("both_held").do("press", side="a").do("hold", side="a")
        return p.do("press", side="a"), plain  # "Ana wins: gammon (2)"

    def result_claim() -> tuple[_Play, TableStatus]:
        p = _running(language).do("double", side="b").do("take", side="a")
        p.do("claim", side="a", winner="a", kind=2)
        return p, plain

    def timeout() -> tuple[_Play, TableStatus]:
        p = _assigned(language, clock={"preset": "singles", "timeout_policy": "overtime"})
        p.do("checkin", side="a").do("checkin", side="b").do("press", side="a")
        p.do("director_adjust", side="b", seconds=-595.0)
        return p.do("tick", after=20.0), plain

    def over() -> tuple[_Play, TableStatus]:
        p = _assigned(language).do("checkin", side="a").do("checkin", side="b")
        p.do("director_score", a=3, b=4).do("press", side="a")
        return p.do("claim", side="a", winner="b", kind=1).do("confirm", side="b"), plain

    def over_held() -> tuple[_Play, TableStatus]:
        p, _ = over()
        held = table_view(p.table, p.now)
        p.do(
            "assign",
            after=0.2,
            match_id="G3-5",
            players={"a": "Carmen", "b": "Diego"},
            length=5,
            language=language,
        )
        return p, TableStatus(table_id="7", held_result=held)

    def over_timeout() -> tuple[_Play, TableStatus]:
        p = _running(language).do("director_adjust", side="b", seconds=-595.0)
        return p.do("tick", after=20.0), plain

    def restored() -> tuple[_Play, TableStatus]:
        p = _running(language).do("pause", reason="unspecified", after=12.0)
        st = TableStatus(table_id="7", restored=True, restored_state="paused")
        return p, st

    def director() -> tuple[_Play, TableStatus]:
        p = _running(language).do("pause", reason="director").do("hold", side="a", after=0.5)
        return p.do("director_pause", reason="dispute"), plain

    return [
        ("idle", "no match assigned", idle),
        ("checkin", "one player checked in; lateness countdown", checkin),
        ("unknown_card", "an unknown card was read", unknown_card),
        ("between_games", "between games: the lower die presses", between),
        ("running", "a game running: Beto's name inverted, delays counting", running),
        ("tenths", "under 10 s the clock shows tenths", tenths),
        ("cube_owned", "the cube on 2, owned by Ana", cube_owned),
        ("cube_offered", "Beto doubles: Ana must answer", cube_offered),
        ("crawford", "the Crawford game", crawford),
        ("post_crawford", "after the Crawford game: the cube is back", post_crawford),
        ("dmp", "double match point (4-4 to 5): the cube is dead", dmp),
        (
            "refused_double",
            "Ana held to double in the Crawford game: refused, for 2 s",
            refused_double,
        ),
        ("long_names", "names of 15 and 14 characters; the second doubles", long_names),
        ("long_claim", "a claim between long names: no marquee", long_claim),
        ("paused", "paused: the players' menu", paused),
        ("result_menu", "result entry: choosing the result", result_menu),
        ("result_claim", "a claimed result waits for the opponent", result_claim),
        ("timeout", "a flag fell (overtime policy): director called", timeout),
        ("match_over", "the match is over", over),
        (
            "match_over_held",
            "the next match is assigned: the result stays until a press",
            over_held,
        ),
        ("match_over_timeout", "the match lost on time", over_timeout),
        ("restored", "restarted after a power cut: paused with the restored times", restored),
        ("director", "the director paused the match", director),
    ]


def scenes() -> list[Scene[View]]:
    """Every scene in both languages (Spanish first)."""
    out = []
    for language in ("es", "en"):
        for name, about, build in _scenes_for(language):
            play, status = build()
            view = table_view(play.table, play.now)
            out.append(Scene(name, language, about, view, status, play.now, SIZES))
    return out


def write_references(folder: Path) -> list[Path]:
    """Render every scene at every size into ``folder`` plus a viewable, captioned index."""
    intro = [
        "# The table's screen: reference images",
        "",
        "Generated by `mesa oled-refs` from `controller/oled_scenes.py`; the golden-image",
        "tests (`tests/controller/test_controller_oled.py`) compare the renderer's output with",
        "these files pixel for pixel. Sizes: 128×64 (SSD1306/SH1106), 128×32, 256×64 (SSD1322).",
        "Each heading is the caption of the three images under it (scene, language, what it",
        "shows); a test checks that every PNG here has a caption and every caption its PNGs.",
    ]
    return references.write_references(folder, scenes(), render, intro)
