"""Replay a domino table's log: JSON lines of timestamped inputs → every event and the final view.

The file starts with the header ``{"game": "domino"}``; the other lines are as for the
backgammon table (``{"t": <seconds>, "input": <name>, <argument>: <value>, ...}``), with the
domino table's inputs. ``mesa replay FILE`` dispatches here on that header.

>>> lines = [
...   '{"game": "domino"}',
...   '{"t": 0, "input": "assign", "game_id": "R1", "players": {"n": "A", "e": "B", "s": "C", "w": "D"}}',
...   '{"t": 1, "input": "tiempo", "start_wall": 0, "wall": 0}',
...   '{"t": 2, "input": "press", "seat": "n"}',
... ]
>>> report = replay_domino_lines(lines)
>>> report["game"], report["final"]["state"], report["final"]["on_turn"]
('domino', 'playing', 'w')
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from mesa.domino.machine import DominoTable
from mesa.domino.view import domino_view
from mesa.table.replay import parse_line


def replay_domino_lines(lines: Iterable[str], table: DominoTable | None = None) -> dict[str, Any]:
    """Apply every line in order; the header and blank lines are skipped, a bad line is
    reported and skipped, never applied."""
    table = table or DominoTable()
    steps: list[dict[str, Any]] = []
    last_t = 0.0
    header_seen = False
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        if not header_seen:
            header_seen = True
            if is_header(text):
                continue
        try:
            t, name, args = parse_line(text, number)
        except ValueError as e:
            steps.append({"line": number, "accepted": False, "error": str(e)})
            continue
        outcome = table.apply(name, args, now=t)
        last_t = max(last_t, t)
        steps.append({"line": number, **outcome.to_dict()})
    return {
        "game": "domino",
        "steps": steps,
        "final": domino_view(table, last_t).to_dict(),
        "snapshot": table.snapshot(),
    }


def is_header(text: str) -> bool:
    """True for a ``{"game": ...}`` header line (an object with ``game`` and no ``input``)."""
    return game_of(text) is not None


def game_of(text: str) -> str | None:
    """The game a header line names, or None when the line is not a header."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return None
    if isinstance(obj, dict) and "game" in obj and "input" not in obj:
        game = obj["game"]
        return game if isinstance(game, str) else ""
    return None
