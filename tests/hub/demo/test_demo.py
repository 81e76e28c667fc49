"""``make demo`` end to end: ``python -m mesa demo`` in a child process, watched through the JSON
twins until tables play and results reach the groups and the draw, then stopped with Ctrl-C."""

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
PLAYING = ("checking_in", "between_games", "running", "cube_offered", "paused", "result_entry")


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.broker
def test_make_demo_plays_a_tournament_within_30_s_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    port = free_port()
    workdir = tmp_path / "demo"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mesa", "demo", "--port", str(port), "--dir", str(workdir)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True
    )  # type: ignore[union-attr]
    reader.start()
    broker_pid = None
    try:
        base = f"http://127.0.0.1:{port}"
        seen = {"address": False, "playing": False, "results": False, "draw": False}
        while time.monotonic() - started < 30 and not all(seen.values()):
            time.sleep(0.5)
            assert proc.poll() is None, "".join(lines)
            seen["address"] = any(base in line for line in lines)
            if not seen["address"]:
                continue
            try:
                live = _get(base + "/live.json")
                groups = _get(base + "/groups.json")
                draw = _get(base + "/draw.json")
            except OSError:
                continue
            seen["playing"] |= len(live["tables"]) == 8 and any(
                t["state"] in PLAYING for t in live["tables"]
            )
            seen["results"] |= (
                sum(1 for g in groups["groups"] for m in g["matches"] if m["score"]) >= 8
            )
            # the evening's two events: the draw of either (each section, else the one shown)
            brackets = [x["bracket"] for x in draw.get("sections") or [draw]]
            seen["draw"] |= any(
                m["score"] for b in brackets if b for r in b["rounds"] for m in r["matches"]
            )
        elapsed = time.monotonic() - started
        assert all(seen.values()), (seen, elapsed, "".join(lines))
        # The evening's two events on the same tables: the open (24 players) and the novatos
        # (8, and two open players who play both).
        events = {e["category"]: e["id"] for e in live["open_events"]}
        assert set(events) == {"open", "novatos"}, live["open_events"]
        for category, entrants in (("open", 24), ("novatos", 10)):
            one = _get(base + f"/live.json?t={events[category]}")
            assert one["tournament"]["entrants"] == entrants
        page = urllib.request.urlopen(base + "/live", timeout=5).read().decode()
        assert "Mesa 8" in page and 'data-stream="/events' in page
        broker_pid = int((workdir / "broker" / "mosquitto.pid").read_text().strip())
        assert _alive(broker_pid)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0, "".join(lines)
        reader.join(5)
        out = "".join(lines)
        assert "Parando…" in out and "Listo." in out
        assert "Traceback" not in out, out
        # Each stage was said as it began, before the address (a Pi takes a while to start).
        stages = [line for line in out.splitlines() if line[:4] in ("1/4 ", "2/4 ", "3/4 ", "4/4 ")]
        assert [s[:3] for s in stages] == ["1/4", "2/4", "3/4", "4/4"], out
        assert out.index("4/4 ") < out.index(base)
        # Everything the demo started has stopped: the broker, the web server's port.
        assert not _alive(broker_pid)
        with pytest.raises(OSError):
            urllib.request.urlopen(base + "/live.json", timeout=2)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        if broker_pid is not None and _alive(broker_pid):
            os.kill(broker_pid, signal.SIGKILL)


