"""What a new table's screen shows while it waits to be adopted: "Mesa nueva", and the pairing
code the director types on the hub (:func:`mesa.pairing.pairing_code`), large.

>>> img = pairing_image("4F7-2K9", "es")
>>> img.size, img.getbbox() is not None
((128, 64), True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mesa.controller.font import TextFont
from mesa.controller.i18n import text

if TYPE_CHECKING:
    from PIL import Image as ImageModule

CODE_TOP = 34  # the code's line, twice the font's size (tests read it back from here)
CODE_SCALE = 2


def pairing_image(code: str, lang: str, size: tuple[int, int] = (128, 64)) -> ImageModule.Image:
    from PIL import Image

    img = Image.new("1", size)
    small, big = TextFont(), TextFont(scale=CODE_SCALE)
    lines = (text(lang, "enrol.new_table"), text(lang, "enrol.code"))
    for y, line in zip((4, 18), lines, strict=True):
        line = small.fit(line, size[0])
        small.draw(img, ((size[0] - small.width(line)) // 2, y), line)
    big.draw(img, ((size[0] - big.width(code)) // 2, CODE_TOP), code)
    return img


def show_pairing(device: Any, code: str, lang: str) -> None:
    """Put the pairing screen on ``device`` (a luma device; None: a table without a screen)."""
    if device is None:
        return
    image = pairing_image(code, lang, (device.width, device.height))
    device.display(image.convert(device.mode))
