"""The door, the draw preview, undo/redraw and the first run, over HTTP (the browser walk is in
test_web_door_browser.py)."""

from __future__ import annotations

import urllib.parse
from pathlib import Path
from typing import Any

import httpx
import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.settings import HubSettings
from mesa.hub.web.app import WebApp
from mesa.hub.web.i18n import LANGUAGES, STRINGS
from mesa.hub.web.strings_door import DOOR_STRINGS
from support.hubkit import NOW, TODAY, act, login

pytestmark = pytest.mark.anyio


def _t(web: WebApp, fn: Any) -> Any:
    return web.desk.read(lambda club: fn(club.tournament("2025-03")))


async def _open_tournament(client: httpx.AsyncClient, csrf: str) -> None:
    r = await act(
        client, csrf, "create_tournament", name="Marzo", date=TODAY.isoformat(), id="2025-03"
    )
    assert r.status_code == 200, r.text


async def _post(
    client: httpx.AsyncClient, csrf: str, action: str, pairs: list[tuple[str, str]]
) -> httpx.Response:
    """A form with repeated fields (ticked checkboxes), as a browser posts it."""
    return await client.post(
        f"/director/actions/{action}",
        content=urllib.parse.urlencode(pairs).encode(),
        headers={
            "Accept": "application/json",
            "X-CSRF-Token": csrf,
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )


def test_both_languages_have_every_door_word() -> None:
    for key in DOOR_STRINGS:
        assert set(STRINGS[key]) >= set(LANGUAGES), key


async def test_a_pasted_list_registers_everyone_matching_the_registry(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    csrf = await login(client)
    await _open_tournament(client, csrf)
    csv = "nombre;puntos\nMARÍA JOSÉ;2,30\nBRUNO;1,34\n"
    r = await act(client, csrf, "import_ranking", csv=csv, year=2024, create_missing=True)
    assert r.status_code == 200, r.text
    pasted = "maria jose\n  Bruno \n\nCARLA NUEVA\nbruno\n"
    r = await act(client, csrf, "register_many", names=pasted)
    assert r.status_code == 200, r.text
    body = r.json()
    assert "3 inscritos (1 nuevo en el registro)" in body["message"]
    names = _t(web, lambda t: sorted(e.name for e in t.entrants.values()))
    assert names == ["BRUNO", "CARLA NUEVA", "MARÍA JOSÉ"]  # accents and case folded
    again = await act(client, csrf, "register_many", names="Bruno")
    assert "1 ya estaba," in again.json()["message"]
    assert (await act(client, csrf, "register_many")).status_code == 400  # nothing given
    # The audit keeps how many lines, not the names pasted.
    entry = web.store.audit_log(action="register_many")[0]
    assert entry.params["names_lines"] == 1


async def test_ticked_players_and_the_whole_ranking_register_at_once(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    csrf = await login(client)
    await _open_tournament(client, csrf)
    csv = "nombre;puntos\nALBA;2,30\nBRUNO;1,34\nCARMEN;0,50\n"
    await act(client, csrf, "import_ranking", csv=csv, year=2024, create_missing=True)
    ids = web.desk.read(lambda club: {p.name: p.id for p in club.registry})
    page = (await client.get("/director/tournament")).text
    assert 'id="registry-search"' in page and "Todos los del ranking (3)" in page
    r = await _post(
        client, csrf, "register_many", [("player_ids", ids["ALBA"]), ("player_ids", ids["BRUNO"])]
    )
    assert r.status_code == 200, r.text
    assert _t(web, lambda t: sorted(t.entrants)) == sorted([ids["ALBA"], ids["BRUNO"]])
    r = await act(client, csrf, "register_many", all_ranked=True)
    assert "1 inscrito (0 nuevos en el registro)" in r.json()["message"]
    assert len(_t(web, lambda t: t.entrants)) == 3
    bad = await _post(client, csrf, "register_many", [("player_ids", "x" * 100)])
    assert bad.status_code == 400


async def test_many_check_in_at_once_and_a_card_at_the_reader(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    csrf = await login(client)
    await _open_tournament(client, csrf)
    await act(client, csrf, "register_many", names="ALBA\nBRUNO\nCARMEN\nDIEGO")
    ids = web.desk.read(lambda club: {p.name: p.id for p in club.registry})
    web.desk.call(lambda club, now: club.registry.add_card(ids["DIEGO"], "04:A1:B2"))
    r = await _post(
        client, csrf, "check_in_many", [("player_ids", ids["ALBA"]), ("player_ids", ids["BRUNO"])]
    )
    assert r.status_code == 200 and "2 marcados presentes" in r.json()["message"]
    r = await act(client, csrf, "check_in_card", card="04a1b2")
    assert r.status_code == 200 and "DIEGO: presente" in r.json()["message"]
    r = await act(client, csrf, "check_in_card", card="FF:FF")
    assert r.status_code == 404 and "Tarjeta desconocida" in r.json()["message"]
    page = (await client.get("/director/tournament")).text
    assert "3 de 4 presentes" in page and "Sin llegar: 1" in page
    r = await act(client, csrf, "check_in_many", all=True)
    assert "4 marcados presentes" in r.json()["message"]
    bad = await _post(client, csrf, "check_in_many", [("player_ids", "P9999")])
    assert bad.status_code == 409
    # A repeated field where one value is expected is refused, never a crash.
    r = await client.post(
        "/director/actions/check_in_card",
        content=urllib.parse.urlencode([("csrf", csrf), ("csrf", csrf), ("card", "x")]).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 303  # back with "refused" (CSRF), nothing done
    r = await _post(client, csrf, "check_in_card", [("card", "a"), ("card", "b")])
    assert r.status_code == 400 and r.json()["error"] == "bad_value"


async def test_the_draw_is_previewed_with_the_absent_named_then_undone_and_redrawn(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    csrf = await login(client)
    await _open_tournament(client, csrf)
    names = ["ALBA", "BRUNO", "CARMEN", "DIEGO", "ELENA", "FÉLIX", "GLORIA"]
    await act(client, csrf, "register_many", names="\n".join(names))
    ids = web.desk.read(lambda club: {p.name: p.id for p in club.registry})
    here = [("player_ids", ids[n]) for n in names if n != "GLORIA"]
    await _post(client, csrf, "check_in_many", here)
    page = (await client.get("/director/draw-preview?seed=42")).text
    assert "Queda fuera 1" in page and "GLORIA" in page
    assert "Entran 6 jugadores" in page and "2 grupos" in page
    assert _t(web, lambda t: t.phase) == "registration"  # the preview changed nothing
    preview = (await client.get("/director/draw-preview.json?seed=42")).json()["preview"]
    # Without the confirmation, then with it: the previewed draw is the one made.
    leave_out = [("leave_out", ids["GLORIA"]), ("seed", "42")]
    r = await _post(client, csrf, "start_groups", leave_out)
    assert r.status_code == 409 and r.json()["error"] == "confirm_absent"
    r = await _post(client, csrf, "start_groups", [*leave_out, ("confirm_absent", "1")])
    assert r.status_code == 200, r.text
    groups = _t(web, lambda t: [list(g) for g in t.groups])
    assert groups == [[p["id"] for p in g["players"]] for g in preview["groups"]]
    assert ids["GLORIA"] not in _t(web, lambda t: t.entrants)
    page = (await client.get("/director/tournament")).text
    assert 'id="redraw"' in page and 'id="undo-draw"' in page
    r = await act(client, csrf, "redraw_groups", seed=7)
    assert r.status_code == 200 and "semilla 7" in r.json()["message"]
    assert _t(web, lambda t: t.seed) == 7
    r = await act(client, csrf, "undo_groups")
    assert r.status_code == 200
    assert _t(web, lambda t: (t.phase, len(t.matches))) == ("registration", 0)
    assert ids["GLORIA"] in _t(web, lambda t: t.entrants)  # left out by the draw: back again
    actions = _t(web, lambda t: [a.action for a in t.audit])
    assert actions[-3:] == ["undo_groups", "start_groups", "undo_groups"]
    # Once a result is in, the draw counts: refused with a reason in the director's words.
    await act(client, csrf, "check_in_many", all=True)
    assert (await act(client, csrf, "start_groups", seed=3)).status_code == 200
    first = _t(web, lambda t: sorted(t.matches)[0])
    r = await act(client, csrf, "record_result", match_id=first, score_a=3, score_b=1)
    assert r.status_code == 200, r.text
    r = await act(client, csrf, "undo_groups")
    assert r.status_code == 409 and "el sorteo ya cuenta" in r.json()["message"]
    r = await act(client, csrf, "redraw_groups")
    assert r.status_code == 409 and r.json()["error"] == "draw_locked"
    page = (await client.get("/director/tournament")).text
    assert 'id="draw-locked"' in page and 'id="knockout-preview"' in page


async def test_an_offline_table_is_marked_and_needs_a_confirmation(
    client: httpx.AsyncClient, web: WebApp, hub: Hub
) -> None:
    csrf = await login(client)
    await _open_tournament(client, csrf)
    await act(client, csrf, "register_many", names="ALBA\nBRUNO")
    assert (await act(client, csrf, "start_groups", seed=1)).status_code == 200
    hub.register_table("4")
    web.site.refresh_live()
    page = (await client.get("/director")).text
    assert 'data-warn="la mesa 4 está desconectada: ¿asignar igualmente?"' in page
    page = (await client.get("/director/matches/G1-1")).text
    assert 'data-warn="la mesa 4 está desconectada: ¿asignar igualmente?"' in page
    r = await act(client, csrf, "assign", match_id="G1-1", table="4")
    assert r.status_code == 409 and r.json()["error"] == "table_not_free"
    r = await act(client, csrf, "assign", match_id="G1-1", table="4", confirm_table=True)
    assert r.status_code == 200, r.text


async def test_a_fresh_hub_offers_the_first_run_page_once(tmp_path: Path) -> None:
    hub = Hub(HubSettings(db=tmp_path / "hub.sqlite3"))
    web = WebApp(hub, hub.settings.replace(auto_assign=False), now=lambda: NOW)
    try:
        code = web.first_run.code
        assert code is not None and len(code) == 8
        far = httpx.ASGITransport(web.asgi(), client=("192.168.1.20", 5000))
        async with httpx.AsyncClient(transport=far, base_url="http://mesa.test") as c:
            assert "Crear el director" in (await c.get("/login")).text
            form = {"user": "ana", "password": "larga-clave", "again": "larga-clave"}
            r = await c.post("/first-run", data={**form, "code": "nope"})
            assert r.status_code == 403 and "Código incorrecto" in r.text
            r = await c.post("/first-run", data={**form, "again": "otra-clave"})
            assert r.status_code == 403  # the code is checked first
            r = await c.post("/first-run", data={**form, "code": code})
            assert r.status_code == 303
            assert web.store.check_password("ana", "larga-clave")
            r = await c.post("/first-run", data={**form, "code": code, "user": "eve"})
            assert r.status_code == 410
            assert not web.store.check_password("eve", "larga-clave")
        near = httpx.ASGITransport(web.asgi())  # 127.0.0.1: no code needed, but closed now
        async with httpx.AsyncClient(transport=near, base_url="http://mesa.test") as c:
            assert (await c.get("/first-run")).status_code == 410
    finally:
        web.close()
        hub.close()


async def test_the_first_run_from_the_hubs_own_machine_needs_no_code(tmp_path: Path) -> None:
    hub = Hub(HubSettings(db=tmp_path / "hub.sqlite3"))
    web = WebApp(hub, hub.settings.replace(auto_assign=False), now=lambda: NOW)
    try:
        near = httpx.ASGITransport(web.asgi(), client=("127.0.0.1", 5000))
        async with httpx.AsyncClient(transport=near, base_url="http://mesa.test") as c:
            page = (await c.get("/first-run")).text
            assert 'name="code"' not in page
            short = {"user": "ana", "password": "corta", "again": "corta"}
            assert (await c.post("/first-run", data=short)).status_code == 400
            form = {"user": "ana", "password": "larga-clave", "again": "larga-clave"}
            assert (await c.post("/first-run", data=form)).status_code == 303
        assert web.first_run.code is None
    finally:
        web.close()
        hub.close()
