"""The table's games as plug-ins: what the one generic table program asks of a game.

The runtime, the journal, the app, the link, the LEDs and buzzer, the simulator and the command
line (:mod:`mesa.controller.runtime`, ``journal``, ``app``, ``link``, ``gpio``, ``sim``, ``cli``)
are written once. What differs per game lives in one package per game in this folder, named as the
game is in :mod:`mesa.games.registry` (``backgammon``, ``domino``), and exposing ``GAME``: an
object that satisfies :class:`TableGame`.

>>> table_game("domino").name, table_game("backgammon").seats
('domino', ('a', 'b'))
>>> isinstance(table_game("domino"), TableGame)
True
>>> from mesa.games.domino.machine import DominoTable
>>> table_game_of(DominoTable()).name
'domino'

Adding a game: register it in :mod:`mesa.games.registry`, write ``controller/games/<name>/``
with a ``GAME`` that passes the ``isinstance`` check above, and its reference scenes.
"""

from __future__ import annotations

import argparse
import importlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from mesa.games.registry import game_named, games

if TYPE_CHECKING:
    from pathlib import Path

    from mesa.controller.config import TableConfig
    from mesa.controller.gpio import Beep
    from mesa.controller.link import AssignPort
    from mesa.controller.oled_references import Scene
    from mesa.controller.runtime import TableRuntime, TableStatus
    from mesa.engine.inputs import Input
    from mesa.engine.outcome import Outcome


@runtime_checkable
class TableGame(Protocol):
    """What a game gives the generic table program. Every member is used; none is optional.

    The machine and its view are the game's own types (:mod:`mesa.games.registry` names them):
    the generic code only calls ``apply``, ``snapshot``, ``state`` and ``s.last_now`` on the
    machine and hands the view, untouched, back to the game's own functions below.
    """

    name: str  # the registry's name
    seats: tuple[str, ...]  # the seats (and the buttons' names) of its players
    # ── the runtime ─────────────────────────────────────────────────────
    def new_table(self, settings: Any = None) -> Any:
        """A fresh machine (``settings``: the journal's, for a game that has any)."""
        ...

    def view(self, table: Any, now: float) -> Any:
        """The plain view the screen, the LEDs and the robots read."""
        ...

    def button_context(self, table: Any, extra_buttons: frozenset[str]) -> Any:
        """What the buttons' longer gestures mean now (the recognizer's ``context``)."""
        ...

    def restore(self, table: Any, now: float) -> tuple[Outcome, float | None]:
        """Apply what a table restored from its journal does first; returns the outcome (with a
        ``table.restored`` event) and until when the screen says "restored" (None: until the
        table leaves the state it was restored in)."""
        ...

    def notices(self, table: Any, outcome: Outcome, t: float) -> tuple[str, str, float] | None:
        """A notice the screen shows after ``outcome``: (i18n key, argument, until), or None."""
        ...

    def held_result(self, table: Any, inp: Input, t: float) -> Any:
        """The view to keep on screen when ``inp`` replaces a finished match (or None)."""
        ...

    def cheap_tick(self, state: str) -> bool:
        """Whether a tick that settled nothing in ``state`` changes only ``last_now``."""
        ...

    # ── the journal ─────────────────────────────────────────────────────
    compact_after: frozenset[str]  # events after which a new generation starts
    heartbeat_states: frozenset[str]  # states in which heartbeats note the time

    def restore_machine(self, snap: dict[str, Any], settings: Any) -> Any:
        """The machine of a journal's snapshot record (raises when it is not one)."""
        ...

    def machine_settings(self, settings: Any) -> dict[str, Any]:
        """What a snapshot record stores beside the state (``set``)."""
        ...

    def is_lazy(self, outcome: Outcome) -> bool:
        """A record that may wait for the periodic sync."""
        ...

    # ── the LEDs and the buzzer ─────────────────────────────────────────
    def led_modes(self, view: Any) -> dict[str, str]:
        """``on``, ``off`` or ``blink`` for each LED."""
        ...

    def view_beeps(self, before: Any, after: Any, warnings: tuple[float, ...]) -> list[Beep]:
        """The cues the change from view ``before`` to ``after`` plays."""
        ...

    def outcome_beeps(self, outcome: Outcome) -> list[Beep]:
        """The cues an outcome's events play."""
        ...

    # ── the screen ──────────────────────────────────────────────────────
    def render(self, view: Any, status: TableStatus, now: float, size: tuple[int, int]) -> Any:
        """The OLED's image of ``view``."""
        ...

    def animated(self, view: Any) -> bool:
        """Whether the screen changes without any input (a clock runs)."""
        ...

    def scenes(self) -> Iterable[Scene[Any]]:
        """The reference screens (``mesa oled-refs``, the golden images)."""
        ...

    reference_dir: str  # where ``mesa oled-refs`` writes them
    busy_scene: str  # the scene of a game on (the hardware check shows it on the display)

    # ── the hardware and the hub link ───────────────────────────────────
    def recognizer(self, cfg: TableConfig | None) -> Any:
        """The gesture recognizer of its buttons (``cfg`` None: the simulator's defaults)."""
        ...

    def button_pins(self, cfg: TableConfig) -> dict[str, Any]:
        """The configured buttons' pins, by button name."""
        ...

    def check_config(self, cfg: TableConfig) -> None:
        """Raise :class:`~mesa.errors.ConfigError` when ``cfg``'s buttons and LEDs are not this
        game's (its section of the configuration)."""
        ...

    def led_pins(self, cfg: TableConfig) -> dict[str, Any]:
        """The configured LEDs' pins, by LED name."""
        ...

    def on_message(self, port: AssignPort, kind: str, payload: bytes) -> None:
        """Act on the hub's ``assign`` or ``cmd`` message (decoded by the game's schema)."""
        ...

    # ── the simulator and the command line ──────────────────────────────
    robot_seats: Mapping[str, tuple[str, ...]]  # ``--robots``' both/a/b/none → the seats played

    def robots(self, seats: tuple[str, ...], seed: int, style: Any) -> Any:
        """Robot players for ``seats`` (a :class:`~mesa.controller.robot_plans.PlannedPlayers`)."""
        ...

    def robot_style(self, fast: bool, ui: str) -> Any:
        """The robots' style: ``fast`` for demos and tests; ``ui`` the inputs they use."""
        ...

    def auto_assign(
        self, runtime: TableRuntime, table_id: str, **options: Any
    ) -> Callable[[Any, float], None]:
        """The hub's part in a simulator: a view listener that assigns the next game."""
        ...

    def ended(self, outcome: Outcome) -> bool:
        """Whether ``outcome`` ends what the simulator counts (a match, a signed game)."""
        ...

    def status_line(self, runtime: TableRuntime, ended: int) -> Mapping[str, Any]:
        """The headless simulator's figures of the table now (``ended``: the count so far)."""
        ...

    def run_ui(self, sim: Any, ui: str, args: argparse.Namespace, stop: threading.Event) -> None:
        """The simulator's ``terminal`` or ``window``: the screen and the keys, until ``stop``."""
        ...

    def write_references(self, folder: Path) -> list[Path]:
        """Write the reference screens and their captioned index into ``folder``."""
        ...


