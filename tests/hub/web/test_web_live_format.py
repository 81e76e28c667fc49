"""live.js formats a clock as mesa.words does: the shared vectors, run in headless Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mesa.hub.web import i18n as web_i18n
from mesa.words import format_clock
from support.browser import chromium, chromium_path

VECTORS = json.loads(
    (Path(__file__).parents[2] / "support" / "format_vectors.json").read_text("utf-8"))
LIVE_JS = Path(web_i18n.__file__).parent / "static" / "live.js"


def test_the_vectors_are_the_python_formatter() -> None:
    for v in VECTORS["clock"]:
        assert format_clock(v["seconds"]) == v["clock"], v


@pytest.mark.browser
def test_live_js_formats_every_vector_as_the_python_formatter() -> None:
    if chromium_path() is None:
        pytest.skip("chromium not installed")
    seconds = [v["seconds"] for v in VECTORS["clock"]]
    with chromium() as browser:
        page = browser.new_page()
        # No stream and no cards: the script only defines its functions and ticks over nothing.
        page.set_content("<!doctype html><html><body></body></html>")
        page.add_script_tag(content=LIVE_JS.read_text("utf-8"))
        got = page.evaluate("(xs) => xs.map((x) => window.mesaFormat.clock(x))", seconds)
        page.close()
    assert got == [v["clock"] for v in VECTORS["clock"]]
    assert got[seconds.index(59.5)] == "0:59"  # the reserve, the same as on the table
