"""Every registered game's plug-in of the one table program: the same runtime, journal, screen,
LEDs, link, app and simulator work for each. Adding a game means adding its plug-in
(``controller/games/<name>``) and passing these."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from mesa.controller import cli
from mesa.controller.app import TableApp
from mesa.controller.config import parse_config
from mesa.controller.games import TableGame, table_game, table_game_of
from mesa.controller.games.backgammon.oled import SIZES
from mesa.controller.gpio import TableOutputs
from mesa.controller.journal import Journal
from mesa.controller.link import LinkSettings, TableLink
from mesa.controller.outbox import Outbox
from mesa.controller.robot_plans import play
from mesa.controller.runtime import ManualClock, TableRuntime
from mesa.controller.sim import EndCounter
from mesa.errors import ConfigError
from mesa.games.registry import UnknownGame, names
from mesa.protocol import ProtocolError, TableStatus, decode
from support.modules import ROOT
from support.oled_golden import cases, check_index

GAMES = names()


@pytest.mark.parametrize("name", GAMES)
def test_every_registered_game_has_a_plug_in(name: str) -> None:
    game = table_game(name)
    assert isinstance(game, TableGame) and game.name == name
    assert table_game_of(game.new_table()) is game
    assert set(game.robot_seats) == set(cli.ROBOTS)
    assert set(game.robot_seats["both"]) == set(game.seats)
    assert TableRuntime(game=name).game is game
    assert TableRuntime(game.new_table()).game is game  # the game of the machine given


def test_an_unknown_game_has_no_plug_in() -> None:
    with pytest.raises(UnknownGame):
        table_game("chess")
    with pytest.raises(TypeError):
        table_game_of(object())


def test_the_commands_offer_the_registered_games() -> None:
    assert list(cli.GAMES) == list(names()) and names()[0] == cli.DEFAULT_GAME
    assert "domino" in cli.GAMES and "chess" not in cli.GAMES


def test_the_configuration_names_a_registered_game() -> None:
    with pytest.raises(ConfigError, match=r"table\.game must be one of"):
        parse_config('[table]\ngame = "chess"\n')


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("language", ["es", "en"])
def test_a_fresh_table_has_a_screen_at_every_size(name: str, language: str) -> None:
    rt = TableRuntime(game=name, clock=ManualClock(), table_id="7", language=language)
    view = rt.view()
    for size in SIZES:
        assert rt.game.render(view, rt.status, 0.0, size).size == size
    assert not rt.game.animated(view)
    assert len(list(rt.game.scenes())) > 0


@pytest.mark.parametrize("name", GAMES)
def test_the_reference_index_lists_every_image_with_its_caption(name: str) -> None:
    # The golden images themselves are compared in each game's screen tests, which the indexes
    # name; the index is the same check for every game (moved here from those files).
    game = table_game(name)
    check_index(ROOT / game.reference_dir, cases(game.scenes()))


def _robot_game(name: str, tmp_path: Path) -> tuple[TableRuntime, Journal, Any]:
    """One whole match (or game) between the game's robots, journalled, in virtual time."""
    game = table_game(name)
    clock = ManualClock()
    journal = Journal(tmp_path, game=name, fsync=False)
    counter = EndCounter(game.ended)
    rt = TableRuntime(game=name, clock=clock, sinks=[counter])
    journal.prepare(rt)
    outputs = TableOutputs(game=name)
    rt.add_view_listener(outputs.update)
    rt.add_sink(outputs)
    rt.add_view_listener(game.auto_assign(rt, "t1", matches=1, length=1))
    robots = game.robots(game.seats, 3, game.robot_style(True, "menu"))
    play(rt, robots, clock, until=lambda v: counter.ended >= 1)
    return rt, journal, outputs


@pytest.mark.parametrize("name", GAMES)
def test_a_robot_game_is_journalled_and_recovered_whole(name: str, tmp_path: Path) -> None:
    rt, journal, outputs = _robot_game(name, tmp_path)
    journal.close()
    assert outputs.beeps or outputs.led_state  # the LEDs followed the game
    again = Journal(tmp_path, game=name, fsync=False).recover()
    assert again.problems == []
    assert again.table.snapshot() == rt.snapshot()
    # Restored, journalled again and recovered once more: the restore's own event is not the
    # machine's, so the second recovery replays it identically.
    rt2 = TableRuntime(game=name, clock=ManualClock())
    journal2 = Journal(tmp_path, game=name, fsync=False)
    recovery = journal2.attach(rt2)
    assert recovery is not None and rt2.status.restored
    journal2.close()
    third = Journal(tmp_path, game=name, fsync=False).recover()
    assert third.problems == [] and third.table.state == rt.table.state


@pytest.mark.parametrize("name", GAMES)
def test_the_link_says_which_game_the_table_plays(name: str, tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox.sqlite3", table="t1")
    link = TableLink(LinkSettings(table="t1"), outbox, game=name)
    status = decode(TableStatus, link._status("online").to_payload(), "t1")
    assert status.game == name and status.state == "online"
    outbox.close()


def test_a_status_names_a_registered_game_or_none() -> None:
    old = TableStatus("t1", "online", 3, 1.0)
    assert b"game" not in old.to_payload()  # an older table's status, and an older hub's read
    assert decode(TableStatus, old.to_payload(), "t1").game is None
    chess = b'{"v":1,"table":"t1","state":"online","bdseq":3,"ts":1.0,"game":"chess"}'
    with pytest.raises(ProtocolError, match="game must be one of backgammon, domino"):
        decode(TableStatus, chess, "t1")


@pytest.mark.parametrize("name", GAMES)
def test_a_configuration_of_each_game_starts_its_table(name: str) -> None:
    cfg = parse_config(f'[table]\ngame = "{name}"\n[display]\nmodel = "dummy"\n')
    app = TableApp(cfg, pin_factory=MockFactory())
    app.start()
    try:
        assert app.runtime.game.name == name and app.runtime.view().state == "idle"
    finally:
        app.stop()


def test_a_plug_in_that_lacks_a_member_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from mesa.controller.games import domino

    class Half:
        name = "domino"

    monkeypatch.setattr(domino, "GAME", Half())
    with pytest.raises(TypeError, match=r"lacks .*render"):
        table_game("domino")
