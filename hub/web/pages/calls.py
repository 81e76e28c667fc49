"""Where players go next: the call board for a big screen and each player's own next match.

Both are built from the tournament (who plays whom, on which table, from when) and the live table
cards (the score as it stands); the JSON twins are these same dicts.

>>> from datetime import date, datetime
>>> from mesa.tournament.club import Club
>>> club = Club()
>>> now = datetime(2025, 3, 7, 20, 0)
>>> t = club.create_tournament("t", "Marzo", date(2025, 3, 7))
>>> ids = [club.registry.add_new(n).id for n in ("ANA", "BEA", "EVA", "ROSA")]
>>> for pid in ids:
...     _ = club.register("t", pid, now=now)
>>> _ = club.start("t", seed=1, now=now)
>>> _ = t.assign_tables(["4"], now=now)
>>> board = call_board_view(t, [], "es")
>>> [(c["table"], c["a"]["name"] in ("ANA", "BEA", "EVA", "ROSA")) for c in board["calls"]]
[('4', True)]
>>> mine = next_match_view(t, board["calls"][0]["a"]["id"], [], "es")
>>> mine["match"]["table"], mine["match"]["called"]
('4', True)
>>> qr_svg("http://mesa.local/players/P0001/next").startswith("<svg")
True
"""

from __future__ import annotations

import io
from datetime import datetime
from typing import Any

from markupsafe import Markup

from mesa.hub.web.i18n import text as tr
from mesa.hub.web.pages.views import match_view
from mesa.tournament.matches import Match
from mesa.tournament.players import name_key
from mesa.tournament.tournament import Tournament

# How many waiting matches the board lists after the calls and the matches in play.
NEXT_ON_BOARD = 12
# The order a player's matches are looked at: the one under way, then the called one, …
STATUS_ORDER = {"playing": 0, "assigned": 1, "ready": 2, "waiting": 3}


def _hhmm(value: datetime | None) -> str | None:
    return None if value is None else value.strftime("%H:%M")


def _card_of(cards: list[dict[str, Any]], m: Match) -> dict[str, Any] | None:
    if m.table is None:
        return None
    return next((c for c in cards if c["id"] == m.table and c.get("match_id") == m.id), None)


def board_match(t: Tournament, m: Match, cards: list[dict[str, Any]], lang: str) -> dict[str, Any]:
    """A match as the board and the player's page show it: who, where, from when, the score."""
    view = match_view(t, m, lang)
    card = _card_of(cards, m)
    live = None
    if card is not None:
        score = card.get("score") or {}
        live = {
            "a": score.get("a", 0),
            "b": score.get("b", 0),
            "state": card.get("state"),
            "state_name": tr(lang, f"state.{card.get('state') or 'unknown'}"),
            "game": card.get("game"),
        }
    return {
        "id": m.id,
        "round_name": view["round_name"],
        "group": m.group,
        "stage": (
            tr(lang, "calls.group", group=m.group, round=view["round_name"])
            if m.group
            else view["round_name"]
        ),
        "length": m.length,
        "a": view["a"],
        "b": view["b"],
        "status": m.status,
        "status_name": view["status_name"],
        "table": m.table,
        "called": m.status == "assigned",
        "called_at": _hhmm(m.assigned_at),
        "start": _hhmm(m.scheduled_start or m.planned_start),
        "live": live,
        "score": view["score"],
    }


def call_board_view(t: Tournament, cards: list[dict[str, Any]], lang: str) -> dict[str, Any]:
    """The big screen: the calls (go to table N), the matches in play, what comes next."""
    by_table = sorted(
        (m for m in t.matches.values() if m.table and m.status in ("assigned", "playing")),
        key=lambda m: (len(m.table or ""), m.table or ""),
    )
    calls = [board_match(t, m, cards, lang) for m in by_table if m.status == "assigned"]
    calls.sort(key=lambda c: c["called_at"] or "", reverse=True)  # the newest call on top
    playing = [board_match(t, m, cards, lang) for m in by_table if m.status == "playing"]
    ready = sorted(
        (m for m in t.matches.values() if m.status == "ready"),
        key=lambda m: (m.planned_start or datetime.max, m.id),
    )
    return {
        "calls": calls,
        "playing": playing,
        "next": [board_match(t, m, cards, lang) for m in ready[:NEXT_ON_BOARD]],
        "waiting": max(0, len(ready) - NEXT_ON_BOARD),
    }


def _label(t: Tournament) -> dict[str, str]:
    return {"id": t.id, "name": t.name, "category": t.category}


