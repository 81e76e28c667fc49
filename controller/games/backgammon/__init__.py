"""Backgammon at the table: two clock buttons (and optional CUBE/PAUSE), a chess clock, a match.

What the generic table program (:mod:`mesa.controller.games`) asks of a game, for backgammon:
the buttons' context (:func:`button_context`), the restore (a clock that ran resumes paused),
the notices of refused doubles and unknown cards, the journal's chapters, the LEDs and low-time
warnings (:func:`led_modes`, :func:`warnings_between`), the screen (:mod:`.oled`) and its
reference scenes (:mod:`.scenes`), the hub's retained assignment (:func:`on_assign`), the
robots (:mod:`.robots`), the simulator's keys (:mod:`.shell`) and hub (:class:`AutoAssign`).

>>> from mesa.controller.games import TableGame
>>> isinstance(GAME, TableGame), GAME.name
(True, 'backgammon')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mesa import events as ev
from mesa.controller.games import GameModules
from mesa.controller.games.backgammon.gestures import BUTTONS, Context, GestureRecognizer
from mesa.controller.gestures import GestureSettings
from mesa.controller.gpio import FLAG_BEEP, Beep
from mesa.controller.sim import NAMES, Assigner
from mesa.core.sides import SIDES
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome
from mesa.errors import ConfigError
from mesa.games.backgammon.inputs import parse_input
from mesa.games.backgammon.machine import Table, TableSettings
from mesa.games.backgammon.transitions import TRANSITIONS
from mesa.games.backgammon.view import View, table_view
from mesa.protocol import Assignment, Command
from mesa.validation import check_range, check_value

if TYPE_CHECKING:
    from mesa.controller.config import TableConfig
    from mesa.controller.link import AssignPort
    from mesa.controller.runtime import TableRuntime

CLOCK_STATES = ("running", "cube_offered")
# Refused doubles the screen explains for a moment (notice key per refusal code).
REFUSAL_NOTICES = {
    "crawford": "refusal.crawford",
    "double_match_point": "refusal.double_match_point",
}
REFUSAL_NOTICE_S = 2.0
# Events that close a chapter of the match: the journal starts a new generation right after them.
COMPACT_AFTER = frozenset(
    {"table.assigned", "table.unassigned", "match.started", "game.ended", "match.ended"}
)
HEARTBEAT_STATES = frozenset({"assigned", "checking_in", "running", "cube_offered"})
# ``mesa sim --robots``: who the robots play.
SEAT_ROBOTS: dict[str, tuple[str, ...]] = {"both": ("a", "b"), "a": ("a",), "b": ("b",), "none": ()}


# ── the buttons ────────────────────────────────────────────────────────────
def button_context(table: Table, extra_buttons: frozenset[str] = frozenset()) -> Context:
    """What a hold, both buttons, or a press on the edge mean in the table's current state.

    >>> from mesa.games.backgammon.machine import Table
    >>> button_context(Table()).hold
    {'a': False, 'b': False}
    """
    st = table.state
    s = table.s
    hold = {"a": False, "b": False}
    has_cube, has_pause = "cube" in extra_buttons, "pause" in extra_buttons
    if st == "running" and s.clock is not None and s.match is not None:
        side = s.clock.on_move
        # With a CUBE button a hold never doubles; without one it does when a double is legal,
        # and a long press that cannot double still ends the turn, except in the Crawford game
        # and at DMP: there the hold goes to the table, which refuses it, and the screen says why.
        if side is not None and not has_cube:
            refusal = s.match.double_refusal(side)
            hold[side] = refusal is None or refusal.code in REFUSAL_NOTICES
    elif st == "cube_offered" and s.match is not None and s.match.cube_offered_by is not None:
        hold["b" if s.match.cube_offered_by == "a" else "a"] = True
    elif st in ("paused", "result_entry"):
        hold = {"a": True, "b": True}
    both = st in ("between_games", "running", "cube_offered", "paused", "result_entry")
    edge: dict[str, bool] = {side: has_cube and has_pause and not hold[side] for side in SIDES}
    if st not in ("running", "between_games", "assigned", "checking_in"):
        edge = {"a": False, "b": False}
    return Context(hold=hold, both=both, edge=edge)


def button_pins(cfg: TableConfig) -> dict[str, Any]:
    """The configured buttons' pins, by button name."""
    return {
        name: getattr(cfg.buttons, name)
        for name in BUTTONS
        if getattr(cfg.buttons, name) is not None
    }