class GameModules(ABC):
    """What every plug-in does alike, written once.

    The members that live in its folder's own modules, imported when first used (the screen
    needs PIL, the shell a terminal): ``oled.render``, ``scenes.scenes``,
    ``scenes.write_references``, ``shell.run_ui`` and the robots' class ``robots.<robot_class>``
    of the package ``package``. And the hub's two messages, decoded by the game's schemas: an
    ``assign`` goes to the game's :meth:`on_assignment`, a ``cmd`` is a director's input,
    submitted and answered on ``response``.
    """

    package: str  # the plug-in's package, "mesa.controller.games.<name>"
    robot_class: str  # its robot players' class in ``<package>.robots``
    assignment_schema: type[Any]  # the retained ``assign`` message (:mod:`mesa.protocol`)
    command_schema: type[Any]  # the director's ``cmd`` message

    def _part(self, module: str, name: str) -> Any:
        return getattr(importlib.import_module(f"{self.package}.{module}"), name)

    def render(self, view: Any, status: TableStatus, now: float, size: tuple[int, int]) -> Any:
        return self._part("oled", "render")(view, status, now, size)

    def scenes(self) -> Iterable[Scene[Any]]:
        scenes: Iterable[Scene[Any]] = self._part("scenes", "scenes")()
        return scenes

    def write_references(self, folder: Path) -> list[Path]:
        written: list[Path] = self._part("scenes", "write_references")(folder)
        return written

    def run_ui(self, sim: Any, ui: str, args: argparse.Namespace, stop: threading.Event) -> None:
        self._part("shell", "run_ui")(sim, ui, args, stop)

    def robots(self, seats: tuple[str, ...], seed: int, style: Any) -> Any:
        return self._part("robots", self.robot_class)(seats, seed=seed, style=style)

    # ── the hub's messages ──────────────────────────────────────────────
    @abstractmethod
    def parse_input(self, name: Any, args: Any) -> Input:
        """One of the game's inputs, validated (:class:`~mesa.engine.inputs.InputError`)."""

    @abstractmethod
    def on_assignment(self, port: AssignPort, assignment: Any) -> None:
        """Bring the table to the hub's retained assignment (decoded)."""

    def on_message(self, port: AssignPort, kind: str, payload: bytes) -> None:
        from mesa.protocol import decode

        if kind == "assign":
            self.on_assignment(port, decode(self.assignment_schema, payload, port.table))
        else:
            c = decode(self.command_schema, payload, port.table)
            port.submit(self.parse_input(c.input, c.args), c.txn, "cmd")


# What a plug-in must have (to name what one lacks): the protocol's attributes and methods.
_MEMBERS = sorted(
    {*TableGame.__annotations__, *(m for m in vars(TableGame) if not m.startswith("_"))}
)


def table_game(name: str) -> TableGame:
    """The plug-in of the registered game ``name`` (:class:`~mesa.games.registry.UnknownGame`
    when there is no such game)."""
    game_named(name)
    game = importlib.import_module(f"{__name__}.{name}").GAME
    if not isinstance(game, TableGame):  # a plug-in missing a member fails here, not mid-game
        missing = [m for m in _MEMBERS if not hasattr(game, m)]
        raise TypeError(f"the {name} plug-in lacks {', '.join(missing)}")
    return game


def as_table_game(game: TableGame | str) -> TableGame:
    """``game`` itself, or the plug-in of the registered game it names."""
    return table_game(game) if isinstance(game, str) else game


def table_game_of(machine: Any) -> TableGame:
    """The plug-in of the game whose machine ``machine`` is."""
    for g in games():
        if isinstance(machine, g.machine):
            return table_game(g.name)
    raise TypeError(f"no registered game plays a {type(machine).__name__}")


__all__ = ["GameModules", "TableGame", "as_table_game", "table_game", "table_game_of"]
