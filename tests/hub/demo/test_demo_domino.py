"""``mesa demo --game domino`` end to end: robot domino tables play a pairs tournament the hub
runs (rounds, "TIEMPO", games recorded from the tables), watched through the JSON twins, then
stopped with Ctrl-C."""

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


@pytest.mark.broker
def test_the_domino_demo_plays_a_pairs_tournament_to_its_final_list(tmp_path: Path) -> None:
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
    data: Any = None
    try:
        deadline = time.monotonic() + 240  # bounded; about 40 s on a quiet machine
        while time.monotonic() < deadline:
            time.sleep(1.0)
            assert proc.poll() is None, "".join(lines)
            try:
                data = _get(base + "/domino.json")
            except OSError:
                continue
            if data["tournament"] and data["tournament"]["phase"] == "closed":
                break
        assert data and data["tournament"]["phase"] == "closed", (data, "".join(lines))
        assert len(data["rounds"]) == 2
        games = [g for r in data["rounds"] for g in r["games"]]
        assert len(games) == 4 and all(g["status"] == "ended" for g in games)
        assert all(r["tiempo"] for r in data["rounds"])
        first = {frozenset((g["ns"], g["ew"])) for g in data["rounds"][0]["games"]}
        second = {frozenset((g["ns"], g["ew"])) for g in data["rounds"][1]["games"]}
        assert not first & second  # no rematch
        rows = data["standings"]
        assert sum(r["won"] for r in rows) == sum(
            1 for g in games if g["winner"] is not None)
        keys = [(r["won"], r["points"]) for r in rows]
        assert keys == sorted(keys, reverse=True)
        live = _get(base + "/live.json")
        assert {c["id"] for c in live["tables"] if c["kind"] == "domino"} == {"d1", "d2"}
        csv_text = urllib.request.urlopen(base + "/domino/final.csv", timeout=5).read().decode()
        assert csv_text.lstrip("\ufeff").startswith("puesto;pareja")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0, "".join(lines)
        reader.join(5)
        assert "Traceback" not in "".join(lines)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
