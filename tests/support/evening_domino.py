"""The domino room of a club evening beside the backgammon events: robot domino tables (the
real runtime and hub link, four robot players), the domino event as the store holds it, and the
director's routine for it (create, pairs, a round started — refused while one of its players
plays backgammon, then confirmed, or started once they are free —, "TIEMPO", the next rounds,
close).

Under chaos the room's director also gives the records their work at random moments
(:func:`chaos_action`: fines during a hand, at the game's end or after it is recorded, annulled
hands, late arrivals, absences, an abandonment now and then), and the event's records are
checked at its end (:func:`check_records`: every fine once, the records agreeing with the
games, no entry locked to one pair).

Some of the domino players are in a backgammon event too: the domino desk must not seat them
while they play backgammon (unless the director confirms they will be late), nor the
backgammon desk call them while their domino game is not recorded.

>>> room = DominoRoom(seed=3, players=["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"])
>>> room.pairs()
[('P1', 'P2'), ('P3', 'P4'), ('P5', 'P6'), ('P7', 'P8')]
>>> room.excused("P1", [("velada-3", "t2", "G1-1"), ("D1", "d1", "R1-M1")])
False
>>> room.late[("P1", "D1")] = ("velada-3", "G1-1")
>>> room.excused("P1", [("velada-3", "t2", "G1-1"), ("D1", "d1", "R1-M1")])
True
>>> room.excused("P1", [("velada-3", "t2", "G1-2"), ("D1", "d1", "R1-M1")])
False
"""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.mosquitto import table_password

log = logging.getLogger("support.evening_domino")

DOMINO_TABLES = ("d1", "d2")
ROUNDS = 3  # rounds the domino event plays before the director closes it
ACTION_URL = "/director/domino/actions/{name}"


@dataclass
class DominoState:
    """One domino event as the store holds it."""

    id: str
    phase: str
    rounds: int
    playing: bool  # a game of the current round not yet recorded
    seats: list[tuple[str, str, str, str]]  # (player, event, table, game) of those games
    ended: int  # games recorded
    data: dict[str, Any] = field(default_factory=dict)  # the stored JSON


def stored_domino(snapshot: dict[str, list[tuple[str, str]]]) -> dict[str, DominoState]:
    """Every domino event of a :func:`~support.evening_events.read_store` snapshot, by id."""
    from mesa.games.domino.pairs import PairsTournament

    rows = snapshot.get("d", [])
    out = {}
    for tid, state in rows:
        data = json.loads(state)
        data.setdefault("audit", [])  # kept in d_audit; the seats do not need it
        t = PairsTournament.from_dict(data)
        games = t.round_games() if t.current_round else []
        seated = [g for g in games if g.status != "ended"] if t.phase != "closed" else []
        out[str(tid)] = DominoState(
            str(tid),
            t.phase,
            t.current_round,
            bool(seated),
            [(p, t.id, g.table, g.id) for g in seated for p in t.seating(g).values()],
            sum(1 for g in t.games.values() if g.status == "ended"),
            data,
        )
    return out


class DominoTables:
    """The room's robot domino tables on the broker, each with its outbox in ``folder``."""

    def __init__(
        self,
        port: int,
        folder: Path,
        speed: float,
        seed: int,
        tables: tuple[str, ...] = DOMINO_TABLES,
    ) -> None:
        self.tables = tables
        self.port = port
        self.folder = folder
        self.speed = speed
        self.seed = seed
        self.sims: list[Any] = []
        self.links: list[Any] = []

    def start(self) -> None:
        from mesa.controller.app import make_link
        from mesa.controller.games.domino.robots import FAST
        from mesa.controller.sim import SimTable

        self.folder.mkdir(parents=True, exist_ok=True)
        for i, tid in enumerate(self.tables):

            def link(runtime: Any, snapshot: dict[str, Any], tid: str = tid) -> Any:
                made = make_link(
                    runtime,
                    table_id=tid,
                    host="127.0.0.1",
                    port=self.port,
                    password=table_password(tid),
                    outbox=self.folder / f"{tid}.sqlite3",
                    snapshot=snapshot,
                )
                self.links.append(made)
                return made

            sim = SimTable(
                tid, game="domino", speed=self.speed, seed=self.seed + i, style=FAST, link=link
            )
            sim.start()
            self.sims.append(sim)

    def refusals(self) -> list[dict[str, Any]]:
        """What the hub sent the domino tables that they could not read (its ``table``,
        ``topic``, ``reason``, ``detail``): each one a message meant for another game's table,
        or a domino message the hub built wrong."""
        out: list[dict[str, Any]] = []
        for link in self.links:
            metrics = getattr(link, "metrics", None)
            if metrics is not None:
                out += metrics.recent_refusals()
        return out

    def stop(self) -> None:
        for sim in self.sims:
            try:
                sim.stop()
            except Exception:
                log.exception("domino table: stopping failed")


