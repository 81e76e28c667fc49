"""The table on a Pi: everything the configuration file names, around one runtime.

>>> from gpiozero.pins.mock import MockFactory
>>> from mesa.controller.config import parse_config
>>> cfg = parse_config('[buttons]\\na = 17\\nb = 27\\n[leds]\\na = 5\\nb = 6\\n'
...                    '[display]\\nmodel = "dummy"\\n')
>>> app = TableApp(cfg, pin_factory=MockFactory())
>>> app.start()
>>> app.runtime.running, app.display.device.size
(True, (128, 64))
>>> app.stop()

``mesa controller --config /etc/mesa/table.toml`` runs this until SIGTERM. Start-up order: the
journal restores the table (paused, if a clock was running), then the hub link is made with the
restored snapshot, then the loop, the display and the card reader start, and systemd hears
READY. Each part can be absent (no display, no reader, no journal, no hub) and none of them
failing stops the clock.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mesa.controller.assembly import CoreSpec, JournalSpec, LinkFactory, TableCore, once_a_second
from mesa.controller.cardreader import CardReader
from mesa.controller.config import TableConfig
from mesa.controller.display import Display, open_device
from mesa.controller.games import table_game
from mesa.controller.gpio import ButtonPad, TableOutputs
from mesa.controller.journal import Recovery
from mesa.controller.runtime import TableRuntime
from mesa.controller.watchdog import Watchdog, systemd_notifier, watchdog_interval
from mesa.errors import ConfigError
from mesa.games.backgammon.machine import TableSettings

log = logging.getLogger(__name__)

__all__ = ["LinkFactory", "TableApp", "core_spec", "make_link", "parse_hub"]


def make_link(
    runtime: TableRuntime,
    *,
    table_id: str | None = None,
    host: str | None = None,
    port: int = 1883,
    link_file: str | None = None,
    password: str | None = None,
    outbox: str | Path,
    snapshot: dict[str, Any] | None = None,
) -> Any:
    """The hub link (``mesa.controller.link``) for ``runtime``, added as a sink and started;
    it reads the hub's messages in the runtime's game's vocabulary.

    Either ``link_file`` (the JSON ``mesa provision-table`` wrote: id, hub, credentials) or
    ``host``/``port``/``table_id`` (a broker without accounts, as in the demo). The link stamps
    hub commands with the runtime's own clock, so they order correctly with the buttons.
    ``snapshot`` is the table the link starts from (default: the runtime's now; before a restore,
    the recovered table's).
    """
    try:
        from mesa.controller.link import LinkSettings, TableLink
        from mesa.controller.outbox import Outbox
    except ImportError as e:  # pragma: no cover - the link ships with the same distribution
        raise ConfigError(f"the hub link is not available: {e}") from None
    if link_file is not None:
        settings = LinkSettings.from_file(link_file)
    else:
        if host is None or table_id is None:
            raise ConfigError("a hub link needs --link FILE, or --hub HOST:PORT and --table-id")
        settings = LinkSettings(table=table_id, host=host, port=port, password=password)
    # A damaged outbox is moved aside and a fresh one started: the table always starts.
    box = Outbox.open(outbox, table=settings.table)
    link = TableLink(
        settings,
        box,
        submitter=runtime,
        snapshot=snapshot if snapshot is not None else runtime.snapshot(),
        clock=runtime.now,
        game=runtime.game,
    )
    runtime.add_sink(link)
    link.start()
    _watch_link(runtime, link)
    return link


def _watch_link(runtime: TableRuntime, link: Any) -> None:
    """Show the hub's reachability on the screen (checked from the loop, once a second); a full
    outbox is shown by :func:`~mesa.controller.assembly.watch_storage`."""

    def check() -> None:
        state = "online" if link.connected and link.hub_online else "offline"
        if link.hub_mismatch == "hub_too_old":
            state = "too_old"  # the table is of a later release than its hub
        if runtime.status.hub != state:
            runtime.update_status(hub=state)

    runtime.add_iteration_hook(once_a_second(check))


def parse_hub(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``HOST``) → ``(host, port)``.

    >>> parse_hub("hub.local:1884"), parse_hub("10.0.0.2")
    (('hub.local', 1884), ('10.0.0.2', 1883))
    """
    host, _, port = text.rpartition(":") if ":" in text else (text, "", "1883")
    try:
        return host, int(port)
    except ValueError:
        raise ConfigError(f"--hub takes HOST:PORT, not {text!r}") from None


class TableApp:
    """One table of the game ``cfg`` names (``[table] game``): buttons, LEDs, buzzer, OLED,
    card reader, journal, watchdog, hub link."""

    def __init__(
        self,
        cfg: TableConfig,
        *,
        pin_factory: Any = None,
        open_display: Callable[[], Any] | None = None,
        open_serial: Callable[[], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        link_factory: LinkFactory | None = None,
        notifier: Any = None,
    ) -> None:
        self.cfg = cfg
        self.game = game = table_game(cfg.table.game)
        self.core = TableCore(core_spec(cfg, clock))
        self.runtime = self.core.runtime
        self.journal = self.core.journal
        self._link_factory = link_factory
        self.outputs = TableOutputs(
            game.led_pins(cfg),
            cfg.buzzer.pin,
            game=game,
            warnings=cfg.buzzer.warnings,
            active_high=cfg.leds.active_high,
            buzzer_active_high=cfg.buzzer.active_high,
            pin_factory=pin_factory,
        )
        self.runtime.add_view_listener(self.outputs.update)
        self.runtime.add_sink(self.outputs)
        self.display = Display(
            self.runtime,
            open_display or (lambda: open_device(cfg.display)),
            fps=cfg.display.fps,
            idle_fps=cfg.display.idle_fps,
            size=cfg.display.size,
        )
        self.reader = None
        if cfg.card_reader.port:
            self.reader = CardReader(
                self.runtime,
                cfg.card_reader.port,
                cfg.card_reader.baud,
                open_serial=open_serial,
                known_cards=self.core.known_cards,
            )
        self._pin_factory = pin_factory
        self.pad: ButtonPad | None = None
        self.watchdog = Watchdog(
            notifier if notifier is not None else systemd_notifier(),
            interval=watchdog_interval(),
        )
        self.runtime.add_iteration_hook(self.watchdog)
        self._stopped = threading.Event()

    @property
    def recovery(self) -> Recovery | None:
        return self.core.recovery

    @property
    def link(self) -> Any:
        return self.core.link

    def start(self) -> None:
        started = time.monotonic()
        self.core.boot(self._link_factory)
        # The buttons last: their start-up levels are stamped on the table's clock as restored.
        pins = self.game.button_pins(self.cfg)
        if pins:
            self.pad = ButtonPad(
                self.runtime,
                pins,
                pull_up=self.cfg.buttons.pull_up,
                pin_factory=self._pin_factory,
            )
        self.runtime.start()
        self.display.start()
        if self.reader is not None:
            self.reader.start()
        state = self.runtime.table.state
        name = f"{self.game.name} table {self.cfg.table.id}"
        self.watchdog.ready(f"{name}: {state}")
        log.info("%s up in %.2f s (%s)", name, time.monotonic() - started, state)

    def stop(self) -> None:
        self.watchdog.stopping()
        if self.reader is not None:
            self.reader.stop()
        self.display.stop()
        self.core.close()
        if self.pad is not None:
            self.pad.close()
        self.outputs.close()
        self._stopped.set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._stopped.wait(timeout)


def core_spec(cfg: TableConfig, clock: Callable[[], float] = time.monotonic) -> CoreSpec:
    """The :class:`CoreSpec` a configuration file describes."""
    j = cfg.journal
    return CoreSpec(
        table_id=cfg.table.id,
        clock=clock,
        settings=TableSettings(bounce=cfg.table.bounce, simultaneous=cfg.table.simultaneous),
        buttons=table_game(cfg.table.game).recognizer(cfg),
        game=cfg.table.game,
        tick_interval=1.0 / cfg.display.fps,
        extra_buttons=cfg.extra_buttons,
        language=cfg.table.language,
        journal=(
            JournalSpec(j.dir, j.heartbeat, j.sync_interval, j.compact_bytes, j.fsync)
            if j.dir
            else None
        ),
    )
