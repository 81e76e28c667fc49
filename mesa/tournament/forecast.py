"""The evening's forecast: when every match left is expected to start and end, and when each
event's final starts and the event finishes.

:func:`forecast` plays the rest of the evening on copies of the events (the inputs never
change) with the scheduler itself (:func:`~mesa.tournament.scheduler.plan_evening`, the given
priority) and the expected durations of :mod:`mesa.tournament.durations`: a match that starts
takes the model's mean (the norm; under a running clock a little less, its long tail cut at
the bound); a match under way takes what its pace leaves (:func:`~mesa.tournament.pace.
pace_of`, from the score and clock its table reports, ``live``); an assigned match starts
now. A match that follows several others (a knockout round, the draw after the groups)
starts no sooner than the expected *slowest* of them (:mod:`mesa.tournament.slowest`), nor
than the simulation could seat it when it waited for a table: the last of parallel matches
ends later than their expected duration, so the final below starts about 22:39 rather than
20:00 + 90 + 50 once the spread of the group's and the play-in's matches is counted. Results in the copies go to the better
seed (the draws that follow need a winner; who wins changes nobody's time but a shared
player's). Último Chance is drawn when its first knockout round is over, as the desk does,
and ties wait for no dice.

The same :class:`Simulation` runs ``bench/schedule.py``'s evenings with drawn durations.
It is deterministic: the same state gives the same forecast.

>>> from datetime import date, datetime, timedelta
>>> from mesa.tournament.players import PlayerRegistry
>>> from mesa.tournament.tournament import Tournament
>>> now, reg = datetime(2026, 12, 4, 20, 0), PlayerRegistry()
>>> t = Tournament("2026-12", "Diciembre", date(2026, 12, 4))
>>> for i in range(4):
...     _ = t.register(reg, reg.add_new(f"P{i}").id, now=now)
>>> _ = t.start_groups(ranking={}, seed=1, now=now, n_groups=1)
>>> f = forecast([t], ["1", "2"], now)
>>> e = f.events["2026-12"]
>>> hm = lambda d: d.strftime("%H:%M")
>>> e.final_id, hm(e.final_start), hm(e.final_end)   # groups 90, play-in 50, final 67 …
('KO-F-1', '22:39', '23:46')
>>> hm(e.finish)         # … and Último Chance (its final to 3) once the final decided its draw
'00:16'
>>> hm(f.match("2026-12", "G1-1").end), len(t.matches)     # the input is unchanged
('20:30', 6)
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from mesa.tournament.chains import critical_priority
from mesa.tournament.durations import SIGMA, match_moments_s, running_clock
from mesa.tournament.errors import TournamentError
from mesa.tournament.matches import Match
from mesa.tournament.pace import ClockState, pace_of
from mesa.tournament.scheduler import Priority, plan_evening
from mesa.tournament.slowest import Moments, cv_of, expected_starts
from mesa.tournament.tournament import Tournament

# Seconds from now a match takes: (event, match, now) -> seconds (a match under way: the rest).
DurationOf = Callable[[Tournament, Match, datetime], float]
# The score a simulated match ends with: (event, match) -> (score of a, score of b).
OutcomeOf = Callable[[Tournament, Match], tuple[int, int]]


@dataclass(frozen=True)
class LiveMatch:
    """What a table reports of its match under way: the score, and its clock when it runs."""

    score_a: int = 0
    score_b: int = 0
    clock: ClockState | None = None


@dataclass(frozen=True)
class MatchForecast:
    event: str
    match_id: str
    start: datetime
    end: datetime
    table: str | None


@dataclass(frozen=True)
class EventForecast:
    """An event's final (its expected start and end) and its expected finish (the end of its
    last match, Último Chance included); None where the forecast cannot tell."""

    event: str
    final_id: str | None
    final_start: datetime | None
    final_end: datetime | None
    finish: datetime | None


@dataclass(frozen=True)
class Forecast:
    made_at: datetime
    matches: dict[str, dict[str, MatchForecast]]
    events: dict[str, EventForecast]

    def match(self, event: str, match_id: str) -> MatchForecast | None:
        return self.matches.get(event, {}).get(match_id)

    @property
    def evening_end(self) -> datetime | None:
        ends = [e.finish for e in self.events.values() if e.finish is not None]
        return max(ends, default=None)


class Elsewhere(Protocol):
    """Another game's room beside the simulated tables (the domino room of the bench): who it
    holds busy, when that changes, and who the tables hold (a room may wait for them)."""

    def busy(self, now: datetime) -> Collection[str]: ...

    def next_change(self, now: datetime) -> datetime | None: ...

    def seated(self, now: datetime, players: Collection[str]) -> None: ...


@dataclass(frozen=True)
class BusyWindow:
    """Players another game expects to hold from ``start`` to ``end`` (a domino round)."""

    players: frozenset[str]
    start: datetime
    end: datetime


@dataclass
class BusyWindows:
    """The forecast's view of another room: the windows its desk expects (:class:`Elsewhere`)."""

    windows: Sequence[BusyWindow]

    def busy(self, now: datetime) -> Collection[str]:
        return {p for w in self.windows if w.start <= now < w.end for p in w.players}

    def next_change(self, now: datetime) -> datetime | None:
        return min((x for w in self.windows for x in (w.start, w.end) if x > now), default=None)

    def seated(self, now: datetime, players: Collection[str]) -> None:
        return None


