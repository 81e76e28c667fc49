"""Whole club evenings, bounded: a real Mosquitto, the hub as its own process (``mesa web``),
robot tables in accelerated time, and a director driving the dashboard over HTTP.

Run alone with ``pytest -m evening`` (or this file). Three short evenings:

- one under full chaos (director actions, a table offline, kill -9 of a table process and of the
  hub, hostile tables): it must reach a published final list with 0 invariant violations;
- one calm evening run twice with the same seed: the same decisions and the same results;
- one with three events (the open and the novatos categories on the same tables, some players
  in both, and the domino room, its director fining, annulling hands, noting late arrivals and
  declaring absences at random moments) under the director's chaos and the tables' faults:
  every event reaches its final list, nobody at two tables, every domino fine once on the
  records.

The invariants and the figures are in ``tests/support/evening.py``; ``bench/evening.py`` runs
hundreds of these.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from support.evening import EveningConfig, EveningResult, run_evening
from support.mosquitto import have_mosquitto

pytestmark = [pytest.mark.broker, pytest.mark.evening]


@pytest.fixture(autouse=True)
def _need_mosquitto() -> None:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")


def evening(tmp_path: Path, name: str, **kw: object) -> EveningResult:
    """One bounded evening (at most a minute of play; a stall ends it sooner)."""
    settings: dict[str, object] = {"max_wall": 60.0, "stall_after": 30.0, **kw}
    cfg = EveningConfig(workdir=tmp_path / name, **settings)  # type: ignore[arg-type]
    return run_evening(cfg)


def summary(r: EveningResult) -> str:
    kinds = ", ".join(f"{k}×{n}" for k, n in sorted(r.by_kind().items()))
    first = "; ".join(f"{v.kind}: {v.detail}" for v in r.violations[:5])
    return f"seed {r.seed}: {r.steps} steps, {len(r.violations)} violations ({kinds}) {first}"


def test_chaos_evening(tmp_path: Path) -> None:
    """Every invariant after every step, under every kind of chaos: 0 violations."""
    r = evening(
        tmp_path, "chaos", seed=7, players=8, tables=4, chaos=3, speed=150.0, stall_after=20.0
    )
    harness = [v for v in r.violations if v.kind == "harness_error"]
    assert not harness, summary(r)
    assert r.steps > 10, summary(r)
    assert sum(r.interventions.values()) > 5, r.interventions
    assert any(a.status == 200 and a.kind != "setup" for a in r.actions), r.coverage()
    assert not r.violations, summary(r)
    assert r.finished, summary(r)


def test_same_seed_same_evening(tmp_path: Path) -> None:
    # The two runs side by side (each has its own broker, hub and tables): half the wall time.
    # Not the fastest speed: at 200x a scheduling hiccup of the shared machine is seconds of
    # table time, enough for a robot to see the clock differently and play another game.
    kw = {"seed": 3, "players": 8, "tables": 4, "chaos": 0, "speed": 120.0, "step": 0.25}
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(evening, tmp_path, "one", **kw)
        second = pool.submit(evening, tmp_path, "two", **kw)
        one, two = first.result(), second.result()
    assert one.finished and two.finished, summary(one) + " | " + summary(two)
    assert not one.violations and not two.violations, summary(one) + " | " + summary(two)
    assert one.decisions_digest == two.decisions_digest
    assert one.results_digest == two.results_digest


def test_three_events_on_shared_tables(tmp_path: Path) -> None:
    """Open and novatos on the same four tables, some players in both, the domino room beside
    them (two of its players in a backgammon event), the director clicking on every event's
    pages and the tables failing: 0 violations (among them nobody seated at two tables, each
    event's final list its own), every event closed with its final list."""
    r = evening(
        tmp_path, "two", seed=5, players=8, tables=4, chaos=2, speed=150.0, events=2, domino=True,
        stall_after=20.0,
    )  # fmt: skip
    assert r.steps > 10, summary(r)
    assert not r.violations, summary(r)
    assert r.finished, summary(r)
    # The domino room's director fined at random moments (the records checked at its end).
    assert r.interventions["domino_fine ok"] > 0, r.interventions
