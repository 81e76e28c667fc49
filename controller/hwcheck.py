"""``mesa hardware-check``: a self-test of a table's parts on a real Pi.

>>> from gpiozero.pins.mock import MockFactory
>>> from mesa.controller.config import parse_config
>>> cfg = parse_config('[leds]\\na = 5\\n[display]\\nmodel = "dummy"\\n')
>>> results = run_checks(cfg, pin_factory=MockFactory(), only={"leds", "display"},
...                      ask=lambda q: True, say=lambda s: None)
>>> [(r.part, r.ok) for r in results]
[('led a', True), ('display', True)]

Each configured part is exercised in turn: every button must be pressed and released (its
bounce is counted, to choose the lockout), each LED lights and blinks, the display shows a test
pattern and then a sample clock screen, the buzzer plays the warning and flag patterns, and the
card reader must read a card. A part that is not configured is not checked. Questions a machine
cannot answer ("did LED a light?") go to ``ask``; ``--yes`` answers them all yes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mesa.controller.config import TableConfig
from mesa.controller.display import open_device

PARTS = ("buttons", "leds", "display", "buzzer", "card")


@dataclass(frozen=True)
class CheckResult:
    part: str
    ok: bool
    detail: str = ""


def pattern_image(size: tuple[int, int]) -> Any:
    """A border, a checkerboard corner and the size: every pixel row and column proven."""
    from PIL import Image, ImageDraw

    from mesa.controller.font import TextFont

    w, h = size
    img = Image.new("1", size)
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, w - 1, h - 1), outline=1)
    for y in range(2, min(h - 2, 18), 2):
        for x in range(2 + (y // 2) % 2 * 2, 34, 4):
            d.rectangle((x, y, x + 1, y + 1), fill=1)
    font = TextFont()
    font.draw(img, (40, 4), "Mesa")
    font.draw(img, (40, 14), f"{w}x{h}")
    d.line((0, h - 1, w - 1, 0), fill=1)
    return img


def _check_buttons(
    cfg: TableConfig, factory: Any, say: Callable[[str], None], timeout: float
) -> list[CheckResult]:
    from gpiozero import DigitalInputDevice

    from mesa.controller.games import table_game

    out = []
    for name, pin in table_game(cfg.table.game).button_pins(cfg).items():  # the game's buttons
        dev = DigitalInputDevice(
            pin, pull_up=cfg.buttons.pull_up, bounce_time=None, pin_factory=factory
        )
        edges: list[tuple[float, bool]] = []
        pressed, released = threading.Event(), threading.Event()

        def changed(
            ticks: Any,
            state: Any,
            edges: list[tuple[float, bool]] = edges,
            pressed: threading.Event = pressed,
            released: threading.Event = released,
        ) -> None:
            down = (not state) if cfg.buttons.pull_up else bool(state)
            edges.append((time.monotonic(), down))
            if down:
                pressed.set()
            elif pressed.is_set():
                released.set()

        try:
            if dev.is_active:
                out.append(
                    CheckResult(
                        f"button {name}",
                        False,
                        f"pin {pin} reads pressed before anyone touched it: stuck or miswired",
                    )
                )
                continue
            dev.pin.when_changed = changed
            say(f"Press and release button {name} (pin {pin}) within {timeout:.0f} s")
            if not pressed.wait(timeout):
                out.append(CheckResult(f"button {name}", False, "no press seen"))
                continue
            if not released.wait(timeout):
                out.append(CheckResult(f"button {name}", False, "pressed but never released"))
                continue
            time.sleep(0.2)  # collect the release bounce
            first = next(t for t, down in edges if down)
            last_up = max(t for t, down in edges if not down)
            bounces = max(0, len(edges) - 2)
            out.append(
                CheckResult(
                    f"button {name}",
                    True,
                    f"press of {1000 * (last_up - first):.0f} ms, "
                    f"{bounces} extra edges (bounce) absorbed by the lockout",
                )
            )
        finally:
            dev.pin.when_changed = None
            dev.close()
    return out


def _check_leds(
    cfg: TableConfig, factory: Any, say: Callable[[str], None], ask: Callable[[str], bool]
) -> list[CheckResult]:
    from gpiozero import LED

    from mesa.controller.games import table_game

    out = []
    for side, pin in table_game(cfg.table.game).led_pins(cfg).items():  # the game's LEDs
        led = LED(pin, active_high=cfg.leds.active_high, pin_factory=factory)
        try:
            say(f"LED {side} (pin {pin}): on for 1 s, then blinking")
            led.on()
            if factory is None:  # a real LED, a real person looking at it
                time.sleep(1.0)
                led.blink(on_time=0.2, off_time=0.2, n=3, background=False)
            led.off()
            ok = ask(f"Did LED {side} light and blink?")
            out.append(CheckResult(f"led {side}", ok, "" if ok else "not seen"))
        finally:
            led.close()
    return out


def _check_display(
    cfg: TableConfig,
    open_display: Callable[[], Any],
    say: Callable[[str], None],
    ask: Callable[[str], bool],
    pause: float,
) -> list[CheckResult]:
    from mesa.controller.games import table_game

    game = table_game(cfg.table.game)  # its own screens

    if cfg.display.model == "none":
        return []
    try:
        device = open_display()
    except Exception as e:
        return [CheckResult("display", False, f"not found: {e}")]
    try:
        size = tuple(device.size)
        img = pattern_image(size)
        say(f"Display {cfg.display.model} {size[0]}x{size[1]}: test pattern, then a clock screen")
        device.display(img if device.mode == "1" else img.convert(device.mode))
        time.sleep(pause)
        sample = next(
            s for s in game.scenes() if s.name == game.busy_scene and s.language == "es"
        )
        frame = game.render(sample.view, sample.status, sample.now, size)
        device.display(frame if device.mode == "1" else frame.convert(device.mode))
        time.sleep(pause)
    except Exception as e:
        return [CheckResult("display", False, f"failed while drawing: {e}")]
    ok = ask("Did the display show a border, a checkerboard and then two clocks?")
    return [CheckResult("display", ok, f"{size[0]}x{size[1]}" if ok else "not seen")]


def _check_buzzer(
    cfg: TableConfig, factory: Any, say: Callable[[str], None], ask: Callable[[str], bool]
) -> list[CheckResult]:
    from gpiozero import Buzzer

    if cfg.buzzer.pin is None:
        return []
    buzzer = Buzzer(cfg.buzzer.pin, active_high=cfg.buzzer.active_high, pin_factory=factory)
    try:
        say("Buzzer: the low-time warning (3 short beeps), then the flag (one long beep)")
        real = factory is None
        buzzer.beep(on_time=0.08, off_time=0.12, n=3, background=not real)
        if real:
            time.sleep(0.3)
            buzzer.beep(on_time=1.5, off_time=0.1, n=1, background=False)
        ok = ask("Did you hear the beeps?")
        return [CheckResult("buzzer", ok, "" if ok else "not heard")]
    finally:
        buzzer.close()


def _check_card(
    cfg: TableConfig,
    open_serial: Callable[[], Any] | None,
    say: Callable[[str], None],
    timeout: float,
) -> list[CheckResult]:
    from mesa.controller.cardreader import CARD_ID, FRAMING

    port = cfg.card_reader.port
    if port is None:
        return []
    try:
        if open_serial is None:
            import serial

            ser = serial.serial_for_url(port, baudrate=cfg.card_reader.baud, timeout=0.2)
        else:
            ser = open_serial()
    except Exception as e:
        return [CheckResult("card reader", False, f"cannot open {port}: {e}")]
    say(f"Swipe a card on the reader ({port}) within {timeout:.0f} s")
    deadline = time.monotonic() + timeout
    buf = b""
    try:
        while time.monotonic() < deadline:
            buf += ser.read(64)
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                text = line.strip(FRAMING).decode("ascii", "replace")
                if CARD_ID.fullmatch(text):
                    return [CheckResult("card reader", True, f"read card {text}")]
                if text:
                    return [
                        CheckResult(
                            "card reader",
                            False,
                            f"unreadable line {text[:20]!r}: check the baud rate",
                        )
                    ]
        return [CheckResult("card reader", False, "no card read")]
    except Exception as e:
        return [CheckResult("card reader", False, f"failed: {e}")]
    finally:
        ser.close()


def run_checks(
    cfg: TableConfig,
    *,
    pin_factory: Any = None,
    open_display: Callable[[], Any] | None = None,
    open_serial: Callable[[], Any] | None = None,
    only: set[str] | None = None,
    ask: Callable[[str], bool] = lambda q: True,
    say: Callable[[str], None] = print,
    timeout: float = 15.0,
    pause: float = 2.0,
) -> list[CheckResult]:
    """Check every configured part (or ``only`` those named in :data:`PARTS`)."""
    wanted = set(PARTS) if only is None else set(only)
    results: list[CheckResult] = []
    if "buttons" in wanted:
        results += _check_buttons(cfg, pin_factory, say, timeout)
    if "leds" in wanted:
        results += _check_leds(cfg, pin_factory, say, ask)
    if "display" in wanted:
        results += _check_display(
            cfg,
            open_display or (lambda: open_device(cfg.display)),
            say,
            ask,
            pause if pin_factory is None else 0.0,
        )
    if "buzzer" in wanted:
        results += _check_buzzer(cfg, pin_factory, say, ask)
    if "card" in wanted:
        results += _check_card(cfg, open_serial, say, timeout)
    return results


def report(results: list[CheckResult]) -> str:
    """The results as a table.

    >>> print(report([CheckResult("buzzer", True), CheckResult("display", False, "not found")]))
    buzzer       ok
    display      FAILED  not found
    """
    lines = []
    for r in results:
        lines.append(f"{r.part:<12} {'ok' if r.ok else 'FAILED':<7} {r.detail}".rstrip())
    return "\n".join(lines)