@pytest.mark.broker
def test_mesa_web_serves_the_hub_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    port = free_port()
    env = dict(
        os.environ,
        PYTHONUNBUFFERED="1",
        MESA_HUB_DB=str(tmp_path / "hub.sqlite3"),
        MESA_HUB_BROKER_DIR=str(tmp_path / "broker"),
        MESA_HUB_BROKER_PORT=str(free_port()),
        MESA_WEB_DIRECTOR_PASSWORD="s3creto",
        MESA_WEB_LANGUAGE="en",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "mesa", "web", "--embedded-broker", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        health = None
        while time.monotonic() < deadline and health is None:
            time.sleep(0.2)
            assert proc.poll() is None
            try:
                health = _get(base + "/healthz")
            except OSError:
                continue
        assert health is not None and health["hub_online"] is True
        page = urllib.request.urlopen(base + "/live", timeout=5).read().decode()
        assert "Live tables" in page  # MESA_WEB_LANGUAGE=en
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@pytest.mark.broker
def test_the_demo_starts_the_next_tournament_when_one_ends(tmp_path: Path) -> None:
    """A tiny evening at high speed (an open and a novatos tournament on the same two tables,
    two players in both) ends, is closed, and the season goes on with the next evening."""
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    from mesa.hub.demo.run import Demo, DemoConfig

    cfg = DemoConfig(
        tables=2,
        players=4,
        novatos=2,
        speed=400.0,
        port=0,
        workdir=tmp_path / "demo",
        history=False,
        pause=0.0,
    )
    demo = Demo(cfg).start()
    try:
        deadline = time.monotonic() + 240  # a bound on a broken demo, not a timing assertion
        while demo.played < 1 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert demo.played >= 1

        def season(club: Any) -> list[tuple[str, str]]:
            return sorted((t.id, t.phase) for t in club.tournaments.values())

        phases = demo.web.desk.read(season)
        assert len(phases) == 4, phases  # two evenings of two events each
        assert [p for _, p in phases[:2]] == ["closed", "closed"]
        assert all(p != "closed" for _, p in phases[2:])
        first, novatos = phases[0][0], phases[1][0]
        assert novatos == f"{first}-novatos"
        live = _get(demo.url.rstrip("/") + "/live.json")
        assert live["tournament"]["id"] in {tid for tid, _ in phases[2:]}
    finally:
        demo.stop()


def test_the_demo_game_option_names_every_registered_game_and_both() -> None:
    import argparse

    from mesa.games.registry import names
    from mesa.hub.demo.run import add_arguments, config_from

    p = argparse.ArgumentParser()
    add_arguments(p)
    assert config_from(p.parse_args([])).games() == ("backgammon",)
    assert config_from(p.parse_args(["--game", "domino"])).games() == ("domino",)
    assert config_from(p.parse_args(["--game", "both"])).games() == names()
    with pytest.raises(SystemExit):
        p.parse_args(["--game", "chess"])


def test_the_demo_password_comes_from_a_file_or_the_environment_else_the_demos(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import argparse

    from mesa.errors import ConfigError
    from mesa.hub.demo.run import add_arguments, config_from

    p = argparse.ArgumentParser()
    add_arguments(p)
    monkeypatch.delenv("MESA_WEB_DIRECTOR_PASSWORD", raising=False)
    assert config_from(p.parse_args([])).password == "mesa"  # printed, and on the login page
    monkeypatch.setenv("MESA_WEB_DIRECTOR_PASSWORD", "del-entorno")
    assert config_from(p.parse_args([])).password == "del-entorno"
    (tmp_path / "pw").write_text("del-fichero\n", encoding="utf-8")
    assert config_from(p.parse_args(["--password-file", str(tmp_path / "pw")])).password == (
        "del-fichero")
    with pytest.raises(ConfigError, match="cannot read the password file"):
        config_from(p.parse_args(["--password-file", str(tmp_path / "missing")]))


@pytest.mark.broker
def test_both_rooms_run_side_by_side_and_stop(tmp_path: Path) -> None:
    """``--game both``: the backgammon room's tables and the domino room's, on one hub."""
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    from mesa.hub.demo.run import Demo, DemoConfig

    cfg = DemoConfig(
        game="both", tables=2, players=4, novatos=0, domino_tables=1, domino_rounds=1, speed=200.0,
        port=0, workdir=tmp_path / "demo", history=False,
    )
    demo = Demo(cfg).start()
    try:
        assert set(demo.rooms) == {"backgammon", "domino"}
        base = demo.url.rstrip("/")
        deadline = time.monotonic() + 60  # a bound on a broken demo, not a timing assertion
        kinds: set[tuple[str, str]] = set()
        while time.monotonic() < deadline and len(kinds) < 3:
            time.sleep(0.5)
            live = _get(base + "/live.json")
            kinds = {(c["id"], c["kind"]) for c in live["tables"] if c["link"] == "online"}
        assert {("1", "backgammon"), ("2", "backgammon"), ("d1", "domino")} <= kinds, kinds
    finally:
        demo.stop()
    assert demo.rooms == {} and demo.hub is None
