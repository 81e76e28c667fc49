"""Robot players: headless players that play whole matches at a table, for the simulator, the
demo and the tests.

>>> from mesa.controller.runtime import ManualClock, TableRuntime
>>> from mesa.engine.inputs import Input
>>> clock = ManualClock()
>>> rt = TableRuntime(clock=clock)
>>> rt.submit(Input("assign", {"match_id": "R-1", "players": {"a": "Ana", "b": "Beto"},
...                            "length": 3, "clock": {"preset": "singles"}}), 0.0)
>>> view = play(rt, RobotPlayers(seed=1), clock)       # virtual time: a whole match in a blink
>>> view.state, max(view.score.values()) >= 3 or view.ended_by
('match_over', True)

A robot checks in, rolls the opening (the lower die presses), thinks a realistic while before
each press (log-normal, with the occasional long think), sometimes doubles, takes or passes, and
ends each game with a claim that its opponent confirms, until the match is over. With
``ui="buttons"`` it uses only what a minimal table has (press, hold, both held, the menu cursor);
with ``ui="menu"`` (the default) the menu inputs ``double``/``take``/``drop``/``claim``/
``confirm``. All times are table seconds: in an accelerated simulator (``speed``) they pass
faster, like everything else.

Drive robots with :class:`RobotDriver` (a thread, beside a running runtime) or :func:`play`
(virtual time, for tests and benchmarks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mesa.controller.robot_plans import InputCounts, Plan, PlannedPlayers, RobotDriver, play
from mesa.core.match import MAX_CUBE
from mesa.engine.inputs import Input
from mesa.games.backgammon.view import View

# The drivers are every game's (mesa.controller.robot_plans); here for the backgammon callers.
__all__ = ["FAST", "RobotDriver", "RobotPlayers", "RobotStats", "RobotStyle", "play"]

SIDES = ("a", "b")


def _other(side: str) -> str:
    return "b" if side == "a" else "a"


@dataclass(frozen=True)
class RobotStyle:
    """How robots play. Times are table seconds."""

    think_median: float = 7.0
    think_sigma: float = 0.6
    slow_chance: float = 0.04
    slow_range: tuple[float, float] = (20.0, 45.0)
    react_range: tuple[float, float] = (0.6, 2.5)
    checkin_range: tuple[float, float] = (2.0, 40.0)
    turns_range: tuple[int, int] = (30, 70)  # presses in a game before it ends
    double_chance: float = 0.03  # per turn, when a double is legal (half that to redouble)
    take_chance: float = 0.75
    gammon_chance: float = 0.2
    backgammon_chance: float = 0.03
    concede_chance: float = 0.1
    fallen_die_chance: float = 0.004  # per turn: a short pause and resume
    ui: str = "menu"  # or "buttons"

    def __post_init__(self) -> None:
        if self.ui not in ("menu", "buttons"):
            raise ValueError(f"ui must be 'menu' or 'buttons', not {self.ui!r}")


FAST = RobotStyle(
    think_median=2.0,
    slow_chance=0.0,
    react_range=(0.3, 0.8),
    checkin_range=(0.5, 3.0),
    turns_range=(6, 14),
    fallen_die_chance=0.0,
)


@dataclass
class _Ending:
    """The game's end the robots agreed on: who claims, who wins, how."""

    claimant: str
    winner: str
    kind: int
    conceded: bool


@dataclass
class RobotStats(InputCounts):
    games: int = 0
    doubles: int = 0
    passes: int = 0
    claims: int = 0


