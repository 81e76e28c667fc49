"""The golden-image checks of every game's screens: each scene drawn at each of its sizes must
equal, pixel for pixel, its reference PNG in the game's folder of ``docs/oled``, and that folder's
index must caption every image. The games' screen tests (``test_backgammon_oled.py``,
``test_domino_oled.py``, which the reference indexes name) give their scenes and renderer; the
index is checked for every registered game in ``tests/controller/games/test_table_games.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from luma.core.device import dummy
from PIL import Image, ImageChops

from mesa.controller.oled_references import Scene

Case = tuple[Scene[Any], tuple[int, int]]
Render = Callable[[Any, Any, float, tuple[int, int]], Image.Image]


def cases(scenes: Iterable[Scene[Any]]) -> list[Case]:
    """Every (scene, size) the references hold."""
    return [(s, size) for s in scenes for size in s.sizes]


def case_ids(all_cases: Iterable[Case]) -> list[str]:
    return [f"{s.name}-{s.language}-{w}x{h}" for s, (w, h) in all_cases]


def check_golden_image(render: Render, refs: Path, scene: Scene[Any], size: tuple[int, int],
                       command: str) -> None:
    """``scene`` drawn at ``size`` on a 1-bit device is its reference (``command`` rewrites
    them)."""
    device = dummy(width=size[0], height=size[1], mode="1")
    device.display(render(scene.view, scene.status, scene.now, size))
    ref_path = refs / scene.filename(size)
    assert ref_path.exists(), f"missing reference {ref_path}: run `{command}`"
    with Image.open(ref_path) as ref:
        reference = ref.convert("1")
    diff = ImageChops.difference(reference.convert("L"), device.image.convert("L"))
    assert diff.getbbox() is None, f"{ref_path.name} differs in {diff.getbbox()}"


def check_index(refs: Path, all_cases: Iterable[Case]) -> None:
    """The folder's README lists every image under its scene's caption."""
    index = (refs / "README.md").read_text(encoding="utf-8")
    for scene, size in all_cases:
        assert scene.filename(size) in index
        assert f"## `{scene.name}` ({scene.language}): {scene.about}" in index
