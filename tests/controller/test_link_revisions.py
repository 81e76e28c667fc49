"""Tables and hub of different releases on a real Mosquitto: they talk at the highest protocol
revision both speak; an older table plays with a newer hub, a newer table with an older hub's
announcement speaks the older revision, and a table too new for its hub says so (on its
screen, and to the hub's grid) and holds back what it has until a hub that can take it."""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from paho.mqtt.properties import Properties

from mesa.controller.app import _watch_link
from mesa.controller.games.backgammon.oled import compose
from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.controller.runtime import TableStatus as ScreenStatus
from mesa.games.backgammon.inputs import parse_input
from mesa.games.backgammon.machine import Table
from mesa.games.backgammon.view import table_view
from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.ingest import app as hub_app
from mesa.hub.ingest.app import Hub
from mesa.hub.web.live import build_card
from mesa.protocol import REVISIONS, Revisions, table_topic
from support.checker import check
from support.harness import ASSIGN_ARGS, start_hub, wait_until
from support.mosquitto import table_password
from support.tables import SimRuntime, play

pytestmark = pytest.mark.broker


@dataclass
class Rig:
    runtime: SimRuntime
    outbox: Outbox
    link: TableLink
    statuses: list[dict[str, Any]]  # every status the table published, as sent
    pumping: threading.Event

    @property
    def table(self) -> Table:
        return self.runtime.table

    def stop(self) -> None:
        self.pumping.clear()
        self.link.stop()
        self.outbox.close()


def rig(table: str, port: int, path: Path, revisions: Revisions = REVISIONS) -> Rig:
    outbox = Outbox(path, table)
    runtime = SimRuntime(Table())
    settings = LinkSettings(table=table, port=port, password=table_password(table), keepalive=5)
    link = TableLink(settings, outbox, runtime, snapshot=runtime.table.snapshot(),
                     clock=runtime.clock, revisions=revisions)  # fmt: skip
    runtime.sinks.append(link)
    statuses: list[dict[str, Any]] = []
    publish = link._client.publish

    def recording(topic: str, payload: Any = None, *a: Any, **kw: Any) -> Any:
        if topic == table_topic(table, "status"):
            statuses.append(json.loads(payload))
        return publish(topic, payload, *a, **kw)

    link._client.publish = recording  # type: ignore[method-assign]
    pumping = threading.Event()
    pumping.set()

    def pump() -> None:
        tick = threading.Event()
        while pumping.is_set():
            runtime.drain()
            tick.wait(0.01)

    threading.Thread(target=pump, daemon=True).start()
    link.start()
    return Rig(runtime, outbox, link, statuses, pumping)


def revision_at_hub(hub: Hub, table: str) -> int | None:
    live = hub.projections.get(table)
    return None if live is None or live.status != "online" else live.revision


def card(hub: Hub, table: str) -> dict[str, Any]:
    live = hub.projections.get(table)
    assert live is not None
    rows = {r["table"]: r for r in hub.store.tables()}
    return build_card(live.to_dict(), rows.get(table, {}), now=0.0)


def a_match(hub: Hub, r: Rig, table: str, tmp_path: Path) -> None:
    """The hub assigns a match; the table plays it through; everything reaches the hub."""
    hub.assign(table, ASSIGN_ARGS)
    assert wait_until(lambda: r.table.state == "assigned", 10)
    r.pumping.clear()
    play(r.runtime, random.Random(3), pace=0)
    assert r.table.state == "match_over" and r.link.flush(10)
    assert wait_until(lambda: r.outbox.pending == 0, 20), r.outbox.pending
    report = check([r.outbox.path], hub.store.path)
    assert report.ok and report.sent == report.stored > 30, report.summary()


