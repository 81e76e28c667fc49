"""Domino at the table: four seat buttons with their LEDs, the pairs' game against the 35 minutes.

What the generic table program (:mod:`mesa.controller.games`) asks of a game, for domino: what a
seat's hold and long hold mean (:func:`seat_context`), the restore (the game's time never stops:
"El tiempo transcurrirá igual", so a restored table resumes where its journal left it and the
hub's retained "TIEMPO" re-anchors the game's start), the journal's chapters, the seat LEDs and
the buzzer (:func:`led_modes`), the screen (:mod:`.oled`, :mod:`.scenes`), the hub's retained
assignment with its "TIEMPO" (:func:`on_assignment`), the robots (:mod:`.robots`) and the
simulator's hub (:class:`AutoAssign`).

>>> from mesa.controller.games import TableGame
>>> from mesa.controller.runtime import ManualClock, TableRuntime
>>> isinstance(GAME, TableGame)
True
>>> rt = TableRuntime(game="domino", clock=ManualClock())
>>> players = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}
>>> rt.submit(Input("assign", {"game_id": "R1-M1", "players": players}), rt.now())
>>> rt.submit(Input("tiempo", {"start_wall": 1000.0, "wall": 1000.0}), rt.now())
>>> _ = rt.step(); rt.view().state, rt.view().game_time_left
('ready', 2100.0)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mesa import events as ev
from mesa.controller.games import GameModules
from mesa.controller.games.domino.gestures import (
    SEAT_BUTTONS,
    SeatContext,
    SeatGestureRecognizer,
)
from mesa.controller.gestures import GestureSettings
from mesa.controller.gpio import FLAG_BEEP, Beep
from mesa.controller.sim import NAMES, Assigner
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome
from mesa.errors import ConfigError
from mesa.games.domino.inputs import parse_input
from mesa.games.domino.machine import DominoTable
from mesa.games.domino.rules import PAIRS, SEATS, members, pair_of
from mesa.games.domino.view import DominoView, domino_view
from mesa.protocol import DominoAssignment, DominoCommand

if TYPE_CHECKING:
    from mesa.controller.config import TableConfig
    from mesa.controller.link import AssignPort
    from mesa.controller.runtime import TableRuntime

# The states in which the game's time runs: the screen animates, the journal beats.
TIMED_STATES = frozenset({"ready", "playing", "hand_entry", "hand_confirm"})
# The chapters after which the journal starts a new generation.
COMPACT_AFTER = frozenset(
    {
        "domino.table.assigned",
        "domino.table.unassigned",
        "domino.game.started",
        "domino.hand.ended",
        "domino.game.ended",
    }
)
# The game's time runs from "TIEMPO" to the end, between hands too: heartbeats note it.
HEARTBEAT_STATES = frozenset({"assigned", "ready", "playing", "hand_entry", "hand_confirm"})
# ``mesa sim --robots``: ``both`` plays all four seats, ``a`` the pair north-south, ``b`` east-west.
SEAT_ROBOTS: dict[str, tuple[str, ...]] = {
    "both": ("n", "e", "s", "w"),
    "a": ("n", "s"),
    "b": ("e", "w"),
    "none": (),
}
# The states in which "TIEMPO" means something to the machine (re-anchoring included).
TIEMPO_STATES = frozenset({"assigned", "ready", "playing", "hand_entry", "hand_confirm"})


# ── the buttons ────────────────────────────────────────────────────────────
def seat_context(table: DominoTable) -> SeatContext:
    """What each seat's hold and long hold mean now (docs/domino.md, "The buttons").

    >>> ctx = seat_context(DominoTable())
    >>> ctx.hold["n"], ctx.long["n"]
    (False, False)
    """
    s, g = table.s, table.s.game
    hold = dict.fromkeys(SEAT_BUTTONS, False)
    long = dict.fromkeys(SEAT_BUTTONS, False)
    if s.state == "playing" and g is not None:
        # On turn: "paso" and domino; off turn: a block. Everyone's long hold means something.
        long = dict.fromkeys(SEAT_BUTTONS, True)
        if g.on_turn is not None:
            hold[g.on_turn] = True
    elif s.state == "hand_entry" and s.entry is not None:
        pair = s.entry["pair"]
        for seat in SEATS:
            hold[seat] = long[seat] = pair is None or pair_of(seat) == pair
    elif s.state == "hand_confirm" and s.claim is not None:
        claimer = pair_of(s.claim["by"])
        for seat in SEATS:
            hold[seat] = pair_of(seat) != claimer
    return SeatContext(hold=hold, long=long)


# ── the LEDs and the buzzer ────────────────────────────────────────────────
def led_modes(view: DominoView) -> dict[str, str]:
    """``on``, ``off`` or ``blink`` for each seat's LED.

    Lit: the seat on turn. Blinking: whoever the table waits for (the lead between hands, a
    player over the 15 s, the pair entering or confirming the points, a pair still to sign).

    >>> t = DominoTable()
    >>> _ = t.apply("assign", {"game_id": "G", "players": {"n": "Ana", "e": "Beto", "s": "Carla",
    ...                        "w": "Dani"}}, now=0.0)
    >>> _ = t.apply("tiempo", {"start_wall": 0.0, "wall": 0.0}, now=0.0)
    >>> led_modes(domino_view(t, 1.0))                    # hand 1: anyone may lead
    {'n': 'blink', 'e': 'blink', 's': 'blink', 'w': 'blink'}
    >>> _ = t.apply("press", {"seat": "n"}, now=2.0)
    >>> led_modes(domino_view(t, 3.0))                    # west on turn
    {'n': 'off', 'e': 'off', 's': 'off', 'w': 'on'}
    >>> led_modes(domino_view(t, 20.0))["w"]              # over the 15 s
    'blink'
    """
    modes: dict[str, str] = dict.fromkeys(SEATS, "off")
    st = view.state
    if st == "ready":
        for seat in [view.next_lead] if view.next_lead else SEATS:
            modes[seat] = "blink"
    elif st == "playing" and view.on_turn in modes:
        modes[view.on_turn] = "blink" if view.timer is not None and view.timer.over else "on"
    elif st == "hand_entry" and view.entry is not None:
        pair = view.entry["pair"]
        for seat in SEATS:
            if pair is None or pair_of(seat) == pair:
                modes[seat] = "blink"
    elif st == "hand_confirm" and view.claim is not None:
        claimer = pair_of(view.claim["by"])
        for seat in SEATS:
            if pair_of(seat) != claimer:
                modes[seat] = "blink"
    elif st == "game_over":
        for pair in PAIRS:
            if pair not in view.signed:
                for seat in members(pair):
                    modes[seat] = "blink"
    return modes


# The buzzer: one beep when the player on turn passes the 15 s, two for a warning, three for a
# penalty, a long one when "TIEMPO" is called.
WARNING_BEEP = Beep(count=2)
PENALTY_BEEP = Beep(count=3)
OVER_BEEP = Beep(count=1)


def over_beeps(before: DominoView | None, after: DominoView) -> list[Beep]:
    """One beep when the player on turn passes the 15 s."""
    if (
        before is not None
        and after.timer is not None
        and after.timer.over
        and before.timer is not None
        and before.timer.seat == after.timer.seat
        and not before.timer.over
    ):
        return [OVER_BEEP]
    return []


# ── the hub's assignment and "TIEMPO" ──────────────────────────────────────
def _tiempo(port: AssignPort, start_wall: float) -> Input:
    return parse_input("tiempo", {"start_wall": float(start_wall), "wall": port.wall()})


def on_assignment(port: AssignPort, a: DominoAssignment) -> None:
    """The hub assigns a domino game and calls "TIEMPO" through one retained message
    (:class:`~mesa.protocol.DominoAssignment`): the game's ``args``, and ``tiempo``, the hub's
    wall-clock instant at which the game's time started. It becomes the machine's inputs:

    - a new game: ``assign``, then (when ``tiempo`` is set) ``tiempo {start_wall, wall}`` with
      this table's wall clock at that moment;
    - the same game with a new ``txn`` (the director called "TIEMPO"): ``tiempo``;
    - the same message again (every reconnection, every restart: it is retained): ``tiempo``
      again, unanswered, which re-anchors the game's start on the table's monotonic clock; a
      table that restarts or joins late therefore counts the same 35 minutes as the others;
    - ``args`` null: ``unassign``.
    """
    snap = port.snapshot
    state = snap.get("state", "idle")
    seen = a.txn == port.assign_txn()
    if a.args is None:
        if seen:
            return
        if state == "idle":
            port.done_assign(a.txn, True, None, None)
        else:
            port.submit(Input("unassign", {}), a.txn, "assign")
        return
    same_game = state != "idle" and snap.get("game_id") == a.args.get("game_id")
    if not same_game:
        port.submit(parse_input("assign", a.args), a.txn, "assign")
        if a.tiempo is not None:
            port.submit(_tiempo(port, a.tiempo), a.txn, "sync")
        return
    if a.tiempo is None or state not in TIEMPO_STATES:
        if not seen:
            port.done_assign(a.txn, True, "already_assigned", None)
        return
    # The same game: "TIEMPO" called now, or the retained call read again after a restart
    # or a reconnection (then unanswered: the hub has its answer already).
    port.submit(_tiempo(port, a.tiempo), a.txn, "sync" if seen else "assign")
    port.metrics.inc("tiempo", reason="sync" if seen else "called")


# ── the simulator's hub ────────────────────────────────────────────────────
@dataclass
class AutoAssign(Assigner):
    """The hub's part: assigns the next game when the table is idle or a game has been over and
    signed for ``gap`` s, then calls "TIEMPO" ``tiempo_after`` s later."""

    tiempo_after: float = 5.0
    settings: dict[str, Any] | None = None
    _assigned_at: float | None = None

    def __call__(self, view: DominoView, now: float) -> None:
        """A view listener (runs in the loop)."""
        if view.state == "assigned":
            self._call_tiempo(now)
            return
        game_id = self.next_due(view.state, "game_over", view.game_id, "G", now)
        if game_id is None:
            return
        k = (self.seed * 5 + self.assigned * 4) % len(NAMES)
        names = self.names(k, 4)
        self.sent()
        self._assigned_at = None
        args: dict[str, Any] = {
            "game_id": game_id,
            "players": dict(zip(SEATS, names, strict=True)),
            "language": self.language,
        }
        if self.settings:
            args["settings"] = dict(self.settings)
        self.runtime.submit(Input("assign", args), now)

    def _call_tiempo(self, now: float) -> None:
        if self._assigned_at is None:
            self._assigned_at = now
        if now - self._assigned_at >= self.tiempo_after:
            self._assigned_at = float("inf")  # once
            # The sim's "hub" shares the table's clock: the game starts now.
            wall = time.time()
            self.runtime.submit(Input("tiempo", {"start_wall": wall, "wall": wall}), now)


class Domino(GameModules):
    """The domino plug-in (see the module and :class:`~mesa.controller.games.TableGame`)."""

    name = "domino"
    package = __name__
    seats: tuple[str, ...] = SEATS
    compact_after = COMPACT_AFTER
    heartbeat_states = HEARTBEAT_STATES
    robot_seats: Mapping[str, tuple[str, ...]] = SEAT_ROBOTS
    reference_dir = "docs/oled/domino"
    robot_class = "DominoRobots"
    assignment_schema = DominoAssignment
    # Director commands (``penalty``, ``absence``, ``late``, ``annul``).
    command_schema = DominoCommand
    busy_scene = "playing"

    # ── the runtime ─────────────────────────────────────────────────────
    def new_table(self, settings: Any = None) -> DominoTable:
        return DominoTable()  # a domino game's settings travel in its assignment

    def view(self, table: Any, now: float) -> DominoView:
        return domino_view(table, now)

    def button_context(self, table: Any, extra_buttons: frozenset[str]) -> SeatContext:
        return seat_context(table)

    def restore(self, table: Any, now: float) -> tuple[Outcome, float | None]:
        """Nothing is paused (a domino game has no pause); the link's retained "TIEMPO" then
        re-anchors the game's start exactly."""
        outcome = table.apply("tick", {}, now=now)
        outcome.events.append(ev.TableRestored(state=table.state, reserve={}))
        return outcome, now + 10.0

    def notices(self, table: Any, outcome: Outcome, t: float) -> tuple[str, str, float] | None:
        return None  # the domino screen explains its refusals itself

    def held_result(self, table: Any, inp: Input, t: float) -> None:
        return None  # a signed game's sheet is on screen until the next assignment

    def cheap_tick(self, state: str) -> bool:
        return state not in ("assigned", "checking_in")

    # ── the journal ─────────────────────────────────────────────────────
    def restore_machine(self, snap: dict[str, Any], settings: Any) -> DominoTable:
        # Instants are kept as recorded: the runtime's clock continues at the journal's last one.
        return DominoTable.restore(snap["st"])

    def machine_settings(self, settings: Any) -> dict[str, Any]:
        return {}  # a domino game's settings travel in its snapshot

    def is_lazy(self, outcome: Outcome) -> bool:
        """A tile played in time (the timer's own record, replayed identically anyway)."""
        return outcome.input.name in ("press", "hold") and all(
            e.TYPE == "domino.turn.ended" for e in outcome.events
        )

    # ── the LEDs and the buzzer ─────────────────────────────────────────
    def led_modes(self, view: Any) -> dict[str, str]:
        return led_modes(view)

    def view_beeps(self, before: Any, after: Any, warnings: tuple[float, ...]) -> list[Beep]:
        return over_beeps(before, after)

    def outcome_beeps(self, outcome: Outcome) -> list[Beep]:
        types = {e.TYPE for e in outcome.events}
        beeps = [FLAG_BEEP] if "domino.time.called" in types else []
        if "domino.penalty" in types:
            beeps.append(PENALTY_BEEP)
        elif "domino.play.warning" in types:
            beeps.append(WARNING_BEEP)
        return beeps

    # ── the screen ──────────────────────────────────────────────────────
    def animated(self, view: Any) -> bool:
        return view.state in TIMED_STATES  # the game's time runs: the screen moves

    # ── the hardware and the hub link ───────────────────────────────────
    def recognizer(self, cfg: TableConfig | None) -> SeatGestureRecognizer:
        if cfg is None:
            return SeatGestureRecognizer(GestureSettings())
        b = cfg.buttons
        settings = GestureSettings(
            lockout=b.lockout,
            hold_time=b.hold_time,
            min_press=b.min_press,
            long_hold_time=b.long_hold_time,
        )
        return SeatGestureRecognizer(settings, buttons=tuple(cfg.seat_buttons) or SEAT_BUTTONS)

    def button_pins(self, cfg: TableConfig) -> dict[str, Any]:
        return dict(cfg.seat_buttons)

    def check_config(self, cfg: TableConfig) -> None:
        """A domino table has a button at each seat (or none: inputs only), no clock buttons."""
        from mesa.controller.config import SEAT_PINS, check_number, pins_of

        clock = pins_of(cfg, ("a", "b", "cube", "pause"), ("buttons",))
        clock += pins_of(cfg, ("a", "b"), ("leds",))
        if clock:
            raise ConfigError(f"a domino table has seat buttons, not {', '.join(clock)}")
        seats = cfg.seat_buttons
        if seats and len(seats) != len(SEAT_PINS):
            missing = ", ".join(f"buttons.{n}" for n in SEAT_PINS if n not in seats)
            raise ConfigError(f"a domino table has a button at each seat: {missing} missing")
        b = cfg.buttons
        check_number("buttons.long_hold_time", b.long_hold_time, b.hold_time + 0.5, 6.0)

    def led_pins(self, cfg: TableConfig) -> dict[str, Any]:
        leds = {seat: getattr(cfg.leds, seat) for seat in SEAT_BUTTONS}
        return {k: v for k, v in leds.items() if v is not None}

    def parse_input(self, name: Any, args: Any) -> Input:
        return parse_input(name, args)

    def on_assignment(self, port: AssignPort, assignment: Any) -> None:
        on_assignment(port, assignment)

    # ── the simulator ───────────────────────────────────────────────────
    def robot_style(self, fast: bool, ui: str) -> Any:
        from mesa.controller.games.domino.robots import FAST, DominoRobotStyle

        return FAST if fast else DominoRobotStyle()  # a domino robot plays the buttons only

    def auto_assign(
        self, runtime: TableRuntime, table_id: str, **options: Any
    ) -> Callable[[Any, float], None]:
        options.pop("length", None)  # a domino game has no match length
        return AutoAssign(runtime, table_id, **options)

    def ended(self, outcome: Outcome) -> bool:
        # A game counts once its sheet is signed by both pairs (the robots' last gesture).
        return any(
            e.TYPE == "domino.sheet.signed" and getattr(e, "complete", False)
            for e in outcome.events
        )

    def status_line(self, runtime: TableRuntime, ended: int) -> Mapping[str, Any]:
        now = runtime.now()
        view = runtime.view(now)
        left = view.game_time_left
        return {
            "t": round(now, 4),
            "state": view.state,
            "game": view.game_id,
            "hand": view.hand,
            "on_turn": view.on_turn,
            "time_left": None if left is None else round(left, 4),
            "score": view.score,
            "games": ended,
        }


GAME = Domino()

__all__ = [
    "COMPACT_AFTER",
    "GAME",
    "HEARTBEAT_STATES",
    "TIEMPO_STATES",
    "TIMED_STATES",
    "AutoAssign",
    "Domino",
    "led_modes",
    "on_assignment",
    "seat_context",
]
