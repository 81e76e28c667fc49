"""Exports: CSV and JSON in the club's formats, "ASÍ QUEDÓ EL TORNEO", the static website."""

from __future__ import annotations

import csv
import io
import json
import random
import zipfile

import httpx
import pytest

from mesa.hub.demo.run import play_out
from mesa.hub.web.app import WebApp
from support.hubkit import NOW, make_tournament

pytestmark = pytest.mark.anyio


@pytest.fixture
def finished(web: WebApp) -> WebApp:
    make_tournament(web, 9)
    web.desk.call(lambda club, now: play_out(club, "2025-03", random.Random(2), NOW))
    return web


async def test_the_exports_page_lists_every_export(client: httpx.AsyncClient) -> None:
    got = (await client.get("/exports.json")).json()["exports"]
    names = [e["name"] for e in got]
    assert names == [
        "final.csv",
        "final.txt",
        "standings.csv",
        "matches.csv",
        "ranking.csv",
        "tournament.json",
        "site.zip",
    ]
    page = (await client.get("/exports")).text
    assert all(f"/exports/{n}?lang=es" in page for n in names)
    assert "/draw/print?paper=A3" in page


def _text(r: httpx.Response) -> str:
    """A CSV export's text: it starts with the byte-order mark Excel needs to read UTF-8."""
    assert r.content.startswith("\ufeff".encode()), r.content[:20]
    return r.content.decode("utf-8-sig")


async def test_csv_uses_semicolons_and_decimal_commas_in_spanish(
    client: httpx.AsyncClient, finished: WebApp
) -> None:
    r = await client.get("/exports/final.csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert r.headers["content-disposition"] == 'attachment; filename="2025-03-final.csv"'
    rows = list(csv.reader(io.StringIO(_text(r)), delimiter=";"))
    assert rows[0][:4] == ["posicion", "jugador", "nombre", "puntos"]
    assert len(rows) == 10 and "," in rows[1][3]
    r = await client.get("/exports/final.csv?lang=en")
    rows = list(csv.reader(io.StringIO(_text(r))))
    assert rows[0][:4] == ["position", "player_id", "name", "points"] and "." in rows[1][3]
    for name in ("standings.csv", "matches.csv", "ranking.csv"):
        r = await client.get(f"/exports/{name}")
        assert r.status_code == 200 and r.text.count("\n") > 3, name
        assert ";" in r.text.splitlines()[0]
    matches = list(
        csv.reader(io.StringIO(_text(await client.get("/exports/matches.csv"))), delimiter=";")
    )
    assert matches[0][0] == "partida" and len(matches) > 10


async def test_asi_quedo_el_torneo(client: httpx.AsyncClient, finished: WebApp) -> None:
    text = (await client.get("/exports/final.txt")).text
    lines = text.splitlines()
    assert lines[0] == "ASÍ QUEDÓ EL TORNEO"
    assert lines[1].startswith("1º ") and lines[1].rsplit(" ", 1)[1].count(",") == 1
    assert len(lines) == 10
    en = (await client.get("/exports/final.txt?lang=en")).text.splitlines()
    assert en[0] == "FINAL STANDINGS" and en[1].startswith("1st ")
    page = (await client.get("/final")).text
    assert "ASÍ QUEDÓ EL TORNEO" in page


async def test_the_json_export_explains_everything(
    client: httpx.AsyncClient, finished: WebApp
) -> None:
    data = json.loads((await client.get("/exports/tournament.json")).text)
    assert data["phase"] == "closed" and data["champion"]
    assert data["final_list"][0]["explanation"][0].startswith(data["final_list"][0]["name"])
    assert len(data["groups"]) == 3


async def test_the_static_snapshot_is_a_self_contained_website(
    client: httpx.AsyncClient, finished: WebApp
) -> None:
    r = await client.get("/exports/site.zip")
    assert r.headers["content-type"] == "application/zip"
    z = zipfile.ZipFile(io.BytesIO(r.content))
    names = set(z.namelist())
    assert {
        "index.html",
        "groups.html",
        "draw.html",
        "consolation.html",
        "rankings.html",
        "rankings-rating.html",
        "players.html",
        "mesa.css",
    } <= names
    assert any(n.startswith("player-P") for n in names)
    final = z.read("index.html").decode()  # the club's website opens on the final list
    assert "ASÍ QUEDÓ EL TORNEO" in final and 'href="mesa.css"' in final
    assert "Generado el" in final
    for name in names - {"mesa.css"}:
        html = z.read(name).decode()
        # Only relative links: the files work from any folder of the club's website.
        assert 'href="/' not in html and 'src="/' not in html, name
        assert "<script" not in html and "/events" not in html, name
    en = zipfile.ZipFile(io.BytesIO((await client.get("/exports/site.zip?lang=en")).content))
    assert "FINAL STANDINGS" in en.read("index.html").decode()


async def test_exports_without_a_tournament_say_so(client: httpx.AsyncClient) -> None:
    r = await client.get("/exports/final.csv")
    assert r.status_code == 404 and "Todavía no hay ningún torneo" in r.json()["message"]
    assert (await client.get("/exports/nothing.csv")).status_code == 404
