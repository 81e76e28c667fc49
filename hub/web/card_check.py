"""A table's card checked field by field before any page shows it: what a table stored is
untrusted, so a value of the wrong type or shape becomes ``"?"`` (or is left out) instead of
taking the page down.

The cards are built from the hub's projection and from the table's own retained snapshot; both
hold what the table sent. :func:`check_card` fixes the card in place and says which fields it
had to replace; the grid shows "?" there, the card lists them under ``degraded`` and the live
poller logs and counts them (:class:`~mesa.hub.web.live.LivePoller`).

>>> from mesa.hub.web.live import build_card
>>> card = build_card({"table": "3"}, None, now=0.0)
>>> card.update(score={"a": '0"><img src=x>', "b": 2}, players={"a": "Ana", "b": 5},
...             clocks={"a": {"reserve": "x"}}, cube=5)
>>> check_card(card)
['clocks', 'cube', 'players', 'score']
>>> card["score"], card["players"], card["clocks"], card["cube"]["value"]
({'a': '?', 'b': 2}, {'a': 'Ana', 'b': '?'}, {}, '?')
"""

from __future__ import annotations

import math
import re
from typing import Any

from mesa.core.sides import SIDES

UNKNOWN = "?"
_SLUG = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_EVENT_TYPE = re.compile(r"^[a-z][a-z0-9_.]{0,63}$")
_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
NAME_MAX = 80


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_count(v: Any) -> bool:
    return _is_int(v) and 0 <= v < 10**9


def _is_seconds(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v < 1e9


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, bool) or _is_int(v) or _is_seconds(v)


def _is_text(v: Any, limit: int) -> bool:
    return isinstance(v, str) and 0 < len(v) <= limit and v.isprintable()


def _is_slug(v: Any) -> bool:
    return isinstance(v, str) and bool(_SLUG.match(v))


def _is_side(v: Any) -> bool:
    return v in SIDES


def check_card(card: dict[str, Any]) -> list[str]:
    """Replace every ill-typed field of ``card`` (in place); returns their names, sorted."""
    bad: set[str] = set()

    def need(name: str, ok: bool, fallback: Any) -> None:
        if not ok:
            card[name] = fallback
            bad.add(name)

    need("id", isinstance(card.get("id"), str) and bool(_ID.match(card["id"])), UNKNOWN)
    need("link", _is_slug(card.get("link")), "unknown")
    need("events", _is_count(card.get("events")), 0)
    need("state", _is_slug(card.get("state")), "unknown")
    mid = card.get("match_id")
    need("match_id", mid is None or _is_text(mid, 64), UNKNOWN)  # shown escaped, as text
    need("length", _is_count(card.get("length")), UNKNOWN)
    need("game", _is_count(card.get("game")), UNKNOWN)
    need("crawford", card.get("crawford") in ("pre", "crawford", "post", "off"), "off")
    need("on_move", card.get("on_move") is None or _is_side(card.get("on_move")), None)
    need("timed", isinstance(card.get("timed"), bool), False)
    need("display", card.get("display") in ("delay", "bronstein"), "delay")
    for name in ("director_call", "ended_by"):
        v = card.get(name)
        need(name, v is None or _is_slug(v), UNKNOWN if v else None)
    for name in ("flag", "winner"):
        need(name, card.get(name) is None or _is_side(card.get(name)), None)
    last = card.get("last_event")
    need(
        "last_event",
        last is None or (isinstance(last, str) and bool(_EVENT_TYPE.match(last))),
        None,
    )

    # per side: players' names, score, clocks
    players = card.get("players")
    if not isinstance(players, dict):
        need("players", False, {})
    else:
        clean = {}
        for side, name in players.items():
            if not _is_side(side):
                bad.add("players")
                continue
            if isinstance(name, str) and len(name) <= NAME_MAX and name.isprintable():
                clean[side] = name
            else:
                clean[side] = UNKNOWN
                bad.add("players")
        card["players"] = clean
    checked = card.get("checked_in")
    need("checked_in", isinstance(checked, list) and all(_is_side(s) for s in checked), [])
    score = card.get("score")
    if not isinstance(score, dict):
        need("score", False, {s: UNKNOWN for s in SIDES})
    else:
        card["score"] = {}
        for side in SIDES:
            v = score.get(side, 0)
            card["score"][side] = v if _is_count(v) else UNKNOWN
            if not _is_count(v):
                bad.add("score")
        if any(not _is_side(k) for k in score):
            bad.add("score")
    clocks = card.get("clocks")
    clean_clocks: dict[str, Any] = {}
    if isinstance(clocks, dict):
        for side, c in clocks.items():
            if (
                _is_side(side)
                and isinstance(c, dict)
                and _is_seconds(c.get("reserve"))
                and _is_seconds(c.get("delay", 0.0))
                and isinstance(c.get("running", False), bool)
            ):
                clean_clocks[side] = {
                    "reserve": float(c["reserve"]),
                    "delay": float(c.get("delay", 0.0)),
                    "running": bool(c.get("running", False)),
                }
            else:
                bad.add("clocks")
    elif clocks is not None:
        bad.add("clocks")
    card["clocks"] = clean_clocks

    cube = card.get("cube")
    if (
        isinstance(cube, dict)
        and _is_count(cube.get("value"))
        and (cube.get("owner") is None or _is_side(cube.get("owner")))
        and (cube.get("offered_by") is None or _is_side(cube.get("offered_by")))
    ):
        card["cube"] = {k: cube.get(k) for k in ("value", "owner", "offered_by")}
    else:
        need("cube", False, {"value": UNKNOWN, "owner": None, "offered_by": None})

    paused = card.get("paused")
    need(
        "paused",
        paused is None
        or (
            isinstance(paused, dict)
            and _is_slug(paused.get("reason"))
            and (paused.get("by") is None or _is_slug(paused.get("by")))
        ),
        {"reason": "unspecified", "by": None} if paused else None,
    )
    claim = card.get("claim")
    need(
        "claim",
        claim is None
        or (
            isinstance(claim, dict)
            and (claim.get("winner") is None or _is_side(claim.get("winner")))
            and (claim.get("kind") is None or _is_count(claim["kind"]) or _is_slug(claim["kind"]))
        ),
        None,
    )
    if isinstance(card.get("claim"), dict):  # plain values only
        card["claim"] = {
            k: v
            for k, v in card["claim"].items()
            if isinstance(k, str) and (_is_scalar(v) or (isinstance(v, str) and len(v) <= 64))
        }
    late = card.get("lateness")
    need(
        "lateness",
        late is None
        or (
            isinstance(late, dict)
            and isinstance(late.get("present"), list)
            and all(_is_side(s) for s in late["present"])
            and isinstance(late.get("absent"), list)
            and all(_is_side(s) for s in late["absent"])
            and isinstance(late.get("points"), dict)
            and all(_is_side(k) and _is_count(v) for k, v in late["points"].items())
            and (late.get("next_point_in") is None or _is_seconds(late.get("next_point_in")))
        ),
        None,
    )
    if isinstance(card.get("lateness"), dict):
        points = card["lateness"]["points"]
        card["lateness"]["points"] = {s: points.get(s, 0) for s in SIDES}
    return sorted(bad)
