"""Benchmark of the tournament engine: groups, standings, draw and points for 1,000 players.

    .venv/bin/python bench/tournament.py [players ...]

Prints one line per step: the median wall time of a few runs in milliseconds, next to the number
of matches the step handles. It only prints figures (nothing is asserted).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any

from mesa.tournament.groups import group_standings
from mesa.tournament.players import PlayerRegistry
from mesa.tournament.tournament import Tournament

NOW = datetime(2014, 1, 31, 19, 30)
RUNS = 5


def timed(fn: Callable[[], Any], runs: int = RUNS) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), out


def registered(n: int) -> Tournament:
    reg = PlayerRegistry()
    ids = [reg.add_new(f"Jugador {i:04d}").id for i in range(n)]
    t = Tournament("bench", "Bench", date(2014, 1, 31))
    for pid in ids:
        t.register(reg, pid, now=NOW)
    return t


def score(rng: random.Random, length: int) -> tuple[int, int]:
    lo = rng.randint(0, length - 1)
    return (length, lo) if rng.random() < 0.5 else (lo, length)


def bench(n: int) -> list[tuple[str, int, float]]:
    rng = random.Random(n)
    ranking = {f"P{i + 1:04d}": rng.randint(0, 40) * 4 for i in range(n)}
    rows: list[tuple[str, int, float]] = []

    def start() -> Tournament:
        t = registered(n)
        t.start_groups(ranking=ranking, seed=2014, now=NOW)
        return t

    ms, t = timed(start)
    group_matches = len(t.matches)
    rows.append(("register + seed + groups + Berger calendars", group_matches, ms))

    clock = NOW
    t0 = time.perf_counter()
    for m in list(t.matches.values()):
        if m.phase == "group" and m.result is None and t.knockout is None:
            clock += timedelta(seconds=1)
            t.record_result(m.id, *score(rng, m.length), now=clock)
    rows.append(("record every group result (draw made by the last)", group_matches,
                 (time.perf_counter() - t0) * 1000))

    def standings() -> list[Any]:
        return [group_standings(g, members, t.group_results(g), qualifiers=3)
                for g, members in enumerate(t.groups, start=1)]

    ms, _ = timed(standings)
    rows.append(("all group standings with tie-breaks", group_matches, ms))

    ms, (seeds, swaps, plan) = timed(t.draw_preview)
    ko_matches = len(plan.matches) if plan else 0
    rows.append((f"the draw ({len(seeds)} qualifiers, {len(swaps)} separating swaps)",
                 ko_matches, ms))

    t0 = time.perf_counter()
    while True:
        ready = t.ready_matches()
        if not ready:
            if t.consolation is None and t.first_knockout_round_done():
                t.start_consolation(now=clock)
                continue
            break
        for m in ready:
            if m.status == "ready":
                clock += timedelta(seconds=1)
                t.record_result(m.id, *score(rng, m.length), now=clock)
    total = len(t.matches)
    rows.append(("play out knockout + Último Chance (every result)", total - group_matches,
                 (time.perf_counter() - t0) * 1000))

    ms, _ = timed(lambda: t.final_list())
    rows.append(("points and final list for everyone", total, ms))
    return rows


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [1000]
    print(f"{'players':>7}  {'matches':>7}  {'ms':>9}  step")
    for n in sizes:
        for step, matches, ms in bench(n):
            print(f"{n:>7}  {matches:>7}  {ms:>9.1f}  {step}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
