"""``mesa replay`` and ``mesa docs``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mesa.cli_options import add_command


def _replay(args: argparse.Namespace) -> int:
    from mesa.games.replay import replay_lines

    path: str = args.file
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        print(f"mesa replay: cannot read {path}: {e.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"mesa replay: {path} is not UTF-8 text", file=sys.stderr)
        return 2
    report = replay_lines(text.splitlines())
    if not args.snapshot:
        report.pop("snapshot")
    try:
        # Strict JSON only: a value NaN or Infinity, had one slipped through, fails here loudly
        # instead of printing something no JSON reader accepts.
        out = json.dumps(
            report, ensure_ascii=False, allow_nan=False, indent=2 if args.pretty else None
        )
    except ValueError as e:
        print(f"mesa replay: the report is not strict JSON ({e})", file=sys.stderr)
        return 2
    sys.stdout.write(out + "\n")
    bad = [s for s in report["steps"] if "error" in s]
    for s in bad:
        print(f"mesa replay: {s['error']}", file=sys.stderr)
    return 1 if bad else 0


def _docs(args: argparse.Namespace) -> int:
    from mesa.docgen import write_docs

    for path in write_docs(Path(args.out)):
        print(path)
    return 0


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "replay",
        summary="Replay a table's input log; print every event and the final state as JSON",
        description="A JSON-lines file of timestamped table inputs is applied to a fresh table "
        "of its game: how a director settles a dispute from a table's log, and how the tests "
        "script whole matches (docs/replay.md). The exit status is 1 when a line is refused.",
        examples=[
            "mesa replay docs/examples/crawford_hgv_7_3_2.jsonl --pretty",
            "mesa replay - < table-7.jsonl",
        ],
    )
    p.add_argument("file", help="the JSON-lines file of timestamped inputs ('-': standard input)")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    p.add_argument("--snapshot", action="store_true", help="also print the full state snapshot")
    p.set_defaults(run=_replay)

    p = add_command(
        sub,
        "docs",
        summary="Regenerate the generated documentation (events, transitions)",
        description="docs/events.md (the events the tables publish) and each game's transition "
        "table (docs/transitions.md, docs/domino-transitions.md), written from the code.",
        examples=["mesa docs"],
    )
    p.add_argument("--out", default="docs", metavar="DIR", help="the docs folder")
    p.set_defaults(run=_docs)
