"""docs/tournament.md and the package's docstrings: every example runs."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import mesa.tournament

DOC = Path(__file__).resolve().parents[2] / "docs" / "tournament.md"
MODULES = sorted(m.name for m in pkgutil.iter_modules(mesa.tournament.__path__,
                                                       "mesa.tournament."))
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", ["mesa.tournament", *MODULES])
def test_module_docstrings(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__doc__ and module.__doc__.strip(), f"{name} has no docstring"
    result = doctest.testmod(module, optionflags=OPTIONS)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no example"


def test_the_documentation_examples() -> None:
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    parser = doctest.DocTestParser()
    test = parser.get_doctest("\n".join(blocks), {}, "docs/tournament.md", str(DOC), 0)
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_every_module_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in MODULES:
        short = name.rsplit(".", 1)[1]
        if short in ("errors", "draws", "i18n", "explain", "settings", "matches"):
            continue
        assert f"{short}.py" in text or f"{short}." in text, short
