"""``mesa sim`` and ``mesa controller``: the same table on a laptop, in-process and as commands."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from controller_helpers import Recorder

from mesa.controller.app import TableApp, make_link
from mesa.controller.config import parse_config
from mesa.controller.games.backgammon.robots import FAST
from mesa.controller.sim import SimTable

ROOT = Path(__file__).resolve().parents[2]


def mesa(*args: str, timeout: float = 60, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mesa", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=stdin,
    )


def test_eight_simulated_tables_play_in_accelerated_time(tmp_path: Path) -> None:
    sims = [
        SimTable(f"t{i}", speed=100, seed=i, style=FAST, auto_assign=True, length=3, matches=1,
                 journal_dir=tmp_path / f"t{i}" if i % 2 else None, fsync=False)
        for i in range(8)
    ]  # fmt: skip
    for s in sims:
        s.start()
    try:
        assert all(s.wait_matches(1, timeout=60) for s in sims)
    finally:
        for s in sims:
            s.stop()
    assert {s.runtime.view().match_id for s in sims} == {f"t{i}-M1" for i in range(8)}


def test_a_simulator_with_a_journal_resumes_where_it_stopped(tmp_path: Path) -> None:
    first = SimTable("j", speed=100, seed=1, style=FAST, auto_assign=True, journal_dir=tmp_path)
    first.start()
    assert first.wait_matches(1, timeout=60)
    first.stop()
    second = SimTable("j", speed=100, seed=1, robots=(), journal_dir=tmp_path)
    assert second.restored and second.recovery is not None
    assert second.runtime.view().match_id == first.runtime.view().match_id
    second.stop()


def test_mesa_sim_headless_plays_matches_and_prints_status() -> None:
    r = mesa(
        "sim",
        "--headless",
        "--fast",
        "--speed",
        "200",
        "--matches",
        "1",
        "--status-every",
        "0.1",
        "--seed",
        "4",
        "--language",
        "en",
    )
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[0]["event"] == "start" and lines[0]["restored"] is False
    assert lines[-1]["event"] == "stop" and lines[-1]["matches"] == 1
    assert any(x["state"] == "running" for x in lines)


def test_mesa_sim_in_the_terminal_takes_keys() -> None:
    # Keys: a and l check both players in, a starts the game (a rolled lower), q quits.
    script = "a" + "l" + "a" + "q"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen(
        [sys.executable, "-m", "mesa", "sim", "--ui", "terminal", "--robots", "none",
         "--speed", "1", "--players", "Ana,Beto"],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env,
    )  # fmt: skip
    try:
        assert p.stdin is not None
        time.sleep(1.0)
        for ch in script:
            p.stdin.write(ch)
            p.stdin.flush()
            time.sleep(0.4)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    assert any("\u2800" < ch <= "\u28ff" for ch in out)  # the emulated OLED, in braille
    lines = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "\n", out).split("\n")
    assert max(len(line) for line in lines) <= 80  # it fits an 80-column terminal
    assert "keys:" in out and ("A ●" in out or "B ●" in out)  # an LED lit: someone on move


def test_mesa_controller_runs_a_dummy_table_until_sigterm(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text(
        '[table]\nid = "9"\n[display]\nmodel = "dummy"\n'
        f'[journal]\ndir = "{tmp_path / "journal"}"\n',
        encoding="utf-8",
    )
    p = subprocess.Popen(
        [sys.executable, "-m", "mesa", "controller", "--config", str(cfg)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not list((tmp_path / "journal").glob("journal-*.jsonl")):
            assert time.monotonic() < deadline and p.poll() is None
            time.sleep(0.05)
        p.terminate()
        _out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    assert "table 9 up" in err


def test_mesa_controller_refuses_a_bad_config(tmp_path: Path) -> None:
    cfg = tmp_path / "table.toml"
    cfg.write_text("[buttons]\na = 2\nb = 3\n", encoding="utf-8")  # the I2C pins
    r = mesa("controller", "--config", str(cfg))
    assert r.returncode == 2 and "i2c bus" in r.stderr


def test_the_hub_link_is_built_on_the_runtime_clock(tmp_path: Path) -> None:
    app = TableApp(parse_config('[display]\nmodel = "none"\n'))
    link = make_link(
        app.runtime, table_id="5", host="127.0.0.1", port=9, outbox=tmp_path / "outbox.sqlite3"
    )
    try:
        assert link.submitter is app.runtime
        assert link._clock == app.runtime.now  # hub commands share the buttons' clock
        rec = Recorder()
        app.runtime.add_sink(rec)
        assert link in app.runtime._sinks
    finally:
        link.stop()
        link.outbox.close()


def test_window_keys_are_button_edges_and_auto_repeat_is_bounce() -> None:
    from mesa.controller.games.backgammon.gestures import GestureRecognizer
    from mesa.controller.runtime import ManualClock, TableRuntime
    from mesa.controller.sim import WindowKeys
    from mesa.engine.inputs import Input

    clock = ManualClock()
    rec = Recorder()
    rt = TableRuntime(clock=clock, sinks=[rec], buttons=GestureRecognizer())
    rt.submit(
        Input("assign", {"match_id": "W", "players": {"a": "A", "b": "B"}, "length": 3,
                         "cards": {"a": "CA", "b": "CB"}}),
        0.0,
    )  # fmt: skip
    keys = WindowKeys(rt)
    clock.set(1.0)
    keys.key("a", "a", True)
    for k in range(10):  # X11 auto-repeat while the key is held: release/press 30 ms apart
        clock.set(1.0 + 0.03 * k + 0.01)
        keys.key("a", "a", False)
        keys.key("a", "a", True)
        rt.step()
    clock.set(1.5)
    keys.key("a", "a", False)
    clock.set(2.0)
    rt.step()
    keys.key("2", "2", True)  # b's card
    clock.set(2.1)
    rt.step()
    keys.key("", "Escape", True)
    assert [o.input.name for o in rec.outcomes if o.input.name != "tick"] == [
        "assign",
        "press",
        "card",
    ]
    assert rt.view().state == "between_games" and keys.stop.is_set()


def test_a_link_made_before_the_restore_reports_it(tmp_path: Path) -> None:
    first = SimTable("r", speed=100, seed=2, style=FAST, auto_assign=True, journal_dir=tmp_path)
    first.start()
    deadline = time.monotonic() + 30
    while first.runtime.view().state != "running" and time.monotonic() < deadline:
        time.sleep(0.01)
    first.stop()
    links: list[tuple[Recorder, dict]] = []

    def link(runtime, snapshot):  # type: ignore[no-untyped-def]
        rec = Recorder()
        links.append((rec, snapshot))
        runtime.add_sink(rec)
        rec.stop = lambda: None  # type: ignore[attr-defined]
        return rec

    again = SimTable("r", speed=100, robots=(), journal_dir=tmp_path, link=link)
    rec, snapshot = links[0]
    assert snapshot["match_id"] == "r-M1"  # the recovered table, before the pause
    assert [e.TYPE for e in rec.outcomes[0].events][-1] == "table.restored"
    again.stop()
