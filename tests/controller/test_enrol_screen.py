"""The new table's screen: "Mesa nueva", and the code, readable back off the pixels."""

from __future__ import annotations

import pytest
from luma.core.device import dummy

from mesa.controller.enrol_screen import pairing_image, show_pairing
from mesa.pairing import new_private_key, pairing_code, public_key
from support.oled_text import read_code


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_code_is_shown_and_reads_back(lang: str) -> None:
    for _ in range(20):
        code = pairing_code(public_key(new_private_key()))
        device = dummy(width=128, height=64, mode="1")
        show_pairing(device, code, lang)
        assert read_code(device.image) == code
    assert read_code(pairing_image("4F7-2K9", lang)) == "4F7-2K9"


def test_a_table_without_a_screen_is_fine() -> None:
    show_pairing(None, "4F7-2K9", "es")
