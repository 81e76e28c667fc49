"""A club evening under chaos: a real Mosquitto, the hub as its own process, robot tables in
accelerated time, a director who clicks everything the dashboard offers, tables that drop off the
network, kill -9s, hostile tables; and after every step, the invariants.

The evening: the tournament is set up through the director's forms (create, import a ranking,
register, one registered by mistake and taken off, check-ins, draw the groups with the seed); the
hub hands matches to the tables; every step (``step`` wall seconds) the harness reads
``/director/tournament.json`` and ``/live.json``, does the director's routine (dice for ties,
clear calls, resume a paused table, now and then settle a correction conflict), maybe intervenes,
and crawls a few pages; once the tournament is finished it closes it and checks the final list.

An evening may hold several events (``events``, ``domino``): the novatos category on the same
tables (its own players, and some of the open's, registered with the override their category
needs), and the domino room on its own tables (two of its players in a backgammon event; its
rounds refused while one of them plays backgammon, then confirmed now and then, else started
once they are free; :mod:`support.evening_domino`). The director's pages and forms then name
their event (``t``); each intervention is made on one event's pages, drawn with the seed.

Interventions (``kinds_for``), each drawn with ``random.Random(seed)``: every form of
``/director/tables/<id>`` (pause with a reason or a dispute, resume, clear call, clock adjustment,
lost delay, score correction at the table, clock preset, forfeit at the table), of
``/director/matches/<id>`` (forfeit off the tables, assign, move, unassign, enter a result,
correct a result), of ``/director/tournament`` and ``/director`` (both or all three conflict
choices, sanctions "left" and "no_show", dice, Último Chance, closing too early), malformed and
forged requests, and any form the harness has no recipe for (filled generically, e.g. a future
"free table"); faults: a table's network cut for a while (a proxy in front of the broker), kill -9
of the table process and of the hub (restarted); hostile tables speaking with a table's account:
a late ``match.ended`` for a match the table no longer holds, ``table.assigned{old match}`` then
``score.corrected``, a second ``match.ended`` with another score, a retained state whose
``snapshot.match.score`` is 5, a score and a name carrying ``<img onerror>``, a lone surrogate in
an event id, a burst of unknown card ids.

Invariants, and the violation kind each breach is reported as:

- ``match_on_two_tables``: no match active on two online tables (for ``grace`` seconds);
- ``played_without_table``: no match assigned or playing with ``table: null``;
- ``table_holds_decided_or_moved_match``: no table keeps playing a match that is decided or
  belongs to another table;
- ``result_from_other_table``, ``result_not_sent_by_table``, ``result_landed_on_wrong_match``,
  ``hostile_result_accepted:<attack>``:
  every result recorded from a table came from the match's table and is a score that table
  really reported for that match (its outbox, read-only, is the witness);
- ``page_<5xx>``, ``page_unanswered``, ``json_twin_not_json``, ``xss_unescaped``,
  ``action_<5xx>``, ``form_refused_as_malformed``: every page and its JSON twin answers (the
  links crawled, plus ``/director/matches/<id>`` for every match and ``/director/tables/<id>``),
  no script injected, every action answered, every dashboard form acceptable to its action;
- ``audit_missing``: the audit log holds every action the harness made;
- ``stalled``, ``no_final_list``, ``close_refused``: the evening reaches a published final list;
- ``points_do_not_add_up``, ``points_disagree_with_results``, ``final_list_disagrees_with_engine``,
  ``page_disagrees_with_store``: the final list's points reconcile with the results and with the
  engine (:meth:`Tournament.points` on the stored tournament);
- with several events: ``player_on_two_tables`` (no player seated at two tables at once, in any
  event or game: one snapshot of the store; a domino round the director confirmed with a
  player still at a backgammon match excuses that match only), ``table_given_twice`` (no table
  holding matches of two events), ``event_unfinished`` (every event closes with its final
  list), ``page_of_other_event`` and ``final_list_of_other_event`` (a page naming an event
  shows that one), ``forecast_names_finished_match`` (the desk's forecast,
  :func:`~mesa.hub.desk.timing.evening_time` fed the stored events at every step, never gives
  a decided match an expected start or end), and the points invariants above for each event's
  final list (the domino event's: its places, games and points against its recorded games and
  its engine);
- ``events_lost`` (and duplicated, mismatched, extra, out of order): the hub holds every event
  the tables sent (:mod:`support.checker`);
- ``hub_died``: the hub never exits unless killed.

Used by ``bench/evening.py`` (many evenings, figures) and ``tests/hub/test_evening.py`` (a few
short ones). It talks to the hub only as a director's browser would (HTTP pages, forms, JSON
twins) and reads the SQLite files read-only, so it survives refactors of the hub's internals.

>>> cfg = EveningConfig(seed=3, players=8, tables=4)
>>> cfg.table_ids()
['t1', 't2', 't3', 't4']

The parts: :mod:`support.evening_pages` (forms, links, values a director types) and
:mod:`support.evening_tables` (robot tables, the table process kill -9 hits, hostile tables, the
tables' outboxes as witnesses).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import random
import re
import sqlite3
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import httpx

from mesa.hub.broker.mosquitto import free_port
from mesa.protocol import new_id
from support.evening_domino import (
    ACTION_URL,
    DOMINO_TABLES,
    DominoRoom,
    DominoTables,
    chaos_action,
    check_records,
    stored_domino,
)
from support.evening_events import (
    default_event,
    double_seats,
    double_tables,
    event_ids,
    forecast_of_finished,
    read_store,
    stored_views,
    with_event,
)
from support.evening_pages import Form, PageParser, crawlable, fill, parse_page, route_of, twin
from support.evening_tables import (
    Genuine,
    Hostile,
    HostileUnavailable,
    RobotTable,
    last_seq,
    table_snapshot,
    unacked,
)
from support.evening_wifi import commit_figures, commit_latencies, resets, table_proxy
from support.harness import Process
from support.mosquitto import HUB_PASSWORD, start_broker

log = logging.getLogger("support.evening")

DIRECTOR_PASSWORD = "velada-caos"
XSS = '0"><img src=x onerror=alert(1)>'
XSS_MARK = "<img src=x onerror=alert(1)>"
FREE_STATES = ("idle", "match_over")
NAMES = (
    "ALBA", "BRUNO", "CARMEN", "DIEGO", "ELENA", "FÉLIX", "GLORIA", "HUGO", "INÉS", "JORGE",
    "LUCÍA", "MANUEL", "NURIA", "ÓSCAR", "PAULA", "RAMÓN", "SARA", "TOMÁS", "ÚRSULA", "VÍCTOR",
    "WANDA", "XAVI", "YOLANDA", "ZOE", "ALEX", "BEA", "CÉSAR", "DORA", "EMILIO", "FÁTIMA",
)  # fmt: skip
DOMINO_NAMES = ("DOMINGO", "ENCARNA", "FAUSTINO", "GRACIA", "HIGINIO", "INMA")
NOVATOS = (
    "ADRIÁN", "BELÉN", "CLARA", "DAVID", "EVA", "FERNANDO", "GABRIEL", "HELENA", "IVÁN", "JULIA",
    "KEVIN", "LAURA", "MARIO", "NOELIA", "OLGA", "PEDRO", "QUIQUE", "ROSA", "SERGIO", "TERESA",
)  # fmt: skip

# What a director can do from the dashboard, by where the form lives. Every one is tried.
TABLE_KINDS = (
    "pause", "resume", "clear_call", "adjust_clock", "lose_delay", "correct_score", "set_clock",
    "forfeit_table",
)  # fmt: skip
MATCH_KINDS = (
    "forfeit_match", "assign", "move", "unassign", "record_result", "correct_result",
)  # fmt: skip
TOURNAMENT_KINDS = ("resolve_conflict", "sanction", "roll_dice", "start_consolation", "close_early")
PROBE_KINDS = ("bad_request", "unknown_form")
FAULT_KINDS = ("offline", "kill_table", "kill_hub")
HOSTILE_KINDS = (
    "stale_result", "reassign_correct", "second_end", "bad_snapshot", "xss_score",
    "surrogate_id", "card_burst",
)  # fmt: skip
KNOWN_FORMS = {
    "pause", "resume", "clear_call", "adjust_clock", "lose_delay", "correct_score", "set_clock",
    "forfeit", "assign", "move", "unassign", "record_result", "correct_result",
    "resolve_conflict", "sanction", "roll_dice", "start_consolation", "close",
    "create_tournament", "import_ranking", "register_player", "unregister_player", "check_in",
    "start_groups",
}  # fmt: skip
MATCH_STATUS_FOR = {
    "forfeit_match": ("ready", "assigned", "playing"),
    "assign": ("ready",),
    "record_result": ("ready",),
    "move": ("assigned", "playing"),
    "unassign": ("assigned",),
    "correct_result": ("done",),
}
# Interventions tried per step, each with ``intervention_chance``.
SLOTS = 2
# Refusals the dashboard does not write to the audit log (the request never became an action).
UNAUDITED = {"csrf", "bad_value", "login_required", "unknown_action"}


def kinds_for(chaos: int) -> tuple[str, ...]:
    """The interventions of a chaos level: 0 none, 1 the director, 2 + faults, 3 + hostiles."""
    kinds: tuple[str, ...] = ()
    if chaos >= 1:
        kinds += TABLE_KINDS + MATCH_KINDS + TOURNAMENT_KINDS + PROBE_KINDS
    if chaos >= 2:
        kinds += FAULT_KINDS
    if chaos >= 3:
        kinds += HOSTILE_KINDS
    return kinds


@dataclass
class EveningConfig:
    seed: int = 1
    players: int = 8
    tables: int = 4
    speed: float = 60.0
    chaos: int = 3
    max_wall: float = 300.0  # an evening that has not closed by then is a violation
    stall_after: float = 45.0  # no match decided for this long: stalled
    step: float = 0.4  # wall seconds between steps
    intervention_chance: float = 0.4
    grace: float = 5.0  # a transient state must persist this long to be a violation
    crawl_per_step: int = 3
    workdir: Path = Path("/tmp/mesa-evening")
    # 1: the open tournament alone; 2: the open and the novatos categories on the same tables,
    # some players in both (RULES §4: a club evening holds several events).
    events: int = 1
    # The domino room beside them: a domino event on its own tables, some of its players in
    # a backgammon event too (:mod:`support.evening_domino`).
    domino: bool = False
    # How the robot tables reach the broker (:mod:`support.evening_wifi`): "good", or "bad"
    # (300 ms ± 200 ms each way, 1 % of the connections reset per minute of the evening).
    wifi: str = "good"

    def table_ids(self) -> list[str]:
        return [f"t{i}" for i in range(1, self.tables + 1)]


@dataclass
class Violation:
    kind: str
    detail: str
    step: int


@dataclass
class ActionRecord:
    step: int
    kind: str
    name: str
    status: int | None
    code: str
    message: str = ""
    variant: str = ""  # the conflict choice, the sanction kind
    detail: str = ""  # what the action made (a new domino event's id)


@dataclass
class EveningResult:
    seed: int
    config: dict[str, Any]
    steps: int = 0
    wall: float = 0.0
    finished: bool = False
    violations: list[Violation] = field(default_factory=list)
    actions: list[ActionRecord] = field(default_factory=list)
    interventions: Counter[str] = field(default_factory=Counter)
    decisions_digest: str = ""
    results_digest: str = ""
    matches: int = 0
    unknown_forms: set[str] = field(default_factory=set)
    pages: int = 0
    # Commit latency (table → hub's store) over every event, and the connections reset.
    commits: dict[str, Any] = field(default_factory=dict)
    resets: int = 0

    def by_kind(self) -> Counter[str]:
        return Counter(v.kind for v in self.violations)

    def coverage(self) -> dict[str, Counter[str]]:
        out: dict[str, Counter[str]] = {}
        for a in self.actions:
            name = f"{a.name}:{a.variant}" if a.variant else a.name
            out.setdefault(name, Counter())["ok" if a.status == 200 else a.code or "none"] += 1
        return out


# ── the evening ──────────────────────────────────────────────────────────────
class Evening:
    """One evening; :meth:`run` returns its :class:`EveningResult`. Everything it started is
    stopped at the end, whatever happened."""

    def __init__(self, config: EveningConfig, *, out: Any = None) -> None:
        self.cfg = config
        self.out = out
        self.rng = random.Random(config.seed)
        self.result = EveningResult(config.seed, _config_dict(config))
        self.step = 0
        self.t0 = 0.0
        self.broker: Any = None
        self.hub: Process | None = None
        self.hub_port = 0
        self.http: httpx.Client | None = None
        self.tables: dict[str, RobotTable] = {}
        self.proxies: dict[str, Any] = {}  # CutProxy, or FaultProxy for a bad Wi-Fi
        self.proc_table: str | None = None
        self.proc: Process | None = None
        self.proc_down_until: float | None = None
        self.offline_until: dict[str, float] = {}
        self.wifi_only: dict[str, Any] = {}  # proxies no fault cuts (the kill -9 table's)
        self.hub_down = False
        self.genuine = Genuine()
        self.injections: list[
            tuple[str, str, tuple[int, int], str]
        ] = []  # table, match, score, attack
        self.pending: dict[str, float] = {}  # persistent conditions: key → first seen
        self.touched: set[str] = set()  # the conditions that held at this check
        self.reported: set[str] = set()
        self.page_pool: list[str] = []
        self.pages_seen: set[str] = set()
        self.T: dict[str, Any] = {}
        self.cards: list[dict[str, Any]] = []
        self.limits: Counter[str] = Counter()
        self.decisions: list[tuple[int, str]] = []
        self.last_progress = 0.0
        self.decided = -1
        self.director_paused: dict[str, float] = {}
        # Tables whose retained state a hostile forged: their card shows the forgery until the
        # real table publishes again (its outbox grows past this seq); not the hub's fault.
        self.forged: dict[str, int] = {}
        # The evening's events; the director's pages and forms name one (``t``): the focus.
        self.events = event_ids(config.seed, config.events)
        self.focus = self.events[0]
        self.Ts: dict[str, dict[str, Any]] = {}  # every event's director view
        self.stored: dict[str, dict[str, Any]] = {}  # every event as the store holds it
        self.event_pages = False  # the hub answered a page for a non-default event
        self.room: DominoRoom | None = None  # the domino room, once set up
        self.domino_tables: DominoTables | None = None
        self.dstates: dict[str, Any] = {}  # the domino events as the store holds them
        self.domino_ended = 0

    # ── reporting ────────────────────────────────────────────────────────
    def say(self, text: str) -> None:
        if self.out is not None:
            print(text, file=self.out, flush=True)

    def violation(self, kind: str, detail: str, *, key: str | None = None) -> None:
        """Record a violation once per ``key`` (default: kind and detail)."""
        k = key or f"{kind}|{detail}"
        if k in self.reported:
            return
        self.reported.add(k)
        self.result.violations.append(Violation(kind, detail[:300], self.step))
        self.say(f"  ! seed {self.cfg.seed} step {self.step}: {kind}: {detail[:200]}")

    def persistent(self, key: str, holds: bool, kind: str, detail: str, grace: float) -> None:
        """A violation only if the condition holds for ``grace`` wall seconds (a move or an
        assignment in flight is not one)."""
        now = time.monotonic()
        if not holds:
            self.pending.pop(key, None)
            return
        self.touched.add(key)
        first = self.pending.setdefault(key, now)
        if now - first >= grace:
            self.violation(kind, detail, key=key)

    # ── run ──────────────────────────────────────────────────────────────
    def run(self) -> EveningResult:
        self.t0 = time.monotonic()
        try:
            self._start()
            self._setup_tournament()
            self._start_tables()
            self._loop()
            self._finish()
        except Exception as e:
            log.exception("evening %s failed", self.cfg.seed)
            self.violation("harness_error", f"{type(e).__name__}: {e}")
        finally:
            self._stop()
            self.result.steps = self.step
            self.result.wall = time.monotonic() - self.t0
        return self.result

    # ── processes ────────────────────────────────────────────────────────
    def _start(self) -> None:
        wd = self.cfg.workdir
        wd.mkdir(parents=True, exist_ok=True)
        tables = tuple(self.cfg.table_ids()) + (DOMINO_TABLES if self.cfg.domino else ())
        self.broker = start_broker(wd / "broker", tables=tables)
        self.hub_port = free_port()
        self._start_hub()
        self.http = httpx.Client(
            base_url=f"http://127.0.0.1:{self.hub_port}", timeout=20.0, follow_redirects=False
        )
        self._login()

    def _start_hub(self) -> None:
        wd = self.cfg.workdir
        log_file = wd / "hub.log"
        if log_file.exists():  # keep the killed hub's log apart
            log_file.rename(wd / f"hub-{time.monotonic_ns()}.log")
        env = {
            **os.environ,
            "MESA_HUB_BROKER_PORT": str(self.broker.port),
            "MESA_HUB_PASSWORD": HUB_PASSWORD,
            "MESA_WEB_DIRECTOR_PASSWORD": DIRECTOR_PASSWORD,
            "MESA_WEB_TIME_SCALE": str(self.cfg.speed),
            "MESA_WEB_COMMAND_WAIT": "2",
            "MESA_WEB_LANGUAGE": "es",
        }
        args = [sys.executable, "-m", "mesa", "web", "--db", str(wd / "hub.sqlite3")]
        args += ["--host", "127.0.0.1", "--port", str(self.hub_port)]
        self.hub = Process(args, wd / "hub.log", env=env).start()
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            if not self.hub.alive:
                raise RuntimeError("the hub exited at start: " + _tail(wd / "hub.log"))
            with contextlib.suppress(httpx.HTTPError):
                r = httpx.get(f"http://127.0.0.1:{self.hub_port}/healthz", timeout=2)
                if r.status_code == 200 and r.json().get("hub_online"):
                    self.hub_down = False
                    return
            time.sleep(0.1)
        raise RuntimeError("the hub did not come up: " + _tail(wd / "hub.log"))

    def _start_tables(self) -> None:
        ids = self.cfg.table_ids()
        if self.cfg.chaos >= 2:
            self.proc_table = ids[-1]
        for tid in ids:
            if tid == self.proc_table:
                self._start_proc_table()
                continue
            proxy = self._proxy(tid)
            self.proxies[tid] = proxy
            folder = self.cfg.workdir / "tables" / tid
            self.tables[tid] = RobotTable(tid, proxy.port, folder, self.cfg.speed, self.cfg.seed)
            self.tables[tid].start()
        if self.cfg.domino:
            wd = self.cfg.workdir / "tables" / "domino"
            self.domino_tables = DominoTables(self.broker.port, wd, self.cfg.speed, self.cfg.seed)
            self.domino_tables.start()

    def _proxy(self, tid: str) -> Any:
        """The way ``tid`` reaches the broker: the room's Wi-Fi, its own seed per table."""
        seed = self.cfg.seed * 1000 + self.cfg.table_ids().index(tid)
        return table_proxy(
            self.cfg.wifi, self.broker.host, self.broker.port, speed=self.cfg.speed, seed=seed
        )

    def _start_proc_table(self) -> None:
        assert self.proc_table is not None
        folder = self.cfg.workdir / "tables" / self.proc_table
        port = self.broker.port
        if self.cfg.wifi != "good":  # the same bad Wi-Fi (not pulled: kill -9 is its fault)
            if self.proc_table not in self.wifi_only:
                self.wifi_only[self.proc_table] = self._proxy(self.proc_table)
            port = self.wifi_only[self.proc_table].port
        args = [sys.executable, "-m", "support.evening_tables", "--table", self.proc_table]
        args += ["--port", str(port), "--dir", str(folder)]
        args += ["--speed", str(self.cfg.speed), "--seed", str(self.cfg.seed)]
        folder.mkdir(parents=True, exist_ok=True)
        self.proc = Process(args, self.cfg.workdir / f"{self.proc_table}.log").start()
        self.proc_down_until = None

    def _outbox(self, tid: str) -> Path:
        return self.cfg.workdir / "tables" / tid / "outbox.sqlite3"

    def _stop(self) -> None:
        steps: list[Any] = [t.stop for t in self.tables.values()]
        steps += [p.stop for p in [*self.proxies.values(), *self.wifi_only.values()]]
        if self.domino_tables is not None:
            steps.append(self.domino_tables.stop)
        if self.proc is not None:
            steps.append(self.proc.terminate)
        if self.http is not None:
            steps.append(self.http.close)
        if self.hub is not None:
            steps.append(self.hub.terminate)
        if self.broker is not None:
            steps.append(self.broker.stop)
        for s in steps:
            try:
                s()
            except Exception:
                log.exception("evening: stopping failed")

    # ── HTTP as the director ─────────────────────────────────────────────
    def _login(self) -> None:
        assert self.http is not None
        r = self.http.post("/login", data={"user": "director", "password": DIRECTOR_PASSWORD})
        if r.status_code != 303:
            raise RuntimeError(f"login answered {r.status_code}")

    def get(self, path: str, *, check: bool = True) -> httpx.Response | None:
        """GET a page; a 5xx or no answer while the hub is up is a violation."""
        assert self.http is not None
        if self.hub_down:
            return None
        try:
            try:
                r = self.http.get(path)
            except httpx.TransportError:
                # A kept-alive connection the server has closed (after a 500, say): a browser
                # retries a GET once on a fresh connection; so do we.
                self._fresh_client()
                r = self.http.get(path)
        except httpx.HTTPError as e:
            if self.hub is not None and not self.hub.alive:
                self._hub_died()
                return None
            if check:
                self.violation(
                    "page_unanswered",
                    f"{route_of(path)}: {type(e).__name__}",
                    key=f"unans|{route_of(path)}",
                )
            return None
        self.result.pages += 1
        if r.status_code == 401 and path.startswith("/director"):
            self._login()
            return self.get(path, check=check)
        if r.status_code >= 500:
            self._fresh_client()
            if check:
                self.violation(
                    f"page_{r.status_code}",
                    f"{route_of(path)} (e.g. {path}) {self._last_error()}",
                    key=f"page5xx|{route_of(path)}",
                )
        if check and r.status_code == 200 and XSS_MARK in r.text and not path.endswith(".json"):
            self.violation("xss_unescaped", route_of(path), key=f"xss|{route_of(path)}")
        return r

    def get_json(self, path: str) -> Any:
        r = self.get(path)
        if r is None or r.status_code != 200:
            return None
        try:
            return r.json()
        except ValueError:
            self.violation("json_twin_not_json", route_of(path))
            return None

    def post(
        self,
        kind: str,
        name: str,
        fields: dict[str, str],
        *,
        csrf: bool = True,
        url: str | None = None,
    ) -> ActionRecord:
        """POST a director form as the dashboard's script does (JSON answer); ``url`` for
        another game's actions (``name`` is then what the audit log calls it)."""
        assert self.http is not None
        headers = {"Accept": "application/json"}
        if len(self.events) > 1 and "t" not in fields and url is None:
            fields = {**fields, "t": self.focus}  # the event the director's page is about
        rec = ActionRecord(self.step, kind, name, None, "")
        self.result.actions.append(rec)
        if self.hub_down:
            rec.code = "hub_down"
            return rec
        try:
            r = self.http.post(url or f"/director/actions/{name}", data=fields, headers=headers)
        except httpx.HTTPError as e:
            rec.code = f"no_answer:{type(e).__name__}"
            if self.hub is not None and not self.hub.alive:
                self._hub_died()
            return rec
        rec.status = r.status_code
        try:
            body = r.json()
            rec.code = "" if body.get("ok") else str(body.get("error", "?"))
            rec.message = str(body.get("message", ""))[:200]
            rec.detail = str(body.get("detail", ""))[:200]
        except ValueError:
            rec.code = "not_json"
        if r.status_code >= 500:
            self._fresh_client()
            shown = {k: v for k, v in fields.items() if k != "csrf"}
            self.violation(
                f"action_{r.status_code}",
                f"{name} ({kind}) {shown} {self._last_error()}",
                key=f"a5xx|{name}|{kind}",
            )
        return rec

    def _fresh_client(self) -> None:
        """A new connection pool with the same session cookie."""
        old = self.http
        self.http = httpx.Client(
            base_url=f"http://127.0.0.1:{self.hub_port}",
            timeout=20.0,
            follow_redirects=False,
            cookies=old.cookies if old is not None else None,
        )
        if old is not None:
            old.close()

    def _last_error(self) -> str:
        """The last exception line in the hub's log: what a 500 was (logged just after the
        answer is sent, hence the short wait)."""
        time.sleep(0.3)
        lines = _tail(self.cfg.workdir / "hub.log").splitlines()
        for line in reversed(lines):
            if re.match(r"^[A-Za-z0-9_.]+(Error|Exception|Exit)\b", line):
                return "[" + line.strip()[:160] + "]"
        return ""

    def at(self, path: str, event: str | None = None) -> str:
        """``path`` naming the focus event (or ``event``) when the evening holds several."""
        if len(self.events) == 1:
            return path
        return with_event(path, event or self.focus)

    def csrf(self) -> str:
        r = self.get("/director")
        if r is None:
            return ""
        m = re.search(r'data-csrf="([^"]+)"', r.text) or re.search(
            r'name="csrf" value="([^"]+)"', r.text
        )
        return m.group(1) if m else ""

    def forms_on(self, path: str, name: str) -> list[Form]:
        """The forms called ``name`` on ``path`` (the focus event's page)."""
        path = self.at(path)
        r = self.get(path)
        if r is None or r.status_code != 200:
            return []
        page = parse_page(r.text)
        self._learn(page, path)
        return [f for f in page.forms if f.name == name]

    def _learn(self, page: PageParser, path: str) -> None:
        for link in page.links:
            if crawlable(link) and link not in self.pages_seen:
                self.pages_seen.add(link)
                self.page_pool.append(link)
        for f in page.forms:
            if f.name and f.name not in KNOWN_FORMS:
                self.result.unknown_forms.add(f"{f.name}@{route_of(path)}")

    # ── setting up the tournament through the forms ─────────────────────
    def _setup_tournament(self) -> None:
        cfg = self.cfg
        names = [NAMES[i] if i < len(NAMES) else f"JUGADOR {i + 1}" for i in range(cfg.players)]
        rng = random.Random(f"setup/{cfg.seed}")
        token = self.csrf()
        today = date.today()

        def must(name: str, fields: dict[str, str]) -> None:
            rec = self.post("setup", name, {"csrf": token, **fields})
            if rec.status != 200:
                raise RuntimeError(f"setup {name} {fields}: {rec.status} {rec.code}")

        must(
            "create_tournament",
            {"name": f"Velada {cfg.seed}", "date": today.isoformat(), "id": self.events[0],
             "category": "open", "official": "1", "consolation": "1"},
        )  # fmt: skip
        ranked = names[: max(2, len(names) * 2 // 3)]
        if cfg.domino:  # the domino room's own players, in the registry from the ranking
            ranked += list(DOMINO_NAMES)
        lines = ["nombre;puntos;torneos;ganados;finales"]
        for n in ranked:
            pts = rng.randint(10, 400)
            lines.append(f"{n};{pts // 100},{pts % 100:02d};{rng.randint(1, 9)};0;0")
        must(
            "import_ranking",
            {"csv": "\n".join(lines) + "\n", "year": str(today.year - 1), "category": "open",
             "create_missing": "1"},
        )  # fmt: skip
        for n in [*names, f"INVITADO {cfg.seed}"]:
            must("register_player", {"player_id": "", "new_name": n})
        opened = self._door(must, rng)
        draws = [self._drawn()]
        novatos: list[str] = []
        if len(self.events) > 1:
            # The novatos category the same evening, on the same tables (RULES §4): its own
            # players, and some of the open's in both (their category needs the override).
            self.focus = self.events[1]
            must(
                "create_tournament",
                {"name": f"Novatos {cfg.seed}", "date": today.isoformat(), "id": self.focus,
                 "category": "novatos", "official": "1", "consolation": "1"},
            )  # fmt: skip
            n = max(4, cfg.players // 2)
            novatos = [NOVATOS[i] if i < len(NOVATOS) else f"NOVATO {i + 1}" for i in range(n)]
            for name in novatos:
                must("register_player", {"player_id": "", "new_name": name})
            for pid in rng.sample(opened, max(1, min(len(opened) // 4, 4))):
                must("register_player", {"player_id": pid, "new_name": "", "override": "1"})
            self._door(must, rng)
            draws.append(self._drawn())
            self.focus = self.events[0]
        if cfg.domino:
            self._setup_domino(token, opened, rng)
        self.setup_digest = json.dumps(
            {"names": names, "novatos": novatos, "draw": draws}, sort_keys=True
        )

    def _setup_domino(self, token: str, opened: list[str], rng: random.Random) -> None:
        """The domino room: its event and pairs, two of its players in a backgammon event
        (an open player and, with two events, a novato)."""
        view = self.get_json(self.at("/director/tournament.json", self.events[0])) or {}
        others = {str(p["name"]): str(p["id"]) for p in view.get("others", [])}
        own = [others[n] for n in DOMINO_NAMES if n in others]
        shared = [opened[0]]
        if len(self.events) > 1:
            nov = self.get_json(self.at("/director/tournament.json", self.events[1])) or {}
            novatos = [str(e["id"]) for e in nov.get("entrants", []) if e["id"] not in opened]
            shared.append(novatos[0] if novatos else opened[1])
        else:
            shared.append(opened[1])
        if len(own) < 6:
            raise RuntimeError(f"domino players not in the registry: {sorted(others)}")
        players = [shared[0], own[0], shared[1], own[1], *own[2:6]]
        r = self._domino("setup", "create", {"csrf": token, "name": f"Dominó {self.cfg.seed}"})
        if r.status != 200 or not r.detail:
            raise RuntimeError(f"domino create: {r.status} {r.code} {r.detail}")
        self.room = DominoRoom(self.cfg.seed, players, event=r.detail)
        for a, b in self.room.pairs():
            fields = {"csrf": token, "t": self.room.event, "a": a, "b": b}
            r = self._domino("setup", "register_pair", fields)
            if r.status != 200:
                raise RuntimeError(f"domino register_pair {a} {b}: {r.status} {r.code}")

    def _domino(self, kind: str, name: str, fields: dict[str, str]) -> ActionRecord:
        """POST one of the domino director's forms."""
        return self.post(kind, f"domino_{name}", fields, url=ACTION_URL.format(name=name))

    def _door(self, must: Any, rng: random.Random) -> list[str]:
        """The focus event's door: the one registered by mistake taken off, the check-ins, the
        groups drawn with the evening's seed. Returns who plays."""
        page = self.get_json(self.at("/director/tournament.json")) or {}
        playing = []
        for e in page.get("entrants", []):
            if e["name"].startswith("INVITADO"):  # registered by mistake: taken off again
                must("unregister_player", {"player_id": e["id"]})
                continue
            playing.append(str(e["id"]))
            must("check_in", {"player_id": e["id"], "present": "1"})
            if rng.random() < 0.2:  # marked absent, then present after all
                must("check_in", {"player_id": e["id"], "present": "0"})
                must("check_in", {"player_id": e["id"], "present": "1"})
        must("start_groups", {"seed": str(self.cfg.seed), "groups": ""})
        return playing

    def _drawn(self) -> list[list[str]]:
        groups = self.get_json(self.at("/groups.json")) or {}
        return [
            sorted(str(row.get("name")) for row in g.get("rows", g.get("standings", [])))
            for g in groups.get("groups", [])
        ]

    # ── the loop ─────────────────────────────────────────────────────────
    def _loop(self) -> None:
        kinds = kinds_for(self.cfg.chaos)
        self.last_progress = time.monotonic()
        while True:
            self.step += 1
            # The same draws every step whatever happened: the seed fixes the decisions.
            draws = [(self.rng.random(), self.rng.random()) for _ in range(SLOTS)]
            sub = random.Random(self.rng.getrandbits(64))
            self._tend_faults()
            self._observe()
            if all(self._done(e) for e in self.events) and self._domino_done():
                return
            self._housekeeping(sub)
            for u, pick in draws:
                if not kinds or u >= self.cfg.intervention_chance:
                    continue
                kind = kinds[int(pick * len(kinds))]
                self._focus_on(sub.choice(self.events) if len(self.events) > 1 else None)
                self.decisions.append((self.step, kind))
                self.result.interventions[kind] += 1
                try:
                    self._intervene(kind, sub)
                except HostileUnavailable as e:  # the attack never left: nothing to check
                    log.info("hostile %s not sent: %s", kind, e)
                    self.result.interventions[kind] -= 1
                    self.result.interventions["hostile_unsent"] += 1
                except Exception as e:  # the harness's own fault: said, and the evening goes on
                    log.exception("intervention %s failed", kind)
                    self.violation("harness_error", f"{kind}: {type(e).__name__}: {e}")
            self._crawl(self.cfg.crawl_per_step)
            now = time.monotonic()
            if now - self.t0 > self.cfg.max_wall:
                self.violation(
                    "no_final_list",
                    f"not finished after {self.cfg.max_wall:.0f} s: {self._unfinished()}",
                )
                return
            if now - self.last_progress > self.cfg.stall_after:
                self.violation(
                    "stalled",
                    f"no match decided for {self.cfg.stall_after:.0f} s: {self._unfinished()}",
                )
                return
            time.sleep(self.cfg.step)

    def _done(self, event: str) -> bool:
        info = self.Ts.get(event, {}).get("tournament") or {}
        return bool(info.get("phase") == "closed" or info.get("finished"))

    def _domino_done(self) -> bool:
        if self.room is None:
            return True
        d = self.dstates.get(self.room.event)
        return d is not None and d.phase == "closed"

    def _focus_on(self, event: str | None) -> None:
        """The director turns to ``event``'s pages (None: stays)."""
        if event is not None:
            self.focus = event
        self.T = self.Ts.get(self.focus, {})

    def _unfinished(self) -> str:
        """The undecided matches, and what their tables show (why the evening is stuck)."""
        ms = [
            (e, m)
            for e in self.events
            for m in self.Ts.get(e, {}).get("matches", [])
            if m.get("status") != "done"
        ]
        cards = {str(c.get("id")): c for c in self.cards}
        out = []
        for e, m in ms[:8]:
            text = f"{m['id']}:{m['status']}@{m.get('table')}"
            if len(self.events) > 1:
                text = f"{e}/{text}"
            c = cards.get(str(m.get("table")))
            if c is not None:
                text += f"[{c.get('link')} {c.get('state')} {c.get('match_id')}]"
            out.append(text)
        return ", ".join(out)

    # ── observing and checking ──────────────────────────────────────────
    def _observe(self) -> None:
        views: dict[str, dict[str, Any]] = {}
        for e in self.events:
            T = self.get_json(self.at("/director/tournament.json", e))
            if T is None:
                return
            views[e] = T
        live = self.get_json("/live.json")
        if live is None:
            return
        if len(self.events) > 1 or self.cfg.domino:
            views = self._per_event(views)
        self.Ts = views
        self._focus_on(None)
        self.cards = live.get("tables", [])
        self._check_genuine()
        decided = sum(
            1 for v in views.values() for m in v.get("matches", []) if m.get("status") == "done"
        )
        decided += sum(d.ended for d in self.dstates.values())  # the domino games recorded
        if decided != self.decided:
            self.decided = decided
            self.last_progress = time.monotonic()
        self._check()

    def _per_event(self, views: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """Each event's view: its own page when the hub answers one per event (``t``), else
        the store's (a hub whose pages show only the newest open event). Then the invariant
        across the events: no player seated at two tables (one snapshot of the store)."""
        snapshot = read_store(self.cfg.workdir / "hub.sqlite3")
        self.stored = stored_views(snapshot)
        self.dstates = stored_domino(snapshot)
        out = {}
        for e, page in views.items():
            shown = (page.get("tournament") or {}).get("id")
            if shown == e and e != default_event(self.stored):
                self.event_pages = True  # a page named an event that is not the default
            if shown != e and self.event_pages:
                self.violation(
                    "page_of_other_event",
                    f"/director/tournament.json?t={e} shows {shown}",
                    key=f"other_event|{e}|{shown}",
                )
            out[e] = page if shown == e else self.stored.get(e, page)
        for table, held in double_tables(self.stored).items():
            self.violation(
                "table_given_twice",
                f"{table}: " + ", ".join(f"{e} {m}" for e, m in held),
                key=f"table_twice|{table}|{held}",
            )
        # The forecast (the desk's own, fed these events now) never names a decided match.
        try:
            named = forecast_of_finished(
                self.stored,
                self.cfg.table_ids(),
                datetime.now(),
                [p for d in self.dstates.values() for p, *_ in d.seats],
            )
        except Exception as e:  # the forecast failing on a real evening's state is a finding
            self.violation("forecast_failed", f"{type(e).__name__}: {e}", key="forecast_failed")
            named = []
        for what in named:
            self.violation("forecast_names_finished_match", what, key=f"forecast|{what}")
        domino = [seat for d in self.dstates.values() for seat in d.seats]
        for pid, seats in double_seats(
            {e: self.stored[e] for e in self.events if e in self.stored}, domino
        ).items():
            if self.room is not None and self.room.excused(pid, seats):
                continue  # the director started the domino round knowing they would be late
            where = ", ".join(f"{e} {m} at {t}" for e, t, m in seats)
            self.violation(
                "player_on_two_tables",
                f"{pid}: {where}",
                key=f"double_seat|{pid}|{'|'.join(sorted(t for _, t, _ in seats))}",
            )
        return out

    def _down(self, tid: str) -> bool:
        if tid in self.offline_until:
            return True
        if tid in self.forged:
            if last_seq(self._outbox(tid)) <= self.forged[tid]:
                return True
            del self.forged[tid]
        return tid == self.proc_table and self.proc_down_until is not None

    def _check(self) -> None:
        self.touched = set()
        self._check_now()
        for key in [k for k in self.pending if k not in self.touched]:
            del self.pending[key]  # it stopped holding: it was a transient

    def _held_by(
        self, tid: str, mid: str, card: dict[str, Any]
    ) -> tuple[str, dict[str, Any] | None]:
        """The event and match a table's card plays: the card's own event label when the hub
        gives one, else the event that has ``mid`` at that table (match codes repeat across
        events: G1-1 in the open and in novatos), else the first event that has ``mid``."""
        label = card.get("event")
        if isinstance(label, dict) and label.get("id") in self.Ts:
            e = str(label["id"])
            return e, self._by_id(e).get(mid)
        found = [(e, self._by_id(e).get(mid)) for e in self.events if mid in self._by_id(e)]
        for wanted in (("assigned", "playing"), ("done",)):
            for e, m in found:
                if m is not None and m.get("table") == tid and m.get("status") in wanted:
                    return e, m
        return found[0] if found else ("?", None)

    def _by_id(self, event: str) -> dict[str, dict[str, Any]]:
        return {m["id"]: m for m in self.Ts.get(event, {}).get("matches", [])}

    def _check_now(self) -> None:
        g = self.cfg.grace
        holders: dict[str, list[str]] = {}
        held: dict[str, tuple[str, dict[str, Any] | None]] = {}
        for c in self.cards:
            tid, mid, state = str(c.get("id")), c.get("match_id"), c.get("state")
            if not mid or state in FREE_STATES or c.get("link") != "online":
                continue
            held[tid] = self._held_by(tid, str(mid), c)
            key = str(mid) if len(self.events) == 1 else f"{held[tid][0]}/{mid}"
            holders.setdefault(key, []).append(tid)
        for mid, tids in holders.items():
            self.persistent(
                f"double|{mid}",
                len([t for t in tids if not self._down(t)]) > 1,
                "match_on_two_tables",
                f"{mid} on {tids}",
                g,
            )
        for e in self.events:
            for m in self.Ts.get(e, {}).get("matches", []):
                mid = m["id"] if len(self.events) == 1 else f"{e}/{m['id']}"
                self.persistent(
                    f"notable|{mid}",
                    m.get("status") in ("assigned", "playing") and not m.get("table"),
                    "played_without_table",
                    f"{mid} ({m.get('phase')}) is {m.get('status')} with table null",
                    g,
                )
        for c in self.cards:
            tid, mid = str(c.get("id")), c.get("match_id")
            if tid not in held or self._down(tid):
                continue
            _, m = held[tid]
            stale = m is not None and (
                m.get("status") == "done" or (m.get("table") not in (None, tid))
            )
            self.persistent(
                f"stale|{tid}|{mid}",
                stale,
                "table_holds_decided_or_moved_match",
                f"table {tid} plays {mid} which is {m and m.get('status')} at "
                f"{m and m.get('table')}",
                3 * g,
            )
        for e in self.events:
            # The forecast the page's header carries never names a final already played.
            info = self.Ts.get(e, {}).get("tournament") or {}
            fc = info.get("forecast") or {}
            final = self._by_id(e).get(str(fc.get("final_id") or ""))
            if final is not None and final.get("status") == "done" and fc.get("final_start"):
                self.violation(
                    "forecast_names_finished_match",
                    f"{e} page header: the final {final['id']} is played, forecast {fc}",
                    key=f"forecast_page|{e}|{final['id']}",
                )
        for e in self.events:
            for m in self.Ts.get(e, {}).get("matches", []):
                by = str(m.get("recorded_by") or "")
                if (
                    m.get("score")
                    and by.startswith("table ")
                    and m.get("table")
                    and by[6:] != m["table"]
                ):
                    self.violation(
                        "result_from_other_table",
                        f"{m['id']} held by {m['table']}, result {m['score']} by {by}",
                        key=f"other|{e}|{m['id']}|{by}",
                    )

    def _check_genuine(self) -> None:
        for tid in self.cfg.table_ids():
            self.genuine.read(tid, self._outbox(tid))
        every = [m for e in self.events for m in self.Ts.get(e, {}).get("matches", [])]
        for m in every:
            by = str(m.get("recorded_by") or "")
            if not m.get("score") or not by.startswith("table "):
                continue
            tid = by[6:]
            score = (int(m["score"][0]), int(m["score"][1]))
            if score in self.genuine.scores.get((tid, m["id"]), set()):
                continue
            attack = next((a for t, _mid, s, a in self.injections if t == tid and s == score), None)
            elsewhere = sorted(
                mid
                for (t, mid), scores in self.genuine.scores.items()
                if t == tid and mid != m["id"] and score in scores
            )
            if attack:
                kind = f"hostile_result_accepted:{attack}"
            elif elsewhere:  # a real report of the table, filed under the wrong match
                kind = "result_landed_on_wrong_match"
                by += f" (it reported that score for {', '.join(elsewhere)})"
            else:
                kind = "result_not_sent_by_table"
            self.violation(
                kind,
                f"{m['id']} = {score} by {by}; that table reported "
                f"{sorted(self.genuine.scores.get((tid, m['id']), set()))} for it",
                key=f"genuine|{m['id']}|{score}",
            )

    def _crawl(self, n: int) -> None:
        for _ in range(n):
            if not self.page_pool:
                self._seed_pages()
            if not self.page_pool:
                return
            path = self.page_pool.pop(0)
            r = self.get(path)
            if (
                r is not None
                and r.status_code == 200
                and "text/html" in r.headers.get("content-type", "")
            ):
                self._learn(parse_page(r.text), path)
                json_twin = twin(path)
                if json_twin:
                    self.get(json_twin)

    def _seed_pages(self) -> None:
        self.pages_seen = set()
        base = ["/", "/live", "/groups", "/draw", "/consolation", "/rankings", "/players",
                "/final", "/exports", "/director", "/director/tournament", "/director/audit",
                "/draw/print", "/rankings?kind=rating", "/rankings?kind=annual"]  # fmt: skip
        if len(self.events) > 1:  # every event's pages, and all together (no ``t``)
            base += [with_event(p, e) for e in self.events for p in base]
        for e in self.events:
            base += [
                self.at(f"/director/matches/{m['id']}", e)
                for m in self.Ts.get(e, {}).get("matches", [])
            ]
        base += [f"/director/tables/{tid}" for tid in self.cfg.table_ids()]
        self.page_pool = base
        self.pages_seen.update(base)

    # ── the director's routine (keeps the evening moving) ───────────────
    def _housekeeping(self, rng: random.Random) -> None:
        if self.hub_down:
            return
        focus = self.focus
        for e in self.events:
            self._focus_on(e)
            self._tend_event(rng)
        self._focus_on(focus)
        if self.room is not None:
            self._tend_domino(rng)
        for c in self.cards:
            tid = str(c.get("id"))
            if tid not in self.cfg.table_ids():
                continue  # the domino room's tables have their own routine
            paused = c.get("paused") or {}
            if c.get("director_call") and c.get("link") == "online":
                self._table_form("housekeeping", tid, "clear_call", rng)
            if paused and c.get("link") == "online":
                first = self.director_paused.setdefault(tid, time.monotonic())
                if time.monotonic() - first > 2.0:
                    self._table_form("housekeeping", tid, "resume", rng)
                    self.director_paused.pop(tid, None)
            else:
                self.director_paused.pop(tid, None)

    def _tend_domino(self, rng: random.Random) -> None:
        """The domino room's routine: the next round (refused while one of its players plays
        backgammon: then confirmed now and then, else tried again once they are free),
        "TIEMPO" for it, and closing after the last round."""
        room = self.room
        assert room is not None
        state = self.dstates.get(room.event)
        if self.cfg.chaos and state is not None and state.rounds and not room.closed \
                and rng.random() < min(0.9, 0.3 * self.cfg.chaos):
            for _ in range(rng.randint(1, 2 * self.cfg.chaos)):
                self._domino_chaos(state, rng)
        what = room.next_step(state, rng)
        if what is None or state is None:
            return
        t = {"csrf": self.csrf(), "t": room.event}
        if what == "tiempo":
            if self._domino("domino", "tiempo", t).status == 200:
                room.tiempo_called = state.rounds
                room.count("tiempo")
        elif what == "close":
            r = self._domino("domino", "close", t)
            room.closed = r.status == 200
            if not room.closed:
                self.violation("close_refused", f"{room.event}: {r.status} {r.code}")
        else:
            r = self._domino("domino", "start_round", {**t, "confirm": ""})
            if r.status == 200:
                room.count("round_started_free")
            elif r.code == "players_busy" and rng.random() < 0.5:
                r = self._domino("domino", "start_round", {**t, "confirm": "1"})
                if r.status == 200:
                    room.count("round_confirmed_late")
                    self._note_late(room)
            elif r.code == "players_busy":
                room.count("round_refused_waiting")
            elif r.code in ("too_few_pairs", "too_few_players"):  # expelled: no next round
                room.closed = self._domino("domino", "close", t).status == 200

    def _domino_chaos(self, state: Any, rng: random.Random) -> None:
        """A fine, an annulled hand, a late arrival, an absence or an abandonment at a random
        moment of the domino room's games (:func:`support.evening_domino.chaos_action`)."""
        room = self.room
        assert room is not None
        picked = chaos_action(state.data, rng)
        if picked is None:
            return
        kind, form, fields = picked
        r = self._domino("domino_records", form, {"csrf": self.csrf(), "t": room.event,
                                                  **fields})
        said = room.ledger.note(kind, r.status, r.code)
        self.result.interventions[f"domino_{kind} {said}"] += 1

    def _note_late(self, room: DominoRoom) -> None:
        """After a round confirmed with players at backgammon tables: each of them, and the
        match they are playing (the only one they may hold while their domino game waits)."""
        snapshot = read_store(self.cfg.workdir / "hub.sqlite3")
        views = stored_views(snapshot)
        for e, v in views.items():
            for m in v.get("matches", []):
                if m.get("status") not in ("assigned", "playing"):
                    continue
                for side in ("a", "b"):
                    pid = (m.get(side) or {}).get("id")
                    if pid in room.players:
                        room.late[(str(pid), room.event)] = (e, str(m["id"]))

    def _tend_event(self, rng: random.Random) -> None:
        """The focus event's routine: dice for ties, now and then a correction conflict."""
        if self.T.get("pending_dice"):
            for f in self.forms_on("/director", "roll_dice")[:1]:
                self._submit("housekeeping", f, rng)
        if (
            any(c.get("status") == "open" for c in self.T.get("conflicts", []))
            and rng.random() < 0.3
        ):
            forms = self.forms_on("/director/tournament", "resolve_conflict")
            if forms:
                self._submit("housekeeping", rng.choice(forms), rng)

    def _tend_faults(self) -> None:
        now = time.monotonic()
        for tid, until in list(self.offline_until.items()):
            if now >= until:
                self.proxies[tid].restore()
                del self.offline_until[tid]
        if self.proc_down_until is not None and now >= self.proc_down_until:
            self._start_proc_table()
        if self.hub is not None and not self.hub.alive and not self.hub_down:
            self._hub_died()

    def _hub_died(self) -> None:
        """The hub exited without being killed by us: a violation, then restart it."""
        self.violation("hub_died", _tail(self.cfg.workdir / "hub.log")[-300:], key="hub_died")
        self._restart_hub()

    def _restart_hub(self) -> None:
        self.hub_down = True
        self._start_hub()
        self._fresh_client()
        self._login()

    # ── interventions ────────────────────────────────────────────────────
    def _intervene(self, kind: str, rng: random.Random) -> None:
        if kind in TABLE_KINDS:
            tid = self._pick_table(rng)
            name = "forfeit" if kind == "forfeit_table" else kind
            if tid is not None:
                self._table_form(kind, tid, name, rng)
        elif kind in MATCH_KINDS:
            self._match_form(kind, rng)
        elif kind == "resolve_conflict":
            forms = self.forms_on("/director/tournament", "resolve_conflict")
            if forms:
                self._submit(kind, rng.choice(forms), rng)
        elif kind == "sanction":
            if self.limits["sanction"] < 2:
                for f in self.forms_on("/director/tournament", "sanction"):
                    self.limits["sanction"] += 1
                    self._submit(kind, f, rng)
        elif kind == "roll_dice":
            for f in self.forms_on("/director", "roll_dice")[:1]:
                self._submit(kind, f, rng)
        elif kind == "start_consolation":
            for f in self.forms_on("/director/tournament", "start_consolation"):
                self._submit(kind, f, rng)
        elif kind == "close_early":
            for f in self.forms_on("/director/tournament", "close"):
                self._submit(kind, f, rng)
        elif kind == "bad_request":
            self._bad_request(rng)
        elif kind == "unknown_form":
            self._unknown_form(rng)
        elif kind in FAULT_KINDS:
            self._fault(kind, rng)
        elif kind in HOSTILE_KINDS:
            self._hostile(kind, rng)

    def _pick_table(self, rng: random.Random) -> str | None:
        ids = self.cfg.table_ids()  # the backgammon tables (the domino room's are left alone)
        busy = [
            str(c["id"]) for c in self.cards if c.get("state") not in FREE_STATES and c["id"] in ids
        ]
        pool = busy if busy and rng.random() < 0.8 else ids
        return rng.choice(sorted(pool)) if pool else None

    def _table_form(self, kind: str, tid: str, name: str, rng: random.Random) -> None:
        forms = self.forms_on(f"/director/tables/{tid}", name)
        card = next((c for c in self.cards if str(c.get("id")) == tid), {})
        if forms:
            self._submit(kind, forms[0], rng, length=int(card.get("length") or 3))

    def _match_form(self, kind: str, rng: random.Random) -> None:
        statuses = MATCH_STATUS_FOR[kind]
        pool = [m for m in self.T.get("matches", []) if m.get("status") in statuses]
        if not pool:
            return
        m = rng.choice(pool)
        name = "forfeit" if kind == "forfeit_match" else kind
        forms = self.forms_on(f"/director/matches/{m['id']}", name)
        if forms:
            self._submit(kind, forms[0], rng, length=int(m.get("length") or 3))

    def _submit(
        self, kind: str, form: Form, rng: random.Random, *, length: int = 3
    ) -> ActionRecord:
        fields = fill(form, rng, step=self.step, length=length)
        rec = self.post(kind, form.name, fields)
        rec.variant = fields.get("resolution") or (fields.get("kind") or "")
        if rec.status == 400:
            # The page's own form, filled with what it offers, is not what its action takes.
            self.violation(
                "form_refused_as_malformed",
                f"{form.name} from the dashboard's form: {rec.message}",
                key=f"malformed|{form.name}",
            )
        return rec

    def _bad_request(self, rng: random.Random) -> None:
        token = self.csrf()
        choice = rng.randrange(4)
        if choice == 0:
            self.post("bad_request", "pause", {"csrf": "forged", "table": "t1"})
        elif choice == 1:
            self.post(
                "bad_request",
                "adjust_clock",
                {"csrf": token, "table": "t1", "side": "c", "seconds": "x"},
            )
        elif choice == 2:
            self.post("bad_request", "no_such_action", {"csrf": token})
        else:
            self.post(
                "bad_request",
                "correct_result",
                {
                    "csrf": token,
                    "match_id": "NO-SUCH",
                    "score_a": "3",
                    "score_b": "0",
                    "reason": "x",
                },
            )

    def _unknown_form(self, rng: random.Random) -> None:
        """Forms the harness has no recipe for (new ones, e.g. "free table"): filled generically."""
        pages = ["/director", "/director/tournament"]
        pages += [f"/director/tables/{t}" for t in self.cfg.table_ids()]
        path = self.at(rng.choice(pages))
        r = self.get(path)
        if r is None or r.status_code != 200:
            return
        forms = [f for f in parse_page(r.text).forms if f.name and f.name not in KNOWN_FORMS]
        if forms:
            self._submit("unknown_form", rng.choice(forms), rng)

    # ── faults ───────────────────────────────────────────────────────────
    def _fault(self, kind: str, rng: random.Random) -> None:
        if kind == "offline":
            choices = sorted(t for t in self.proxies if t not in self.offline_until)
            if choices and len(self.offline_until) < 2:
                tid = rng.choice(choices)
                self.proxies[tid].cut()
                self.offline_until[tid] = time.monotonic() + rng.uniform(1.0, 6.0)
        elif kind == "kill_table":
            if self.proc is not None and self.proc_down_until is None and self.limits[kind] < 3:
                self.limits[kind] += 1
                self.proc.kill9()
                self.proc_down_until = time.monotonic() + rng.uniform(0.5, 4.0)
        elif kind == "kill_hub" and self.hub is not None and self.limits[kind] < 2:
            self.limits[kind] += 1
            self.hub.kill9()
            self.hub_down = True
            time.sleep(rng.uniform(0.2, 2.0))
            self._restart_hub()

    # ── hostile tables ───────────────────────────────────────────────────
    def _hostile(self, kind: str, rng: random.Random) -> None:
        for tid in self.cfg.table_ids():
            self.genuine.read(tid, self._outbox(tid))
        by_id = {m["id"]: m for m in self.T.get("matches", [])}
        tid = rng.choice(self.cfg.table_ids())
        h = Hostile(self.broker.port, tid)
        try:
            played = [mid for mid in self.genuine.matches.get(tid, []) if mid in by_id]
            current = self.genuine.current.get(tid)
            if kind in ("stale_result", "reassign_correct"):
                old = [mid for mid in played if mid != current]
                if not old:
                    return
                m = by_id[rng.choice(old)]
                score = _other_score(m, rng)
                # Noted before sending: a message the broker took but did not ack still counts.
                self.injections.append((tid, m["id"], score, kind))
                cur = by_id.get(current or "")
                if cur is not None:  # a late report lands on the table's current match
                    self.injections.append((tid, cur["id"], score, kind))
                if kind == "reassign_correct":
                    players = {
                        "a": (m.get("a") or {}).get("name", "A"),
                        "b": (m.get("b") or {}).get("name", "B"),
                    }
                    h.event("table.assigned", {
                        "match_id": m["id"], "players": players, "length": m["length"],
                        "timed": False, "clock": None, "scheduled_start": None,
                    })  # fmt: skip
                    before = {
                        "a": (m.get("score") or [0, 0])[0],
                        "b": (m.get("score") or [0, 0])[1],
                    }
                    h.event(
                        "score.corrected",
                        {"before": before, "score": {"a": score[0], "b": score[1]}, "reason": "x"},
                    )
                else:
                    winner = "a" if score[0] > score[1] else "b"
                    h.event(
                        "match.ended",
                        {
                            "winner": winner,
                            "score": {"a": score[0], "b": score[1]},
                            "how": "played",
                        },
                    )
            elif kind == "second_end":
                if current is None or current not in by_id:
                    return
                m = by_id[current]
                score = _other_score(m, rng)
                winner = "a" if score[0] > score[1] else "b"
                self.injections.append((tid, m["id"], score, kind))
                h.event(
                    "match.ended",
                    {"winner": winner, "score": {"a": score[0], "b": score[1]}, "how": "played"},
                )
            elif kind in ("bad_snapshot", "xss_score"):
                mid = current or "G1-1"
                snap = table_snapshot(mid, {"a": "A", "b": "B"}, 3)
                if kind == "bad_snapshot":
                    snap["match"]["score"] = 5
                else:
                    snap["match"]["score"]["a"] = XSS
                    snap["players"]["a"] = XSS
                    h.event(
                        "match.ended", {"winner": "a", "score": {"a": XSS, "b": 0}, "how": "played"}
                    )
                self.forged[tid] = last_seq(self._outbox(tid))
                h.state(snap)
            elif kind == "surrogate_id":
                h.event("clock.resumed", {"by": "players"}, event_id="\ud800" + new_id()[:20])
            elif kind == "card_burst":
                for _ in range(40):
                    h.event(
                        "card.rejected",
                        {"card": f"{rng.getrandbits(64):016x}", "reason": "unknown"},
                    )
        finally:
            h.close()

    # ── the end of the evening ───────────────────────────────────────────
    def _finish(self) -> None:
        # Every fault healed, then the director closes and the final list is checked.
        for tid in list(self.offline_until):
            self.proxies[tid].restore()
        self.offline_until.clear()
        if self.proc_down_until is not None:
            self._start_proc_table()
        if self.hub_down or (self.hub is not None and not self.hub.alive):
            self._restart_hub()
        self._observe()
        # The newest event first: a hub whose forms act on the newest open event closes
        # them in that order too.
        finished = []
        for e in reversed(self.events):
            self._focus_on(e)
            finished.append(self._close_and_check(e))
        if self.room is not None:
            finished.append(self._check_domino_final())
        if self.domino_tables is not None:
            for x in self.domino_tables.refusals():
                topic = str(x.get("topic") or "").rsplit("/", 1)[-1]
                self.violation(
                    f"domino_table_refused_{topic or 'message'}",
                    f"{x.get('table')}: {x.get('reason')} {x.get('detail')}",
                )
        self.result.finished = all(finished)
        self.result.matches = sum(len(v.get("matches", [])) for v in self.Ts.values())
        self._check_genuine()
        self._check_audit()
        self._check_events()
        self.result.resets = resets([*self.proxies.values(), *self.wifi_only.values()])
        try:
            self.result.commits = commit_figures(commit_latencies(self.cfg.workdir / "hub.sqlite3"))
        except sqlite3.Error as e:
            self.violation("events_uncheckable", f"commit latencies: {e}")
        self._seed_pages()
        while self.page_pool:
            self._crawl(len(self.page_pool))
        self._digests()

    def _close_and_check(self, event: str) -> bool:
        """Close the focus event once finished, and check its final list: True when it has
        one (an event that did not finish is a violation)."""
        info = self.T.get("tournament") or {}
        closed = info.get("phase") == "closed"
        if info.get("finished") and not closed:
            for f in self.forms_on("/director/tournament", "close"):
                rec = self._submit("close", f, random.Random(0))
                closed = rec.status == 200
                if not closed:
                    self.violation("close_refused", f"{event}: {rec.status} {rec.code}")
            self._observe()
            self._focus_on(event)
            closed = (self.T.get("tournament") or {}).get("phase") == "closed"
        final = self.get_json(self.at("/final.json")) or {}
        rows = final.get("rows") or []
        shown = (final.get("tournament") or {}).get("id")
        if len(self.events) > 1 and final and shown != event:
            self.violation("final_list_of_other_event", f"/final.json?t={event} shows {shown}")
            rows = []
        elif closed and not rows:
            self.violation("no_final_list", f"{event}: closed but /final.json has no rows")
        if not closed and len(self.events) > 1:
            self.violation(
                "event_unfinished", f"{event} ({info.get('phase')}): {self._unfinished()}"
            )
        self._check_final(event, rows)
        return bool(closed and rows)

    def _check_domino_final(self) -> bool:
        """The domino event closed with its final list (its own)."""
        assert self.room is not None
        self._observe()
        event = self.room.event
        if not self._domino_done():
            d = self.dstates.get(event)
            self.violation(
                "event_unfinished",
                f"{event} ({d and d.phase}, round {d and d.rounds}, {self.room.said})",
            )
            return False
        final = self.get_json(f"/domino/final.json?t={event}") or {}
        shown = final.get("id") or (final.get("tournament") or {}).get("id")
        rows = final.get("rows") or final.get("standings") or []
        if shown is not None and shown != event:
            self.violation(
                "final_list_of_other_event", f"/domino/final.json?t={event} shows {shown}"
            )
            return False
        if not rows:
            self.violation("no_final_list", f"{event}: closed but /domino/final.json has no rows")
            return False
        self._check_domino_points(event, final)
        stuck = sum(s.runtime.stats.refusals.get("not_entering_pair", 0)
                    for s in (self.domino_tables.sims if self.domino_tables else []))
        for kind, detail in check_records(self.cfg.workdir / "hub.sqlite3", event,
                                          self.room.ledger, stuck):
            self.violation(kind, detail)
        return True

    def _check_domino_points(self, event: str, final: dict[str, Any]) -> None:
        """The domino final list against its games and against the engine fed the stored
        tournament (:meth:`PairsTournament.standings`): the same places, games and points."""
        from mesa.games.domino.pairs import PairsTournament

        snapshot = read_store(self.cfg.workdir / "hub.sqlite3")
        state = next((json.loads(s) for tid, s in snapshot["d"] if tid == event), None)
        if state is None:
            self.violation("points_unverifiable", f"{event} not in the store")
            return
        state.setdefault("audit", [])
        engine = {
            r.pair: (r.rank, r.played, r.won, r.points, r.penalties)
            for r in PairsTournament.from_dict(state).standings()
        }
        ended = [g for g in final.get("games", []) if g.get("status") == "ended"]
        for r in final.get("standings", []):
            shown = (r["rank"], r["played"], r["won"], r["points"], r["penalties"])
            if engine.get(r["pair"]) != shown:
                self.violation(
                    "final_list_disagrees_with_engine",
                    f"{event} {r['pair']}: page {shown}, engine {engine.get(r['pair'])}",
                )
            games = sum(1 for g in ended if r["pair"] in (g.get("ns"), g.get("ew")))
            if r["played"] != games + r.get("byes", 0) and r["played"] != games:
                self.violation(
                    "points_disagree_with_results",
                    f"{event} {r['pair']}: played {r['played']}, {games} games recorded",
                )

    def _check_final(self, event: str, rows: list[dict[str, Any]]) -> None:
        """The focus event's final list (``rows``) against its results and its engine."""
        if not rows:
            return
        from mesa.tournament.tournament import Tournament

        matches = self.T.get("matches", [])
        of = f"{event} " if len(self.events) > 1 else ""  # which event's list, when several
        wins: Counter[tuple[str, str]] = Counter()
        for m in matches:
            if m.get("score") and m.get("winner"):
                wins[(str(m["winner"]), m["phase"])] += 1
        for r in rows:
            b = r["breakdown"]
            total = b["place_points"] + b["participation"] + b["consolation_finalist"]
            total += b["wins"] * b["per_win"]
            if total != b["total"] or r["points_hundredths"] != b["total"]:
                self.violation("points_do_not_add_up", f"{of}{r['name']}: {b}")
            removed = Counter(
                "group" if x["rule"] == "HGV 2.3.3" else "knockout" for x in b.get("removed", [])
            )
            for phase, key in (
                ("group", "wins_group"),
                ("knockout", "wins_knockout"),
                ("consolation", "wins_consolation"),
            ):
                if b[key] + removed[phase] != wins[(r["player_id"], phase)]:
                    self.violation(
                        "points_disagree_with_results",
                        f"{of}{r['name']}: {key}={b[key]} (+{removed[phase]} removed) but "
                        f"{wins[(r['player_id'], phase)]} {phase} wins in the results",
                        key=f"pwins|{event}|{r['player_id']}|{phase}",
                    )
        # The engine, fed the stored tournament, must give every player the same points.
        db = self.cfg.workdir / "hub.sqlite3"
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
        try:
            row = conn.execute("SELECT state FROM t_tournaments WHERE id = ?", (event,)).fetchone()
        finally:
            conn.close()
        if row is None:
            self.violation("points_unverifiable", f"{event} not in the store")
            return
        state = json.loads(row[0])
        state.setdefault("audit", [])  # kept in t_audit; the points do not need it
        t = Tournament.from_dict(state)
        engine = {p: b.total for p, b in t.points().items()}
        for r in rows:
            if engine.get(r["player_id"]) != r["points_hundredths"]:
                self.violation(
                    "final_list_disagrees_with_engine",
                    f"{of}{r['name']}: page {r['points_hundredths']}, "
                    f"engine {engine.get(r['player_id'])}",
                )
        stored = {
            m.id: (m.result.score_a, m.result.score_b) if m.result else None
            for m in t.matches.values()
        }
        for m in matches:
            if stored.get(m["id"]) != (tuple(m["score"]) if m.get("score") else None):
                self.violation(
                    "page_disagrees_with_store",
                    f"{of}{m['id']}: page {m.get('score')}, store {stored.get(m['id'])}",
                )

    def _check_audit(self) -> None:
        expected: Counter[tuple[str, str]] = Counter()
        for a in self.result.actions:
            if a.status is None or a.status >= 500 or a.code in UNAUDITED or a.code == "not_json":
                continue
            outcome = {200: "ok", 202: "pending"}.get(a.status, "refused")
            expected[(a.name, outcome)] += 1
        data = self.get_json("/director/audit.json") or {}
        got = Counter((e.get("action"), e.get("outcome")) for e in data.get("entries", []))
        if len(data.get("entries", [])) >= 1000:
            return  # the page shows the last 1000 only
        for key, n in expected.items():
            if got[key] < n:
                self.violation(
                    "audit_missing", f"{key[0]} {key[1]}: made {n}, audit has {got[key]}"
                )

    def _check_events(self) -> None:
        from support.checker import check

        boxes = [self._outbox(t) for t in self.cfg.table_ids() if self._outbox(t).exists()]
        # A table that came back at the end (a cable restored, a restart) may still be sending
        # its backlog, or write its "restored" event between the reading of the outboxes and
        # of the store: an event in flight is compared again until it lands. Bounded: what
        # is still missing (or unexplained) after 30 s is a violation.
        deadline = time.monotonic() + 30.0
        while True:
            while time.monotonic() < deadline and any(unacked(b) for b in boxes):
                time.sleep(0.25)
            try:
                rep = check(boxes, self.cfg.workdir / "hub.sqlite3")
            except Exception as e:
                self.violation("events_uncheckable", f"{type(e).__name__}: {e}")
                return
            if not (rep.lost or rep.extra) or time.monotonic() >= deadline:
                break
            time.sleep(0.5)
        for what in ("lost", "duplicated", "mismatched", "extra", "out_of_order"):
            items = getattr(rep, what)
            if items:
                self.violation(f"events_{what}", f"{len(items)} of {rep.sent}: {items[:3]}")

    def _digests(self) -> None:
        plan = random.Random(self.cfg.seed)
        prefix = [
            ([(plan.random(), plan.random()) for _ in range(SLOTS)], plan.getrandbits(64))
            for _ in range(64)
        ]
        decisions = json.dumps(
            {
                "config": self.result.config,
                "setup": getattr(self, "setup_digest", ""),
                "plan": prefix,
            },
            sort_keys=True,
        )
        self.result.decisions_digest = hashlib.sha256(decisions.encode()).hexdigest()[:16]
        results = sorted(
            (
                m["id"] if len(self.events) == 1 else f"{e}/{m['id']}",
                (m.get("a") or {}).get("name"),
                (m.get("b") or {}).get("name"),
                m.get("score"),
                m.get("forfeit"),
            )
            for e in self.events
            for m in self.Ts.get(e, {}).get("matches", [])
        )
        self.result.results_digest = hashlib.sha256(json.dumps(results).encode()).hexdigest()[:16]


# ── helpers ──────────────────────────────────────────────────────────────────
def _other_score(m: dict[str, Any], rng: random.Random) -> tuple[int, int]:
    """A plausible final score of ``m`` that is not its recorded one."""
    length = int(m.get("length") or 3)
    now = tuple(m["score"]) if m.get("score") else None
    for _ in range(20):
        loser = rng.randrange(length)
        s = (length, loser) if rng.random() < 0.5 else (loser, length)
        if s != now:
            return s
    return (0, length)


def _tail(path: Path) -> str:
    return path.read_text(errors="replace")[-2000:] if path.exists() else ""


def _config_dict(cfg: EveningConfig) -> dict[str, Any]:
    return {
        "seed": cfg.seed, "players": cfg.players, "tables": cfg.tables, "speed": cfg.speed,
        "chaos": cfg.chaos, "events": cfg.events, "domino": cfg.domino,
    } | ({"wifi": cfg.wifi} if cfg.wifi != "good" else {})  # fmt: skip


def run_evening(config: EveningConfig, *, out: Any = None) -> EveningResult:
    return Evening(config, out=out).run()
