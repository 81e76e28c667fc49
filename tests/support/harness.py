"""Glue for tests that run a hub, tables and a broker together.

>>> wait_until(lambda: True, timeout=0.1)
True
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.ingest.app import Hub
from mesa.hub.settings import HubSettings
from support.mosquitto import HUB_PASSWORD, table_password

if TYPE_CHECKING:
    from mesa.controller.sim import SimTable
    from mesa.hub.web.app import WebApp
    from mesa.hub.web.http.server import BackgroundServer

ASSIGN_ARGS = {
    "match_id": "M1",
    "players": {"a": "Ana", "b": "Beto"},
    "length": 5,
    "clock": {"preset": "singles"},
}


def wait_until(predicate: Callable[[], object], timeout: float = 20.0, step: float = 0.02) -> bool:
    """Poll ``predicate`` until it is true (True) or ``timeout`` passes (False)."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(step)


def hub_settings(db: Path, broker: PrivateMosquitto, **kw: object) -> HubSettings:
    return HubSettings(
        db=db,
        broker_host=broker.host,
        broker_port=broker.port,
        password=HUB_PASSWORD,
        **kw,  # type: ignore[arg-type]
    )


def start_hub(db: Path, broker: PrivateMosquitto) -> Hub:
    return Hub(hub_settings(db, broker)).start()


TESTS = Path(__file__).resolve().parents[1]  # tests/, where ``support`` lives


class Process:
    """A child process that is always cleaned up: ``kill9()``, ``terminate()``, or at exit."""

    def __init__(
        self,
        args: list[str],
        log: Path,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.args = args
        self.log = log
        self.cwd = cwd
        # The children run test helpers (``-m support.tables``), which are not installed.
        base = dict(os.environ if env is None else env)
        base["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(TESTS), base.get("PYTHONPATH", "")) if p
        )
        self.env = base
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Process:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                self.args,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=self.env,
                cwd=self.cwd,
            )
        return self

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill9(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def terminate(self, timeout: float = 10.0) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill9()
        return self.proc.returncode

    def wait(self, timeout: float) -> int | None:
        if self.proc is None:
            return None
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None


@dataclass
class ServedHub:
    """A hub on a real Mosquitto with its dashboard served over HTTP (for a real browser)."""

    broker: PrivateMosquitto
    hub: Hub
    web: WebApp
    server: BackgroundServer

    @property
    def url(self) -> str:
        return self.server.url.rstrip("/")


@contextlib.contextmanager
def served_hub(folder: Path, tables: tuple[str, ...], **web: Any) -> Iterator[ServedHub]:
    """Broker accounts for ``tables``, the hub, and its dashboard with the director password
    and ``web`` settings (``auto_assign`` off unless given); all stopped afterwards."""
    from mesa.hub.web.app import WebApp
    from mesa.hub.web.http.server import BackgroundServer
    from support.mosquitto import start_broker

    broker = start_broker(folder / "broker", tables=tables)
    hub = Hub(hub_settings(folder / "hub.sqlite3", broker)).start()
    app = WebApp(hub, hub.settings.replace(**{"auto_assign": False, **web}))
    server = BackgroundServer(app).start()
    try:
        yield ServedHub(broker, hub, app, server)
    finally:
        server.stop()
        app.close()
        hub.stop()
        broker.stop()


def linked_sim(
    outbox: Path, *, table: str | None = None, port: int = 1883, link_file: str | None = None
) -> SimTable:
    """A simulated table (no robots) on the hub's broker, linked as ``mesa sim --hub`` links
    one (:func:`mesa.controller.app.make_link`): by ``table`` and ``port`` on the test broker,
    or by an enrolled table's ``link_file``. Started; ``stop()`` stops its link too."""
    from mesa.controller.app import make_link
    from mesa.controller.link import LinkSettings
    from mesa.controller.sim import SimTable

    def link(runtime: Any, snapshot: dict[str, Any]) -> Any:
        return make_link(
            runtime,
            table_id=table,
            host="127.0.0.1",
            port=port,
            link_file=link_file,
            password=None if table is None else table_password(table),
            outbox=outbox,
            snapshot=snapshot,
        )

    name = table if link_file is None else LinkSettings.from_file(link_file).table
    sim = SimTable(name, speed=1.0, robots=(), link=link)
    sim.start()
    return sim


def sim_table(
    table: str,
    outbox: Path,
    port: int,
    log: Path,
    *,
    pace: float = 0.005,
    exit_when_acked: bool = True,
) -> Process:
    """A simulated table process (:mod:`support.tables`) against the broker on ``port``."""
    args = [
        sys.executable,
        "-m",
        "support.tables",
        "--table",
        table,
        "--outbox",
        str(outbox),
        "--port",
        str(port),
        "--password",
        table_password(table),
        "--pace",
        str(pace),
    ]
    if exit_when_acked:
        args.append("--exit-when-acked")
    return Process(args, log)


def hub_process(db: Path, port: int, log: Path) -> Process:
    """The hub as its own process (``mesa hub``), for kill -9."""
    env_args = [
        sys.executable,
        "-m",
        "mesa",
        "hub",
        "--db",
        str(db),
        "--broker-port",
        str(port),
    ]
    return Process(env_args, log, env={**os.environ, "MESA_HUB_PASSWORD": HUB_PASSWORD})
