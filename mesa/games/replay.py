"""Replay a table's log, whichever the game: JSON lines of timestamped inputs → every event and
the final state.

A line is ``{"t": <seconds since the match started>, "input": <name>, <argument>: <value>, ...}``
(:func:`mesa.engine.replay.parse_line`). A first line ``{"game": <name>}`` names the registered
game whose table the log is for; without it the log is the first registered game's (backgammon).

>>> lines = [
...   '{"t": 0, "input": "assign", "match_id": "G1-1", "players": {"a": "Ana", "b": "Beto"}, "length": 3}',
...   '{"t": 1, "input": "checkin", "side": "a"}',
...   'not json',
... ]
>>> report = replay_lines(lines)
>>> [s.get("input") for s in report["steps"]], report["steps"][2]["error"][:20]
(['assign', 'checkin', None], 'line 3: not valid JS')
>>> lines = [
...   '{"game": "domino"}',
...   '{"t": 0, "input": "assign", "game_id": "R1", "players": {"n": "A", "e": "B", "s": "C", "w": "D"}}',
...   '{"t": 1, "input": "tiempo", "start_wall": 0, "wall": 0}',
...   '{"t": 2, "input": "press", "seat": "n"}',
... ]
>>> report = replay_lines(lines)
>>> report["game"], report["final"]["state"], report["final"]["on_turn"]
('domino', 'playing', 'w')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mesa.engine.replay import first_line, header_of, replay_steps
from mesa.games.registry import UnknownGame, game_named, games, names

__all__ = ["replay_lines"]


def replay_lines(lines: Iterable[str]) -> dict[str, Any]:
    """Apply every line in order to a fresh table of the log's game; a bad line is reported and
    skipped, never applied (an unknown game in the header too: the default game replays it)."""
    lines = list(lines)
    first = first_line(lines)
    named = header_of(lines[first - 1].strip()) if first is not None else None
    game = games()[0]
    steps: list[dict[str, Any]] = []
    if named is not None:
        try:
            game = game_named(named)
        except UnknownGame:
            known = ", ".join(f'"{n}"' for n in names())
            steps.append({"line": first, "accepted": False,
                          "error": f"line {first}: unknown game {named!r} (known: {known})"})
    table = game.machine()
    applied, last_t = replay_steps(lines, table, skip=first if named is not None else None)
    report: dict[str, Any] = {"game": game.name} if game is not games()[0] else {}
    # (The default game's report keeps its first shape, without "game": its snapshot names it.)
    report.update(steps=steps + applied, final=game.view(table, last_t).to_dict(),
                  snapshot=table.snapshot())
    return report
