"""The reference-image writer both games share: every scene at every size, each under its caption,
and a scene whose input the table refuses is an error, never a picture."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from mesa.controller.oled_references import Play, Scene, write_references
from mesa.controller.runtime import TableStatus
from mesa.games.backgammon.machine import Table


def test_every_scene_and_size_is_written_under_its_caption(tmp_path: Path) -> None:
    status = TableStatus(table_id="7")
    scenes = [
        Scene("idle", "es", "nada asignado", 0, status, 0.0, ((128, 64), (128, 32))),
        Scene("idle", "en", "nothing assigned", 1, status, 0.0, ((128, 64),)),
    ]
    drawn: list[tuple[int, tuple[int, int]]] = []

    def render(view: int, st: TableStatus, now: float, size: tuple[int, int]) -> Image.Image:
        drawn.append((view, size))
        return Image.new("1", size)

    written = write_references(tmp_path, scenes, render, ["# Title", "", "Intro."])
    assert [p.name for p in written] == [
        "idle-es-128x64.png",
        "idle-es-128x32.png",
        "idle-en-128x64.png",
        "README.md",
    ]
    assert drawn == [(0, (128, 64)), (0, (128, 32)), (1, (128, 64))]
    index = (tmp_path / "README.md").read_text(encoding="utf-8").splitlines()
    assert index[:4] == ["# Title", "", "Intro.", ""]
    assert "## `idle` (es): nada asignado" in index
    assert '<img src="idle-en-128x64.png" width="384" height="192" alt="idle 128x64">' in index


def test_a_refused_input_breaks_the_scene() -> None:
    play = Play("es", Table())
    play.do("assign", 0.0, match_id="G1-1", players={"a": "Ana", "b": "Beto"}, length=3)
    assert play.now == 0.0
    with pytest.raises(AssertionError, match="scene input refused: checkin"):
        play.do("checkin", 1.0, side="z")
    assert play.wait(2.5).now == 3.5
