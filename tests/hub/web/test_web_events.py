"""Every page knows the event: two tournaments open on one evening (the open one and the
novatos), each page per event (``?t=``) and all together, an unknown ``t`` a 404, the links and
forms keeping ``t``, the actions acting on it, the closed one's final list and exports still
there, the grid labelling each table with its event and a waiting match saying why."""

from __future__ import annotations

import io
import random
import re
import urllib.parse
import zipfile
from pathlib import Path
from typing import Any

import httpx
import pytest

from mesa.hub.demo.run import play_out
from mesa.hub.web.app import WebApp
from support.hubkit import NOW, TODAY, FakeTable, act, login, make_tournament

pytestmark = pytest.mark.anyio

A = "2025-03"  # make_tournament's: "Marzo", six players, groups drawn
B = "2025-03-07-novatos"  # the create form's default id for a novatos event on that date
B_NAME = "Principiantes"


def two_events(web: WebApp) -> tuple[list[str], list[str]]:
    """A (open, "Marzo") and B (novatos): ALBA plays in both."""
    ids_a = make_tournament(web, 6)

    def run(club: Any, now: Any) -> list[str]:
        club.create_tournament(B, B_NAME, TODAY, category="novatos")
        new = [club.registry.add_new(n, category="novatos").id for n in ("NORA", "NICO", "NOEL")]
        ids = [ids_a[0], *new]
        for pid in ids:
            club.register(B, pid, override=True, now=now)
        club.start(B, seed=3, now=now)
        return ids

    return ids_a, web.desk.call(run)


def _ready_with(web: WebApp, tid: str, pid: str | None, *, without: str | None = None) -> str:
    def pick(club: Any) -> str:
        t = club.tournament(tid)
        return next(
            m.id
            for m in sorted(t.ready_matches(), key=lambda m: m.id)
            if (pid is None or pid in m.players) and (without is None or without not in m.players)
        )

    return web.desk.read(pick)


def _tables(hub: Any, *ids: str) -> list[FakeTable]:
    out = []
    for tid in ids:
        hub.register_table(tid)
        table = FakeTable(hub, tid)
        table.online()
        out.append(table)
    return out


