"""Spanish pages say everything in Spanish, English pages in English: the engine's refusals carry
a reason and its values (never English prose shown as is), every reason and every refusal code has
both texts, commands sent to a table read as sentences, and names sort the Spanish way."""

from __future__ import annotations

import ast
import html
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from mesa.hub.web.actions.registry import refusal_from
from mesa.hub.web.app import WebApp
from mesa.hub.web.i18n import STRINGS, Translator
from mesa.tournament import errors as engine_errors
from mesa.tournament.errors import TournamentError
from mesa.tournament.i18n import REFUSALS, refusal
from mesa.tournament.players import name_key
from mesa.words import forms
from support.hubkit import FakeTable, act, login, make_tournament

ENGINE = Path(engine_errors.__file__).parent
TABLE_MACHINE = ENGINE.parent / "games" / "backgammon" / "machine.py"
APPLY_LOOP = ENGINE.parent / "engine" / "machine.py"  # the refusals every game's table shares

# Words that give away the other language (lower case, whole words).
ENGLISH = (
    "the",
    "is",
    "already",
    "cannot",
    "has",
    "must",
    "while",
    "registered",
    "does",
    "nothing",
    "player",
    "match",
    "table",
    "correct",
    "not",
)
SPANISH = (
    "está",
    "ya",
    "partida",
    "jugador",
    "mesa",
    "torneo",
    "del",
    "los",
    "las",
    "puede",
    "tiene",
    "hay",
    "sin",
    "corregir",
)
TELLTALE = {
    "es": re.compile(r"(?<![\w-])(" + "|".join(ENGLISH) + r")(?![\w-])"),
    "en": re.compile(r"(?<![\w-])(" + "|".join(SPANISH) + r")(?![\w-])"),
}


def other_language(text: str, lang: str) -> list[str]:
    """The other language's telltale words found in ``text`` (lower-case words only: names
    are in capitals)."""
    return TELLTALE[lang].findall(text)


def visible_text(page: str) -> str:
    # Commands and settings shown as code (``mesa install hub``) are no language either.
    page = re.sub(r"(?s)<(script|style|code)\b.*?</\1>", " ", page)
    page = re.sub(r"(?s)<!--.*?-->", " ", page)
    page = re.sub(r"(?s)<[^>]+>", " ", page)
    return re.sub(r"https?://\S+", " ", html.unescape(page))  # addresses are no language


