"""The ``mesa`` command: its command → module table matches what each package registers, a
command loads only its own package's ``cli.py``, and every command is written in one style
(grouped in ``mesa --help``, a description and an example each, every option with help and its
default shown one way, one name for each shared option, no password on the command line)."""

from __future__ import annotations

import argparse
import importlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest

from mesa.cli import COMMANDS, GROUPS, SUBCOMMAND_MODULES, build_parser, main
from mesa.cli_options import HelpFormatter, shown_default

LIST_MODULES = """
import json, sys
from mesa.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m == "mesa" or m.startswith("mesa."))))
"""


def mesa_modules_after(*argv: str) -> list[str]:
    """The ``mesa*`` modules a fresh interpreter holds after ``mesa <argv>``."""
    out = subprocess.run([sys.executable, "-c", LIST_MODULES, *argv], check=True,
                         capture_output=True, text=True, timeout=60)
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


def commands() -> dict[str, argparse.ArgumentParser]:
    """Every command's parser, by every name it has."""
    action = build_parser()._subparsers._group_actions[0]  # type: ignore[union-attr]
    return dict(action.choices)  # type: ignore[arg-type]


def options(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    """The options and arguments a person reads in ``parser``'s help."""
    for action in parser._actions:
        if action.help is not argparse.SUPPRESS and not isinstance(action, argparse._HelpAction):
            yield action


def help_text(*argv: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("module", SUBCOMMAND_MODULES)
def test_the_command_table_matches_what_each_package_registers(module: str) -> None:
    sub = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(module).register(sub)
    assert sorted(sub.choices) == sorted(c for c, m in COMMANDS.items() if m == module)


def test_a_command_loads_only_its_own_cli() -> None:
    loaded = mesa_modules_after("controller", "--help")
    assert loaded == ["mesa", "mesa.cli", "mesa.cli_options", "mesa.controller",
                      "mesa.controller.cli", "mesa.errors"]


# ── mesa --help: the commands by who uses them ─────────────────────────────────
def test_every_command_is_in_one_group_and_web_is_another_name_of_hub() -> None:
    parsers = commands()
    grouped = [name for _, names in GROUPS for name in names]
    assert len(grouped) == len(set(grouped))
    aliases = {n for n in parsers if n not in grouped}
    assert aliases == {"web"}
    assert parsers["web"] is parsers["hub"]  # one parser: a true alias
    assert set(grouped) | aliases == set(COMMANDS)


def test_help_lists_the_commands_by_group_with_their_summaries(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = help_text(capsys=capsys)
    titles = [title for title, _ in GROUPS]
    assert [shown.index(f"\n{t}:\n") for t in titles] == sorted(
        shown.index(f"\n{t}:\n") for t in titles)
    assert [t.split(":")[0] for t in titles] == ["the venue", "the table", "the developer"]
    for title, names in GROUPS:
        block = shown.split(f"\n{title}:\n", 1)[1].split("\n\n", 1)[0]
        listed = [line.split()[0].rstrip(",") for line in block.splitlines()
                  if line.startswith("  ") and not line.startswith("   ")]
        assert listed == list(names), title
        for line in block.splitlines():
            assert line.strip() not in names, f"{line!r}: a command without its summary"
    assert "  hub, web " in shown
    assert "{" not in shown  # not argparse's own listing, {replay,docs,...}


# ── each command: a description, an example, one help style ─────────────────
@pytest.mark.parametrize("name", sorted(set(COMMANDS) - {"web"}))
def test_every_command_has_a_description_and_an_example(name: str) -> None:
    parser = commands()[name]
    assert parser.formatter_class is HelpFormatter
    summary, _, details = (parser.description or "").partition("\n\n")
    assert summary and details.strip(), f"mesa {name}: a summary and a description"
    assert re.match(r"examples?:\n", parser.epilog or "")
    examples = (parser.epilog or "").splitlines()[1:]
    assert examples and all(f"mesa {name}" in e for e in examples), examples


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - {"web"}))
def test_every_option_has_help_and_no_default_is_written_by_hand(name: str) -> None:
    for action in options(commands()[name]):
        label = f"mesa {name} {'/'.join(action.option_strings) or action.dest}"
        assert action.help and action.help.strip(), f"{label}: no help"
        # The formatter writes "(default: X)"; a help line that spells one is a second style.
        assert not re.search(r"\(default|\bdefault:|\(e?n?v? ?MESA_", action.help), label


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - {"web"}))
def test_every_default_is_shown_the_one_way(
    name: str, capsys: pytest.CaptureFixture[str],
) -> None:
    shown = " ".join(help_text(name, capsys=capsys).split())
    for action in options(commands()[name]):
        text = shown_default(action)
        if text is not None:
            said = (action.help or "") % {"choices": ", ".join(map(str, action.choices or ()))}
            assert f"{' '.join(said.split())} (default: {text})" in shown
    assert not re.search(r"\(default [^:]", shown)
    assert "(default: None)" not in shown and "(default: False)" not in shown