async def test_public_pages_show_every_open_event_together_or_the_one_named(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    two_events(web)
    for page in ("groups", "draw", "consolation", "final"):
        together = (await client.get(f"/{page}.json")).json()
        assert [s["tournament"]["id"] for s in together["sections"]] == [A, B], page
        html = (await client.get(f"/{page}")).text
        assert f'id="event-{A}"' in html and f'id="event-{B}"' in html and B_NAME in html
        one = (await client.get(f"/{page}.json?t={A}")).json()
        assert one["sections"] == [] and one["tournament"]["id"] == A
        html = (await client.get(f"/{page}?t={B}")).text
        assert 'id="event-' not in html and B_NAME in html and "Marzo" not in html
    groups = (await client.get(f"/groups.json?t={B}")).json()["groups"]
    assert {r["name"] for g in groups for r in g["rows"]} == {"ALBA", "NORA", "NICO", "NOEL"}
    # the rankings follow the event's category
    ranking = (await client.get(f"/rankings.json?t={B}&kind=annual")).json()["ranking"]
    assert ranking["category"] == "novatos"
    assert (await client.get(f"/rankings.json?t={A}&kind=annual")).json()["ranking"][
        "category"
    ] == "open"


async def test_an_unknown_event_is_not_found_never_another_one(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    ids_a, _ = two_events(web)
    csrf = await login(client)
    paths = ["/", "/live", "/groups", "/draw", "/draw/print", "/consolation", "/final",
             "/players", f"/players/{ids_a[1]}", "/rankings", "/exports", "/director",
             "/director/tournament", "/director/draw-preview", "/director/matches/G1-1"]  # fmt: skip
    for path in paths:
        r = await client.get(path + "?t=1999-01")
        assert r.status_code == 404, path
        assert (await client.get(path + ".json?t=1999-01")).status_code == 404, path
    for name in ("final.csv", "matches.csv", "site.zip", "tournament.json"):
        assert (await client.get(f"/exports/{name}?t=1999-01")).status_code == 404, name
    r = await act(client, csrf, "register_player", new_name="ZOE", t="1999-01")
    assert r.status_code == 404 and r.json()["error"] == "unknown_tournament"
    assert "ese torneo no existe" in r.json()["message"]
    assert web.desk.read(lambda club: [p.name for p in club.registry]).count("ZOE") == 0


async def test_every_link_and_form_keeps_the_event(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    two_events(web)
    kept = re.compile(r"^/(live|groups|draw|consolation|final|rankings|exports|players/[^/]+$)")
    for page in ("groups", "draw", "consolation", "final", "players", "exports", "live"):
        html = (await client.get(f"/{page}?t={B}")).text
        html = re.sub(r'<nav class="event-links".*?</nav>', "", html, flags=re.S)  # the chooser
        hrefs = [h.replace("&amp;", "&") for h in re.findall(r'href="([^"]+)"', html)]
        event_links = [h for h in hrefs if kept.match(h.split("?")[0])]
        assert event_links, page
        for h in event_links:
            assert ("t", B) in urllib.parse.parse_qsl(urllib.parse.urlsplit(h).query), (page, h)
    await login(client)
    for page in ("/director", "/director/tournament", "/director/matches/G1-1"):
        html = (await client.get(f"{page}?t={B}")).text
        actions = re.findall(r'action="(/director/actions/[^"]+)"', html)
        assert actions, page
        assert all(f"t={B}" in a for a in actions if "create_tournament" not in a), page
        hidden = set(re.findall(r'name="t" value="([^"]*)"', html))
        assert hidden <= {B}, (page, hidden)
        # the switcher offers both events, this one marked
        switch = html[html.index('id="event-switch"') :].split("</nav>")[0]
        assert f"t={A}" in switch and f"t={B}" in switch and 'aria-current="page"' in switch


async def test_actions_act_on_the_event_the_form_names(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    two_events(web)
    csrf = await login(client)

    def run(club: Any, now: Any) -> None:
        club.create_tournament("2025-03-08-novatos", "Sábado", TODAY, category="novatos")

    web.desk.call(run)
    r = await act(client, csrf, "register_player", new_name="ZOE", t="2025-03-08-novatos")
    assert r.status_code == 200, r.text
    entrants = web.desk.read(
        lambda club: {t.id: {e.name for e in t.entrants.values()} for t in club.tournaments.values()}
    )
    assert "ZOE" in entrants["2025-03-08-novatos"]
    assert "ZOE" not in entrants[A] | entrants[B]
    # the same match id in two events: the form's t says which
    r = await act(client, csrf, "record_result", match_id="G1-1", score_a=3, score_b=0, t=B)
    assert r.status_code == 200, r.text
    status = web.desk.read(
        lambda club: (club.tournament(A).match("G1-1").status, club.tournament(B).match("G1-1").status)
    )
    assert status == ("ready", "done")


async def test_a_second_event_on_the_same_date_gets_its_own_id(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    csrf = await login(client)
    page = (await client.get("/director/tournament")).text
    form = page[page.index('id="create-form"') :].split("</form>")[0]
    assert '<option value="novatos">' in form
    made = []
    for category in ("open", "novatos", "open"):
        r = await act(client, csrf, "create_tournament", name="Marzo", date="2025-03-07",
                      category=category, official=True)  # fmt: skip
        assert r.status_code == 200, r.text
        made.append(r.json()["detail"])
    assert made == ["2025-03-07", "2025-03-07-novatos", "2025-03-07-2"]


async def test_a_closed_event_keeps_its_final_list_and_exports(
    client: httpx.AsyncClient, web: WebApp, tmp_path: Path
) -> None:
    make_tournament(web, 9)
    web.desk.call(lambda club, now: play_out(club, A, random.Random(2), NOW))

    def run(club: Any, now: Any) -> None:
        club.create_tournament(B, B_NAME, TODAY, category="novatos")

    web.desk.call(run)
    # the pages without t show the open one; the closed one is one ?t= away
    assert (await client.get("/final.json")).json()["tournament"]["id"] == B
    final = (await client.get(f"/final.json?t={A}")).json()
    assert final["tournament"]["phase"] == "closed" and len(final["rows"]) == 9
    r = await client.get(f"/exports/final.csv?t={A}")
    assert r.status_code == 200 and f'filename="{A}-final.csv"' in r.headers["content-disposition"]
    assert len(r.text.strip().splitlines()) == 10
    r = await client.get(f"/exports/matches.csv?t={B}")
    assert f'filename="{B}-partidas.csv"' in r.headers["content-disposition"]
    printed = (await client.get(f"/draw/print?t={A}")).text
    assert "Marzo" in printed and B_NAME not in printed
    # the static site of the closed one, by address and as published after closing
    r = await client.get(f"/exports/site.zip?t={A}")
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        index = z.read("index.html").decode()
    assert "Marzo" in index and B_NAME not in index and 'class="num points"' in index
    web.settings = web.settings.replace(publish_dir=tmp_path)
    folder = await web.exports.publish_static(A)
    assert folder is not None
    published = (Path(folder) / "index.html").read_text()
    assert "Marzo" in published and B_NAME not in published


async def test_the_grid_labels_each_table_with_its_event_and_says_why_a_match_waits(
    client: httpx.AsyncClient, web: WebApp, hub: Any
) -> None:
    ids_a, _ = two_events(web)
    _tables(hub, "1", "2")
    csrf = await login(client)
    a_match = _ready_with(web, A, ids_a[0])  # ALBA's, in the open event
    r = await act(client, csrf, "assign", match_id=a_match, table="1", t=A)
    assert r.status_code == 200, r.text
    grid = (await client.get("/director.json")).json()
    card = next(c for c in grid["tables"] if c["id"] == "1")
    assert card["event"]["id"] == A and card["event"]["name"] == "Marzo"
    # ALBA's match in the novatos waits for her, and says so
    waiting = next(m for m in grid["ready"] if m["event"]["id"] == B and ids_a[0] in
                   (m["a"]["id"], m["b"]["id"]))  # fmt: skip
    assert waiting["waits"] == "espera: ALBA juega en la mesa 1, Marzo"
    html = (await client.get("/director")).text
    assert "espera: ALBA juega en la mesa 1, Marzo" in html
    assert 'class="card-event" data-event="2025-03"' in html
    # the novatos' own match goes to table 2; ?t= puts its table first and lists its matches only
    b_match = _ready_with(web, B, None, without=ids_a[0])
    assert (await act(client, csrf, "assign", match_id=b_match, table="2", t=B)).status_code == 200
    only_b = (await client.get(f"/director.json?t={B}")).json()
    assert [c["id"] for c in only_b["tables"]][:1] == ["2"]
    assert only_b["tables"][0]["event"]["id"] == B
    assert {m["event"]["id"] for m in only_b["ready"]} <= {B}
    # the public live view of one event: its tables only; the page offers each event
    live = (await client.get(f"/live.json?t={B}")).json()
    assert [c["id"] for c in live["tables"]] == ["2"]
    chooser = (await client.get(f"/live?t={B}")).text
    assert f'id="grid" data-all="1" data-event="{B}">' in chooser
    assert f'href="/live?t={A}"' in chooser and 'href="/live"' in chooser
    assert {c["id"] for c in (await client.get("/live.json")).json()["tables"]} == {"1", "2"}
    assert 'data-event="2025-03"' in (await client.get("/live")).text


async def test_the_call_board_and_a_players_next_match_span_every_event(
    client: httpx.AsyncClient, web: WebApp, hub: Any
) -> None:
    ids_a, ids_b = two_events(web)
    _tables(hub, "1", "2")
    csrf = await login(client)
    a_match = _ready_with(web, A, ids_a[1])  # BRUNO's: he plays only in the open event
    assert (await act(client, csrf, "assign", match_id=a_match, table="1", t=A)).status_code == 200
    b_match = _ready_with(web, B, None, without=ids_a[0])
    assert (await act(client, csrf, "assign", match_id=b_match, table="2", t=B)).status_code == 200
    board = (await client.get("/llamadas.json")).json()
    assert {(c["event"]["id"], c["table"]) for c in board["calls"]} == {(A, "1"), (B, "2")}
    html = (await client.get("/llamadas")).text
    assert B_NAME in html and "Marzo" in html
    # BRUNO is not in the newest open event (the novatos), and still finds his match
    mine = await client.get(f"/players/{ids_a[1]}/next.json")
    assert mine.status_code == 200
    assert mine.json()["match"]["table"] == "1" and mine.json()["match_event"]["id"] == A
    nora = (await client.get(f"/players/{ids_b[1]}/next.json")).json()
    assert nora["match_event"]["id"] == B
    # ALBA plays in both: the one under way or called first, the other listed
    alba = (await client.get(f"/players/{ids_a[0]}/next.json")).json()
    assert alba["match"] is not None and len(alba["others"]) == 1
    assert (await client.get(f"/players/{ids_a[1]}/qr.svg")).status_code == 200


async def test_the_cards_pushed_live_carry_their_event(
    client: httpx.AsyncClient, web: WebApp, hub: Any
) -> None:
    import asyncio

    from mesa.hub.web.http.sse import render_item

    ids_a, _ = two_events(web)
    (table,) = _tables(hub, "1")
    csrf = await login(client)
    a_match = _ready_with(web, A, ids_a[0])
    assert (await act(client, csrf, "assign", match_id=a_match, table="1", t=A)).status_code == 200
    web.site.publish_tournament_version()  # as the desk's change does: the labels are read again
    for _ in range(200):
        if "1" in web.site.event_labels:
            break
        await asyncio.sleep(0.01)
    table.serve()
    web.poller.poll()
    card = web.poller.cards["1"]
    assert {k: card["event"][k] for k in ("id", "name", "category", "game")} == {
        "id": A, "name": "Marzo", "category": "open", "game": "backgammon"}
    html = render_item(web.site, "table", "1", card, "es", True, csrf)
    assert html is not None and 'class="card-event" data-event="2025-03"' in html


async def test_a_player_seated_in_another_game_holds_the_match_and_is_told_where(
    client: httpx.AsyncClient, web: WebApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mesa.hub.desk.venue import Seat, Venue

    ids_a, _ = two_events(web)
    venue = Venue()
    venue.publish("domino", [Seat(ids_a[0], "d1", "D1", "Dominó de marzo", "domino")])
    monkeypatch.setattr(web.desk, "venue", venue, raising=False)
    await login(client)
    grid = (await client.get(f"/director.json?t={A}")).json()
    waits = {m["waits"] for m in grid["ready"] if ids_a[0] in (m["a"]["id"], m["b"]["id"])}
    assert waits == {"espera: ALBA juega en la mesa d1, dominó"}
    mine = (await client.get(f"/players/{ids_a[0]}/next")).text
    assert "Ahora juega en la mesa d1, dominó" in mine and 'href="/domino?t=D1"' in mine
    board = (await client.get("/llamadas.json")).json()["other_games"]
    assert board == [{"table": "d1", "event": "D1", "event_name": "Dominó de marzo",
                      "game": "domino", "players": ["ALBA"]}]  # fmt: skip
    assert 'href="/domino?t=D1"' in (await client.get("/llamadas")).text
    en = (await client.get(f"/director.json?t={A}&lang=en")).json()
    assert "waiting: ALBA is playing at table d1, domino" in {m["waits"] for m in en["ready"]}


@pytest.mark.browser
def test_the_switcher_and_the_labels_fit_a_phone(tmp_path: Path) -> None:
    from mesa.hub.ingest.app import Hub
    from mesa.hub.settings import HubSettings
    from mesa.hub.web.http.server import BackgroundServer
    from support.browser import chromium, chromium_path
    from support.hubkit import PASSWORD

    if chromium_path() is None:
        pytest.skip("chromium not installed")
    hub = Hub(HubSettings(db=tmp_path / "hub.sqlite3"))
    web = WebApp(hub, hub.settings.replace(director_password=PASSWORD, auto_assign=False),
                 now=lambda: NOW)  # fmt: skip
    server = BackgroundServer(web, "127.0.0.1", 0).start()
    try:
        ids_a, _ = two_events(web)

        def more(club: Any, now: Any) -> None:
            for i in range(3):  # long names, as a club writes them
                club.create_tournament(f"x{i}", f"Campeonato social de otoño, jornada {i}", TODAY)

        web.desk.call(more)
        tables = _tables(hub, "1", "2")
        a_match = _ready_with(web, A, ids_a[0])

        def assign(club: Any, now: Any) -> None:
            t = club.tournament(A)
            web.desk.publish_assignment(t, web.desk.assign_match(t, a_match, "1", now, "d"), now)

        web.desk.call(assign)
        url = server.url.rstrip("/")
        with chromium() as browser:
            phone = browser.new_page(viewport={"width": 390, "height": 844})
            errors: list[str] = []
            phone.on("pageerror", lambda e: errors.append(str(e)))
            phone.goto(url + "/login")
            phone.fill("input[name=user]", "director")
            phone.fill("input[name=password]", PASSWORD)
            phone.click("button[type=submit]")
            phone.wait_for_url(re.compile(r".*/director.*"))
            # every page fits whole: a wide table scrolls inside itself, the page never does
            for path in ("/groups", "/final", "/llamadas", "/live", f"/draw?t={B}",
                         f"/players/{ids_a[0]}", "/domino", "/director/domino",
                         f"/director/matches/{a_match}?t={A}", "/director", f"/director?t={B}",
                         f"/director/tournament?t={B}"):  # fmt: skip
                phone.goto(url + path)
                width = phone.evaluate("() => document.documentElement.scrollWidth")
                assert width <= 390, (path, width)
            for path in ("/director", f"/director?t={B}", f"/director/tournament?t={B}"):
                phone.goto(url + path)
                rights = phone.evaluate(
                    "() => [...document.querySelectorAll('.director-bar, #event-switch, "
                    ".card, .card-event, .event-cell')].map(e => e.getBoundingClientRect().right)"
                )
                assert rights and max(rights) <= 390, (path, rights)
            phone.goto(url + "/director")
            assert phone.locator("#event-switch a").count() == 6  # "Todos" and five events
            assert phone.locator("#table-1 .card-event").inner_text().strip() == "Marzo"
            # one event's live view: a table that takes its match joins it, live
            phone.goto(url + f"/live?t={B}")
            assert phone.locator("#grid .card").count() == 0
            b_match = _ready_with(web, B, None, without=ids_a[0])

            def assign_b(club: Any, now: Any) -> None:
                t = club.tournament(B)
                a = web.desk.assign_match(t, b_match, "2", now, "d")
                web.desk.publish_assignment(t, a, now)

            web.desk.call(assign_b)
            tables[1].serve()
            phone.wait_for_selector("#table-2 .card-event", timeout=15000)
            assert phone.locator("#grid .card").count() == 1
            assert B_NAME in phone.locator("#table-2 .card-event").inner_text()
            assert not errors, errors
    finally:
        server.stop()
        web.close()
        hub.close()


async def test_the_rankings_offer_each_category(client: httpx.AsyncClient, web: WebApp) -> None:
    two_events(web)
    html = (await client.get("/rankings?kind=annual&year=2025&category=novatos")).text
    toggles = html[html.index('id="rank-category"') :].split("</nav>")[0]
    assert 'data-category="open"' in toggles and 'aria-current="page"' in toggles
    assert (await client.get("/rankings.json?kind=historic&category=novatos")).json()["ranking"][
        "category"
    ] == "novatos"


async def test_the_table_and_match_pages_name_their_event(
    client: httpx.AsyncClient, web: WebApp, hub: Any
) -> None:
    ids_a, _ = two_events(web)
    (table,) = _tables(hub, "1")
    csrf = await login(client)
    a_match = _ready_with(web, A, ids_a[0])
    assert (await act(client, csrf, "assign", match_id=a_match, table="1", t=A)).status_code == 200
    table.serve()  # the table takes the match
    html = (await client.get("/director/tables/1")).text
    assert f'id="table-event">Evento: <a href="/director/tournament?t={A}">Marzo</a>' in html
    assert f'action="/director/actions/forfeit?t={A}"' in html  # its forms act on that event
    b_match = _ready_with(web, B, ids_a[0])
    html = (await client.get(f"/director/matches/{b_match}?t={B}")).text
    assert B_NAME in html[html.index('id="match-event"') :].split("</p>")[0]
    assert "espera: ALBA juega en la mesa 1, Marzo" in html
    html = (await client.get(f"/director/tournament?t={B}")).text
    assert "espera: ALBA juega en la mesa 1, Marzo" in html


async def test_the_draw_preview_and_the_ranking_export_keep_the_event(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    two_events(web)

    def run(club: Any, now: Any) -> None:
        club.create_tournament("2025-03-07-2", "Amistoso", TODAY)

    web.desk.call(run)
    await login(client)
    html = (await client.get("/director/tournament?t=2025-03-07-2")).text
    form = html[html.index('id="preview-form"') :].split("</form>")[0]
    assert '<input type="hidden" name="t" value="2025-03-07-2">' in form  # a GET form's query
    preview = (await client.get("/director/draw-preview.json?t=2025-03-07-2&seed=1")).json()
    assert preview["tournament"]["id"] == "2025-03-07-2"
    r = await client.get(f"/exports/ranking.csv?t={B}&kind=annual&year=2025")
    assert 'filename="ranking-annual-2025-novatos.csv"' in r.headers["content-disposition"]


async def test_the_grid_of_every_event_pins_none_and_one_events_pages_pin_theirs(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    two_events(web)
    await login(client)
    html = (await client.get("/director")).text
    bar = html[html.index('class="director-bar"') :].split("</div>")[0]
    assert 'href="/director"' in bar and 'aria-current="page">Todos' in bar
    html = (await client.get("/director/tournament")).text  # no t: the default, kept
    bar = html[html.index('class="director-bar"') :].split("</div>")[0]
    assert f'href="/director?t={B}"' in bar


async def test_a_match_action_naming_no_event_finds_the_open_event_that_has_the_match(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    make_tournament(web, 6)

    def run(club: Any, now: Any) -> None:  # a newer open event, still at its door
        club.create_tournament(B, B_NAME, TODAY, category="novatos")

    web.desk.call(run)
    csrf = await login(client)
    r = await act(client, csrf, "record_result", match_id="G2-1", score_a=3, score_b=1)
    assert r.status_code == 200, r.text
    assert web.desk.read(lambda club: club.tournament(A).match("G2-1").status) == "done"


async def test_the_director_reserves_tables_for_one_event(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    two_events(web)
    tables = _tables(web.hub, "4", "5", "6")
    csrf = await login(client)
    page = (await client.get(f"/director/tournament?t={B}")).text
    assert 'name="tables"' in page and "reservar mesas" in page
    r = await act(client, csrf, "reserve_tables", tables="4, 99", t=B)  # an unknown table
    assert r.status_code == 409 and r.json()["error"] == "no_table", r.text
    r = await act(client, csrf, "reserve_tables", tables="4; 5 4", t=B)
    assert r.status_code == 200, r.text
    reserved = web.desk.read(
        lambda club: {t.id: t.settings.reserved_tables for t in club.tournaments.values()}
    )
    assert reserved == {A: (), B: ("4", "5")}
    assert (await client.get(f"/director/tournament.json?t={B}")).json()["tournament"][
        "reserved_tables"
    ] == ["4", "5"]
    r = await act(client, csrf, "reserve_tables", tables="<b>", t=B)
    assert r.status_code == 409 and "no existe" in r.json()["message"], r.text
    r = await act(client, csrf, "reserve_tables", tables="5, 6", t=A)  # 5 is B's
    assert r.status_code == 409 and "ya está reservada para Principiantes" in r.json()["message"]
    r = await act(client, csrf, "reserve_tables", tables="٤", t=B)  # not an ASCII digit
    assert r.status_code in (404, 409), r.text
    r = await act(client, csrf, "reserve_tables", tables="", t=B)
    assert r.status_code == 200
    assert web.desk.read(lambda club: club.tournament(B).settings.reserved_tables) == ()
    assert tables  # the tables stay online throughout


async def test_every_player_of_the_club_has_a_next_match_page(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    """A player only at the domino room, and the champion of an event closed while another is
    open, have their "mi próxima partida" and its QR code (a reviewer found both 404)."""
    from mesa.hub.desk.venue import Seat

    _, ids_b = two_events(web)
    domino_only = web.desk.call(lambda club, now: club.registry.add_new("DORA").id)
    web.desk.venue.publish("domino", [Seat(domino_only, "d1", "D1", "Dominó de marzo", "domino")])
    r = await client.get(f"/players/{domino_only}/next")
    assert r.status_code == 200 and "d1" in r.text, r.text[:300]
    assert (await client.get(f"/players/{domino_only}/qr.svg")).status_code == 200
    assert (await client.get("/players/P9999/next")).status_code == 404
    # B played out and closed; A still open: B's players keep their page (their last result)
    web.desk.call(lambda club, now: play_out(club, B, random.Random(1), now))
    only_b = ids_b[1]
    r = await client.get(f"/players/{only_b}/next.json")
    assert r.status_code == 200 and r.json()["match_event"]["id"] == B


async def test_a_finished_match_keeps_its_event_on_its_card(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    """The same match code runs in both events (KO-F-1 in four at once): a card showing a
    finished match still says whose it was, until the table takes another."""
    ids_a, _ = two_events(web)
    (table,) = _tables(web.hub, "1")
    mid = _ready_with(web, A, ids_a[0])

    def assign(club: Any, now: Any) -> None:
        t = club.tournament(A)
        web.desk.publish_assignment(t, web.desk.assign_match(t, mid, "1", now, "d"), now)

    web.desk.call(assign)
    table.serve()
    table.apply("press", {"side": "a"})
    table.apply("press", {"side": "b"})
    while table.table.state != "match_over":
        table.apply("press", {"side": "b"})
        table.apply("claim", {"side": "a", "winner": "a", "kind": 1})
        table.apply("confirm", {"side": "b"})
    web.desk.sync()
    await login(client)
    card = next(c for c in (await client.get("/director.json")).json()["tables"] if c["id"] == "1")
    assert card["state"] == "match_over" and card["event"]["id"] == A, card.get("event")
    assert card["event"]["active"] is False and card["event"]["match"] == mid


async def test_a_new_event_opens_on_its_own_page_and_every_audit_line_names_its_event(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    two_events(web)
    csrf = await login(client)
    r = await client.post(
        "/director/actions/create_tournament",
        data={"csrf": csrf, "name": "Amistoso", "date": "2025-03-07", "category": "open",
              "official": ""},
    )  # fmt: skip
    assert r.status_code == 303
    made = urllib.parse.parse_qs(urllib.parse.urlparse(r.headers["location"]).query)["t"][0]
    assert r.headers["location"].startswith("/director/tournament?") and made.startswith("2025-03-07")
    r = await act(client, csrf, "record_result", match_id="G1-1", score_a=3, score_b=0, t=B)
    assert r.status_code == 200
    line = web.store.audit_log(action="record_result")[0]
    assert line.params["t"] == B and line.params["match_id"] == "G1-1"


async def test_tonights_final_list_keeps_a_closed_event_beside_the_open_one(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    """"Así quedó" without t: every event of the evening, the one closed first included."""
    two_events(web)
    web.desk.call(lambda club, now: play_out(club, A, random.Random(2), now))  # A closed
    got = (await client.get("/final.json")).json()
    assert [s["tournament"]["id"] for s in got["sections"]] == [A, B]
    assert next(s for s in got["sections"] if s["tournament"]["id"] == A)["rows"]