# ── every reason the engine raises has both texts ─────────────────────────────
def _raised() -> list[tuple[str, set[str], str]]:
    """(reason, params given, where) for every refusal written in mesa/tournament/."""
    found = []
    for path in sorted(ENGINE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            where = f"{path.name}:{node.lineno}"
            if name.endswith("Error") and hasattr(engine_errors, name) and name != "RowError":
                kws = {k.arg: k.value for k in node.keywords if k.arg}
                reason = kws.pop("reason", None)
                kws.pop("code", None)
                given = set(kws) | ({"player"} if name == "UnknownPlayerError" else set())
                if isinstance(reason, ast.Constant):
                    found.append((str(reason.value), given, where))
                elif name not in ("UnknownPlayerError", "RankingCSVError", "TournamentError"):
                    pytest.fail(f"{where}: {name} raised without a reason")
                elif name == "TournamentError" and path.name != "errors.py":
                    pytest.fail(f"{where}: TournamentError raised without a reason")
            elif name == "_p" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                found.append(
                    (str(node.args[1].value), {k.arg for k in node.keywords if k.arg}, where)
                )
            elif name == "RowError" and len(node.args) >= 3:
                pairs = node.args[3].elts if len(node.args) > 3 else []  # type: ignore[attr-defined]
                given = {str(pair.elts[0].value) for pair in pairs}
                if isinstance(node.args[2], ast.Constant):
                    found.append((str(node.args[2].value), given, where))
    return found


def test_every_refusal_of_the_engine_has_a_reason_with_both_texts() -> None:
    raised = _raised()
    assert len(raised) > 70
    for reason, given, where in raised:
        assert reason in REFUSALS, (where, reason)
        for lang in ("es", "en"):
            needed = {f for text in forms(REFUSALS[reason][lang]) for f in re.findall(r"{(\w+)}", text)}
            assert needed <= given, (where, reason, lang, needed - given)


def test_every_reason_text_reads_in_its_own_language() -> None:
    for reason, entry in REFUSALS.items():
        assert set(entry) == {"es", "en"}, reason
        fields = {lang: {f for text in forms(e) for f in re.findall(r"{(\w+)}", text)}
                  for lang, e in entry.items()}
        assert fields["es"] == fields["en"], reason
        values = {f: "X" for f in fields["es"]} | {"status": "done", "phase": "groups"}
        for lang in ("es", "en"):
            said = refusal(reason, values, lang)
            assert not other_language(said, lang), (reason, lang, said)


def test_every_refusal_code_has_both_texts() -> None:
    codes = {
        cls.code
        for cls in vars(engine_errors).values()
        if isinstance(cls, type) and issubclass(cls, TournamentError)
    }
    codes |= {
        m
        for m in re.findall(
            r'code="(\w+)"', "".join(p.read_text(encoding="utf-8") for p in ENGINE.glob("*.py"))
        )
    }
    source = TABLE_MACHINE.read_text(encoding="utf-8") + APPLY_LOOP.read_text(encoding="utf-8")
    codes |= set(re.findall(r'Refused\("(\w+)"', source))
    missing = sorted(c for c in codes if f"err.{c}" not in STRINGS)
    assert not missing
    for c in codes:
        for lang in ("es", "en"):
            assert not other_language(STRINGS[f"err.{c}"][lang], lang), (c, lang)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_an_engine_refusal_reaches_the_director_in_their_language(lang: str) -> None:
    from mesa.tournament.errors import DuplicatePlayerError, PhaseError

    for e in (
        DuplicatePlayerError(
            "ALBA (P0001) is already registered", reason="already_registered", name="ALBA"
        ),
        PhaseError("this tournament has no Último Chance", reason="no_consolation"),
        PhaseError("x", reason="cannot_start", match="G1-1", status="playing"),
    ):
        r = refusal_from(e, lang)
        assert not other_language(r.message, lang), r.message
        assert str(e) not in r.message or lang == "en"


# ── the dashboard, page by page, and its refusals over HTTP ──────────────────
pytestmark_anyio = pytest.mark.anyio

PAGES = [
    "/",
    "/live",
    "/groups",
    "/draw",
    "/consolation",
    "/rankings",
    "/rankings?kind=annual",
    "/rankings?kind=rating",
    "/players",
    "/final",
    "/exports",
    "/director",
    "/director/tournament",
    "/director/audit",
    "/director/tables/3",
    "/director/matches/G1-1",
    "/llamadas",
    "/players/qr",
    "/players/P0001/next",
]


@pytest.mark.anyio
async def test_every_page_and_refusal_speaks_one_language(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    ids = make_tournament(web, 6)
    fake_table.play_to_running()
    web.poller.poll()
    csrf = await login(client)
    for lang in ("es", "en"):
        await client.get(f"/lang/{lang}?next=/")
        # Refusals: the engine's (with their values), the web's own, a table's.
        answers = [
            await act(client, csrf, "register_player", player_id=ids[0]),
            await act(client, csrf, "start_consolation"),
            await act(
                client, csrf, "correct_result", match_id="NOPE", score_a=3, score_b=0, reason="x"
            ),
            await act(client, csrf, "resolve_conflict", conflict_id="C9", resolution="keep"),
            await act(client, csrf, "assign", match_id="G1-1", table="99"),
            await act(client, csrf, "adjust_clock", table="3", side="c", seconds="x", reason="r"),
            await act(client, csrf, "correct_result", match_id="G1-1", score_a="x", reason="r"),
        ]
        pending = await act(client, csrf, "clear_call", table="3")  # sent, not yet confirmed
        assert pending.status_code == 202, pending.text
        for r in [*answers, pending]:
            assert r.status_code >= 400 or r is pending, r.text
            message = r.json()["message"]
            assert not other_language(message, lang), (lang, message)
        for path in PAGES:
            sep = "&" if "?" in path else "?"
            r = await client.get(f"{path}{sep}lang={lang}")
            assert r.status_code == 200, (path, r.text[:300])
            words = other_language(visible_text(r.text), lang)
            assert not words, (lang, path, words)


# ── commands as sentences, names in Spanish order ─────────────────────────────
def test_commands_sent_to_a_table_read_as_sentences() -> None:
    es, en = Translator("es"), Translator("en")
    cmd = {"table": "4", "input": "director_score", "args": {"a": 3, "b": 2}, "accepted": True}
    assert es.command(cmd) == "Mesa 4: corregir marcador a 3–2 · confirmado"
    assert en.command(cmd) == "Table 4: correct the score to 3–2 · confirmed"
    refused = {
        "table": "4",
        "input": "director_clear_call",
        "args": {},
        "accepted": False,
        "code": "no_call",
    }
    assert (
        es.command(refused)
        == "Mesa 4: atender la llamada · rechazado: nadie ha llamado al director"
    )
    pause = {"table": "2", "input": "director_pause", "args": {"reason": "dispute"}}
    assert es.command(pause) == "Mesa 2: pausar (disputa) · sin respuesta"
    assert "{" not in es.command(
        {
            "table": "1",
            "input": "assign",
            "args": {"match_id": "G1-1", "players": {"a": "ANA", "b": "EVA"}, "length": 3},
        }
    )
    assert es.actor("table 4") == "mesa 4" and es.history("correct") == "corrección"


def test_names_sort_with_spanish_collation() -> None:
    names = ["Maryori", "María", "Ñandú", "Nuria", "Óscar", "Oscar", "Álvaro", "Zoe", "Alba"]
    assert sorted(names, key=name_key) == [
        "Alba",
        "Álvaro",
        "María",
        "Maryori",
        "Nuria",
        "Ñandú",
        "Oscar",
        "Óscar",
        "Zoe",
    ]


@pytest.mark.anyio
async def test_the_players_page_lists_names_in_spanish_order(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    def run(club: Any, now: datetime) -> None:
        for name in ("MARYORI", "MARÍA", "ÑANDÚ", "NURIA", "ÓSCAR"):
            club.registry.add_new(name)

    web.desk.call(run)
    page = (await client.get("/players")).text
    order = [page.index(n) for n in ("MARÍA", "MARYORI", "NURIA", "ÑANDÚ", "ÓSCAR")]
    assert order == sorted(order)
