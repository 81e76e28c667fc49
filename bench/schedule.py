"""Simulated club evenings: today's calendar-order scheduler against the critical one, and the
forecast's error for the start of each final.

    .venv/bin/python bench/schedule.py                 # the ten evenings, 5 seeds, 20 replays
    .venv/bin/python bench/schedule.py --seeds 20      # more seeds
    .venv/bin/python bench/schedule.py --replays 0     # without the forecast's floor (6 s)
    .venv/bin/python bench/schedule.py --clairvoyant   # what knowing every duration reaches

Each evening is an open tournament and a novatos one (with Último Chance each) on shared
backgammon tables, drawn at 20:00; one evening also has a domino room: a pairs event whose
rounds (about 35 minutes, 5 between them) hold some of the open players busy (a round waits
for its players to leave their backgammon tables; the backgammon waits for them while a round
is due). Match durations come from :mod:`mesa.tournament.durations` (the HGV 2.4 norm, the
lognormal spread, the clock's bound), drawn from the seed and each match's event and id: both
schedulers play the very same matches for the very same time, with the same results.

Printed per evening and scheduler: the evening's length (the last backgammon match's end),
the lower bound ``max(longest chain, total match time ÷ tables)`` (the chain from
:mod:`mesa.tournament.chains` over the evening as played) and a tighter one that knows the
knockout is drawn after every group (:func:`bounds`), the ratio to each, the idle
table-minutes, and the forecast's error (forecast − actual, minutes) for the start of each
event's final, made at the draw and at half-time (half the evening's actual length; the tables
report each match's score as growing evenly over its drawn duration). Beside it the floor no
forecast can beat: the spread of that start over replays of the second half from the same
state with fresh draws (:func:`replay`), and the forecast's distance from the replays' mean.
Then each run's worst figures against the issue's goals, and the forecast's wall time.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from mesa.tournament.chains import chains_of, critical_priority
from mesa.tournament.durations import SIGMA, drawn_s, moves_left, running_clock, spread
from mesa.tournament.forecast import LiveMatch, RoomRounds, Rounds, Simulation, forecast
from mesa.tournament.matches import Match
from mesa.tournament.pace import ClockState
from mesa.tournament.players import PlayerRegistry
from mesa.tournament.scheduler import Priority, calendar_priority, plan_evening
from mesa.tournament.tournament import Tournament

T0 = datetime(2026, 12, 4, 20, 0)
DAY = date(2026, 12, 4)
DOMINO_ROUND_MIN = 35
DOMINO_BREAK_MIN = 5
# The issue's goal for the forecast at half-time: within 10 minutes of the final's start.
GOAL_MIN = 10.0


@dataclass
class _Spread:
    sigma: float = SIGMA


# The spread the evenings are drawn with (and the forecast told): --sigma.
SPREAD = _Spread()


@dataclass(frozen=True)
class Scenario:
    name: str
    players: int          # backgammon players of the evening, both categories
    tables: int
    novatos: int          # of them in the novatos tournament
    domino_shared: int = 0  # open players who also play every round of the domino room
    domino_rounds: int = 0


def _scenarios() -> tuple[Scenario, ...]:
    """The issue's grid: 31, 39 and 60 players (about 30 % novatos) on 6, 10 and 14 tables;
    and 39 players on 10 tables beside a domino room (6 open players in its 4 rounds)."""
    grid = [Scenario(f"{n} players, {k} tables", n, k, round(n * 0.3))
            for n in (31, 39, 60) for k in (6, 10, 14)]
    return (*grid, Scenario("39 players, 10 tables, domino", 39, 10, 12, domino_shared=6,
                            domino_rounds=4))


SCENARIOS = _scenarios()


def _rng(*parts: object) -> random.Random:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def build(sc: Scenario, seed: int) -> list[Tournament]:
    """The evening at its draw: both tournaments registered and their groups drawn at T0."""
    reg = PlayerRegistry()
    rng = _rng("ranking", seed)
    events = []
    for tid, n, cat in (("2026-12", sc.players - sc.novatos, "open"),
                        ("2026-12-novatos", sc.novatos, "novatos")):
        t = Tournament(tid, tid, DAY, category=cat)  # type: ignore[arg-type]
        ids = [reg.add_new(f"{cat} {i:02d}", category=cat).id  # type: ignore[arg-type]
               for i in range(n)]
        for pid in ids:
            t.register(reg, pid, now=T0)
        t.start_groups(ranking={p: rng.randint(0, 60) * 4 for p in ids}, seed=seed, now=T0)
        events.append(t)
    return events


def drawn(seed: int | str) -> object:
    def duration(t: Tournament, m: Match, now: datetime) -> float:
        total = drawn_s(m.id, m.length, seed=f"{seed}|{t.id}", clock=running_clock(m),
                        sigma=SPREAD.sigma)
        if m.status == "playing" and m.started_at is not None:
            return max(0.0, total - (now - m.started_at).total_seconds())
        return total
    return duration


def outcome(seed: int | str) -> object:
    def result(t: Tournament, m: Match) -> tuple[int, int]:
        rng = _rng("result", seed, t.id, m.id)
        lo = rng.randint(0, m.length - 1)
        return (m.length, lo) if rng.random() < 0.5 else (lo, m.length)
    return result


def domino_room(sc: Scenario, seed: int, events: Sequence[Tournament]) -> Rounds | None:
    """The domino room: the shared open players in every round, each round's length drawn
    (35 minutes, half the backgammon spread)."""
    if not sc.domino_rounds:
        return None
    pool = sorted(events[0].entrants)
    shared = frozenset(_rng("domino", seed).sample(pool, sc.domino_shared))
    rounds = tuple(60 * DOMINO_ROUND_MIN * spread(f"{seed}|domino", str(r), SPREAD.sigma / 2)
                   for r in range(sc.domino_rounds))
    return Rounds(RoomRounds(shared, sc.domino_rounds, T0, round_s=60 * DOMINO_ROUND_MIN,
                             break_s=60 * DOMINO_BREAK_MIN, durations_s=rounds))


def tables(sc: Scenario) -> list[str]:
    return [str(i + 1) for i in range(sc.tables)]


@dataclass
class Evening:
    sim: Simulation
    events: list[Tournament]
    room: Rounds | None


def play(sc: Scenario, seed: int, priority: Priority,
         until: datetime | None = None) -> Evening:
    events = build(sc, seed)
    room = domino_room(sc, seed, events)
    sim = Simulation(events, tables(sc), T0, duration=drawn(seed),  # type: ignore[arg-type]
                     outcome=outcome(seed), priority=priority,  # type: ignore[arg-type]
                     elsewhere=room)
    sim.run(until)
    return Evening(sim, events, room)


def live_reports(ev: Evening, seed: int) -> dict[str, LiveMatch]:
    """What each table reports at ``ev.sim.now``: the leader's points grow evenly over the
    drawn duration, the other player's are a seeded share of them; a running clock has spent
    the elapsed time but the delays, half each."""
    now = ev.sim.now
    out: dict[str, LiveMatch] = {}
    duration = drawn(seed)
    for t in ev.events:
        for m in t.matches.values():
            if m.status != "playing" or m.started_at is None or m.table is None:
                continue
            elapsed = (now - m.started_at).total_seconds()
            total = elapsed + duration(t, m, now)  # type: ignore[operator]
            share = elapsed / total if total else 1.0
            leader = min(m.length - 1, int(m.length * share))
            rng = _rng("score", seed, t.id, m.id)
            other = min(leader, int(leader * rng.random()))
            score = (leader, other) if rng.random() < 0.5 else (other, leader)
            clock = None
            if running_clock(m) is not None:
                moves = moves_left(m.length) * share
                used = max(0.0, elapsed - m.clock.delay_s * moves) / 2
                left = max(0.0, m.clock.reserve_s - used)
                clock = ClockState(m.clock, left, left)
            out[m.table] = LiveMatch(*score, clock=clock)
    return out


@dataclass
class Figures:
    length_min: float
    bound_min: float
    barrier_min: float
    idle_min: float
    final_start: dict[str, datetime]
    err_draw: dict[str, float]
    err_half: dict[str, float]
    forecast_ms: list[float]
    # The replays from the half-time state: each final's start, mean and spread (minutes).
    replay_mean: dict[str, datetime] = field(default_factory=dict)
    replay_std: dict[str, float] = field(default_factory=dict)
    replay_p90: dict[str, float] = field(default_factory=dict)
    # The share of replays whose final starts within GOAL_MIN of the replays' mean: how often
    # the best forecast that state allows meets the issue's goal.
    replay_within: dict[str, float] = field(default_factory=dict)
    bias_half: dict[str, float] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        return self.length_min / self.bound_min

    @property
    def barrier_ratio(self) -> float:
        return self.length_min / self.barrier_min


def _first_ko(m: Match) -> bool:
    return m.phase == "knockout" and bool(m.sources) and any(
        x.kind == "seed" for x in m.sources or ())


def bounds(sc: Scenario, ev: Evening) -> tuple[float, float]:
    """The evening's lower bounds in seconds: the issue's ``max(longest chain, total ÷ tables)``
    and the barrier bound, which also knows that an event's knockout is drawn only once every
    group match of it is decided (flow.py): for each event, its group stage's own bound (its
    longest group chain, its group time ÷ tables, a domino player's rounds and group matches)
    plus the larger of the knockout's longest chain after it, its knockout and Último Chance
    time ÷ tables and, with more first knockout matches than tables, the shortest of them and
    then their shortest chain; the groups of every event ÷ tables plus the shortest such
    tail; and :func:`_tail_bound_s` over every match."""
    sim = ev.sim
    total_s = chain_s = 0.0
    barrier_s = 0.0
    all_groups_s = 0.0
    tails: list[float] = []
    tails_after: list[tuple[float, float]] = []
    for t in ev.events:
        seconds = {m.id: (sim.ends[(t.id, m.id)] - sim.starts[(t.id, m.id)]).total_seconds()
                   for m in t.matches.values()}
        total_s += sum(seconds.values())
        c = chains_of(t, lambda m, s=seconds: s[m.id],  # type: ignore[misc]
                      include_done=True)
        chain_s = max(chain_s, c.longest_s)
        tails_after += [(seconds[m], c.chain_s[m] - seconds[m]) for m in seconds]
        groups = [m for m in t.matches.values() if m.phase == "group"]
        # Every group match precedes the draw: its chain is its group's own part plus the tail.
        tail = max((c.chain_s[m.id] for m in t.matches.values() if _first_ko(m)), default=0.0)
        group_chain = max((c.chain_s[m.id] for m in groups), default=tail) - tail
        group_s = sum(seconds[m.id] for m in groups)
        after_s = sum(seconds.values()) - group_s
        stage = max(group_chain, group_s / sc.tables)
        if ev.room is not None and t is ev.events[0]:
            # A shared player plays the domino rounds and their group matches one after the
            # other, and the knockout follows the last group.
            rounds = sum(ev.room.plan.durations_s or ())
            for p in ev.room.plan.players:
                mine = sum(seconds[m.id] for m in groups if p in m.players)
                chain_s = max(chain_s, rounds + mine + tail)
                stage = max(stage, rounds + mine)
        after = max(tail, after_s / sc.tables)
        firsts = [m.id for m in t.matches.values() if _first_ko(m)]
        if len(firsts) > sc.tables:
            # More first knockout matches than tables: some start a whole (shortest) match
            # after the draw, and the shortest chain of them still follows.
            after = max(after, min(seconds[f] for f in firsts)
                        + min(c.chain_s[f] for f in firsts))
        barrier_s = max(barrier_s, stage + after)
        all_groups_s += group_s
        tails.append(after)
    issue = max(chain_s, total_s / sc.tables)
    barrier_s = max(issue, barrier_s, all_groups_s / sc.tables + min(tails, default=0.0),
                    _tail_bound_s(tails_after, sc.tables))
    return issue, barrier_s


def _tail_bound_s(jobs: Sequence[tuple[float, float]], n_tables: int) -> float:
    """``max over τ of τ + (time of the matches followed by a chain of at least τ) ÷ tables``
    over (duration, chain after it) pairs: each of those matches ends by ``end − τ``, so their
    time fits before it on the tables."""
    best = 0.0
    work = 0.0
    for d, q in sorted(jobs, key=lambda dq: -dq[1]):
        work += d
        best = max(best, q + work / n_tables)
    return best


def replay(sc: Scenario, seed: int, priority: Priority, mid: Evening,
           k: int) -> dict[str, datetime]:
    """The rest of the evening from ``mid``'s state with fresh draws: the matches under way
    keep their own remaining time and result, every match still to start is drawn anew (its
    duration and its result) under replay ``k``. Each final's start."""
    events = [Tournament.from_dict(t.to_dict()) for t in mid.events]
    under_way = {(t.id, m.id) for t in mid.events for m in t.matches.values()
                 if m.status == "playing"}
    same, fresh = drawn(seed), drawn(f"{seed}|replay{k}")  # type: ignore[arg-type]
    same_result, fresh_result = outcome(seed), outcome(f"{seed}|replay{k}")  # type: ignore[arg-type]

    def duration(t: Tournament, m: Match, now: datetime) -> float:
        f = same if (t.id, m.id) in under_way else fresh
        return f(t, m, now)  # type: ignore[operator]

    def result(t: Tournament, m: Match) -> tuple[int, int]:
        f = same_result if (t.id, m.id) in under_way else fresh_result
        return f(t, m)  # type: ignore[operator, no-any-return]

    room = copy.deepcopy(mid.room)
    sim = Simulation(events, tables(sc), mid.sim.now, duration=duration, outcome=result,
                     priority=priority, elsewhere=room)
    sim.run()
    return {t.id: sim.starts[(t.id, t.knockout.final_id)] for t in events
            if t.knockout is not None and t.knockout.final_id is not None
            and (t.id, t.knockout.final_id) in sim.starts}


