"""The fault-run checker: compare what every table sent with what the hub holds.

Jepsen-style, after the faults: each table's outbox lists every event it numbered (the outbox
keeps acknowledged events too); the hub's store lists every event it committed. An event is
*lost* if a table sent it and the store lacks it, *duplicated* if the store holds it twice,
*mismatched* if the store holds different content under its id, *extra* if the store holds an
event of that stream the table never sent; the order is kept if, per stream, the store's commit
order is the tables' seq order.

>>> r = CheckReport(sent=3, stored=3)
>>> r.ok, r.summary()
(True, 'sent 3, stored 3: 0 lost, 0 duplicated, 0 mismatched, 0 extra, 0 out of order')
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mesa.controller.outbox import Outbox


@dataclass
class CheckReport:
    sent: int = 0
    stored: int = 0
    lost: list[tuple[str, int]] = field(default_factory=list)  # (table, seq)
    duplicated: list[str] = field(default_factory=list)  # event ids
    mismatched: list[str] = field(default_factory=list)
    extra: list[tuple[str, int]] = field(default_factory=list)
    out_of_order: list[str] = field(default_factory=list)  # tables

    @property
    def ok(self) -> bool:
        return not (
            self.lost or self.duplicated or self.mismatched or self.extra or self.out_of_order
        )

    def summary(self) -> str:
        return (
            f"sent {self.sent}, stored {self.stored}: {len(self.lost)} lost, "
            f"{len(self.duplicated)} duplicated, {len(self.mismatched)} mismatched, "
            f"{len(self.extra)} extra, {len(self.out_of_order)} out of order"
        )


def check(outboxes: Iterable[str | Path], store: str | Path) -> CheckReport:
    """Compare the outboxes (files) with the hub's store (file); both may still be in use."""
    report = CheckReport()
    sent: dict[str, dict[str, Any]] = {}
    streams: set[tuple[str, str]] = set()
    for path in outboxes:
        table, stream, envelopes = Outbox.read_all(path)
        streams.add((table, stream))
        for env in envelopes:
            sent[env.id] = {
                "table": table,
                "stream": stream,
                "seq": env.seq,
                "type": env.type,
                "data": env.data,
            }
    report.sent = len(sent)

    conn = sqlite3.connect(f"file:{Path(store)}?mode=ro", uri=True, timeout=30)
    try:
        rows = conn.execute(
            "SELECT id, table_id, stream, seq, type, payload FROM events ORDER BY rowid"
        ).fetchall()
    finally:
        conn.close()
    ids = Counter(r[0] for r in rows)
    report.duplicated = sorted(i for i, n in ids.items() if n > 1)
    last_seq: dict[tuple[str, str], int] = defaultdict(int)
    bad_order: set[str] = set()
    for event_id, table, stream, seq, type_name, data in rows:
        if (table, stream) not in streams:
            continue  # a table this check was not given
        report.stored += 1
        mine = sent.get(event_id)
        if mine is None:
            report.extra.append((table, seq))
        elif (mine["table"], mine["stream"], mine["seq"], mine["type"], mine["data"]) != (
            table,
            stream,
            seq,
            type_name,
            json.loads(data)["data"],
        ):
            report.mismatched.append(event_id)
        if seq <= last_seq[(table, stream)]:
            bad_order.add(table)
        last_seq[(table, stream)] = seq
    report.out_of_order = sorted(bad_order)
    stored_ids = set(ids)
    report.lost = sorted((e["table"], e["seq"]) for i, e in sent.items() if i not in stored_ids)
    return report
