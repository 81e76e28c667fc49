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


@pytest.mark.parametrize("game", games(), ids=lambda g: g.name)
def test_a_game_gives_docgen_its_inputs_and_transitions(game):
    assert set(game.states) == {s for s, _ in game.transitions}
    assert {n for _, n in game.transitions} <= set(game.inputs)
    page = game.transitions_markdown()
    assert all(f"`{name}`" in page for name in game.inputs)


def test_every_game_has_its_own_transitions_page():
    from mesa.docgen import GENERATED

    assert {g.transitions_doc for g in games()} <= set(GENERATED)
    assert len({g.transitions_doc for g in games()}) == len(games())


@pytest.mark.parametrize("game", games(), ids=lambda g: g.name)
def test_restore_through_the_registry_gives_the_game_s_machine(game):
    from mesa.games.registry import restore

    snap = game.machine().snapshot()
    assert snap[GAME_KEY] == game.name
    assert type(restore(snap)) is game.machine
    old = {k: v for k, v in snap.items() if k != GAME_KEY}
    assert type(restore(old)) is game.machine


def test_a_snapshot_naming_another_game_is_refused_by_the_machine():
    from mesa.errors import ConfigError

    with pytest.raises(ConfigError, match="'domino' table's state, not a 'backgammon'"):
        Table.restore({**Table().snapshot(), GAME_KEY: "domino"})
    with pytest.raises(ConfigError, match="'backgammon' table's state, not a 'domino'"):
        DominoTable.restore({**DominoTable().snapshot(), GAME_KEY: "backgammon"})