def measure(sc: Scenario, seed: int, priority: Priority, replays: int = 0) -> Figures:
    ev = play(sc, seed, priority)
    sim = ev.sim
    end = max(sim.ends.values())
    length = (end - T0).total_seconds() / 60
    total_s = sum((sim.ends[k] - sim.starts[k]).total_seconds() for k in sim.ends)
    issue_s, barrier_s = bounds(sc, ev)
    idle = sc.tables * length - total_s / 60
    finals = {t.id: sim.starts[(t.id, t.knockout.final_id)] for t in ev.events
              if t.knockout is not None and t.knockout.final_id is not None}
    timings: list[float] = []
    predicted: dict[str, datetime] = {}

    def errors(events: Sequence[Tournament], now: datetime, live: dict[str, LiveMatch],
               rooms: list[RoomRounds]) -> dict[str, float]:
        t0 = time.perf_counter()
        f = forecast(events, tables(sc), now, live=live, priority=priority, rooms=rooms,
                     sigma=SPREAD.sigma)
        timings.append((time.perf_counter() - t0) * 1000)
        for t in events:
            done = {mid for mid, m in t.matches.items() if m.result is not None}
            assert not done & set(f.matches.get(t.id, {})), "the forecast named a done match"
        out = {}
        predicted.clear()
        for tid, actual in finals.items():
            e = f.events.get(tid)
            if e is not None and e.final_start is not None:
                out[tid] = (e.final_start - actual).total_seconds() / 60
                predicted[tid] = e.final_start
            else:
                out[tid] = math.nan
        return out

    at_draw = build(sc, seed)
    room0 = domino_room(sc, seed, at_draw)
    err_draw = errors(at_draw, T0, {}, [room0.now_plan(T0)] if room0 else [])
    half = T0 + (end - T0) / 2
    mid = play(sc, seed, priority, until=half)
    err_half = errors(mid.events, mid.sim.now, live_reports(mid, seed),
                      [mid.room.now_plan(mid.sim.now)] if mid.room else [])
    figs = Figures(length, issue_s / 60, barrier_s / 60, idle, finals, err_draw, err_half,
                   timings)
    if replays:
        starts = [replay(sc, seed, priority, mid, k) for k in range(replays)]
        for tid in finals:
            xs = [(s[tid] - T0).total_seconds() / 60 for s in starts if tid in s]
            if not xs:
                continue
            mean = statistics.fmean(xs)
            figs.replay_mean[tid] = T0 + timedelta(minutes=mean)
            figs.replay_std[tid] = statistics.pstdev(xs)
            figs.replay_p90[tid] = _p90([abs(x - mean) for x in xs])
            figs.replay_within[tid] = sum(abs(x - mean) <= GOAL_MIN for x in xs) / len(xs)
            if tid in predicted:
                figs.bias_half[tid] = (predicted[tid] - T0).total_seconds() / 60 - mean
    return figs


