"""``mesa director-password`` (:mod:`mesa.hub.web.cli`): the password from a prompt at a real
terminal (typed twice), a file, standard input or the environment, stored as a hash; never
from the command line."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mesa.cli import main
from mesa.hub.web.http.store import WebStore

ROOT = Path(__file__).resolve().parents[3]


def _checks(db: Path, user: str, password: str) -> bool:
    store = WebStore(db)
    try:
        return store.check_password(user, password)
    finally:
        store.close()


def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MESA_WEB_DIRECTOR_PASSWORD", raising=False)


def test_the_password_from_a_file_is_stored_as_a_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    _no_env(monkeypatch)
    db, pw = tmp_path / "hub.sqlite3", tmp_path / "pw.txt"
    pw.write_text("verde\n", encoding="utf-8")
    assert main(["director-password", "ana", "--password-file", str(pw), "--db", str(db)]) == 0
    assert _checks(db, "ana", "verde") and not _checks(db, "ana", "rojo")
    assert "verde" not in capsys.readouterr().out
    assert b"verde" not in db.read_bytes()


def test_the_password_from_the_environment_or_standard_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = tmp_path / "hub.sqlite3"
    monkeypatch.setenv("MESA_WEB_DIRECTOR_PASSWORD", "del-entorno")
    assert main(["director-password", "ana", "--db", str(db)]) == 0
    assert _checks(db, "ana", "del-entorno")
    _no_env(monkeypatch)
    done = subprocess.run(
        [sys.executable, "-m", "mesa", "director-password", "ana", "--password-file", "-",
         "--db", str(db)],
        input="de-la-tuberia\n", capture_output=True, text=True, cwd=ROOT, timeout=60,
        env={k: v for k, v in os.environ.items() if k != "MESA_WEB_DIRECTOR_PASSWORD"},
    )
    assert done.returncode == 0, done.stderr
    assert _checks(db, "ana", "de-la-tuberia")


def test_without_a_password_and_a_terminal_it_says_how_to_give_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    _no_env(monkeypatch)
    monkeypatch.setattr(sys, "stdin", open(os.devnull))  # noqa: SIM115 (closed by pytest)
    db = tmp_path / "hub.sqlite3"
    assert main(["director-password", "ana", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert "--password-file" in err and "MESA_WEB_DIRECTOR_PASSWORD" in err
    (tmp_path / "empty").write_text("\n", encoding="utf-8")
    assert main(["director-password", "ana", "--password-file", str(tmp_path / "empty"),
                 "--db", str(db)]) == 1
    assert "holds no password" in capsys.readouterr().err
    assert not db.exists() or not _checks(db, "ana", "")


def _at_a_terminal(argv: list[str], answers: list[str]) -> tuple[int, str]:
    """``python -m mesa <argv>`` with a real pseudo-terminal as its controlling terminal: each
    answer typed when the program next asks; its exit status and everything it showed."""
    env = {k: v for k, v in os.environ.items() if k != "MESA_WEB_DIRECTOR_PASSWORD"}
    pid, fd = pty.fork()
    if pid == 0:  # the child: the terminal's side
        os.chdir(ROOT)
        os.execve(sys.executable, [sys.executable, "-m", "mesa", *argv], env)
    shown, pending, deadline = b"", list(answers), time.monotonic() + 60
    asked = 0  # where the program's output since the last answer begins
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(fd, 1024)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                shown += chunk
            # getpass writes its prompt once it has flushed the terminal: answer after it.
            if pending and shown[asked:].rstrip().endswith(b":"):
                os.write(fd, pending.pop(0).encode() + b"\n")
                asked = len(shown)
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), shown.decode(errors="replace")


def test_at_a_terminal_the_password_is_asked_twice_and_not_echoed(tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite3"
    code, shown = _at_a_terminal(["director-password", "ana", "--db", str(db)],
                                 ["tecleada", "tecleada"])
    assert code == 0, shown
    assert "new password for ana:" in shown and "the same again:" in shown
    assert "tecleada" not in shown  # getpass: nothing echoed
    assert _checks(db, "ana", "tecleada")

    code, shown = _at_a_terminal(["director-password", "ana", "--db", str(db)],
                                 ["otra", "distinta"])
    assert code == 1 and "the two passwords differ" in shown
    assert _checks(db, "ana", "tecleada")  # nothing changed
