"""The game registry: names, lookup, and telling a snapshot's game (explicit or legacy)."""

import pytest

from mesa.games.backgammon.machine import Table
from mesa.games.domino.machine import DominoTable
from mesa.games.registry import GAME_KEY, UnknownGame, game_of_snapshot, games, names


def test_every_game_is_registered_once_with_a_distinct_legacy_key():
    assert names() == ("backgammon", "domino")
    assert len({g.legacy_key for g in games()}) == len(games())


@pytest.mark.parametrize("game", games(), ids=lambda g: g.name)
def test_a_fresh_snapshot_is_recognised_as_its_own_game(game):
    snap = game.machine().snapshot()
    assert game_of_snapshot(snap) is game
    assert game_of_snapshot({**snap, GAME_KEY: game.name}) is game


def test_old_snapshots_without_the_game_field_still_read():
    assert game_of_snapshot(Table().snapshot()).name == "backgammon"
    assert game_of_snapshot(DominoTable().snapshot()).name == "domino"


@pytest.mark.parametrize("bad", ["chess", "", None, 3, ["domino"]])
def test_an_unknown_game_is_refused_with_the_known_ones(bad):
    with pytest.raises(UnknownGame, match="known: backgammon, domino"):
        game_of_snapshot({GAME_KEY: bad})
