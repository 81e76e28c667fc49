"""A table's card checked before any page shows it: what a table stored is untrusted, so a value
of the wrong type or shape becomes ``"?"`` (or is left out) instead of taking the page down.

The cards are built from the hub's projection and from the table's own retained snapshot; both
hold what the table sent. :func:`check_card` fixes the card in place and says which fields it
had to replace; the grid shows "?" there, the card lists them under ``degraded`` and the live
poller logs and counts them (:class:`~mesa.hub.web.live.LivePoller`).

What is checked, by part:

- the **header** (id, link, events, last event) and the **words** (names, the match's id, the
  state and the reasons: text that reaches a person, which the ingest types as strings but
  does not bound) always;
- the **figures** (score, clocks, cube, sides, counts, lateness, claim) only when they do not
  come from a snapshot the protocol's own check passed (``figures=False``: the live poller's
  cards, read through the table's view code from a snapshot the ingest validated). A card
  built from the projection alone, or from an unchecked snapshot, is checked whole.

>>> from mesa.hub.web.live import build_card
>>> card = build_card({"table": "3"}, None, now=0.0)
>>> card.update(score={"a": '0"><img src=x>', "b": 2}, players={"a": "Ana", "b": 5},
...             clocks={"a": {"reserve": "x"}}, cube=5)
>>> check_card(card)
['clocks', 'cube', 'players', 'score']
>>> card["score"], card["players"], card["clocks"], card["cube"]["value"]
({'a': '?', 'b': 2}, {'a': 'Ana', 'b': '?'}, {}, '?')
>>> card.update(score={"a": "x", "b": 0}, players={"a": "Ana\\n", "b": "Beto"})
>>> check_card(card, figures=False), card["score"]["a"], card["players"]["a"]
(['players'], 'x', '?')
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
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


def _is_id(v: Any) -> bool:
    return isinstance(v, str) and bool(_ID.match(v))


def _is_event_type(v: Any) -> bool:
    return isinstance(v, str) and bool(_EVENT_TYPE.match(v))


def _is_match_id(v: Any) -> bool:
    return _is_text(v, 64)  # shown escaped, as text


def _is_name(v: Any) -> bool:
    return isinstance(v, str) and len(v) <= NAME_MAX and v.isprintable()


def _optional(ok: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or ok(v)


def _one_of(*choices: Any) -> Callable[[Any], bool]:
    return lambda v: v in choices


def _sides(v: Any) -> bool:
    return isinstance(v, list) and all(_is_side(s) for s in v)


def _unknown_if_set(v: Any) -> Any:
    return UNKNOWN if v else None


# One plain field: (name, the check its value must pass, what replaces it, or how from it).
Rule = tuple[str, Callable[[Any], bool], Any]

HEADER: tuple[Rule, ...] = (
    ("id", _is_id, UNKNOWN),
    ("link", _is_slug, "unknown"),
    ("events", _is_count, 0),
    ("last_event", _optional(_is_event_type), None),
)
WORDS: tuple[Rule, ...] = (
    ("state", _is_slug, "unknown"),
    ("match_id", _optional(_is_match_id), UNKNOWN),
    ("director_call", _optional(_is_slug), _unknown_if_set),
    ("ended_by", _optional(_is_slug), _unknown_if_set),
)
FIGURES: tuple[Rule, ...] = (
    ("length", _is_count, UNKNOWN),
    ("game", _is_count, UNKNOWN),
    ("crawford", _one_of("pre", "crawford", "post", "off"), "off"),
    ("on_move", _optional(_is_side), None),
    ("timed", lambda v: isinstance(v, bool), False),
    ("display", _one_of("delay", "bronstein"), "delay"),
    ("flag", _optional(_is_side), None),
    ("winner", _optional(_is_side), None),
    ("checked_in", _sides, lambda v: []),  # (a new list for each card)
)


def check_card(card: dict[str, Any], *, figures: bool = True) -> list[str]:
    """Replace every ill-typed field of ``card`` (in place); returns their names, sorted.
    ``figures=False`` leaves the figures as they are (see the module's docstring)."""
    bad = _rules(card, HEADER) | _rules(card, WORDS) | _players(card) | _paused(card)
    if figures:
        bad |= _rules(card, FIGURES)
        for check in (_score, _clocks, _cube, _claim, _lateness):
            bad |= check(card)
    return sorted(bad)


def _rules(card: dict[str, Any], rules: tuple[Rule, ...]) -> set[str]:
    bad = set()
    for name, ok, fallback in rules:
        v = card.get(name)
        if not ok(v):
            card[name] = fallback(v) if callable(fallback) else fallback
            bad.add(name)
    return bad


def _players(card: dict[str, Any]) -> set[str]:
    """Each side's name, printable and bounded ("?" otherwise); a key that is no side goes."""
    players = card.get("players")
    if not isinstance(players, dict):
        card["players"] = {}
        return {"players"}
    clean = {side: name if _is_name(name) else UNKNOWN for side, name in players.items()
             if _is_side(side)}
    card["players"] = clean
    ok = all(_is_side(side) and _is_name(name) for side, name in players.items())
    return set() if ok else {"players"}


def _paused(card: dict[str, Any]) -> set[str]:
    paused = card.get("paused")
    if paused is None or (
        isinstance(paused, dict)
        and _is_slug(paused.get("reason"))
        and _optional(_is_slug)(paused.get("by"))
    ):
        return set()
    card["paused"] = {"reason": "unspecified", "by": None} if paused else None
    return {"paused"}


def _score(card: dict[str, Any]) -> set[str]:
    """Both sides' points, counts ("?" otherwise), and nothing else."""
    score = card.get("score")
    if not isinstance(score, dict):
        card["score"] = {s: UNKNOWN for s in SIDES}
        return {"score"}
    values = {side: score.get(side, 0) for side in SIDES}
    card["score"] = {side: v if _is_count(v) else UNKNOWN for side, v in values.items()}
    ok = all(_is_count(v) for v in values.values()) and all(_is_side(k) for k in score)
    return set() if ok else {"score"}


def _clock(side: Any, c: Any) -> dict[str, Any] | None:
    """One side's clock in its plain shape, or None when it is ill-typed."""
    if not (
        _is_side(side)
        and isinstance(c, dict)
        and _is_seconds(c.get("reserve"))
        and _is_seconds(c.get("delay", 0.0))
        and isinstance(c.get("running", False), bool)
    ):
        return None
    return {
        "reserve": float(c["reserve"]),
        "delay": float(c.get("delay", 0.0)),
        "running": bool(c.get("running", False)),
    }


def _clocks(card: dict[str, Any]) -> set[str]:
    clocks = card.get("clocks")
    card["clocks"] = {}
    if clocks is None:
        return set()
    if not isinstance(clocks, dict):
        return {"clocks"}
    bad = set()
    for side, c in clocks.items():
        clean = _clock(side, c)
        if clean is None:
            bad.add("clocks")
        else:
            card["clocks"][side] = clean
    return bad


def _cube(card: dict[str, Any]) -> set[str]:
    cube = card.get("cube")
    if (
        isinstance(cube, dict)
        and _is_count(cube.get("value"))
        and _optional(_is_side)(cube.get("owner"))
        and _optional(_is_side)(cube.get("offered_by"))
    ):
        card["cube"] = {k: cube.get(k) for k in ("value", "owner", "offered_by")}
        return set()
    card["cube"] = {"value": UNKNOWN, "owner": None, "offered_by": None}
    return {"cube"}


def _claim(card: dict[str, Any]) -> set[str]:
    """A result claimed at the table: its winner a side, its kind a count or a word; plain
    values only are kept."""
    claim = card.get("claim")
    if claim is None:
        return set()
    if not (
        isinstance(claim, dict)
        and _optional(_is_side)(claim.get("winner"))
        and (claim.get("kind") is None or _is_count(claim["kind"]) or _is_slug(claim["kind"]))
    ):
        card["claim"] = None
        return {"claim"}
    card["claim"] = {
        k: v
        for k, v in claim.items()
        if isinstance(k, str) and (_is_scalar(v) or (isinstance(v, str) and len(v) <= 64))
    }
    return set()


def _lateness(card: dict[str, Any]) -> set[str]:
    late = card.get("lateness")
    if late is None:
        return set()
    if not (
        isinstance(late, dict)
        and _sides(late.get("present"))
        and _sides(late.get("absent"))
        and isinstance(late.get("points"), dict)
        and all(_is_side(k) and _is_count(v) for k, v in late["points"].items())
        and _optional(_is_seconds)(late.get("next_point_in"))
    ):
        card["lateness"] = None
        return {"lateness"}
    late["points"] = {s: late["points"].get(s, 0) for s in SIDES}
    return set()
