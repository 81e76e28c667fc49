"""Replaying a table's log, for any game: JSON lines of timestamped inputs → every outcome.

A line is ``{"t": <seconds since the match started>, "input": <name>, <argument>: <value>, ...}``.
A first line ``{"game": <name>}`` is a header naming the game whose table the log is for;
:func:`mesa.games.replay.replay_lines` reads it (:func:`header_of`) and hands the other lines to
that game's machine through :func:`replay_steps`.

>>> parse_line('{"t": 1.5, "input": "press", "side": "a"}', 3)
(1.5, 'press', {'side': 'a'})
>>> header_of('{"game": "domino"}'), header_of('{"t": 0, "input": "tick"}')
('domino', None)
"""

from __future__ import annotations

from typing import Any, Protocol

from mesa.engine.outcome import Outcome
from mesa.validation import TIME_LIMIT, ValidationError, strict_json

__all__ = ["Applies", "first_line", "header_of", "parse_line", "replay_steps"]


class Applies(Protocol):
    """What replay needs of a game's machine."""

    def apply(self, name: str, args: dict[str, Any] | None = None, *, now: float) -> Outcome: ...


def parse_line(text: str, number: int) -> tuple[float, str, dict[str, Any]]:
    """``(t, input name, arguments)`` of one line, or :class:`ValueError` saying what is wrong."""
    try:
        obj = strict_json(text)
    except ValidationError as e:
        raise ValueError(f"line {number}: {e}") from None
    if not isinstance(obj, dict):
        raise ValueError(f"line {number}: a line must be a JSON object")
    t = obj.pop("t", None)
    name = obj.pop("input", None)
    if not isinstance(t, int | float) or isinstance(t, bool) or not -TIME_LIMIT <= t <= TIME_LIMIT:
        raise ValueError(
            f'line {number}: "t" must be a number of seconds within ±{TIME_LIMIT:g}, not {t!r}'
        )
    if not isinstance(name, str):
        raise ValueError(f'line {number}: "input" must name an input, not {name!r}')
    return float(t), name, obj


def header_of(text: str) -> str | None:
    """The game a header line names ("" when its ``game`` is no string), or None when the line
    is not a header (an object with ``game`` and no ``input``)."""
    try:
        # The strict reader: a hostile line (an array nested thousands deep) is refused here
        # as any bad line is, never a RecursionError.
        obj = strict_json(text)
    except ValidationError:
        return None
    if isinstance(obj, dict) and "game" in obj and "input" not in obj:
        game = obj["game"]
        return game if isinstance(game, str) else ""
    return None


def first_line(lines: list[str]) -> int | None:
    """The number (from 1) of the first line that is not blank, or None."""
    return next((n for n, raw in enumerate(lines, start=1) if raw.strip()), None)


def replay_steps(
    lines: list[str], machine: Applies, skip: int | None = None
) -> tuple[list[dict[str, Any]], float]:
    """Apply every line but blank ones and line ``skip`` (the header) in order: the steps, and
    the latest ``t`` applied. A bad line is reported as a step and skipped, never applied."""
    steps: list[dict[str, Any]] = []
    last_t = 0.0
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or number == skip:
            continue
        try:
            t, name, args = parse_line(text, number)
        except ValueError as e:
            steps.append({"line": number, "accepted": False, "error": str(e)})
            continue
        outcome = machine.apply(name, args, now=t)
        last_t = max(last_t, t)
        steps.append({"line": number, **outcome.to_dict()})
    return steps, last_t

