"""Clock accuracy over a scripted 2-hour match, driven with real monotonic time and sleeps.

Usage: .venv/bin/python bench/clock_accuracy.py [--speed 240] [--seed 7]

Each turn sleeps a think time (divided by ``--speed``; ``--speed 1`` plays the full two hours),
then presses with ``time.monotonic()`` as the table's runtime does. The reference charges are
computed in exact integer nanoseconds from the same instants (``monotonic_ns``); the figure is
the largest difference between what the clock charged (floating seconds, accumulated over the
match) and that reference. It also prints the time to process one input (p50/p99).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from mesa.games.backgammon.machine import Table

MATCH_SECONDS = 2 * 3600.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--speed", type=float, default=240.0, help="time acceleration (1 = real time)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    speed = args.speed

    # The match is timed in "match seconds": real elapsed seconds × speed, so charges stay exact.
    origin_ns = time.monotonic_ns()

    def stamp() -> tuple[float, int]:
        ns = (time.monotonic_ns() - origin_ns) * speed
        return ns / 1e9, int(ns)

    delay_s = 10.0
    delay_ns = 10_000_000_000
    table = Table()
    apply_times: list[float] = []

    def do(name: str, **kw: object) -> tuple[float, int]:
        now, ns = stamp()
        t0 = time.perf_counter()
        out = table.apply(name, kw, now=now)
        apply_times.append(time.perf_counter() - t0)
        assert out.accepted, (name, kw, out.refusal)
        return now, ns

    # A 25-point match gives 50 minutes a side: room for two hours of play without a flag.
    do("assign", match_id="BENCH", players={"a": "Ana", "b": "Beto"}, length=25,
       clock={"reserve": 3000.0, "delay": delay_s})
    do("checkin", side="a")
    do("checkin", side="b")

    reference = {"a": 3_000_000_000_000, "b": 3_000_000_000_000}
    worst_turn = 0.0
    turns = 0
    _, start_ns = stamp()
    _, turn_start = do("press", side="b")  # a on move
    mover = "a"
    while True:
        think = rng.choice([3, 5, 8, 12, 15, 20, 30, 45]) * rng.uniform(0.7, 1.3)
        time.sleep(think / speed)
        _, now_ns = stamp()
        if now_ns - start_ns > MATCH_SECONDS * 1e9:
            break
        t0 = time.perf_counter()
        out = table.apply("press", {"side": mover}, now=now_ns / 1e9)
        apply_times.append(time.perf_counter() - t0)
        assert out.accepted, out.refusal
        charge = out.events[-1]
        ref_charge = max(0, now_ns - turn_start - delay_ns)
        reference[mover] -= ref_charge
        worst_turn = max(worst_turn, abs(charge.charged - ref_charge / 1e9))
        turn_start = now_ns
        mover = "b" if mover == "a" else "a"
        turns += 1
        if turns % 40 == 0:  # a game ends now and then; the loser's press starts the next one
            do("claim", side=mover, winner=mover, kind=1)
            do("confirm", side="b" if mover == "a" else "a")
            if table.state == "match_over":
                break
            loser = "b" if mover == "a" else "a"
            time.sleep(20 / speed)  # the board is set up again before the next opening roll
            _, turn_start = do("press", side=loser)
    clock = table.s.clock
    assert clock is not None
    worst_reserve = max(abs(clock.reserve[s] - reference[s] / 1e9) for s in ("a", "b"))
    per_input = sorted(apply_times)
    p50 = statistics.median(per_input) * 1e6
    p99 = per_input[int(0.99 * (len(per_input) - 1))] * 1e6
    print(f"clock_accuracy: {turns} turns over {MATCH_SECONDS / 3600:.0f} h of match time "
          f"(speed ×{speed:g})")
    print(f"  largest per-turn charge difference vs exact ns arithmetic: {worst_turn * 1e3:.3g} ms")
    print(f"  largest accumulated reserve difference:                      {worst_reserve * 1e3:.3g} ms"
          f"  (target < 1 ms)")
    print(f"  time to process one input: p50 {p50:.1f} µs, p99 {p99:.1f} µs "
          f"({len(per_input)} inputs timed)")


if __name__ == "__main__":
    main()