def _p90(values: Sequence[float]) -> float:
    """The 90th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)] if ordered else math.nan


def hm(minutes: float) -> str:
    whole = round(minutes)
    return f"{whole // 60}:{whole % 60:02d}"


def errs(values: Sequence[float]) -> str:
    ok = [v for v in values if not math.isnan(v)]
    if not ok:
        return "—"
    return f"{statistics.mean(abs(v) for v in ok):5.1f} / {max(ok, key=abs):+6.1f}"


POLICIES: tuple[tuple[str, Priority], ...] = (
    ("calendar", calendar_priority), ("critical", critical_priority))


def run(scenarios: Sequence[Scenario], seeds: Sequence[int], replays: int = 0,
        policies: Sequence[tuple[str, Priority]] = POLICIES,
        ) -> dict[str, dict[str, list[Figures]]]:
    """Every scenario under every policy for every seed: the figures (``replays`` replays of
    each evening's second half for the forecast's floor)."""
    return {sc.name: {name: [measure(sc, s, p, replays) for s in seeds] for name, p in policies}
            for sc in scenarios}


def spread_of(figs: Sequence[Figures], tid: str) -> str:
    std = [f.replay_std[tid] for f in figs if tid in f.replay_std]
    p90 = [f.replay_p90[tid] for f in figs if tid in f.replay_p90]
    if not std:
        return "—"
    return f"{statistics.mean(std):4.1f} / {max(p90):4.1f}"


def _mean(xs: Sequence[float]) -> float:
    return statistics.fmean(xs) if xs else math.nan


def _mean_abs(xs: Sequence[float]) -> float:
    return _mean([abs(x) for x in xs])


def report(scenarios: Sequence[Scenario], seeds: Sequence[int], replays: int = 20,
           policies: Sequence[tuple[str, Priority]] = POLICIES) -> int:
    t_start = time.perf_counter()
    results = run(scenarios, seeds, replays, policies)
    print(f"seeds {seeds[0]}…{seeds[-1]} ({len(seeds)} evenings per scenario), spread σ = "
          f"{SPREAD.sigma}, {replays} replays of each second half; lengths h:mm (mean over the "
          "seeds); ratio = mean / worst; errors in minutes, forecast − actual start of the "
          "final: mean |error| / worst; floor = the replays' spread of that start: mean std / "
          "worst p90 of |replay − their mean|; vs mean = forecast − the replays' mean")
    print(f"{'scenario':31} {'policy':8} {'length':>6} {'bound':>5} {'ratio':>9} "
          f"{'barrier':>7} {'ratio':>9} {'idle':>5}  {'final':7} {'err at draw':>14} "
          f"{'err at half':>14} {'floor':>11} {'vs mean':>14}")
    worst = {"ratio": 0.0, "barrier": 0.0, "half": 0.0, "p90": 0.0, "bias": 0.0}
    signed: list[float] = []
    biases: list[float] = []
    stds: list[float] = []
    within: list[float] = []
    oracle: list[float] = []   # |the replays' mean − the actual start|: the best forecast's error
    longer = 0
    times: list[float] = []
    for sc in scenarios:
        by = results[sc.name]
        for name, _ in policies:
            figs = by[name]
            times += [x for f in figs for x in f.forecast_ms]
            finals = sorted({tid for f in figs for tid in f.final_start})
            for i, tid in enumerate(finals):
                head = (f"{sc.name:31} {name:8} "
                        f"{hm(statistics.mean(f.length_min for f in figs)):>6} "
                        f"{hm(statistics.mean(f.bound_min for f in figs)):>5} "
                        f"{statistics.mean(f.ratio for f in figs):4.2f}/"
                        f"{max(f.ratio for f in figs):4.2f} "
                        f"{hm(statistics.mean(f.barrier_min for f in figs)):>7} "
                        f"{statistics.mean(f.barrier_ratio for f in figs):4.2f}/"
                        f"{max(f.barrier_ratio for f in figs):4.2f} "
                        f"{statistics.mean(f.idle_min for f in figs):5.0f}") if i == 0 else (
                    " " * 86)
                label = "novatos" if tid.endswith("novatos") else "open"
                bias = [f.bias_half[tid] for f in figs if tid in f.bias_half]
                print(f"{head}  {label:7} {errs([f.err_draw[tid] for f in figs]):>14} "
                      f"{errs([f.err_half[tid] for f in figs]):>14} "
                      f"{spread_of(figs, tid):>11} {errs(bias):>14}")
        if "critical" not in by:
            continue
        crit = by["critical"]
        worst["ratio"] = max(worst["ratio"], *(f.ratio for f in crit))
        worst["barrier"] = max(worst["barrier"], *(f.barrier_ratio for f in crit))
        worst["half"] = max(worst["half"], *(abs(v) for f in crit for v in f.err_half.values()))
        worst["p90"] = max(worst["p90"], *(v for f in crit for v in f.replay_p90.values()),
                           0.0)
        worst["bias"] = max(worst["bias"], *(abs(v) for f in crit for v in f.bias_half.values()),
                            0.0)
        signed += [v for f in crit for v in f.err_half.values() if not math.isnan(v)]
        biases += [v for f in crit for v in f.bias_half.values()]
        stds += [v for f in crit for v in f.replay_std.values()]
        within += [v for f in crit for v in f.replay_within.values()]
        oracle += [abs((f.replay_mean[tid] - f.final_start[tid]).total_seconds()) / 60
                   for f in crit for tid in f.replay_mean]
        if "calendar" in by:
            longer += sum(c.length_min > k.length_min + 1e-9
                          for c, k in zip(crit, by["calendar"], strict=True))
    n = len(scenarios) * len(seeds)
    print()
    print(f"critical: worst ratio {worst['ratio']:.3f} (goal ≤ 1.10), against the barrier bound "
          f"{worst['barrier']:.3f}; longer than calendar in {longer} of {n} evenings (goal 0)")
    floor = (f"the floor: replays' std {_mean(stds):.1f} on average, worst p90 "
             f"{worst['p90']:.1f} min; forecast − replays' mean: mean |·| "
             f"{_mean_abs(biases):.1f}, mean {_mean(biases):+.1f}, worst {worst['bias']:.1f} min; "
             f"the replays' own mean within {GOAL_MIN:.0f} min of a replay: "
             f"{100 * _mean(within):.0f} % on average, {100 * min(within):.0f} % on the worst "
             f"evening, and of the actual start on {sum(e <= GOAL_MIN for e in oracle)} of "
             f"{len(oracle)} finals (worst {max(oracle):.1f} min)"
             ) if stds else "the floor not measured (--replays 0)"
    print(f"forecast at half-time: worst error {worst['half']:.1f} min (goal ≤ 10), mean "
          f"|error| {_mean_abs(signed):.1f}, mean error {_mean(signed):+.1f}; {floor}")
    print(f"forecast wall time: median {statistics.median(times):.0f} ms, "
          f"max {max(times):.0f} ms over {len(times)} forecasts; bench "
          f"{time.perf_counter() - t_start:.0f} s")
    return 0


def _event_first(minutes: float) -> Priority:
    """The critical order with the open event's chains counted ``minutes`` longer (negative:
    the novatos' first)."""
    def priority(event: Tournament, m: Match) -> tuple[object, ...]:
        key = critical_priority(event, m)
        return (key[0] - (60 * minutes if event.category == "open" else 0), *key[1:])
    return priority


