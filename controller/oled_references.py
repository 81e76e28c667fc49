"""What the backgammon and the domino reference screens share: a named scene, a scripted run of a
table's inputs that builds it, and the folder of PNGs with its captioned index.

>>> s = Scene("idle", "es", "nothing assigned", view=None, status=None, now=0.0, sizes=((128, 64),))
>>> s.filename((128, 64))
'idle-es-128x64.png'

Each game keeps its own scenes (``games/backgammon/scenes``, ``games/domino/scenes``); the
golden-image tests compare the renderer with the files written here pixel for pixel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, Self, TypeVar

from PIL.Image import Image

from mesa.controller.runtime import TableStatus

V = TypeVar("V")


class _Machine(Protocol):
    def apply(self, name: str, args: dict[str, Any], *, now: float) -> Any: ...


M = TypeVar("M", bound=_Machine)


@dataclass(frozen=True)
class Scene(Generic[V]):
    name: str
    language: str
    about: str
    view: V
    status: TableStatus
    now: float
    sizes: tuple[tuple[int, int], ...]

    def filename(self, size: tuple[int, int]) -> str:
        return f"{self.name}-{self.language}-{size[0]}x{size[1]}.png"


class Play(Generic[M]):
    """A table driven through its real inputs at scripted times; a refused input is a broken
    scene, not a picture of a refusal."""

    def __init__(self, language: str, table: M) -> None:
        self.language = language
        self.table = table
        self.now = 0.0

    def do(self, name: str, after: float = 1.0, **args: Any) -> Self:
        self.now += after
        out = self.table.apply(name, args, now=self.now)
        if not out.accepted:
            raise AssertionError(f"scene input refused: {name} {args}: {out.refusal}")
        return self

    def wait(self, seconds: float) -> Self:
        self.now += seconds
        return self


# A scene's script: (name, caption, how to reach it: the table driven, the status beside it).
Script = tuple[str, str, Callable[[], tuple["Play[Any]", TableStatus]]]


def collect(
    scripts: Callable[[str], Iterable[Script]],
    view: Callable[[Any, float], V],
    sizes: tuple[tuple[int, int], ...],
    languages: Sequence[str] = ("es", "en"),
) -> list[Scene[V]]:
    """Every scene of ``scripts(language)`` in each language (Spanish first): played, viewed."""
    out = []
    for language in languages:
        for name, about, build in scripts(language):
            play, status = build()
            out.append(
                Scene(name, language, about, view(play.table, play.now), status, play.now, sizes)
            )
    return out


def write_references(
    folder: Path,
    scenes: Iterable[Scene[V]],
    render: Callable[[V, TableStatus, float, tuple[int, int]], Image],
    intro: Sequence[str],
) -> list[Path]:
    """Render every scene at every size into ``folder``, plus ``README.md``: ``intro``, then each
    scene's caption over its images (shown three times their size, so a pixel can be seen)."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    rows = [*intro, ""]
    for scene in scenes:
        rows += [f"## `{scene.name}` ({scene.language}): {scene.about}", ""]
        cells = []
        for size in scene.sizes:
            img = render(scene.view, scene.status, scene.now, size)
            path = folder / scene.filename(size)
            img.save(path, format="PNG", optimize=True)
            written.append(path)
            cells.append(
                f'<img src="{path.name}" width="{size[0] * 3}" height="{size[1] * 3}" '
                f'alt="{scene.name} {size[0]}x{size[1]}">'
            )
        rows += [" ".join(cells), ""]
    index = folder / "README.md"
    index.write_text("\n".join(rows), encoding="utf-8")
    written.append(index)
    return written
