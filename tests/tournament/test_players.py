"""Player registry: ids, unique names and cards, sanctions (HGV 2.3.5, 2.3.6)."""

from __future__ import annotations

from datetime import date

import pytest

from mesa.tournament.errors import DuplicatePlayerError, TournamentError, UnknownPlayerError
from mesa.tournament.players import Player, PlayerRegistry, Sanction, normalize_card


def test_ids_and_lookup() -> None:
    reg = PlayerRegistry()
    a = reg.add_new("ALEX", card_ids=("04:a1:b2",))
    b = reg.add_new("María José", category="novatos")
    assert (a.id, b.id) == ("P0001", "P0002")
    assert reg.by_card("04A1B2") == a and reg.get("P0002") == b
    assert reg.find_name("maria jose") == b
    assert len(reg) == 2 and "P0001" in reg and [p.id for p in reg] == ["P0001", "P0002"]


@pytest.mark.parametrize("name", ["alex", " ALEX ", "Álex"])
def test_duplicate_names(name: str) -> None:
    reg = PlayerRegistry()
    reg.add_new("ALEX")
    with pytest.raises(DuplicatePlayerError):
        reg.add_new(name)


def test_duplicate_card_and_id() -> None:
    reg = PlayerRegistry()
    reg.add_new("ALEX", card_ids=("04A1",))
    with pytest.raises(DuplicatePlayerError, match="card 04A1"):
        reg.add_new("MANU", card_ids=("04 a1",))
    with pytest.raises(DuplicatePlayerError):
        reg.add(Player("P0001", "OTHER"))
    assert len(reg) == 1


def test_unknown() -> None:
    reg = PlayerRegistry()
    with pytest.raises(UnknownPlayerError):
        reg.get("P0009")
    with pytest.raises(UnknownPlayerError):
        reg.by_card("FFFF")


def test_update_keeps_uniqueness() -> None:
    reg = PlayerRegistry()
    reg.add_new("ALEX")
    reg.add_new("MANU")
    assert reg.update("P0001", name="ALEX R.").name == "ALEX R."
    assert reg.find_name("ALEX") is None and reg.find_name("alex r.").id == "P0001"
    with pytest.raises(DuplicatePlayerError):
        reg.update("P0002", name="alex r.")
    with pytest.raises(TournamentError):
        reg.update("P0002", category="pros")
    assert reg.add_card("P0002", "ab:cd").card_ids == ("ABCD",)
    assert normalize_card(" ab-cd ") == "ABCD"


def test_empty_name() -> None:
    with pytest.raises(TournamentError):
        PlayerRegistry().add_new("  ")


def test_sanction_bars_the_next_tournament_only() -> None:
    reg = PlayerRegistry()
    reg.add_new("ALEX")
    s = reg.add_sanction(Sanction("T1:P0001:left", "P0001", "left", "T1", date(2014, 1, 31)))
    assert s.rule == "HGV 2.3.5"
    assert reg.pending_sanctions("P0001", "T1") == []  # not the tournament it happened in
    assert reg.pending_sanctions("P0001", "T2") == [s]
    assert reg.serve_sanctions("T2", date(2014, 2, 28))[0].served_in == "T2"
    assert reg.pending_sanctions("P0001", "T2")  # still shown for the one it is served in
    assert reg.pending_sanctions("P0001", "T3") == []
    reg.add_sanction(Sanction("T1:P0001:left", "P0001", "left", "T1", date(2014, 1, 31)))
    assert len(reg.sanctions) == 1  # the same sanction twice is one


def test_round_trip() -> None:
    reg = PlayerRegistry()
    reg.add_new("ALEX", card_ids=("04A1",))
    reg.add_new("BEA", category="novatos", member=False)
    reg.add_sanction(Sanction("x", "P0002", "no_show", "T1", date(2014, 1, 31)))
    back = PlayerRegistry.from_dict(reg.to_dict())
    assert back == reg and back.by_card("04a1").name == "ALEX"
    assert back.add_new("CARLOS").id == "P0003"
