"""tools/typecheck.py hands mypy the same modules, under the same names, as the packaging."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from support.modules import ROOT, product_modules

SCRIPT = ROOT / "tools" / "typecheck.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("typecheck", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["typecheck"] = module
    spec.loader.exec_module(module)
    return module


typecheck = load()


def test_mypy_sees_every_module_under_its_import_name() -> None:
    assert typecheck.product_modules() == product_modules()
    mods = typecheck.product_modules()
    assert mods["mesa.controller.runtime"] == ROOT / "controller" / "runtime.py"
    assert mods["mesa.hub.web.app"] == ROOT / "hub" / "web" / "app.py"


def test_only_and_skip_choose_whose_errors_are_reported() -> None:
    selected = typecheck.selected
    skip = ["mesa.hub.web", "mesa.hub.desk"]
    assert selected("mesa.controller.app", [], skip)
    assert selected("mesa.hub.ingest.app", [], skip)
    assert not selected("mesa.hub.web", [], skip)
    assert not selected("mesa.hub.desk.desk", [], skip)
    assert selected("mesa.hub.desk.desk", skip, [])
    assert not selected("mesa.hub.ingest.app", skip, [])
