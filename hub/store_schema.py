"""The hub's store as this version of the hub makes it: what ``mesa restore`` compares a backup
with.

:func:`create_store` opens every part of the hub on a file the way ``mesa hub`` does (the
ingest's event store, the tournament desk, the dashboard with its domino desk, the enrolment
desk's tables), starts nothing and closes them again, so the reference is the code's own
``CREATE`` statements and migrations, never a list kept by hand beside them.
:func:`hub_schema` reads such a fresh store; the ingest's tables are the ones every hub store
has (the other parts make theirs when they first run). Its ``version`` is the store version
the same code stamps on a store it makes (:mod:`mesa.hub.store_version`), so a restored store
must carry the version a fresh one has (an older one is migrated first, a newer one refused).

>>> schema = hub_schema()
>>> "events" in schema.required and "t_audit_no_delete" in schema.objects
True
>>> from mesa.hub.store_version import STORE_VERSION
>>> schema.version == STORE_VERSION
True
"""

from __future__ import annotations

import functools
import gc
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mesa.hub.backup import StoreSchema


def create_store(db: str | Path) -> None:
    """Open every part of the hub on ``db`` (made if missing) and close them: the tables,
    indexes and triggers the hub writes are all there afterwards."""
    _open_every_part(Path(db))
    # Some parts' read connections (per thread) are closed only when collected: release the
    # file now; a store left open looks, to `mesa restore`, like a running hub's.
    gc.collect()


def _open_every_part(db: Path) -> None:
    from mesa.hub.broker.enrolment import EnrolmentStore
    from mesa.hub.desk.make import make_desk
    from mesa.hub.ingest.app import Hub
    from mesa.hub.settings import HubSettings
    from mesa.hub.web.app import WebApp

    settings = HubSettings(db=db)
    hub = Hub(settings)  # not started: no broker
    try:
        desk = make_desk(hub, settings)
        try:
            WebApp(hub, settings, desk=desk).close()  # its store and the domino desk's
        finally:
            desk.close()
        EnrolmentStore(settings.db).close()
    finally:
        hub.close()


def _create_core(db: Path) -> None:
    from mesa.hub.ingest.app import Hub
    from mesa.hub.settings import HubSettings

    Hub(HubSettings(db=db)).close()


@functools.cache
def hub_schema() -> StoreSchema:
    """The schema of a fresh hub store; ``required``: the tables of the ingest's store."""
    from mesa.hub.backup import StoreSchema, read_schema
    from mesa.hub.store_version import file_version

    with tempfile.TemporaryDirectory(prefix="mesa-schema-") as tmp:
        full, core = Path(tmp) / "full.sqlite3", Path(tmp) / "core.sqlite3"
        create_store(full)
        _create_core(core)
        objects = read_schema(full)
        required = frozenset(o.name for o in read_schema(core).values() if o.type == "table")
        version = file_version(full)
    return StoreSchema(objects, required, version)
