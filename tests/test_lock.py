"""The versions a venue installs (``constraints/*.txt``, written by ``tools/lock.py``): every
dependency of each extra pinned, inside the ranges ``pyproject.toml`` allows, and used by every
``make`` target that installs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def pins(extra: str) -> dict[str, Version]:
    out = {}
    for line in (ROOT / "constraints" / f"{extra}.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"{extra}: {line!r} is not a pin"
            out[canonicalize_name(name)] = Version(version)
    return out


def requirements(extra: str) -> list[Requirement]:
    """What ``pip install '.[extra]'`` asks for directly (dev includes table and hub)."""
    reqs = [Requirement(r) for r in PROJECT["dependencies"]]
    for r in PROJECT["optional-dependencies"][extra]:
        req = Requirement(r)
        if canonicalize_name(req.name) == "mesa":
            for inner in sorted(req.extras):
                reqs += requirements(inner)
        else:
            reqs.append(req)
    return reqs


@pytest.mark.parametrize("extra", ["table", "hub", "dev"])
def test_every_dependency_is_pinned_inside_its_range(extra: str) -> None:
    pinned = pins(extra)
    for req in requirements(extra):
        name = canonicalize_name(req.name)
        assert name in pinned, f"constraints/{extra}.txt does not pin {req.name} (make lock)"
        assert req.specifier.contains(pinned[name], prereleases=True), (
            f"{req.name} {pinned[name]} is outside {req.specifier} (make lock)"
        )


def test_the_table_gets_no_hub_package() -> None:
    """A Pi Zero 2 W installs the table's few dependencies only."""
    assert not {"uvicorn", "starlette", "cryptography", "jinja2"} & set(pins("table"))


def test_every_make_target_that_installs_uses_its_constraints() -> None:
    make = (ROOT / "Makefile").read_text()
    for extra in ("dev", "hub", "table"):
        assert re.search(rf"pip install .*-c constraints/{extra}\.txt -e '\.\[{extra}\]'", make), extra
    assert "\nlock:\n\tpython3 tools/lock.py" in make


def test_private_apis_have_an_upper_bound() -> None:
    """conn_guard subclasses uvicorn's h11 protocol; sse.py overrides sse-starlette's call."""
    hub = {canonicalize_name(Requirement(r).name): Requirement(r).specifier
           for r in PROJECT["optional-dependencies"]["hub"]}
    for name in ("uvicorn", "sse-starlette"):
        assert any(s.operator == "<" for s in hub[name]), name