class RobotPlayers(PlannedPlayers[View]):
    """The players of ``seats`` (both sides unless told) at one table; call :meth:`poll` with the
    table's view."""

    all_seats = SIDES
    default_style = RobotStyle()
    stats_type = RobotStats
    stats: RobotStats
    style: RobotStyle

    def _begin(self) -> None:
        self._game = -1
        self._game_length = 0
        self._ending: _Ending | None = None
        self._checkin_at: dict[str, float] = {}
        self._match: str | None = None
        self._pausing = False  # we paused for a fallen die

    # ── thinking ────────────────────────────────────────────────────────
    def _key_of(self, view: View) -> Any:
        claim = tuple(sorted(view.claim.items())) if view.claim else None
        return (
            view.state,
            view.match_id,
            view.on_move,
            view.game,
            view.cube_value,
            view.cube_owner,
            view.cube_offered_by,
            view.menu_cursor,
            view.menu,
            claim,
            view.pause_reason,
            view.paused_by,
            view.checked_in,
            tuple(sorted(view.score.items())),
        )

    def _new_view(self, view: View) -> None:
        if view.match_id != self._match:
            self._match = view.match_id
            self._checkin_at = {}
            self._game = -1
        if view.game != self._game:
            self._game = view.game
            self._turns = 0
            self._game_length = self.rng.randint(*self.style.turns_range)
            self._ending = None
            if view.game > 0:
                self.stats.games += 1

    def _turn_passed(self, old: Any, view: View) -> bool:
        return (
            view.state == "running"
            and old[0] in ("running", "cube_offered")
            and old[2] != view.on_move
        )

    def _act(self, at: float, name: str, **args: Any) -> Plan:
        return Plan(at, Input(name, args))

    def _make_plan(self, view: View, now: float) -> Plan | None:
        st = view.state
        s = self.style
        if st in ("assigned", "checking_in"):
            for side in SIDES:
                if self._mine(side) and side not in self._checkin_at:
                    self._checkin_at[side] = now + self._between(s.checkin_range)
            due = [
                (t, side)
                for side, t in self._checkin_at.items()
                if self._mine(side) and side not in view.checked_in
            ]
            if not due:
                return None
            t, side = min(due)
            return self._act(t, "press", side=side)
        if st == "between_games":
            a, b = self.rng.randint(1, 6), self.rng.randint(1, 6)
            while a == b:
                a, b = self.rng.randint(1, 6), self.rng.randint(1, 6)
            lower = "a" if a < b else "b"
            if not self._mine(lower):
                return None
            return self._act(now + self._between(s.react_range), "press", side=lower)
        if st == "running":
            return self._running(view, now)
        if st == "cube_offered":
            answer = _other(view.cube_offered_by or "a")
            if not self._mine(answer):
                return None
            at = now + min(self._think(), 20.0)
            if self.rng.random() < s.take_chance:
                return self._act(at, "take" if s.ui == "menu" else "press", side=answer)
            self.stats.passes += 1
            return self._act(at, "drop" if s.ui == "menu" else "hold", side=answer)
        if st == "paused":
            return self._paused(view, now)
        if st == "result_entry":
            return self._result_entry(view, now)
        return None

    def _can_double(self, view: View, side: str) -> bool:
        away = {x: view.length - view.score[x] for x in SIDES}
        return (
            view.cube_offered_by is None
            and view.crawford != "crawford"
            and not (away["a"] == 1 and away["b"] == 1)
            and min(away.values()) > 0
            and view.cube_owner in (None, side)
            and view.cube_value < MAX_CUBE
        )

    def _decide_ending(self, view: View, claimant: str) -> _Ending:
        s = self.style
        winner = self.rng.choice(SIDES)
        r = self.rng.random()
        kind = (
            3 if r < s.backgammon_chance else 2 if r < s.backgammon_chance + s.gammon_chance else 1
        )
        conceded = kind == 1 and self.rng.random() < s.concede_chance
        return _Ending(claimant, winner, kind, conceded)

    def _running(self, view: View, now: float) -> Plan | None:
        on = view.on_move
        if not self._mine(on):
            return None
        assert on is not None
        s = self.style
        at = now + self._think()
        if self._turns >= self._game_length:
            self._ending = self._decide_ending(view, on)
            e = self._ending
            self.stats.claims += 1
            if s.ui == "menu":
                return self._act(
                    at, "claim", side=on, winner=e.winner, kind=e.kind, conceded=e.conceded
                )
            return self._act(at, "both_held")
        chance = s.double_chance if view.cube_owner is None else s.double_chance / 2
        if self._can_double(view, on) and self.rng.random() < chance:
            self.stats.doubles += 1
            return self._act(at, "double" if s.ui == "menu" else "hold", side=on)
        if self.rng.random() < s.fallen_die_chance:
            self._pausing = True
            return self._act(now + self._think() / 2, "pause", reason="fallen_die")
        return self._act(at, "press", side=on)

    def _navigate(self, view: View, side: str, target: str, now: float) -> Plan | None:
        """Move the menu cursor to ``target`` with presses, then hold to choose it."""
        if target not in view.menu:
            return None
        at = now + self._between(self.style.react_range)
        current = view.menu[view.menu_cursor % len(view.menu)]
        return self._act(at, "hold" if current == target else "press", side=side)

    def _paused(self, view: View, now: float) -> Plan | None:
        s = self.style
        if self._ending is not None and view.pause_reason in ("unspecified", "game_over"):
            e = self._ending
            if not self._mine(e.claimant):
                return None
            target = "concession" if e.conceded else "game_over"
            return self._navigate(view, e.claimant, target, now)
        if view.paused_by == "director":
            return None  # the director resumes
        actor = next((x for x in SIDES if self._mine(x)), None)
        if actor is None:
            return None
        wait = self._between((5.0, 20.0)) if self._pausing else self._between(s.react_range) * 3
        self._pausing = False
        if s.ui == "menu":
            return self._act(now + wait, "resume")
        return self._act(now + wait, "both_held")

    def _result_entry(self, view: View, now: float) -> Plan | None:
        s = self.style
        claim = view.claim
        if claim:
            answer = _other(claim["by"])
            if not self._mine(answer):
                return None
            at = now + self._between(s.react_range)
            return self._act(at, "confirm" if s.ui == "menu" else "hold", side=answer)
        if self._ending is None:
            # A result to enter that we did not start (a restored table, a concession menu).
            claimant = next((x for x in SIDES if self._mine(x)), None)
            if claimant is None:
                return None
            self._ending = self._decide_ending(view, claimant)
            if view.pause_reason == "concession":
                self._ending.conceded = True
        e = self._ending
        if not self._mine(e.claimant):
            return None
        if s.ui == "menu":
            at = now + self._between(s.react_range)
            return self._act(
                at, "claim", side=e.claimant, winner=e.winner, kind=e.kind, conceded=e.conceded
            )
        return self._navigate(view, e.claimant, f"{e.winner}{e.kind}", now)