# ── the LEDs and the buzzer ────────────────────────────────────────────────
def led_modes(view: View) -> dict[str, str]:
    """``on``, ``off`` or ``blink`` for each clock button's LED: the lit one is on move.

    >>> from mesa.games.backgammon.machine import Table
    >>> from mesa.games.backgammon.view import table_view
    >>> led_modes(table_view(Table(), 0.0))
    {'a': 'off', 'b': 'off'}
    """
    st = view.state
    modes = {"a": "off", "b": "off"}
    if st in ("running", "cube_offered") and view.on_move in modes:
        modes[view.on_move] = "on"
    elif st in ("assigned", "checking_in"):
        # Invite the players who have not checked in yet to press.
        for side in modes:
            modes[side] = "on" if side in view.checked_in else "blink"
    elif st == "between_games":
        modes = {"a": "blink", "b": "blink"}
    elif st in ("paused", "result_entry") and view.on_move in modes:
        modes[view.on_move] = "blink"
    elif st == "match_over" and view.winner in modes:
        modes[view.winner] = "on"
    return modes


def time_left(view: View) -> float | None:
    """Seconds until the flag of the player on move falls (reserve + delay left)."""
    if view.state not in ("running", "cube_offered") or not view.timed or view.on_move is None:
        return None
    c = view.clocks.get(view.on_move)
    return None if c is None else c.reserve + c.delay


def warnings_between(before: View | None, after: View, thresholds: Iterable[float]) -> list[Beep]:
    """The low-time warnings crossed from ``before`` to ``after`` within one turn.

    One beep at the highest threshold, two at the next, three at the last (60, 30, 10 s).

    >>> from mesa.games.backgammon.view import ClockView
    >>> from dataclasses import replace
    >>> from mesa.games.backgammon.machine import Table
    >>> from mesa.games.backgammon.view import table_view
    >>> v = replace(table_view(Table(), 0.0), state="running", timed=True, on_move="a",
    ...             clocks={"a": ClockView(61.0, 61.0, 0.0, True)})
    >>> w = replace(v, clocks={"a": ClockView(59.5, 59.5, 0.0, True)})
    >>> warnings_between(v, w, (60, 30, 10))
    [Beep(count=1, on=0.08, off=0.12)]
    """
    if before is None or before.on_move != after.on_move or before.game != after.game:
        return []
    t0, t1 = time_left(before), time_left(after)
    if t0 is None or t1 is None:
        return []
    out = []
    for i, th in enumerate(sorted(thresholds, reverse=True)):
        if t1 <= th < t0:
            out.append(Beep(count=i + 1))
    return out


# ── the hub's assignment ───────────────────────────────────────────────────
def same_assignment(snapshot: Mapping[str, Any], args: Mapping[str, Any]) -> bool:
    """Whether ``args`` assign the match the table holds: the same match, between the same
    players, to the same length. A correction upstream can send the same match id with other
    players (a semifinal's winner changed): that is a new assignment, not a repeat.

    >>> held = {"match_id": "KO-F-1", "players": {"a": "Ana", "b": "Beto"}, "match": {"length": 7}}
    >>> same_assignment(held, {"match_id": "KO-F-1", "players": {"a": "Ana", "b": "Beto"},
    ...                        "length": 7})
    True
    >>> same_assignment(held, {"match_id": "KO-F-1", "players": {"a": "Ana", "b": "Carla"},
    ...                        "length": 7})
    False
    """
    match = snapshot.get("match")
    return (
        snapshot.get("match_id") == args.get("match_id")
        and snapshot.get("players") == args.get("players")
        and isinstance(match, dict)
        and match.get("length") == args.get("length")
    )


def holds(snapshot: Mapping[str, Any], args: Mapping[str, Any] | None) -> bool:
    """Whether the table is where the assignment ``args`` left it: idle for a withdrawal, the
    same assignment under its epoch otherwise (a table restored from a journal that lost the
    last lines, or an empty one, is not, even if the link remembers the assignment's txn)."""
    if args is None:
        return snapshot.get("state", "idle") == "idle"
    return (
        snapshot.get("state", "idle") != "idle"
        and same_assignment(snapshot, args)
        and snapshot.get("epoch") == args.get("epoch")
    )


def _reassign(port: AssignPort, a: Assignment, args: dict[str, Any]) -> None:
    """The same match as the one held, given again."""
    snap = port.snapshot
    epoch, held = args.get("epoch"), snap.get("epoch")
    if isinstance(epoch, int) and isinstance(held, int) and epoch < held:
        # Older than the one we play under (a hub restored from an old backup):
        # taking it would not help, and saying "done" would hide it.
        reason = f"assignment epoch {epoch} is older than {held}"
        port.done_assign(a.txn, False, "stale_epoch", reason)
        return
    if isinstance(epoch, int) and (held is None or epoch > held):
        if snap.get("state") == "match_over":
            # Given again after it ended here (annulled, and drawn again between the
            # same players): there is nothing to go on with, it is played afresh.
            port.submit(parse_input("assign", args), a.txn, "assign")
            return
        # Assigned here again, and the withdrawal in between never reached us (moved
        # away and back while we were offline, and the broker lost our queue): the
        # match goes on under the hub's newer epoch, or every event of it is fenced.
        port.submit(Input("refence", {"epoch": epoch}), a.txn, "assign")
        return
    # Applied before a restart whose journal we were restored from.
    port.done_assign(a.txn, True, "already_assigned", None)


