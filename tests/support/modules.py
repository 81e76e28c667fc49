"""The product's modules as the packaging declares them: every ``mesa.*`` module with the file it
comes from, read from ``pyproject.toml``'s ``package-dir`` mapping (the one source of truth).

>>> mods = product_modules()
>>> mods["mesa.controller.app"].as_posix().endswith("controller/app.py")
True
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def package_dirs() -> dict[str, Path]:
    """The ``package-dir`` mapping: import name → folder (``mesa.hub`` → ``hub/``)."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = conf["tool"]["setuptools"]["package-dir"]
    return {name: ROOT / folder for name, folder in mapping.items()}


def declared_packages() -> list[str]:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(conf["tool"]["setuptools"]["packages"])


def package_folder(package: str) -> Path:
    """The folder a package lives in, following the longest mapped prefix."""
    dirs = package_dirs()
    parts = package.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in dirs:
            return dirs[prefix].joinpath(*parts[n:])
    raise KeyError(package)


def source_packages() -> list[str]:
    """Every folder with an ``__init__.py`` under the mapped roots, as an import name."""
    found: set[str] = set()
    for name, folder in package_dirs().items():
        for init in folder.rglob("__init__.py"):
            rel = init.parent.relative_to(folder)
            if "__pycache__" in rel.parts:
                continue
            found.add(".".join([name, *rel.parts]) if rel.parts else name)
    # A mapped root's sub-folder that is itself mapped elsewhere is not a package of its parent.
    return sorted(found)


def product_modules() -> dict[str, Path]:
    """Import name → source file, for every module of every declared package."""
    out: dict[str, Path] = {}
    for pkg in declared_packages():
        folder = package_folder(pkg)
        for path in sorted(folder.glob("*.py")):
            name = pkg if path.stem == "__init__" else f"{pkg}.{path.stem}"
            out[name] = path
    return out
