"""The ``mesa`` command: its command → module table matches what each package registers, and a
command loads only its own package's ``cli.py``."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys

import pytest

from mesa.cli import COMMANDS, SUBCOMMAND_MODULES, main

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


@pytest.mark.parametrize("module", SUBCOMMAND_MODULES)
def test_the_command_table_matches_what_each_package_registers(module: str) -> None:
    sub = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(module).register(sub)
    assert sorted(sub.choices) == sorted(c for c, m in COMMANDS.items() if m == module)


def test_a_command_loads_only_its_own_cli() -> None:
    loaded = mesa_modules_after("controller", "--help")
    assert loaded == ["mesa", "mesa.cli", "mesa.controller", "mesa.controller.cli"]


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    shown = capsys.readouterr().out
    assert all(name in shown for name in COMMANDS)
