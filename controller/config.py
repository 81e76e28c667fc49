"""The table's configuration file (TOML): pins, which optional parts exist, the display.

>>> cfg = parse_config('''
... [table]
... id = "7"
... [buttons]
... a = 17
... b = 27
... [display]
... model = "sh1106"
... ''')
>>> cfg.table.id, cfg.buttons.a, cfg.buttons.cube, cfg.display.model, cfg.display.size
('7', 17, None, 'sh1106', (128, 64))
>>> parse_config('[buttons]\\na = 17\\nb = 17\\n')
Traceback (most recent call last):
  ...
mesa.errors.ConfigError: pin 17 is used twice: buttons.a and buttons.b

Pins are BCM numbers (or any name gpiozero accepts, such as ``"GPIO17"`` or ``"BOARD11"``).
Nothing about the hardware is a constant in code: ``hardware/mesa-table.toml`` is the reference
build's file, and every key is documented in ``docs/table.md``.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mesa.controller.i18n import LANGUAGES
from mesa.errors import ConfigError

Pin = int | str

DISPLAY_MODELS: tuple[str, ...] = ("ssd1306", "sh1106", "ssd1322", "dummy", "none")
DISPLAY_SIZES: dict[str, tuple[tuple[int, int], ...]] = {
    "ssd1306": ((128, 64), (128, 32)),
    "sh1106": ((128, 64), (128, 32)),
    "ssd1322": ((256, 64), (128, 64)),
    "dummy": ((128, 64), (128, 32), (256, 64)),
    "none": ((128, 64), (128, 32), (256, 64)),
}
# I2C and SPI claim these BCM pins on every Pi model; a button there would fight the bus.
I2C_PINS = frozenset({2, 3})
SEAT_PINS: tuple[str, ...] = ("n", "e", "s", "w")  # the domino table's four seat buttons
SPI_PINS = frozenset({8, 9, 10, 11})


@dataclass(frozen=True)
class TableSection:
    id: str = "1"
    game: str = "backgammon"  # a registered game (mesa.games.registry): "domino" has four seats
    language: str = "es"
    bounce: float = 0.15  # the machine refuses a second press of one button within this
    simultaneous: float = 0.25  # ... and a press by the player whose turn began this recently


@dataclass(frozen=True)
class ButtonsSection:
    a: Pin | None = None
    b: Pin | None = None
    cube: Pin | None = None  # optional CUBE button
    pause: Pin | None = None  # optional PAUSE button
    pull_up: bool = True  # buttons wired to ground, using the Pi's pull-ups
    lockout: float = 0.08  # application-level debounce, 50–150 ms
    hold_time: float = 0.8
    min_press: float = 0.02  # shorter contacts are phantom edges
    # The domino table: one button per seat, and the long hold (domino, block, accept points).
    n: Pin | None = None
    e: Pin | None = None
    s: Pin | None = None
    w: Pin | None = None
    long_hold_time: float = 2.0


@dataclass(frozen=True)
class LedsSection:
    a: Pin | None = None
    b: Pin | None = None
    n: Pin | None = None  # the domino table's seat LEDs (lit: on turn)
    e: Pin | None = None
    s: Pin | None = None
    w: Pin | None = None
    active_high: bool = True


@dataclass(frozen=True)
class BuzzerSection:
    pin: Pin | None = None
    active_high: bool = True
    warnings: tuple[float, ...] = (60.0, 30.0, 10.0)


@dataclass(frozen=True)
class DisplaySection:
    model: str = "ssd1306"
    width: int = 128
    height: int = 64
    bus: str = "i2c"
    i2c_port: int = 1
    i2c_address: int = 0x3C
    spi_port: int = 0
    spi_device: int = 0
    spi_speed_hz: int = 8_000_000
    gpio_dc: int = 24
    gpio_rst: int = 25
    rotate: int = 0
    fps: float = 10.0
    idle_fps: float = 2.0

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)


@dataclass(frozen=True)
class CardReaderSection:
    port: str | None = None  # a path (/dev/serial/by-id/...) or a pyserial URL (loop://)
    baud: int = 9600


@dataclass(frozen=True)
class JournalSection:
    dir: str | None = None
    heartbeat: float = 1.0
    sync_interval: float = 5.0
    compact_bytes: int = 256 * 1024
    fsync: bool = True


@dataclass(frozen=True)
class HubSection:
    link: str | None = None  # the JSON ``mesa provision-table`` wrote (id, hub, credentials)
    outbox: str = "/var/lib/mesa/outbox.sqlite3"
    host: str | None = None  # without ``link``: the broker, no credentials (a demo broker)
    port: int = 1883


@dataclass(frozen=True)
class TableConfig:
    table: TableSection = field(default_factory=TableSection)
    buttons: ButtonsSection = field(default_factory=ButtonsSection)
    leds: LedsSection = field(default_factory=LedsSection)
    buzzer: BuzzerSection = field(default_factory=BuzzerSection)
    display: DisplaySection = field(default_factory=DisplaySection)
    card_reader: CardReaderSection = field(default_factory=CardReaderSection)
    journal: JournalSection = field(default_factory=JournalSection)
    hub: HubSection = field(default_factory=HubSection)

    @property
    def extra_buttons(self) -> frozenset[str]:
        """The optional buttons this build has (``cube``, ``pause``)."""
        return frozenset(n for n in ("cube", "pause") if getattr(self.buttons, n) is not None)

    @property
    def seat_buttons(self) -> dict[str, Pin]:
        """The domino table's seat buttons that have a pin (``n``, ``e``, ``s``, ``w``)."""
        return {n: p for n in SEAT_PINS if (p := getattr(self.buttons, n)) is not None}


