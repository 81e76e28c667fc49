"""The pieces both games' ``mesa sim`` share: the link each game gets, the start figures, the
headless loop's stopping rules."""

from __future__ import annotations

import argparse
import json
import threading
from types import SimpleNamespace
from typing import Any

import pytest

from mesa.controller import sim_shell
from mesa.controller.runtime import TableRuntime


def _args(**kw: Any) -> argparse.Namespace:
    base = {"link": None, "hub": None, "table_id": "7", "duration": None, "status_every": 0}
    return argparse.Namespace(**{**base, **kw})


@pytest.mark.parametrize("game", ["backgammon", "domino"])
def test_each_game_gets_the_link_of_its_runtime(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # One link for every game (the link reads the hub's messages in the runtime's game).
    calls: list[dict[str, Any]] = []
    seen: list[Any] = []

    def make(runtime: Any, **kw: Any) -> str:
        seen.append(runtime)
        calls.append(kw)
        return "link"

    monkeypatch.setattr("mesa.controller.app.make_link", make)
    monkeypatch.setenv("MESA_HUB_PASSWORD", "s3cret")
    factory = sim_shell.link_factory(_args(hub="10.0.0.2:8883"), "ob.sqlite3")
    runtime = TableRuntime(game=game)
    assert factory(runtime, {"snap": 1}) == "link"
    assert seen == [runtime] and runtime.game.name == game
    assert calls == [{
        "table_id": "7", "host": "10.0.0.2", "port": 8883, "link_file": None,
        "password": "s3cret", "outbox": "ob.sqlite3", "snapshot": {"snap": 1},
    }]  # fmt: skip


def test_no_hub_no_link() -> None:
    assert sim_shell.link_factory(_args(), "ob.sqlite3") is None


def test_start_info_says_what_was_restored() -> None:
    fresh = sim_shell.start_info(SimpleNamespace(recovery=None), started=0.0)
    assert fresh["restored"] is False and fresh["restore_ms"] is None
    rec = SimpleNamespace(problems=["line 3: bad crc"], seconds=0.0125)
    back = sim_shell.start_info(SimpleNamespace(recovery=rec), started=0.0)
    assert back["restored"] is True
    assert back["problems"] == ["line 3: bad crc"]
    assert back["restore_ms"] == 12.5


def test_headless_prints_start_and_stops_when_done(capsys: pytest.CaptureFixture[str]) -> None:
    rounds = iter([False, False, True])

    def line(event: str, **extra: Any) -> str:
        return json.dumps({"event": event, **extra})

    sim_shell.headless(
        _args(status_every=0.01), threading.Event(), line, {"restored": False}, lambda: next(rounds)
    )
    events = [json.loads(x)["event"] for x in capsys.readouterr().out.splitlines()]
    assert events == ["start", "status", "status"]


def test_headless_stops_on_a_signal(capsys: pytest.CaptureFixture[str]) -> None:
    stop = threading.Event()
    stop.set()
    sim_shell.headless(_args(), stop, lambda event, **_: event, {}, lambda: False)
    assert capsys.readouterr().out.splitlines() == ["start"]


def test_each_simulated_table_has_its_own_outbox_named_by_its_link(tmp_path: Any) -> None:
    """``mesa sim --link table-N.json`` without ``--table-id`` or ``--journal``: the table's id
    (and its outbox) come from the link file, not the shared default ``sim``."""
    links = []
    for n in (3, 4):
        link = tmp_path / f"table-{n}.json"
        link.write_text(json.dumps({"table": str(n), "hub": {"host": "127.0.0.1", "port": 1}}))
        links.append(link)
    boxes = [sim_shell.sim_outbox(_args(link=str(p), table_id=None, journal=None)) for p in links]
    # Each in its own journal folder, which a restarted simulator resumes from.
    assert [str(b) for b in boxes] == ["var/sim/3/outbox-3.sqlite3", "var/sim/4/outbox-4.sqlite3"]
    assert sim_shell.sim_journal(_args(link=None, hub=None, journal=None)) is None
    assert str(sim_shell.sim_journal(_args(link=None, journal="j"))) == "j"
    assert sim_shell.sim_table_id(_args(link=str(links[0]), table_id="9")) == "9"
    assert sim_shell.sim_table_id(_args(table_id=None)) == "sim"


def test_a_second_sim_on_the_same_table_in_one_folder_says_why_and_stops(tmp_path: Any) -> None:
    import subprocess
    import sys
    import time

    cmd = [sys.executable, "-m", "mesa", "sim", "--hub", "127.0.0.1:1", "--table-id", "5",
           "--headless"]
    first = subprocess.Popen([*cmd, "--duration", "30"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        lock = tmp_path / "var" / "sim" / "5" / "outbox-5.sqlite3.lock"
        while not lock.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        second = subprocess.run([*cmd, "--duration", "1"], cwd=tmp_path, capture_output=True,
                                text=True, timeout=60)
        assert second.returncode == 2, second
        assert "in use by another table program" in second.stderr
        assert "Traceback" not in second.stderr
        assert not [p for p in tmp_path.rglob("*damaged*")]
        assert first.poll() is None  # the first table plays on
    finally:
        first.terminate()
        first.wait(30)


def test_a_linked_sim_restarted_resumes_from_its_own_journal(tmp_path: Any) -> None:
    """A linked ``mesa sim`` without ``--journal`` once played from memory: restarted, its
    match began again at 0–0. It keeps ``var/sim/<table>`` now, and resumes from it."""
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "mesa", "sim", "--hub", "127.0.0.1:1", "--table-id", "6",
           "--headless", "--duration", "1"]
    runs = [subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=60)
            for _ in range(2)]
    starts = [json.loads(r.stdout.splitlines()[0]) for r in runs]
    assert [s["restored"] for s in starts] == [False, True], runs
    assert (tmp_path / "var" / "sim" / "6").is_dir()
