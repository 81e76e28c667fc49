"""Explanations: every group place and every point, in Spanish and English."""

from __future__ import annotations

from mesa.tournament.explain import group_place_lines, points_lines


def test_group_place_names_the_deciding_criterion(h, clock) -> None:
    t, _ = h.build(3, names=["ANA", "BEA", "EVA"])
    # Berger: G1-1 BEA-EVA, G1-2 ANA-BEA, G1-3 EVA-ANA. A cycle decided by criterion 2,
    # then BEA and EVA again by criterion 1.
    t.record_result("G1-1", 3, 1, now=clock())   # BEA beats EVA 3-1
    t.record_result("G1-2", 3, 0, now=clock())   # ANA beats BEA 3-0
    t.record_result("G1-3", 3, 2, now=clock())   # EVA beats ANA 3-2
    es = group_place_lines(t, "P0002", "es")
    assert es[0] == "BEA — grupo 1: 2º puesto"
    assert any("Criterio 2 (diferencia de puntos entre los empatados) entre ANA, BEA, EVA: "
               "ANA +2, BEA -1, EVA -1 — deshace el empate" in line for line in es)
    assert any(line.strip().startswith("Criterio 1") and "entre BEA, EVA" in line
               for line in es)
    assert es[-2].strip() == "Decidido por: Criterio 1 (encuentros ganados entre los empatados)"
    assert es[-1].strip() == "Clasificado para la eliminatoria"
    en = group_place_lines(t, "P0001", "en")
    assert en[0] == "ANA — group 1: 1st place"
    assert "Decided by: Criterion 2" in en[-2]


def test_provisional_then_final(h, clock) -> None:
    t, _ = h.build(3, names=["ANA", "BEA", "EVA"])
    t.record_result("G1-1", 3, 0, now=clock())
    assert "provisional" in group_place_lines(t, "P0001", "es")[0]
    lines = points_lines(t, "P0001", "en")
    assert lines[0] == "ANA — Enero: 0.10 points"
    assert "Place: still playing (0.00 so far)" in lines[1]
    assert "Participation: 0.10" in lines[2]


def test_points_lines_for_removed_wins(h, clock) -> None:
    t, _ = h.build(3, names=["ANA", "BEA", "EVA"])
    t.record_result("G1-1", 0, 3, forfeit=True, now=clock())   # BEA forfeits to EVA
    t.record_result("G1-2", 1, 3, now=clock())                 # BEA beats ANA
    t.record_result("G1-3", 0, 3, now=clock())                 # ANA beats EVA
    lines = points_lines(t, "P0002", "es")  # BEA: won one, lost the other by forfeit
    assert any("sin puntos (HGV 2.3.3)" in line for line in lines)
    assert "resultados anulados" in "\n".join(group_place_lines(t, "P0002", "es"))


def test_dice_and_pending_are_explained(h, clock) -> None:
    from mesa.tournament.settings import TournamentSettings

    for dice_by, word in (("hub", "dados"), ("director", "pendiente de los dados")):
        t, _ = h.build(3, names=["ANA", "BEA", "EVA"],
                       settings=TournamentSettings(dice_by=dice_by))
        for m in t.group_matches(1):
            t.record_result(m.id, 3, 0, now=clock())
        assert word in "\n".join(group_place_lines(t, "P0001", "es"))
        assert "dice" in "\n".join(group_place_lines(t, "P0001", "en"))
