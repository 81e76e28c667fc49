"""The evening against the clock as the desk sees it now: the pace of every match under way and
every event's forecast (when its final starts, when it ends), from the tables' live reports.

The tables measure every second; this is where the hub uses it (HGV 2.4: about 10 minutes a
point). The pure parts are :mod:`mesa.tournament.pace` and :mod:`mesa.tournament.forecast`;
this module feeds them what the hub knows and nobody else does: each table's live score and
reserves (its projection), the backgammon tables online, and the players another game's desk
has seated (the :class:`~mesa.hub.desk.venue.Venue`). It runs on the desk's thread (it reads the
club) and is cached there (:meth:`TournamentDesk.evening_time
<mesa.hub.desk.games.backgammon.TournamentDesk.evening_time>`).

>>> from datetime import date, datetime
>>> from mesa.tournament.club import Club
>>> club = Club()
>>> _ = club.create_tournament("T", "Marzo", date(2026, 12, 4))
>>> now = datetime(2026, 12, 4, 20, 0)
>>> for n in ("ANA", "BEA", "EVA", "IVO"):
...     _ = club.register("T", club.registry.add_new(n).id, now=now)
>>> _ = club.start("T", seed=1, now=now)
>>> et = evening_time(list(club.tournaments.values()), [], now, tables=["1", "2"])
>>> et.events["T"]["final_start"] is not None, et.paces
(True, {})
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from mesa.tournament.chains import critical_priority
from mesa.tournament.forecast import BusyWindow, Forecast, LiveMatch, forecast
from mesa.tournament.matches import Match, iso
from mesa.tournament.pace import ClockState, Pace, pace_of
from mesa.tournament.scheduler import Priority
from mesa.tournament.tournament import Tournament

__all__ = ["OTHER_GAME_LEFT", "EveningTime", "evening_time"]

log = logging.getLogger("mesa.desk.timing")

# A player seated at another game's table is expected back after this long: the venue does not
# know when that game started, and a domino game lasts at most 35 minutes (RULES §5): half of it.
OTHER_GAME_LEFT = timedelta(minutes=17, seconds=30)


@dataclass(frozen=True)
class EveningTime:
    """What the pages show of time: each match under way's pace (by event, then match id),
    every not-finished match's expected start and end, and each event's final and finish."""

    made_at: datetime
    paces: dict[str, dict[str, Pace]] = field(default_factory=dict)
    matches: dict[str, dict[str, dict[str, str | None]]] = field(default_factory=dict)
    events: dict[str, dict[str, str | None]] = field(default_factory=dict)

    def pace(self, event: str, match_id: str) -> Pace | None:
        return self.paces.get(event, {}).get(match_id)

    def match(self, event: str, match_id: str) -> dict[str, str | None] | None:
        return self.matches.get(event, {}).get(match_id)


def _score(live: Mapping[str, Any]) -> tuple[int, int]:
    score = live.get("score") or {}
    a, b = score.get("a", 0), score.get("b", 0)
    return (a if isinstance(a, int) else 0, b if isinstance(b, int) else 0)


def _reserves(live: Mapping[str, Any]) -> tuple[float, float] | None:
    """Both reserves when the table runs a clock (its report has them), else None."""
    reserve = live.get("reserve") or {}
    a, b = reserve.get("a"), reserve.get("b")
    if isinstance(a, int | float) and isinstance(b, int | float):
        return float(a), float(b)
    return None


def evening_time(
    tournaments: Sequence[Tournament],
    live_tables: Sequence[Mapping[str, Any]],
    now: datetime,
    *,
    tables: Sequence[str],
    elsewhere: Sequence[str] = (),
    timed: Callable[[Match], bool] | None = None,
    rate: float = 1.0,
    priority: Priority = critical_priority,
) -> EveningTime:
    """The pace of the matches under way and the forecast of the rest, at ``now``.

    ``live_tables`` are the hub's table projections (score and reserves of the match a table
    plays), ``tables`` the backgammon tables the rest may use, ``elsewhere`` the players
    another game holds now, ``timed`` whether a match was given a clock (the desk knows; by
    default: its table reports reserves that are not both zero, as an untimed table does).
    ``rate`` is the tables' time scale (the demo's acceleration: table seconds per hub
    second): a pace is measured in table time, and every time it gives is in the hub's.
    ``priority`` is the order the desk gives tables in (the forecast plays the rest with it).
    Without tables there is no forecast, only the paces.
    """
    by_table = {str(x.get("table")): x for x in live_tables}
    paces: dict[str, dict[str, Pace]] = {}
    live: dict[str, LiveMatch] = {}
    for t in tournaments:
        mpp = t.settings.minutes_per_point
        for m in t.matches.values():
            if m.status != "playing" or m.table is None or m.started_at is None:
                continue
            report = by_table.get(m.table) or {}
            if report.get("match_id") not in (None, m.id):
                report = {}  # the table reports another match: its score is not this one's
            score = _score(report)
            reserves = _reserves(report)
            on_clock = (timed(m) if timed is not None
                        else reserves is not None and any(reserves))  # fmt: skip
            clock = ClockState(m.clock, *reserves) if on_clock and reserves else None
            if on_clock and clock is None:
                clock = ClockState(m.clock)  # timed, its reserves not reported yet
            elapsed = max(0.0, (now - m.started_at).total_seconds()) * rate
            paces.setdefault(t.id, {})[m.id] = _in_hub_time(
                pace_of(m.length, *score, elapsed, minutes_per_point=mpp, clock=clock), rate
            )
            live[m.table] = LiveMatch(*score, clock=clock)
    out = EveningTime(now, paces)
    playing = [t for t in tournaments if t.phase in ("groups", "knockout")]
    if not tables or not playing:
        return out
    busy = (
        [BusyWindow(frozenset(elsewhere), now, now + OTHER_GAME_LEFT)] if elsewhere else []
    )
    # Each event's own norm, in the hub's time (scaled only in the demo).
    norm = None if rate == 1.0 else playing[0].settings.minutes_per_point / rate
    try:
        f = forecast(playing, list(tables), now, live=live, busy=busy, minutes_per_point=norm,
                     priority=priority)
    except Exception:  # a forecast is advice: never the reason a page or the desk fails
        log.exception("the evening's forecast could not be made")
        return out
    return EveningTime(now, paces, _matches(f), _events(f))


def _in_hub_time(p: Pace, rate: float) -> Pace:
    """A pace measured in table time with its durations said in the hub's (rate ≠ 1: the
    demo); the minutes per point stay the table's."""
    if rate == 1.0:
        return p
    return dataclasses.replace(
        p,
        expected_remaining_s=p.expected_remaining_s / rate,
        bound_s=None if p.bound_s is None else p.bound_s / rate,
    )


def _matches(f: Forecast) -> dict[str, dict[str, dict[str, str | None]]]:
    return {
        event: {
            mid: {"start": iso(mf.start), "end": iso(mf.end), "table": mf.table}
            for mid, mf in ms.items()
        }
        for event, ms in f.matches.items()
    }


def _events(f: Forecast) -> dict[str, dict[str, str | None]]:
    return {
        event: {
            "final_id": ef.final_id,
            "final_start": iso(ef.final_start),
            "final_end": iso(ef.final_end),
            "finish": iso(ef.finish),
        }
        for event, ef in f.events.items()
    }
