"""The individual format (mesa.games.domino.individual): players registered one by one,
partners and opponents drawn each round, sit-outs as byes, standings and records per player."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter

import pytest

from mesa.games.domino.event import PairsError
from mesa.games.domino.individual import IndividualTournament


def _event(n: int) -> IndividualTournament:
    t = IndividualTournament("D2", "Individual")
    for i in range(n):
        t.register_player(f"p{i}", f"P{i}", actor="dir", at="20:00")
    return t


def _end(t: IndividualTournament, gid: str, winner: str | None, ns: int, ew: int,
         how: str = "points") -> None:
    t.record_game(gid, winner=winner, how=how, score={"ns": ns, "ew": ew},
                  games_won={"ns": int(winner == "ns"), "ew": int(winner == "ew")}, hands=5,
                  actor="table", at="21:00")


def test_a_round_seats_everyone_once_and_sits_out_the_rest() -> None:
    t = _event(10)
    games = t.start_round(["1", "2", "3"], actor="dir", at="20:05")
    assert len(games) == 2 and [g.table for g in games] == ["1", "2"]
    seated = [p for g in games for p in g.seats.values()]
    assert len(seated) == len(set(seated)) == 8
    assert sorted(seated + t.sitouts[0]) == sorted(t.players)
    line = t.audit[-1]
    assert line.action == "start_round" and line.details["sitting_out"] == t.sitouts[0]
    for p in t.sitouts[0]:  # a sit-out is a bye: a game won, +100
        rec = t.records()[p]
        assert (rec.won, rec.points, rec.byes, rec.played) == (1, 100, 1, 0)


def test_standings_by_player_games_won_then_points() -> None:
    t = _event(8)
    g1, g2 = t.start_round(["1", "2"], actor="dir", at="20:05")
    _end(t, g1.id, "ns", 200, 150)
    _end(t, g2.id, "ew", 90, 210)
    t.fine(g1.id, g1.seats["n"], "wrong_lead", actor="juez", at="20:50")
    rows = t.standings()
    assert [r.rank for r in rows] == list(range(1, 9))
    for hi, lo in itertools.pairwise(rows):
        assert (hi.won, hi.points) >= (lo.won, lo.points)
    top = {r.player: r for r in rows}
    assert top[g2.seats["e"]].points == 210 and top[g1.seats["n"]].points == 175
    assert top[g1.seats["n"]].fines == -25 and top[g1.seats["s"]].points == 200


def test_talking_counts_the_partner_of_that_game_only() -> None:
    t = _event(8)
    g1, g2 = t.start_round(["1", "2"], actor="dir", at="20:05")
    a, mate = g1.seats["n"], g1.seats["s"]
    assert t.fine(g1.id, a, "talking", actor="juez", at="20:10").step == "talking_first"
    # his partner now: the second time (by the partner) −75 to both
    r = t.fine(g1.id, mate, "talking", actor="juez", at="20:11")
    assert r.step == "talking_second" and {e.player for e in r.entries} == {a, mate}
    # a player of the other game has talked never
    assert t.fine(g2.id, g2.seats["e"], "talking", actor="juez", at="20:12").step == \
        "talking_first"
    r = t.fine(g1.id, a, "talking", actor="juez", at="20:13")
    assert r.expelled == a and t.players[a].withdrawn and r.command is not None
    assert a not in t.active()


def test_an_expelled_player_is_left_out_of_the_next_draw() -> None:
    t = _event(9)
    games = t.start_round(["1", "2"], actor="dir", at="20:05")
    out = games[0].seats["w"]
    t.fine(games[0].id, out, "misconduct", actor="juez", at="20:10")
    for g in games:
        _end(t, g.id, "ns", 200, 100, how="expulsion" if g is games[0] else "points")
    assert out not in t.next_players() and len(t.next_players()) == 8
    games2 = t.start_round(["1", "2"], actor="dir", at="21:05")
    assert out not in [p for g in games2 for p in g.seats.values()]
    assert t.sitouts[1] == []


def test_absence_per_player() -> None:
    t = _event(8)
    g, _ = t.start_round(["1", "2"], actor="dir", at="20:05")
    absent = g.seats["e"]
    assert t.absence(g.id, [absent], actor="juez", at="20:06") == ["e"]
    _end(t, g.id, "ns", 0, 0, how="absence")
    rec = t.records()
    assert (rec[absent].won, rec[absent].points) == (0, -100)
    for seat in "nsw":
        assert (rec[g.seats[seat]].won, rec[g.seats[seat]].points) == (1, 100)


def test_refusals() -> None:
    t = _event(3)
    with pytest.raises(PairsError, match="already_registered"):
        t.register_player("p0", "X", actor="dir", at="20:00")
    with pytest.raises(PairsError, match="too_few_players"):
        t.start_round(["1"], actor="dir", at="20:00")
    t.register_player("p3", "P3", actor="dir", at="20:00")
    with pytest.raises(PairsError, match="not_enough_tables"):
        t.start_round([], actor="dir", at="20:00")
    with pytest.raises(PairsError, match="no_player"):
        t.remove_player("zz", actor="dir", at="20:00")
    t.remove_player("p3", actor="dir", at="20:00")
    t.register_player("p4", "P4", actor="dir", at="20:00")
    (g,) = t.start_round(["1"], actor="dir", at="20:00")
    with pytest.raises(PairsError, match="registration_closed"):
        t.register_player("p9", "P9", actor="dir", at="20:00")
    with pytest.raises(PairsError, match="round_in_play"):
        t.start_round(["1"], actor="dir", at="20:00")
    _end(t, g.id, "ns", 200, 0)
    t.close(actor="dir", at="22:00")
    with pytest.raises(PairsError, match="closed"):
        t.start_round(["1"], actor="dir", at="22:01")


def test_json_round_trip() -> None:
    t = _event(6)
    (g,) = t.start_round(["1"], actor="dir", at="20:05")
    t.late(g.id, g.seats["n"], actor="juez", at="20:06")
    _end(t, g.id, "ew", 20, 200)
    data = json.loads(json.dumps(t.to_dict()))
    assert data["format"] == "individual"
    back = IndividualTournament.from_dict(data)
    assert back.to_dict() == t.to_dict() and back.records() == t.records()
    assert [r.player for r in back.standings()] == [r.player for r in t.standings()]


def test_random_evenings_repeat_partners_only_when_the_draw_says_so() -> None:
    rng = random.Random(19)
    for n in (8, 9, 12, 13):
        t = _event(n)
        for _ in range(3):
            before = Counter(t.partnered())
            games = t.start_round([str(i) for i in range(1, 5)], actor="dir", at="20:00")
            new = Counter(t.partnered()) - before
            repeats = sum(1 for pair in new if before[pair])
            assert repeats == t.audit[-1].details["partner_repeats"]
            for g in games:
                _end(t, g.id, rng.choice(["ns", "ew"]), rng.randint(0, 200),
                     rng.randint(0, 200))
        # every player sat out at most once while some had not
        counts = Counter(t.bye_players())
        assert max(counts.values(), default=0) <= 1
