"""Reading the pairing code back from a simulated OLED's pixels, as the director reads it off the
table: the code's line is cut into glyphs at blank columns and each glyph matched against the
table's font (controller/enrol_screen.py draws it at CODE_TOP, CODE_SCALE)."""

from __future__ import annotations

from typing import Any

from mesa.controller.enrol_screen import CODE_SCALE, CODE_TOP
from mesa.controller.font import TextFont

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ-"


def _bits(img: Any) -> tuple[tuple[int, ...], ...]:
    px = img.convert("1").load()
    return tuple(tuple(1 if px[x, y] else 0 for y in range(img.height)) for x in range(img.width))


def read_code(image: Any) -> str:
    """The code shown on ``image`` (the device's last frame)."""
    font = TextFont()
    h = font.height
    line = image.convert("1").crop((0, CODE_TOP, image.width, CODE_TOP + h * CODE_SCALE))
    line = line.resize((line.width // CODE_SCALE, h))
    cols = _bits(line)
    glyphs = {_bits(font.glyph(c)): c for c in ALPHABET}
    out, run = [], []
    for col in [*cols, (0,) * h]:
        if any(col):
            run.append(col)
        elif run:
            out.append(glyphs.get(tuple(run), "?"))
            run = []
    return "".join(out)
