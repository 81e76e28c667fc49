"""Every module's doctests, collected by import name.

pytest's ``--doctest-modules`` collects by path, and a path under ``controller/`` or ``hub/``
would import a second copy of the module as ``controller.x`` instead of ``mesa.controller.x``;
so each module is imported by its real name and its doctests run here.
"""

from __future__ import annotations

import doctest
import importlib

import pytest

from support.modules import product_modules

# `__main__` runs the command line when imported.
MODULES = sorted(m for m in product_modules() if not m.endswith(".__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
