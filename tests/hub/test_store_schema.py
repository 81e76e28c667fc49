"""The reference ``mesa restore`` compares with is the store the hub itself makes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mesa.hub.backup import read_schema, schema_problems
from mesa.hub.broker.mosquitto import free_port
from mesa.hub.process import HubProcess
from mesa.hub.store_schema import hub_schema
from support.harness import hub_settings


def test_the_reference_holds_every_part_of_the_hub() -> None:
    schema = hub_schema()
    for name in ("events", "commands_by_table", "t_audit", "t_audit_no_delete", "web_audit",
                 "web_desk", "d_audit_no_update", "enrol_pending", "sqlite_sequence"):
        assert name in schema.objects, name
    assert {"meta", "events", "streams", "tables", "commands", "assignments"} == schema.required


def test_a_store_the_running_hub_wrote_is_the_reference(tmp_path: Path, mosquitto: Any) -> None:
    """``mesa hub`` (the process: ingest, desks, dashboard) on a real broker writes nothing the
    reference lacks, and every object it writes is defined as the reference's."""
    db = tmp_path / "hub.sqlite3"
    settings = hub_settings(db, mosquitto, port=free_port(), director_password="pw-director-1")
    process = HubProcess(settings).start()
    process.stop()
    written = read_schema(db)
    assert schema_problems(written, hub_schema()) == []
    missing = set(hub_schema().objects) - set(written)
    enrol = ("pending", "adopted", "answers", "requests")
    assert missing == {f"enrol_{t}" for t in (*enrol, "audit")} | {
        f"sqlite_autoindex_enrol_{t}_1" for t in enrol
    }  # the enrolment desk runs only with its credentials
