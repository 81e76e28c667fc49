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
from mesa.controller.oled import render
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
        self._size = tuple(self.device.size)  # type: ignore[assignment]
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
        img = render(view, status, now, self.size)
        self.stats.note_render(time.perf_counter() - started)
        running = any(c.running for c in view.clocks.values())
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
def halfblocks(img: ImageModule.Image) -> list[str]:
    """A monochrome image as text, two pixel rows per character (``▀ ▄ █``).

    >>> from PIL import Image
    >>> im = Image.new("1", (3, 2)); im.putpixel((0, 0), 1); im.putpixel((1, 1), 1)
    >>> halfblocks(im)
    ['▀▄ ']
    """
    img = img.convert("1")
    w, h = img.size
    px = img.load()
    assert px is not None
    rows = []
    for y in range(0, h, 2):
        chars = []
        for x in range(w):
            top = px[x, y]
            bottom = px[x, y + 1] if y + 1 < h else 0
            chars.append("█" if top and bottom else "▀" if top else "▄" if bottom else " ")
        rows.append("".join(chars))
    return rows


class TerminalDevice:
    """An emulated OLED in the terminal: a luma-like device whose frames are printed."""

    def __init__(
        self, width: int = 128, height: int = 64, out: TextIO | None = None, footer: Any = None
    ) -> None:
        self.size = (width, height)
        self.width, self.height = width, height
        self.mode = "1"
        self.out = out or sys.stdout
        self.footer = footer  # a callable returning extra lines (LEDs, buzzer, key help)
        self.image: ImageModule.Image | None = None

    def display(self, image: ImageModule.Image) -> None:
        self.image = image.copy()
        border = "+" + "-" * self.width + "+"
        lines = [border, *("|" + row + "|" for row in halfblocks(image)), border]
        if self.footer is not None:
            lines += list(self.footer())
        # Home the cursor and redraw in place; clear to the end of each line.
        self.out.write("\x1b[H" + "\x1b[K\n".join(lines) + "\x1b[J")
        self.out.flush()

    def cleanup(self) -> None:
        pass