@dataclass(frozen=True)
class RoomRounds:
    """Another game's rounds that hold the same players each time (a domino pairs event):
    ``left`` rounds, the next due at ``due`` (or under way since ``started``), each about
    ``round_s`` long (or ``durations_s``, one a round), ``break_s`` between them. A round
    starts once none of its players sits at a table here; while it is due its players are
    held (they are not called to a new match)."""

    players: frozenset[str]
    left: int
    due: datetime
    started: datetime | None = None
    round_s: float = 35 * 60
    break_s: float = 5 * 60
    durations_s: tuple[float, ...] | None = None


class Rounds:
    """:class:`RoomRounds` played out beside the tables (an :class:`Elsewhere`); ``log`` the
    rounds played, (start, end)."""

    def __init__(self, plan: RoomRounds) -> None:
        self.plan = plan
        self.round = 0
        self.due = plan.due
        self.started = plan.started
        self.log: list[tuple[datetime, datetime]] = []

    def _length(self) -> timedelta:
        d = self.plan.durations_s
        return timedelta(seconds=d[self.round] if d is not None else self.plan.round_s)

    def _end(self) -> datetime | None:
        return None if self.started is None else self.started + self._length()

    def _advance(self, now: datetime) -> None:
        end = self._end()
        while end is not None and end <= now:
            assert self.started is not None
            self.log.append((self.started, end))
            self.round += 1
            self.started = None
            self.due = end + timedelta(seconds=self.plan.break_s)
            end = None

    def busy(self, now: datetime) -> Collection[str]:
        self._advance(now)
        if self.round >= self.plan.left or now < self.due:
            return ()
        return self.plan.players

    def next_change(self, now: datetime) -> datetime | None:
        self._advance(now)
        if self.round >= self.plan.left:
            return None
        if now < self.due:
            return self.due
        return self._end()  # None while the round waits for its players (a table's end wakes)

    def seated(self, now: datetime, players: Collection[str]) -> None:
        self._advance(now)
        if (self.round < self.plan.left and self.started is None and now >= self.due
                and not self.plan.players & set(players)):
            self.started = now

    def now_plan(self, now: datetime) -> RoomRounds:
        """What is left at ``now``, at the expected round length (what a desk can tell the
        forecast)."""
        self._advance(now)
        return RoomRounds(self.plan.players, self.plan.left - self.round, self.due,
                          self.started, self.plan.round_s, self.plan.break_s)


class _Together:
    """Several other rooms as one :class:`Elsewhere`."""

    def __init__(self, rooms: Sequence[Elsewhere]) -> None:
        self.rooms = list(rooms)

    def busy(self, now: datetime) -> Collection[str]:
        return {p for r in self.rooms for p in r.busy(now)}

    def next_change(self, now: datetime) -> datetime | None:
        return min((t for r in self.rooms if (t := r.next_change(now)) is not None),
                   default=None)

    def seated(self, now: datetime, players: Collection[str]) -> None:
        for r in self.rooms:
            r.seated(now, players)


