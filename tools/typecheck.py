"""Type-check the product with mypy, every module under its import name (``mesa.controller.app``).

    .venv/bin/python tools/typecheck.py                     # everything
    .venv/bin/python tools/typecheck.py --skip mesa.hub.web # all but the dashboard's errors
    .venv/bin/python tools/typecheck.py --only mesa.hub.web --only mesa.hub.desk

Why a wrapper: mypy finds modules by folder, and the ``package-dir`` mapping of
``pyproject.toml`` (``mesa.controller`` → ``controller/``, ``mesa.hub`` → ``hub/``) is invisible to
it; the editable install maps them with an import hook, which mypy does not run. So ``mypy -p
mesa`` finds ``mesa/`` only, and ``mypy controller`` names the modules ``controller.x``. This
script hands mypy every module of every declared package with its real name and lets mypy read
its settings from ``[tool.mypy]`` as usual (extra arguments go to mypy).

Every module is always analysed (imports resolve and types flow across packages); ``--only`` and
``--skip`` choose whose errors are reported and decide the exit status (0 clean, 1 errors).
"""

from __future__ import annotations

import argparse
import os
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def product_modules(root: Path = ROOT) -> dict[str, Path]:
    """Import name → file, for every module of every package ``pyproject.toml`` declares.

    >>> product_modules()["mesa.controller.app"].relative_to(ROOT).as_posix()
    'controller/app.py'
    """
    conf = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    setup = conf["tool"]["setuptools"]
    dirs: dict[str, str] = setup["package-dir"]
    out: dict[str, Path] = {}
    for package in setup["packages"]:
        parts = package.split(".")
        # The longest mapped prefix decides the folder (mesa.hub.web → hub/web).
        n = max(i for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in dirs)
        folder = root / dirs[".".join(parts[:n])] / Path(*parts[n:])
        for path in sorted(folder.glob("*.py")):
            out[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return out


def selected(module: str, only: Sequence[str], skip: Sequence[str]) -> bool:
    """Whether ``module``'s errors are reported.

    >>> selected("mesa.hub.web.app", [], ["mesa.hub.web"]), selected("mesa.hub.webx", [], ["mesa.hub.web"])
    (False, True)
    >>> selected("mesa.core.clock", ["mesa.hub"], [])
    False
    """

    def under(names: Sequence[str]) -> bool:
        return any(module == n or module.startswith(n + ".") for n in names)

    return (not only or under(only)) and not under(skip)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], metavar="PACKAGE",
                        help="report only the errors of this package (repeatable)")
    parser.add_argument("--skip", action="append", default=[], metavar="PACKAGE",
                        help="do not report the errors of this package (repeatable)")
    args, mypy_args = parser.parse_known_args(argv)

    from mypy.fscache import FileSystemCache
    from mypy.main import process_options, run_build

    os.chdir(ROOT)  # pyproject.toml's [tool.mypy] and the paths in the messages are relative
    modules = product_modules()
    by_path = {os.path.relpath(path, ROOT): name for name, path in modules.items()}
    fscache = FileSystemCache()
    sources, options = process_options([*mypy_args, *sorted(by_path)], fscache=fscache)
    for source in sources:
        assert source.path is not None
        source.module = by_path[os.path.relpath(source.path, ROOT)]
        source.base_dir = str(ROOT)
    reported = {p for p, name in by_path.items() if selected(name, args.only, args.skip)}
    with open(os.devnull, "w") as quiet:  # mypy prints as it goes: print only what is reported
        _, messages, blockers = run_build(sources, options, fscache, 0.0, quiet, sys.stderr)
    shown = [m for m in messages if blockers or m.split(":", 1)[0] not in by_path
             or m.split(":", 1)[0] in reported]
    for message in shown:
        print(message)
    errors = [m for m in shown if ": error:" in m]
    files = {m.split(":", 1)[0] for m in errors}
    scope = ", ".join(args.only) or "every package"
    if args.skip:
        scope += f" but {', '.join(args.skip)}"
    print(f"typecheck ({scope}): {len(errors)} error(s) in {len(files)} file(s), "
          f"{len(reported)} of {len(modules)} modules reported")
    return 2 if blockers else 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
