"""``mesa replay`` on domino logs: the scripted games in docs/examples, through the real command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def replay(name: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "mesa", "replay", str(EXAMPLES / name)],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    assert report["game"] == "domino"
    assert all(s["accepted"] for s in report["steps"]), [
        s for s in report["steps"] if not s["accepted"]]
    return report


def events(report: dict[str, Any], type_name: str) -> list[dict[str, Any]]:
    return [e["data"] for s in report["steps"] for e in s["events"] if e["type"] == type_name]


def test_a_game_ended_by_200_points_with_the_sheet_signed() -> None:
    r = replay("domino_200_points.jsonl")
    hands = events(r, "domino.hand.ended")
    assert [(h["pair"], h["points"]) for h in hands] == [("ew", 85), ("ns", 120), ("ew", 118)]
    assert [h["how"] for h in hands] == ["domino"] * 3
    assert events(r, "domino.game.ended") == [{"winner": "ew", "how": "points",
                                               "score": {"ns": 120, "ew": 203},
                                               "games_won": {"ns": 0, "ew": 1}, "hands": 3,
                                               "absent": [], "expelled": []}]
    assert [s["complete"] for s in events(r, "domino.sheet.signed")] == [False, True]
    final = r["final"]
    assert final["state"] == "game_over" and final["signed"] == {"ns": "n", "ew": "w"}
    assert final["prompt"] is None
    # The lead rotated to the right: n, w, s.
    assert [h["lead"] for h in events(r, "domino.hand.started")] == ["n", "w", "s"]


def test_time_with_the_hand_in_progress_makes_it_the_last() -> None:
    r = replay("domino_time_hand_in_progress.jsonl")
    assert events(r, "domino.time.called") == [{"hand": 3, "final_hand": 3, "in_progress": True}]
    end = events(r, "domino.game.ended")[0]
    assert (end["winner"], end["how"], end["hands"], end["score"]) == (
        "ns", "time", 3, {"ns": 40, "ew": 35})


def test_time_while_counting_plays_one_more_hand() -> None:
    r = replay("domino_time_counting.jsonl")
    assert events(r, "domino.time.called") == [{"hand": 2, "final_hand": 3, "in_progress": False}]
    end = events(r, "domino.game.ended")[0]
    assert (end["winner"], end["how"], end["hands"], end["score"]) == (
        "ew", "time", 3, {"ns": 40, "ew": 52})


def test_a_tie_at_time_plays_another_hand() -> None:
    r = replay("domino_time_tie.jsonl")
    assert events(r, "domino.time.called") == [{"hand": 2, "final_hand": 2, "in_progress": True}]
    assert events(r, "domino.time.extended") == [{"final_hand": 3, "score": {"ns": 30, "ew": 30}}]
    end = events(r, "domino.game.ended")[0]
    assert (end["winner"], end["how"], end["hands"], end["score"]) == (
        "ns", "time", 3, {"ns": 45, "ew": 30})


def test_a_tied_block_gives_nobody_the_hand_and_the_lead_rotates() -> None:
    r = replay("domino_tied_block.jsonl")
    over = events(r, "domino.hand.over")
    assert over[1] == {"hand": 2, "how": "block", "seat": "s"}
    tied = events(r, "domino.hand.ended")[1]
    assert tied["pair"] is None and tied["points"] == 0 and tied["score"] == {"ns": 20, "ew": 0}
    assert [h["lead"] for h in events(r, "domino.hand.started")] == ["n", "w", "s"]
    assert r["final"]["state"] == "playing" and r["final"]["hand"] == 3


def test_late_pass_and_slow_plays() -> None:
    r = replay("domino_timer_penalties.jsonl")
    assert events(r, "domino.play.warning") == [{"seat": "w", "seconds": 16.0, "limit": 15.0}]
    pens = [(p["seat"], p["points"], p["reason"], p["offender"])
            for p in events(r, "domino.penalty")]
    assert pens == [("e", 25, "late_pass", "s"), ("w", 25, "late_pass", "s"),
                    ("w", -25, "slow_play", "w")]
    final = r["final"]
    # Noted per player for the screen; the game's score is its hands' (none yet).
    assert final["score"] == {"ns": 0, "ew": 0}
    assert final["player_points"] == {"n": 0, "e": 25, "s": 0, "w": 0}
    assert final["warnings"]["w"] == 1


def test_an_absence() -> None:
    r = replay("domino_absence.jsonl")
    assert events(r, "domino.absence") == [{"absent": ["s"], "winner": "ew"}]
    assert events(r, "domino.penalty") == [{"seat": "s", "points": -100, "reason": "absent",
                                            "offender": "s", "hand": 0}]
    final = r["final"]
    assert (final["state"], final["winner"], final["ended_by"]) == ("game_over", "ew", "absence")
    assert final["score"] == {"ns": 0, "ew": 0} and final["games_won"] == {"ns": 0, "ew": 1}
    assert final["player_points"]["s"] == -100


def test_a_block_dispute_is_settled_for_the_real_winner() -> None:
    """The issue's case: ns claim the block's 45, ew refuse and claim it for 10, ns confirm."""
    r = replay("domino_block_dispute.jsonl")
    assert events(r, "domino.hand.over") == [{"hand": 1, "how": "block", "seat": "s"}]
    assert [(c["by"], c["pair"], c["points"]) for c in events(r, "domino.hand.claimed")] == [
        ("n", "ns", 45), ("e", "ew", 10)]
    assert events(r, "domino.hand.rejected") == [{"hand": 1, "by": "e"}]
    assert events(r, "domino.hand.ended") == [{"hand": 1, "how": "block", "pair": "ew",
                                               "points": 10, "confirmed_by": "n",
                                               "score": {"ns": 0, "ew": 10}}]
    assert r["final"]["state"] == "ready" and r["final"]["next_lead"] == "w"


def test_a_late_arrival_is_noted_and_changes_nothing_else() -> None:
    r = replay("domino_late_arrival.jsonl")
    assert events(r, "domino.player.late") == [{"seat": "s", "hand": 0}]
    assert not events(r, "domino.penalty")  # the first is only recorded; the hub fines a second
    assert events(r, "domino.hand.ended")[0]["score"] == {"ns": 33, "ew": 0}


def test_an_annulled_hand_scores_nothing_and_the_lead_rotates() -> None:
    r = replay("domino_annulled_hand.jsonl")
    assert events(r, "domino.hand.annulled") == [{"hand": 2, "seat": "s", "reason": "chivo",
                                                  "score": {"ns": 20, "ew": 0}}]
    assert [h["lead"] for h in events(r, "domino.hand.started")] == ["n", "w", "s"]
    final = r["final"]
    assert final["state"] == "playing" and final["hand"] == 3
    assert final["score"] == {"ns": 20, "ew": 0}


def test_an_unsigned_sheet_is_reported_before_the_next_game() -> None:
    r = replay("domino_unsigned_sheet.jsonl")
    assert events(r, "domino.game.ended")[0]["score"] == {"ns": 0, "ew": 215}
    assert events(r, "domino.sheet.signed") == [{"pair": "ew", "seat": "w", "complete": False}]
    last = r["steps"][-1]
    assert [e["type"] for e in last["events"]] == ["domino.sheet.unsigned",
                                                   "domino.table.assigned"]
    assert last["events"][0]["data"] == {"game_id": "R1-M2", "pairs": ["ns"]}
    assert r["final"]["state"] == "assigned" and r["final"]["unsigned_before"] == ["ns"]


def test_an_abandonment_ends_the_game_for_the_other_pair() -> None:
    r = replay("domino_abandonment.jsonl")
    assert events(r, "domino.player.expelled") == [{"seat": "n", "reason": "abandoned"}]
    assert events(r, "domino.game.ended") == [{"winner": "ew", "how": "expulsion",
                                               "score": {"ns": 0, "ew": 30},
                                               "games_won": {"ns": 0, "ew": 1}, "hands": 1,
                                               "absent": [], "expelled": ["n"]}]
    final = r["final"]
    # The −200 is noted on n for the screen; the awards of the other three are the hub's.
    assert final["player_points"] == {"n": -200, "e": 0, "s": 0, "w": 0}
    assert final["signed"] == {"ew": "e", "ns": "s"} and final["prompt"] is None


def test_backgammon_logs_with_or_without_a_header(tmp_path: Path) -> None:
    line = '{"t": 0, "input": "assign", "match_id": "x", "players": {"a": "A", "b": "B"}, "length": 1}'
    for header, code in (("", 0), ('{"game": "backgammon"}\n', 0), ('{"game": "chess"}\n', 1)):
        path = tmp_path / "log.jsonl"
        path.write_text(header + line + "\n", encoding="utf-8")
        result = subprocess.run([sys.executable, "-m", "mesa", "replay", str(path)],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == code, result.stderr
        report = json.loads(result.stdout)
        assert "game" not in report and report["final"]["state"] == "assigned"
        if code:
            assert "unknown game 'chess'" in result.stderr
