"""Players' records and the seed's escalations (mesa.games.domino.records), pure."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mesa.games.domino.records import (
    ABANDON_AWARD,
    ABSENCE_AWARD,
    FORFEIT_AWARD,
    Decision,
    PlayedGame,
    RecordEntry,
    decide_absence,
    decide_fine,
    decide_unsigned,
    player_records,
    stamp,
)

SEATING = {"n": "ana", "e": "beto", "s": "carla", "w": "dani"}


def _add(entries: list[RecordEntry], d: Decision, game: str = "G1", key: str | None = None
         ) -> list[RecordEntry]:
    new = stamp(entries, d, game_id=game, source="escalation", actor="juez", at="20:00",
                key=key)
    entries.extend(new)
    return new


def _fine(entries: list[RecordEntry], reason: str, seat: str, *, game: str = "G1",
          seating: dict[str, str] = SEATING, partnered: tuple[str, ...] = ("G1",),
          in_play: bool = True, points: int | None = None) -> Decision:
    d = decide_fine(reason, seat, seating, entries, partnered_games=partnered,  # type: ignore[arg-type]
                    in_play=in_play, points=points)
    _add(entries, d, game)
    return d


def _lines(d: Decision) -> list[tuple[str, int, str]]:
    return [(x.player, x.points, x.reason) for x in d.lines]


# ── talking ──
def test_talking_first_second_third_by_the_same_player() -> None:
    e: list[RecordEntry] = []
    assert _lines(_fine(e, "talking", "n")) == [("ana", -25, "talking")]
    d = _fine(e, "talking", "n")
    assert d.step == "talking_second" and d.expel is None
    assert _lines(d) == [("ana", -75, "talking_second"), ("carla", -75, "talking_second")]
    d = _fine(e, "talking", "n")
    assert d.step == "talking_third" and d.expel == "ana"
    # the game in progress ends: +100 to each opponent (their win comes from the result)
    assert _lines(d) == [("ana", 0, "talking_third"), ("beto", 100, FORFEIT_AWARD),
                         ("dani", 100, FORFEIT_AWARD)]
    r = player_records(SEATING.values(), [], e)
    assert (r["ana"].fines, r["ana"].talking, r["ana"].expelled) == (-100, 3, True)
    # the partner's −75 is not his offence
    assert (r["carla"].fines, r["carla"].talking, r["carla"].expelled) == (-75, 0, False)
    assert r["beto"].awards == 100 and not r["ana"].red_card


def test_talking_second_time_by_the_partner() -> None:
    e: list[RecordEntry] = []
    _fine(e, "talking", "n")  # ana −25
    d = _fine(e, "talking", "s")  # carla: her pair's second time
    assert _lines(d) == [("carla", -75, "talking_second"), ("ana", -75, "talking_second")]
    d = _fine(e, "talking", "s")  # carla again: the third time
    assert d.expel == "carla"


def test_the_director_may_name_any_step_of_talking_the_record_decides() -> None:
    e: list[RecordEntry] = []
    assert _fine(e, "talking_third", "e").step == "talking_first"
    assert _fine(e, "talking_second", "e").step == "talking_second"


def test_talking_individual_partner_counts_only_while_partners() -> None:
    e: list[RecordEntry] = []
    _fine(e, "talking", "n", game="G1")  # ana talked in G1 (partner carla)
    # G2: carla partners beto; neither has talked
    g2 = {"n": "carla", "s": "beto", "e": "ana", "w": "dani"}
    d = _fine(e, "talking", "s", game="G2", seating=g2, partnered=("G2",))
    assert d.step == "talking_first"  # beto's first, carla never talked
    # G3: ana partners beto (together in no game before): ana's own second time
    g3 = {"n": "ana", "s": "beto", "e": "carla", "w": "dani"}
    d = _fine(e, "talking", "n", game="G3", seating=g3, partnered=("G3",))
    assert _lines(d) == [("ana", -75, "talking_second"), ("beto", -75, "talking_second")]
    # G4: beto partners dani: beto's own count is 1 (G2) → second time
    g4 = {"n": "beto", "s": "dani", "e": "ana", "w": "carla"}
    d = _fine(e, "talking", "n", game="G4", seating=g4, partnered=("G4",))
    assert d.step == "talking_second"
    # dani never talked; beto's offence with him (G4) counts, the one of G2 does not
    d = _fine(e, "talking", "s", game="G4", seating=g4, partnered=("G4",))
    assert d.step == "talking_second"
    d = _fine(e, "talking", "n", game="G4", seating=g4, partnered=("G4",))
    assert d.step == "talking_third" and d.expel == "beto"


def test_expulsion_after_the_game_is_recorded_has_no_forfeit() -> None:
    e: list[RecordEntry] = []
    d = _fine(e, "misconduct", "w", in_play=False)
    assert d.expel == "dani" and _lines(d) == [("dani", 0, "misconduct")]


# ── late arrival ──
def test_late_arrival_first_recorded_then_minus_50() -> None:
    e: list[RecordEntry] = []
    d = _fine(e, "late_arrival_repeat", "e")
    assert d.step == "late_first" and _lines(d) == [("beto", 0, "late_arrival")]
    d = _fine(e, "late_arrival_repeat", "e", game="G2")
    assert d.step == "late_repeat" and _lines(d) == [("beto", -50, "late_arrival_repeat")]
    assert _lines(_fine(e, "late_arrival", "e", game="G3"))[0][1] == -50
    r = player_records([], [], e)["beto"]
    assert (r.late, r.fines, r.awards) == (3, -100, 0)


# ── the sheet, annulled hands, the wrong partner, other fines ──
def test_unsigned_sheet_minus_25_to_each_of_the_pair() -> None:
    assert _lines(decide_unsigned(["beto", "dani"])) == [
        ("beto", -25, "sheet_unsigned"), ("dani", -25, "sheet_unsigned")]
    e: list[RecordEntry] = []
    assert _lines(_fine(e, "sheet_unsigned", "w")) == [
        ("beto", -25, "sheet_unsigned"), ("dani", -25, "sheet_unsigned")]


def test_annulling_fines_are_minus_25_to_the_offender() -> None:
    for reason in ("pass_with_playable", "chivo"):
        assert _lines(_fine([], reason, "s")) == [("carla", -25, reason)]


def test_wrong_partner_minus_100_to_each_of_the_four() -> None:
    d = _fine([], "wrong_seats", "n")
    assert sorted(_lines(d)) == sorted((p, -100, "wrong_seats") for p in SEATING.values())


def test_scopes_and_the_points_override() -> None:
    d = _fine([], "gesture_pass", "n")
    assert _lines(d) == [("beto", 25, "gesture_pass"), ("dani", 25, "gesture_pass")]
    assert all(x.offender == "ana" for x in d.lines)
    assert _lines(_fine([], "wrong_lead", "n", points=-40)) == [("ana", -40, "wrong_lead")]


# ── absence and abandonment: wins from the awards only ──
def test_absence_awards_each_present_player_and_the_result_gives_no_win() -> None:
    e: list[RecordEntry] = []
    _add(e, decide_absence(["ana"], ["beto", "carla", "dani"]))
    g = PlayedGame("G1", SEATING, "ew", "absence", {"ns": 0, "ew": 0})
    r = player_records(SEATING.values(), [g], e)
    assert [(p, x.played, x.won, x.points) for p, x in r.items()] == [
        ("ana", 1, 0, -100), ("beto", 1, 1, 100), ("carla", 1, 1, 100), ("dani", 1, 1, 100)]
    assert {x.reason for x in e[1:]} == {ABSENCE_AWARD}


def test_abandonment_expels_with_a_red_card_and_the_other_three_win() -> None:
    e: list[RecordEntry] = []
    d = _fine(e, "abandoned", "e")
    assert d.expel == "beto"
    assert _lines(d) == [("beto", -200, "abandoned"), ("ana", 100, ABANDON_AWARD),
                         ("carla", 100, ABANDON_AWARD), ("dani", 100, ABANDON_AWARD)]
    # the table ended it by expulsion, won by ns: that result gives no win here
    g = PlayedGame("G1", SEATING, "ns", "expulsion", {"ns": 40, "ew": 30})
    r = player_records(SEATING.values(), [g], e)
    assert (r["beto"].won, r["beto"].points, r["beto"].red_card) == (0, -170, True)
    assert (r["dani"].won, r["dani"].points) == (1, 130)  # his partner left: he still wins
    assert (r["ana"].won, r["ana"].points) == (1, 140)


def test_other_expulsion_win_comes_from_the_result() -> None:
    e: list[RecordEntry] = []
    _fine(e, "marked_tiles", "n")
    g = PlayedGame("G1", SEATING, "ew", "expulsion", {"ns": 10, "ew": 20})
    r = player_records(SEATING.values(), [g], e)
    assert (r["beto"].won, r["beto"].points) == (1, 120)
    assert (r["carla"].won, r["carla"].points, r["carla"].expelled) == (0, 10, False)


# ── a table's fines: once per key ──
def test_table_fines_land_once_per_key() -> None:
    e: list[RecordEntry] = []
    slow = Decision("slow_play", (decide_fine("other", "n", SEATING, [], partnered_games=(),
                                              points=-25).lines[0],))
    assert len(_add(e, slow, key="event:41")) == 1
    assert _add(e, slow, key="event:41") == []
    assert len(_add(e, slow, key="event:42")) == 1
    assert [x.seq for x in e] == [1, 2]
    assert player_records([], [], e)["ana"].fines == -50


# ── the record adds up ──
@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(SEATING.values())), st.integers(-300, 300),
                          st.integers(0, 1)), max_size=30),
       st.lists(st.tuples(st.sampled_from(["ns", "ew", None]), st.integers(0, 250),
                          st.integers(0, 250)), max_size=6))
def test_points_are_hand_points_plus_fines_plus_awards(raw, games) -> None:  # type: ignore[no-untyped-def]
    entries = [RecordEntry(i, p, pts, w, "other", "G0", "director", None, "d", "x")
               for i, (p, pts, w) in enumerate(raw, 1)]
    played = [PlayedGame(f"G{i}", SEATING, w, "points", {"ns": a, "ew": b})
              for i, (w, a, b) in enumerate(games, 1)]
    r = player_records(SEATING.values(), played, entries)
    for seat, p in SEATING.items():
        side = "ns" if seat in "ns" else "ew"
        x = r[p]
        assert x.hand_points == sum(g.score[side] for g in played)
        assert x.fines == sum(pts for q, pts, _ in raw if q == p and pts < 0)
        assert x.awards == sum(pts for q, pts, _ in raw if q == p and pts > 0)
        assert x.points == x.hand_points + x.fines + x.awards
        # the awards' wins are of a game not among these: every result counts
        assert x.won == sum(g.winner == side for g in played) + sum(
            w for q, _, w in raw if q == p)
