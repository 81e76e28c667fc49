"""mesa.words: checked catalogs, one lookup, plurals, and the one clock and points formats."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest

from mesa.words import (
    LANGUAGES,
    Catalog,
    CatalogError,
    Plural,
    format_clock,
    format_points,
)

VECTORS = json.loads((Path(__file__).parent / "support" / "format_vectors.json").read_text("utf-8"))


def _catalogs() -> dict[str, Catalog]:
    from mesa.controller import i18n as table
    from mesa.games.domino import words as domino
    from mesa.hub.web import i18n as web
    from mesa.hub.web.http import body_limit
    from mesa.tournament import i18n as engine

    return {"controller": table.CATALOG, "domino": domino.CATALOG, "web": web.STRINGS,
            "tournament": engine.STRINGS, "refusals": engine.REFUSALS, "status": engine.STATUS,
            "body_limit": body_limit.REFUSALS}


# ── the catalogs are checked when built ────────────────────────────────────────────────────


def test_a_key_missing_a_language_fails_the_build() -> None:
    with pytest.raises(CatalogError, match="greeting"):
        Catalog({"greeting": {"es": "Hola"}})


def test_languages_that_disagree_on_placeholders_fail_the_build() -> None:
    with pytest.raises(CatalogError, match="greeting"):
        Catalog({"greeting": {"es": "Hola, {name}", "en": "Hello, {who}"}})


def test_plural_forms_that_disagree_fail_the_build() -> None:
    with pytest.raises(CatalogError):
        Catalog({"n": {"es": Plural("{n} mesa", "{n} mesas"), "en": Plural("a table", "{n} tables")}})
    with pytest.raises(CatalogError, match="one language"):
        Catalog({"n": {"es": Plural("{n} mesa", "{n} mesas"), "en": "{n} tables"}})


def test_a_key_given_twice_fails_the_build() -> None:
    with pytest.raises(CatalogError, match="twice"):
        Catalog({"k": {"es": "a", "en": "a"}}, {"k": {"es": "b", "en": "b"}})


@pytest.mark.parametrize("name", sorted(_catalogs()))
def test_every_catalog_of_the_product_has_every_key_in_every_language(name: str) -> None:
    catalog = _catalogs()[name]
    assert len(catalog) > 0
    for key, entry in catalog.items():
        assert set(entry) == set(LANGUAGES), (name, key)
    Catalog(catalog)  # rebuilding runs the placeholder checks again


def test_an_unknown_key_reads_as_itself_and_an_unknown_language_in_spanish() -> None:
    for catalog in _catalogs().values():
        assert catalog.text("es", "no.such.key") == "no.such.key"
        assert catalog.text("en", "call.?", why="x") == "call.?"
        key = next(k for k, e in catalog.items() if not isinstance(e["es"], Plural))
        assert catalog.text("fr", key) == catalog.text("es", key)
        assert catalog.text(None, key) == catalog.text("es", key)


# ── every key the code writes exists ──────────────────────────────────────────────────────

ROOT = Path(__file__).resolve().parents[1]
CATALOG_OF = {"mesa.controller.i18n": "controller", "mesa.games.domino.words": "domino",
              "mesa.tournament.i18n": "tournament", "mesa.hub.web.i18n": "web"}


def _lookups(source: str) -> dict[str, str]:
    """The names a module calls each catalog's lookup by: ``text`` or ``text as t``."""
    names: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module in CATALOG_OF:
            for alias in node.names:
                if alias.name == "text":
                    names[alias.asname or "text"] = CATALOG_OF[node.module]
    return names


def literal_keys() -> set[tuple[str, str, str]]:
    """(file, catalog, key) for every ``text(lang, "key")`` call with a written key."""
    found: set[tuple[str, str, str]] = set()
    for path in [*ROOT.glob("controller/**/*.py"), *ROOT.glob("hub/**/*.py"),
                 *ROOT.glob("mesa/**/*.py")]:
        source = path.read_text(encoding="utf-8")
        names = _lookups(source)
        if path.name == "i18n.py" and path.parent.name in ("controller", "domino", "tournament"):
            names["text"] = {"controller": "controller"}.get(path.parent.name, path.parent.name)
        for name, catalog in names.items():
            for key in re.findall(rf"""(?<![\w.]){name}\(\s*[\w.]+,\s*['"]([\w.]+)['"]\s*[,)]""", source):
                found.add((str(path.relative_to(ROOT)), catalog, key))
    return found