def on_assign(port: AssignPort, a: Assignment) -> None:
    """Bring the table to the retained assignment, the hub's latest word for it."""
    if port.in_flight(a.txn):
        return  # a copy of one still on its way (QoS 1 redelivery, the retained copy)
    snap = port.snapshot
    has_match = snap.get("state", "idle") != "idle"
    # An earlier assignment still on its way to the table (queued while we were offline:
    # "unassign", then the same match again) makes the snapshot old news: this one goes
    # to the table in order after it, never answered from the snapshot.
    settled = port.settled()
    if settled and a.txn == port.assign_txn() and holds(snap, a.args):
        return  # the retained assignment, delivered again on reconnect: already applied
    if a.args is None:
        if settled and not has_match:
            port.done_assign(a.txn, True, None, None)
            return
        port.submit(Input("unassign", {}), a.txn, "assign")
        return
    if settled and has_match and same_assignment(snap, a.args):
        _reassign(port, a, a.args)
        return
    if settled and has_match and (snap.get("state"), "assign") not in TRANSITIONS:
        # Another match (or the same one with other players) while a game is on: the hub
        # has withdrawn ours already, and that withdrawal was lost on the way. Do it now.
        port.submit(Input("unassign", {}), a.txn, "quiet")
    port.submit(parse_input("assign", a.args), a.txn, "assign")


# ── the simulator's hub ────────────────────────────────────────────────────
@dataclass
class AutoAssign(Assigner):
    """Assigns the next match when the table is idle or a match has been over for ``gap`` s."""

    length: int = 3

    def __call__(self, view: View, now: float) -> None:
        """A view listener (runs in the loop)."""
        match_id = self.next_due(view.state, "match_over", view.match_id, "M", now)
        if match_id is None:
            return
        k = (self.seed * 7 + self.assigned * 2) % len(NAMES)
        a, b = self.names(k, 2)[:2]
        self.sent()
        args = {
            "match_id": match_id,
            "players": {"a": a, "b": b},
            "length": self.length,
            "clock": {"preset": "singles"},
            "cards": {"a": f"SIM{k:02d}A", "b": f"SIM{k:02d}B"},
            "language": self.language,
        }
        self.runtime.submit(Input("assign", args), now)


