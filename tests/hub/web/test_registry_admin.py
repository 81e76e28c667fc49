"""The ranking file's preview and the registry's upkeep over HTTP, as the dashboard's script
posts them: a Windows-1252 file decoded on the hub, a broken one refused with its line, and a
rename, a merge and a removal each done or refused with a reason, each in the audit log (the
browser walk is in test_registry_browser.py)."""

from __future__ import annotations

import base64

import httpx
import pytest

from mesa.games.domino.pairs import PairsTournament
from mesa.games.domino.store import PairsStore
from mesa.hub.web.actions.registry_admin import domino_events_naming
from mesa.hub.web.app import WebApp
from mesa.hub.web.i18n import LANGUAGES, STRINGS
from mesa.hub.web.strings_registry import REGISTRY_STRINGS
from support.hubkit import TODAY, act, login, make_tournament
from support.legacy import add_legacy_player

pytestmark = pytest.mark.anyio

# What Spanish Excel writes for "CSV (delimitado por comas)": Windows-1252, ";" and CRLF.
EXCEL_ROWS = [("JOSÉ LUIS MARTÍNEZ", "2,30"), ("BEGOÑA ÁLVAREZ", "1,95"), ("IÑAKI PÉREZ", "1,80")]
EXCEL_CSV = ("nombre;puntos\r\n" + "".join(f"{n};{p}\r\n" for n, p in EXCEL_ROWS)).encode("cp1252")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def test_both_languages_have_every_registry_word() -> None:
    for key in REGISTRY_STRINGS:
        assert set(STRINGS[key]) >= set(LANGUAGES), key


async def _tournament(client: httpx.AsyncClient, csrf: str) -> None:
    r = await act(client, csrf, "create_tournament", name="Marzo", date=TODAY.isoformat(),
                  id="2025-03")
    assert r.status_code == 200, r.text