_SECTION_TYPES = {
    "table": TableSection,
    "buttons": ButtonsSection,
    "leds": LedsSection,
    "buzzer": BuzzerSection,
    "display": DisplaySection,
    "card_reader": CardReaderSection,
    "journal": JournalSection,
    "hub": HubSection,
}


def check_number(where: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where} must be a number, not {value!r}")
    if not low <= value <= high:
        raise ConfigError(f"{where} must be between {low} and {high}, not {value}")
    return float(value)


def _section(name: str, raw: Any) -> Any:
    cls = _SECTION_TYPES[name]
    if not isinstance(raw, dict):
        raise ConfigError(f"[{name}] must be a table")
    known = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(raw) - set(known)
    if unknown:
        raise ConfigError(f"[{name}]: unknown keys {sorted(unknown)}; known: {sorted(known)}")
    values: dict[str, Any] = {}
    for key, value in raw.items():
        where = f"{name}.{key}"
        default = known[key].default
        if key == "warnings":
            if not isinstance(value, list):
                raise ConfigError(f"{where} must be a list of seconds")
            value = tuple(sorted((check_number(where, v, 1, 3600) for v in value), reverse=True))
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise ConfigError(f"{where} must be true or false, not {value!r}")
        elif isinstance(default, float):
            value = check_number(where, value, 0, 1e9)
        elif isinstance(default, int) and not isinstance(default, bool):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"{where} must be an integer, not {value!r}")
        elif key in ("a", "b", "cube", "pause", "pin", *SEAT_PINS):
            if isinstance(value, bool) or not isinstance(value, int | str):
                raise ConfigError(f"{where} must be a pin number or name, not {value!r}")
        elif not isinstance(value, str):
            raise ConfigError(f"{where} must be a string, not {value!r}")
        values[key] = value
    return cls(**values)


