"""``mesa sim --game domino`` in the terminal: the OLED in quarter blocks (66 columns wide for
128×64) and keys for the four seats.

>>> quadrants_width = len(quadrants(__import__("PIL.Image").Image.new("1", (128, 64)))[0])
>>> quadrants_width
64

Robots (``--robots``): ``both`` (the default headless) plays all four seats, ``a`` the pair
north-south, ``b`` east-west, ``none`` (the default in the terminal) leaves the keys to you:
``n e s w`` press, ``N E S W`` hold, ``1 2 3 4`` long hold of n, e, s, w; ``q`` quits.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import threading
from typing import TYPE_CHECKING, Any, TextIO

from mesa.engine.inputs import Input

if TYPE_CHECKING:
    from PIL import Image as ImageModule

    from mesa.controller.sim import SimTable

KEYS_HELP = "keys: n e s w press · N E S W hold · 1 2 3 4 long hold (n e s w) · q quit"
QUADRANTS = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"


def quadrants(img: ImageModule.Image) -> list[str]:
    """A monochrome image as text, 2×2 pixels per character: 128 pixels in 64 columns."""
    img = img.convert("1")
    w, h = img.size
    px = img.load()
    assert px is not None
    rows = []
    for y in range(0, h, 2):
        chars = []
        for x in range(0, w, 2):
            bits = 0
            for bit, (dx, dy) in enumerate(((0, 0), (1, 0), (0, 1), (1, 1))):
                if x + dx < w and y + dy < h and px[x + dx, y + dy]:
                    bits |= 1 << bit
            chars.append(QUADRANTS[bits])
        rows.append("".join(chars))
    return rows


class QuadrantDevice:
    """An emulated OLED in an 80-column terminal: a luma-like device whose frames are printed.
    ``rows``: the terminal's height; a frame in quarter blocks that would not fit (36 rows for
    128×64) is printed in braille instead (20 rows), since a taller frame scrolls and garbles."""

    def __init__(
        self,
        width: int = 128,
        height: int = 64,
        out: TextIO | None = None,
        footer: Any = None,
        rows: int | None = None,
    ) -> None:
        self.rows = rows
        self.size = (width, height)
        self.width, self.height = width, height
        self.mode = "1"
        self.out = out or sys.stdout
        self.footer = footer
        self.image: ImageModule.Image | None = None

    def display(self, image: ImageModule.Image) -> None:
        self.image = image.copy()
        footer = list(self.footer()) if self.footer is not None else []
        rows = quadrants(image)
        if self.rows is not None and len(rows) + 2 + len(footer) > self.rows:
            from mesa.controller.display import braille, fit_columns

            rows = braille(fit_columns(image))
        border = "+" + "-" * len(rows[0]) + "+"
        lines = [border, *("|" + row + "|" for row in rows), border, *footer]
        self.out.write("\x1b[H" + "\x1b[K\n".join(lines) + "\x1b[J")
        self.out.flush()

    def cleanup(self) -> None:
        pass  # a terminal has nothing to release (the display's interface asks for it)


def run_ui(sim: SimTable, ui: str, args: argparse.Namespace, stop: threading.Event) -> None:
    """The simulator's terminal (a window too: the four buttons have no window keys yet)."""
    _terminal(sim, args, stop)


def footer(sim: SimTable, outputs: Any) -> Any:
    def lines() -> list[str]:
        led = outputs.led_state
        lamps = "  ".join(
            f"{seat.upper()} "
            f"{'●' if led.get(seat) == 'on' else '◐' if led.get(seat) == 'blink' else '○'}"
            for seat in ("n", "e", "s", "w")
        )
        beep = outputs.beeps[-1] if outputs.beeps else None
        buzz = f"buzzer: {beep.count}×" if beep else "buzzer: -"
        return [f"{lamps}   {buzz}   t={sim.runtime.now():.1f}", KEYS_HELP]

    return lines


KEYS: dict[str, tuple[str, str]] = {
    **{seat: ("press", seat) for seat in "nesw"},
    **{seat.upper(): ("hold", seat) for seat in "nesw"},
    **{str(i + 1): ("long_hold", seat) for i, seat in enumerate("nesw")},
}


def _terminal(sim: SimTable, args: argparse.Namespace, stop: threading.Event) -> None:
    from mesa.controller.display import Display
    from mesa.controller.gpio import TableOutputs
    from mesa.controller.sim_shell import key_loop

    outputs = TableOutputs(game="domino")
    sim.runtime.add_view_listener(outputs.update)
    sim.runtime.add_sink(outputs)
    w, h = args.size
    rows = shutil.get_terminal_size().lines
    device = QuadrantDevice(w, h, footer=footer(sim, outputs), rows=rows)
    display = Display(sim.runtime, lambda: device, fps=10.0, idle_fps=4.0, size=args.size)
    rt = sim.runtime

    def on_key(ch: str) -> None:
        if ch in KEYS:
            name, seat = KEYS[ch]
            rt.submit(Input(name, {"seat": seat}), rt.now())

    key_loop(display, stop, on_key)
