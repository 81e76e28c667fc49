"""The forecast: every match left and every event's final, on copies, deterministic, fast."""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta
from itertools import pairwise

from mesa.tournament.forecast import (
    BusyWindow,
    LiveMatch,
    RoomRounds,
    Rounds,
    Simulation,
    expected_durations,
    forecast,
)
from mesa.tournament.matches import ClockPreset
from mesa.tournament.pace import ClockState
from mesa.tournament.players import PlayerRegistry
from mesa.tournament.scheduler import calendar_priority
from mesa.tournament.tournament import Tournament

NOW = datetime(2026, 12, 4, 20, 0)


def evening(sizes: dict[str, int]) -> list[Tournament]:
    reg = PlayerRegistry()
    out = []
    for tid, n in sizes.items():
        t = Tournament(tid, tid, date(2026, 12, 4))
        for i in range(n):
            t.register(reg, reg.add_new(f"{tid} {i}").id, now=NOW)
        t.start_groups(ranking={}, seed=5, now=NOW)
        out.append(t)
    return out


def test_every_match_left_and_every_final_without_touching_the_inputs() -> None:
    events = evening({"open": 21, "novatos": 9})
    before = [t.to_dict() for t in events]
    f = forecast(events, [str(i) for i in range(1, 9)], NOW)
    assert [t.to_dict() for t in events] == before
    for t in events:
        e = f.events[t.id]
        assert e.final_id == "KO-F-1" and e.final_start is not None and e.final_end is not None
        assert NOW < e.final_start < e.final_end <= e.finish  # type: ignore[operator]
        assert set(t.matches) <= set(f.matches[t.id])  # every group match, and what follows
    assert f.evening_end == max(e.finish for e in f.events.values())  # type: ignore[type-var]


def test_it_never_names_a_finished_match_and_is_deterministic() -> None:
    [t] = evening({"open": 9})
    for mid in ("G1-1", "G2-1"):
        t.record_result(mid, 3, 0, now=NOW + timedelta(minutes=25))
    now = NOW + timedelta(minutes=30)
    f = forecast([t], ["1", "2", "3"], now)
    assert "G1-1" not in f.matches["open"] and "G2-1" not in f.matches["open"]
    assert all(x.start >= now for x in f.matches["open"].values())
    assert forecast([t], ["1", "2", "3"], now) == f


def test_a_match_under_way_ends_by_its_pace_and_clock() -> None:
    [t] = evening({"open": 3})
    t.assign_tables(["7"], now=NOW)
    t.match_started("G1-1", now=NOW)
    now = NOW + timedelta(minutes=20)
    slow = forecast([t], ["7"], now, live={"7": LiveMatch(0, 0)})
    quick = forecast([t], ["7"], now, live={"7": LiveMatch(2, 0)})
    assert quick.match("open", "G1-1").end < slow.match("open", "G1-1").end  # type: ignore[union-attr]
    clocked = LiveMatch(0, 0, ClockState(ClockPreset(360, 10, True), 10.0, 10.0))
    bounded = forecast([t], ["7"], now, live={"7": clocked})
    end = bounded.match("open", "G1-1").end  # type: ignore[union-attr]
    assert end <= now + timedelta(seconds=20 + 10 * 150)


def test_players_held_by_another_room_wait() -> None:
    [t] = evening({"open": 3})
    held = t.match("G1-1").players
    f = forecast([t], ["1"], NOW, busy=[BusyWindow(frozenset(held), NOW, NOW + timedelta(
        minutes=35))])
    assert f.match("open", "G1-1").start >= NOW + timedelta(minutes=35)  # type: ignore[union-attr]


def test_a_sixty_player_evening_in_well_under_100_ms() -> None:
    events = evening({"open": 42, "novatos": 18})
    forecast(events, [str(i) for i in range(1, 15)], NOW)  # warm up
    t0 = time.perf_counter()
    f = forecast(events, [str(i) for i in range(1, 15)], NOW)
    assert time.perf_counter() - t0 < 0.1
    assert all(e.final_start is not None for e in f.events.values())


def test_the_simulation_plays_each_policy_to_the_end() -> None:
    for priority in (calendar_priority, None):
        events = evening({"open": 9, "novatos": 6})
        kw = {} if priority is None else {"priority": priority}
        sim = Simulation(events, ["1", "2", "3"], NOW, duration=expected_durations({}), **kw)
        sim.run()
        assert all(t.champion is not None for t in events)
        by_id = {t.id: t for t in events}
        spans: dict[str, list[tuple[datetime, datetime]]] = {}
        for (tid, mid), start in sim.starts.items():
            for p in by_id[tid].match(mid).players:
                spans.setdefault(p, []).append((start, sim.ends[(tid, mid)]))
        for p, mine in spans.items():  # nobody at two tables at once
            mine.sort()
            assert all(a[1] <= b[0] for a, b in pairwise(mine)), p


def test_a_room_round_waits_for_its_players_and_holds_them_while_due() -> None:
    [t] = evening({"open": 3})
    t.assign_tables(["1"], now=NOW)
    t.match_started("G1-1", now=NOW)
    a = t.match("G1-1").players[0]
    room = RoomRounds(frozenset({a}), left=2, due=NOW + timedelta(minutes=5))
    f = forecast([t], ["1", "2"], NOW, rooms=[room])
    g11 = f.match("open", "G1-1")
    assert g11 is not None
    # the round waited for a to end G1-1, then held them 35 minutes; in the break a may be
    # called (nobody is at two tables, and the second round waits in turn)
    nxt = min((f.matches["open"][m.id] for m in t.matches.values()
               if a in m.players and m.id != "G1-1"), key=lambda x: x.start)
    # (the slowest of the round and G1-1's uncertain end: the round, by far)
    assert abs(nxt.start - (g11.end + timedelta(minutes=35))) < timedelta(seconds=1)
    r = Rounds(room)
    assert r.busy(NOW) == () and r.next_change(NOW) == room.due
    assert r.busy(room.due) == room.players   # due: held, though not started
    r.seated(room.due, {a})
    assert r.next_change(room.due) is None     # waits for a table's end
    r.seated(room.due + timedelta(minutes=9), set())
    assert r.now_plan(room.due + timedelta(minutes=50)).left == 1 and len(r.log) == 1