# ── one name for each shared option ───────────────────────────────────────────
@pytest.mark.parametrize("name", sorted(set(COMMANDS) - {"web"}))
def test_shared_options_have_one_name(name: str) -> None:
    parser = commands()[name]
    shown = {s for a in options(parser) for s in a.option_strings}
    assert "--lang" not in shown
    for action in options(parser):
        if action.dest == "language":
            assert "--language" in action.option_strings
        if action.dest == "log_level":
            assert action.option_strings in (["--log-level"], ["-v", "--verbose"])
        assert "--password" not in action.option_strings


@pytest.mark.parametrize("name", ["hub", "controller", "sim", "hardware-check", "demo", "enrol"])
def test_logging_is_log_level_everywhere_and_verbose_means_debug(name: str) -> None:
    parser = commands()[name]
    required = {"provision-table": ["--hub-host", "h"]}.get(name, [])
    assert parser.parse_args([*required, "--log-level", "ERROR"]).log_level == "error"
    assert parser.parse_args([*required, "-v"]).log_level == "debug"
    assert parser.parse_args([*required, "--verbose"]).log_level == "debug"


@pytest.mark.parametrize("name", ["demo", "sim", "hub"])
def test_the_language_is_language_everywhere_and_lang_still_works(
    name: str, capsys: pytest.CaptureFixture[str],
) -> None:
    parser = commands()[name]
    assert parser.parse_args(["--language", "en"]).language == "en"
    assert parser.parse_args(["--lang", "en"]).language == "en"
    assert "--lang is now --language" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["enrolments", "adopt"])
def test_the_enrolment_desks_file_is_not_called_settings_as_the_hubs_json_is(
    name: str, capsys: pytest.CaptureFixture[str],
) -> None:
    parser = commands()[name]
    argv = ["10000000a1b2c3d4", "7"] if name == "adopt" else []
    shown = {s for a in options(parser) for s in a.option_strings}
    assert "--enrolment-credentials" in shown and "--settings" not in shown
    assert str(parser.parse_args([*argv, "--settings", "e.json"]).settings) == "e.json"
    assert "--settings is now --enrolment-credentials" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["demo", "director-password"])
def test_a_password_on_the_command_line_is_refused_with_how_to_give_it(
    name: str, capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [name, *(["director"] if name == "director-password" else [])]
    for given in (["--password", "verde"], ["--password=verde"], ["--password"]):
        with pytest.raises(SystemExit) as done:
            main([*argv, *given])
        assert done.value.code == 2
        err = capsys.readouterr().err
        assert "--password-file FILE" in err and "MESA_WEB_DIRECTOR_PASSWORD" in err, given
        assert "ps and the shell's history" in err
    with pytest.raises(SystemExit) as done:  # not read as an abbreviation of --password-file
        main([*argv, "--passw", "verde"])
    assert done.value.code == 2 and "ambiguous option" in capsys.readouterr().err


def test_the_help_of_web_is_the_help_of_hub(capsys: pytest.CaptureFixture[str]) -> None:
    assert help_text("web", capsys=capsys) == help_text("hub", capsys=capsys)


def test_mesa_alone_shows_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert capsys.readouterr().out == help_text(capsys=capsys)
