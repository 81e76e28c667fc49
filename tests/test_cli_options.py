""":mod:`mesa.cli_options`: defaults shown one way, the shared options' old names, and password
files read the way a person writes them (with or without a final newline, Windows line ends)."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from mesa.cli_options import (
    HelpFormatter,
    add_command,
    add_language,
    default_text,
    read_password,
    read_password_file,
    shown_default,
)
from mesa.errors import ConfigError


def test_defaults_are_shown_only_when_there_is_one_to_show() -> None:
    p = argparse.ArgumentParser(prog="mesa x", formatter_class=HelpFormatter)
    shown = {
        "--n": p.add_argument("--n", type=int, default=3, help="n"),
        "--speed": p.add_argument("--speed", type=float, default=1.0, help="s"),
        "--path": p.add_argument("--path", type=Path, default=Path("/etc/mesa/t.toml"), help="p"),
        "--none": p.add_argument("--none", help="nothing"),
        "--flag": p.add_argument("--flag", action="store_true", help="f"),
        "--worked-out": p.add_argument("--worked-out", help="w"),
    }
    default_text(shown["--worked-out"], "var/sim/<table>, 100% its own")
    assert {k: shown_default(a) for k, a in shown.items()} == {
        "--n": "3", "--speed": "1", "--path": "/etc/mesa/t.toml", "--none": None,
        "--flag": None, "--worked-out": "var/sim/<table>, 100% its own"}
    text = " ".join(p.format_help().split())
    assert "w (default: var/sim/<table>, 100% its own)" in text  # a % in the text is no format
    assert "nothing (default" not in text and "f (default" not in text


def test_a_command_without_an_example_is_refused() -> None:
    sub = argparse.ArgumentParser().add_subparsers()
    with pytest.raises(ValueError, match="at least one example"):
        add_command(sub, "x", summary="X", examples=[])


def test_the_old_language_name_sets_the_new_option_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    p = argparse.ArgumentParser(prog="mesa demo", formatter_class=HelpFormatter)
    add_language(p, "es", help="the language")
    assert "--lang " not in p.format_help()  # hidden
    assert p.parse_args(["--lang", "en"]).language == "en"
    assert capsys.readouterr().err == "mesa demo: --lang is now --language\n"
    with pytest.raises(SystemExit):
        p.parse_args(["--lang", "fr"])


@pytest.mark.parametrize(("content", "password"), [
    (b"verde", "verde"), (b"verde\n", "verde"), (b"verde\r\n", "verde"),
    (b"con espacio \nsegunda\n", "con espacio "), ("contrase\u00f1a\n".encode(), "contrase\u00f1a"),
])
def test_a_password_file_gives_its_first_line(tmp_path: Path, content: bytes,
                                              password: str) -> None:
    (tmp_path / "pw").write_bytes(content)
    assert read_password_file(tmp_path / "pw") == password


@pytest.mark.parametrize(("content", "error"), [
    (b"", "holds no password"), (b"\nverde\n", "holds no password"),
    (b"contrase\xf1a\n", "not UTF-8"),
])
def test_a_password_file_without_a_password_is_refused(tmp_path: Path, content: bytes,
                                                       error: str) -> None:
    (tmp_path / "pw").write_bytes(content)
    with pytest.raises(ConfigError, match=error):
        read_password_file(tmp_path / "pw")


def test_a_missing_password_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the password file"):
        read_password_file(tmp_path / "missing")


def test_the_file_comes_first_then_the_environment(tmp_path: Path) -> None:
    (tmp_path / "pw").write_text("del-fichero\n", encoding="utf-8")
    env = {"PW": "del-entorno"}
    with_file = argparse.Namespace(password_file=tmp_path / "pw")
    assert read_password(with_file, env="PW", environ=env) == "del-fichero"
    assert read_password(argparse.Namespace(password_file=None), env="PW",
                         environ=env) == "del-entorno"
    stdin = argparse.Namespace(password_file=Path("-"))
    assert read_password(stdin, env="PW", environ={}, stdin=io.StringIO("tubo\n")) == "tubo"
