"""Poison-pill benchmark: an honest table's backlog while another table sends poison pills.

    .venv/bin/python bench/poison_pill.py          # ~40 s

An honest table (a real ``TableLink`` with its durable outbox) plays at a brisk pace (an input
every 50 ms) for ``--seconds``; for the middle of that time a second table sends ten poison pills
a second (a lone surrogate, ``"\\ud800"``, in an event id, a stream or a response txn). The
honest table's backlog (events not yet acknowledged by the hub) is sampled every 50 ms.
Printed: median / p95 / max backlog with and without the pills, the pills refused, and the
batches the hub had to retry or lost. ``--no-parser-check`` lets the pills past the parser, to
measure the second line of defence (a failing batch retried message by message). Everything runs on 127.0.0.1 with a private Mosquitto.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the test helpers (support.*) are not installed

from mesa import protocol  # noqa: E402
from mesa.controller.link import LinkSettings, TableLink  # noqa: E402
from mesa.controller.outbox import Outbox  # noqa: E402
from mesa.games.backgammon.inputs import parse_input  # noqa: E402
from mesa.games.backgammon.machine import Table  # noqa: E402
from mesa.hub.ingest import pipeline  # noqa: E402
from mesa.hub.ingest.app import Hub  # noqa: E402
from mesa.protocol import EventEnvelope, Response, table_topic  # noqa: E402
from support.harness import ASSIGN_ARGS, hub_settings, wait_until  # noqa: E402
from support.mosquitto import start_broker, table_password  # noqa: E402
from support.tables import SimRuntime, next_input  # noqa: E402

POISON = "\ud800"


def pill(table: str, n: int) -> tuple[str, bytes]:
    kind = ("id", "stream", "txn")[n % 3]
    if kind == "txn":
        obj = Response(table, "t" + POISON, True, None, None, time.time()).to_dict()
        return table_topic(table, "response"), json.dumps(obj).encode()
    # Each pill the first event of a stream of its own: it reaches the store, not a gap.
    env = EventEnvelope.build(
        table, f"s-poison-{n}", 1, "clock.resumed", {"by": "players"}, ts=time.time(), t=1.0
    ).to_dict()
    env[kind] = f"{kind}-{n}{POISON}"
    return table_topic(table, "event"), json.dumps(env).encode()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=30.0, help="length of the honest play")
    ap.add_argument("--rate", type=float, default=10.0, help="poison pills a second")
    ap.add_argument(
        "--no-parser-check",
        action="store_true",
        help="let the pills reach SQLite (the ingest's retry, message by message, isolates them)",
    )
    args = ap.parse_args()
    if args.no_parser_check:
        # A lenient parser in front of the checks: the standard library's json takes a lone
        # surrogate, and msgspec's converter (from a parsed object) does not encode strings.
        pipeline.decode = lambda cls, payload, table: protocol.from_obj(
            cls, json.loads(payload), table
        )
    logging.basicConfig(level=logging.ERROR)
    work = Path(tempfile.mkdtemp(prefix="mesa-poison-"))
    broker = start_broker(work / "broker")
    hub = Hub(hub_settings(work / "hub.sqlite3", broker)).start()
    outbox = Outbox(work / "t1.sqlite3", "t1")
    runtime = SimRuntime(Table())
    link = TableLink(
        LinkSettings(table="t1", port=broker.port, password=table_password("t1")),
        outbox,
        runtime,
        clock=runtime.clock,
    )
    runtime.sinks.append(link)
    poisoner = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="poison", protocol=mqtt.MQTTv5)
    poisoner.username_pw_set("t2", table_password("t2"))
    poisoner.connect(broker.host, broker.port)
    poisoner.loop_start()
    poisoning = threading.Event()
    stop = threading.Event()
    sent = 0

    def poison() -> None:
        nonlocal sent
        while not stop.is_set():
            if poisoning.is_set():
                sent += 1
                poisoner.publish(*pill("t2", sent), qos=1)
            time.sleep(1.0 / args.rate)

    samples: dict[bool, list[int]] = {False: [], True: []}

    def sample() -> None:
        while not stop.is_set():
            samples[poisoning.is_set()].append(outbox.pending)
            time.sleep(0.05)

    threads = [threading.Thread(target=f, daemon=True) for f in (poison, sample)]
    try:
        link.start()
        runtime.apply(parse_input("assign", {**ASSIGN_ARGS, "epoch": 1}), 0.0)
        for t in threads:
            t.start()
        rng = random.Random(3)
        start = time.monotonic()
        while time.monotonic() - start < args.seconds:
            elapsed = time.monotonic() - start
            if args.seconds / 4 <= elapsed < 3 * args.seconds / 4:
                poisoning.set()
            else:
                poisoning.clear()
            step = next_input(runtime.table, rng, 0)
            if step is None:
                runtime.apply(parse_input("assign", {**ASSIGN_ARGS, "epoch": 1}), runtime.now)
                continue
            runtime.now += rng.uniform(1, 8)
            runtime.apply(parse_input(*step), runtime.now)
            time.sleep(0.05)
        wait_until(lambda: outbox.pending == 0, 20)
    finally:
        stop.set()
        for t in threads:
            t.join(5)
        poisoner.loop_stop()
        poisoner.disconnect()
        link.stop()
        m = hub.metrics
        refused = m.get("refused", reason="bad_string") + m.get("refused", reason="unstorable")
        stored = hub.store.event_count("t1")
        made = outbox.last_seq
        hub.stop()
        outbox.close()
        broker.stop()
    for label, key in (("without pills", False), ("with pills", True)):
        xs = sorted(samples[key]) or [0]
        print(
            f"honest backlog {label:13}: median {statistics.median(xs):.0f}, "
            f"p95 {xs[int(0.95 * (len(xs) - 1))]}, max {xs[-1]} events ({len(xs)} samples)"
        )
    print(f"pills sent {sent}, refused {refused}; honest events stored {stored} of {made}")
    print(f"batch retries {m.get('batch_retries')}, batch failures {m.get('batch_failures')}")


if __name__ == "__main__":
    main()
