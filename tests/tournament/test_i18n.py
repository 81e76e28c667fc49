"""Player-facing strings exist in both languages."""

from __future__ import annotations

import pytest

from mesa.tournament.errors import TournamentError
from mesa.tournament.i18n import STRINGS, check_lang, ordinal, place_label, round_name, text
from mesa.words import forms


def test_every_string_in_both_languages() -> None:
    for key, langs in STRINGS.items():
        assert set(langs) == {"es", "en"}, key
        assert all(f.strip() for v in langs.values() for f in forms(v)), key


def test_ordinals() -> None:
    assert [ordinal(n) for n in (1, 2, 30)] == ["1º", "2º", "30º"]
    assert [ordinal(n, "en") for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]
    assert place_label((3, 4), "en") == "3rd–4th" and place_label((1, 1)) == "1º"


def test_round_names() -> None:
    assert [round_name(r) for r in ("PI", "R32", "R16", "QF", "SF", "F", "R128", "group")] == [
        "repechaje", "dieciseisavos de final", "octavos de final", "cuartos de final",
        "semifinal", "final", "ronda de 128", "fase de grupos"]
    assert round_name("R2", "es", phase="consolation") == "Último Chance, ronda 2"


def test_unknown_language() -> None:
    """An export asked in another language is refused; the words themselves read in Spanish
    (mesa.words' one behaviour for every catalog)."""
    with pytest.raises(TournamentError):
        check_lang("de")
    assert text("de", "title_final_list") == text("es", "title_final_list") == "ASÍ QUEDÓ EL TORNEO"
