"""``mesa replay``: scripted matches from docs/examples, run through the real command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def replay(name: str) -> tuple[int, dict[str, Any], str]:
    result = subprocess.run(
        [sys.executable, "-m", "mesa", "replay", str(EXAMPLES / name)],
        capture_output=True, text=True, timeout=60,
    )
    return result.returncode, json.loads(result.stdout), result.stderr


def events(report: dict[str, Any]) -> list[str]:
    return [e["type"] for s in report["steps"] for e in s.get("events", [])]


def step(report: dict[str, Any], line: int) -> dict[str, Any]:
    return next(s for s in report["steps"] if s["line"] == line)


def test_hgv_7_3_2_crawford_post_crawford_and_double_match_point() -> None:
    code, r, _ = replay("crawford_hgv_7_3_2.jsonl")
    assert code == 0
    games = [e["data"] for s in r["steps"] for e in s["events"] if e["type"] == "game.ended"]
    assert [g["score"] for g in games] == [
        {"a": 4, "b": 0}, {"a": 4, "b": 2}, {"a": 4, "b": 3}, {"a": 4, "b": 4}, {"a": 5, "b": 4}]
    starts = [e["data"] for s in r["steps"] for e in s["events"] if e["type"] == "game.started"]
    assert [g["crawford"] for g in starts] == [False, True, False, False, False]
    # In the Crawford game (4–0) nobody doubles, with the CUBE button or otherwise.
    assert step(r, 13)["refused"]["code"] == step(r, 14)["refused"]["code"] == "crawford"
    # At 4–3 the cube is back: b doubles, a passes: 4–4.
    assert step(r, 23)["accepted"] and games[3]["how"] == "pass"
    # At 4–4 nobody doubles.
    assert step(r, 26)["refused"]["code"] == step(r, 28)["refused"]["code"] == "double_match_point"
    # A result that doesn't fit the cube is refused.
    assert step(r, 30)["refused"]["code"] == "bad_points"
    assert r["final"]["state"] == "match_over" and r["final"]["winner"] == "a"


def test_timeout_loses_the_match() -> None:
    code, r, _ = replay("timeout_lose_match.jsonl")
    assert code == 0
    late = step(r, 5)
    assert late["refused"]["code"] == "flag_fell"
    assert [e["type"] for e in late["events"]] == ["clock.flag_fell", "match.ended"]
    assert late["events"][1]["data"] == {"winner": "a", "score": {"a": 3, "b": 0}, "how": "timeout"}


def test_timeout_with_overtime() -> None:
    code, r, _ = replay("timeout_overtime.jsonl")
    assert code == 0
    first = step(r, 5)
    assert [e["type"] for e in first["events"]] == [
        "clock.flag_fell", "clock.overtime", "clock.paused", "director.called"]
    assert step(r, 8)["accepted"] and step(r, 9)["accepted"]
    assert r["final"]["state"] == "match_over" and r["final"]["ended_by"] == "timeout"
    assert r["final"]["winner"] == "a"


def test_timeout_with_penalty_points() -> None:
    code, r, _ = replay("timeout_penalty_points.jsonl")
    assert code == 0
    penalty = next(e["data"] for e in step(r, 5)["events"] if e["type"] == "clock.penalty")
    assert penalty == {"side": "b", "points": 2, "reserve": 300.0, "grace": False,
                       "frozen_cube": True}
    assert step(r, 9)["refused"]["code"] == "cube_frozen"
    assert r["final"]["score"] == {"a": 3, "b": 0}


def test_bad_lines_are_reported_and_change_nothing() -> None:
    code, r, stderr = replay("bad_input.jsonl")
    assert code == 1
    errors = [s for s in r["steps"] if "error" in s]
    assert [s["line"] for s in errors] == [2, 3, 4, 5, 6]
    assert all(s["error"].startswith(f"line {s['line']}: ") for s in errors)
    assert "line 2: not valid JSON" in stderr
    refused = {s["line"]: s["refused"]["code"] for s in r["steps"] if "refused" in s}
    assert refused == {7: "bad_input", 8: "bad_input", 9: "bad_input", 11: "time_backwards",
                       14: "bounce", 15: "simultaneous", 16: "not_on_move", 17: "not_on_move",
                       18: "bad_input"}
    assert r["final"]["state"] == "running"


def test_missing_file_and_stdin(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "mesa", "replay", str(tmp_path / "nope")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "cannot read" in result.stderr
    line = '{"t": 0, "input": "assign", "match_id": "x", "players": {"a": "A", "b": "B"}, "length": 1}'
    result = subprocess.run([sys.executable, "-m", "mesa", "replay", "-"], input=line,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and json.loads(result.stdout)["final"]["state"] == "assigned"
