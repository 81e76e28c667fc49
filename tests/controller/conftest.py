"""Fixtures of the table's link tests of every game (``test_link.py``, ``test_link_domino.py``):
a broker account of its own for each test's table and an in-process hub on the session's private
Mosquitto. Here rather than in each file, so both games' links meet the same broker and hub."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.ingest.app import Hub
from support.harness import start_hub
from support.mosquitto import table_password

# One count for the whole session: the broker outlives each test, so no two may share an account.
_ids = itertools.count(1)


@pytest.fixture
def table_id(mosquitto: PrivateMosquitto) -> str:
    table = f"lk{next(_ids)}"
    mosquitto.add_user(table, table_password(table))
    return table


@pytest.fixture
def hub(tmp_path: Path, mosquitto: PrivateMosquitto) -> Iterator[Hub]:
    h = start_hub(tmp_path / "hub.sqlite3", mosquitto)
    yield h
    h.stop()
