"""A chaos evening in a room with a bad Wi-Fi, bounded: the robot tables reach the broker through
:class:`~support.faultproxy.FaultProxy` (300 ms ± 200 ms each way, 1 % of the connections reset
per minute of the evening's clock: :func:`support.evening_wifi.bad_wifi`), with every fault and
hostile of chaos level 3 on top. It must reach its final list with 0 invariant violations and
every event stored once, in order.

The whole evening at the issue's size is ``bench/evening.py --wifi bad`` (50 tables).
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import support.evening_wifi
from support.evening import EveningConfig, run_evening
from support.mosquitto import have_mosquitto

pytestmark = [pytest.mark.broker, pytest.mark.evening]


def test_the_wifi_doctests() -> None:
    assert doctest.testmod(support.evening_wifi).failed == 0


def test_chaos_evening_on_a_bad_wifi(tmp_path: Path) -> None:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    cfg = EveningConfig(
        seed=7,
        players=8,
        tables=4,
        chaos=3,
        speed=150.0,
        max_wall=90.0,
        stall_after=30.0,
        wifi="bad",
        workdir=tmp_path / "wifi",
    )
    r = run_evening(cfg)
    first = "; ".join(f"{v.kind}: {v.detail}" for v in r.violations[:5])
    print(f"\nbad Wi-Fi evening: {r.steps} steps, resets {r.resets}, commits {r.commits}")
    assert not r.violations, first
    assert r.finished and r.matches > 0
    # The latency was there: the median event took at least the fastest way up (100 ms).
    assert r.commits["events"] > 100 and r.commits["p50_ms"] >= 100, r.commits