@dataclass
class DominoRoom:
    """The director's side of the domino event: who plays (registry ids, in pairs), and what
    happened (the rounds refused, confirmed, started once the players were free)."""

    seed: int
    players: list[str]
    event: str = ""
    tiempo_called: int = 0  # the last round "TIEMPO" was called for
    closed: bool = False
    # (player, domino event) → the backgammon (event, match) the player was playing when the
    # director confirmed the round anyway: that player is excused at two tables until then.
    late: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    said: dict[str, int] = field(default_factory=dict)  # what the room did, counted
    # The record actions' answers (fines, annulled hands, late arrivals, absences).
    ledger: Ledger = field(default_factory=lambda: Ledger())

    def pairs(self) -> list[tuple[str, str]]:
        return list(zip(self.players[0::2], self.players[1::2], strict=True))

    def excused(self, player: str, seats: list[tuple[str, str, str]]) -> bool:
        """Whether ``player``'s two seats are a late start the director confirmed: their
        domino game and the backgammon match they were playing at that moment."""
        domino = [s for s in seats if (player, s[0]) in self.late]
        if len(domino) != 1 or len(seats) != 2:
            return False
        other = next(s for s in seats if s is not domino[0])
        return self.late[(player, domino[0][0])] == (other[0], other[2])

    def count(self, what: str) -> None:
        self.said[what] = self.said.get(what, 0) + 1

    def next_step(self, state: DominoState | None, rng: random.Random) -> str | None:
        """What the director does next for the room: ``start``, ``tiempo``, ``close``, or
        nothing (a round is being played)."""
        if self.closed or state is None or state.phase == "closed":
            return None
        if state.playing:
            return "tiempo" if self.tiempo_called < state.rounds else None
        if state.rounds >= ROUNDS:
            return "close"
        return "start"


# ── the director's fines, late arrivals, annulled hands and absences, at random moments ──
# Reasons the director gives at any moment (talking is escalated by the records: a third
# time expels, so it is rarer than the others).
FINE_REASONS = ("wrong_lead", "asked_score", "left_before_sheet", "touched_tile",
                "gesture_pass", "wrong_seats", "talking")
TIMER = ("slow_play", "late_pass")
# The audit lines a director's record action writes, by what the room posted.
AUDITED = {"fine": "fine", "annul": "fine", "abandon": "fine", "late": "late",
           "absence": "absence"}


