"""The domino pages' sentences (:mod:`mesa.hub.web.games.domino_said`): every escalation step
said with names in both languages, and every audit line the events write said in words."""

from __future__ import annotations

import re

import pytest

from mesa.games.domino.pairs import PairsTournament
from mesa.games.domino.records import RecordEntry
from mesa.hub.web.games.domino_said import said_audit, said_entries, said_fine, signed

NAMES = {"ana": "Ana", "beto": "Beto", "carla": "Carla", "dani": "Dani"}


def _e(player: str, points: int, reason: str, games: int = 0, offender: str = "") -> RecordEntry:
    return RecordEntry(1, player, points, games, reason, "R1-M1", "escalation", None, "juez",
                       "2026-12-02T20:10:00", offender=offender)


def test_each_step_says_who_got_what() -> None:
    assert said_fine("es", "talking_first", [_e("ana", -25, "talking")], NAMES) == \
        "primera vez: −25 a Ana"
    second = [_e("ana", -75, "talking_second"), _e("beto", -75, "talking_second", 0, "ana")]
    assert said_fine("es", "talking_second", second, NAMES) == "segunda vez: −75 a Ana y a Beto"
    assert said_fine("en", "talking_second", second, NAMES) == "second time: −75 to Ana and Beto"
    third = [_e("ana", 0, "talking_third"), _e("carla", 100, "forfeit_award", 0, "ana"),
             _e("dani", 100, "forfeit_award", 0, "ana")]
    assert said_fine("es", "talking_third", third, NAMES, expelled="ana") == \
        "tercera vez: expulsión de Ana; +100 a Carla y a Dani"
    assert said_fine("es", "late_first", [_e("ana", 0, "late_arrival")], NAMES) == \
        "primera llegada tarde: anotada a Ana, sin tantos"
    assert said_fine("es", "late_repeat", [_e("ana", -50, "late_arrival_repeat")], NAMES) == \
        "otra llegada tarde: −50 a Ana"
    four = [_e(p, -100, "wrong_seats") for p in NAMES]
    assert said_fine("es", "wrong_seats", four, NAMES) == \
        "Sentados con la pareja equivocada: −100 a Ana, a Beto, a Carla y a Dani"
    assert said_fine("es", "chivo", [_e("ana", -25, "chivo")], NAMES, annulled=True) == \
        "Chivo: −25 a Ana; mano anulada"
    abandon = [_e("ana", -200, "abandoned"),
               *(_e(p, 100, "abandon_award", 1, "ana") for p in ("beto", "carla", "dani"))]
    assert said_fine("es", "abandoned", abandon, NAMES, expelled="ana") == \
        "abandono: expulsión de Ana; −200 a Ana; +100 y una partida ganada a Beto, a Carla y " \
        "a Dani"
    assert said_entries("en", [("ana", 100, 1)], NAMES) == "+100 and a game won to Ana"
    assert (signed(-25), signed(25), signed(0)) == ("−25", "+25", "0")


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_audit_line_of_an_event_reads_in_words(lang: str) -> None:
    t = PairsTournament("D1", "Dominó de marzo")
    t._log("director", "2026-12-02T20:00:00", "create", name="Dominó de marzo", format="pairs")
    for a, b in (("ana", "beto"), ("carla", "dani")):
        t.register_pair(a, b, (NAMES[a], NAMES[b]), actor="director", at="2026-12-02T20:00:01")
    (g,) = t.start_round(["1"], actor="director", at="2026-12-02T20:01:00")
    t.call_tiempo(1_800_000_000.0, actor="director", at="2026-12-02T20:02:00")
    t.late(g.id, "carla", actor="director", at="2026-12-02T20:03:00")
    for who in ("ana", "beto", "ana"):
        t.fine(g.id, who, "talking", actor="juez", at="2026-12-02T20:04:00")
    t.record_game(g.id, winner="ew", how="expulsion", score={"ns": 40, "ew": 60},
                  games_won={"ns": 0, "ew": 1}, hands=2, actor="table 1",
                  at="2026-12-02T20:05:00")
    t.sheet_unsigned(g.id, ["ns"], actor="table 1", at="2026-12-02T20:06:00")
    t.table_fine(g.id, "e", "slow_play", -25, key="event:9", actor="table 1",
                 at="2026-12-02T20:06:00")
    t.close(actor="director", at="2026-12-02T21:00:00")
    lines = [said_audit(lang, a.action, a.details, t.player_names()) for a in t.audit]
    for line in lines:
        assert line and not re.search(r"[{}\[\]]|\\u00|\d{4}-\d\d-\d\dT|dom\.", line), line
        assert not re.search(r"\bP?\d{4}\b", line) or "TIEMPO" in line, line
    text = "\n".join(lines)
    if lang == "es":
        assert "segunda vez: −75 a Beto y a Ana" in text
        assert "tercera vez: expulsión de Ana; +100 a Carla y a Dani" in text
        assert "Pareja P1 inscrita: Ana / Beto" in text
        assert "R1-M1 en la mesa 1: Ana / Beto – Carla / Dani" in text
        assert "R1-M1: gana EW por expulsión, 40–60 en 2 manos" in text
        assert "hoja sin firmar: −25 a Ana y a Beto" in text
        assert "Torneo cerrado tras 1 ronda" in text
    else:
        assert "second time: −75 to Beto and Ana" in text
