"""The ``mesa`` command: one entry point, one subcommand per job.

Each package contributes its subcommands from its own ``cli.py`` with a ``register(sub)``
function, so the table, the controller and the hub stay independent of one another. Only the
``cli.py`` that provides the command being run is imported: ``mesa controller`` on a table loads
nothing of the hub (``mesa --help`` and an unknown command load them all, to list every command).

>>> parser = build_parser(["replay", "x.jsonl"])
>>> sorted(parser._subparsers._group_actions[0].choices)
['docs', 'replay']
>>> {"replay", "docs", "controller"} <= set(
...     build_parser()._subparsers._group_actions[0].choices)
True
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from mesa import __version__

# Which package's cli.py provides each subcommand (tests/test_cli.py checks this against what
# every register() adds, so the two cannot drift).
COMMANDS: dict[str, str] = {
    "replay": "mesa.games.cli",
    "docs": "mesa.games.cli",
    "controller": "mesa.controller.cli",
    "sim": "mesa.controller.cli",
    "hardware-check": "mesa.controller.cli",
    "oled-refs": "mesa.controller.cli",
    "hub": "mesa.hub.cli",
    "provision-table": "mesa.hub.cli",
    "provision-hub": "mesa.hub.cli",
    "demo": "mesa.hub.web.cli",
    "web": "mesa.hub.web.cli",
    "director-password": "mesa.hub.web.cli",
    "install": "mesa.hub.admin",
    "enrolments": "mesa.hub.admin",
    "adopt": "mesa.hub.admin",
    "apply-accounts": "mesa.hub.admin",
    "backup": "mesa.hub.admin",
    "restore": "mesa.hub.admin",
    "enrol": "mesa.controller.enrol",
}

SUBCOMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(COMMANDS.values()))


def modules_for(argv: Sequence[str] | None) -> tuple[str, ...]:
    """The ``cli.py`` modules needed to parse ``argv``: the command's own, or all of them.

    >>> modules_for(["controller", "--help"])
    ('mesa.controller.cli',)
    >>> modules_for(["--help"]) == SUBCOMMAND_MODULES
    True
    """
    # The top-level parser has only options without values (--help, --version), so the first
    # word that is not an option is the command.
    command = next((a for a in argv or () if not a.startswith("-")), None)
    if command in COMMANDS:
        return (COMMANDS[command],)
    return SUBCOMMAND_MODULES


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv`` (every command when ``argv`` is None)."""
    parser = argparse.ArgumentParser(
        prog="mesa", description="Backgammon club tournaments from the tables up."
    )
    parser.add_argument("--version", action="version", version=f"mesa {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in modules_for(argv):
        # A partial install (a table without the hub's folder) lists what it has.
        if importlib.util.find_spec(name) is None:
            continue
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(args_list).parse_args(args_list)
    return int(args.run(args))
