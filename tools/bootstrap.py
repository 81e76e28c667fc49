#!/usr/bin/env python3
"""Install the system packages that ``make demo`` and ``make test`` need, before the venv exists.

Run by the Makefile with the system's ``python3`` (stdlib only, Python 3.11+), so it works on a
fresh Debian, Ubuntu or Raspberry Pi OS that has only ``python3``, ``python3-venv`` (or not even
that) and ``make``::

    python3 tools/bootstrap.py demo    # mosquitto
    python3 tools/bootstrap.py test    # mosquitto and chromium
    python3 tools/bootstrap.py venv    # only python3-venv, when ensurepip is missing

What is already there is left alone: a command found on PATH or in its usual place installs
nothing and asks for nothing. What is missing is installed with ``apt-get`` when running as
root, else with ``sudo apt-get`` when sudo works without a password (after saying what and
why); otherwise it prints the command to run by hand and exits with status 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Need:
    """A system package, the command that proves it is installed, and why Mesa wants it."""

    package: str
    command: str
    # Where Debian puts the command when it is not on a user's PATH (/usr/sbin for mosquitto).
    places: tuple[str, ...]
    why: str


MOSQUITTO = Need(
    "mosquitto",
    "mosquitto",
    ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"),
    "the MQTT broker the hub starts privately on loopback",
)
CHROMIUM = Need(
    "chromium",
    "chromium",
    ("/usr/bin/chromium",),
    "the browser the dashboard tests drive",
)
# Debian ships ensurepip (which `python3 -m venv` runs) in python3.X-venv, not with python3.
VENV = Need("python3-venv", "", (), "ensurepip, which `python3 -m venv` needs to build .venv")

NEEDS: dict[str, tuple[Need, ...]] = {
    "demo": (MOSQUITTO,),
    "test": (MOSQUITTO, CHROMIUM),
    "venv": (),
    "hub": (MOSQUITTO,),  # a venue's hub: the system's Mosquitto (`make hub`)
    "table": (),  # a table's Pi: Raspberry Pi OS has what it needs (`make table`)
}


def have_command(need: Need, path: str | None = None) -> bool:
    """The command is on ``path`` (default: $PATH) or in one of its usual places; for Chromium,
    also wherever MESA_CHROMIUM points (the browser tests use that one)."""
    if shutil.which(need.command, path=path):
        return True
    chosen = os.environ.get("MESA_CHROMIUM")
    if need.package == CHROMIUM.package and chosen and os.access(chosen, os.X_OK):
        return True
    return any(os.access(p, os.X_OK) for p in need.places)


def have_ensurepip() -> bool:
    return importlib.util.find_spec("ensurepip") is not None


def missing(
    goal: str,
    *,
    venv_built: bool,
    path: str | None = None,
    places: bool = True,
    ensurepip: Callable[[], bool] = have_ensurepip,
) -> list[Need]:
    """What ``goal`` needs that this machine lacks. ``places=False`` looks on ``path`` only
    (the tests' view of a machine without the packages)."""
    out = []
    if not venv_built and not ensurepip():
        out.append(VENV)
    for need in NEEDS[goal]:
        probe = need if places else Need(need.package, need.command, (), need.why)
        if not have_command(probe, path):
            out.append(need)
    return out


def say(message: str) -> None:
    print(f"bootstrap: {message}", file=sys.stderr, flush=True)


def sudo_works() -> bool:
    """sudo exists and runs without asking for a password. We never let sudo prompt: `make
    test` also runs unattended (CI, ssh without a tty), where a prompt would hang it."""
    if shutil.which("sudo") is None:
        return False
    try:
        done = subprocess.run(
            ["sudo", "-n", "true"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def apt_install(prefix: list[str], packages: list[str]) -> bool:
    """``apt-get install``; if that fails (a fresh image has empty package lists), ``apt-get
    update`` and try once more."""
    # `env` passes the variable through sudo, which otherwise resets the environment.
    base = [*prefix, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]
    install = [*base, "install", "-y", *packages]
    if subprocess.run(install, stdin=subprocess.DEVNULL).returncode == 0:
        return True
    say("apt-get install failed; updating the package lists and trying again")
    if subprocess.run([*base, "update"], stdin=subprocess.DEVNULL).returncode != 0:
        return False
    return subprocess.run(install, stdin=subprocess.DEVNULL).returncode == 0


def by_hand(goal: str, needs: list[Need]) -> str:
    packages = " ".join(n.package for n in needs)
    lines = [
        f"`make {goal}` needs these system packages, which are not installed:",
        *(f"  {n.package}: {n.why}" for n in needs),
        "Install them by hand, then run the command again:",
        f"  sudo apt-get install {packages}",
    ]
    if any(n is CHROMIUM for n in needs):
        lines.append(
            "(On Ubuntu the apt chromium is a snap; any Chromium works: "
            "point MESA_CHROMIUM at its binary.)"
        )
    return "\n".join(lines)


def main(
    argv: Sequence[str] | None = None,
    *,
    uid: int | None = None,
    path: str | None = None,
    places: bool = True,
    ensurepip: Callable[[], bool] = have_ensurepip,
) -> int:
    """``uid``, ``path``, ``places`` and ``ensurepip`` stand in for the machine in the tests."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("goal", choices=sorted(NEEDS))
    parser.add_argument(
        "--stamp",
        type=Path,
        help="the venv's installed-stamp: when it exists, python3-venv is no longer needed",
    )
    args = parser.parse_args(argv)
    venv_built = args.stamp is not None and args.stamp.exists()
    needs = missing(args.goal, venv_built=venv_built, path=path, places=places, ensurepip=ensurepip)
    if not needs:
        return 0
    packages = [n.package for n in needs]
    if shutil.which("apt-get") is None:
        say("this is not a Debian-like system (no apt-get).\n" + by_hand(args.goal, needs))
        return 1
    uid = os.geteuid() if uid is None else uid
    if uid == 0:
        say(f"installing {' '.join(packages)} with apt-get")
        prefix: list[str] = []
    elif sudo_works():
        say(f"`make {args.goal}` needs system packages that are missing:")
        for n in needs:
            say(f"  {n.package}: {n.why}")
        say(f"installing them with: sudo apt-get install -y {' '.join(packages)}")
        prefix = ["sudo", "-n"]
    else:
        say("not root, and sudo cannot run without a password.\n" + by_hand(args.goal, needs))
        return 1
    if not apt_install(prefix, packages):
        say("apt-get could not install them.\n" + by_hand(args.goal, needs))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