class Backgammon(GameModules):
    """The backgammon plug-in (see the module and :class:`~mesa.controller.games.TableGame`)."""

    name = "backgammon"
    package = __name__
    seats: tuple[str, ...] = SIDES
    compact_after = COMPACT_AFTER
    heartbeat_states = HEARTBEAT_STATES
    robot_seats: Mapping[str, tuple[str, ...]] = SEAT_ROBOTS
    reference_dir = "docs/oled"
    robot_class = "RobotPlayers"
    assignment_schema = Assignment
    command_schema = Command
    busy_scene = "running"

    # ── the runtime ─────────────────────────────────────────────────────
    def new_table(self, settings: Any = None) -> Table:
        return Table(settings=settings)  # None: the default settings

    def view(self, table: Any, now: float) -> View:
        return table_view(table, now)

    def button_context(self, table: Any, extra_buttons: frozenset[str]) -> Context:
        return button_context(table, extra_buttons)

    def restore(self, table: Any, now: float) -> tuple[Outcome, float | None]:
        """A clock that ran is paused where the journal left it: the players resume when they
        are ready ("restored" stays on screen while the table is paused)."""
        state = table.state
        inp = Input("pause", {"reason": "unspecified"}) if state in CLOCK_STATES else Input("tick")
        outcome = table.apply(inp.name, inp.args, now=now)
        reserve = dict(table.s.clock.reserve) if table.s.clock else {}
        outcome.events.append(ev.TableRestored(state=state, reserve=reserve))
        return outcome, None if table.state == "paused" else now + 10.0

    def notices(self, table: Any, outcome: Outcome, t: float) -> tuple[str, str, float] | None:
        notice = None
        r = outcome.refusal
        if (
            r is not None
            and r.code in REFUSAL_NOTICES
            and outcome.input.name in ("hold", "double", "cube")
        ):
            notice = (REFUSAL_NOTICES[r.code], "", t + REFUSAL_NOTICE_S)
        for e in outcome.events:
            if isinstance(e, ev.CardRejected):
                notice = ("notice.unknown_card", e.card[:16], t + 5.0)
        return notice

    def held_result(self, table: Any, inp: Input, t: float) -> View | None:
        """The finished match stays on screen while the next assignment waits."""
        if inp.name == "assign" and table.state == "match_over":
            return table_view(table, t)
        return None

    def cheap_tick(self, state: str) -> bool:
        # At check-in, lateness marks advance silently on ticks.
        return state not in ("assigned", "checking_in")

    # ── the journal ─────────────────────────────────────────────────────
    def restore_machine(self, snap: dict[str, Any], settings: Any) -> Table:
        raw = snap.get("set")
        if raw:
            if not isinstance(raw, dict) or set(raw) - {"bounce", "simultaneous"}:
                raise TypeError(f"settings {raw!r}")
            for key, value in raw.items():
                check_value(key, float, value)
                check_range(key, value, 0.0, 10.0)
        chosen = TableSettings(**raw) if raw else settings or TableSettings()
        state = snap["st"]
        if not isinstance(state, dict):
            raise TypeError(f"the state is a {type(state).__name__}, not an object")
        return Table.restore(state, chosen)

    def machine_settings(self, settings: Any) -> dict[str, Any]:
        s = settings or TableSettings()
        return {"bounce": s.bounce, "simultaneous": s.simultaneous}

    def is_lazy(self, outcome: Outcome) -> bool:
        """An ordinary turn end may wait for the periodic sync."""
        return outcome.input.name == "press" and all(e.TYPE == "turn.ended" for e in outcome.events)

    # ── the LEDs and the buzzer ─────────────────────────────────────────
    def led_modes(self, view: Any) -> dict[str, str]:
        return led_modes(view)

    def view_beeps(self, before: Any, after: Any, warnings: tuple[float, ...]) -> list[Beep]:
        return warnings_between(before, after, warnings)

    def outcome_beeps(self, outcome: Outcome) -> list[Beep]:
        return [FLAG_BEEP] if any(e.TYPE == "clock.flag_fell" for e in outcome.events) else []

    # ── the screen ──────────────────────────────────────────────────────
    def animated(self, view: Any) -> bool:
        return any(c.running for c in view.clocks.values())

    # ── the hardware and the hub link ───────────────────────────────────
    def recognizer(self, cfg: TableConfig | None) -> GestureRecognizer:
        if cfg is None:
            return GestureRecognizer(GestureSettings())
        b = cfg.buttons
        return GestureRecognizer(
            GestureSettings(lockout=b.lockout, hold_time=b.hold_time, min_press=b.min_press),
            buttons=tuple(button_pins(cfg)) or BUTTONS,
        )

    def button_pins(self, cfg: TableConfig) -> dict[str, Any]:
        return button_pins(cfg)

    def check_config(self, cfg: TableConfig) -> None:
        """A backgammon table has the clock buttons, not a domino table's seat buttons."""
        from mesa.controller.config import SEAT_PINS, pins_of

        seat = pins_of(cfg, SEAT_PINS, ("buttons", "leds"))
        if seat:
            raise ConfigError(
                f'{", ".join(seat)}: seat buttons belong to a domino table (table.game = "domino")'
            )

    def led_pins(self, cfg: TableConfig) -> dict[str, Any]:
        return {k: v for k, v in {"a": cfg.leds.a, "b": cfg.leds.b}.items() if v is not None}

    def parse_input(self, name: Any, args: Any) -> Input:
        return parse_input(name, args)

    def on_assignment(self, port: AssignPort, assignment: Any) -> None:
        on_assign(port, assignment)

    # ── the simulator ───────────────────────────────────────────────────
    def robot_style(self, fast: bool, ui: str) -> Any:
        from mesa.controller.games.backgammon.robots import FAST, RobotStyle

        if fast:
            return FAST if ui == "menu" else RobotStyle(**{**FAST.__dict__, "ui": ui})
        return RobotStyle(ui=ui)

    def auto_assign(
        self, runtime: TableRuntime, table_id: str, **options: Any
    ) -> Callable[[Any, float], None]:
        return AutoAssign(runtime, table_id, **options)

    def ended(self, outcome: Outcome) -> bool:
        return any(e.TYPE == "match.ended" for e in outcome.events)

    def status_line(self, runtime: TableRuntime, ended: int) -> Mapping[str, Any]:
        now = runtime.now()
        view = runtime.view(now)
        return {
            "t": round(now, 4),
            "state": view.state,
            "match": view.match_id,
            "on_move": view.on_move,
            "reserve": {s: round(c.reserve, 4) for s, c in view.clocks.items()},
            "score": view.score,
            "game": view.game,
            "matches": ended,
        }


GAME = Backgammon()

__all__ = [
    "CLOCK_STATES",
    "COMPACT_AFTER",
    "GAME",
    "HEARTBEAT_STATES",
    "REFUSAL_NOTICES",
    "REFUSAL_NOTICE_S",
    "Backgammon",
    "button_context",
    "holds",
    "led_modes",
    "on_assign",
    "same_assignment",
    "time_left",
    "warnings_between",
]