def test_an_older_table_plays_with_a_newer_hub(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    """A table of the first revision (it names none and reads no announcement) with this hub."""
    hub.register_table(table_id)
    r = rig(table_id, mosquitto.port, tmp_path / "outbox.sqlite3", Revisions(1, 1))
    try:
        assert wait_until(lambda: revision_at_hub(hub, table_id) == 1, 10)
        a_match(hub, r, table_id, tmp_path)
        assert r.statuses and all("revision" not in s for s in r.statuses)
        assert r.link.hub_mismatch is None
        assert "too_new" not in [b["kind"] for b in card(hub, table_id)["badges"]]
    finally:
        r.stop()


def test_a_table_of_this_release_speaks_the_highest_revision_its_hub_does(
    hub: Hub, mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path
) -> None:
    hub.register_table(table_id)
    r = rig(table_id, mosquitto.port, tmp_path / "outbox.sqlite3")
    try:
        assert wait_until(lambda: revision_at_hub(hub, table_id) == REVISIONS.high, 10)
        # Its first status of the connection names no revision (any hub reads it); once the
        # hub's announcement is read, it says the one they share.
        assert "revision" not in r.statuses[0]
        assert r.statuses[-1]["revision"] == REVISIONS.high
        a_match(hub, r, table_id, tmp_path)
    finally:
        r.stop()


def test_a_table_of_this_release_with_a_hub_of_the_first_revision(
    mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hub that announces nothing (the first release's): the table speaks revision 1, so
    that nothing it sends is what such a hub would refuse (an unknown field)."""
    monkeypatch.setattr(hub_app, "_announcing", lambda packet: Properties(packet))
    hub = start_hub(tmp_path / "hub.sqlite3", mosquitto)
    hub.register_table(table_id)
    r = rig(table_id, mosquitto.port, tmp_path / "outbox.sqlite3")
    try:
        assert wait_until(lambda: r.link.hub_online, 10)
        a_match(hub, r, table_id, tmp_path)
        assert r.statuses and all("revision" not in s for s in r.statuses)
        assert r.link.hub_mismatch is None and revision_at_hub(hub, table_id) == 1
    finally:
        r.stop()
        hub.stop()


class Screen:
    """The runtime's side of the link's display hook (:func:`mesa.controller.app._watch_link`)."""

    def __init__(self) -> None:
        self.status = ScreenStatus(table_id="7")
        self.hooks: list[Any] = []

    def update_status(self, **kw: Any) -> None:
        from dataclasses import replace

        self.status = replace(self.status, **kw)

    def add_iteration_hook(self, hook: Any) -> None:
        self.hooks.append(hook)

    def words(self) -> list[str]:
        """What an idle table's screen says now (the hook run first, as the loop runs it)."""
        for hook in self.hooks:
            hook(0.0)
        return list(compose(table_view(Table(), 0.0), self.status, 0.0).lines)


def test_a_table_too_new_for_its_hub_says_so_and_holds_back_until_the_hub_is_updated(
    mosquitto: PrivateMosquitto, table_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    future = Revisions(REVISIONS.high + 1, REVISIONS.high + 1)
    hub = start_hub(tmp_path / "hub.sqlite3", mosquitto)
    hub.register_table(table_id)
    hub.assign(table_id, ASSIGN_ARGS)  # retained before the table connects
    r = rig(table_id, mosquitto.port, tmp_path / "outbox.sqlite3", future)
    screen = Screen()
    _watch_link(screen, r.link)  # type: ignore[arg-type]
    try:
        # The table: it knows, and says so on its screen.
        assert wait_until(lambda: r.link.hub_mismatch == "hub_too_old", 10)
        assert not r.link.hub_online
        assert wait_until(lambda: screen.words()[-2:] == ["Hub antiguo:", "actualícelo"], 5)
        # The hub: its status names the revision the hub does not speak; the grid says so.
        assert wait_until(lambda: revision_at_hub(hub, table_id) == future.low, 10)
        assert "too_new" in [b["kind"] for b in card(hub, table_id)["badges"]]
        # It applies nothing the hub sends (the hub's status is read before the retained
        # assignment), and sends nothing but its status.
        assert r.table.state == "idle"
        hub.assign(table_id, {**ASSIGN_ARGS, "match_id": "G1-2"})
        assert not wait_until(lambda: r.table.state != "idle", 1)
        r.runtime.apply(parse_input("assign", ASSIGN_ARGS), 1.0)  # set up at the table itself
        assert r.link.flush(5) and r.outbox.last_seq >= 1
        assert not wait_until(lambda: hub.store.event_count(table_id) > 0, 2)
        assert r.outbox.pending == r.outbox.last_seq
    finally:
        hub.stop()
    # The hub is updated to one that speaks the table's revision: what the table kept arrives.
    monkeypatch.setattr(hub_app, "REVISIONS", Revisions(1, future.high))
    updated = start_hub(tmp_path / "hub.sqlite3", mosquitto)
    try:
        assert wait_until(lambda: r.link.hub_online and r.link.hub_mismatch is None, 10)
        assert wait_until(lambda: r.outbox.pending == 0, 20), r.outbox.pending
        assert updated.store.event_count(table_id) == r.outbox.last_seq
        assert wait_until(lambda: screen.words()[-1:] != ["actualícelo"], 5)
    finally:
        r.stop()
        updated.stop()


@pytest.mark.parametrize(("language", "words"), [("es", "Hub antiguo: actualícelo"),
                                                 ("en", "Hub too old: update it")])  # fmt: skip
def test_a_domino_table_says_its_hub_is_too_old(language: str, words: str) -> None:
    from mesa.controller.games.domino.oled import compose as domino_compose
    from mesa.games.domino.machine import DominoTable
    from mesa.games.domino.view import domino_view

    view = domino_view(DominoTable(), 0.0)
    status = ScreenStatus(table_id="7", language=language, hub="too_old")
    assert words in domino_compose(view, status, 0.0).lines
    online = ScreenStatus(table_id="7", language=language, hub="online")
    assert words not in domino_compose(view, online, 0.0).lines
