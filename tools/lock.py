#!/usr/bin/env python3
"""Write the constraints files a venue installs from: ``constraints/{table,hub,dev}.txt``.

Every Pi of a venue, and the hub, must run the same versions: ``pip install`` alone takes the
newest release of each dependency on the day it runs, so two tables set up a month apart could
differ. Each file pins every package (dependencies of dependencies included) that
``pip install '.[<extra>]'`` brings into a fresh venv today; ``make table``, ``make hub`` and
``make venv`` (the tests, CI) install with ``-c constraints/<extra>.txt``.

Refresh them with one command, then run the tests and commit the three files::

    make lock          # or: python3 tools/lock.py

Only the standard library: it runs before any venv exists.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = ("table", "hub", "dev")
HEADER = """\
# Pinned by tools/lock.py (`make lock`) for `pip install -c {name} -e '.[{extra}]'`: every
# package a fresh venv gets for the {extra} extra, so every machine of a venue runs the same
# versions. Regenerate with `make lock`; never edit by hand.
"""


def freeze(extra: str, python: str = sys.executable) -> list[str]:
    """``pip freeze`` of a fresh venv after ``pip install '.[extra]'`` (the checkout left out)."""
    with tempfile.TemporaryDirectory(prefix=f"mesa-lock-{extra}-") as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip"]
        subprocess.run([*pip, "install", "--quiet", "--upgrade", "pip"], check=True)
        print(f"lock: installing .[{extra}] into a fresh venv…", flush=True)
        # Its build's chatter is shown only when the install fails.
        done = subprocess.run([*pip, "install", "--quiet", f"{ROOT}[{extra}]"],
                              capture_output=True, text=True)
        if done.returncode:
            sys.stderr.write(done.stdout + done.stderr)
            raise SystemExit(f"lock: installing .[{extra}] failed")
        # --all: setuptools too (the packaging test builds the wheel with it).
        out = subprocess.run([*pip, "freeze", "--all", "--exclude", "mesa", "--exclude", "pip"],
                             check=True,
                             capture_output=True, text=True).stdout
    pins = [ln.strip() for ln in out.splitlines() if "==" in ln]
    if extra != "dev":  # the venv's own setuptools: no dependency of the table's or the hub's
        pins = [p for p in pins if not p.lower().startswith(("setuptools==", "wheel=="))]
    return sorted(pins, key=str.lower)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("extras", nargs="*", metavar="EXTRA",
                   help=f"which files to write: {', '.join(EXTRAS)} (default: all three)")
    args = p.parse_args(argv)
    unknown = [e for e in args.extras if e not in EXTRAS]
    if unknown:
        p.error(f"unknown extra {unknown[0]!r}: one of {', '.join(EXTRAS)}")
    args.extras = args.extras or list(EXTRAS)
    folder = ROOT / "constraints"
    folder.mkdir(exist_ok=True)
    for extra in args.extras:
        name = f"constraints/{extra}.txt"
        pins = freeze(extra)
        (ROOT / name).write_text(HEADER.format(name=name, extra=extra) + "\n".join(pins) + "\n")
        print(f"lock: {name}: {len(pins)} packages", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
