"""Time on the pages: a match's pace on its card and its page, every event's forecast in the
header every page carries ("la final, hacia las 23:40"), from the desk's
:class:`~mesa.hub.desk.timing.EveningTime`.

>>> from datetime import datetime
>>> from mesa.tournament.pace import pace_of
>>> view = pace_view(pace_of(3, 1, 0, 1500), datetime(2026, 12, 4, 21, 0))
>>> view["mpp"], view["flagged"], view["end"][:16]
('25', False, '2026-12-04T21:20')
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from mesa.hub.desk.timing import EveningTime
from mesa.hub.web.events import matches_at_tables
from mesa.tournament.club import Club
from mesa.tournament.matches import iso
from mesa.tournament.pace import Pace

__all__ = ["add_forecasts", "pace_view", "table_labels"]


def pace_view(pace: Pace, made_at: datetime) -> dict[str, Any]:
    """What a card and a match's page show of a match's pace (JSON-able)."""
    end = made_at + timedelta(seconds=pace.expected_remaining_s)
    bound = None if pace.bound_s is None else made_at + timedelta(seconds=pace.bound_s)
    return {
        "mpp": None if pace.minutes_per_point is None else f"{pace.minutes_per_point:.0f}",
        "norm": f"{pace.norm_minutes_per_point:g}",
        "minutes": int(pace.elapsed_s // 60),
        "behind_min": int(pace.behind_s // 60),
        "flagged": pace.flagged,
        "end": iso(end),
        "bound_end": iso(bound),
    }


def table_labels(club: Club, et: EveningTime) -> dict[str, dict[str, Any]]:
    """Table → the event whose match it holds, with that match's pace when it is under way
    (desk's thread)."""
    out: dict[str, dict[str, Any]] = {}
    for table, (t, m, label) in matches_at_tables(club).items():
        pace = et.pace(t.id, m.id)
        if pace is not None:
            label["pace"] = pace_view(pace, et.made_at)
        out[table] = label
    return out


def add_forecasts(data: Any, evening: Callable[[], EveningTime]) -> None:
    """Give every tournament header in a page's data (``tournament``, and each of
    ``sections``) its event's forecast: when its final starts and ends, when it finishes.
    ``evening`` is called only when a header needs it (desk's thread)."""
    if not isinstance(data, dict):
        return
    heads = [data.get("tournament")] + [
        s.get("tournament") for s in data.get("sections") or () if isinstance(s, dict)
    ]
    wanted = [h for h in heads if isinstance(h, dict) and h.get("phase") in ("groups", "knockout")]
    if not wanted:
        return
    et = evening()
    for h in wanted:
        fc = et.events.get(str(h.get("id")))
        if fc is not None:
            start, now = fc.get("final_start"), iso(et.made_at) or ""
            h["forecast"] = {**fc, "final_playing": start is not None and start < now}