def call_board_all(
    events: list[Tournament], cards: list[dict[str, Any]], lang: str
) -> dict[str, Any]:
    """The call board of every open event at once (the tables are shared): each entry says
    its event; the calls newest first, the matches in play by table, what comes next by time."""
    calls: list[dict[str, Any]] = []
    playing: list[dict[str, Any]] = []
    ready: list[tuple[Tournament, Match]] = []
    for t in events:
        label = _label(t)
        board = call_board_view(t, cards, lang)
        calls += [c | {"event": label} for c in board["calls"]]
        playing += [c | {"event": label} for c in board["playing"]]
        ready += [(t, m) for m in t.matches.values() if m.status == "ready"]
    calls.sort(key=lambda c: c["called_at"] or "", reverse=True)
    playing.sort(key=lambda c: (len(c["table"] or ""), c["table"] or ""))
    ready.sort(key=lambda tm: (tm[1].planned_start or datetime.max, tm[0].id, tm[1].id))
    return {
        "calls": calls,
        "playing": playing,
        "next": [
            board_match(t, m, cards, lang) | {"event": _label(t)} for t, m in ready[:NEXT_ON_BOARD]
        ],
        "waiting": max(0, len(ready) - NEXT_ON_BOARD),
        "several": len(events) > 1,
    }


def other_games(seats: list[Any], names: dict[str, str]) -> list[dict[str, Any]]:
    """The other games' tables in play (a :class:`~mesa.hub.desk.venue.Seat` each player),
    one entry a table: its event and who sits there, by table.

    >>> from mesa.hub.desk.venue import Seat
    >>> other_games([Seat("P1", "d1", "D1", "Dominó", "domino"),
    ...              Seat("P2", "d1", "D1", "Dominó", "domino")], {"P1": "ANA"})
    [{'table': 'd1', 'event': 'D1', 'event_name': 'Dominó', 'game': 'domino', 'players': ['ANA', 'P2']}]
    """
    tables: dict[str, dict[str, Any]] = {}
    for seat in seats:
        entry = tables.setdefault(seat.table, {
            "table": seat.table, "event": seat.event, "event_name": seat.event_name,
            "game": seat.game, "players": [],
        })  # fmt: skip
        entry["players"].append(names.get(seat.player, seat.player))
    for entry in tables.values():
        entry["players"].sort(key=name_key)
    return [tables[k] for k in sorted(tables, key=lambda k: (len(k), k))]


def next_match_all(
    events: list[Tournament],
    player_id: str,
    cards: list[dict[str, Any]],
    lang: str,
    elsewhere: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A player's "mi próxima partida" across every event they are in: the match under way or
    called first, whichever event holds it; ``elsewhere`` is where another game seats them
    (the domino room), shown when no backgammon match holds them. ``KeyError`` when the
    player is in none of ``events``."""
    mine = [t for t in events if player_id in t.entrants]
    if not mine:
        raise KeyError(player_id)
    views = [(t, next_match_view(t, player_id, cards, lang)) for t in mine]

    def rank(tv: tuple[Tournament, dict[str, Any]]) -> tuple[int, str]:
        m = tv[1]["match"]
        return (STATUS_ORDER.get(m["status"], 9) if m else 10, (m or {}).get("start") or "~")

    views.sort(key=rank)
    best_t, best = views[0]
    best["match_event"] = _label(best_t)
    best["others"] = [
        {"event": _label(t), "match": v["match"]}
        for t, v in views[1:]
        if v["match"] is not None
    ]
    best["elsewhere"] = elsewhere
    return best


def next_match_view(
    t: Tournament | None, player_id: str, cards: list[dict[str, Any]], lang: str
) -> dict[str, Any]:
    """One player's "mi próxima partida": the match under way, called or coming, and the last
    result. ``KeyError`` when the player is not in the tournament."""
    if t is None or player_id not in t.entrants:
        raise KeyError(player_id)
    mine = [m for m in t.matches.values() if player_id in m.players]
    open_ = sorted(
        (m for m in mine if m.status in STATUS_ORDER),
        key=lambda m: (STATUS_ORDER[m.status], m.planned_start or datetime.max, m.id),
    )
    done = sorted(
        (m for m in mine if m.result is not None),
        key=lambda m: (m.result.at if m.result and m.result.at else datetime.min, m.id),
    )
    match = board_match(t, open_[0], cards, lang) if open_ else None
    if match is not None:
        side = "a" if match["a"] and match["a"]["id"] == player_id else "b"
        other = match["b" if side == "a" else "a"]
        match["side"] = side
        match["opponent"] = other
    last = board_match(t, done[-1], cards, lang) if done else None
    return {
        "player": {"id": player_id, "name": t.name_of(player_id)},
        "match": match,
        "last": last,
        "out": match is None and t.phase != "registration",
    }


def players_for_qr(t: Tournament | None) -> list[dict[str, str]]:
    """The tournament's players in Spanish alphabetical order (for the printed list)."""
    if t is None:
        return []
    players = [{"id": pid, "name": t.name_of(pid)} for pid in t.entrants]
    return sorted(players, key=lambda p: name_key(p["name"]))


def qr_svg(url: str, *, scale: int = 3) -> str:
    """``url`` as an SVG QR code (segno, pure Python; medium error correction), served as an
    image of its own (``/players/<id>/qr.svg``), never pasted into a page."""
    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(
        out, kind="svg", scale=scale, border=2, xmldecl=False, svgns=True, svgclass="qr",
        lineclass=None, title=None,
    )  # fmt: skip
    return Markup(out.getvalue().decode("ascii"))  # segno writes no input text