def chaos_action(state: dict[str, Any], rng: random.Random
                 ) -> tuple[str, str, dict[str, str]] | None:
    """One record action on the stored event ``state`` (its JSON) at this moment: what the
    room calls it, the form's name and its fields; None when there is no game yet. Any game
    of the event (during a hand, at its end, after it is recorded) for a fine; a game not
    yet recorded for an annulled hand, a late arrival, an absence or an abandonment (the
    table or the record may refuse them: a refusal is an answer, never a violation)."""
    games = state.get("games") or []
    rounds = state.get("rounds") or []
    if not games or not rounds:
        return None
    roll = rng.random()
    if roll < 0.5:
        g = rng.choice(games)
        p = rng.choice(sorted(g["seats"].values()))
        reason = rng.choice(FINE_REASONS)
        return "fine", "penalty", {"gp": f"{g['id']}|{p}", "reason_code": reason}
    live = [g for g in games if g["id"] in rounds[-1] and g["status"] != "ended"]
    if not live:
        return None
    g = rng.choice(live)
    gp = f"{g['id']}|{rng.choice(sorted(g['seats'].values()))}"
    waiting = [x for x in live if x["status"] == "assigned"]  # before "TIEMPO"
    if waiting and rng.random() < 0.3:  # an absence is declared before the first hand
        x = rng.choice(waiting)
        return "absence", "absence", {"gp": f"{x['id']}|{rng.choice(sorted(x['seats'].values()))}"}
    if roll < 0.72:
        reason = rng.choice(("pass_with_playable", "chivo"))
        return "annul", "penalty", {"gp": gp, "reason_code": reason, "annul": "1"}
    if roll < 0.92:
        return "late", "late", {"gp": gp}
    if roll < 0.98:
        return "absence", "absence", {"gp": gp}
    return "abandon", "penalty", {"gp": gp, "reason_code": "abandoned"}


@dataclass
class Ledger:
    """What the room's record actions got: answered 200 (recorded), refused with a code, or
    no answer (the hub killed, a timeout: recorded or not)."""

    ok: dict[str, int] = field(default_factory=dict)
    unanswered: dict[str, int] = field(default_factory=dict)
    refused: dict[str, int] = field(default_factory=dict)

    def note(self, kind: str, status: int | None, code: str) -> str:
        """Count one answer; what it was (``ok``, ``unanswered``, ``refused:<code>``)."""
        if status == 200 and not code:
            book, said = self.ok, "ok"
        elif status is None or status >= 500:
            book, said = self.unanswered, "unanswered"
        else:
            book, said = self.refused, f"refused:{code}"
        key = kind if book is not self.refused else f"{kind}:{code}"
        book[key] = book.get(key, 0) + 1
        return said


def _timer_fines(events: list[dict[str, Any]], event: str) -> dict[str, tuple[str, str, int]]:
    """Every table timer fine of ``event``'s games in the hub's committed events (in commit
    order, routed by the game each table was last assigned): ``event:<rowid>`` → (game,
    seat, points)."""
    playing: dict[str, str] = {}
    out = {}
    for e in events:
        kind, table, d = e["type"], e["table"], e["data"]
        if kind == "domino.table.assigned":
            playing[table] = d["game_id"]
        elif kind == "domino.table.unassigned":
            playing.pop(table, None)
        elif kind == "domino.penalty" and d.get("reason") in TIMER:
            tid, _, gid = playing.get(table, "").partition(":")
            if tid == event:
                out[f"event:{e['rowid']}"] = (gid, d["seat"], int(d["points"]))
    return out


