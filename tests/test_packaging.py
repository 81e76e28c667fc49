"""The wheel holds every module of the source tree, and the declared package list is complete."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from support.modules import ROOT, declared_packages, package_folder, source_packages


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
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(out), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )
    return next(out.glob("mesa-*.whl"))


def test_the_wheel_contains_every_module_and_nothing_else(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        names = {n for n in z.namelist() if not n.startswith("mesa-") or "/" not in n}
    names = {n for n in names if ".dist-info/" not in n}
    assert names == expected_wheel_files()
