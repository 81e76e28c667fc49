"""The events of a multi-event club evening, as the chaos harness sees them: which events an
evening holds, a page naming its event (``?t=``), every event as the store holds it (one
read-only snapshot of the hub's SQLite file, shaped like the director's JSON page) and the
players seated at two tables at once, across every event and game.

A club evening may hold several events on the shared tables (RULES §4: the open and the
novatos categories, the domino room), some players in more than one: the desk must never
seat one player at two tables. The store is read in one transaction, so what it says is one
moment of the desk (it saves the whole club in one transaction after every step).

>>> event_ids(7, 1), event_ids(7, 2)
(['velada-7'], ['velada-7', 'velada-7-novatos'])
>>> with_event("/director/tournament.json", "velada-7-novatos")
'/director/tournament.json?t=velada-7-novatos'
>>> with_event("/rankings?kind=rating", "velada-7"), with_event("/draw?t=x", "velada-7")
('/rankings?kind=rating&t=velada-7', '/draw?t=x')
>>> views = {"A": {"matches": [{"id": "G1-1", "status": "playing", "table": "t1",
...     "a": {"id": "P1"}, "b": {"id": "P2"}}]}, "B": {"matches": [{"id": "G1-1",
...     "status": "assigned", "table": "t2", "a": {"id": "P1"}, "b": {"id": "P9"}}]}}
>>> double_seats(views)
{'P1': [('A', 't1', 'G1-1'), ('B', 't2', 'G1-1')]}
>>> double_tables({"A": views["A"], "B": {"matches": [dict(views["B"]["matches"][0], table="t1")]}})
{'t1': [('A', 'G1-1'), ('B', 'G1-1')]}
>>> default_event({"x": {"tournament": {"id": "x", "held_on": "2026-12-02", "phase": "closed"}},
...                "y": {"tournament": {"id": "y", "held_on": "2026-12-01", "phase": "groups"}}})
'y'
>>> double_seats(views, [("P9", "D1", "d1", "R1")])
{'P1': [('A', 't1', 'G1-1'), ('B', 't2', 'G1-1')], 'P9': [('B', 't2', 'G1-1'), ('D1', 'd1', 'R1')]}
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import urllib.parse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

AT_TABLE = ("assigned", "playing")


def event_ids(seed: int, events: int) -> list[str]:
    """The backgammon events of evening ``seed``: the open category, then novatos."""
    base = f"velada-{seed}"
    return [base, f"{base}-novatos"][: max(1, min(events, 2))]


def with_event(path: str, event: str) -> str:
    """``path`` naming ``event`` (``t``), unless it already names one."""
    parts = urllib.parse.urlsplit(path)
    query = urllib.parse.parse_qs(parts.query)
    if "t" in query:
        return path
    extra = urllib.parse.urlencode({"t": event})
    return path + ("&" if parts.query else "?") + extra


def read_store(db: Path) -> dict[str, list[tuple[str, str]]]:
    """Every event's stored state, ``{"t": [(id, state)], "d": [...]}`` (backgammon's
    tournaments, domino's): one read-only transaction, so the two desks' records are of one
    moment (both desks write the same file)."""
    out: dict[str, list[tuple[str, str]]] = {"t": [], "d": []}
    if not db.exists():
        return out
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10, isolation_level=None)
    try:
        conn.execute("BEGIN")
        out["t"] = conn.execute("SELECT id, state FROM t_tournaments").fetchall()
        with contextlib.suppress(sqlite3.OperationalError):  # no domino event yet
            out["d"] = conn.execute("SELECT id, state FROM d_tournaments").fetchall()
        conn.execute("COMMIT")
    except sqlite3.Error:
        return {"t": [], "d": []}
    finally:
        conn.close()
    return out


def stored_views(
    snapshot: dict[str, list[tuple[str, str]]], lang: str = "es"
) -> dict[str, dict[str, Any]]:
    """Every tournament of a :func:`read_store` snapshot, by id, shaped as
    ``/director/tournament.json`` shows one (``tournament``, ``matches``, ``conflicts``,
    ``pending_dice``; and ``engine``, the tournament itself)."""
    from mesa.hub.web.pages.views import conflict_view, match_view, tournament_info
    from mesa.tournament.tournament import Tournament

    rows = snapshot.get("t", [])
    out: dict[str, dict[str, Any]] = {}
    for tid, state in rows:
        data = json.loads(state)
        data.setdefault("audit", [])  # kept in t_audit; no view below needs it
        t = Tournament.from_dict(data)
        out[str(tid)] = {
            "tournament": tournament_info(t, lang),
            "matches": [match_view(t, m, lang) for m in t.matches.values()],
            "conflicts": [conflict_view(t, c) for c in t.conflicts],
            "pending_dice": [
                {"group": g, "players": list(p), "names": [t.name_of(x) for x in p]}
                for g, p in t.pending_dice()
            ],
            "engine": t,
        }
    return out


def double_seats(
    views: dict[str, dict[str, Any]], others: Iterable[tuple[str, str, str, str]] = ()
) -> dict[str, list[tuple[str, str, str]]]:
    """Players seated at more than one table now: ``player → [(event, table, match)]``.

    ``views`` are the backgammon events (their matches assigned to or playing at a table);
    ``others`` the seats of another game, ``(player, event, table, game's match)``."""
    seats: dict[str, list[tuple[str, str, str]]] = {}
    for eid, view in sorted(views.items()):
        for m in view.get("matches", []):
            if m.get("status") not in AT_TABLE or not m.get("table"):
                continue
            for side in ("a", "b"):
                pid = (m.get(side) or {}).get("id")
                if pid:
                    seats.setdefault(str(pid), []).append((eid, str(m["table"]), str(m["id"])))
    for pid, eid, table, mid in others:
        seats.setdefault(pid, []).append((eid, table, mid))
    return {p: s for p, s in sorted(seats.items()) if len({x[1] for x in s}) > 1}


def double_tables(views: dict[str, dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """Tables holding matches of more than one event now: ``table → [(event, match)]``."""
    held: dict[str, list[tuple[str, str]]] = {}
    for eid, view in sorted(views.items()):
        for m in view.get("matches", []):
            if m.get("status") in AT_TABLE and m.get("table"):
                held.setdefault(str(m["table"]), []).append((eid, str(m["id"])))
    return {t: h for t, h in sorted(held.items()) if len(h) > 1}


def default_event(views: dict[str, dict[str, Any]]) -> str | None:
    """The event a page without ``t`` shows: the newest open, else the newest closed."""
    infos = sorted(
        (v.get("tournament") or {} for v in views.values()),
        key=lambda i: (str(i.get("held_on")), str(i.get("id"))),
    )
    open_ = [i for i in infos if i.get("phase") != "closed"]
    pick = open_[-1] if open_ else (infos[-1] if infos else None)
    return None if pick is None else str(pick.get("id"))


def forecast_of_finished(
    views: dict[str, dict[str, Any]], tables: list[str], now: Any, elsewhere: list[str] = ()
) -> list[str]:
    """What the desk's forecast (:func:`~mesa.hub.desk.timing.evening_time`, fed the stored
    events at ``now``) names that is already decided: ``"<event> <match>"`` for a decided
    match with an expected start or end, or an event's final that is already played."""
    from mesa.hub.desk.timing import evening_time

    engines = [v["engine"] for v in views.values() if "engine" in v]
    engines = [t for t in engines if t.phase != "closed"]
    if not engines:
        return []
    et = evening_time(engines, [], now, tables=tables, elsewhere=list(elsewhere))
    done = {
        (eid, m["id"])
        for eid, v in views.items()
        for m in v.get("matches", [])
        if m.get("status") == "done"
    }
    out = [f"{eid} {mid}" for eid, ms in et.matches.items() for mid in ms if (eid, mid) in done]
    for eid, ev in et.events.items():
        final = ev.get("final_id")
        if final and (eid, final) in done and ev.get("final_start"):
            out.append(f"{eid} {final} (the final, starting {ev.get('final_start')})")
    return sorted(out)
