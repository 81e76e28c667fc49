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
from functools import partial
from pathlib import Path
from typing import Any

from mesa.controller import oled_references as references
from mesa.controller.games.backgammon.oled import SIZES, render
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


# The statuses the scenes show beside the table (a card reader at check-in).
PLAIN = TableStatus(table_id="7")
READER = TableStatus(table_id="7", card_reader="ok")


def _scene_idle(language: str) -> tuple[_Play, TableStatus]:
    p = _Play(language)
    p.table.s.language = language
    return p, PLAIN


def _scene_checkin(language: str) -> tuple[_Play, TableStatus]:
    p = _assigned(language, scheduled_start=0.0).do("press", side="a", after=30.0)
    return p.wait(100.0), READER


def _scene_unknown_card(language: str) -> tuple[_Play, TableStatus]:
    p = _assigned(language)
    st = TableStatus(
        table_id="7",
        card_reader="ok",
        notice="notice.unknown_card",
        notice_arg="0099AA",
        notice_until=p.now + 5,
    )
    return p, st


def _scene_between(language: str) -> tuple[_Play, TableStatus]:
    return _assigned(language).do("checkin", side="a").do("checkin", side="b"), PLAIN


def _scene_running(language: str) -> tuple[_Play, TableStatus]:
    p = _running(language).wait(4.0).do("press", side="b", after=0.0)
    return p.wait(23.4), PLAIN  # a: 13.4 s into the reserve


def _scene_tenths(language: str) -> tuple[_Play, TableStatus]:
    p = _running(language).do("director_adjust", side="b", seconds=-590.0)
    return p.wait(12.6), PLAIN  # b: delay gone, 7.4 s left


def _scene_cube_owned(language: str) -> tuple[_Play, TableStatus]:
    p = _running(language).do("double", side="b").do("take", side="a")
    return p.wait(3.0), PLAIN


def _scene_cube_offered(language: str) -> tuple[_Play, TableStatus]:
    p = _running(language).do("double", side="b")
    return p.wait(2.0), PLAIN


def _scene_crawford(language: str) -> tuple[_Play, TableStatus]:
    p = _assigned(language).do("checkin", side="a").do("checkin", side="b")
    p.do("director_score", a=4, b=2)
    return p.do("press", side="b").wait(5.0), PLAIN


def _scene_post_crawford(language: str) -> tuple[_Play, TableStatus]:
    p = _assigned(language).do("checkin", side="a").do("checkin", side="b")
    p.do("director_score", a=4, b=2).do("press", side="b")
    p.do("claim", side="b", winner="b", kind=1).do("confirm", side="a")
    return p.do("press", side="a").wait(5.0), PLAIN  # 4-3: doubling allowed again


def _scene_dmp(language: str) -> tuple[_Play, TableStatus]:
    p, _ = _scene_post_crawford(language)
    p.do("claim", side="b", winner="b", kind=1).do("confirm", side="a")
    return p.do("press", side="a").wait(5.0), PLAIN  # 4-4 after the Crawford game


def _scene_refused_double(language: str) -> tuple[_Play, TableStatus]:
    p = _assigned(language).do("checkin", side="a").do("checkin", side="b")
    p.do("director_score", a=4, b=2).do("press", side="b").wait(5.0)
    out = p.table.apply("hold", {"side": "a"}, now=p.now)
    assert out.refusal is not None and out.refusal.code == "crawford"
    st = TableStatus(
        table_id="7", notice="refusal.crawford", notice_until=p.now + 2.0
    )  # what the runtime sets after that refusal
    return p.wait(0.5), st


def _scene_long_names(language: str) -> tuple[_Play, TableStatus]:
    p = _assigned(language, players=LONG_PLAYERS).do("checkin", side="a")
    p.do("checkin", side="b").do("press", side="a").wait(4.0)
    return p.do("double", side="b", after=0.0).wait(2.0), PLAIN


def _scene_long_claim(language: str) -> tuple[_Play, TableStatus]:
    p = _assigned(language, players=LONG_PLAYERS).do("checkin", side="a")
    p.do("checkin", side="b").do("press", side="a")
    return p.do("claim", side="b", winner="b", kind=3), PLAIN


def _scene_paused(language: str) -> tuple[_Play, TableStatus]:
    p = _running(language).do("both_held").do("press", side="a").do("press", side="a")
    return p, PLAIN  # the cursor on "concession"


def _scene_result_menu(language: str) -> tuple[_Play, TableStatus]:
    p = _running(language).do("both_held").do("press", side="a").do("hold", side="a")
    return p.do("press", side="a"), PLAIN  # "Ana wins: gammon (2)"


def _scene_result_claim(language: str) -> tuple[_Play, TableStatus]:
    p = _running(language).do("double", side="b").do("take", side="a")
    p.do("claim", side="a", winner="a", kind=2)
    return p, PLAIN