def _phase_first(order: dict[str, int]) -> Priority:
    """Every ready match of a phase before the next phase's (``order``), critical within."""
    def priority(event: Tournament, m: Match) -> tuple[object, ...]:
        return (order[m.phase], *critical_priority(event, m))
    return priority


# What the clairvoyant scheduler chooses from at each decision.
CANDIDATES: tuple[tuple[str, Priority], ...] = (
    ("critical", critical_priority), ("calendar", calendar_priority),
    *((f"open{m:+d}", _event_first(m)) for m in (-60, -30, 30, 60, 90)),
    ("knockout first", _phase_first({"knockout": 0, "consolation": 1, "group": 2})),
    ("groups first", _phase_first({"group": 0, "knockout": 1, "consolation": 1})))


class Clairvoyant:
    """A scheduler no desk can be: it knows every match's drawn duration and result. At each
    decision where the candidates' plans differ it plays the rest of the evening under them
    (the very durations the evening will have) and follows the one that ends first: always the
    order it follows now, calendar order and critical, and one candidate for each other plan.
    Since the order it follows is always among them and a list schedule continues itself, the
    end it expects never grows; it started no later than calendar order's and critical's, so
    it never ends after either: what it cannot reach, no rule choosing among these orders
    reaches, whatever it knows."""

    def __init__(self, candidates: Sequence[tuple[str, Priority]] = CANDIDATES) -> None:
        self.candidates = tuple(candidates)
        self.name = self.candidates[0][0]
        self.chosen: Priority = self.candidates[0][1]
        self.ms: list[float] = []

    def __call__(self, event: Tournament, m: Match) -> tuple[object, ...]:
        return self.chosen(event, m)

    def choose(self, sim: Simulation) -> None:
        busy = () if sim.elsewhere is None else sim.elsewhere.busy(sim.now)
        plans: dict[str, object] = {}
        for name, p in self.candidates:
            plan = plan_evening(list(sim.events.values()), sim.tables, sim.now,
                                busy_elsewhere=busy, priority=p)
            plans[name] = tuple(sorted((e, a.match_id, a.table) for e, v in plan.items()
                                       for a in v))
        if len(set(plans.values())) == 1:
            return  # the same plan whichever: the order followed goes on
        t0 = time.perf_counter()
        chosen = [self.name, "calendar", "critical"]
        covered = {plans[n] for n in chosen}
        for name, _ in self.candidates:
            if plans[name] not in covered:
                covered.add(plans[name])
                chosen.append(name)
        policy = dict(self.candidates)
        ends = []
        for i, name in enumerate(dict.fromkeys(chosen)):
            rest = Simulation([Tournament.from_dict(t.to_dict()) for t in sim.events.values()],
                              sim.tables, sim.now, duration=sim.duration, outcome=sim.outcome,
                              priority=policy[name], elsewhere=copy.deepcopy(sim.elsewhere))
            rest.run()
            ends.append((max(rest.ends.values(), default=sim.now), i, name))
        self.name = min(ends)[2]
        self.chosen = policy[self.name]
        self.ms.append((time.perf_counter() - t0) * 1000)


