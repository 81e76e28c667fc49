"""Fixtures for the hub's tests: a hub (not connected to any broker), the web app on top, an
in-process HTTP client (``httpx.ASGITransport``) and a table that talks to the hub through its
real ingest path. The helpers they use live in :mod:`support.hubkit`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.settings import HubSettings
from mesa.hub.web.app import WebApp
from support.hubkit import NOW, PASSWORD, FakeTable


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    h = Hub(HubSettings(db=tmp_path / "hub.sqlite3"))
    yield h
    h.close()


@pytest.fixture
def web(hub: Hub) -> Iterator[WebApp]:
    w = WebApp(
        hub,
        hub.settings.replace(director_password=PASSWORD, command_wait=2.0, auto_assign=False),
        now=lambda: NOW,
    )
    yield w
    w.close()


@pytest.fixture
async def client(web: WebApp) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(web.asgi()), base_url="http://mesa.test"
    ) as c:
        yield c


@pytest.fixture
def fake_table(hub: Hub) -> FakeTable:
    t = FakeTable(hub, "3")
    hub.register_table("3")
    t.online()
    return t


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (the system's, driven by Playwright) for a module's browser tests."""
    from support.browser import chromium, chromium_path

    if chromium_path() is None:
        pytest.skip("chromium not installed")
    with chromium() as b:
        yield b