def _check(cfg: TableConfig) -> None:
    b, d = cfg.buttons, cfg.display
    if cfg.table.language not in LANGUAGES:
        raise ConfigError(f"table.language must be one of {LANGUAGES}, not {cfg.table.language!r}")
    check_number("buttons.lockout", b.lockout, 0.05, 0.15)
    check_number("buttons.hold_time", b.hold_time, 0.3, 3.0)
    check_number("buttons.min_press", b.min_press, 0.0, b.lockout)
    check_number("table.bounce", cfg.table.bounce, 0.0, 1.0)
    check_number("table.simultaneous", cfg.table.simultaneous, 0.0, 2.0)
    if (b.a is None) != (b.b is None):
        raise ConfigError("buttons.a and buttons.b come together: a table has two clock buttons")
    _check_game(cfg)
    if d.model not in DISPLAY_MODELS:
        raise ConfigError(f"display.model must be one of {DISPLAY_MODELS}, not {d.model!r}")
    if d.size not in DISPLAY_SIZES[d.model]:
        sizes = ", ".join(f"{w}x{h}" for w, h in DISPLAY_SIZES[d.model])
        raise ConfigError(f"display {d.model} comes in {sizes}, not {d.width}x{d.height}")
    if d.bus not in ("i2c", "spi"):
        raise ConfigError(f"display.bus must be i2c or spi, not {d.bus!r}")
    if d.model == "ssd1322" and d.bus != "spi":
        raise ConfigError('the SSD1322 is driven over SPI: set display.bus = "spi"')
    if d.rotate not in (0, 1, 2, 3):
        raise ConfigError("display.rotate must be 0, 1, 2 or 3 (quarter turns)")
    check_number("display.fps", d.fps, 10.0, 60.0)
    check_number("display.idle_fps", d.idle_fps, 0.5, 60.0)
    check_number("journal.heartbeat", cfg.journal.heartbeat, 0.1, 60.0)
    check_number("journal.sync_interval", cfg.journal.sync_interval, 0.0, 60.0)
    # Every pin once, and never on the display's bus.
    used: dict[str, str] = {}
    wanted = (
        [(f"buttons.{n}", getattr(b, n)) for n in ("a", "b", "cube", "pause", *SEAT_PINS)]
        + [(f"leds.{n}", getattr(cfg.leds, n)) for n in ("a", "b", *SEAT_PINS)]
        + [("buzzer.pin", cfg.buzzer.pin)]
    )
    if d.model not in ("dummy", "none") and d.bus == "spi":
        wanted += [("display.gpio_dc", d.gpio_dc), ("display.gpio_rst", d.gpio_rst)]
    for where, pin in wanted:
        if pin is None:
            continue
        key = str(pin).upper().removeprefix("GPIO").removeprefix("BCM")
        if key in used:
            raise ConfigError(f"pin {pin} is used twice: {used[key]} and {where}")
        used[key] = where
        if (
            d.model not in ("dummy", "none")
            and isinstance(pin, int)
            and not where.startswith("display.")
        ):
            bus_pins = I2C_PINS if d.bus == "i2c" else SPI_PINS
            if pin in bus_pins:
                raise ConfigError(f"{where} = {pin} is a pin of the display's {d.bus} bus")


def _check_game(cfg: TableConfig) -> None:
    """The game is a registered one, and its buttons are the game's (each game checks its own:
    :meth:`~mesa.controller.games.TableGame.check_config`).

    >>> parse_config('[table]\\ngame = "domino"\\n[buttons]\\nn = 17\\ne = 27\\n')
    Traceback (most recent call last):
      ...
    mesa.errors.ConfigError: a domino table has a button at each seat: buttons.s, buttons.w missing
    """
    from mesa.controller.games import table_game
    from mesa.games.registry import names

    game = cfg.table.game
    if game not in names():
        raise ConfigError(f"table.game must be one of {names()}, not {game!r}")
    table_game(game).check_config(cfg)


def pins_of(cfg: TableConfig, names: tuple[str, ...], sections: tuple[str, ...]) -> list[str]:
    """The configured pins among ``names`` in ``sections`` (``buttons``, ``leds``), as keys."""
    return [
        f"{part}.{n}"
        for part in sections
        for n in names
        if getattr(getattr(cfg, part), n, None) is not None
    ]


def parse_config(text: str) -> TableConfig:
    """Parse and check a configuration file's text (see the module example)."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"not valid TOML: {e}") from None
    unknown = set(raw) - set(_SECTION_TYPES)
    if unknown:
        raise ConfigError(f"unknown sections {sorted(unknown)}; known: {sorted(_SECTION_TYPES)}")
    sections = {name: _section(name, value) for name, value in raw.items()}
    cfg = TableConfig(**sections)
    _check(cfg)
    return cfg


def load_config(path: str | Path) -> TableConfig:
    """Read ``path``; a missing or unreadable file is a :class:`ConfigError` naming it."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}") from None
    try:
        return parse_config(text)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None