async def test_a_windows_1252_file_is_previewed_with_its_accents_and_nothing_is_created(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    csrf = await login(client)
    await _tournament(client, csrf)
    r = await act(client, csrf, "preview_ranking", file=b64(EXCEL_CSV), create_missing=True)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["encoding"] == "Windows-1252"
    assert [x["name"] for x in body["rows"]] == [n for n, _ in EXCEL_ROWS]
    assert [x["points"] for x in body["rows"]] == ["2,30", "1,95", "1,80"]
    assert body["new_count"] == 3 and body["new_names"][0] == "JOSÉ LUIS MARTÍNEZ"
    assert body["summary"] == "Archivo leído como Windows-1252. 3 filas: 0 en el registro, 3 nuevos."
    assert "JOSÉ LUIS MARTÍNEZ;2,30" in body["text"]
    assert web.desk.read(lambda club: len(club.registry)) == 0  # a preview creates nothing
    # The text the preview answered is what the import then sends: the names arrive whole.
    r = await act(client, csrf, "import_ranking", csv=body["text"], year=2024, create_missing=True)
    assert r.status_code == 200, r.text
    names = web.desk.read(lambda club: sorted(p.name for p in club.registry))
    assert names == sorted(n for n, _ in EXCEL_ROWS)
    # The audit counts the file's lines, it does not keep the file.
    entry = web.store.audit_log(action="preview_ranking")[0]
    assert "file" not in entry.params and entry.params["file_lines"] == 1


async def test_utf8_with_and_without_bom_and_known_players_in_english(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    csrf = await login(client)
    await _tournament(client, csrf)
    web.desk.call(lambda club, now: club.registry.add_new("BEGOÑA ÁLVAREZ"))
    text = "nombre;puntos\n" + "".join(f"{n};{p}\n" for n, p in EXCEL_ROWS)
    for data, encoding in ((text.encode(), "UTF-8"), (b"\xef\xbb\xbf" + text.encode(), "UTF-8 (BOM)")):
        r = await act(client, csrf, "preview_ranking", file=b64(data), create_missing=True)
        body = r.json()
        assert body["encoding"] == encoding, body
        assert body["rows"][1]["player_id"] == "P0001" and body["new_count"] == 2
        assert not body["text"].startswith("\ufeff")
    await client.get("/lang/en")
    r = await act(client, csrf, "preview_ranking", csv=text, create_missing=True)
    assert r.json()["summary"] == "3 rows: 1 in the registry, 2 new."
    assert r.json()["rows"][0]["points"] == "2.30"


@pytest.mark.parametrize(
    ("data", "said"),
    [
        # A file some program already read wrongly and saved: U+FFFD, in UTF-8.
        ("nombre;puntos\nJOS\ufffd LUIS;2,30\n".encode(), "la línea 2 tiene caracteres perdidos (�)"),
        (b"PK\x03\x04rest of a workbook", "es un libro de Excel, no un CSV"),
        (b"nombre;puntos\nA;1\n\x00\x00", "no es un archivo de texto (línea 3)"),
        (b"nombre;puntos\nA\x81;1\n", "la línea 2 no se puede leer como Windows-1252"),
        (b"\xef\xbb\xbfnombre;puntos\nJOS\xc9;1\n", "la línea 2 no se puede leer como UTF-8 (BOM)"),
    ],
)
async def test_a_broken_file_is_refused_with_its_reason(
    client: httpx.AsyncClient, web: WebApp, data: bytes, said: str
) -> None:
    csrf = await login(client)
    r = await act(client, csrf, "preview_ranking", file=b64(data), create_missing=True)
    assert r.status_code == 409, r.text
    assert r.json()["error"] == "bad_text_file"
    assert said in r.json()["message"]
    assert web.desk.read(lambda club: len(club.registry)) == 0
    assert web.store.audit_log(action="preview_ranking")[0].outcome == "refused"


async def test_finding_1_text_read_wrongly_by_a_browser_is_refused_at_import(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    """What the page sent before: the browser's FileReader read the Excel file as UTF-8, each
    accent became U+FFFD, and the import created the broken names silently."""
    csrf = await login(client)
    await _tournament(client, csrf)
    as_the_browser_read_it = EXCEL_CSV.decode("utf-8", errors="replace")
    assert "JOS\ufffd LUIS" in as_the_browser_read_it
    r = await act(client, csrf, "import_ranking", csv=as_the_browser_read_it, year=2024,
                  create_missing=True)
    assert r.status_code == 409, r.text
    assert "la línea 2 tiene caracteres perdidos" in r.json()["message"]
    assert web.desk.read(lambda club: len(club.registry)) == 0
    r = await act(client, csrf, "preview_ranking", csv=as_the_browser_read_it)
    assert r.status_code == 409 and r.json()["error"] == "bad_text_file"


async def test_a_bad_row_is_refused_in_the_preview_and_bad_base64_is_a_bad_value(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    csrf = await login(client)
    r = await act(client, csrf, "preview_ranking", file=b64(b"nombre;puntos\nANA;x\n"))
    assert r.status_code == 409
    assert "línea 2: puntos: x no es un número" in r.json()["message"]
    r = await act(client, csrf, "preview_ranking", file="**not base64**")
    assert r.status_code == 400
    r = await act(client, csrf, "preview_ranking")
    assert r.status_code == 400


# ── the registry's upkeep ───────────────────────────────────────────────────


def _names(web: WebApp) -> list[str]:
    return web.desk.read(lambda club: sorted(p.name for p in club.registry))


async def test_rename_merge_and_remove_from_the_dashboard_each_audited(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    csrf = await login(client)
    ids = make_tournament(web, 4, start=False)
    broken = web.desk.call(lambda club, now: add_legacy_player(club, "JOS\ufffd LUIS"))
    spare = web.desk.call(lambda club, now: club.registry.add_new("NADIE").id)
    r = await act(client, csrf, "rename_player", player_id=broken, name="  José   Luis ")
    assert r.status_code == 200, r.text
    assert "JOS\ufffd LUIS → José Luis" in r.json()["message"]
    r = await act(client, csrf, "rename_player", player_id=broken, name="alba")
    assert r.status_code == 409
    assert "ya existe un jugador llamado ALBA" in r.json()["message"]
    r = await act(client, csrf, "remove_player", player_id=spare)
    assert r.status_code == 200, r.text
    r = await act(client, csrf, "remove_player", player_id=spare)
    assert r.status_code == 409 and r.json()["error"] == "unknown_player"
    # José Luis has a card: merged into ALBA (entered tonight: the one kept may be), the
    # card follows and José Luis disappears.
    web.desk.call(lambda club, now: club.registry.add_card(broken, "04JL"))
    r = await act(client, csrf, "merge_players", drop=broken, keep=ids[0])
    assert r.status_code == 200, r.text
    assert "José Luis → ALBA" in r.json()["message"]
    assert web.desk.read(lambda club: club.registry.by_card("04jl").id) == ids[0]
    assert "José Luis" not in _names(web)
    refusals = [
        (dict(drop=broken, keep=ids[0]), "unknown_player", "no existe el jugador"),
        (dict(drop=ids[0], keep=ids[0]), "bad_merge", "no se puede unir consigo mismo"),
        (dict(drop=ids[1], keep=ids[0]), "player_busy", "BRUNO está inscrito en Marzo, que sigue abierto"),
    ]
    for fields, code, said in refusals:
        r = await act(client, csrf, "merge_players", **fields)
        assert (r.status_code, r.json()["error"]) == (409, code), r.text
        assert said in r.json()["message"], r.text
    r = await act(client, csrf, "remove_player", player_id=ids[1])
    assert r.status_code == 409 and "BRUNO está inscrito en" in r.json()["message"]
    outcomes = [(e.action, e.outcome) for e in reversed(web.store.audit_log(limit=50))
                if e.action.endswith("_player") or e.action == "merge_players"]
    assert outcomes == [
        ("rename_player", "ok"), ("rename_player", "refused"), ("remove_player", "ok"),
        ("remove_player", "refused"), ("merge_players", "ok"), ("merge_players", "refused"),
        ("merge_players", "refused"), ("merge_players", "refused"), ("remove_player", "refused"),
    ]


async def test_a_player_in_a_domino_pair_is_neither_merged_away_nor_removed(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    csrf = await login(client)
    ana, lola, bea = (web.desk.call(lambda club, now, n=n: club.registry.add_new(n).id)
                      for n in ("ANA", "LOLA", "BEA"))
    d = PairsTournament("D1", "Dominó de marzo")
    d.register_pair(ana, lola, ("ANA", "LOLA"), actor="director", at="20:00")
    with PairsStore(web.hub.settings.db) as store:
        store.save(d)
    assert domino_events_naming(web.hub.settings.db, ana) == ["Dominó de marzo"]
    assert domino_events_naming(web.hub.settings.db, bea) == []
    r = await act(client, csrf, "merge_players", drop=ana, keep=bea)
    assert r.status_code == 409 and "ANA juega en Dominó · Dominó de marzo" in r.json()["message"]
    r = await act(client, csrf, "remove_player", player_id=lola)
    assert r.status_code == 409 and "LOLA tiene resultados (Dominó" in r.json()["message"]
    assert (await act(client, csrf, "remove_player", player_id=bea)).status_code == 200


async def test_a_name_with_lost_characters_is_never_created_at_the_door(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    """The door's other text import, the pasted list: a name copied from a broken file is
    refused, and so is the whole list (nothing half registered)."""
    csrf = await login(client)
    await _tournament(client, csrf)
    r = await act(client, csrf, "register_many", names="ANA\nJOS\ufffd LUIS\nBEA\n")
    assert r.status_code == 409, r.text
    assert "el nombre JOS� LUIS tiene caracteres perdidos (�)" in r.json()["message"]
    assert _names(web) == []
    r = await act(client, csrf, "register_player", new_name="RA\ufffdL")
    assert r.status_code == 409 and "caracteres perdidos" in r.json()["message"]


async def test_the_registry_page_lists_every_player_and_marks_the_broken_names(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    await login(client)
    ids = make_tournament(web, 4, start=False)
    broken = web.desk.call(lambda club, now: add_legacy_player(club, "ELENA MUÃ‘IZ"))
    page = (await client.get("/director/players.json")).json()
    rows = {p["id"]: p for p in page["players"]}
    assert rows[broken]["suspect"] and not rows[ids[0]]["suspect"]
    assert rows[ids[0]]["open"] == ["2025-03"] and rows[ids[0]]["has_results"]
    assert not rows[broken]["has_results"]
    assert page["drop_choices"][0]["id"] == broken  # the suspect names first
    html = (await client.get("/director/players")).text
    assert 'id="merge-form"' in html and html.count('class="inline rename-form"') == 5
    assert html.count('class="inline remove-form"') == 1  # only the one without results
    await client.get("/lang/en")
    assert "Club players" in (await client.get("/director/players")).text
    assert (await client.get("/director/players.json", follow_redirects=False)).status_code == 200
    client.cookies.clear()
    assert (await client.get("/director/players", follow_redirects=False)).status_code in (302, 303)
