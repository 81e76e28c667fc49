"""What both domino formats share (mesa.games.domino.event), driven through the pairs format:
every fine and award on the players' records exactly once, and what the desk must send."""

from __future__ import annotations

import json

import pytest

from mesa.games.domino.event import FineResult, PairsError
from mesa.games.domino.pairs import PairsTournament
from mesa.games.domino.records import ABANDON_AWARD, ABSENCE_AWARD, FORFEIT_AWARD


def _two_pairs() -> tuple[PairsTournament, str]:
    t = PairsTournament("D1", "Prueba")
    t.register_pair("ana", "beto", ("Ana", "Beto"), actor="dir", at="20:00")
    t.register_pair("carla", "dani", ("Carla", "Dani"), actor="dir", at="20:00")
    (g,) = t.start_round(["1"], actor="dir", at="20:01")
    # n ana, s beto (P1, ns); e carla, w dani (P2, ew)
    return t, g.id


def _end(t: PairsTournament, gid: str, winner: str | None = "ns", ns: int = 200, ew: int = 120,
         how: str = "points") -> None:
    t.record_game(gid, winner=winner, how=how, score={"ns": ns, "ew": ew},
                  games_won={"ns": int(winner == "ns"), "ew": int(winner == "ew")}, hands=6,
                  actor="table 1", at="21:00")


def _points(t: PairsTournament) -> dict[str, tuple[int, int]]:
    return {p: (r.won, r.points) for p, r in t.records().items()}


# ── a fine lands once, whenever it is given ──
@pytest.mark.parametrize("moment", ["hand", "game_over", "recorded"])
def test_a_fine_lands_exactly_once_at_any_moment(moment: str) -> None:
    t, gid = _two_pairs()
    if moment != "hand":
        t.game_started(gid)
    if moment == "recorded":
        _end(t, gid)
    r = t.fine(gid, "carla", "wrong_lead", actor="juez", at="20:30")
    assert r.command is None  # the table's game does not change
    assert (r.player, r.points, r.reason, r.seat) == ("carla", -25, "wrong_lead", "e")
    if moment != "recorded":
        _end(t, gid)  # the table's score: hand points only, the fine is not in it
    assert _points(t) == {"ana": (1, 200), "beto": (1, 200), "carla": (0, 95),
                          "dani": (0, 120)}
    rows = t.standings()
    assert [(x.pair, x.won, x.points, x.penalties) for x in rows] == [
        ("P1", 2, 400, 0), ("P2", 0, 215, -25)]
    assert [a.action for a in t.audit].count("fine") == 1


def test_fines_never_change_a_games_winner() -> None:
    t, gid = _two_pairs()
    for _ in range(6):
        t.fine(gid, "ana", "adjusted_tiles", actor="juez", at="20:30")
    _end(t, gid, "ns", 200, 190)
    g = t.games[gid]
    assert g.winner == "P1" and g.score == {"P1": 200, "P2": 190}
    assert t.records()["ana"].points == 200 - 150 and t.records()["ana"].won == 1


# ── the commands the desk sends ──
def test_expulsion_in_play_commands_the_table_and_withdraws_the_pair() -> None:
    t, gid = _two_pairs()
    r = t.fine(gid, "dani", "misconduct", actor="juez", at="20:30")
    assert r.command == ("penalty", {"seat": "w", "reason": "misconduct"})
    assert r.expelled == "dani" and t.pairs["P2"].withdrawn
    _end(t, gid, "ns", 40, 30, how="expulsion")
    assert _points(t) == {"ana": (1, 140), "beto": (1, 140), "carla": (0, 30),
                          "dani": (0, 30)}
    assert {e.reason for e in t.entries} == {"misconduct", FORFEIT_AWARD}


def test_expulsion_after_the_game_sends_nothing_and_gives_no_forfeit() -> None:
    t, gid = _two_pairs()
    _end(t, gid)
    r = t.fine(gid, "ana", "marked_tiles", actor="juez", at="21:30")
    assert r.command is None and r.expelled == "ana" and t.pairs["P1"].withdrawn
    assert [e.reason for e in r.entries] == ["marked_tiles"]


