"""docs/domino.md and the domino package's docstrings: every module is explained, with an example."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import mesa.games.domino

DOC = Path(__file__).resolve().parents[3] / "docs" / "domino.md"
MODULES = sorted(m.name for m in pkgutil.iter_modules(mesa.games.domino.__path__, "mesa.games.domino."))


@pytest.mark.parametrize("name", MODULES)
def test_module_docstrings_lead_with_an_example(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__doc__ and module.__doc__.strip(), f"{name} has no docstring"
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no example"


def test_every_module_is_in_the_design_page() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in MODULES:
        assert f"mesa/games/domino/{name.rsplit('.', 1)[1]}.py" in text, name
