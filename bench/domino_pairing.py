"""The domino pairings' figures: how long a round takes to pair or draw over a whole event, and
how many repeats it leaves.

Usage: .venv/bin/python bench/domino_pairing.py [--seeds 3]

Plays events with random results (standings by games won, then registration order): fixed pairs
of 10 to 41 pairs for as many rounds as pairs + 5 (past a round robin: rematches unavoidable), and
the individual format of 12 to 64 players for 7 and 12 rounds. Prints one JSON object: per field,
the worst and median CPU time of one round (ms), the rounds whose search ran out of steps
(pairs: the round then keeps the exact fewest rematches, the later criteria by swaps), and the
repeats left (pairs: rematches over the event; individual: partner and opponent repeats).
CPU time (``time.process_time``), so that other work on the machine does not count.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import Counter
from typing import Any

from mesa.games.domino import pairing
from mesa.games.domino.individual_pairing import draw_individual


def pairs_event(n: int, rounds: int, seed: int) -> dict[str, Any]:
    rnd = random.Random(seed)
    ids = [f"P{i}" for i in range(n)]
    wins: Counter[str] = Counter()
    met: Counter[frozenset[str]] = Counter()
    byes: list[str] = []
    times, past_budget, rematches = [], 0, 0
    fallback = pairing._matched_round
    used = [0]

    def counted(*args: Any) -> Any:
        used[0] += 1
        return fallback(*args)

    pairing._matched_round = counted  # type: ignore[assignment]
    try:
        for _ in range(rounds):
            order = sorted(ids, key=lambda p: (-wins[p], ids.index(p)))
            before = used[0]
            t0 = time.process_time()
            plan = pairing.pair_round(order, met, byes)
            times.append(1000 * (time.process_time() - t0))
            past_budget += used[0] > before
            rematches += plan.rematches
            for a, b in plan.games:
                met[frozenset({a, b})] += 1
                wins[a if rnd.random() < 0.5 else b] += 1
            if plan.bye:
                byes.append(plan.bye)
    finally:
        pairing._matched_round = fallback  # type: ignore[assignment]
    return {"times": times, "past_budget": past_budget, "rematches": rematches}


def individual_event(n: int, rounds: int, seed: int) -> dict[str, Any]:
    rnd = random.Random(seed)
    ids = [f"J{i}" for i in range(n)]
    won: Counter[str] = Counter()
    partnered: list[frozenset[str]] = []
    faced: list[frozenset[str]] = []
    sat_out: list[str] = []
    times, partner, opponent = [], 0, 0
    for _ in range(rounds):
        order = sorted(ids, key=lambda p: (-won[p], ids.index(p)))
        t0 = time.process_time()
        d = draw_individual(order, partnered, faced, sat_out)
        times.append(1000 * (time.process_time() - t0))
        partner += d.partner_repeats
        opponent += d.opponent_repeats
        sat_out += d.sitting_out
        for t in d.tables:
            partnered += [frozenset({t["n"], t["s"]}), frozenset({t["e"], t["w"]})]
            faced += [frozenset({x, y}) for x in (t["n"], t["s"]) for y in (t["e"], t["w"])]
            for seat in rnd.choice(("ns", "ew")):
                won[t[seat]] += 1
    return {"times": times, "partner_repeats": partner, "opponent_repeats": opponent}


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    times = [t for r in runs for t in r["times"]]
    out: dict[str, Any] = {
        "round_ms_median": round(statistics.median(times), 1),
        "round_ms_worst": round(max(times), 1),
    }
    for k in runs[0]:
        if k != "times":
            out[k] = sum(r[k] for r in runs)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    seeds = range(args.seeds)
    result: dict[str, Any] = {"seeds": args.seeds, "pairs": {}, "individual": {}}
    for n in (10, 20, 30, 40, 41):
        rounds = n + 5
        result["pairs"][f"{n} pairs, {rounds} rounds"] = summary(
            [pairs_event(n, rounds, s) for s in seeds]
        )
    for n in (12, 16, 21, 40, 64):
        for rounds in (7, 12):
            result["individual"][f"{n} players, {rounds} rounds"] = summary(
                [individual_event(n, rounds, s) for s in seeds]
            )
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
