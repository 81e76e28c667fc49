"""The display thread: renders the table's view and pushes it to the OLED, in one place.

>>> from luma.core.device import dummy
>>> from mesa.controller.runtime import ManualClock, TableRuntime
>>> rt = TableRuntime(clock=ManualClock())
>>> device = dummy(width=128, height=64, mode="1")
>>> screen = Display(rt, lambda: device)
>>> screen.frame()                      # one frame, in this thread (the thread calls it in a loop)
True
>>> device.image.size, screen.stats.frames
((128, 64), 1)

The thread runs beside the table's loop so that a slow I2C write never delays a press. It wakes
on every change of the table and otherwise renders at ``fps`` while a clock runs (``idle_fps``
when nothing moves). A display that is missing at start-up or vanishes mid-match is retried every
``retry`` seconds; the table, its clock and its buzzer carry on without it.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from mesa.controller.config import DisplaySection
from mesa.controller.ports import ViewSource

if TYPE_CHECKING:
    from PIL import Image as ImageModule

log = logging.getLogger(__name__)


def open_device(cfg: DisplaySection) -> Any:
    """The luma device for ``cfg`` (imported lazily: a laptop has no I2C bus).

    ``dummy`` is luma's in-memory device; ``none`` returns None (a table without a screen).
    """
    if cfg.model == "none":
        return None
    if cfg.model == "dummy":
        from luma.core.device import dummy

        return dummy(width=cfg.width, height=cfg.height, rotate=cfg.rotate, mode="1")
    from luma.core.interface.serial import i2c, spi
    from luma.oled import device as oled

    if cfg.bus == "i2c":
        serial = i2c(port=cfg.i2c_port, address=cfg.i2c_address)
    else:
        serial = spi(
            port=cfg.spi_port,
            device=cfg.spi_device,
            gpio_DC=cfg.gpio_dc,
            gpio_RST=cfg.gpio_rst,
            bus_speed_hz=cfg.spi_speed_hz,
        )
    cls = {"ssd1306": oled.ssd1306, "sh1106": oled.sh1106, "ssd1322": oled.ssd1322}[cfg.model]
    return cls(serial, width=cfg.width, height=cfg.height, rotate=cfg.rotate)


@dataclass
class DisplayStats:
    frames: int = 0  # frames pushed to the device
    renders: int = 0
    failures: int = 0  # pushes or openings that failed
    render_s: list[float] = field(default_factory=list)  # the last render times (bounded)
    pushes: list[tuple[float, int]] = field(default_factory=list)  # (monotonic, version)
    keep: int = 2000

    def note_render(self, seconds: float) -> None:
        self.renders += 1
        self.render_s.append(seconds)
        if len(self.render_s) > self.keep:
            del self.render_s[: self.keep // 2]

    def note_push(self, version: int) -> None:
        self.frames += 1
        self.pushes.append((time.monotonic(), version))
        if len(self.pushes) > self.keep:
            del self.pushes[: self.keep // 2]


class Display:
    """Renders ``runtime``'s view onto the device ``open_device()`` returns (see the module)."""

    def __init__(
        self,
        runtime: ViewSource,
        open_device: Callable[[], Any],
        *,
        fps: float = 10.0,
        idle_fps: float = 2.0,
        retry: float = 2.0,
        size: tuple[int, int] = (128, 64),
    ) -> None:
        self.runtime = runtime
        # The game's screen: its renderer, and when it moves by itself.
        self._render = runtime.game.render
        self._animated_view = runtime.game.animated
        self._size = size
        self._open = open_device
        self.fps = fps
        self.idle_fps = idle_fps
        self.retry = retry
        self.device: Any = None
        self._next_open = 0.0
        self._last: ImageModule.Image | None = None
        self._last_push = 0.0
        self._animated = False
        self.stats = DisplayStats()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def size(self) -> tuple[int, int]:
        """The device's size (the configured one while no device answers)."""
        return self._size

    def _ensure_device(self) -> bool:
        if self.device is not None:
            return True
        now = time.monotonic()
        if now < self._next_open:
            return False
        self._next_open = now + self.retry
        try:
            self.device = self._open()
        except Exception as e:  # no such bus, no answer at the address, permissions
            self.stats.failures += 1
            self._mark("missing", f"display not available: {e}")
            return False
        if self.device is None:
            return False
        self._size = tuple(self.device.size)
        self._last = None
        self._mark("ok", "display connected")
        return True

    def _mark(self, state: str, message: str) -> None:
        if self.runtime.status.display != state:
            (log.info if state == "ok" else log.warning)(message)
            self.runtime.update_status(display=state)

    def frame(self) -> bool:
        """Render one frame and push it if it should be; True when a frame was pushed."""
        version = self.runtime.version
        have = self._ensure_device()
        now = self.runtime.now()
        view = self.runtime.view(now)
        status = self.runtime.status
        started = time.perf_counter()
        img = self._render(view, status, now, self.size)
        self.stats.note_render(time.perf_counter() - started)
        running = self._animated_view(view)
        changed = self._last is None or img.tobytes() != self._last.tobytes()
        self._animated = running or (changed and self._last is not None)
        if not have:
            self._last = img
            return False
        # While a clock runs every frame goes out (a display that glitched heals within 0.1 s);
        # otherwise only changes, and a refresh each second.
        due = running or changed or time.monotonic() - self._last_push >= 1.0
        if not due:
            return False
        try:
            mode = getattr(self.device, "mode", "1")
            self.device.display(img if mode == "1" else img.convert(mode))
        except Exception as e:  # the display vanished (I2C error): keep going without it
            self.stats.failures += 1
            self._drop_device()
            self._mark("missing", f"display lost: {e}")
            return False
        self._last = img
        self._last_push = time.monotonic()
        self.stats.note_push(version)
        return True

    def _drop_device(self) -> None:
        device, self.device = self.device, None
        self._next_open = time.monotonic() + self.retry
        cleanup = getattr(device, "cleanup", None)
        if cleanup is not None:
            try:
                cleanup()
            except Exception:
                log.debug("display cleanup failed", exc_info=True)

    def run(self) -> None:
        version = -1
        while not self._stop.is_set():
            try:
                self.frame()
            except Exception:  # a rendering bug must not take the table down with it
                log.exception("display frame failed")
            period = 1.0 / (self.fps if self._animated else self.idle_fps)
            version = self.runtime.wait_for_change(version, period)
            if self._stop.is_set():
                break

    def start(self) -> None:
        """Open the device (a first attempt, in this thread) and start rendering."""
        self._stop.clear()
        self._ensure_device()
        self._thread = threading.Thread(target=self.run, name="mesa-display", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self.runtime.update_status()  # wakes the thread
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None


# ── the simulator's screens ────────────────────────────────────────────────
def braille(img: ImageModule.Image) -> list[str]:
    """A monochrome image as Unicode braille, 2×4 pixels a character: a 128×64 screen in 64
    columns and 16 rows, so the simulator fits an 80×24 terminal.

    >>> from PIL import Image
    >>> im = Image.new("1", (4, 4)); im.putpixel((0, 0), 1); im.putpixel((3, 3), 1)
    >>> braille(im)
    ['⠁⢀']
    """
    img = img.convert("1")
    w, h = img.size
    px = img.load()
    assert px is not None
    # The dot of each pixel in a cell (x, y) → bit, as Unicode numbers braille dots.
    bits = {(0, 0): 0, (0, 1): 1, (0, 2): 2, (1, 0): 3, (1, 1): 4, (1, 2): 5, (0, 3): 6, (1, 3): 7}
    rows = []
    for y0 in range(0, h, 4):
        chars = []
        for x0 in range(0, w, 2):
            code = 0
            for (dx, dy), bit in bits.items():
                x, y = x0 + dx, y0 + dy
                if x < w and y < h and px[x, y]:
                    code |= 1 << bit
            chars.append(chr(0x2800 + code))
        rows.append("".join(chars))
    return rows


TERMINAL_COLUMNS = 80


def fit_columns(img: ImageModule.Image, columns: int = TERMINAL_COLUMNS - 2) -> ImageModule.Image:
    """Halve a screen too wide for ``columns`` braille cells (256×64 → 128×32), keeping every
    lit pixel of each 2×2 block, so no line exceeds the terminal."""
    from PIL import Image

    if (img.width + 1) // 2 <= columns:
        return img
    half = img.convert("L").resize((img.width // 2, img.height // 2), Image.Resampling.BOX)
    return half.point(lambda v: 255 if v else 0).convert("1")


class TerminalDevice:
    """An emulated OLED in the terminal: a luma-like device whose frames are printed in braille
    (a 128×64 screen takes 66 columns and 18 rows with its border; see :func:`braille`)."""

    def __init__(
        self, width: int = 128, height: int = 64, out: TextIO | None = None, footer: Any = None
    ) -> None:
        self.size = (width, height)
        self.width, self.height = width, height
        self.mode = "1"
        self.out = out or sys.stdout
        self.footer = footer  # a callable returning extra lines (LEDs, buzzer, key help)
        self.image: ImageModule.Image | None = None

    def lines(self, image: ImageModule.Image) -> list[str]:
        """The frame as text: border, braille rows, footer; each at most 80 columns."""
        rows = braille(fit_columns(image))
        border = "+" + "-" * len(rows[0]) + "+"
        lines = [border, *("|" + row + "|" for row in rows), border]
        if self.footer is not None:
            lines += list(self.footer())
        return [line[:TERMINAL_COLUMNS] for line in lines]

    def display(self, image: ImageModule.Image) -> None:
        self.image = image.copy()
        # Home the cursor and redraw in place; clear to the end of each line.
        self.out.write("\x1b[H" + "\x1b[K\n".join(self.lines(image)) + "\x1b[J")
        self.out.flush()

    def cleanup(self) -> None:
        pass
