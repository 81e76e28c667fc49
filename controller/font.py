"""Fonts for the OLED, with nothing to download: luma.core's 5×7 LCD bitmap font for text
(Spanish accents composed onto it here), and seven-segment digits drawn in code for the clocks.

>>> from PIL import Image
>>> font = TextFont()
>>> font.width("Año"), font.width("Ano") == font.width("Año")
(17, True)
>>> img = Image.new("1", (40, 8))
>>> font.draw(img, (0, 0), "Ñ")
5
>>> seven_segment_width("9:58", digit_w=10)
40

Lower-case á é í ó ú ü ñ and ¿ ¡ are composed from the base glyphs; the accented capitals
Á É Í Ó Ú Ñ are drawn a row shorter so the mark fits above them (``ÁRBITRO``); other accented
letters fall back to their base letter.

:class:`CondensedFont` is luma's 3×5 "tiny" font with the same Spanish marks: four pixels a letter
instead of about six, for names and messages that do not fit in the 5×7 font.

>>> CondensedFont().width("Rafael Urdaneta")
56
>>> TextFont().width("Rafael Urdaneta") > 64
True
"""

from __future__ import annotations

import functools
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image as ImageModule

# Characters the font spells differently.
SUBSTITUTES = {"–": "-", "—": "-", "…": "...", "’": "'", "«": '"', "»": '"'}
# Marks composed on top of a lower-case letter (rows 0–1 are free above its x-height).
_MARKS = {
    "acute": ["...#.", "..#.."],
    "tilde": [".#..#", "#.##."],
    "diaeresis": [".#.#.", "....."],
}
_COMPOSED = {
    "á": ("a", "acute"),
    "é": ("e", "acute"),
    "í": ("ı", "acute"),
    "ó": ("o", "acute"),
    "ú": ("u", "acute"),
    "ü": ("u", "diaeresis"),
    "ñ": ("n", "tilde"),
}
_DRAWN = {
    # A dotless i, the base of í.
    "ı": [".....", ".....", ".##..", "..#..", "..#..", "..#..", ".###."],
    "Ñ": [".#..#", "#.##.", "#...#", "##..#", "#.#.#", "#..##", "#...#"],
    # Accented capitals: the mark on rows 0–1, the letter squeezed into rows 2–6.
    "Á": ["...#.", "..#..", ".###.", "#...#", "#####", "#...#", "#...#"],
    "É": ["...#.", "..#..", "#####", "#....", "####.", "#....", "#####"],
    "Í": ["...#.", "..#..", ".###.", "..#..", "..#..", "..#..", ".###."],
    "Ó": ["...#.", "..#..", ".###.", "#...#", "#...#", "#...#", ".###."],
    "Ú": ["...#.", "..#..", "#...#", "#...#", "#...#", "#...#", ".###."],
    "√": ["....#", "....#", "...#.", "#..#.", ".#.#.", "..#..", "....."],
    "·": [".....", ".....", ".....", "..#..", ".....", ".....", "....."],
    "°": [".##..", "#..#.", ".##..", ".....", ".....", ".....", "....."],
    "ª": [".##.", "#.#.", ".##.", "....", "###.", "....", "...."],
    "º": [".#..", "#.#.", ".#..", "....", "###.", "....", "...."],
}


def _from_rows(rows: list[str]) -> list[int]:
    width = max(len(r) for r in rows)
    return [
        sum(1 << y for y, r in enumerate(rows) if x < len(r) and r[x] == "#") for x in range(width)
    ]


@functools.lru_cache(maxsize=1)
def _lcd() -> list[list[int]]:
    from luma.core.legacy.font import LCD_FONT

    return [list(c) for c in LCD_FONT]


