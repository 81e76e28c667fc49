"""The ``mesa`` command: one entry point, one subcommand per job.

Each package contributes its subcommands from its own ``cli.py`` with a ``register(sub)``
function, so the table, the controller and the hub stay independent of one another. Only the
``cli.py`` that provides the command being run is imported: ``mesa controller`` on a table loads
nothing of the hub (``mesa --help`` and an unknown command load them all, to list every command).

``mesa --help`` lists the commands by who uses them (:data:`GROUPS`); every command is made in
the one style of :mod:`mesa.cli_options` (a description, an example, every default shown alike).

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
import shutil
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

from mesa import __version__
from mesa.cli_options import HelpFormatter, summary_of

# Which package's cli.py provides each subcommand (tests/test_cli.py checks this against what
# every register() adds, so the two cannot drift). ``web`` is another name of ``hub``.
COMMANDS: dict[str, str] = {
    "replay": "mesa.games.cli",
    "docs": "mesa.games.cli",
    "controller": "mesa.controller.cli",
    "sim": "mesa.controller.cli",
    "hardware-check": "mesa.controller.cli",
    "oled-refs": "mesa.controller.cli",
    "hub": "mesa.hub.cli",
    "web": "mesa.hub.cli",
    "provision-table": "mesa.hub.cli",
    "provision-hub": "mesa.hub.cli",
    "demo": "mesa.hub.web.cli",
    "director-password": "mesa.hub.web.cli",
    "install": "mesa.hub.admin",
    "enrolments": "mesa.hub.admin",
    "adopt": "mesa.hub.admin",
    "apply-accounts": "mesa.hub.admin",
    "backup": "mesa.hub.admin",
    "restore": "mesa.hub.admin",
    "enrol": "mesa.controller.enrol",
}

# ``mesa --help``'s listing: who uses each command, in the order they meet them (another name
# of a command, ``web``, is shown beside it).
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "the venue: the hub, its director, its tables' accounts",
        ("demo", "install", "hub", "director-password", "enrolments", "adopt", "backup",
         "restore", "replay", "provision-hub", "provision-table", "apply-accounts"),
    ),
    (
        "the table: a Raspberry Pi at a table, or a laptop standing in for one",
        ("enrol", "controller", "hardware-check", "sim"),
    ),
    (
        "the developer",
        ("docs", "oled-refs"),
    ),
)

SUBCOMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(COMMANDS.values()))

INTRO = "Club tournaments from the tables up: the tables (Raspberry Pi or laptop) and the hub."
OUTRO = "Each command's --help says what it does, with an example: mesa demo --help"


def modules_for(argv: Sequence[str] | None) -> tuple[str, ...]:
    """The ``cli.py`` modules needed to parse ``argv``: the command's own, or all of them.

    >>> modules_for(["controller", "--help"])
    ('mesa.controller.cli',)
    >>> modules_for(["web"])
    ('mesa.hub.cli',)
    >>> modules_for(["--help"]) == SUBCOMMAND_MODULES
    True
    """
    # The top-level parser has only options without values (--help, --version), so the first
    # word that is not an option is the command.
    command = next((a for a in argv or () if not a.startswith("-")), None)
    if command in COMMANDS:
        return (COMMANDS[command],)
    return SUBCOMMAND_MODULES


def command_listing(choices: dict[str, Any], width: int | None = None) -> str:
    """The commands of ``choices`` (name → parser) by :data:`GROUPS`, each with its summary and
    its other names; a command this install lacks (a table without the hub) is left out.

    >>> sub = argparse.ArgumentParser().add_subparsers()
    >>> from mesa.cli_options import add_command
    >>> _ = add_command(sub, "docs", summary="Write the docs", examples=["mesa docs"])
    >>> print(command_listing(sub.choices, width=80))
    the developer:
      docs               Write the docs
    """
    # As wide as argparse writes the rest of the help.
    width = width or max(60, shutil.get_terminal_size().columns - 2)
    blocks = []
    for title, names in GROUPS:
        rows = []
        for name in names:
            if name not in choices:
                continue
            parser = choices[name]
            others = [n for n, p in choices.items() if p is parser and n != name]
            label = ", ".join([name, *others])
            lines = textwrap.wrap(summary_of(parser), width - 21, break_on_hyphens=False) or [""]
            rows.append(f"  {label:<18} {lines[0]}")
            rows += [f"{'':21}{line}" for line in lines[1:]]
        if rows:
            blocks.append("\n".join([f"{title}:", *rows]))
    return "\n\n".join(blocks)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv`` (every command when ``argv`` is None)."""
    parser = argparse.ArgumentParser(
        prog="mesa",
        usage="mesa [-h] [--version] COMMAND ...",
        formatter_class=HelpFormatter,
        epilog=OUTRO,
    )
    parser.add_argument("--version", action="version", version=f"mesa {__version__}")
    # The listing by group takes the place of argparse's own, which follows the order the
    # packages registered their commands in.
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                prog="mesa", help=argparse.SUPPRESS)
    for name in modules_for(argv):
        # A partial install (a table without the hub's folder) lists what it has.
        if importlib.util.find_spec(name) is None:
            continue
        importlib.import_module(name).register(sub)
    parser.description = f"{INTRO}\n\n{command_listing(sub.choices)}"
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list)
    if not args_list:  # a volunteer's first `mesa`: the commands, not a one-line error
        parser.print_help()
        return 2
    args = parser.parse_args(args_list)
    return int(args.run(args))