def test_no_lookup_is_called_in_the_old_order() -> None:
    """``text("key", lang)`` was the engine's and the web's order; the one order is the other."""
    old: list[str] = []
    for path in [*ROOT.glob("controller/**/*.py"), *ROOT.glob("hub/**/*.py"),
                 *ROOT.glob("mesa/**/*.py")]:
        source = path.read_text(encoding="utf-8")
        for name in _lookups(source):
            old += [f"{path.relative_to(ROOT)}: {m}" for m in
                    re.findall(rf"""(?<![\w.]){name}\(\s*f?['"][^'"]*['"]\s*[,)]""", source)]
    assert old == []


def test_swapped_arguments_raise() -> None:
    for catalog in _catalogs().values():
        key = next(iter(catalog))
        with pytest.raises(TypeError):
            catalog.text(key, "es")


def test_every_key_the_code_writes_is_in_its_catalog() -> None:
    keys = literal_keys()
    by_catalog = {c for _, c, _ in keys}
    assert by_catalog == {"controller", "domino", "tournament", "web"}, by_catalog
    assert len(keys) > 120
    catalogs = _catalogs()
    missing = sorted((f, k) for f, c, k in keys if k not in catalogs[c])
    assert missing == []


# ── plurals: ngettext's rule, 0 1 2 in both languages ──────────────────────────────────────

PLURALS: list[tuple[str, str, dict[str, Any], tuple[str, str, str]]] = [
    ("web", "t.players_count", {}, ("0 jugadores", "1 jugador", "2 jugadores")),
    ("web", "door.marked", {}, ("0 marcados presentes", "1 marcado presente",
                               "2 marcados presentes")),
    ("web", "door.marked_absent", {}, ("0 marcados ausentes", "1 marcado ausente",
                                      "2 marcados ausentes")),
    ("web", "preview.in", {}, ("Entran 0 jugadores", "Entra 1 jugador", "Entran 2 jugadores")),
    ("web", "preview.groups_n", {}, ("0 grupos", "1 grupo", "2 grupos")),
    ("web", "door.n_registered", {}, ("0 inscritos", "1 inscrito", "2 inscritos")),
    ("tournament", "step_wins_alone", {}, ("0 victorias: nadie más tiene las mismas",
                                           "1 victoria: nadie más tiene las mismas",
                                           "2 victorias: nadie más tiene las mismas")),
    ("refusals", "bad_ranking_csv", {}, ("el CSV tiene 0 filas con errores; no se importó nada",
                                         "el CSV tiene 1 fila con errores; no se importó nada",
                                         "el CSV tiene 2 filas con errores; no se importó nada")),
    ("domino", "label.points", {}, ("0 tantos", "1 tanto", "2 tantos")),
    ("web", "dom.free_tables", {}, ("0 mesas libres", "1 mesa libre", "2 mesas libres")),
]
PLURALS_EN: dict[str, tuple[str, str, str]] = {
    "t.players_count": ("0 players", "1 player", "2 players"),
    "door.marked": ("0 marked present", "1 marked present", "2 marked present"),
    "door.marked_absent": ("0 marked absent", "1 marked absent", "2 marked absent"),
    "preview.in": ("0 players in", "1 player in", "2 players in"),
    "preview.groups_n": ("0 groups", "1 group", "2 groups"),
    "door.n_registered": ("0 registered", "1 registered", "2 registered"),
    "step_wins_alone": ("0 wins: nobody else has as many", "1 win: nobody else has as many",
                        "2 wins: nobody else has as many"),
    "bad_ranking_csv": ("the CSV has 0 bad rows; nothing was imported",
                        "the CSV has 1 bad row; nothing was imported",
                        "the CSV has 2 bad rows; nothing was imported"),
    "label.points": ("0 points", "1 point", "2 points"),
    "dom.free_tables": ("0 free tables", "1 free table", "2 free tables"),
}