class _ClairvoyantSimulation(Simulation):
    def _assign(self) -> None:
        assert isinstance(self.priority, Clairvoyant)
        self.priority.choose(self)
        super()._assign()


def play_clairvoyant(sc: Scenario, seed: int) -> tuple[Evening, Clairvoyant]:
    events = build(sc, seed)
    room = domino_room(sc, seed, events)
    chooser = Clairvoyant()
    sim = _ClairvoyantSimulation(events, tables(sc), T0, duration=drawn(seed),  # type: ignore[arg-type]
                                 outcome=outcome(seed), priority=chooser,  # type: ignore[arg-type]
                                 elsewhere=room)
    sim.run()
    return Evening(sim, events, room), chooser


def clairvoyant_report(scenarios: Sequence[Scenario], seeds: Sequence[int]) -> int:
    """Calendar, critical and the clairvoyant scheduler on the same evenings: the ratio to
    the issue's bound (mean / worst) and how many of its evenings are over the goal."""
    t_start = time.perf_counter()
    print(f"seeds {seeds[0]}…{seeds[-1]}; ratio to the issue's bound, mean / worst (evenings "
          f"over 1.10); the clairvoyant scheduler knows every duration and chooses among "
          f"{len(CANDIDATES)} orders at each decision")
    print(f"{'scenario':31} {'calendar':>15} {'critical':>15} {'clairvoyant':>15}")
    over = worst = 0.0
    longer = 0
    ms: list[float] = []
    for sc in scenarios:
        cells = []
        lengths: dict[str, list[float]] = {}
        for policy in ("calendar", "critical", "clairvoyant"):
            ratios = []
            lengths[policy] = []
            for seed in seeds:
                if policy == "clairvoyant":
                    ev, chooser = play_clairvoyant(sc, seed)
                    ms += chooser.ms
                else:
                    ev = play(sc, seed, dict(CANDIDATES)[policy])
                length = (max(ev.sim.ends.values()) - T0).total_seconds()
                lengths[policy].append(length)
                ratios.append(length / bounds(sc, ev)[0])
            n_over = sum(r > 1.10 for r in ratios)
            cells.append(f"{statistics.mean(ratios):.3f}/{max(ratios):.3f} ({n_over})")
            if policy == "clairvoyant":
                over += n_over
                worst = max(worst, *ratios)
        print(f"{sc.name:31} " + " ".join(f"{c:>15}" for c in cells), flush=True)
        longer += sum(c > k + 1e-6 for c, k in zip(lengths["clairvoyant"], lengths["calendar"],
                                                   strict=True))
    print(f"clairvoyant: worst ratio {worst:.3f}, {over:.0f} of {len(scenarios) * len(seeds)} "
          f"evenings over 1.10, {longer} longer than calendar; "
          f"{statistics.median(ms):.0f} ms median per simulated decision; "
          f"bench {time.perf_counter() - t_start:.0f} s")
    return 0


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--seeds", type=int, default=5, help="evenings per scenario")
    p.add_argument("--first-seed", type=int, default=1)
    p.add_argument("--replays", type=int, default=20,
                   help="replays of each second half for the forecast's floor (0: none)")
    p.add_argument("--sigma", type=float, default=SIGMA,
                   help=f"the spread of the match durations (default {SIGMA})")
    p.add_argument("--scenario", default="",
                   help="only the scenarios whose name contains this")
    p.add_argument("--clairvoyant", action="store_true",
                   help="calendar, critical and a scheduler that knows every duration: "
                        "the ratios only (slow: seconds per evening)")
    a = p.parse_args(argv)
    SPREAD.sigma = a.sigma
    seeds = list(range(a.first_seed, a.first_seed + a.seeds))
    scenarios = [sc for sc in SCENARIOS if a.scenario in sc.name]
    if a.clairvoyant:
        return clairvoyant_report(scenarios, seeds)
    return report(scenarios, seeds, a.replays)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
