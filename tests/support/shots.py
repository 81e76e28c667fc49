"""Where the browser tests put their screenshots and printed PDFs.

``docs/screenshots/`` (linked from docs/dashboard.md) only when ``MESA_SCREENSHOTS=1``
(``make screenshots``): a plain test run must not rewrite committed files. Otherwise they go to
``test-artifacts/screenshots/`` (ignored by git), where a failing run can still be looked at.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DOCS_SHOTS = ROOT / "docs" / "screenshots"


def shots_dir() -> Path:
    folder = (
        DOCS_SHOTS
        if os.environ.get("MESA_SCREENSHOTS") == "1"
        else ROOT / "test-artifacts" / "screenshots"
    )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


SHOTS = shots_dir()


def shot(page: Any, name: str, full: bool = True) -> None:
    """A screenshot of ``page`` (Playwright) as ``<name>.png`` in :data:`SHOTS`."""
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)
