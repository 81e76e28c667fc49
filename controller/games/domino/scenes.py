"""Named domino screens for the reference images in ``docs/oled/domino/`` and their golden tests.

>>> names = [s.name for s in scenes()]
>>> "playing" in names and "hand_confirm" in names
True
>>> sorted({s.view.state for s in scenes()}) == sorted(STATES)
True

Each scene drives a real :class:`~mesa.games.domino.machine.DominoTable` through its inputs, so the
images show exactly what the table would. ``mesa oled-refs --game domino`` writes the PNGs and
``docs/oled/domino/README.md`` with a caption for each.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Self

from mesa.controller import oled_references as references
from mesa.controller.games.domino.oled import SIZES, render
from mesa.controller.oled_references import Play, Scene
from mesa.controller.runtime import TableStatus
from mesa.games.domino.machine import DominoTable
from mesa.games.domino.transitions import STATES  # noqa: F401  (the module example reads it)
from mesa.games.domino.view import DominoView, domino_view

PLAYERS = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}


class _Play(Play[DominoTable]):
    def __init__(self, language: str) -> None:
        super().__init__(language, DominoTable())

    def seat(self, name: str, seat: str, after: float = 1.0) -> Self:
        return self.do(name, after, seat=seat)


def _assigned(language: str) -> _Play:
    return _Play(language).do("assign", 0.0, game_id="R2-M5", players=PLAYERS, language=language)


def _started(language: str) -> _Play:
    # Joined 50 s late: the game's time counts from the hub's "TIEMPO".
    return _assigned(language).do("tiempo", 2.0, start_wall=1000.0, wall=1050.0)


def _hand(language: str) -> _Play:
    """Hand 1 played to its end by a domino of w (ns 0, ew 0), then hand 2 under way."""
    p = _started(language).seat("press", "n", 40.0)  # n leads; w, s, e, n... on turn
    for seat in ("w", "s", "e", "n", "w", "s"):
        p.seat("press", seat, 6.0)
    return p


def _entry(language: str) -> _Play:
    p = _hand(language).seat("long_hold", "e", 5.0)  # e places the last tile: domino
    for _ in range(3):
        p.seat("hold", "w", 0.8)
    for _ in range(7):
        p.seat("press", "e", 0.4)
    return p


def _scenes_for(language: str) -> list[tuple[str, str, Callable[[], tuple[_Play, TableStatus]]]]:
    st = TableStatus(table_id="7", language=language, hub="online")

    def idle() -> tuple[_Play, TableStatus]:
        return _Play(language), st

    def idle_offline() -> tuple[_Play, TableStatus]:
        return _Play(language), TableStatus(table_id="7", language=language, hub="offline")

    def assigned() -> tuple[_Play, TableStatus]:
        return _assigned(language).wait(20.0), st

    def ready_first() -> tuple[_Play, TableStatus]:
        return _started(language).wait(30.0), st

    def ready_late() -> tuple[_Play, TableStatus]:
        return _started(language).wait(130.0).seat("late", "s", 0.0).wait(2.0), st

    def ready_annulled() -> tuple[_Play, TableStatus]:
        p = _hand(language).do("annul", 3.0, seat="s", reason="chivo")
        return p.wait(4.0), st

    def assigned_unsigned() -> tuple[_Play, TableStatus]:
        p, _ = game_over_signed()
        p.do("assign", 40.0, game_id="R3-M2", players=PLAYERS, language=language)
        return p.wait(5.0), st

    def playing() -> tuple[_Play, TableStatus]:
        return _hand(language).wait(3.2), st

    def playing_slow() -> tuple[_Play, TableStatus]:
        p = _hand(language)
        p.seat("press", "e", 16.0)  # e over the 15 s: the warning
        for seat in ("n", "w", "s"):
            p.seat("press", seat, 4.0)
        return p.wait(17.4), st  # e on turn again, over again: this one costs points

    def penalty() -> tuple[_Play, TableStatus]:
        p = _hand(language).seat("hold", "e", 7.0)  # a "paso" after 7 s: +25 to n and s
        return p.wait(6.5), st

    def time_called() -> tuple[_Play, TableStatus]:
        p = _hand(language).wait(2050.0).do("tick", 0.0).seat("press", "e", 0.5)
        return p.wait(2.0), st

    def hand_entry() -> tuple[_Play, TableStatus]:
        return _entry(language).wait(0.5), st

    def hand_entry_block() -> tuple[_Play, TableStatus]:
        return _hand(language).seat("long_hold", "s", 5.0).wait(2.0), st

    def hand_confirm() -> tuple[_Play, TableStatus]:
        return _entry(language).seat("long_hold", "w", 1.0).wait(1.0), st

    def hand_confirm_tie() -> tuple[_Play, TableStatus]:
        p = _hand(language).seat("long_hold", "s", 5.0).seat("long_hold", "n", 3.0)
        return p.wait(1.0), st

    def ready_next() -> tuple[_Play, TableStatus]:
        p = _entry(language).seat("long_hold", "w", 1.0).seat("hold", "n", 2.0)
        return p.wait(12.0), st

    def game_over() -> tuple[_Play, TableStatus]:
        p = _hand(language).seat("long_hold", "e", 5.0).do("claim", 2.0, seat="w", points=120)
        p.seat("hold", "s", 2.0).seat("press", "w", 30.0).seat("press", "s", 5.0)
        p.seat("long_hold", "e", 6.0).do("claim", 2.0, seat="e", points=95)
        return p.seat("hold", "n", 2.0).wait(5.0), st

    def game_over_signed() -> tuple[_Play, TableStatus]:
        p, status = game_over()
        return p.seat("press", "w", 3.0).wait(1.0), status

    def restored() -> tuple[_Play, TableStatus]:
        return _hand(language).wait(2.0), TableStatus(
            table_id="7", language=language, restored=True, restored_state="playing"
        )

    return [
        ("idle", "no game at the table", idle),
        ("idle_offline", "no game, and the hub cannot be reached", idle_offline),
        ("assigned", 'a game assigned: the pairs, waiting for "TIEMPO"', assigned),
        (
            "assigned_unsigned",
            "the next game assigned; north-south left the last sheet unsigned",
            assigned_unsigned,
        ),
        ("ready_first", "the game's time runs; hand 1: the highest tile leads", ready_first),
        ("ready_late", "south reached the table after the two minutes", ready_late),
        ("ready_annulled", 'hand 1 annulled (a "chivo" by south): west leads hand 2',
         ready_annulled),
        ("playing", "west on turn, 3 s into the turn: the pass window is still open", playing),
        (
            "playing_slow",
            "east over the 15 s again, warning used: this play costs 25",
            playing_slow,
        ),
        ("penalty", 'east said "paso" after 7 s: +25 to each of north and south', penalty),
        ("time_called", 'the 35 minutes are up: "TIEMPO", this hand is the last', time_called),
        ("hand_entry", "east placed the last tile: east-west enter 37 on the wheel", hand_entry),
        ("hand_entry_block", "a block: the first press picks the pair that won", hand_entry_block),
        (
            "hand_confirm",
            "east-west claim 37: north-south confirm (hold) or refuse (press)",
            hand_confirm,
        ),
        ("hand_confirm_tie", "a tied block claimed: nobody scores the hand", hand_confirm_tie),
        ("ready_next", "hand 2: the lead rotates (west leads)", ready_next),
        ("game_over", "east-west passed 200: the score sheet waits for both pairs", game_over),
        ("game_over_signed", "one pair has signed the sheet", game_over_signed),
        ("restored", "the table restarted and restored its game from the journal", restored),
    ]


def scenes() -> list[Scene[DominoView]]:
    """Every scene in both languages (Spanish first)."""
    return references.collect(_scenes_for, domino_view, SIZES)


def write_references(folder: Path) -> list[Path]:
    """Render every scene at every size into ``folder`` plus a viewable, captioned index."""
    intro = [
        "# The domino table's screen: reference images",
        "",
        "Generated by `mesa oled-refs --game domino` from `controller/games/domino/scenes.py`;",
        "the golden-image tests (`tests/controller/games/domino/test_domino_oled.py`) compare",
        "the renderer's output with these files pixel for pixel. Sizes: 128×64 (SSD1306/SH1106),",
        "128×32, 256×64 (SSD1322). Spanish first, then English. Players: north Ana, east Beto,",
        "south Carla, west Dani (pairs north-south and east-west).",
    ]
    return references.write_references(folder, scenes(), render, intro)
