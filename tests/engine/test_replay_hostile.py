"""``mesa replay`` meets hostile lines: it refuses each with its line number and prints strict JSON.

Each case once crashed the parser, hung the table or printed ``NaN`` (not JSON).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.engine.inputs import InputError
from mesa.engine.replay import parse_line
from mesa.games.backgammon.inputs import INPUT_SPECS, RANGES, parse_input
from mesa.games.backgammon.machine import Table
from mesa.games.replay import replay_lines

ASSIGN = {
    "t": 0,
    "input": "assign",
    "match_id": "M1",
    "players": {"a": "Ana", "b": "Beto"},
    "length": 3,
}


def _strict(text: str) -> Any:
    def no_constant(name: str) -> Any:
        raise AssertionError(f"{name} in the output")

    return json.loads(text, parse_constant=no_constant)


def run(tmp_path: Path, lines: list[str]) -> tuple[int, dict[str, Any], str]:
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    result = subprocess.run(
        [sys.executable, "-m", "mesa", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return result.returncode, _strict(result.stdout), result.stderr


def test_hostile_lines_are_refused_with_their_line_number(tmp_path: Path) -> None:
    lines = [
        json.dumps(ASSIGN),
        '{"t": 1, "input": "checkin", "side": "a", "x": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"t": 1' + "0" * 400 + ', "input": "tick"}',
        '{"t": 1, "input": "card", "card": "\\ud800"}',
        '{"t": NaN, "input": "tick"}',
        '{"t": 1, "input": "director_adjust", "side": "a", "seconds": Infinity}',
        '{"t": 1e400, "input": "tick"}',
        '{"t": 2, "input": "tick"}',
    ]
    code, report, err = run(tmp_path, lines)
    assert code == 1
    errors = {s["line"]: s["error"] for s in report["steps"] if "error" in s}
    assert set(errors) == {2, 3, 4, 5, 6, 7}
    assert "nested deeper" in errors[2]
    assert "characters" in errors[3] or "digits" in errors[3]
    assert "surrogate" in errors[4]
    assert "NaN" in errors[5] and "Infinity" in errors[6]
    assert all(errors[n].startswith(f"line {n}:") for n in errors)
    assert report["final"]["state"] == "assigned"  # the good lines around them still applied
    assert err.count("mesa replay: line") == 6


def test_lateness_out_of_range_is_refused_not_walked(tmp_path: Path) -> None:
    """``minutes_per_point: 1e-300`` then a check-in used to never return; ``-1e10`` took 20 s;
    ``-1e308`` raised OverflowError outside the machine's guard."""
    lines = [
        json.dumps({**ASSIGN, "minutes_per_point": 1e-300, "scheduled_start": 0}),
        json.dumps({"t": 1, "input": "checkin", "side": "a"}),
        json.dumps({**ASSIGN, "t": 2, "scheduled_start": -1e10}),
        json.dumps({**ASSIGN, "t": 3, "scheduled_start": -1e308}),
        json.dumps({**ASSIGN, "t": 4, "scheduled_start": -1e9}),
        json.dumps({"t": 5, "input": "checkin", "side": "a"}),
        json.dumps({"t": 1e9, "input": "tick"}),
    ]
    code, report, _ = run(tmp_path, lines)
    assert code == 0
    refused = {s["line"]: s["refused"] for s in report["steps"] if "refused" in s}
    assert refused[1]["code"] == refused[3]["code"] == refused[4]["code"] == "out_of_range"
    assert "minutes_per_point" in refused[1]["reason"]
    assert "scheduled_start" in refused[3]["reason"]
    # A start 1e9 s back is in range and costs nothing: a forfeit by lateness, arithmetically.
    assert report["final"]["state"] == "match_over" and report["final"]["winner"] == "a"


def test_director_adjust_out_of_range_is_refused() -> None:
    t = Table()
    t.apply("director_adjust", {"side": "a", "seconds": 1e300}, now=0.0)
    out = t.apply("director_adjust", {"side": "a", "seconds": 1e300}, now=0.0)
    assert out.refusal is not None and out.refusal.code == "out_of_range"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300)
@given(st.text(max_size=200))
def test_parse_line_never_raises_but_value_error(text: str) -> None:
    try:
        t, name, args = parse_line(text, 7)
    except ValueError as e:
        assert str(e).startswith("line 7:")
    else:
        assert math.isfinite(t) and isinstance(name, str) and isinstance(args, dict)


@settings(max_examples=200)
@given(
    st.dictionaries(
        st.sampled_from(["t", "input", "side", "seconds", "card", "x"]), json_values, max_size=5
    )
)
def test_replay_of_any_object_is_strict_json(obj: dict[str, Any]) -> None:
    line = json.dumps(obj, allow_nan=True)
    report = replay_lines([json.dumps(ASSIGN), line])
    json.dumps(report, allow_nan=False).encode("utf-8")  # raises on NaN or a lone surrogate


@settings(max_examples=200)
@given(mpp=st.floats(allow_nan=False), start=st.floats(allow_nan=False), now=st.floats(0, 1e9))
def test_any_assignment_then_check_in_returns(mpp: float, start: float, now: float) -> None:
    """Whatever the numbers, an assignment and a check-in return, accepted or refused with a
    reason; nothing raises."""
    t = Table()
    args = {
        **{k: v for k, v in ASSIGN.items() if k not in ("t", "input")},
        "minutes_per_point": mpp,
        "scheduled_start": start,
    }
    out = t.apply("assign", args, now=0.0)
    assert out.accepted or (out.refusal is not None and out.refusal.code)
    t.apply("checkin", {"side": "a"}, now=now)
    t.apply("tick", {}, now=now + 3600)


@settings(max_examples=300)
@given(
    name=st.sampled_from(sorted(INPUT_SPECS)),
    args=st.dictionaries(
        st.sampled_from(
            [
                "side",
                "card",
                "seconds",
                "scheduled_start",
                "minutes_per_point",
                "match_id",
                "players",
                "length",
                "suppressed",
                "winner",
                "kind",
                "x",
            ]
        ),
        json_values,
        max_size=4,
    ),
)
def test_parse_input_refuses_with_a_reason_or_returns_checked_values(
    name: str, args: dict[str, Any]
) -> None:
    """Any input name with any JSON arguments: an :class:`Input` whose numbers are in range,
    or :class:`InputError` with a code; never another exception, and the machine never raises."""
    try:
        inp = parse_input(name, args)
    except InputError as e:
        assert e.code in ("bad_input", "out_of_range") and str(e).startswith(name)
    else:
        for key, (low, high) in RANGES.items():
            value = inp.args.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                assert low <= value <= high
    out = Table().apply(name, args, now=0.0)
    assert out.refusal is None or out.refusal.code != "internal_error"


def test_a_first_line_nested_thousands_deep_is_refused_not_a_traceback(tmp_path: Path) -> None:
    # The first line is read as a possible header ({"game": …}) before anything else.
    code, report, err = run(tmp_path, ["[" * 5000 + "]" * 5000, '{"t": 1, "input": "tick"}'])
    assert code == 1
    assert report["steps"][0]["error"].startswith("line 1: nested deeper")
    assert "Traceback" not in err and "RecursionError" not in err
