"""``bench/schedule.py`` on one tiny evening of each kind: it runs, its bound is a bound, its
forecasts name no finished match (the bench asserts it) and its table prints."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "schedule.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_schedule", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_schedule"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_tiny_evening_under_both_policies(bench: ModuleType,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    tiny = (bench.Scenario("12 players, 3 tables", 12, 3, 4),
            bench.Scenario("12 players, 3 tables, domino", 12, 3, 4, domino_shared=2,
                           domino_rounds=2))
    results = bench.run(tiny, [1], replays=3)
    for sc in tiny:
        for name in ("calendar", "critical"):
            [f] = results[sc.name][name]
            assert f.ratio >= 1 - 1e-9            # the lower bound is one
            assert f.ratio >= f.barrier_ratio >= 1 - 1e-9   # the barrier bound too, tighter
            # a final under way at half-time has nothing left to replay
            assert set(f.replay_std) == set(f.replay_p90) <= set(f.final_start)
            assert all(v >= 0 for v in f.replay_std.values())
            assert set(f.err_half) == set(f.final_start) == {"2026-12", "2026-12-novatos"}
    assert bench.report(tiny[:1], [1], replays=2) == 0
    out = capsys.readouterr().out
    assert "critical" in out and "forecast wall time" in out and "floor" in out


def test_the_clairvoyant_scheduler_is_never_longer_than_its_candidates(
        bench: ModuleType) -> None:
    tiny = bench.Scenario("12 players, 3 tables", 12, 3, 4)
    ev, _ = bench.play_clairvoyant(tiny, 1)
    end = max(ev.sim.ends.values())
    for name in ("calendar", "critical"):
        other = bench.play(tiny, 1, dict(bench.CANDIDATES)[name])
        assert end <= max(other.sim.ends.values())
    assert bench.bounds(tiny, ev)[0] <= (end - bench.T0).total_seconds() + 1e-6
