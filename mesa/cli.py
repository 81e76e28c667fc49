"""The ``mesa`` command: one entry point, one subcommand per job.

Each package contributes its subcommands from its own ``cli.py`` with a ``register(sub)``
function, so the table, the controller and the hub stay independent of one another.

>>> parser = build_parser()
>>> {"replay", "docs"} <= set(parser._subparsers._group_actions[0].choices)
True
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
from collections.abc import Sequence

from mesa import __version__

SUBCOMMAND_MODULES: tuple[str, ...] = (
    "mesa.table.cli",
    "mesa.controller.cli",
    "mesa.hub.cli",
    "mesa.hub.web.cli",
    "mesa.hub.admin",
    "mesa.controller.enrol",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mesa", description="Backgammon club tournaments from the tables up."
    )
    parser.add_argument("--version", action="version", version=f"mesa {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        if importlib.util.find_spec(name) is None:
            continue
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.run(args))
