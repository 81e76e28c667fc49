"""Replay a table's log: JSON lines of timestamped inputs → every event and the final state.

A line is ``{"t": <seconds since the match started>, "input": <name>, <argument>: <value>, ...}``.
A first line ``{"game": "domino"}`` makes it a domino table's log (:mod:`mesa.domino.replay`);
``{"game": "backgammon"}``, or no header, is this table's.

>>> lines = [
...   '{"t": 0, "input": "assign", "match_id": "G1-1", "players": {"a": "Ana", "b": "Beto"}, "length": 3}',
...   '{"t": 1, "input": "checkin", "side": "a"}',
...   'not json',
... ]
>>> report = replay_lines(lines)
>>> [s.get("input") for s in report["steps"]], report["steps"][2]["error"][:20]
(['assign', 'checkin', None], 'line 3: not valid JS')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mesa.table.machine import Table
from mesa.table.view import table_view
from mesa.validation import TIME_LIMIT, ValidationError, strict_json


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


def replay_lines(lines: Iterable[str], table: Table | None = None) -> dict[str, Any]:
    """Apply every line in order; a bad line is reported and skipped, never applied."""
    from mesa.domino.replay import game_of, replay_domino_lines

    lines = list(lines)
    first = next((n for n, raw in enumerate(lines, start=1) if raw.strip()), None)
    game = game_of(lines[first - 1].strip()) if first is not None else None
    if game == "domino":
        return replay_domino_lines(lines)
    table = table or Table()
    steps: list[dict[str, Any]] = []
    if game is not None and game != "backgammon":
        steps.append({"line": first, "accepted": False,
                      "error": f'line {first}: unknown game {game!r} (known: "backgammon", '
                               f'"domino")'})
    last_t = 0.0
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or (game is not None and number == first):
            continue
        try:
            t, name, args = parse_line(text, number)
        except ValueError as e:
            steps.append({"line": number, "accepted": False, "error": str(e)})
            continue
        outcome = table.apply(name, args, now=t)
        last_t = max(last_t, t)
        step = {"line": number, **outcome.to_dict()}
        steps.append(step)
    return {
        "steps": steps,
        "final": table_view(table, last_t).to_dict(),
        "snapshot": table.snapshot(),
    }
