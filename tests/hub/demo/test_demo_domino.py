"""``mesa demo --game domino`` end to end: robot domino tables play a fixed-pairs event and an
individual event the hub runs at once (rounds, "TIEMPO", games recorded from the tables, a few
fines and an absence on the players' records), watched through the JSON twins, then stopped
with Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from mesa.hub.broker.mosquitto import free_port
from support.mosquitto import have_mosquitto

ROOT = Path(__file__).resolve().parents[3]


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def _closed(base: str, tid: str) -> Any:
    try:
        data = _get(f"{base}/domino.json?t={tid}")
    except OSError:
        return None
    return data if data["tournament"] and data["tournament"]["phase"] == "closed" else None


@pytest.mark.broker
def test_the_domino_demo_plays_both_formats_to_their_final_lists(tmp_path: Path) -> None:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mesa", "demo", "--game", "domino", "--port", str(port),
         "--dir", str(tmp_path / "demo"), "--speed", "120", "--domino-tables", "2",
         "--domino-rounds", "2"],
        cwd=ROOT, env=dict(os.environ, PYTHONUNBUFFERED="1"), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.extend(iter(proc.stdout.readline, "")),  # type: ignore[union-attr]
        daemon=True,
    )
    reader.start()
    base = f"http://127.0.0.1:{port}"
    done: dict[str, Any] = {}
    try:
        deadline = time.monotonic() + 240  # bounded; about 40 s on a quiet machine
        while time.monotonic() < deadline and len(done) < 2:
            time.sleep(1.0)
            assert proc.poll() is None, "".join(lines)
            for tid in ("D1", "D2"):
                if tid not in done and (data := _closed(base, tid)) is not None:
                    done[tid] = data
        assert len(done) == 2, (done, "".join(lines))
        pairs, solo = done["D1"], done["D2"]
        assert (pairs["tournament"]["format"], solo["tournament"]["format"]) == (
            "pairs", "individual")
        for data in (pairs, solo):
            assert len(data["rounds"]) == 2
            games = [g for r in data["rounds"] for g in r["games"]]
            assert games and all(g["status"] == "ended" for g in games)
            assert all(r["tiempo"] for r in data["rounds"])
        # fixed pairs: three pairs on one table, a bye each round, no rematch
        first = {frozenset((g["ns"], g["ew"])) for g in pairs["rounds"][0]["games"]}
        second = {frozenset((g["ns"], g["ew"])) for g in pairs["rounds"][1]["games"]}
        assert not first & second
        assert all(r["bye"] for r in pairs["rounds"])
        rows = pairs["standings"]
        # a pair's line is its two players' records added
        for r in rows:
            assert r["won"] == sum(p["won"] for p in r["records"])
            assert r["points"] == sum(p["points"] for p in r["records"])
        keys = [(r["won"], r["points"]) for r in rows]
        assert keys == sorted(keys, reverse=True)
        steps = {e["step"] for e in pairs["entries"]}
        assert {"talking_first", "talking_second", "late_first"} <= steps, steps
        # individual: five players on one table, one sits out each round; an absence
        assert all(len(r["sitting_out"]) == 1 for r in solo["rounds"])
        keys = [(r["won"], r["points"]) for r in solo["standings"]]
        assert keys == sorted(keys, reverse=True)
        reasons = {e["reason"] for e in solo["entries"]}
        assert {"talking", "wrong_lead", "absent", "absence_award"} <= reasons, reasons
        # the absence the director declared at the second round: the table ended that game
        # (its result gives no win: the present players' wins are the absence's awards)
        assert solo["rounds"][1]["games"][0]["how"] == "absence"
        awarded = [e for e in solo["entries"] if e["reason"] == "absence_award"]
        assert len(awarded) == 3 and all(e["games"] == 1 and e["points"] == 100
                                         for e in awarded)
        live = _get(base + "/live.json")
        assert {c["id"] for c in live["tables"] if c["kind"] == "domino"} == {"d1", "d2"}
        for tid, head in (("D1", "puesto;pareja"), ("D2", "puesto;jugador")):
            text = urllib.request.urlopen(f"{base}/domino/final.csv?t={tid}",
                                          timeout=5).read().decode()
            assert text.startswith("\ufeff" + head)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0, "".join(lines)
        reader.join(5)
        assert "Traceback" not in "".join(lines)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
