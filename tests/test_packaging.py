"""The wheel holds every module of the source tree, the declared package list is complete, and
the wheel installed as on a table (``mesa[table]``) runs the controller without the hub."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from support.modules import (
    ROOT,
    declared_packages,
    package_folder,
    product_modules,
    source_packages,
)


def test_every_package_folder_is_declared() -> None:
    assert sorted(declared_packages()) == source_packages()


def expected_wheel_files() -> set[str]:
    want: set[str] = set()
    for pkg in declared_packages():
        folder = package_folder(pkg)
        target = Path(*pkg.split("."))
        for path in folder.glob("*.py"):
            want.add((target / path.name).as_posix())
    # Templates and static files of the dashboard.
    web = package_folder("mesa.hub.web")
    for sub in ("templates", "static"):
        for path in (web / sub).rglob("*"):
            if path.is_file():
                want.add((Path("mesa/hub/web") / path.relative_to(web)).as_posix())
    return want


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a clean copy: setuptools reuses the tree's build/ folder, where a module
    # moved or removed since the last build would linger and ship.
    source = tmp_path_factory.mktemp("source") / "mesa"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", "test-artifacts"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(out), str(source)],
        check=True, capture_output=True, timeout=300,
    )
    return next(out.glob("mesa-*.whl"))


def test_the_wheel_contains_every_module_and_nothing_else(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        names = {n for n in z.namelist() if not n.startswith("mesa-") or "/" not in n}
    names = {n for n in names if ".dist-info/" not in n}
    assert names == expected_wheel_files()


# ── the table's install: the wheel with the `table` extra only, as on the Pi ─────────────────

HUB_ONLY_DEPENDENCIES = ("starlette", "jinja2", "uvicorn", "orjson", "sse_starlette")

# argv: the hub's dependencies as JSON, then the modules to import.
IMPORT_CONTROLLER = """
import importlib, importlib.util, json, sys
for name in sys.argv[2:]:
    importlib.import_module(name)
print(json.dumps({
    "mesa_file": importlib.import_module("mesa").__file__,
    "hub_deps": [d for d in json.loads(sys.argv[1]) if importlib.util.find_spec(d)],
    "loaded": sorted(m for m in sys.modules if m.startswith("mesa.")),
}))
"""

RUN_CONTROLLER_HELP = """
import json, sys
from mesa.cli import main
try:
    main(["controller", "--help"])
except SystemExit as e:
    code = e.code
print(json.dumps({"code": code, "loaded": sorted(m for m in sys.modules if m.startswith("mesa"))}))
"""


@pytest.fixture(scope="module")
def table_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean virtual environment (from the base interpreter) holding ``mesa[table]``."""
    venv = tmp_path_factory.mktemp("table-venv") / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True, capture_output=True,
                   timeout=300)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    f"{wheel}[table]"], check=True, capture_output=True, timeout=900)
    return python


def run_in(python: Path, script: str, *args: str) -> dict[str, Any]:
    """Run ``script`` in that environment, away from the source tree, and read its JSON."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    out = subprocess.run([str(python), "-c", script, *args], check=True, capture_output=True,
                         text=True, timeout=120, cwd=python.parent, env=env)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_the_table_imports_every_controller_module_without_the_hubs_dependencies(
    table_venv: Path,
) -> None:
    controller = sorted(m for m in product_modules()
                        if m.startswith("mesa.controller") and not m.endswith(".__main__"))
    got = run_in(table_venv, IMPORT_CONTROLLER, json.dumps(HUB_ONLY_DEPENDENCIES), *controller)
    assert got["mesa_file"].startswith(str(table_venv.parent.parent))  # the installed copy
    assert got["hub_deps"] == []
    assert set(controller) <= set(got["loaded"])
    assert [m for m in got["loaded"] if m.startswith(("mesa.hub", "mesa.tournament"))] == []


def test_mesa_controller_help_on_the_table_loads_neither_hub_nor_tournament(
    table_venv: Path,
) -> None:
    got = run_in(table_venv, RUN_CONTROLLER_HELP)
    assert got["code"] == 0
    # The command line's own few (its options' style, its errors), the table's: no hub, no
    # tournament, nothing heavy on a Pi Zero.
    assert set(got["loaded"]) == {"mesa", "mesa.cli", "mesa.cli_options", "mesa.errors",
                                  "mesa.controller", "mesa.controller.cli"}, got["loaded"]
    script = subprocess.run([str(table_venv.parent / "mesa"), "controller", "--help"],
                            capture_output=True, text=True, timeout=60, cwd=table_venv.parent)
    assert script.returncode == 0 and "--config" in script.stdout
