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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

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
    busy = {p for m in matches if m.status in ("assigned", "playing") for p in m.players}
    occupied = {m.table for m in matches if m.status in ("assigned", "playing")}
    free = [t for t in free_tables if t not in occupied]
    homes = dict(home_tables or {})
    home_of_others = set(homes.values())
    out: list[Assignment] = []
    for m in sorted((m for m in matches if m.status == "ready"), key=priority):
        if not free:
            break
        assert m.a is not None and m.b is not None
        if m.a in busy or m.b in busy:
            continue
        early = m.planned_start is not None and m.planned_start > now
        if early and not play_early:
            continue
        if m.id in needs_feature_table and feature_tables:
            choices = [t for t in free if t in feature_tables]
        else:
            home = homes.get(m.group) if m.group is not None else None
            ordinary = [t for t in free if t not in feature_tables] or list(free)
            choices = ([home] if home in free else []) + [
                t for t in ordinary if t not in home_of_others] + ordinary
        if not choices:
            continue
        table = choices[0]
        free.remove(table)
        busy.update((m.a, m.b))
        start = max(m.planned_start, now) if m.planned_start is not None else now
        out.append(Assignment(m.id, table, m.a, m.b, m.length, m.clock, start, early))
    return out