def test_talking_escalates_to_expulsion_by_the_partners_count() -> None:
    t, gid = _two_pairs()
    assert t.fine(gid, "ana", "talking", actor="juez", at="20:10").command is None
    r = t.fine(gid, "beto", "talking", actor="juez", at="20:11")
    assert r.step == "talking_second" and r.command is None
    assert [(e.player, e.points) for e in r.entries] == [("beto", -75), ("ana", -75)]
    r = t.fine(gid, "ana", "talking", actor="juez", at="20:12")
    assert r.step == "talking_third"
    assert r.command == ("penalty", {"seat": "n", "reason": "talking_third"})
    line = t.audit[-1]
    assert (line.action, line.details["step"], line.details["expelled"]) == (
        "fine", "talking_third", "ana")
    with pytest.raises(PairsError, match="points_fixed"):
        t.fine(gid, "ana", "talking", points=-10, actor="juez", at="20:13")


def test_annul_commands_the_table_and_fines_the_offender() -> None:
    t, gid = _two_pairs()
    r = t.fine(gid, "beto", "pass_with_playable", annul=True, actor="juez", at="20:20")
    assert r.command == ("annul", {"seat": "s", "reason": "pass_with_playable"})
    assert [(e.player, e.points) for e in r.entries] == [("beto", -25)]
    assert t.fine(gid, "beto", "chivo", actor="juez", at="20:21").command is None  # fine only
    with pytest.raises(PairsError, match="not_annullable"):
        t.fine(gid, "beto", "wrong_lead", annul=True, actor="juez", at="20:22")
    _end(t, gid)
    with pytest.raises(PairsError, match="game_ended"):
        t.fine(gid, "beto", "chivo", annul=True, actor="juez", at="21:22")


def test_late_first_recorded_then_minus_50_once_per_game() -> None:
    t = PairsTournament("D1", "Prueba")
    for i in range(4):
        t.register_pair(f"a{i}", f"b{i}", (f"A{i}", f"B{i}"), actor="dir", at="20:00")
    g1, _ = t.start_round(["1", "2"], actor="dir", at="20:01")
    r = t.late(g1.id, "a0", actor="juez", at="20:03")
    assert r.command == ("late", {"seat": "n"}) and r.step == "late_first" and r.points == 0
    with pytest.raises(PairsError, match="already_late"):
        t.late(g1.id, "a0", actor="juez", at="20:04")
    for g in t.round_games():
        _end(t, g.id)
    g2 = next(g for g in t.start_round(["1", "2"], actor="dir", at="21:01")
              if "a0" in g.seats.values())
    r = t.fine(g2.id, "a0", "late_arrival_repeat", actor="juez", at="21:03")
    assert r.step == "late_repeat" and r.points == -50 and r.command is not None
    assert t.records()["a0"].late == 2


def test_unsigned_sheet_once_per_pair_and_game() -> None:
    t, gid = _two_pairs()
    _end(t, gid)
    r = t.sheet_unsigned(gid, ["ew"], actor="table 1", at="21:01")
    assert [(e.player, e.points) for e in r.entries] == [("carla", -25), ("dani", -25)]
    assert t.sheet_unsigned(gid, ["ew", "ns"], actor="table 1", at="21:02").entries[0].player \
        == "ana"
    assert t.sheet_unsigned(gid, ["ew", "ns"], actor="table 1", at="21:03").entries == ()
    assert t.records()["dani"].fines == -25 and t.records()["ana"].fines == -25


def test_table_timer_fines_once_per_event_and_echoes_ignored() -> None:
    t, gid = _two_pairs()
    e = t.table_fine(gid, "n", "slow_play", -25, key="event:10", actor="table 1", at="20:20")
    assert e is not None and e.source == "table" and e.player == "ana"
    assert t.table_fine(gid, "n", "slow_play", -25, key="event:10", actor="t", at="x") is None
    # a late pass by w: +25 to each of ns, two events
    t.table_fine(gid, "n", "late_pass", 25, key="event:11", offender="w", actor="t", at="x")
    t.table_fine(gid, "s", "late_pass", 25, key="event:12", offender="w", actor="t", at="x")
    # the table echoing the director's own fine: not recorded again
    assert t.table_fine(gid, "e", "wrong_lead", -25, key="event:13", actor="t", at="x") is None
    _end(t, gid)
    assert _points(t)["ana"] == (1, 200) and _points(t)["beto"] == (1, 225)
    assert [x.offender for x in t.entries] == ["", "dani", "dani"]


