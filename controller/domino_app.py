"""The domino table on a Pi: four seat buttons with their LEDs, the buzzer, the OLED, the
journal, the watchdog and the hub link, around one :class:`DominoRuntime`.

>>> from gpiozero.pins.mock import MockFactory
>>> from mesa.controller.config import parse_config
>>> cfg = parse_config('[table]\\ngame = "domino"\\n[buttons]\\nn = 17\\ne = 27\\ns = 22\\n'
...                    'w = 23\\n[leds]\\nn = 5\\ne = 6\\ns = 12\\nw = 16\\n'
...                    '[display]\\nmodel = "dummy"\\n')
>>> app = DominoTableApp(cfg, pin_factory=MockFactory())
>>> app.start()
>>> app.runtime.running, app.display.device.size, app.runtime.view().state
(True, (128, 64), 'idle')
>>> app.stop()

``mesa controller --config /etc/mesa/table.toml`` runs this when the file says
``game = "domino"`` (``hardware/mesa-domino.toml``). The start-up order is the backgammon
table's (:mod:`mesa.controller.app`): the journal restores the game, the hub link is made with
the restored snapshot (its retained "TIEMPO" re-anchors the game's time), then the loop, the
buttons and the display start, and systemd hears READY.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from mesa.controller.config import TableConfig
from mesa.controller.display import Display, open_device
from mesa.controller.domino_gpio import DominoOutputs
from mesa.controller.domino_journal import DominoJournal
from mesa.controller.domino_runtime import DominoRuntime
from mesa.controller.gestures import SEAT_BUTTONS, GestureSettings, SeatGestureRecognizer
from mesa.controller.gpio import ButtonPad
from mesa.controller.journal import Recovery
from mesa.controller.oled_domino import animated, render
from mesa.controller.watchdog import Watchdog, systemd_notifier, watchdog_interval

log = logging.getLogger(__name__)

LinkFactory = Callable[[DominoRuntime, dict[str, Any]], Any]


class DominoTableApp:
    """One domino table (see the module)."""

    def __init__(
        self,
        cfg: TableConfig,
        *,
        pin_factory: Any = None,
        open_display: Callable[[], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        link_factory: LinkFactory | None = None,
        notifier: Any = None,
    ) -> None:
        self.cfg = cfg
        b = cfg.buttons
        pins = cfg.seat_buttons
        recognizer = SeatGestureRecognizer(
            GestureSettings(
                lockout=b.lockout,
                hold_time=b.hold_time,
                min_press=b.min_press,
                long_hold_time=b.long_hold_time,
            ),
            buttons=tuple(pins) or SEAT_BUTTONS,
        )
        self.runtime = DominoRuntime(
            clock=clock,
            buttons=recognizer,
            tick_interval=1.0 / cfg.display.fps,
            table_id=cfg.table.id,
            language=cfg.table.language,
        )
        self._link_factory = link_factory
        self.link: Any = None
        self.recovery: Recovery | None = None
        self.journal: DominoJournal | None = None
        if cfg.journal.dir:
            self.journal = DominoJournal(
                cfg.journal.dir,
                heartbeat=cfg.journal.heartbeat,
                sync_interval=cfg.journal.sync_interval,
                compact_bytes=cfg.journal.compact_bytes,
                fsync=cfg.journal.fsync,
            )
        leds = {seat: getattr(cfg.leds, seat) for seat in SEAT_BUTTONS}
        self.outputs = DominoOutputs(
            {k: v for k, v in leds.items() if v is not None},
            cfg.buzzer.pin,
            active_high=cfg.leds.active_high,
            buzzer_active_high=cfg.buzzer.active_high,
            pin_factory=pin_factory,
        )
        self.runtime.add_view_listener(self.outputs.update)  # type: ignore[arg-type]
        self.runtime.add_sink(self.outputs)
        self.display = Display(
            self.runtime,
            open_display or (lambda: open_device(cfg.display)),
            fps=cfg.display.fps,
            idle_fps=cfg.display.idle_fps,
            size=cfg.display.size,
            renderer=render,
            animated=animated,
        )
        self._pins = pins
        self._pin_factory = pin_factory
        self.pad: ButtonPad | None = None
        self.watchdog = Watchdog(
            notifier if notifier is not None else systemd_notifier(),
            interval=watchdog_interval(),
        )
        self.runtime.add_iteration_hook(self.watchdog)
        self._stopped = threading.Event()

    def start(self) -> None:
        started = time.monotonic()
        if self.journal is not None:
            self.recovery = self.journal.prepare(self.runtime)
        snapshot = (
            self.recovery.table.snapshot() if self.recovery is not None else self.runtime.snapshot()
        )
        if self._link_factory is not None:
            self.link = self._link_factory(self.runtime, snapshot)
        if self.recovery is not None:
            self.runtime.restore(self.recovery)
            for problem in self.recovery.problems:
                log.warning("journal: %s", problem)
            log.info(
                "restored %s from the journal in %.0f ms (%d records)",
                self.runtime.table.state,
                1000 * self.recovery.seconds,
                self.recovery.records,
            )
        if self._pins:
            self.pad = ButtonPad(
                self.runtime,
                dict(self._pins),
                pull_up=self.cfg.buttons.pull_up,
                pin_factory=self._pin_factory,
            )
        self.runtime.start()
        self.display.start()
        state = self.runtime.table.state
        self.watchdog.ready(f"domino table {self.cfg.table.id}: {state}")
        log.info(
            "domino table %s up in %.2f s (%s)",
            self.cfg.table.id,
            time.monotonic() - started,
            state,
        )

    def stop(self) -> None:
        self.watchdog.stopping()
        self.display.stop()
        self.runtime.stop()
        if self.link is not None:
            try:
                self.link.stop()
            except Exception:
                log.exception("stopping the hub link failed")
        if self.journal is not None:
            self.journal.close()
        if self.pad is not None:
            self.pad.close()
        self.outputs.close()
        self._stopped.set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._stopped.wait(timeout)