def _scene_timeout(language: str) -> tuple[_Play, TableStatus]:
    p = _assigned(language, clock={"preset": "singles", "timeout_policy": "overtime"})
    p.do("checkin", side="a").do("checkin", side="b").do("press", side="a")
    p.do("director_adjust", side="b", seconds=-595.0)
    return p.do("tick", after=20.0), PLAIN


def _scene_over(language: str) -> tuple[_Play, TableStatus]:
    p = _assigned(language).do("checkin", side="a").do("checkin", side="b")
    p.do("director_score", a=3, b=4).do("press", side="a")
    return p.do("claim", side="a", winner="b", kind=1).do("confirm", side="b"), PLAIN


def _scene_over_held(language: str) -> tuple[_Play, TableStatus]:
    p, _ = _scene_over(language)
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


def _scene_over_timeout(language: str) -> tuple[_Play, TableStatus]:
    p = _running(language).do("director_adjust", side="b", seconds=-595.0)
    return p.do("tick", after=20.0), PLAIN


def _scene_restored(language: str) -> tuple[_Play, TableStatus]:
    p = _running(language).do("pause", reason="unspecified", after=12.0)
    st = TableStatus(table_id="7", restored=True, restored_state="paused")
    return p, st


def _scene_clock_coming(language: str) -> tuple[_Play, TableStatus]:
    p = _assigned(language, clock=None).do("checkin", side="a").do("checkin", side="b")
    p.do("press", side="a").wait(30.0)
    return p.do("director_clock", clock={"preset": "singles"}), PLAIN  # from game 2


def _scene_director(language: str) -> tuple[_Play, TableStatus]:
    p = _running(language).do("pause", reason="director").do("hold", side="a", after=0.5)
    return p.do("director_pause", reason="dispute"), PLAIN


# (name, caption, how to reach it) of every scene, in the index's order.
SCENES: list[tuple[str, str, Callable[[str], tuple[_Play, TableStatus]]]] = [
    ("idle", "no match assigned", _scene_idle),
    ("checkin", "one player checked in; lateness countdown", _scene_checkin),
    ("unknown_card", "an unknown card was read", _scene_unknown_card),
    ("between_games", "between games: the lower die presses", _scene_between),
    ("running", "a game running: Beto's name inverted, delays counting", _scene_running),
    ("tenths", "under 10 s the clock shows tenths", _scene_tenths),
    ("cube_owned", "the cube on 2, owned by Ana", _scene_cube_owned),
    ("cube_offered", "Beto doubles: Ana must answer", _scene_cube_offered),
    ("crawford", "the Crawford game", _scene_crawford),
    ("post_crawford", "after the Crawford game: the cube is back", _scene_post_crawford),
    ("dmp", "double match point (4-4 to 5): the cube is dead", _scene_dmp),
    (
        "refused_double",
        "Ana held to double in the Crawford game: refused, for 2 s",
        _scene_refused_double,
    ),
    ("long_names", "names of 15 and 14 characters; the second doubles", _scene_long_names),
    ("long_claim", "a claim between long names: no marquee", _scene_long_claim),
    ("paused", "paused: the players' menu", _scene_paused),
    ("result_menu", "result entry: choosing the result", _scene_result_menu),
    ("result_claim", "a claimed result waits for the opponent", _scene_result_claim),
    ("timeout", "a flag fell (overtime policy): director called", _scene_timeout),
    ("match_over", "the match is over", _scene_over),
    (
        "match_over_held",
        "the next match is assigned: the result stays until a press",
        _scene_over_held,
    ),
    ("match_over_timeout", "the match lost on time", _scene_over_timeout),
    ("restored", "restarted after a power cut: paused with the restored times", _scene_restored),
    ("director", "the director paused the match", _scene_director),
    (
        "clock_coming",
        "an untimed game on; the director imposed the clock from the next game",
        _scene_clock_coming,
    ),
]


def _scenes_for(language: str) -> list[tuple[str, str, Callable[[], tuple[_Play, TableStatus]]]]:
    return [(name, about, partial(build, language)) for name, about, build in SCENES]


def scenes() -> list[Scene[View]]:
    """Every scene in both languages (Spanish first)."""
    return references.collect(_scenes_for, table_view, SIZES)


def write_references(folder: Path) -> list[Path]:
    """Render every scene at every size into ``folder`` plus a viewable, captioned index."""
    intro = [
        "# The table's screen: reference images",
        "",
        "Generated by `mesa oled-refs` from `controller/games/backgammon/scenes.py`; the",
        "golden-image tests (`tests/controller/games/backgammon/test_backgammon_oled.py`)",
        "compare the renderer's output with these files pixel for pixel. Sizes: 128×64",
        "(SSD1306/SH1106), 128×32, 256×64 (SSD1322).",
        "Each heading is the caption of the three images under it (scene, language, what it",
        "shows); a test checks that every PNG here has a caption and every caption its PNGs.",
    ]
    return references.write_references(folder, scenes(), render, intro)
