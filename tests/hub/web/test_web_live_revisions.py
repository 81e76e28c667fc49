"""The grid names a table too new for its hub (its protocol revision above the hub's highest)
instead of showing it as merely quiet; an older table's card shows nothing of the sort."""

from __future__ import annotations

import time

import httpx
import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from mesa.hub.web.live import badges
from mesa.protocol import REVISIONS, TableStatus
from support.hubkit import FakeTable

pytestmark = pytest.mark.anyio


def status(table: FakeTable, revision: int) -> None:
    msg = TableStatus(table.id, "online", table.bdseq, time.time(), revision=revision)
    table._ingest([("status", msg.to_payload())])


def test_the_badge_is_for_a_revision_above_the_hubs_only() -> None:
    card = {"link": "online", "state": "idle", "players": {}}
    assert badges({**card, "revision": 1}) == [] and badges(card) == []
    assert badges({**card, "revision": REVISIONS.high}) == []
    assert badges({**card, "revision": REVISIONS.high + 1}) == [
        {"kind": "too_new", "level": "alert", "revision": REVISIONS.high + 1}
    ]


async def test_the_grid_shows_a_table_too_new_for_its_hub(
    client: httpx.AsyncClient, web: WebApp, hub: Hub, fake_table: FakeTable
) -> None:
    fake_table.online()  # a table of the first revision: its status names none
    older = FakeTable(hub, "4")
    hub.register_table("4")
    older.online()
    status(older, REVISIONS.high)  # one of this release, after hearing the hub's revisions
    newer = FakeTable(hub, "5")
    hub.register_table("5")
    status(newer, REVISIONS.high + 1)
    web.poller.poll()
    revisions = [getattr(hub.projections.get(t), "revision", None) for t in "345"]
    assert revisions == [1, REVISIONS.high, REVISIONS.high + 1]
    es = (await client.get("/live")).text
    en = (await client.get("/live?lang=en")).text
    assert es.count("Mesa más nueva que el hub: actualice el hub") == 1
    assert en.count("Table newer than the hub: update the hub") == 1
    # On table 5's card (the last one): the one table whose revision this hub does not speak.
    assert es.index("Mesa 3") < es.index("Mesa 4") < es.index("Mesa 5")
    assert es.index("Mesa más nueva que el hub") > es.index("Mesa 5")
