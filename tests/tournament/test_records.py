"""The records a tournament keeps (mesa.tournament.records): each round-trips through its dict."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from mesa.tournament.errors import TournamentError
from mesa.tournament.knockout import QualifiedSeed, Swap
from mesa.tournament.records import (
    AuditEntry,
    BracketState,
    Conflict,
    Entrant,
    KnockoutForfeit,
    Outcome,
    Withdrawal,
    need_time,
)

NOW = datetime(2014, 1, 31, 19, 30)


@pytest.mark.parametrize("record", [
    Entrant("P0001", "ALEX", NOW, override=True),
    AuditEntry(3, NOW, "director", "register", {"player_id": "P0001"}),
    Withdrawal("P0002", "no_show", NOW, "director"),
    KnockoutForfeit("P0003", "KO-R16-2", None, NOW),
    KnockoutForfeit("P0003", "KO-R16-2", "P0009", NOW),
    Conflict("C1", "G1-1", None, {"a": "P1", "b": "P2", "score_a": 3}, "table", "T4", NOW,
             ["table"], []),
    Conflict("C2", "KO-PI-1", {"a": "P1"}, {"a": "P1"}, "al revés", "joselo", NOW,
             ["downstream"], ["KO-F-1"], "applied", "director", NOW,
             [{"match_id": "KO-F-1", "result": None, "started": False, "table": "3"}]),
])
def test_round_trip(record: Any) -> None:
    assert type(record).from_dict(record.to_dict()) == record


def test_a_bracket_knows_its_final_and_players() -> None:
    seeds = [QualifiedSeed(1, "P1", 2, 1), QualifiedSeed(2, "P2", 1, 2)]
    b = BracketState("knockout", seeds, [Swap((2, 3), ("P2", "P3"), 2, 1)], 2, ["KO-F-1"])
    assert b.final_id == "KO-F-1" and b.players == ["P1", "P2"]
    again = BracketState.from_dict(b.to_dict())
    assert again == b
    assert BracketState("consolation", [], [], 0, []).final_id is None


def test_an_outcome_as_the_hub_publishes_it() -> None:
    out = Outcome("record_result", "G1-1", changed=["G1-1"],
                  substitution=KnockoutForfeit("P3", "KO-F-1", "P4", NOW))
    d = out.to_dict()
    assert d["substitution"] == {"player_id": "P3", "match_id": "KO-F-1", "replaced_by": "P4",
                                 "at": "2014-01-31T19:30:00"}
    assert d["conflict"] is None and d["champion"] is None and d["changed"] == ["G1-1"]


def test_a_saved_record_without_its_time_is_refused() -> None:
    assert need_time(NOW) is NOW
    with pytest.raises(TournamentError) as e:
        Entrant.from_dict({"player_id": "P1", "name": "A", "registered_at": None})
    assert e.value.reason == "no_time"
