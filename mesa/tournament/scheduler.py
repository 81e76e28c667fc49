"""Table assignment: every ready match whose players are both free gets a free table.

>>> from datetime import datetime, timedelta
>>> from mesa.tournament.matches import ClockPreset, Match
>>> t0 = datetime(2014, 1, 31, 20, 0)
>>> ms = [Match("G1-1", "group", "1", 1, 1, 3, ClockPreset.for_length(3), "B", "C", group=1,
...             planned_start=t0),
...       Match("G1-2", "group", "2", 2, 2, 3, ClockPreset.for_length(3), "A", "B", group=1,
...             planned_start=t0 + timedelta(minutes=30))]
>>> [(a.match_id, a.table) for a in plan_assignments(ms, ["T1", "T2"], t0)]
[('G1-1', 'T1')]
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from mesa.tournament.matches import ClockPreset, Match, iso

PHASE_ORDER = {"group": 0, "knockout": 1, "consolation": 2}


@dataclass(frozen=True)
class Assignment:
    """What the hub publishes to a table: the match, its players, format and start time.

    ``scheduled_start`` is the time lateness counts from (HGV 2.3.1): the calendar time, or
    the assignment time when the match is assigned after it. A match assigned before its
    calendar time (HGV 2.3.4) keeps its calendar time, so nobody is late for playing early.
    """

    match_id: str
    table: str
    a: str
    b: str
    length: int
    clock: ClockPreset
    scheduled_start: datetime
    early: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"match_id": self.match_id, "table": self.table, "a": self.a, "b": self.b,
                "length": self.length, "clock": self.clock.to_dict(),
                "scheduled_start": iso(self.scheduled_start), "early": self.early}


def priority(m: Match) -> tuple[int, datetime, int, int, int]:
    """Calendar order (HGV 2.3.4 "orden estricto de los calendarios"), knockout before consolation."""
    return (PHASE_ORDER[m.phase], m.planned_start or datetime.min, m.round_no, m.group or 0,
            m.number)


@dataclass(frozen=True)
class EventAsk:
    """One event's ask for tables: its matches and the rules its tables follow.

    ``needs_feature_table`` names the matches (semifinal, final) that wait for one of
    ``feature_tables`` when any is configured (HGV 7.3.1); ``home_tables`` is each group's
    table (HGV 7.4.8); ``reserved_tables`` are given to this event's matches only.
    """

    event: str
    matches: Sequence[Match]
    play_early: bool = True
    feature_tables: Sequence[str] = ()
    needs_feature_table: frozenset[str] = frozenset()
    home_tables: Mapping[int, str] = field(default_factory=dict)
    reserved_tables: Sequence[str] = ()


class Event(Protocol):
    """What :func:`plan_evening` needs of a tournament (:class:`~mesa.tournament.Tournament`)."""

    def table_ask(self) -> EventAsk: ...


# A sort key for one event's ready match (smaller first), given the event (the tournament
# handed to plan_evening) and the match: the order every event's ready matches are merged in.
Priority = Callable[[Any, Match], tuple[Any, ...]]


def calendar_priority(event: Any, m: Match) -> tuple[Any, ...]:
    """Today's order: each event's calendar (:func:`priority`), the events interleaved by it."""
    return priority(m)


def plan_assignments(
    matches: Sequence[Match],
    free_tables: Sequence[str],
    now: datetime,
    *,
    play_early: bool = True,
    feature_tables: Sequence[str] = (),
    needs_feature_table: frozenset[str] = frozenset(),
    home_tables: Mapping[int, str] | None = None,
) -> list[Assignment]:
    """Pair ready matches with free tables, in calendar order; nothing is changed.

    ``matches`` are all matches of the tournament: a player in an assigned or playing match is
    busy. Group matches prefer their group's table (HGV 7.4.8), other groups' tables next
    ("mesas alternativas", HGV 7.4.7). Matches in ``needs_feature_table`` (semifinal, final)
    wait for a table of ``feature_tables`` when any is configured (HGV 7.3.1).
    """
    ask = EventAsk("", matches, play_early, feature_tables, needs_feature_table,
                   dict(home_tables or {}))
    ready = sorted((m for m in matches if m.status == "ready"), key=priority)
    return _plan([(ask, m) for m in ready], [ask], free_tables, now, frozenset())[""]


def plan_evening(
    events: Sequence[Event],
    free_tables: Sequence[str],
    now: datetime,
    *,
    busy_elsewhere: Collection[str] = (),
    priority: Priority = calendar_priority,
) -> dict[str, list[Assignment]]:
    """Every open event's ready matches on the tables they share, by event id; nothing changes.

    The events' ready matches are merged in ``priority`` order. A player is busy when seated
    in any event's assigned or playing match, or in ``busy_elsewhere`` (another game's table):
    never two tables at once (RULES §4). A table busy in any event is not free; a table one
    event reserves is given to that event's matches only (and first to them).
    """
    asks: dict[str, EventAsk] = {}
    by_id: dict[str, Event] = {}
    for e in events:
        ask = e.table_ask()
        asks[ask.event], by_id[ask.event] = ask, e
    ready = [(ask, m) for ask in asks.values() for m in ask.matches if m.status == "ready"]
    ready.sort(key=lambda am: (priority(by_id[am[0].event], am[1]), am[0].event, am[1].id))
    return _plan(ready, list(asks.values()), free_tables, now, frozenset(busy_elsewhere))


def _plan(
    ready: Sequence[tuple[EventAsk, Match]],
    asks: Sequence[EventAsk],
    free_tables: Sequence[str],
    now: datetime,
    busy_elsewhere: frozenset[str],
) -> dict[str, list[Assignment]]:
    """The one assignment loop: ``ready`` in the order given, each to the first table it may
    use, or skipped (players busy, no table it may use, not yet time)."""
    seated = [m for ask in asks for m in ask.matches if m.status in ("assigned", "playing")]
    busy = set(busy_elsewhere) | {p for m in seated for p in m.players}
    occupied = {m.table for m in seated}
    free = [t for t in dict.fromkeys(free_tables) if t not in occupied]
    owner: dict[str, str] = {}
    for ask in asks:
        for t in ask.reserved_tables:
            owner.setdefault(t, ask.event)
    out: dict[str, list[Assignment]] = {ask.event: [] for ask in asks}
    for ask, m in ready:
        if not free:
            break
        assert m.a is not None and m.b is not None
        if m.a in busy or m.b in busy:
            continue
        early = m.planned_start is not None and m.planned_start > now
        if early and not ask.play_early:
            continue
        # The event's own reserved tables first (nobody else may use them), the shared ones
        # after: a reserved table is never passed over for a shared one another event needs.
        mine = [t for t in free if owner.get(t) == ask.event]
        table = _choose(ask, m, mine) or _choose(ask, m, [t for t in free if t not in owner])
        if table is None:
            continue
        free.remove(table)
        busy.update((m.a, m.b))
        start = max(m.planned_start, now) if m.planned_start is not None else now
        out[ask.event].append(Assignment(m.id, table, m.a, m.b, m.length, m.clock, start, early))
    return out


def _choose(ask: EventAsk, m: Match, free: Sequence[str]) -> str | None:
    """The table ``m`` takes among ``free`` (in the order offered), None if it must wait."""
    if m.id in ask.needs_feature_table and ask.feature_tables:
        choices = [t for t in free if t in ask.feature_tables]
    else:
        home = ask.home_tables.get(m.group) if m.group is not None else None
        home_of_others = set(ask.home_tables.values())
        ordinary = [t for t in free if t not in ask.feature_tables] or list(free)
        choices = ([home] if home is not None and home in free else []) + [
            t for t in ordinary if t not in home_of_others] + ordinary
    return choices[0] if choices else None
