"""Silent loss: a Wi-Fi that stops carrying bytes without closing anything, mid-game.

Two real tables (runtime, gpiozero mock buttons, luma's dummy display, durable outbox, the real
MQTT link with the screen's link indicator as ``mesa table`` wires it) play against a real
Mosquitto and an in-process hub with its dashboard served over HTTP. Every connection goes
through a :class:`~support.faultproxy.FaultProxy`; the schedule of each test:

- ``test_table_blackholed_mid_game``: t1's link is blackholed both ways (sockets kept open) for
  ``2 × keepalive + 2`` s while t1 and t2 keep being played (t2's link stays clean: the
  no-fault run side by side); at the end of the loss t1's players call the director;
- ``test_hub_blackholed_mid_game``: the hub's own link to the broker is blackholed both ways for
  as long, both tables' links clean.

Measured and printed (``pytest -s``; the timings are reported, not asserted beyond generous
bounds): when the grid (``/live.json``, what the director's grid draws) stops showing the table
"en línea" (in seconds and in keepalives), when the table's screen says its link is down, the
press → frame p99 of the blackholed table next to the clean one's, and after the link returns
how soon the grid shows the table again; asserted: 0 events lost, duplicated or reordered
(:mod:`support.checker`), the director's call on the grid, the hub finding the table silent by
its beats (``tables_lost{by=silence}``), the clean table never shown lost, the grid noticing
within 3 × keepalive.

How the grid notices: both tables speak protocol revision 3 with the hub, so each beats every
keepalive / 3 s, and the hub takes a table whose beats stopped for 3 beats (one keepalive) as
lost (:mod:`mesa.hub.ingest.beats`, looked at every 0.25 s): about 1 × keepalive after the
last beat that got through. Without the beats it would wait for the table's will, which
Mosquitto 2.0 publishes late: it looks for silent clients only every 6 s, in whole seconds
(``keepalive__check``: ``if last_keepalive_check + 5 < now``, then ``now - last_msg_in >
keepalive*3/2``), so between 1.5 × keepalive and about 7 s later (24.4 s, 1.63 ×, measured at a
15 s keepalive). The will still comes, and only confirms the loss. On the hub's side the beats
of every table stop at once, so the grid shows them lost after one keepalive too; paho gives up
after one keepalive without a byte and another without the answer to its ping (up to 2 ×), and
from then on the grid shows every table "sin conexión" (:meth:`Projections.broker_lost`) until
the broker hands the hub the tables' retained statuses again.

The keepalive (tables and hub) is ``KEEPALIVE`` s here, to keep each test within about half a
minute; in the product it is 15 s (``LinkSettings.keepalive``, ``HubSettings.keepalive``).
"""

from __future__ import annotations

import contextlib
import os
import statistics
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from gpiozero.pins.mock import MockFactory
from luma.core.device import dummy

from mesa.controller.app import _watch_link
from mesa.controller.display import Display
from mesa.controller.games.backgammon.gestures import GestureRecognizer
from mesa.controller.gestures import GestureSettings
from mesa.controller.gpio import ButtonPad
from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.controller.runtime import TableRuntime
from mesa.engine.inputs import Input
from mesa.engine.outcome import Outcome
from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.ingest.app import Hub
from mesa.hub.settings import HubSettings
from support.checker import check
from support.faultproxy import FaultProxy
from support.harness import ASSIGN_ARGS, wait_until
from support.mosquitto import HUB_PASSWORD, have_mosquitto, start_broker, table_password

pytestmark = pytest.mark.broker

KEEPALIVE = int(os.environ.get("MESA_SILENT_LOSS_KEEPALIVE", "4"))
LOSS = 2 * KEEPALIVE + 2  # longer than both ends need to notice
PINS = {"a": 17, "b": 27}


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class Turns:
    """Notes when each turn end is applied, and the runtime's version then."""

    def __init__(self, runtime: TableRuntime) -> None:
        self.runtime = runtime
        self.turns: list[tuple[float, int]] = []
        self.cond = threading.Condition()

    def on_outcome(self, outcome: Outcome, snapshot: dict[str, Any], now: float) -> None:
        if any(e.TYPE == "turn.ended" for e in outcome.events):
            with self.cond:
                self.turns.append((time.monotonic(), self.runtime.version))
                self.cond.notify_all()