def better_seed_wins(t: Tournament, m: Match) -> tuple[int, int]:
    """The forecast's results: the better seed wins, the loser on half the length."""
    ranks = t.seeding_rank()
    assert m.a is not None and m.b is not None
    a_wins = ranks.get(m.a, 10**6) <= ranks.get(m.b, 10**6)
    return (m.length, m.length // 2) if a_wins else (m.length // 2, m.length)


@dataclass(order=True)
class _End:
    at: datetime
    seq: int
    event: str = field(compare=False)
    match_id: str = field(compare=False)


class Simulation:
    """The rest of an evening played on ``events`` (they change: pass copies), ``tables``
    shared by all, from ``now``: each free table given by ``plan_evening`` with ``priority``,
    each match lasting ``duration``, ending with ``outcome``.

    ``starts`` and ``ends`` record every match (by event and match id) that started or ended
    after ``now``; ``table_busy_s`` the table time used from ``now`` on.
    """

    def __init__(self, events: Sequence[Tournament], tables: Sequence[str], now: datetime, *,
                 duration: DurationOf, outcome: OutcomeOf = better_seed_wins,
                 priority: Priority = critical_priority,
                 elsewhere: Elsewhere | None = None) -> None:
        self.events = {t.id: t for t in events}
        self.tables = list(tables)
        self.now = now
        self.duration = duration
        self.outcome = outcome
        self.priority = priority
        self.elsewhere = elsewhere
        self.starts: dict[tuple[str, str], datetime] = {}
        self.ends: dict[tuple[str, str], datetime] = {}
        self.table_of: dict[tuple[str, str], str | None] = {}
        self.table_busy_s = 0.0
        self._queue: list[_End] = []
        self._seq = 0
        for t in self.events.values():
            for m in t.matches.values():
                if m.status == "assigned":
                    t.match_started(m.id, now=now, actor="forecast")
                    self._schedule(t, m, started_now=True)
                elif m.status == "playing":
                    self._schedule(t, m, started_now=False)

    def _schedule(self, t: Tournament, m: Match, *, started_now: bool) -> None:
        seconds = max(0.0, self.duration(t, m, self.now))
        end = self.now + timedelta(seconds=seconds)
        key = (t.id, m.id)
        if started_now:
            self.starts[key] = self.now
        self.table_of[key] = m.table
        self.table_busy_s += seconds
        self._seq += 1
        heapq.heappush(self._queue, _End(end, self._seq, t.id, m.id))

    def seated_players(self) -> set[str]:
        return {p for t in self.events.values() for m in t.matches.values()
                if m.status in ("assigned", "playing") for p in m.players}

    def _follow(self) -> None:
        """What the desk does besides giving tables: Último Chance once it is due."""
        for t in self.events.values():
            if (t.knockout is not None and t.consolation is None and t.settings.consolation
                    and t.phase != "closed" and t.first_knockout_round_done()):
                try:
                    t.start_consolation(actor="forecast", now=self.now)
                except TournamentError:
                    continue  # fewer than two to play it: there is none

    def _assign(self) -> None:
        busy = () if self.elsewhere is None else self.elsewhere.busy(self.now)
        plan = plan_evening(list(self.events.values()), self.tables, self.now,
                            busy_elsewhere=busy, priority=self.priority)
        for tid, assignments in plan.items():
            if not assignments:
                continue
            t = self.events[tid]
            for a in t.give_tables(assignments, now=self.now, actor="forecast"):
                t.match_started(a.match_id, now=self.now, actor="forecast")
                self._schedule(t, t.match(a.match_id), started_now=True)
        if self.elsewhere is not None:
            self.elsewhere.seated(self.now, self.seated_players())

    def step(self, until: datetime | None = None) -> bool:
        """Seat what can be seated, then move to the next end (or change elsewhere) and
        record what ends there. False when nothing is left to happen (or the next thing
        would happen after ``until``: the clock stops there)."""
        self._follow()
        self._assign()
        nxt = self._queue[0].at if self._queue else None
        other = None if self.elsewhere is None else self.elsewhere.next_change(self.now)
        if other is not None and (nxt is None or other < nxt):
            nxt = other
        if nxt is None:
            return False
        if until is not None and nxt > until:
            self.now = max(self.now, until)
            return False
        self.now = max(self.now, nxt)
        while self._queue and self._queue[0].at <= self.now:
            end = heapq.heappop(self._queue)
            t = self.events[end.event]
            m = t.match(end.match_id)
            if m.status != "playing":
                continue
            t.record_result(m.id, *self.outcome(t, m), actor="forecast", now=end.at)
            self.ends[(end.event, end.match_id)] = end.at
        return True

    def run(self, until: datetime | None = None) -> None:
        """Step until nothing is left to happen (or until ``until``)."""
        while self.step(until):
            pass


def copy_event(t: Tournament) -> Tournament:
    """A copy to simulate on: the same state, ties broken by the hub's dice (a forecast waits
    for no director)."""
    c = Tournament.from_dict(t.to_dict())
    if c.settings.dice_by != "hub":
        c.settings = c.settings.with_changes(dice_by="hub")
    return c


def expected_durations(live: Mapping[str, LiveMatch], *,
                       minutes_per_point: float | None = None,
                       sigma: float = SIGMA) -> DurationOf:
    """The forecast's durations: the model's mean for a match that starts (the norm; under
    a running clock the mean of the spread cut at its bound, a little less); for a match
    under way, what its pace leaves (``live``, by table)."""

    def duration(t: Tournament, m: Match, now: datetime) -> float:
        mpp = t.settings.minutes_per_point if minutes_per_point is None else minutes_per_point
        if m.status != "playing" or m.started_at is None or m.started_at >= now:
            return match_moments_s(m, mpp, sigma)[0]
        report = live.get(m.table or "")
        clock = None if report is None else report.clock
        if clock is None and running_clock(m) is not None:
            clock = ClockState(m.clock)
        score = (0, 0) if report is None else (report.score_a, report.score_b)
        return pace_of(m.length, *score, (now - m.started_at).total_seconds(),
                       minutes_per_point=mpp, clock=clock).expected_remaining_s

    return duration


def forecast(tournaments: Sequence[Tournament], tables: Sequence[str], now: datetime, *,
             live: Mapping[str, LiveMatch] | None = None,
             minutes_per_point: float | None = None,
             priority: Priority = critical_priority,
             busy: Sequence[BusyWindow] = (),
             rooms: Sequence[RoomRounds] = (), sigma: float = SIGMA) -> Forecast:
    """Every match left its expected start and end; every event its final and finish.

    ``tables`` are the game's tables (those in use are seen from the matches); ``live`` what
    each table reports of its match under way, by table id (a match code repeats across
    events, a table does not); ``minutes_per_point`` overrides each event's own norm;
    ``busy`` the windows another game expects to hold some players (the domino room's
    rounds left, the one under way first) or ``rooms`` the rounds another game has left,
    each waiting for its players; ``sigma`` the spread of the durations (the expected
    slowest of parallel matches grows with it). Only matches not finished yet
    are named.
    """
    copies = [copy_event(t) for t in tournaments]
    sim = Simulation(copies, tables, now,
                     duration=expected_durations(live or {}, minutes_per_point=minutes_per_point,
                                                 sigma=sigma),
                     priority=priority, elsewhere=_elsewhere(busy, rooms))
    sim.run()
    matches: dict[str, dict[str, MatchForecast]] = {}
    events: dict[str, EventForecast] = {}
    pairs = list(zip(tournaments, copies, strict=True))
    waits = _precedence_starts(pairs, sim, now, sigma, minutes_per_point)
    for original, t in pairs:
        done = {mid for mid, m in original.matches.items() if m.result is not None}
        mine: dict[str, MatchForecast] = {}
        for mid, m in t.matches.items():
            end = sim.ends.get((t.id, mid))
            if mid in done or end is None:
                continue
            start = sim.starts.get((t.id, mid)) or m.started_at or now
            later = now + timedelta(seconds=waits.get((t.id, mid), 0.0))
            if (t.id, mid) in sim.starts and later > start:  # the slowest of what it follows
                end, start = end + (later - start), later
            mine[mid] = MatchForecast(t.id, mid, start, end, sim.table_of.get((t.id, mid)))
        matches[t.id] = mine
        final_id = t.knockout.final_id if t.knockout is not None else None
        final = mine.get(final_id or "")
        events[t.id] = EventForecast(
            t.id, final_id, None if final is None else final.start,
            None if final is None else final.end,
            max((f.end for f in mine.values()), default=None))
    return Forecast(now, matches, events)


def _elsewhere(busy: Sequence[BusyWindow], rooms: Sequence[RoomRounds]) -> Elsewhere | None:
    parts: list[Elsewhere] = [Rounds(r) for r in rooms]
    if busy:
        parts.append(BusyWindows(busy))
    return None if not parts else parts[0] if len(parts) == 1 else _Together(parts)


def _first(m: Match) -> bool:
    return bool(m.sources) and any(s.kind == "seed" for s in m.sources or ())


def _precedence_starts(pairs: Sequence[tuple[Tournament, Tournament]], sim: Simulation,
                       now: datetime, sigma: float,
                       minutes_per_point: float | None) -> dict[tuple[str, str], float]:
    """Each match's expected start in seconds from now by what it waits for (the slowest of
    them, :mod:`mesa.tournament.slowest`), over the simulated draw of every event: its
    precedences (calendar order in a group, the draw after the groups, a bracket's feeders,
    Último Chance after the first knockout round), and no sooner than the simulation could
    seat it when it had to wait for a table (its ``release``). The table's previous match is
    not counted as a predecessor: a waiting match takes whichever table frees first (counting
    the one it got in the simulation forecast scarce-table evenings about 15 minutes late).

    A match's spread is the model's (:func:`~mesa.tournament.durations.moments_s`: narrower
    under a running clock, which cuts the long tail off); what a match under way has left
    spreads as much as a whole match's share of it, never more than the whole match."""
    cv = cv_of(sigma)
    preds: dict[str, list[str]] = {}
    duration: dict[str, Moments] = {}
    fixed: dict[str, Moments] = {}
    keys: dict[str, tuple[str, str]] = {}

    def k(tid: str, mid: str) -> str:
        return f"{tid}\x1f{mid}"

    for original, t in pairs:
        done = {mid for mid, m in original.matches.items() if m.result is not None}
        mpp = t.settings.minutes_per_point if minutes_per_point is None else minutes_per_point
        left = {mid: m for mid, m in t.matches.items() if mid not in done}
        groups = [m for m in left.values() if m.phase == "group"]
        first_ko = [m.id for m in left.values() if m.phase == "knockout" and _first(m)]
        mine: dict[str, list[str]] = {mid: [] for mid in left}
        for m in groups:
            mine[m.id] = [o.id for o in groups if o.group == m.group
                          and o.round_no < m.round_no and set(o.players) & set(m.players)]
        for m in left.values():
            for src in m.sources or ():
                if src.kind != "seed" and str(src.ref) in left:
                    mine[m.id].append(str(src.ref))
            if m.phase == "knockout" and _first(m) and original.knockout is None:
                mine[m.id] += [g.id for g in groups]
            if m.phase == "consolation" and _first(m) and original.consolation is None:
                mine[m.id] += first_ko
        for mid, before in mine.items():
            key = (t.id, mid)
            keys[k(*key)] = key
            preds[k(*key)] = [k(t.id, p) for p in before]
            seconds = (sim.ends[key] - sim.starts.get(key, now)).total_seconds() if (
                key in sim.ends) else 0.0
            var = match_moments_s(left[mid], mpp, sigma)[1]
            duration[k(*key)] = (seconds, var)
            om = original.matches.get(mid)
            if om is not None and om.status in ("assigned", "playing") and key in sim.ends:
                rest = (sim.ends[key] - now).total_seconds()
                fixed[k(*key)] = (rest, min((cv * rest) ** 2, var))
    # A match the simulation kept waiting after what it follows had ended (for a table, or a
    # player busy elsewhere) cannot start before it got one there: the slowest-of then
    # carries on from that start (the rounds after a wide knockout round on scarce tables).
    release: dict[str, float] = {}
    for name, key in keys.items():
        start = sim.starts.get(key)
        if start is None or name in fixed:
            continue
        ready = max((sim.ends.get(keys[p], now) for p in preds[name]), default=now)
        if start > ready:
            release[name] = (start - now).total_seconds()
    starts = expected_starts(preds, duration, fixed, release)
    return {keys[name]: mv[0] for name, mv in starts.items()}
