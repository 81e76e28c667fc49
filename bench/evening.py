"""Club evenings under chaos: whole tournaments on a real Mosquitto and hub, robot tables in
accelerated time, a director clicking every action the dashboard offers, tables dropping off,
kill -9 of a table and of the hub, hostile tables; invariants checked after every step.

    .venv/bin/python bench/evening.py                       # a handful of evenings
    .venv/bin/python bench/evening.py --evenings 200 --seed 1   # the issue's check
    .venv/bin/python bench/evening.py --events 3                # every evening three events
    .venv/bin/python bench/evening.py --wifi bad --evenings 1 --events 1 \
        --tables-min 50 --tables-max 50 --players-min 100 --players-max 100 --max-wall 900
        # a room with a bad Wi-Fi: 300 ms ± 200 ms each way, 1 % of connections reset a minute

An evening holds one event (the open tournament), two (the open and the novatos categories on
the same tables, some players in both) or three (and the domino room on its two tables, two
of its players in a backgammon event too); by default (``--events mix``) each seeded evening
draws one of the three, the multi-event ones twice as often.

Prints, per evening: seed, players, tables, steps, wall time, violations by kind, the commit
latency of its events (table → hub's store: p50, p99, max) and the connections reset; then the
totals, the violations by kind with a seed that reproduces each, and the director actions tried
(with how the dashboard answered). Exits 1 if any invariant was violated. See
``tests/support/evening.py`` for the invariants.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the test helpers (support.*) are not installed

from support.evening import EveningConfig, EveningResult, run_evening  # noqa: E402


def report(args: argparse.Namespace, cfg: EveningConfig, r: EveningResult) -> None:
    seed = cfg.seed
    kinds = ", ".join(f"{k}×{n}" for k, n in sorted(r.by_kind().items())) or "none"
    print(
        f"evening seed={seed} events={cfg.events}{'+domino' if cfg.domino else ''} players={cfg.players} tables={cfg.tables} "
        f"steps={r.steps} matches={r.matches} pages={r.pages} wall={r.wall:.1f}s "
        f"final={'yes' if r.finished else 'NO'} digest={r.decisions_digest}/"
        f"{r.results_digest} violations={len(r.violations)}: {kinds}",
        flush=True,
    )
    c = r.commits
    if c.get("events"):
        print(
            f"  wifi={cfg.wifi} resets={r.resets} commit latency over {c['events']} events: "
            f"p50 {c['p50_ms']} ms, p99 {c['p99_ms']} ms, max {c['max_ms']} ms",
            flush=True,
        )
    if args.verbose:
        print(
            "  interventions: " + ", ".join(f"{k} {n}" for k, n in sorted(r.interventions.items()))
        )


def events_of(choice: str, sizes: random.Random) -> int:
    """How many events an evening holds: ``--events`` as given, or (mix) drawn per seed."""
    if choice == "mix":
        return sizes.choice((1, 2, 2, 3, 3))
    return int(choice)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--evenings", type=int, default=4)
    p.add_argument("--seed", type=int, default=1, help="first seed; evening i uses seed+i")
    p.add_argument("--players-min", type=int, default=8)
    p.add_argument("--players-max", type=int, default=24)
    p.add_argument("--tables-min", type=int, default=4)
    p.add_argument("--tables-max", type=int, default=8)
    p.add_argument("--speed", type=float, default=60.0, help="table seconds per wall second")
    p.add_argument(
        "--events",
        default="mix",
        choices=("1", "2", "3", "mix"),
        help="events an evening holds: 1 the open, 2 open + novatos sharing tables and "
        "players, 3 and the domino room; mix (default) drawn per evening",
    )
    p.add_argument(
        "--chaos",
        type=int,
        default=3,
        choices=(0, 1, 2, 3),
        help="0 calm, 1 director actions, 2 + offline and kill -9, 3 + hostile tables",
    )
    p.add_argument(
        "--wifi",
        default="good",
        choices=("good", "bad"),
        help="how the robot tables reach the broker: good, or bad (300 ms ± 200 ms each way, "
        "1 %% of the connections reset per minute of the evening's clock)",
    )
    p.add_argument("--max-wall", type=float, default=300.0, help="seconds an evening may last")
    p.add_argument("--jobs", type=int, default=1, help="evenings run side by side")
    p.add_argument(
        "--keep", action="store_true", help="keep each evening's files (kept anyway on a violation)"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="print violations as they happen")
    args = p.parse_args(argv)
    if not 8 <= args.players_min <= args.players_max <= 128:
        p.error("players: 8 ≤ min ≤ max ≤ 128")
    if not 1 <= args.tables_min <= args.tables_max <= 64:
        p.error("tables: 1 ≤ min ≤ max ≤ 64 (each evening's broker has an account per table)")

    results: list[EveningResult] = []
    start = time.monotonic()

    def one(seed: int) -> tuple[EveningConfig, EveningResult]:
        sizes = random.Random(f"size/{seed}")
        players, tables = (
            sizes.randint(args.players_min, args.players_max),
            sizes.randint(args.tables_min, args.tables_max),
        )
        events = events_of(args.events, sizes)
        cfg = EveningConfig(
            seed=seed,
            players=players,
            tables=tables,
            events=min(2, events),
            domino=events == 3,
            speed=args.speed,
            chaos=args.chaos,
            max_wall=args.max_wall,
            wifi=args.wifi,
            workdir=Path(tempfile.mkdtemp(prefix=f"mesa-evening-{seed}-")),
        )
        return cfg, run_evening(cfg, out=sys.stdout if args.verbose else None)

    # Evenings are independent (each its own broker, hub, tables, files): --jobs runs several
    # side by side; each evening's own timing is what its figures say.
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(one, args.seed + i) for i in range(args.evenings)]
        for future in as_completed(futures):
            cfg, r = future.result()
            folder = cfg.workdir
            results.append(r)
            report(args, cfg, r)
            if args.keep or r.violations:  # an evening that went wrong keeps its evidence
                print(f"  files: {folder}")
            else:
                shutil.rmtree(folder, ignore_errors=True)

    results.sort(key=lambda r: r.seed)
    total: Counter[str] = Counter()
    example: dict[str, tuple[int, str]] = {}
    causes: dict[str, dict[tuple[str, str], tuple[int, int]]] = {}
    for r in results:
        for v in r.violations:
            total[v.kind] += 1
            example.setdefault(v.kind, (r.seed, v.detail))
            where = v.detail.split(" ", 1)[0]
            why = v.detail[v.detail.find("[") :] if "[" in v.detail else ""
            count, first = causes.setdefault(v.kind, {}).get((where, why), (0, r.seed))
            causes[v.kind][(where, why)] = (count + 1, first)
    finished = sum(r.finished for r in results)
    steps = sum(r.steps for r in results)
    print()
    print(
        f"evenings {len(results)}, reached a final list {finished}, steps {steps}, "
        f"invariant violations {sum(total.values())}, wall {time.monotonic() - start:.0f} s"
    )
    rooms = [r for r in results if r.config.get("domino")]
    if rooms:  # the domino room's director: fines, annulled hands, late arrivals, absences
        said: Counter[str] = Counter()
        for r in rooms:
            said.update({k.removeprefix("domino_"): n for k, n in r.interventions.items()
                         if k.startswith("domino_")})
        print(
            f"domino room: evenings {len(rooms)}, final list {sum(r.finished for r in rooms)}, "
            f"record actions {sum(said.values())} ("
            + ", ".join(f"{k} {n}" for k, n in sorted(said.items()))
            + f"), violations {sum(len(r.violations) for r in rooms)}"
        )
    p99s = [(r.commits["p99_ms"], r.seed) for r in results if r.commits.get("events")]
    if p99s:
        worst, seed = max(p99s)
        resets = sum(r.resets for r in results)
        print(
            f"commit latency (table → hub's store) p99: worst evening {worst} ms (seed {seed}), "
            f"median evening {sorted(p for p, _ in p99s)[len(p99s) // 2]} ms; "
            f"connections reset {resets}"
        )
    for kind, n in total.most_common():
        seed, detail = example[kind]
        print(f"  {n:4d}  {kind}   (seed {seed}: {detail[:150]})")
        if kind.startswith(("page_", "action_")):  # one line per page and cause
            for (where, why), (count, s) in sorted(causes[kind].items()):
                print(f"          {count:3d} × {where} {why}   (seed {s})")
    coverage: dict[str, Counter[str]] = {}
    for r in results:
        for name, c in r.coverage().items():
            coverage.setdefault(name, Counter()).update(c)
    print("director actions (answers):")
    for name in sorted(coverage):
        print(f"  {name:18s} " + ", ".join(f"{k} {n}" for k, n in coverage[name].most_common()))
    unknown = set().union(*(r.unknown_forms for r in results)) if results else set()
    if unknown:
        print("forms without a recipe (filled generically): " + ", ".join(sorted(unknown)))
    return 1 if total else 0


if __name__ == "__main__":
    raise SystemExit(main())
