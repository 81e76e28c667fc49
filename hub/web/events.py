"""Which event a page or an action is about: the query parameter ``t`` (a tournament's id) names
it; without one, the default is the newest open tournament, else the newest closed one. An id
that names no tournament is :class:`UnknownEvent` (a ``KeyError``: the page is a 404, never
another tournament).

A club evening holds several events at once (RULES §4: open, novatos, a friendly), all sharing
the tables, so the public pages show every open event together when none is named
(:func:`shown_events`), the director switches between them (:func:`switcher`) and each table's
card says whose match it holds (:func:`matches_at_tables`; with the match's pace:
:func:`mesa.hub.web.timing.table_labels`).

>>> from datetime import date, datetime
>>> from mesa.tournament.club import Club
>>> club, now = Club(), datetime(2025, 3, 7, 20, 0)
>>> a = club.create_tournament("2025-03-07", "Marzo", date(2025, 3, 7))
>>> b = club.create_tournament("2025-03-07-novatos", "Novatos", date(2025, 3, 7), category="novatos")
>>> [t.id for t in open_events(club)], chosen_event(club, None).id
(['2025-03-07', '2025-03-07-novatos'], '2025-03-07-novatos')
>>> chosen_event(club, "2025-03-07").name
'Marzo'
>>> chosen_event(club, "1999")
Traceback (most recent call last):
  ...
mesa.hub.web.events.UnknownEvent: '1999'
>>> [t.id for t in shown_events(club, None)], [t.id for t in shown_events(club, "2025-03-07")]
(['2025-03-07', '2025-03-07-novatos'], ['2025-03-07'])
>>> default_id(club, date(2025, 3, 7), "open"), default_id(club, date(2025, 3, 7), "novatos")
('2025-03-07-2', '2025-03-07-novatos-2')
"""

from __future__ import annotations

from datetime import date
from typing import Any

from mesa.tournament.club import Club
from mesa.tournament.matches import Match
from mesa.tournament.tournament import Tournament

# How many closed tournaments the director's switcher offers besides the open ones.
RECENT_CLOSED = 3
# A match that holds its table (the table's card names its event).
AT_TABLE = ("assigned", "playing")


class UnknownEvent(KeyError):
    """``t`` names no tournament of the club."""


def _ordered(club: Club) -> list[Tournament]:
    return sorted(club.tournaments.values(), key=lambda t: (t.held_on, t.id))


def open_events(club: Club) -> list[Tournament]:
    """Every tournament not yet closed, oldest first (by date, then id)."""
    return [t for t in _ordered(club) if t.phase != "closed"]


def default_event(club: Club) -> Tournament | None:
    """The event a page without ``t`` is about: the newest open, else the newest closed."""
    ts = _ordered(club)
    open_ = [t for t in ts if t.phase != "closed"]
    return open_[-1] if open_ else (ts[-1] if ts else None)


def event_param(request_or_t: Any) -> str | None:
    """The ``t`` a request names (a string passes as is; empty is none)."""
    if request_or_t is None or isinstance(request_or_t, str):
        return request_or_t or None
    return request_or_t.query_params.get("t") or None


def chosen_event(club: Club, request_or_t: Any) -> Tournament | None:
    """The tournament ``t`` names (:class:`UnknownEvent` if none), else :func:`default_event`."""
    tid = event_param(request_or_t)
    if tid is None:
        return default_event(club)
    t = club.tournaments.get(tid)
    if t is None:
        raise UnknownEvent(tid)
    return t


def shown_events(club: Club, request_or_t: Any) -> list[Tournament]:
    """What a public page shows: the named event; without ``t``, every event of the evening
    when there are several (those held on the date of the newest open one, closed ones
    included: the open final list stays beside the novatos' once it is closed), else the
    default one (none at all: an empty list)."""
    tid = event_param(request_or_t)
    if tid is None:
        open_ = open_events(club)
        if open_:
            tonight = max(t.held_on for t in open_)
            evening = [t for t in _ordered(club) if t.held_on == tonight]
            if len(evening) > 1:
                return evening
    t = chosen_event(club, tid)
    return [] if t is None else [t]


def default_id(club: Club, held_on: date, category: str) -> str:
    """A new tournament's id when the director gives none: the date, with the category when it
    is not the open one, and a number when that is taken (two events on one evening)."""
    stem = held_on.isoformat() + ("" if category == "open" else f"-{category}")
    tid, n = stem, 1
    while tid in club.tournaments:
        n += 1
        tid = f"{stem}-{n}"
    return tid


def event_label(t: Tournament) -> dict[str, Any]:
    """How a card, a section or a switcher names an event."""
    return {"id": t.id, "name": t.name, "category": t.category, "game": "backgammon"}


def switcher(club: Club, chosen: Tournament | None) -> list[dict[str, Any]]:
    """The director's event switcher: every open event, then the few most recently closed."""
    ts = _ordered(club)
    closed = [t for t in ts if t.phase == "closed"][-RECENT_CLOSED:]
    return [
        {**event_label(t), "closed": t.phase == "closed", "here": chosen is not None and t.id == chosen.id}
        for t in [*(t for t in ts if t.phase != "closed"), *reversed(closed)]
    ]


def matches_at_tables(club: Club) -> dict[str, tuple[Tournament, Match, dict[str, Any]]]:
    """Table → (event, match, label): the match at the table now (assigned or playing), else
    the last one decided there (its card still shows it: "Partido terminado"), in the open
    events. Each label names its ``match`` and whether it is still ``active`` there."""
    out: dict[str, tuple[Tournament, Match, dict[str, Any]]] = {}
    last: dict[str, tuple[Any, Tournament, Match]] = {}
    for t in open_events(club):
        for m in t.matches.values():
            if not m.table:
                continue
            if m.status in AT_TABLE:
                out[m.table] = (t, m, {**event_label(t), "match": m.id, "active": True})
            elif m.result is not None and m.result.at is not None:
                prev = last.get(m.table)
                if prev is None or m.result.at > prev[0]:
                    last[m.table] = (m.result.at, t, m)
    for table, (_, t, m) in last.items():
        out.setdefault(table, (t, m, {**event_label(t), "match": m.id, "active": False}))
    return out


def label_for(card: dict[str, Any] | None, label: dict[str, Any] | None) -> dict[str, Any] | None:
    """The label a card may carry: an active match's always; a decided match's only while the
    card still shows that match."""
    if label is None or label.get("active", True):
        return label
    return label if card is not None and card.get("match_id") == label.get("match") else None


def seats_elsewhere(club: Club, venue: Any) -> dict[str, dict[str, Any]]:
    """Player → where they sit now, in any event: the backgammon club's assigned and playing
    matches, and the other games' seats the venue knows (``venue`` may be None)."""
    out: dict[str, dict[str, Any]] = {}
    if venue is not None:
        for pid, seat in venue.busy(besides="backgammon").items():
            out[pid] = {
                "table": seat.table, "event": seat.event, "event_name": seat.event_name,
                "game": seat.game,
            }  # fmt: skip
    for t in open_events(club):
        for m in t.matches.values():
            if m.table and m.status in AT_TABLE:
                for pid in m.players:
                    out[pid] = {
                        "table": m.table, "event": t.id, "event_name": t.name,
                        "game": "backgammon", "match": m.id,
                    }  # fmt: skip
    return out
