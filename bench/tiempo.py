""""TIEMPO" for the whole room: the spread between the first and the last domino table starting.

    .venv/bin/python bench/tiempo.py                 # 50 and 200 tables, ~1 minute
    .venv/bin/python bench/tiempo.py --tables 50 --trials 10

A real private Mosquitto on 127.0.0.1, a real hub (``Hub.domino_assign_many``: one commit, then
one retained ``DominoAssignment`` per table), and N light simulated tables: one MQTT client each
(the table's own account and ACL), subscribed to its ``assign`` topic, applying what it reads to
a real :class:`~mesa.games.domino.machine.DominoTable` (``assign``, then ``tiempo {start_wall, wall}``,
exactly as the table's link does). Each trial assigns a new game to every table, waits until all
of them hold it, then the director's call: "TIEMPO".

Printed per size, over the trials (p50 / p99 / max):

- **delivery spread**: the last table's receipt of "TIEMPO" minus the first's, i.e. how long
  the room's clocks are not all visibly running (goal: p99 < 100 ms);
- **start spread**: the spread of the instants at which the tables' games started, each read
  from its machine (its monotonic start, on this host's common clock): what the 35 minutes are
  counted from. Every table anchors on the hub's one instant, so this is the clocks' jitter;
- **call → last table**: from the hub's call to the last receipt.

Bounded: every wait has a timeout; the broker and the hub are stopped at the end.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the test helpers (support.*) are not installed

from mesa.games.domino.machine import DominoTable  # noqa: E402
from mesa.hub.ingest.app import Hub  # noqa: E402
from mesa.protocol import DominoAssignment, decode, table_topic  # noqa: E402
from support.harness import hub_settings, wait_until  # noqa: E402
from support.mosquitto import start_broker, table_password  # noqa: E402

PLAYERS = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}


class LightTable:
    """One simulated domino table: an MQTT client and the real machine (see the module)."""

    def __init__(self, table: str, host: str, port: int, report: Any = None) -> None:
        self.table = table
        self.report = report  # called with (table, game_id, heard, started) as things happen
        self.machine = DominoTable()
        self.lock = threading.Lock()
        self.game_id: str | None = None
        self.heard: float | None = None  # wall time "TIEMPO" arrived
        self.started: float | None = None  # the game's start, monotonic, from the machine
        self.subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-{table}",
                                  protocol=mqtt.MQTTv5)
        self.client.username_pw_set(table, table_password(table))
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect(host, port)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, *args: object) -> None:
        client.subscribe(table_topic(self.table, "assign"), qos=1)

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        wall, now = time.time(), time.monotonic()
        a = decode(DominoAssignment, msg.payload, self.table)
        with self.lock:
            if a.args is None:
                return
            if a.args["game_id"] != self.game_id:
                self.machine = DominoTable()
                self.machine.apply("assign", a.args, now=now)
                self.game_id, self.heard, self.started = a.args["game_id"], None, None
                if self.report is not None:
                    self.report(self.table, self.game_id, None, None)
            if a.tiempo is not None and self.heard is None:
                out = self.machine.apply("tiempo", {"start_wall": a.tiempo, "wall": wall},
                                         now=now)
                assert out.accepted, out.refusal
                game = self.machine.s.game
                assert game is not None and game.started_at is not None
                self.heard, self.started = wall, game.started_at
                if self.report is not None:
                    self.report(self.table, self.game_id, wall, game.started_at)

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def worker(ids: list[str], host: str, port: int, out: Any, stop: Any) -> None:
    """A child process holding some of the tables (real tables are separate machines; one
    process holding 200 MQTT clients would measure its own GIL)."""
    tables = [LightTable(t, host, port, lambda *r: out.put(r)) for t in ids]
    if wait_until(lambda: all(t.subscribed.is_set() for t in tables), timeout=60):
        out.put(("ready", len(ids), None, None))
    stop.wait(600)
    for t in tables:
        t.stop()


def run_size(
    hub: Hub, host: str, port: int, ids: list[str], trials: int, procs: int
) -> dict[str, list[float]]:
    ctx = mp.get_context("fork")
    out, stop = ctx.Queue(), ctx.Event()
    chunks = [ids[i::procs] for i in range(procs)]
    children = [ctx.Process(target=worker, args=(c, host, port, out, stop), daemon=True)
                for c in chunks if c]
    for c in children:
        c.start()
    result: dict[str, list[float]] = {"delivery": [], "start": [], "last": [], "publish": []}
    state: dict[str, tuple[str | None, float | None, float | None]] = {}

    def drain(until: Any, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not until():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                table, gid, heard, started = out.get(timeout=min(left, 0.5))
            except Exception:
                continue
            if table == "ready":
                state[f"ready{len(state)}"] = (None, None, None)
            else:
                state[table] = (gid, heard, started)
        return True

    try:
        ready = len(children)
        if not drain(lambda: sum(k.startswith("ready") for k in state) >= ready, 90):
            raise SystemExit("the simulated tables did not all subscribe in time")
        for trial in range(trials):
            gid = f"B{len(ids)}-T{trial}"
            games = {t: {"game_id": gid, "players": PLAYERS} for t in ids}
            hub.domino_assign_many(games)
            if not drain(lambda g=gid: all(state.get(t, (None,))[0] == g for t in ids), 30):
                raise SystemExit(f"trial {trial}: not every table got its game")
            call = time.time()
            hub.domino_assign_many(games, tiempo=call)
            published = time.time()
            if not drain(lambda: all(state[t][1] is not None for t in ids), 30):
                raise SystemExit(f"trial {trial}: not every table heard TIEMPO")
            heard = [state[t][1] or 0.0 for t in ids]
            starts = [state[t][2] or 0.0 for t in ids]
            result["delivery"].append(max(heard) - min(heard))
            result["start"].append(max(starts) - min(starts))
            result["last"].append(max(heard) - call)
            result["publish"].append(published - call)
    finally:
        stop.set()
        for c in children:
            c.join(10)
            if c.is_alive():
                c.kill()
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, nargs="*", default=[50, 200])
    ap.add_argument("--trials", type=int, default=20)
    # Each real table is a Pi of its own; here one Python process reads the messages of many
    # simulated tables one after another, which adds its own queue to the spread. Eight
    # processes keep that queue short without starving two cores.
    ap.add_argument("--procs", type=int, default=8, help="processes holding the tables")
    args = ap.parse_args()
    most = max(args.tables)
    ids = [f"tt{i}" for i in range(1, most + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        broker = start_broker(Path(tmp) / "broker", tables=tuple(ids))
        hub = Hub(hub_settings(Path(tmp) / "hub.sqlite3", broker)).start()
        try:
            for t in ids:
                hub.register_table(t)
            print(f"TIEMPO spread, {args.trials} calls per size, real Mosquitto on "
                  f"{broker.host}:{broker.port}")
            print(f"{'tables':>6}  {'delivery spread ms p50/p99/max':>32}  "
                  f"{'start spread ms p50/p99/max':>30}  {'call→last ms p50/p99':>22}")
            for n in args.tables:
                r = run_size(hub, broker.host, broker.port, ids[:n], args.trials, args.procs)
                ms = {k: [v * 1000 for v in vs] for k, vs in r.items()}
                d, s, last = ms["delivery"], ms["start"], ms["last"]
                print(f"{n:>6}  {statistics.median(d):10.1f} {pct(d, 99):9.1f} {max(d):9.1f}  "
                      f"{statistics.median(s):9.3f} {pct(s, 99):9.3f} {max(s):9.3f}  "
                      f"{statistics.median(last):10.1f} {pct(last, 99):9.1f}")
                goal = "met" if pct(d, 99) < 100 else "NOT met"
                pub = ms["publish"]
                print(f"        the hub's call (commit + {n} publishes): p50 "
                      f"{statistics.median(pub):.1f} ms, max {max(pub):.1f} ms; "
                      f"goal p99 delivery spread < 100 ms: {goal}")
        finally:
            hub.stop()
            broker.stop()


if __name__ == "__main__":
    main()