def _columns(ch: str) -> list[int]:
    """The glyph of ``ch`` as columns of bits (bit 0 at the top)."""
    if ch in _DRAWN:
        return _from_rows(_DRAWN[ch])
    if ch in _COMPOSED:
        base, mark = _COMPOSED[ch]
        cols = list(_columns(base))
        for x, bits in enumerate(_from_rows(_MARKS[mark])):
            if x < len(cols):
                cols[x] |= bits
        return cols
    if ch in "¿¡":
        # The inverted marks: ? and ! turned half a circle.
        cols = _columns("?" if ch == "¿" else "!")
        return [int(f"{c & 0x7F:07b}"[::-1], 2) for c in reversed(cols)]
    code = ord(ch)
    if 0x20 <= code < 0x7F:
        return _lcd()[code]
    base = unicodedata.normalize("NFD", ch)[0]
    if base != ch and 0x20 <= ord(base) < 0x7F:
        return _lcd()[ord(base)]
    return _lcd()[ord("?")]


@functools.lru_cache(maxsize=1)
def _tiny() -> list[list[int]]:
    from luma.core.legacy.font import TINY_FONT

    return [list(c) for c in TINY_FONT]


# The tiny font's letters sit on rows 1–5: a mark takes row 0.
_TINY_MARKS = {"acute": ["..#"], "tilde": ["###"], "diaeresis": ["#.#"]}
_TINY_DRAWN = {
    "√": ["..#", "..#", "..#", "#.#", ".#."],
    "·": ["...", "...", ".#.", "...", "..."],
    "°": [".#.", "#.#", ".#.", "...", "..."],
    "ª": ["##.", ".##", "...", "###", "..."],
    "º": [".#.", "#.#", ".#.", "###", "..."],
}


def _tiny_columns(ch: str) -> list[int]:
    """The condensed glyph of ``ch`` (bit 0 at the top; the letter on rows 1–5)."""
    if ch in _TINY_DRAWN:
        return [c << 1 for c in _from_rows(_TINY_DRAWN[ch])]
    if ch in "¿¡":
        cols = _tiny_columns("?" if ch == "¿" else "!")
        return [int(f"{c >> 1 & 0x1F:05b}"[::-1], 2) << 1 for c in reversed(cols)]
    decomposed = unicodedata.normalize("NFD", ch)
    base = decomposed[0]
    if 0x20 <= ord(base) < 0x7F:
        cols = list(_tiny()[ord(base)])
        mark = {"\u0301": "acute", "\u0303": "tilde", "\u0308": "diaeresis"}.get(decomposed[1:])
        if mark is not None:
            nz = [i for i, c in enumerate(cols) if c]
            start = nz[0] if nz else 0
            for x, bits in enumerate(_from_rows(_TINY_MARKS[mark])):
                if start + x < len(cols):
                    cols[start + x] |= bits
        return cols
    return _tiny()[ord("?")]


class TextFont:
    """The 5×7 font, proportional (blank columns trimmed, one column between letters)."""

    height = 8

    def __init__(self, scale: int = 1) -> None:
        self.scale = scale

    def _columns(self, ch: str) -> list[int]:
        return _columns(ch)

    @functools.lru_cache(maxsize=512)  # noqa: B019 — a few fonts live for the whole process
    def glyph(self, ch: str) -> ImageModule.Image:
        from PIL import Image

        ch = SUBSTITUTES.get(ch, ch)
        if ch == " ":
            return Image.new("1", (3 * self.scale, self.height * self.scale))
        cols = self._columns(ch)
        nz = [i for i, c in enumerate(cols) if c]
        cols = cols[nz[0] : nz[-1] + 1] if nz else [0, 0]
        img = Image.new("1", (len(cols), self.height))
        px = img.load()
        assert px is not None
        for x, byte in enumerate(cols):
            for y in range(self.height):
                if byte >> y & 1:
                    px[x, y] = 1
        if self.scale != 1:
            size = (img.width * self.scale, self.height * self.scale)
            img = img.resize(size, Image.Resampling.NEAREST)
        return img

    def width(self, text: str) -> int:
        """Pixels ``text`` takes (one blank column between letters, none after the last)."""
        if not text:
            return 0
        gap = self.scale
        return sum(self.glyph(ch).width for ch in text) + gap * (len(text) - 1)

    def draw(self, img: ImageModule.Image, xy: tuple[int, int], text: str, fill: int = 1) -> int:
        """Draw ``text`` with its top-left at ``xy``; returns the x after it."""
        x, y = xy
        for i, ch in enumerate(text):
            g = self.glyph(ch)
            if x + g.width > 0 and x < img.width:
                img.paste(fill, (x, y, x + g.width, y + g.height), g)
            x += g.width + (self.scale if i < len(text) - 1 else 0)
        return x

    def fit(self, text: str, width: int) -> str:
        """``text`` cut (ending in ``..``) to fit ``width`` pixels."""
        if self.width(text) <= width:
            return text
        while text and self.width(text + "..") > width:
            text = text[:-1]
        return text.rstrip() + ".."


