"""The domino table's wire messages: what they accept, what they refuse, and their docs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mesa import protocol as p

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
PLAYERS = {"n": "Ana", "e": "Beto", "s": "Carla", "w": "Dani"}
GAME = {"game_id": "R1-M1", "players": PLAYERS}


def assignment(**changes: object) -> bytes:
    obj = {
        "v": 1,
        "table": "3",
        "txn": "x",
        "game": "domino",
        "args": GAME,
        "tiempo": 1000.0,
        "ts": 1.0,
    }
    obj.update(changes)
    return json.dumps(obj).encode()


def test_a_domino_assignment_carries_the_game_and_tiempo() -> None:
    a = p.decode(p.DominoAssignment, assignment(), table="3")
    assert a.args == GAME and a.tiempo == 1000.0
    assert p.decode(p.DominoAssignment, assignment(args=None, tiempo=None), table="3").args is None
    assert p.decode(p.DominoAssignment, assignment(tiempo=None), table="3").tiempo is None


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"args": None}, "bad_field"),  # "TIEMPO" without a game
        ({"tiempo": -5.0}, "bad_field"),
        ({"tiempo": "now"}, "bad_field"),
        ({"game": "backgammon"}, "bad_field"),
        ({"args": {"game_id": "x", "players": {"n": "Ana"}, "length": 3}}, "bad_input"),
        (
            {"args": {"match_id": "M", "players": {"a": "Ana", "b": "Beto"}, "length": 3}},
            "bad_input",
        ),
        ({"table": "4"}, "table_mismatch"),
    ],
)
def test_what_a_domino_assignment_refuses(changes: dict[str, object], code: str) -> None:
    with pytest.raises(p.ProtocolError) as e:
        p.decode(p.DominoAssignment, assignment(**changes), table="3")
    assert e.value.code == code


def test_the_vocabularies_are_kept_apart() -> None:
    bg = p.Assignment(
        "3", "y", {"match_id": "M", "players": {"a": "Ana", "b": "Beto"}, "length": 3}, 1.0
    )
    with pytest.raises(p.ProtocolError, match="bad_field"):
        p.decode(p.DominoAssignment, bg.to_payload(), table="3")
    with pytest.raises(p.ProtocolError, match="bad_field"):
        p.decode(p.Assignment, assignment(), table="3")
    with pytest.raises(p.ProtocolError, match="bad_field"):
        p.decode(
            p.Command,
            p.DominoCommand(
                "3", "z", "domino", "penalty", {"seat": "n", "reason": "chivo"}, 1.0
            ).to_payload(),
        )


def test_domino_commands_are_the_directors() -> None:
    assert p.DOMINO_CMD_INPUTS == ("penalty", "absence", "late", "annul")
    annul = p.DominoCommand("3", "t", "domino", "annul", {"seat": "e", "reason": "chivo"}, 1.0)
    assert p.decode(p.DominoCommand, annul.to_payload(), table="3").args["reason"] == "chivo"
    ok = p.DominoCommand("3", "t", "domino", "absence", {"seats": ["n"]}, 1.0)
    assert p.decode(p.DominoCommand, ok.to_payload(), table="3").input == "absence"
    for name, args in [
        ("tiempo", {"start_wall": 1.0, "wall": 2.0}),
        ("press", {"seat": "n"}),
        ("penalty", {"seat": "n", "reason": "nonsense"}),
        ("annul", {"seat": "n", "reason": "talking"}),
    ]:
        bad = json.dumps(
            {
                "v": 1,
                "table": "3",
                "txn": "t",
                "game": "domino",
                "input": name,
                "args": args,
                "ts": 1.0,
            }
        )
        with pytest.raises(p.ProtocolError, match="bad_input"):
            p.decode(p.DominoCommand, bad, table="3")


def test_the_doc_describes_the_domino_messages() -> None:
    text = DOC.read_text(encoding="utf-8")
    for cls in p.DOMINO_MESSAGES.values():
        section = re.search(rf"^### `{cls.__name__}`.*?(?=^### |\Z)", text, re.M | re.S)
        assert section, f"docs/protocol.md has no section for {cls.__name__}"
        documented = set(re.findall(r"^\| `(\w+)` \|", section.group(0), re.M))
        assert documented == {"v", *p._hints(cls)}, cls.__name__
    for name in p.DOMINO_CMD_INPUTS:
        assert f"`{name}`" in text
    assert "## Domino tables" in text