@dataclass
class PlayedTable:
    """One table as ``mesa table`` builds it, buttons pressed through gpiozero's mock pins."""

    tid: str
    port: int
    folder: Path
    factory: MockFactory = field(default_factory=MockFactory)

    def __post_init__(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.rt = TableRuntime(buttons=GestureRecognizer(GestureSettings(), buttons=("a", "b")))
        self.turns = Turns(self.rt)
        self.rt.add_sink(self.turns)
        self.pad = ButtonPad(self.rt, PINS, pin_factory=self.factory)
        device = dummy(width=128, height=64, mode="1")
        self.display = Display(self.rt, lambda: device, fps=10.0)
        self.outbox = Outbox(self.folder / "outbox.sqlite3", self.tid)
        settings = LinkSettings(
            self.tid,
            port=self.port,
            password=table_password(self.tid),
            keepalive=KEEPALIVE,
            reconnect_max=2,
            resend_after=2.0,
        )
        self.link = TableLink(
            settings, self.outbox, submitter=self.rt, snapshot=self.rt.snapshot(), clock=self.rt.now
        )
        self.rt.add_sink(self.link)
        _watch_link(self.rt, self.link)
        self.frames: list[float] = []  # press edge → frame pushed, seconds

    def start(self) -> PlayedTable:
        self.link.start()
        self.rt.start()
        self.display.start()
        return self

    def stop(self) -> None:
        for step in (self.display.stop, self.rt.stop, self.pad.close, self.link.stop):
            with contextlib.suppress(Exception):
                step()
        self.outbox.close()

    @property
    def screen_link(self) -> str:
        return str(self.rt.status.hub)

    def press(self, hold: float = 0.03) -> float | None:
        """Press the button of the side on move; press edge → frame pushed (None: no frame)."""
        side = self.rt.view().on_move
        if side is None:
            return None
        pin = self.factory.pin(PINS[side])
        count = len(self.turns.turns)
        edge = time.monotonic()
        pin.drive_low()
        time.sleep(hold)
        pin.drive_high()
        with self.turns.cond:
            if not self.turns.cond.wait_for(lambda: len(self.turns.turns) > count, 5.0):
                return None
        version = self.turns.turns[-1][1]
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            pushed = next((t for t, v in list(self.display.stats.pushes) if v > version), None)
            if pushed is not None:
                return pushed - edge
            time.sleep(0.001)
        return None


@dataclass
class Room:
    broker: PrivateMosquitto
    hub: Hub
    http: httpx.Client
    tables: dict[str, PlayedTable]
    proxies: dict[str, FaultProxy]  # "t1", "t2", "hub"
    db: Path

    def card(self, tid: str) -> dict[str, Any]:
        cards = self.http.get("/live.json").json().get("tables", [])
        return next((c for c in cards if str(c.get("id")) == tid), {})

    def link(self, tid: str) -> str:
        return str(self.card(tid).get("link"))


@contextlib.contextmanager
def room(tmp: Path) -> Iterator[Room]:
    """Broker, hub (and its dashboard) and two tables, each link through its own proxy; a
    match assigned to each table and started."""
    from mesa.hub.web.app import WebApp
    from mesa.hub.web.http.server import BackgroundServer

    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    broker = start_broker(tmp / "broker")
    proxies = {n: FaultProxy(broker.host, broker.port).start() for n in ("hub", "t1", "t2")}
    settings = HubSettings(
        db=tmp / "hub.sqlite3",
        broker_host="127.0.0.1",
        broker_port=proxies["hub"].port,
        password=HUB_PASSWORD,
        keepalive=KEEPALIVE,
    )
    hub = Hub(settings).start()
    app = WebApp(hub, hub.settings.replace(auto_assign=False))
    server = BackgroundServer(app).start()
    http = httpx.Client(base_url=server.url.rstrip("/"), timeout=10)
    tables: dict[str, PlayedTable] = {}
    try:
        for tid in ("t1", "t2"):
            tables[tid] = PlayedTable(tid, proxies[tid].port, tmp / tid).start()
            hub.register_table(tid)
            hub.assign(tid, {**ASSIGN_ARGS, "match_id": f"M-{tid}", "length": 25})
        r = Room(broker, hub, http, tables, proxies, settings.db)
        for t in tables.values():
            assert wait_until(lambda t=t: t.rt.view().state != "idle", 15), t.rt.view().state
            for inp in (Input("checkin", {"side": "a"}), Input("checkin", {"side": "b"})):
                t.rt.submit(inp, t.rt.now())
            t.rt.submit(Input("press", {"side": "a"}), t.rt.now())
            assert wait_until(lambda t=t: t.rt.view().state == "running", 10)
        assert wait_until(
            lambda: all(
                r.link(t) == "online" and tables[t].screen_link == "online" for t in tables
            ),
            15,
        )
        yield r
    finally:
        http.close()
        for t in tables.values():
            t.stop()
        server.stop()
        app.close()
        hub.stop()
        for p in proxies.values():
            p.stop()
        broker.stop()


class Watch:
    """While the link is down, every 50 ms from its own thread: when each sign of the loss
    appears (the hub's projection, the grid's card, each table's screen, the hub's own link)."""

    def __init__(self, r: Room) -> None:
        self.r = r
        self.since = time.monotonic()
        self.seen: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def note(self, what: str, holds: bool) -> None:
        if holds and what not in self.seen:
            self.seen[what] = time.monotonic() - self.since

    def _run(self) -> None:
        r = self.r
        while not self._stop.wait(0.05):
            for tid, t in r.tables.items():
                self.note(
                    f"hub {tid} not online", (r.hub.table(tid) or {}).get("status") != "online"
                )
                self.note(f"grid {tid} not online", r.link(tid) != "online")
                self.note(f"grid {tid} lost", r.link(tid) == "lost")
                self.note(f"screen {tid} offline", t.screen_link != "online")
            self.note("hub offline", not r.hub.online)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def play_for(r: Room, seconds: float, frames: dict[str, list[float]], key: str) -> None:
    """Press both tables in turn for ``seconds``, each press's edge → frame into ``frames`` under
    ``key/table``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for tid, t in r.tables.items():
            took = t.press()
            if took is not None:
                frames.setdefault(f"{key}/{tid}", []).append(took)
        time.sleep(0.12)  # each table pressed about every 0.35 s, past the double-press guard


def frames_line(frames: dict[str, list[float]]) -> str:
    parts = []
    for k in sorted(frames):
        v = frames[k]
        parts.append(
            f"{k}: n={len(v)} p50 {1000 * statistics.median(v):.1f} ms p99 {1000 * pct(v, 99):.1f} ms"
        )
    return "; ".join(parts)


def finish_and_check(r: Room, healed_at: float, tid: str) -> float:
    """After the heal: every outbox drained, every event in the store once and in order, and the
    table's state on the grid again. Returns the seconds until the grid showed ``tid`` online
    with its latest state."""
    assert wait_until(lambda: r.link(tid) == "online", 30), r.card(tid)
    back = time.monotonic() - healed_at
    assert wait_until(lambda: all(t.outbox.pending == 0 for t in r.tables.values()), 30), {
        k: t.outbox.pending for k, t in r.tables.items()
    }
    report = check([t.outbox.path for t in r.tables.values()], r.db)
    assert report.ok, report.summary()
    assert report.sent == report.stored and report.sent > 20
    print(f"  after the heal: {report.summary()}")
    return back


def test_table_blackholed_mid_game(tmp_path: Path) -> None:
    with room(tmp_path) as r:
        frames: dict[str, list[float]] = {}
        play_for(r, 3.0, frames, "clean")
        before = r.tables["t1"].outbox.last_seq
        r.proxies["t1"].blackhole()  # both ways, the sockets kept open
        watch = Watch(r)
        play_for(r, LOSS, frames, "loss")
        watch.stop()
        t1 = r.tables["t1"]
        t1.rt.submit(Input("pause", {"reason": "director"}), t1.rt.now())  # players call
        assert wait_until(lambda: t1.rt.view().director_call is not None, 5)
        during = t1.outbox.last_seq - before
        lost_card = r.card("t1")
        r.proxies["t1"].heal()
        healed = time.monotonic()
        back = finish_and_check(r, healed, "t1")
        # Back: it beats again, and the hub watches it again.
        assert wait_until(lambda: "t1" in r.hub.ingest.heartbeats.watched(), 10)
        assert wait_until(lambda: bool(r.card("t1").get("director_call")), 10), r.card("t1")
        call_seen = time.monotonic() - healed
        badges = [b["kind"] for b in r.card("t1").get("badges", [])]
        print(
            f"\nSILENT LOSS, table side (keepalive {KEEPALIVE} s, 1.5 × = {1.5 * KEEPALIVE} s): "
            + ", ".join(f"{k} after {v:.1f} s" for k, v in sorted(watch.seen.items()))
            + f"\n  the grid shows t1 lost {in_keepalives(watch, 'grid t1 lost')}"
            f" (found silent by its beats: {r.hub.metrics.get('tables_lost', by='silence')})"
            + f"\n  t1 card while lost: link={lost_card.get('link')} badges="
            f"{[b['kind'] for b in lost_card.get('badges', [])]}; "
            f"{during} events played during the loss"
            f"\n  press → frame: {frames_line(frames)}"
            f"\n  grid shows t1 online again {back:.1f} s after the heal, its director call "
            f"{call_seen:.1f} s after (badges {badges})"
        )
        assert "grid t1 lost" in watch.seen, watch.seen
        assert watch.seen["grid t1 lost"] <= 3 * KEEPALIVE, watch.seen
        assert r.hub.metrics.get("tables_lost", by="silence") == 1  # t1, by its beats
        assert "grid t2 not online" not in watch.seen, watch.seen
        assert "director" in badges
        assert during > 5


def in_keepalives(watch: Watch, what: str) -> str:
    took = watch.seen.get(what)
    return "never" if took is None else f"after {took:.1f} s = {took / KEEPALIVE:.2f} × keepalive"


def test_hub_blackholed_mid_game(tmp_path: Path) -> None:
    with room(tmp_path) as r:
        frames: dict[str, list[float]] = {}
        play_for(r, 3.0, frames, "clean")
        r.proxies["hub"].blackhole()
        watch = Watch(r)
        play_for(r, LOSS, frames, "hub-loss")
        watch.stop()
        cards = {t: r.card(t) for t in r.tables}
        r.proxies["hub"].heal()
        healed = time.monotonic()
        backs = [finish_and_check(r, healed, t) for t in r.tables]
        assert wait_until(lambda: all(t.screen_link == "online" for t in r.tables.values()), 15)
        screens = time.monotonic() - healed
        print(
            f"\nSILENT LOSS, hub side (keepalive {KEEPALIVE} s, 1.5 × = {1.5 * KEEPALIVE} s): "
            + ", ".join(f"{k} after {v:.1f} s" for k, v in sorted(watch.seen.items()))
            + f"\n  the grid shows t1 lost {in_keepalives(watch, 'grid t1 lost')}, "
            f"t2 {in_keepalives(watch, 'grid t2 lost')}"
            + "\n  cards while the hub is cut off: "
            + ", ".join(
                f"{t}: link={c.get('link')} badges={[b['kind'] for b in c.get('badges', [])]}"
                for t, c in cards.items()
            )
            + f"\n  press → frame: {frames_line(frames)}"
            + f"\n  grid online again {max(backs):.1f} s after the heal; screens {screens:.1f} s"
        )
        assert "hub offline" in watch.seen, watch.seen
        assert all(f"grid {t} not online" in watch.seen for t in r.tables), watch.seen
        assert all(f"screen {t} offline" in watch.seen for t in r.tables), watch.seen


def test_a_hub_that_lost_the_broker_shows_no_table_online() -> None:
    from mesa.hub.ingest.projections import Projections
    from mesa.protocol import TableStatus

    p = Projections()
    p.apply_status(TableStatus("t1", "online", 1, 1.0))
    p.apply_status(TableStatus("t2", "offline", 1, 1.0))
    p.broker_lost()
    assert [(d["table"], d["status"]) for d in p.all()] == [("t1", "lost"), ("t2", "offline")]
    p.apply_status(TableStatus("t1", "online", 1, 2.0))  # the retained status, on resubscribing
    assert p.all()[0]["status"] == "online"
