"""On a real Raspberry Pi with the table's parts attached (deselected unless ``MESA_REAL_PI=1``).

Run on the Pi, as the table's user, with its configuration::

    MESA_REAL_PI=1 MESA_TABLE_CONFIG=/etc/mesa/table.toml .venv/bin/python -m pytest \\
        tests/controller/test_controller_real_pi.py

Like gpiozero's own real-pin tests, these never run on a laptop and never fake anything.
"""

from __future__ import annotations

import os
import time

import pytest

from mesa.controller.app import TableApp
from mesa.controller.config import load_config
from mesa.controller.hwcheck import run_checks

pytestmark = pytest.mark.real_pi

CONFIG = os.environ.get("MESA_TABLE_CONFIG", "/etc/mesa/table.toml")


def test_the_real_table_starts_with_its_display_and_stops_cleanly(tmp_path) -> None:  # type: ignore[no-untyped-def]
    cfg = load_config(CONFIG)
    app = TableApp(cfg)
    app.start()
    try:
        time.sleep(1.0)
        assert app.runtime.running
        if cfg.display.model != "none":
            assert app.runtime.status.display == "ok"
            assert app.display.stats.frames > 0
    finally:
        app.stop()


def test_the_outputs_and_the_display_answer_on_real_pins() -> None:
    cfg = load_config(CONFIG)
    results = run_checks(
        cfg, only={"leds", "display", "buzzer"}, ask=lambda q: True, say=print, pause=0.5
    )
    assert results and all(r.ok for r in results), results