def test_absence_awards_the_present_players_at_once() -> None:
    t, gid = _two_pairs()
    assert t.absence(gid, ["carla"], actor="juez", at="20:02") == ["e"]
    assert _points(t) == {"ana": (1, 100), "beto": (1, 100), "carla": (0, -100),
                          "dani": (1, 100)}
    with pytest.raises(PairsError, match="absence_recorded"):
        t.absence(gid, ["dani"], actor="juez", at="20:03")
    # the table ends it: ns "won" by absence, but the result gives no win (the awards did)
    _end(t, gid, "ns", 0, 0, how="absence")
    assert _points(t)["ana"] == (1, 100) and _points(t)["dani"] == (1, 100)
    assert {e.reason for e in t.entries} == {"absent", ABSENCE_AWARD}
    rows = {r.pair: r for r in t.standings()}
    assert (rows["P1"].won, rows["P1"].points) == (2, 200)
    assert (rows["P2"].won, rows["P2"].points) == (1, 0)


def test_abandonment_expels_and_the_other_three_win() -> None:
    t, gid = _two_pairs()
    r = t.fine(gid, "beto", "abandoned", actor="juez", at="20:40")
    assert r.command == ("penalty", {"seat": "s", "reason": "abandoned"}) and r.expelled == "beto"
    _end(t, gid, "ew", 30, 50, how="expulsion")  # the table: won by the other pair
    rec = t.records()
    assert (rec["beto"].won, rec["beto"].points, rec["beto"].red_card) == (0, -170, True)
    assert (rec["ana"].won, rec["ana"].points) == (1, 130)
    assert (rec["carla"].won, rec["carla"].points) == (1, 150)
    assert sum(e.reason == ABANDON_AWARD for e in t.entries) == 3


def test_wrong_partner_minus_100_each() -> None:
    t, gid = _two_pairs()
    r = t.fine(gid, "ana", "wrong_seats", actor="juez", at="20:02")
    assert sorted(e.player for e in r.entries) == ["ana", "beto", "carla", "dani"]
    assert all(e.points == -100 for e in r.entries) and r.command is None


def test_refusals() -> None:
    t, gid = _two_pairs()
    for reason, code in (("slow_play", "bad_reason"), ("absent", "bad_reason"),
                         ("nope", "bad_reason")):
        with pytest.raises(PairsError, match=code):
            t.fine(gid, "ana", reason, actor="j", at="x")
    with pytest.raises(PairsError, match="not_in_game"):
        t.fine(gid, "zoe", "chivo", actor="j", at="x")
    with pytest.raises(PairsError, match="no_game"):
        t.fine("R9", "ana", "chivo", actor="j", at="x")
    with pytest.raises(PairsError, match="bad_points"):
        t.fine(gid, "ana", "chivo", points=5000, actor="j", at="x")


def test_fine_result_and_the_compat_penalties_list() -> None:
    t, gid = _two_pairs()
    r = t.penalty(gid, "carla", "talking_second", points=None, actor="juez", at="20:10")
    assert isinstance(r, FineResult) and r.step == "talking_first"
    (line,) = t.penalties
    assert (line.seq, line.game_id, line.player, line.seat, line.reason, line.points,
            line.at_table) == (1, gid, "carla", "e", "talking", -25, False)


def test_json_round_trip_keeps_every_entry() -> None:
    t, gid = _two_pairs()
    t.fine(gid, "ana", "talking", actor="juez", at="20:10")
    t.table_fine(gid, "n", "slow_play", -25, key="event:3", actor="t", at="x")
    _end(t, gid)
    data = json.loads(json.dumps(t.to_dict()))
    back = PairsTournament.from_dict(data)
    assert back.to_dict() == t.to_dict()
    assert back.records() == t.records()
    assert back.table_fine(gid, "n", "slow_play", -25, key="event:3", actor="t", at="x") is None
