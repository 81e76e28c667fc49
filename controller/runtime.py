"""The table's one consumer loop: it owns the :class:`Table`, applies inputs in time order,
feeds ``tick``s, and hands every outcome to the sinks.

>>> from mesa.engine.inputs import Input
>>> clock = ManualClock()
>>> seen = []
>>> class Sink:
...     def on_outcome(self, outcome, snapshot, now):
...         seen.append((outcome.input.name, outcome.state))
>>> rt = TableRuntime(clock=clock, sinks=[Sink()])
>>> rt.submit(Input("assign", {"match_id": "G1-1", "players": {"a": "Ana", "b": "Beto"},
...                            "length": 3}), rt.now())
>>> clock.advance(0.1); _ = rt.step()
>>> seen
[('assign', 'assigned'), ('tick', 'assigned')]
>>> rt.view().players["b"], rt.view().length
('Beto', 3)

Threads: GPIO callbacks, the card reader and the hub link only :meth:`submit` (or
:meth:`submit_edge`); the display thread only reads :meth:`view` and :attr:`status`. Run the loop
with :meth:`start` (its own thread) or call :meth:`step` yourself (tests, virtual time).

Every timestamp is on the table's clock, :meth:`now`: the injected monotonic ``clock`` plus an
offset that a restore from the journal sets, so that the table's time continues where the journal
left it (the time the table was down is nobody's).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from mesa.controller.games import TableGame, as_table_game, table_game, table_game_of
from mesa.controller.ports import OutcomeSink
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome, Refusal

if TYPE_CHECKING:
    from mesa.controller.journal import Recovery

log = logging.getLogger(__name__)


class ScaledClock:
    """A monotonic clock running ``speed`` times faster than real time (the simulator).

    >>> c = ScaledClock(speed=20, start=100.0)
    >>> 100.0 <= c() < 101.0
    True
    """

    def __init__(self, speed: float = 1.0, start: float = 0.0) -> None:
        if not speed > 0:
            raise ValueError("speed must be > 0")
        self.speed = speed
        self._t0 = time.monotonic()
        self._start = start

    def __call__(self) -> float:
        return self._start + (time.monotonic() - self._t0) * self.speed


class ManualClock:
    """A clock that moves only when told (tests, virtual-time simulation).

    >>> c = ManualClock(5.0); c.advance(0.5); c()
    5.5
    """

    speed = 1.0

    def __init__(self, start: float = 0.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds

    def set(self, t: float) -> None:
        self.t = max(self.t, t)


@dataclass(frozen=True)
class Edge:
    """A button contact closed (``pressed``) or opened; ``initial`` is the level at start-up."""

    button: str
    pressed: bool
    initial: bool = False


@dataclass(frozen=True)
class TableStatus:
    """What the runtime knows beside the table's state; the screen shows it.

    ``notice`` is an :mod:`mesa.controller.i18n` key shown until ``notice_until`` (table time).
    ``card_reader`` and ``hub`` are None when the table has none.
    """

    table_id: str = ""
    restored: bool = False
    restored_problems: tuple[str, ...] = ()
    restored_until: float | None = None  # None: until the table leaves the restored state
    restored_state: str | None = None
    notice: str | None = None
    notice_arg: str = ""
    notice_until: float = 0.0
    card_reader: str | None = None  # "ok", "missing"
    display: str | None = None  # "ok", "missing"
    hub: str | None = None  # "online", "offline", "too_old" (a hub of an earlier release)
    disk_full: bool = False  # the outbox cannot store events (they wait in memory)
    extra_buttons: frozenset[str] = frozenset()
    language: str | None = None  # the configured language, for the screen before any match
    # The finished match's last view, kept on screen while the next assignment waits (until a
    # press, which only dismisses it, or a check-in).
    held_result: Any = None


@dataclass
class RuntimeStats:
    inputs: int = 0
    ticks: int = 0
    refused: int = 0
    clamped: int = 0  # inputs stamped before one already applied: applied at that instant
    gated_steps: int = 0  # steps in which inputs waited for a button gesture to be decided
    sink_errors: int = 0
    loop_max_s: float = 0.0  # longest single step (real seconds)
    refusals: dict[str, int] = field(default_factory=dict)


class TableRuntime:
    """The one consumer loop of a table, whatever its game. See the module docstring.

    ``game`` is the table's game (a :class:`~mesa.controller.games.TableGame` or its registered
    name); without it, the game whose machine ``table`` is (backgammon when no table is given).
    The machine (:attr:`table`) and its views are the game's own types.

    ``clock`` is the monotonic clock (``time.monotonic`` on a Pi, :class:`ScaledClock` in the
    simulator, :class:`ManualClock` in tests); ``speed`` is its rate against real time, used only
    to turn the clock's deadlines into real waits. ``sinks`` receive every outcome;
    ``buttons`` (the game's gesture recognizer) turns :meth:`submit_edge` edges into inputs.
    ``tick_interval`` is in real seconds: the display rate.
    """

    def __init__(
        self,
        table: Any = None,
        *,
        game: TableGame | str | None = None,
        clock: Callable[[], float] = time.monotonic,
        speed: float | None = None,
        sinks: Iterable[OutcomeSink] = (),
        buttons: Any = None,
        tick_interval: float = 0.1,
        table_id: str = "",
        extra_buttons: frozenset[str] = frozenset(),
        language: str | None = None,
    ) -> None:
        if game is not None:
            plug = as_table_game(game)
        else:
            plug = table_game_of(table) if table is not None else table_game("backgammon")
        self.game = plug
        self.table: Any = table if table is not None else plug.new_table()
        self._clock = clock
        self.speed = float(speed if speed is not None else getattr(clock, "speed", 1.0))
        self._offset = 0.0
        self._sinks: list[OutcomeSink] = list(sinks)
        self._view_listeners: list[Callable[[Any, float], None]] = []
        self._iteration_hooks: list[Callable[[float], None]] = []
        self.buttons = buttons
        self.tick_interval = tick_interval
        self._queue: queue.SimpleQueue[tuple[str, float, Any]] = queue.SimpleQueue()
        self._pending: list[tuple[float, int, Input]] = []
        self._seq = itertools.count()
        self._lock = threading.RLock()
        self._changed = threading.Condition()
        self._version = 0
        self._next_tick = float("-inf")
        self._latest_view: Any = None
        self._last_snapshot: dict[str, Any] | None = None
        self._status = TableStatus(
            table_id=table_id, extra_buttons=frozenset(extra_buttons), language=language
        )
        self._extra = frozenset(extra_buttons)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.stats = RuntimeStats()
        self._update_context()

    # ── time ────────────────────────────────────────────────────────────
    def now(self) -> float:
        """The table's clock: every submitter stamps its inputs with this."""
        return self._clock() + self._offset

    # ── the seams ───────────────────────────────────────────────────────
    def submit(self, inp: Input, now: float) -> None:
        """Queue ``inp`` stamped ``now`` (:meth:`now`). Thread-safe; never blocks."""
        if not isinstance(inp, Input):
            raise TypeError(f"submit takes an Input, not {type(inp).__name__}")
        self._queue.put(("input", float(now), inp))

    def submit_edge(self, button: str, pressed: bool, now: float, initial: bool = False) -> None:
        """Queue a button edge (GPIO callbacks, the simulator's window). Thread-safe."""
        self._queue.put(("edge", float(now), Edge(button, bool(pressed), initial)))

    def take_queued(self) -> list[tuple[str, float, Any]]:
        """Take what was submitted and not yet taken by the loop (tests and tools only)."""
        out = []
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out

    def add_sink(self, sink: OutcomeSink) -> None:
        with self._lock:
            self._sinks.append(sink)

    def remove_sink(self, sink: OutcomeSink) -> None:
        with self._lock:
            if sink in self._sinks:
                self._sinks.remove(sink)

    def add_view_listener(self, fn: Callable[[Any, float], None]) -> None:
        """``fn(view, now)`` runs in the loop after every step that changed or ticked the table
        (the LEDs and the buzzer); it must be quick."""
        self._view_listeners.append(fn)

    def add_iteration_hook(self, fn: Callable[[float], None]) -> None:
        """``fn(now)`` runs at every loop iteration (the systemd watchdog proves the loop lives)."""
        self._iteration_hooks.append(fn)

    # ── reading (any thread) ────────────────────────────────────────────
    def view(self, now: float | None = None) -> Any:
        """What the display shows, computed at ``now`` (default: the table's clock now): the
        game's view."""
        with self._lock:
            return self.game.view(self.table, self.now() if now is None else now)

    @property
    def latest_view(self) -> Any:
        """The view the loop computed at its last step."""
        return self._latest_view

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return self.table.snapshot()

    @property
    def status(self) -> TableStatus:
        return self._status

    def update_status(self, **changes: Any) -> None:
        """Change what the screen shows beside the table (hub link, card reader, display)."""
        with self._lock:
            self._status = replace(self._status, **changes)
        self._bump()

    def notice(self, key: str, arg: str = "", seconds: float = 5.0) -> None:
        """Show the i18n message ``key`` for ``seconds`` of table time."""
        self.update_status(notice=key, notice_arg=arg, notice_until=self.now() + seconds)

    @property
    def version(self) -> int:
        return self._version

    def wait_for_change(self, version: int, timeout: float) -> int:
        """Block until :attr:`version` differs from ``version`` or ``timeout`` real seconds pass."""
        with self._changed:
            if self._version == version:
                self._changed.wait(timeout)
            return self._version

    def _bump(self) -> None:
        with self._changed:
            self._version += 1
            self._changed.notify_all()

    # ── restore ─────────────────────────────────────────────────────────
    def restore(self, recovery: Recovery) -> Outcome:
        """Adopt a table recovered from the journal, before :meth:`start`.

        The table's clock continues at the last instant the journal knew; what the table does
        first is the game's (:meth:`~mesa.controller.games.TableGame.restore`: a backgammon clock
        that ran resumes paused, a domino game's time never stops). Sinks receive the outcome,
        which carries the machine's events and a ``table.restored`` event.
        """
        with self._lock:
            self.table = recovery.table
            self._last_snapshot = None
            if recovery.last_t is not None:
                self._offset = recovery.last_t - self._clock()
            now = self.now()
            outcome, until = self.game.restore(self.table, now)
            self._status = replace(
                self._status,
                restored=True,
                restored_problems=tuple(recovery.problems),
                restored_state=self.table.state,
                restored_until=until,
            )
            self._update_context()
            self._deliver(outcome)
        self._publish(now)
        return outcome

    # ── the loop ────────────────────────────────────────────────────────
    def step(self, timeout: float = 0.0) -> list[Outcome]:
        """One iteration: take what was queued (waiting up to ``timeout`` real seconds for the
        first item), let the buttons decide, apply what is due in time order, tick when due."""
        started = time.perf_counter()
        items = self._drain(timeout)
        outcomes: list[Outcome] = []
        with self._lock:
            now = self.now()
            for kind, t, payload, _ in sorted(items, key=lambda x: (x[1], x[3])):
                if kind == "input":
                    heapq.heappush(self._pending, (t, next(self._seq), payload))
                elif kind == "edge" and self.buttons is not None:
                    # What was decided before the edge goes first, so the edge meets the state
                    # it left (never past the gate of a gesture still undecided).
                    for t_in, inp in self.buttons.poll(min(t, now)):
                        heapq.heappush(self._pending, (t_in, next(self._seq), inp))
                    gate = self.buttons.gate()
                    outcomes += self._apply_due(t if gate is None else min(t, gate))
                    if payload.initial:
                        self.buttons.start({payload.button: payload.pressed}, t)
                    else:
                        self.buttons.edge(payload.button, payload.pressed, t)
            gate = None
            if self.buttons is not None:
                for t, inp in self.buttons.poll(now):
                    heapq.heappush(self._pending, (t, next(self._seq), inp))
                gate = self.buttons.gate()
            limit = now if gate is None else min(now, gate)
            if self._pending and gate is not None and self._pending[0][0] > limit:
                self.stats.gated_steps += 1
            outcomes += self._apply_due(limit)
            ticked = False
            if gate is None and now >= self._next_tick:
                outcomes.append(self._apply(Input("tick"), now))
                self.stats.ticks += 1
                self._next_tick = now + self.tick_interval * self.speed
                ticked = True
            self._expire_status(now)
        if outcomes or ticked:
            self._publish(now)
        for hook in self._iteration_hooks:
            try:
                hook(now)
            except Exception:  # a hook must never stop the clock
                log.exception("iteration hook failed")
        self.stats.loop_max_s = max(self.stats.loop_max_s, time.perf_counter() - started)
        return outcomes

    def _drain(self, timeout: float) -> list[tuple[str, float, Any, int]]:
        items: list[tuple[str, float, Any, int]] = []
        try:
            first = self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait()
        except queue.Empty:
            return items
        pending = [first]
        while True:
            try:
                pending.append(self._queue.get_nowait())
            except queue.Empty:
                break
        for kind, t, payload in pending:
            if kind != "wake":
                items.append((kind, t, payload, next(self._seq)))
        return items

    def _apply_due(self, limit: float) -> list[Outcome]:
        out = []
        while self._pending and self._pending[0][0] <= limit:
            t, _, inp = heapq.heappop(self._pending)
            out.append(self._apply(inp, t))
        return out

    def _apply(self, inp: Input, t: float) -> Outcome:
        last = self.table.s.last_now
        if last is not None and t < last:
            # Stamped before an input already applied (a race of milliseconds between a
            # submitter's clock read and its enqueue): apply it now rather than lose it.
            t = last
            self.stats.clamped += 1
        before = self.table.state
        if inp.name == "press" and self._status.held_result is not None and before == "assigned":
            # The last match's result is still on screen: this press only reveals the new
            # assignment (a player of the finished match must not check in a stranger).
            self._status = replace(self._status, held_result=None)
            self._update_context()
            refusal = Refusal("result_shown", "the press dismissed the last match's result")
            return Outcome(inp, t, before, refusal=refusal)
        held = self.game.held_result(self.table, inp, t)
        # By name, not by Input: the machine validates the arguments and fills in defaults only
        # on that path, and a submitter's Input may have been built by hand.
        outcome = self.table.apply(inp.name, inp.args, now=t)
        if held is not None and outcome.accepted:
            self._status = replace(self._status, held_result=held)
        elif self._status.held_result is not None and outcome.state != "assigned":
            self._status = replace(self._status, held_result=None)
        if inp.name != "tick":
            self.stats.inputs += 1
        if outcome.refusal is not None:
            self.stats.refused += 1
            code = outcome.refusal.code
            self.stats.refusals[code] = self.stats.refusals.get(code, 0) + 1
        notice = self.game.notices(self.table, outcome, t)
        if notice is not None:
            key, arg, until = notice
            self._status = replace(self._status, notice=key, notice_arg=arg, notice_until=until)
        if (
            self._status.restored
            and self._status.restored_until is None
            and outcome.state != self._status.restored_state
        ):
            self._status = replace(self._status, restored=False)
        if outcome.state != before or outcome.events or inp.name != "tick":
            self._update_context()
        self._deliver(outcome)
        return outcome

    def _update_context(self) -> None:
        if self.buttons is not None:
            self.buttons.context = self.game.button_context(self.table, self._extra)

    def _expire_status(self, now: float) -> None:
        s = self._status
        if s.notice is not None and now >= s.notice_until:
            self._status = replace(s, notice=None, notice_arg="")
            s = self._status
        if s.restored and s.restored_until is not None and now >= s.restored_until:
            self._status = replace(s, restored=False)

    def _deliver(self, outcome: Outcome) -> None:
        """Hand ``outcome`` to every sink with the snapshot right after it (in the loop)."""
        if not self._sinks:
            return
        snapshot = self._snapshot_after(outcome)
        for sink in list(self._sinks):
            try:
                sink.on_outcome(outcome, snapshot, outcome.now)
            except Exception:  # a failing sink (hub down, disk full) must not stop the clock
                self.stats.sink_errors += 1
                if self.stats.sink_errors <= 20 or self.stats.sink_errors % 1000 == 0:
                    log.exception("sink %r failed", sink)

    def _snapshot_after(self, outcome: Outcome) -> dict[str, Any]:
        """:meth:`Table.snapshot` after ``outcome``, cheaply for the common case.

        A ``tick`` that settled nothing changes only ``last_now`` outside check-in (where
        lateness marks advance silently), so the previous snapshot serves with that one field
        replaced: serializing the whole state ten times a second would cost a Pi Zero more than
        everything else the loop does. Snapshots are shared, read-only.
        """
        prev = self._last_snapshot
        if (
            prev is not None
            and outcome.input.name == "tick"
            and outcome.accepted
            and not outcome.events
            and self.table.state == prev["state"]
            and self.game.cheap_tick(self.table.state)
        ):
            snapshot = dict(prev)
            snapshot["last_now"] = self.table.s.last_now
        else:
            snapshot = self.table.snapshot()
        self._last_snapshot = snapshot
        return snapshot

    def _publish(self, now: float) -> None:
        with self._lock:
            view = self.game.view(self.table, now)
        self._latest_view = view
        self._bump()
        for fn in self._view_listeners:
            try:
                fn(view, now)
            except Exception:
                log.exception("view listener failed")

    def _wait_time(self) -> float:
        """Real seconds until the loop has something to do without new input."""
        now = self.now()
        deadlines = [self._next_tick]
        if self.buttons is not None:
            d = self.buttons.deadline()
            if d is not None:
                deadlines.append(d)
        if self._pending:
            deadlines.append(self._pending[0][0])
        wait = (min(deadlines) - now) / self.speed
        return min(max(wait, 0.0005), self.tick_interval)

    def run(self, stop: threading.Event | None = None) -> None:
        """Run the loop in this thread until ``stop`` (or :meth:`stop`) is set."""
        stop = stop or self._stop
        while not stop.is_set() and not self._stop.is_set():
            self.step(timeout=self._wait_time())

    def start(self) -> None:
        """Run the loop in its own thread."""
        if self._thread is not None:
            raise RuntimeError("the runtime is already running")
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, name="mesa-table-loop", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the loop thread (what is queued stays queued)."""
        self._stop.set()
        self._queue.put(("wake", 0.0, None))
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> TableRuntime:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
