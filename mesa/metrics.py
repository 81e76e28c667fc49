"""Counters the dashboard can show: refusals by reason, events committed, acks sent, …

A counter is a name plus optional labels. Every refusal goes through :meth:`Metrics.refuse`,
which counts it, logs the reason and keeps the last few for the dashboard. Thread-safe; plain
Python so that the table's link can count its own refusals with the same class.

>>> m = Metrics()
>>> m.inc("events_committed", 3)
>>> m.refuse("bad_json", "not JSON: Expecting value", table="3", topic="mesa/v1/table/3/event")
>>> m.snapshot()
{'events_committed': 3, 'refused{reason="bad_json"}': 1}
>>> m.get("refused", reason="bad_json"), m.recent_refusals()[0]["table"]
(1, '3')
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Any

log = logging.getLogger("mesa.metrics")


def _key(name: str, labels: dict[str, str]) -> str:
    if not labels:
        return name
    inner = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    return f"{name}{{{inner}}}"


class Metrics:
    """A registry of monotonically increasing counters, plus the most recent refusals."""

    def __init__(self, keep_refusals: int = 200, logger: logging.Logger | None = None) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}
        self._recent: deque[dict[str, Any]] = deque(maxlen=keep_refusals)
        self._log = logger or log

    def inc(self, name: str, n: int = 1, **labels: str) -> None:
        key = _key(name, labels)
        with self._lock:
            self._counts[key] = self._counts.get(key, 0) + n

    def get(self, name: str, **labels: str) -> int:
        with self._lock:
            return self._counts.get(_key(name, labels), 0)

    def total(self, name: str) -> int:
        """The sum over every label set of ``name``."""
        with self._lock:
            return sum(v for k, v in self._counts.items() if k == name or k.startswith(name + "{"))

    def refuse(
        self,
        reason: str,
        detail: str,
        *,
        table: str | None = None,
        topic: str | None = None,
        level: int | None = logging.WARNING,
    ) -> None:
        """Count a refused message under ``refused{reason=...}`` and log why (``level=None``:
        the caller logs a summary instead, for refusals that come in bursts)."""
        self.inc("refused", reason=reason)
        entry = {
            "at": time.time(),
            "reason": reason,
            "detail": detail,
            "table": table,
            "topic": topic,
        }
        with self._lock:
            self._recent.append(entry)
        if level is not None:
            self._log.log(level, "refused %s (table=%s topic=%s): %s", reason, table, topic, detail)

    def snapshot(self) -> dict[str, int]:
        """Every counter, sorted by key (the JSON the dashboard shows)."""
        with self._lock:
            return dict(sorted(self._counts.items()))

    def recent_refusals(self) -> list[dict[str, Any]]:
        """The latest refusals, newest first."""
        with self._lock:
            return list(reversed(self._recent))
