"""Ranking CSV: every bad row reported with its line number, nothing imported until fixed."""

from __future__ import annotations

import pytest

from mesa.tournament.errors import RankingCSVError
from mesa.tournament.players import PlayerRegistry
from mesa.tournament.ranking_csv import export_ranking, import_ranking


@pytest.fixture
def reg() -> PlayerRegistry:
    r = PlayerRegistry()
    for name in ("ALEX", "EL MANU", "JUAN CARLOS"):
        r.add_new(name)
    r.add_card("P0003", "04A1")
    return r


def test_spanish_and_english_files(reg: PlayerRegistry) -> None:
    es = "posicion;nombre;puntos;torneos;ganados;finales\n1;ALEX;2,30;1;1;1\n2;el manu;1,34;1;0;1\n"
    en = 'position,name,points\n1,ALEX,"2,30"\n2,EL MANU,1.34\n'
    for text in (es, en, "\ufeff" + es):
        r = import_ranking(text, reg).ranking
        assert [(e.player_id, e.points) for e in r.entries] == [("P0001", 230), ("P0002", 134)]
    full = import_ranking(es, reg).ranking
    assert (full.entries[0].tournaments, full.entries[0].won, full.entries[1].finals) == (1, 1, 1)


def test_ids_and_cards(reg: PlayerRegistry) -> None:
    text = "jugador,tarjeta,puntos\nP0002,,0.5\n,04a1,1\n"
    r = import_ranking(text, reg).ranking
    assert r.points() == {"P0003": 100, "P0002": 50}


def test_every_bad_row_with_its_line(reg: PlayerRegistry) -> None:
    text = ("nombre;puntos;torneos;ganados;finales\n"
            "ALEX;2,30;1;1;1\n"
            "\n"
            "NADIE;1\n"                  # line 4: wrong number of fields
            "EL MANU;1,345;1;0;0\n"      # line 5: three decimals
            "alex;0,10;1;0;0\n"          # line 6: duplicate
            "JUAN CARLOS;-1;x;2;1\n"     # line 7: negative, not a number, won > finals
            "DESCONOCIDO;1;1;0;0\n"      # line 8: unknown player
            ";1;1;0;0\n")                # line 9: no name
    before = reg.to_dict()
    with pytest.raises(RankingCSVError) as e:
        import_ranking(text, reg)
    lines = [(err.line, err.message) for err in e.value.errors]
    assert [line for line, _ in lines] == [4, 5, 6, 7, 7, 7, 7, 8, 9]
    assert "expected 5 fields, found 2" in lines[0][1]
    assert "more than two decimals" in lines[1][1]
    assert "already listed on line 2" in lines[2][1]
    assert "unknown player 'DESCONOCIDO'" in lines[7][1]
    assert "line 4:" in str(e.value)
    assert reg.to_dict() == before


def test_create_missing_only_when_all_rows_are_good(reg: PlayerRegistry) -> None:
    with pytest.raises(RankingCSVError):
        import_ranking("name,points\nNUEVA,1\nOTRA,x\n", reg, create_missing=True)
    assert reg.find_name("NUEVA") is None and len(reg) == 3
    out = import_ranking("name,points\nNUEVA,1\nALEX,2\n", reg, create_missing=True,
                         category="novatos")
    assert [p.name for p in out.new_players] == ["NUEVA"]
    assert reg.find_name("nueva").category == "novatos"


@pytest.mark.parametrize("text,message", [
    ("", "empty"), ("nombre;torneos\nALEX;1\n", "no points column"),
    ("puntos\n1\n", "no name or player id"), ("name,points,nombre\nA,1,A\n", "repeats")])
def test_bad_headers(reg: PlayerRegistry, text: str, message: str) -> None:
    with pytest.raises(RankingCSVError, match=message) as e:
        import_ranking(text, reg)
    assert e.value.errors[0].line == 1


def test_unknown_id_and_mismatched_name(reg: PlayerRegistry) -> None:
    with pytest.raises(RankingCSVError) as e:
        import_ranking("player_id,name,points\nP0099,X,1\nP0001,MANU,1\n,,1\n", reg)
    assert [(x.line, x.message.split(" ")[0]) for x in e.value.errors] == [
        (2, "unknown"), (3, "name"), (4, "a")]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_export_then_import(reg: PlayerRegistry, lang: str) -> None:
    r = import_ranking("name,points,tournaments,won,finals\nALEX,2.30,3,1,2\n"
                       "EL MANU,0.08,1,0,0\n", reg).ranking
    text = export_ranking(r, lang)
    assert text.splitlines()[1] == ("1;P0001;ALEX;2,30;3;1;2;no" if lang == "es"
                                    else "1,P0001,ALEX,2.30,3,1,2,no")
    assert import_ranking(text, reg).ranking == r


def test_finding_1_a_ranking_text_with_lost_accents_imports_nothing() -> None:
    """The Excel file read as UTF-8 by a browser: each accent is U+FFFD. Before, 27 broken
    players were created; now the whole file is refused, naming the first broken line."""
    from mesa.tournament.text_files import TextFileError

    reg = PlayerRegistry()
    broken = "nombre;puntos\nANA;1\nJOS\ufffd LUIS MART\ufffdNEZ;2,30\n"
    with pytest.raises(TextFileError) as e:
        import_ranking(broken, reg, create_missing=True)
    assert e.value.params == {"line": 3} and len(reg) == 0


def test_a_preview_checks_like_the_import_and_creates_nothing() -> None:
    from mesa.tournament.errors import RankingCSVError
    from mesa.tournament.ranking_csv import preview_ranking

    reg = PlayerRegistry()
    reg.add_new("BEGOÑA")
    text = "nombre;puntos\n" + "".join(f"P{i:02d};0,{i:02d}\n" for i in range(20)) + "begoña;3\n"
    p = preview_ranking(text, reg, create_missing=True, first=5)
    assert [r.line for r in p.rows] == [2, 3, 4, 5, 6] and p.total == 21 and p.matched == 1
    assert len(p.new_names) == 20 and len(reg) == 1
    with pytest.raises(RankingCSVError):
        preview_ranking(text, reg)  # unknown names, without create_missing
    imported = import_ranking(text, reg, create_missing=True)
    assert len(imported.new_players) == 20