def check_records(db: Path, event: str, ledger: Ledger, stuck: int
                  ) -> list[tuple[str, str]]:
    """The domino event's records at the end of the evening, against the hub's events and
    what the room's director was told (``stuck``: the domino tables' refusals that mean an
    entry locked to one pair). Violations as ``(kind, detail)``:

    - every fine lands exactly once: each director's record action answered 200 has its
      audit line, and no more lines than actions posted; every entry is in exactly one audit
      line or is a table's (a timer fine once per committed event, an unsigned sheet once
      per pair and game); every timer fine of the event's games is on the records, once;
    - the records reconcile with the games and entries: an entry names a game of the event
      and a player of it; a game's score is the hand points its table reported;
    - no locked entry: no table refused a block's claim for the other pair."""
    import sqlite3

    from mesa.games.domino.store import DominoStore

    out: list[tuple[str, str]] = []
    with DominoStore(db) as store:
        t = store.load(event)
    if t is None:
        return [("records_unverifiable", f"{event} not in the store")]
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT rowid, table_id, type, payload FROM events WHERE type LIKE 'domino.%' "
            "ORDER BY rowid").fetchall()
    finally:
        conn.close()
    events = [{"rowid": r, "table": tb, "type": ty, "data": json.loads(p)["data"]}
              for r, tb, ty, p in rows]
    # Each action answered lands once: one audit line each.
    for action in ("fine", "late", "absence"):
        kinds = [k for k, a in AUDITED.items() if a == action]
        # (a round confirmed with players elsewhere writes a "late" line too: no game named)
        lines = sum(1 for a in t.audit if a.action == action and "game" in a.details)
        ok = sum(ledger.ok.get(k, 0) for k in kinds)
        posted = ok + sum(ledger.unanswered.get(k, 0) for k in kinds)
        if not ok <= lines <= posted:
            out.append(("fine_not_once", f"{event} {action}: {lines} audit lines for {ok} "
                        f"answered and {posted - ok} unanswered actions"))
    audited: dict[int, int] = {}
    for a in t.audit:
        for seq, *_rest in a.details.get("entries", []) or []:
            audited[int(seq)] = audited.get(int(seq), 0) + 1
    seqs = [e.seq for e in t.entries]
    if len(seqs) != len(set(seqs)):
        out.append(("fine_not_once", f"{event}: entry numbers repeat"))
    # A table's event gives one entry (an absence's or a sheet's key is on each of its own).
    keys = [e.key for e in t.entries if e.key and e.key.startswith("event:")]
    if len(keys) != len(set(keys)):
        out.append(("fine_not_once", f"{event}: a keyed entry twice: {sorted(keys)[:6]}"))
    for e in t.entries:
        if audited.get(e.seq, 0) != 1:
            out.append(("fine_not_once", f"{event} entry {e.seq} ({e.player} {e.points} "
                        f"{e.reason}) in {audited.get(e.seq, 0)} audit lines"))
        g = t.games.get(e.game_id)
        if g is None or e.player not in g.seats.values():
            out.append(("records_disagree_with_games",
                        f"{event} entry {e.seq}: {e.player} not in game {e.game_id}"))
    timer = _timer_fines(events, event)
    have = {e.key: e for e in t.entries if e.key and e.key.startswith("event:")}
    for key, (gid, seat, points) in timer.items():
        e = have.get(key)
        g = t.games.get(gid)
        if e is None or g is None or (e.game_id, e.player, e.points) != (
                gid, g.seats.get(seat), points):
            out.append(("timer_fine_not_once", f"{event} {key} {gid} {seat} {points}: {e}"))
    for key in set(have) - set(timer):
        out.append(("timer_fine_not_once", f"{event} {key}: no such timer fine committed"))
    ended: dict[str, dict[str, int]] = {}
    playing: dict[str, str] = {}
    for e in events:
        if e["type"] == "domino.table.assigned":
            playing[e["table"]] = e["data"]["game_id"]
        elif e["type"] == "domino.game.ended":
            tid, _, gid = playing.get(e["table"], "").partition(":")
            if tid == event:
                ended.setdefault(gid, dict(e["data"]["score"]))
    for g in t.games.values():
        if g.status == "ended" and ended.get(g.id) != g.hand_score:
            out.append(("records_disagree_with_games",
                        f"{event} {g.id}: score {g.hand_score}, its table said "
                        f"{ended.get(g.id)}"))
    # A game the table ended on an absence or an expulsion has it on the records.
    from mesa.games.domino.records import EXPELLING

    for g in t.games.values():
        why = {e.reason for e in t.entries if e.game_id == g.id}
        if (g.how == "absence" and "absent" not in why) or \
                (g.how == "expulsion" and not why & EXPELLING):
            out.append(("records_disagree_with_games",
                        f"{event} {g.id} ended by {g.how}: not on the records ({sorted(why)})"))
    recs = t.records()
    total = sum(r.points for r in recs.values())
    hands = sum(sum(g.hand_score.values()) * 2 for g in t.games.values() if g.status == "ended")
    byes = 100 * len(t.bye_players())
    if total != hands + sum(e.points for e in t.entries) + byes:
        out.append(("records_disagree_with_games",
                    f"{event}: records {total} ≠ hands {hands} + entries + byes {byes}"))
    if stuck:
        out.append(("locked_entry", f"{event}: {stuck} claims refused not_entering_pair"))
    return out
