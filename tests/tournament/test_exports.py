"""Exports: "ASÍ QUEDÓ EL TORNEO" in the club's format, CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
import random
import re

from mesa.tournament.exports import (
    final_list_csv,
    final_list_text,
    standings_csv,
    to_json,
    tournament_summary,
)


def played(h):
    t, _ = h.build(30, names=h.SEED_NAMES)
    h.play(t, random.Random(2014))
    return t


def test_asi_quedo_el_torneo(h) -> None:
    t = played(h)
    text = final_list_text(t, absent=["EUSEBIO", "SALVI M."])
    lines = text.splitlines()
    assert lines[0] == "ASÍ QUEDÓ EL TORNEO"
    assert all(re.fullmatch(r"\d+º .+ \d+,\d\d", line) for line in lines[1:])
    assert lines[1].startswith("1º ") and lines[-1] == "32º SALVI M. 0,00"
    champion = t.name_of(t.champion)
    assert any(line.startswith(f"1º {champion} ") or champion in line for line in lines[1:3])
    en = final_list_text(t, "en").splitlines()
    assert en[0] == "FINAL STANDINGS" and re.fullmatch(r"1st .+ \d+\.\d\d", en[1])


def test_csv_spanish_and_english(h) -> None:
    t = played(h)
    es = list(csv.reader(io.StringIO(final_list_csv(t, "es")), delimiter=";"))
    en = list(csv.reader(io.StringIO(final_list_csv(t)[:0] + final_list_csv(t, "en"))))
    assert es[0][:4] == ["posicion", "jugador", "nombre", "puntos"]
    assert en[0][:4] == ["position", "player_id", "name", "points"]
    assert len(es) == len(en) == 31
    assert re.fullmatch(r"\d+,\d\d", es[1][3]) and re.fullmatch(r"\d+\.\d\d", en[1][3])
    assert es[1][4] == "1º" or es[1][4].endswith("º")
    st = list(csv.reader(io.StringIO(standings_csv(t, "en"))))
    assert st[0][0] == "group" and len(st) == 31


def test_json_summary(h) -> None:
    t = played(h)
    data = json.loads(to_json(tournament_summary(t)))
    assert data["champion"] == t.champion and len(data["final_list"]) == 30
    first = data["final_list"][0]
    assert first["breakdown"]["total"] == first["points_hundredths"]
    assert first["explanation"][0].startswith(first["name"])
    assert len(data["groups"]) == 10 and data["groups"][0]["explanations"]
    assert len(data["consolation_finalists"]) == 2
