"""Every page renders in both languages, has a JSON twin, and the public view is read-only."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from mesa.hub.web.app import WebApp
from mesa.hub.web.games.backgammon import ACTIONS
from mesa.hub.web.http.paths import ROUTE_PATHS
from support.hubkit import NOW, FakeTable, act, login, make_tournament

pytestmark = pytest.mark.anyio

PUBLIC = [
    "/",
    "/live",
    "/groups",
    "/draw",
    "/draw/print",
    "/consolation",
    "/rankings",
    "/rankings?kind=annual",
    "/rankings?kind=historic",
    "/rankings?kind=rating",
    "/players",
    "/final",
    "/exports",
]
DIRECTOR = ["/director", "/director/tournament", "/director/audit"]


def _json_path(path: str) -> str:
    base, _, query = path.partition("?")
    twin = "/index.json" if base == "/" else base + ".json"
    return twin + ("?" + query if query else "")


def _play_groups(web: WebApp) -> None:
    """Every group match decided, the first knockout match too."""

    def run(club, now):  # type: ignore[no-untyped-def]
        t = club.tournament("2025-03")
        for m in sorted(t.matches_in("group"), key=lambda m: m.id):
            t.record_result(m.id, 3, 1 if m.number % 2 else 2, source="director", now=now)
        first = t.ready_matches()[0]
        t.record_result(first.id, first.length, 0, source="director", now=now)

    web.desk.call(run)


async def test_every_public_page_and_its_twin_answer_in_both_languages(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    make_tournament(web, 9)
    _play_groups(web)
    fake_table.play_to_running()
    web.poller.poll()
    for path in PUBLIC:
        for lang, word in (("es", "Cuadro"), ("en", "Draw")):
            sep = "&" if "?" in path else "?"
            r = await client.get(f"{path}{sep}lang={lang}")
            assert r.status_code == 200, (path, r.text[:500])
            assert f'<html lang="{lang}">' in r.text or path.startswith("/draw/print")
            if not path.startswith("/draw/print"):
                assert word in r.text, path
        if path != "/draw/print":
            j = await client.get(_json_path(path))
            assert j.status_code == 200 and j.headers["content-type"].startswith(
                "application/json"
            ), path
            assert "tournament" in j.json()


async def test_the_twin_is_the_data_the_page_shows(client: httpx.AsyncClient, web: WebApp) -> None:
    make_tournament(web, 6)
    _play_groups(web)
    groups = (await client.get("/groups.json")).json()["groups"]
    page = (await client.get("/groups")).text
    for g in groups:
        for row in g["rows"]:
            assert row["name"] in page
            assert row["decided_by_text"] in page
    draw = (await client.get("/draw.json")).json()["bracket"]
    draw_page = (await client.get("/draw")).text
    for rnd in draw["rounds"]:
        assert rnd["name"] in draw_page
        for m in rnd["matches"]:
            assert f'data-match="{m["id"]}"' in draw_page
    final = (await client.get("/final.json")).json()["rows"]
    assert re.fullmatch(r"\d+,\d\d", final[0]["points"])  # decimal comma by default
    final_en = (await client.get("/final.json?lang=en")).json()["rows"]
    assert re.fullmatch(r"\d+\.\d\d", final_en[0]["points"])


async def test_the_language_choice_is_remembered(client: httpx.AsyncClient) -> None:
    r = await client.get("/lang/en?next=/groups")
    assert r.status_code == 303 and r.headers["location"] == "/groups"
    assert "Groups" in (await client.get("/groups")).text
    r = await client.get("/lang/en?next=https://evil.example/")
    assert r.headers["location"] == "/"


async def test_director_pages_need_a_login(client: httpx.AsyncClient) -> None:
    for path in DIRECTOR:
        r = await client.get(path)
        assert r.status_code == 303 and r.headers["location"].startswith("/login?next=")
        assert (await client.get(path + ".json")).status_code == 401


async def test_director_pages_and_twins_once_logged_in(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    make_tournament(web, 6)
    _play_groups(web)
    fake_table.play_to_running()
    await login(client)
    for path in [*DIRECTOR, "/director/tables/3", "/director/matches/G1-1"]:
        for lang in ("es", "en"):
            r = await client.get(f"{path}?lang={lang}")
            assert r.status_code == 200, (path, r.text[:800])
        assert (await client.get(path + ".json")).status_code == 200
    assert (await client.get("/director/tables/99")).status_code == 404
    assert (await client.get("/director/matches/NOPE.json")).status_code == 404


async def test_the_public_view_refuses_every_action_and_changes_nothing(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    make_tournament(web, 6)
    before = web.desk.read(lambda club: club.to_dict())
    assert set(ROUTE_PATHS) >= {"action"}
    for name in ACTIONS:
        r = await act(
            client, None, name, match_id="G1-1", table="3", score_a=3, score_b=0, reason="x"
        )
        assert r.status_code == 403, name
        assert r.json()["error"] == "login_required"
        # The pages themselves take no POSTs at all.
    for path in ("/live", "/groups", "/draw", "/rankings", "/final"):
        assert (await client.post(path, data={"x": "1"})).status_code == 405
    assert web.desk.read(lambda club: club.to_dict()) == before
    assert web.store.audit_log() == []
    page = (await client.get("/live")).text
    assert "<form" not in page.replace('action="/logout"', "")


async def test_unknown_pages_and_players_are_a_404_in_the_right_language(
    client: httpx.AsyncClient,
) -> None:
    r = await client.get("/players/P9999?lang=en")
    assert r.status_code == 404 and "Not found" in r.text
    client.cookies.clear()  # ?lang=en was remembered; a newcomer gets Spanish
    r = await client.get("/nothing-here")
    assert r.status_code == 404 and "No encontrado" in r.text
    assert (await client.get("/players/P9999.json")).json()["error"] == "not_found"


async def test_a_page_fragment_for_live_refresh(client: httpx.AsyncClient, web: WebApp) -> None:
    make_tournament(web, 6)
    r = await client.get("/groups", headers={"X-Mesa-Fragment": "main"})
    assert r.status_code == 200
    assert "<html" not in r.text and 'id="group-1"' in r.text


async def test_player_page_explains_points_and_group_place(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    ids = make_tournament(web, 6)
    _play_groups(web)
    data = (await client.get(f"/players/{ids[0]}.json")).json()["player"]
    assert data["name"] == "ALBA"
    assert data["current"]["points"][0].startswith("ALBA — Marzo")
    assert data["current"]["group_place"]
    page = (await client.get(f"/players/{ids[0]}")).text
    assert data["current"]["points"][-1] in page


async def test_rankings_show_ratings_and_history_after_a_closed_tournament(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    import random

    from mesa.hub.demo.run import play_out

    make_tournament(web, 6)
    web.desk.call(lambda club, now: play_out(club, "2025-03", random.Random(1), NOW))
    rating = (await client.get("/rankings.json?kind=rating")).json()["ranking"]
    assert len(rating["entries"]) == 6 and rating["entries"][0]["history"]
    page = (await client.get("/rankings?kind=rating")).text
    assert "<svg" in page and "Evolución del rating" in page
    annual = (await client.get("/rankings.json?kind=annual&year=2025")).json()["ranking"]
    assert annual["entries"][0]["points"].count(",") == 1
    historic = (await client.get("/rankings.json?kind=historic")).json()["ranking"]
    assert [e["player_id"] for e in historic["entries"]] == [
        e["player_id"] for e in annual["entries"]
    ]


async def test_the_current_page_is_marked_and_only_news_is_a_live_region(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    """A screen reader is told which page it is on (``aria-current``), and is not read the
    whole grid every 250 ms: the ticking cards are no live region, an alert badge is."""
    make_tournament(web, 6)
    fake_table.play_to_running()
    web.poller.poll()
    await login(client)
    for path, link in (("/live", "/live"), ("/groups", "/groups"), ("/director", "/director"),
                       ("/director/audit", "/director/audit")):
        page = (await client.get(path)).text
        current = re.findall(r'<a [^>]*aria-current="page"[^>]*>', page)
        assert any(f'href="{link}' in a for a in current), (path, current)
        grid = re.search(r'<section[^>]*id="grid"[^>]*>', page)
        assert grid is None or "aria-live" not in grid.group(0), (path, grid)
    en = (await client.get("/director/tournament?lang=en")).text
    assert '<option value="novatos">beginners</option>' in en


async def test_the_directors_page_shows_the_cas_end_from_a_year_ahead(
    client: httpx.AsyncClient, web: WebApp, tmp_path: Path
) -> None:
    """The hub's certificate keeper (``mesa hub`` sets ``site.tls``) with its clock a year
    and a day, then 300 days, before the venue CA's end."""
    import datetime as dt

    from mesa.hub.broker.tls import CertificateKeeper, ensure_venue_tls, not_after

    files = ensure_venue_tls(tmp_path / "tls", hosts=["hub.local"])
    ca_end = not_after(files.ca)
    at = [ca_end - dt.timedelta(days=366)]
    web.site.tls = CertificateKeeper(files.dir, clock=lambda: at[0])
    web.site.tls.check()
    await login(client)
    assert 'id="tls-notice"' not in (await client.get("/director")).text
    at[0] = ca_end - dt.timedelta(days=300)
    web.site.tls.check()
    es = (await client.get("/director?lang=es")).text
    en = (await client.get("/director?lang=en")).text
    day = ca_end.date().isoformat()
    assert 'id="tls-notice"' in es and f"caduca el {day} (en 300 días)" in es
    assert f"expires on {day} (in 300 days)" in en
    assert (await client.get("/director.json")).json()["tls"]["ca_days"] == 300