@pytest.mark.parametrize("name, key, extra, spanish", PLURALS, ids=[p[1] for p in PLURALS])
def test_plurals_for_0_1_2_in_both_languages(name: str, key: str, extra: dict[str, Any],
                                             spanish: tuple[str, str, str]) -> None:
    catalog = _catalogs()[name]
    entry = catalog[key]["es"]
    assert isinstance(entry, Plural)
    for lang, want in (("es", spanish), ("en", PLURALS_EN[key])):
        got = tuple(catalog.text(lang, key, **{entry.count: n}, **extra) for n in (0, 1, 2))
        assert got == want, (key, lang)


def test_a_sentence_with_two_counts_agrees_with_each() -> None:
    from mesa.tournament.i18n import text

    def line(lang: str, wins: int, losses: int) -> str:
        return text(lang, "record_line", wins=wins, losses=losses, pf=1, pa=2, diff="-1")

    assert line("es", 1, 0).startswith("1 victoria, 0 derrotas,")
    assert line("es", 0, 1).startswith("0 victorias, 1 derrota,")
    assert line("es", 2, 2).startswith("2 victorias, 2 derrotas,")
    assert line("en", 1, 1).startswith("1 win, 1 loss,")
    assert line("en", 2, 0).startswith("2 wins, 0 losses,")
    from mesa.hub.web.i18n import text as web

    assert web("es", "live.counts", playing=2, alerts=1, offline=0) == (
        "2 jugando · 1 aviso · 0 sin conexión")
    assert web("es", "door.started", groups=1, seed=7, out=1) == (
        "1 grupo (semilla 7), 1 ausente fuera")
    assert web("es", "door.started", groups=4, seed=7, out=2) == (
        "4 grupos (semilla 7), 2 ausentes fuera")
    assert web("en", "door.started", groups=1, seed=7, out=1) == (
        "1 group (seed 7), 1 absent left out")


def test_a_plural_without_its_count_raises() -> None:
    from mesa.hub.web.i18n import text as web

    with pytest.raises(KeyError):
        web("es", "t.players_count")


# ── the one clock and the one points format, on the shared vectors ─────────────────────────


@pytest.mark.parametrize("v", VECTORS["clock"], ids=[str(v["seconds"]) for v in VECTORS["clock"]])
def test_the_clock_on_the_shared_vectors(v: dict[str, Any]) -> None:
    assert format_clock(v["seconds"]) == v["clock"]
    assert format_clock(v["seconds"], tenths=True) == v["table"]


def test_a_reserve_of_59_5_s_reads_the_same_on_the_table_and_the_hub() -> None:
    from mesa.controller.games.backgammon.oled import format_clock as table_clock
    from mesa.hub.web.i18n import Translator

    assert table_clock(59.5) == Translator("es").clock(59.5) == format_clock(59.5) == "0:59"
    assert Translator("en").clock(59.5) == "0:59"


@pytest.mark.parametrize("v", VECTORS["points"], ids=[str(v["hundredths"]) for v in VECTORS["points"]])
def test_points_on_the_shared_vectors(v: dict[str, Any]) -> None:
    from mesa.hub.web.i18n import Translator
    from mesa.tournament.points import format_points as engine_points

    for lang in LANGUAGES:
        assert format_points(v["hundredths"], lang) == v[lang]
        assert engine_points(v["hundredths"], lang) == v[lang]
        assert Translator(lang).points(v["hundredths"]) == v[lang]


def test_points_for_files_read_back_are_not_grouped() -> None:
    from mesa.tournament.points import parse_points

    for h in (123456, -123456, 100000, 8):
        assert parse_points(format_points(h, "es", grouping=False)) == h
        assert parse_points(format_points(h, "en", grouping=False)) == h