class CondensedFont(TextFont):
    """luma's 3×5 tiny font with Spanish marks: the same interface, about two thirds the width.

    >>> f = CondensedFont()
    >>> f.width("ÁRBITRO") == f.width("ARBITRO"), f.height
    (True, 6)
    """

    height = 6

    def _columns(self, ch: str) -> list[int]:
        return _tiny_columns(ch)


# ── seven-segment digits ───────────────────────────────────────────────────
#   aaa
#  f   b
#   ggg
#  e   c
#   ddd
SEGMENTS = {
    "0": "abcdef",
    "1": "bc",
    "2": "abged",
    "3": "abgcd",
    "4": "fgbc",
    "5": "afgcd",
    "6": "afgedc",
    "7": "abc",
    "8": "abcdefg",
    "9": "abcdfg",
    "-": "g",
    " ": "",
}


def _punct_width(ch: str, digit_w: int) -> int:
    return max(2, digit_w // 4) + 2 if ch in ":." else digit_w


def seven_segment_width(text: str, digit_w: int) -> int:
    """Pixels ``text`` takes in digits ``digit_w`` wide (2 px between characters)."""
    if not text:
        return 0
    return sum(_punct_width(ch, digit_w) for ch in text) + 2 * (len(text) - 1)


def draw_seven_segment(
    img: ImageModule.Image,
    xy: tuple[int, int],
    text: str,
    digit_w: int,
    digit_h: int,
    fill: int = 1,
) -> int:
    """Draw digits, ``:``, ``.``, ``-`` and spaces with the top-left at ``xy``; returns the end x."""
    from PIL import ImageDraw

    draw = ImageDraw.Draw(img)
    x, y = xy
    t = max(2, digit_h // 8)  # stroke
    dot = max(2, digit_w // 4)
    mid = y + (digit_h - t) // 2
    for i, ch in enumerate(text):
        w = _punct_width(ch, digit_w)
        if ch == ":":
            cx = x + (w - dot) // 2
            for cy in (y + digit_h // 4, y + digit_h - digit_h // 4 - dot):
                draw.rectangle((cx, cy, cx + dot - 1, cy + dot - 1), fill=fill)
        elif ch == ".":
            cx = x + (w - dot) // 2
            draw.rectangle((cx, y + digit_h - dot, cx + dot - 1, y + digit_h - 1), fill=fill)
        else:
            segs = SEGMENTS.get(ch, "g")
            right = x + w - 1
            bottom = y + digit_h - 1
            boxes = {
                "a": (x + 1, y, right - 1, y + t - 1),
                "g": (x + 1, mid, right - 1, mid + t - 1),
                "d": (x + 1, bottom - t + 1, right - 1, bottom),
                "f": (x, y + 1, x + t - 1, mid + t // 2),
                "b": (right - t + 1, y + 1, right, mid + t // 2),
                "e": (x, mid + t // 2, x + t - 1, bottom - 1),
                "c": (right - t + 1, mid + t // 2, right, bottom - 1),
            }
            for seg in segs:
                draw.rectangle(boxes[seg], fill=fill)
        x += w + (2 if i < len(text) - 1 else 0)
    return x
