"""Robot domino players: four headless players who play whole games at a domino table, for the
simulator and the tests.

>>> from mesa.controller.robot_plans import play
>>> from mesa.controller.runtime import ManualClock, TableRuntime
>>> from mesa.engine.inputs import Input
>>> clock = ManualClock()
>>> rt = TableRuntime(game="domino", clock=clock)
>>> players = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}
>>> rt.submit(Input("assign", {"game_id": "R-1", "players": players}), 0.0)
>>> rt.submit(Input("tiempo", {"start_wall": 0.0, "wall": 0.0}), 0.0)
>>> view = play(rt, DominoRobots(seed=1), clock, until=game_signed)  # virtual time: a blink
>>> view.state, view.ended_by in ("points", "time"), sorted(view.signed)
('game_over', True, ['ew', 'ns'])

The robots shuffle and lead (the lead presses), play tiles (a press after a think, log-normal,
now and then a slow one over the 15 s), pass ("paso": a hold, now and then late), end a hand
with a domino (the seat on turn, a long hold) or a block (a seat off turn, a long hold), enter
the hand's points on the digit wheel (press +1, hold +10, long hold to accept), confirm them
from the other pair (a hold; now and then a refusal, then the entry is accepted again), and
sign the score sheet (a press per pair). Every input is a seat gesture, exactly what the four
buttons send; times are table seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mesa.controller.robot_plans import InputCounts, Plan, PlannedPlayers
from mesa.engine.inputs import Input
from mesa.games.domino.rules import PAIRS, SEATS, Pair, members, pair_of
from mesa.games.domino.view import DominoView


@dataclass(frozen=True)
class DominoRobotStyle:
    """How the robots play. Times are table seconds."""

    think_median: float = 5.0  # before placing a tile
    think_sigma: float = 0.5
    slow_chance: float = 0.03  # a think past the 15 s of a play
    slow_range: tuple[float, float] = (15.5, 25.0)
    pass_chance: float = 0.2  # on turn, the robot has no tile to play
    pass_range: tuple[float, float] = (1.0, 4.0)
    late_pass_chance: float = 0.03  # a "paso" past the 5 s
    shuffle_range: tuple[float, float] = (25.0, 50.0)  # shuffling and drawing before the lead
    turns_range: tuple[int, int] = (10, 26)  # turns in a hand before it ends
    block_chance: float = 0.15  # a hand ends blocked (else with a domino)
    tied_block_chance: float = 0.1  # ... and a block is tied
    points_range: tuple[int, int] = (5, 60)  # the hand's "tantos"
    react_range: tuple[float, float] = (0.4, 1.2)  # a gesture on the wheel, a confirmation
    reject_chance: float = 0.03  # the other pair refuses the claim once


FAST = DominoRobotStyle(
    think_median=2.0,
    slow_chance=0.02,
    shuffle_range=(3.0, 8.0),
    turns_range=(6, 14),
    points_range=(20, 80),
    react_range=(0.2, 0.5),
)


@dataclass
class DominoRobotStats(InputCounts):
    hands: int = 0
    passes: int = 0
    slow_plays: int = 0
    rejections: int = 0


def game_signed(view: Any) -> bool:
    """``until`` for :func:`mesa.controller.games.backgammon.robots.play`: the game is over and signed."""
    return bool(view.state == "game_over" and len(view.signed) == len(PAIRS))


class DominoRobots(PlannedPlayers[DominoView]):
    """The players of ``seats`` at one domino table; call :meth:`poll` with the table's view
    (the same interface as :class:`mesa.controller.games.backgammon.robots.RobotPlayers`, so
    :class:`~mesa.controller.robot_plans.RobotDriver` and :func:`~mesa.controller.robot_plans.play`
    drive them)."""

    retry_after = 10.0  # a planned input that changed nothing is planned again after this
    all_seats = SEATS
    default_style = DominoRobotStyle()
    stats_type = DominoRobotStats
    think_cap = 14.5  # an ordinary think is a play within the 15 s
    stats: DominoRobotStats
    style: DominoRobotStyle

    def _begin(self) -> None:
        self._hand = -1
        self._hand_length = 0
        self._result: tuple[Pair | None, int] | None = None  # (winning pair or None: tie, points)
        self._rejected = False

    # ── thinking ────────────────────────────────────────────────────────
    def _key_of(self, view: DominoView) -> Any:
        entry = tuple(sorted(view.entry.items())) if view.entry else None
        claim = tuple(sorted(view.claim.items())) if view.claim else None
        return (
            view.state,
            view.game_id,
            view.hand,
            view.on_turn,
            entry,
            claim,
            tuple(sorted(view.signed)),
        )

    def _new_view(self, view: DominoView) -> None:
        if view.hand != self._hand:
            self._hand = view.hand
            self._turns = 0
            self._hand_length = self.rng.randint(*self.style.turns_range)
            self._result = None
            self._rejected = False
            if view.hand > 0:
                self.stats.hands += 1

    def _turn_passed(self, old: Any, view: DominoView) -> bool:
        return view.state == "playing" and old[0] == "playing" and old[3] != view.on_turn

    def _act(self, at: float, name: str, seat: str) -> Plan | None:
        if not self._mine(seat):
            return None
        return Plan(at, Input(name, {"seat": seat}))

    def _make_plan(self, view: DominoView, now: float) -> Plan | None:
        st = view.state
        s = self.style
        if st == "ready":
            lead = view.next_lead or self.rng.choice(SEATS)  # hand 1: the highest tile leads
            return self._act(now + self._between(s.shuffle_range), "press", lead)
        if st == "playing":
            return self._playing(view, now)
        if st == "hand_entry":
            return self._entry(view, now)
        if st == "hand_confirm" and view.claim is not None:
            by = view.claim["by"]
            answer = next(x for x in SEATS if x not in members(pair_of(by)))
            react = now + self._between(s.react_range)
            if not self._rejected and self.rng.random() < s.reject_chance:
                self._rejected = True
                self.stats.rejections += 1
                return self._act(react, "press", answer)  # "no": the entry reopens
            return self._act(react, "hold", answer)
        if st == "game_over":
            for pair in PAIRS:
                if pair not in view.signed:
                    return self._act(
                        now + self._between(s.react_range) * 4, "press", members(pair)[0]
                    )
        return None

    def _playing(self, view: DominoView, now: float) -> Plan | None:
        s = self.style
        seat = view.on_turn
        if seat is None or view.timer is None:
            return None
        started = now - view.timer.elapsed  # the turn began then: think from there
        if self._turns >= self._hand_length:
            if self.rng.random() < s.block_chance:
                caller = self.rng.choice([x for x in SEATS if x != seat])
                return self._act(started + self._think(), "long_hold", caller)
            return self._act(started + self._think(), "long_hold", seat)  # the last tile: domino
        if self.rng.random() < s.pass_chance:
            self.stats.passes += 1
            late = self.rng.random() < s.late_pass_chance
            wait = self._between((5.5, 8.0)) if late else self._between(s.pass_range)
            return self._act(started + wait, "hold", seat)
        return self._act(started + self._think(), "press", seat)

    def _thought_slowly(self) -> None:
        self.stats.slow_plays += 1

    def _entry(self, view: DominoView, now: float) -> Plan | None:
        s = self.style
        entry = view.entry
        if entry is None:
            return None
        if self._result is None:
            pair = entry["pair"]
            if pair is None:  # a block: which pair had fewer points in hand?
                tie = self.rng.random() < s.tied_block_chance
                pair = None if tie else self.rng.choice(PAIRS)
            points = 0 if pair is None else self.rng.randint(*s.points_range)
            self._result = (pair, points)
        pair, points = self._result
        seat = entry["by"] or (members(pair)[0] if pair else self.rng.choice(SEATS))
        shown = entry["points"]
        react = now + self._between(s.react_range)
        if pair is not None and entry["pair"] is None:
            return self._act(react, "press", seat)  # the first press picks the pair
        if shown // 10 != points // 10:
            return self._act(react, "hold", seat)
        if shown % 10 != points % 10:
            return self._act(react, "press", seat)
        return self._act(react, "long_hold", seat)
