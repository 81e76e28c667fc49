"""Settings: the club's defaults and their JSON form."""

from __future__ import annotations

import json

import pytest

from mesa.tournament.errors import TournamentError
from mesa.tournament.settings import PointsScale, TournamentSettings


def test_defaults_are_the_rules() -> None:
    s = TournamentSettings()
    assert (s.group_length, s.knockout_length, s.final_rounds_length, s.consolation_length) == (
        3, 5, 7, 3)
    assert (s.final_rounds_reserve_s, s.final_rounds_delay_s, s.final_rounds_from) == (840, 10, 4)
    assert s.clock_from == 8  # HGV 3.1: the clock is mandatory from the quarterfinals
    assert s.qualifiers_per_group == 3
    assert s.points == PointsScale()


def test_round_trip_through_json() -> None:
    s = TournamentSettings(feature_tables=("T1", "T2"), dice_by="director",
                           points=PointsScale(participation=5), clock_from=16)
    assert TournamentSettings.from_dict(json.loads(json.dumps(s.to_dict()))) == s
    assert s.with_changes(group_length=5).group_length == 5


@pytest.mark.parametrize("bad", [{"group_length": 0}, {"dice_by": "coin"}])
def test_bad_settings(bad: dict) -> None:
    with pytest.raises(TournamentError):
        TournamentSettings(**bad)
