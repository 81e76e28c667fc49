"""What the table shows: a plain snapshot of the state for the display, derived at ``now``.

>>> from mesa.games.backgammon.machine import Table
>>> t = Table()
>>> _ = t.apply("assign", {"match_id": "G1-1", "players": {"a": "Ana", "b": "Beto"},
...                        "length": 5, "clock": {"preset": "singles"}}, now=0.0)
>>> v = table_view(t, now=0.0)
>>> v.state, v.players["a"], v.clocks["a"].shown, v.length
('assigned', 'Ana', 600.0, 5)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from mesa.core.sides import SIDES
from mesa.games.backgammon.machine import Table


@dataclass(frozen=True)
class ClockView:
    shown: float  # the main figure: the reserve, or reserve + unused delay (bronstein)
    reserve: float
    delay: float  # delay left this turn (the full delay when not on move)
    running: bool


@dataclass(frozen=True)
class LatenessView:
    present: tuple[str, ...]
    points: dict[str, int]
    next_point_in: float | None  # seconds until the present player gains a point


@dataclass(frozen=True)
class View:
    state: str
    language: str
    match_id: str | None
    players: dict[str, str]
    timed: bool
    display: str
    clocks: dict[str, ClockView]  # empty for a match without a clock
    on_move: str | None
    score: dict[str, int]
    length: int
    cube_value: int
    cube_owner: str | None
    cube_offered_by: str | None
    crawford: str  # pre, crawford, post, off
    game: int
    pause_reason: str | None
    paused_by: str | None
    menu: tuple[str, ...]
    menu_cursor: int
    claim: dict[str, Any] | None
    director_call: str | None
    last_flag: str | None
    lateness: LatenessView | None
    winner: str | None
    ended_by: str | None
    checked_in: tuple[str, ...] = field(default_factory=tuple)
    double_match_point: bool = False  # both players one point away: the cube is dead
    # A clock ordered during the game for the next one: "on" (a clock), "off" (taken off).
    clock_next: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def table_view(table: Table, now: float) -> View:
    s = table.s
    clocks: dict[str, ClockView] = {}
    if s.clock is not None and s.timed:
        for side in SIDES:
            reserve, delay = s.clock.remaining(side, now)
            clocks[side] = ClockView(
                shown=s.clock.shown(side, now),
                reserve=reserve,
                delay=delay,
                running=s.clock.running and s.clock.on_move == side,
            )
    m = s.match
    late = None
    if s.lateness is not None and s.state in ("assigned", "checking_in"):
        nxt = s.lateness.next_mark()
        late = LatenessView(
            present=tuple(s.lateness.present),
            points=dict(s.lateness.points),
            next_point_in=None if nxt is None else max(0.0, nxt - now),
        )
    return View(
        state=s.state,
        language=s.language,
        match_id=s.match_id,
        players=dict(s.players),
        timed=s.timed,
        display=s.clock.settings.display if s.clock is not None else "delay",
        clocks=clocks,
        on_move=s.clock.on_move if s.clock is not None else None,
        score=dict(m.score) if m else {"a": 0, "b": 0},
        length=m.length if m else 0,
        cube_value=m.cube_value if m else 1,
        cube_owner=m.cube_owner if m else None,
        cube_offered_by=m.cube_offered_by if m else None,
        crawford=m.crawford_state if m else "off",
        game=m.game_number if m else 0,
        pause_reason=s.pause_reason,
        paused_by=s.paused_by,
        menu=table.menu_items(),
        menu_cursor=s.menu,
        claim=dict(s.claim) if s.claim else None,
        director_call=s.director_call,
        last_flag=s.last_flag,
        lateness=late,
        winner=m.winner if m else None,
        ended_by=m.ended_by if m else None,
        checked_in=tuple(s.checked_in),
        double_match_point=bool(m and not m.over and m.double_match_point),
        clock_next=None if s.clock_order is None else (
            "off" if s.clock_order["clock"] is None else "on"),
    )
