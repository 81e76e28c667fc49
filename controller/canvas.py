"""What every game's OLED screen is drawn on: the supported sizes, a monochrome canvas whose
text fits its row (condensed, then cut; never a marquee), and the secondary lines that take
turns on a small screen.

>>> c = Canvas((128, 32), now=0.0)
>>> c.text(0, "Mesa 7"); c.img.size, c.img.getbbox() is not None
((128, 32), True)
>>> cycle(["", "uno", "dos"], now=0.0), cycle(["uno", "dos"], now=CYCLE)
('uno', 'dos')
"""

from __future__ import annotations

from mesa.controller.font import CondensedFont, TextFont

SIZES: tuple[tuple[int, int], ...] = ((128, 64), (128, 32), (256, 64))
CYCLE = 2.0  # seconds each secondary line stays on a small screen (what must be read never turns)


class Canvas:
    """A monochrome image being drawn at ``now`` (marquees and turns move with it): every game's
    screen draws its text through :meth:`text` and :meth:`pick`."""

    def __init__(self, size: tuple[int, int], now: float) -> None:
        from PIL import Image

        self.img = Image.new("1", size)
        self.w, self.h = size
        self.font = TextFont()
        self.small = CondensedFont()
        self.big = TextFont(scale=2)
        self.now = now

    def pick(self, s: str, width: int) -> TextFont:
        """The 5×7 font when ``s`` fits in ``width`` pixels, else the condensed one."""
        return self.font if self.font.width(s) <= width - 2 else self.small

    def text(
        self,
        y: int,
        s: str,
        align: str = "center",
        x0: int = 0,
        x1: int | None = None,
        invert: bool = False,
        font: TextFont | None = None,
        band: int = 8,
    ) -> None:
        """Draw ``s`` in the row at ``y`` (``band`` rows tall when inverted): condensed when it
        does not fit, cut (``..``) when even that does not; never a marquee (a line that moves
        cannot be read at a glance)."""
        x1 = self.w if x1 is None else x1
        width = x1 - x0
        font = font or self.pick(s, width)
        if font.width(s) > width - 2:
            s = font.fit(s, width - 2)
        if invert:
            self.img.paste(1, (x0, y, x1, y + band * font.scale))
        # The condensed letters sit on rows 1–5 of their 6: centre them in the 8-row band.
        dy = 1 if font is self.small else 0
        w = font.width(s)
        fill = 0 if invert else 1
        if align == "left":
            x = x0 + 1
        elif align == "right":
            x = x1 - 1 - w
        else:
            x = x0 + (width - w) // 2
        font.draw(self.img, (x, y + dy), s, fill)


def cycle(items: list[str], now: float) -> str:
    """The one of ``items`` (the empty ones skipped) whose turn it is at ``now``."""
    items = [i for i in items if i]
    if not items:
        return ""
    return items[int(now // CYCLE) % len(items)]


__all__ = ["CYCLE", "SIZES", "Canvas", "cycle"]
