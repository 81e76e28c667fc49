"""The director can always move on: a table never keeps a match that is decided, annulled or
moved; a correction that annuls later matches leaves every page answering and the knockout
moving; a disputed game is settled from the desk; a no-show takes no knockout place.

Each test reproduces a finding from a club evening and walks every director match and table page
(and their JSON twins) after the intervention.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from mesa.hub.web.app import WebApp
from support.hubkit import FakeTable, act, login, make_tournament, serving

pytestmark = pytest.mark.anyio
TID = "2025-03"


def _t(web: WebApp, fn: Callable[[Any], Any]) -> Any:
    return web.desk.read(lambda club: fn(club.tournament(TID)))


def _play(web: WebApp, phase: str, seed: int = 3, *, passes: int = 200) -> None:
    """Director results for every ready match of ``phase`` (the first-named wins), dice when a
    group asks for them, until nothing of that phase is ready (or after ``passes`` rounds)."""

    def run(club: Any, now: datetime) -> None:
        t = club.tournament(TID)
        rng = random.Random(seed)
        for _ in range(passes):
            ready = [m for m in t.ready_matches() if m.phase == phase]
            if not ready:
                if phase == "group" and t.pending_dice():
                    g, tie = t.pending_dice()[0]
                    t.enter_dice(g, {p: i + 1 for i, p in enumerate(tie)}, actor="test", now=now)
                    continue
                return
            for m in ready:
                lo = rng.randint(0, m.length - 1)
                t.record_result(m.id, m.length, lo, source="director", now=now)

    web.desk.call(run)


def _live(web: WebApp, table: str = "3") -> dict[str, Any]:
    """What the hub has heard from the table (its last state report)."""
    return web.hub.table(table) or {}


async def _until(check: Callable[[], bool]) -> None:
    for _ in range(250):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the table did not get there")


async def _assign(client: httpx.AsyncClient, csrf: str, web: WebApp, match_id: str) -> None:
    """The director assigns ``match_id`` to table 3, and the table takes it."""
    assert (await act(client, csrf, "assign", match_id=match_id, table="3")).is_success
    await _until(lambda: _live(web).get("match_id") == match_id)
    assert _live(web)["state"] == "assigned"


async def walk_pages(client: httpx.AsyncClient, web: WebApp) -> None:
    """Every director match and table page and its JSON twin answers 200; the overviews answer;
    and no table holds two unfinished matches at once."""
    web.poller.poll()
    ids = web.desk.read(
        lambda club: sorted(club.tournaments[TID].matches) if club.tournaments else []
    )
    tables = [d["table"] for d in web.hub.tables()]
    for path in [f"/director/matches/{m}" for m in ids] + [f"/director/tables/{x}" for x in tables]:
        for url in (path, path + ".json"):
            r = await client.get(url)
            assert r.status_code == 200, (url, r.status_code, r.text[-500:])
    for url in (
        "/director",
        "/director/tournament",
        "/director/audit",
        "/live",
        "/groups",
        "/draw",
        "/consolation",
        "/final",
        "/live.json",
        "/draw.json",
    ):
        r = await client.get(url)
        assert r.status_code == 200, (url, r.status_code, r.text[-500:])
    held = [
        m.table
        for m in web.desk.read(
            lambda club: [m for t in club.tournaments.values() for m in t.matches.values()]
        )
        if m.status in ("assigned", "playing")
    ]
    assert len(held) == len(set(held)), held


def _form_fields(page: str, action: str) -> set[str]:
    """The names of the fields of the form that posts to ``action`` on an HTML page."""
    start = page.index(f'action="/director/actions/{action}')  # "?t=<the event>" follows
    form = page[start : page.index("</form>", start)]
    return set(re.findall(r'name="([a-z_]+)"', form))


async def test_a_correction_that_annuls_a_playing_knockout_match_keeps_the_knockout_moving(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    make_tournament(web, 12)
    _play(web, "group")
    _play(web, "knockout", passes=1)  # the four play-in matches: KO-PI-2 feeds KO-QF-2
    assert _t(web, lambda t: t.match("KO-QF-2").status) == "ready"
    csrf = await login(client)
    async with serving(fake_table):
        await _assign(client, csrf, web, "KO-QF-2")
    fake_table.apply("press", {"side": "a"})
    fake_table.apply("press", {"side": "b"})  # both in: the match starts at the table
    web.desk.sync()
    qf = _t(web, lambda t: t.match("KO-QF-2"))
    assert qf.status == "playing" and qf.table == "3"
    pi = _t(web, lambda t: t.match("KO-PI-2").result)
    r = await act(
        client,
        csrf,
        "correct_result",
        match_id="KO-PI-2",
        score_a=pi.score_b,
        score_b=pi.score_a,
        expected=f"{pi.score_a}-{pi.score_b}",
        reason="firmaron al revés",
    )
    assert r.status_code == 200 and r.json()["conflict"] == "C1", r.text
    # The confirmation lists exactly what "apply" annuls, and posts that list.
    twin = (await client.get("/director/matches/KO-PI-2.json")).json()
    assert twin["conflicts"][0]["annuls"] == ["KO-QF-2"]
    page = (await client.get("/director/matches/KO-PI-2")).text
    assert "afecta a partidas ya jugadas o en juego: KO-QF-2." in page
    assert 'name="expected" value="KO-QF-2"' in page
    await walk_pages(client, web)
    # A list that is not what applying would annul changes nothing.
    r = await act(
        client,
        csrf,
        "resolve_conflict",
        conflict_id="C1",
        resolution="apply",
        expected="KO-QF-2,KO-SF-1",
    )
    assert r.status_code == 409 and "No se ha cambiado nada" in r.json()["message"]
    # A page that listed nothing (it was loaded before KO-QF-2 started) confirms nothing.
    r = await act(
        client, csrf, "resolve_conflict", conflict_id="C1", resolution="apply", expected=""
    )
    assert r.status_code == 409 and "No se ha cambiado nada" in r.json()["message"]
    assert _t(web, lambda t: t.match("KO-QF-2").status) == "playing"
    async with serving(fake_table):
        r = await act(
            client,
            csrf,
            "resolve_conflict",
            conflict_id="C1",
            resolution="apply",
            expected="KO-QF-2",
        )
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["annulled"] == ["KO-QF-2"] and body["released"] == ["3"]
        assert "La mesa 3 tenía una partida ya decidida o anulada" in body["message"]
        # The choice in words, never the form's code ("(apply: KO-QF-2)").
        assert "(Aplicar y anular lo afectado: KO-QF-2)" in body["message"], body["message"]
        await _until(lambda: _live(web)["state"] == "idle")
    qf = _t(web, lambda t: t.match("KO-QF-2"))
    new_b = _t(web, lambda t: t.match("KO-PI-2").result.winner)
    assert qf.status == "ready" and qf.table is None and qf.b == new_b
    await walk_pages(client, web)
    page = (await client.get("/director/matches/KO-QF-2")).text
    assert "anulación" in page and 'action="/director/actions/assign?t=2025-03"' in page
    # The knockout moves on: KO-QF-2 goes back to the table, with the new names.
    async with serving(fake_table):
        await _assign(client, csrf, web, "KO-QF-2")
    assert fake_table.table.s.match_id == "KO-QF-2"
    assert (web.hub.table("3") or {})["players"]["b"] == _t(web, lambda t: t.name_of(new_b))
    audit = [e for e in web.store.audit_log() if e.action == "resolve_conflict"]
    assert audit[0].outcome == "ok" and "[released: 3]" in audit[0].detail
    assert audit[1].outcome == "refused"
    await walk_pages(client, web)


async def test_a_no_show_sanction_frees_the_table_that_waited_for_the_player(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    make_tournament(web, 6)
    csrf = await login(client)
    async with serving(fake_table):
        await _assign(client, csrf, web, "G1-1")
        victim = _t(web, lambda t: t.match("G1-1").a)
        r = await act(
            client, csrf, "sanction", player_id=victim, kind="no_show", reason="confirmó y no vino"
        )
        assert r.status_code == 200, r.text
        assert r.json()["released"] == ["3"] and "queda libre" in r.json()["message"]
        await _until(lambda: _live(web)["state"] == "idle")
        g = _t(web, lambda t: t.match("G1-1").result)
        assert g.forfeit and (g.score_a, g.score_b) == (0, 3)
        web.poller.poll()
        page = (await client.get("/director/tables/3")).text
        assert "Liberar mesa" not in page
        nxt = _t(web, lambda t: next(m.id for m in t.ready_matches() if victim not in m.players))
        await _assign(client, csrf, web, nxt)
    line = next(e for e in web.store.audit_log() if e.action == "sanction")
    assert line.outcome == "ok" and "[released: 3]" in line.detail
    await walk_pages(client, web)


async def test_liberar_mesa_frees_a_table_that_keeps_a_decided_match(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    make_tournament(web, 6)
    csrf = await login(client)
    async with serving(fake_table):
        await _assign(client, csrf, web, "G1-1")
    # Decided behind the table's back (as a desk that missed it would leave it).
    web.desk.call(
        lambda club, now: club.tournament(TID).record_result(
            "G1-1", 3, 1, source="director", actor="otro", now=now
        )
    )
    web.poller.poll()
    page = (await client.get("/director/tables/3")).text
    assert "Esta mesa sigue con G1-1, que ya tiene resultado" in page
    assert "Liberar mesa" in page and 'data-act="forfeit"' not in page
    page = (await client.get("/director/matches/G1-1")).text
    assert 'action="/director/actions/release_table?t=2025-03"' in page
    await walk_pages(client, web)
    # What used to be refused still is, and says so…
    r = await act(client, csrf, "forfeit", match_id="G1-1", winner="a", reason="x")
    assert r.status_code == 409 and "ya tiene resultado" in r.json()["message"]
    # …and "Liberar mesa" frees the table, from the table page's own form.
    assert _form_fields(page, "release_table") >= {"csrf", "table"}
    async with serving(fake_table):
        r = await act(client, csrf, "release_table", table="3")
        assert r.status_code == 200, r.text
        assert r.json()["message"] == "Hecho: Liberar mesa · 3 (G1-1: ya tiene resultado)."
        await _until(lambda: _live(web)["state"] == "idle")
        r = await act(client, csrf, "release_table", table="3")
        assert r.status_code == 409 and "la mesa no tiene ninguna partida" in r.json()["message"]
        # A table whose match is still its own to play is not released.
        await _assign(client, csrf, web, "G1-2")
        r = await act(client, csrf, "release_table", table="3")
        assert r.status_code == 409 and "sigue siendo suya" in r.json()["message"]
    assert fake_table.table.state == "assigned"
    outcomes = [(e.action, e.outcome) for e in web.store.audit_log() if e.action == "release_table"]
    assert sorted(outcomes) == [
        ("release_table", "ok"),
        ("release_table", "refused"),
        ("release_table", "refused"),
    ]
    await walk_pages(client, web)


async def test_a_forfeited_final_keeps_its_page_and_forms(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    make_tournament(web, 6)
    _play(web, "group")
    _play(web, "knockout", passes=2)  # play-ins, then the semifinals
    assert _t(web, lambda t: t.match("KO-F-1").status) == "ready"
    csrf = await login(client)
    async with serving(fake_table):
        await _assign(client, csrf, web, "KO-F-1")
        web.poller.poll()
        forfeiter = _t(web, lambda t: t.match("KO-F-1").b)
        r = await act(
            client,
            csrf,
            "forfeit",
            match_id="KO-F-1",
            winner="a",
            reason="no se presentó a la final",
        )
        assert r.status_code == 200, r.text
        await _until(lambda: _live(web)["state"] == "match_over")
    web.desk.sync()
    final = _t(web, lambda t: t.match("KO-F-1"))
    # HGV 2.3.8: the last player the forfeiter eliminated takes their place; the final is
    # played again, so it has left its table.
    assert final.b != forfeiter and final.status == "ready" and final.table is None
    page = await client.get("/director/matches/KO-F-1")
    assert page.status_code == 200 and "forfait en la eliminatoria" in page.text
    assert 'action="/director/actions/assign?t=2025-03"' in page.text
    assert 'action="/director/actions/forfeit?t=2025-03"' in page.text
    await walk_pages(client, web)
    for _ in range(5):  # forfeit again, off the tables, until the final is decided
        if _t(web, lambda t: t.match("KO-F-1").status) == "done":
            break
        r = await act(client, csrf, "forfeit", match_id="KO-F-1", winner="a", reason="tampoco")
        assert r.status_code == 200, r.text
        await walk_pages(client, web)
    page = (await client.get("/director/matches/KO-F-1")).text
    assert _t(web, lambda t: t.match("KO-F-1").status) == "done"
    assert 'id="correct-form"' in page
    await walk_pages(client, web)


async def test_a_no_show_before_the_knockout_takes_no_knockout_place(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    make_tournament(web, 8)  # two groups of four: three qualify from each
    no_show = _t(web, lambda t: t.group_matches(1)[0].a)

    def two_wins(club: Any, now: datetime) -> None:
        # Two wins (so not HGV 2.3.3's lone win): without the rule they would qualify.
        t = club.tournament(TID)
        for m in [m for m in t.group_matches(1) if no_show in m.players][:2]:
            t.record_result(m.id, *((3, 0) if m.a == no_show else (0, 3)), now=now)

    web.desk.call(two_wins)
    csrf = await login(client)
    r = await act(
        client, csrf, "sanction", player_id=no_show, kind="no_show", reason="confirmó y no vino"
    )
    assert r.status_code == 200, r.text
    _play(web, "group")
    seeds = _t(web, lambda t: [s.player_id for s in t.knockout.seeds])
    assert no_show not in seeds and len(seeds) == 6
    group = _t(web, lambda t: t.standings(1))
    assert len(group.qualifiers) == 3 and no_show not in group.qualifiers
    assert group.rows[-1].player_id == no_show and group.rows[-1].decided_by == "no_show"
    rows = (await client.get("/groups.json")).json()["groups"][0]["rows"]
    mine = next(row for row in rows if row["player_id"] == no_show)
    assert not mine["qualified"] and mine["decided_by_short"] == "no vino (HGV 2.3.6)"
    assert any("su plaza pasa al siguiente del grupo" in line for line in mine["steps"])
    await walk_pages(client, web)


async def test_the_director_settles_a_disputed_game_and_adjusts_a_clock_through_the_forms(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    fake_table.play_to_running()
    await login(client)
    fake_table.apply("claim", {"side": "a", "winner": "a", "kind": 2})
    fake_table.apply("reject", {"side": "b"})  # disputed: the table calls the director
    web.poller.poll()
    page = (await client.get("/director/tables/3")).text
    assert 'data-key="settle_game" open' in page and "Resultado en disputa" in page
    assert _form_fields(page, "settle_game") == {"csrf", "table", "winner", "kind", "reason"}
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None
    form = {"csrf": csrf.group(1), "table": "3"}
    async with serving(fake_table):
        r = await client.post(
            "/director/actions/settle_game",
            data={**form, "winner": "a", "kind": "2", "reason": "lo vi: gammon"},
        )
        assert r.status_code == 303, r.text
        await _until(lambda: _live(web)["state"] == "between_games")
        live = web.hub.table("3") or {}
        assert live["score"] == {"a": 2, "b": 0}
        # The clock form: the same fields the page offers, through the table, back in the
        # table's own state report.
        web.poller.poll()
        page = (await client.get("/director/tables/3")).text
        assert _form_fields(page, "adjust_clock") == {"csrf", "table", "side", "seconds", "reason"}
        before = (web.hub.table("3") or {})["reserve"]["b"]
        r = await client.post(
            "/director/actions/adjust_clock",
            data={**form, "side": "b", "seconds": "45", "reason": "reloj mal puesto"},
        )
        assert r.status_code == 303, r.text
        await _until(lambda: (web.hub.table("3") or {})["reserve"]["b"] == before + 45)
    flash = (await client.get("/director/tables/3")).text
    assert "Hecho: ajustar reloj · 3 · B (B +45 s)." in flash
    log = [(e.action, e.outcome) for e in web.store.audit_log()][:2]
    assert log == [("adjust_clock", "ok"), ("settle_game", "ok")]
    await walk_pages(client, web)


async def test_a_correction_that_swaps_an_ultimo_chance_entrant_annuls_exactly_what_it_lists(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    make_tournament(web, 12)
    _play(web, "group")
    _play(web, "knockout", passes=2)  # play-ins, quarterfinals: every first match is decided
    web.desk.call(lambda club, now: club.tournament(TID).start_consolation(actor="test", now=now))
    other = FakeTable(web.hub, "4")
    web.hub.register_table("4")
    other.online()
    csrf = await login(client)
    async with serving(fake_table, other):
        for mid, table in (("UC-R1-1", "3"), ("UC-R1-2", "4")):
            assert (await act(client, csrf, "assign", match_id=mid, table=table)).is_success
        await _until(lambda: _live(web, "3")["state"] == _live(web, "4")["state"] == "assigned")
    for table in (fake_table, other):
        table.apply("press", {"side": "a"})
        table.apply("press", {"side": "b"})
    web.desk.sync()
    # KO-PI-1 flipped: its loser, now in Último Chance, won it; KO-QF-1 used the old winner.
    pi = _t(web, lambda t: t.match("KO-PI-1").result)
    r = await act(
        client,
        csrf,
        "correct_result",
        match_id="KO-PI-1",
        score_a=pi.score_b,
        score_b=pi.score_a,
        reason="firmaron al revés",
    )
    assert r.json()["conflict"] == "C1", r.text
    listed = (await client.get("/director/matches/KO-PI-1.json")).json()["conflicts"][0]["annuls"]
    assert listed and any(m.startswith("UC-") for m in listed)
    await walk_pages(client, web)
    async with serving(fake_table, other):
        r = await act(
            client,
            csrf,
            "resolve_conflict",
            conflict_id="C1",
            resolution="apply",
            expected=",".join(listed),
        )
        assert r.status_code == 200, r.text
        assert sorted(r.json()["annulled"]) == sorted(listed)
        held = {"UC-R1-1": "3", "UC-R1-2": "4"}
        freed = sorted(held[m] for m in listed if m in held)
        assert freed
        assert sorted(r.json()["released"]) == freed
        await _until(lambda: all(_live(web, x)["state"] == "idle" for x in freed))
    annulled = _t(web, lambda t: [t.matches[m] for m in listed if m in t.matches])
    assert all(m.table is None and m.result is None for m in annulled)
    await walk_pages(client, web)
    # The evening goes on: the desk hands a ready match to each freed table, one each.
    web.desk.auto_assign = True
    async with serving(fake_table, other):
        web.desk.sync()
        await _until(lambda: all(_live(web, x)["state"] == "assigned" for x in freed))
    given = _t(web, lambda t: {m.table: m.id for m in t.matches.values() if m.status == "assigned"})
    assert all(_live(web, x)["match_id"] == given[x] for x in freed)
    await walk_pages(client, web)


async def test_the_desk_records_the_assignments_it_sends_while_ultimo_chance_must_wait(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    # The desk tries to start Último Chance on every sync; the engine refuses until the first
    # knockout matches are decided, and that refusal reloads the club. The assignment made next
    # must land in the reloaded tournament, or the table plays a match the tournament never
    # gave it (and the desk would take it back as no longer that table's).
    make_tournament(web, 6)
    _play(web, "group")
    await login(client)
    web.desk.auto_assign = True
    async with serving(fake_table):
        assert web.desk.sync()
        await _until(lambda: _live(web)["state"] == "assigned")
        mid = _live(web)["match_id"]
        assert _t(web, lambda t: (t.match(mid).status, t.match(mid).table)) == ("assigned", "3")
        assert web.desk.release_stale() == []
        await walk_pages(client, web)


async def test_liberar_mesa_frees_a_table_holding_a_match_the_hub_never_gave_it(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    """A Pi that comes back with an old or foreign assignment (or a forged state): the table
    says it holds a match the hub never gave it; the director can free it, and is told why."""
    make_tournament(web, 6)
    csrf = await login(client)
    fake_table.apply(
        "assign",
        {"match_id": "AMISTOSO-9", "players": {"a": "Intrusa", "b": "Otro"}, "length": 3},
    )
    web.poller.poll()
    assert _live(web)["match_id"] == "AMISTOSO-9"
    async with serving(fake_table):
        r = await act(client, csrf, "release_table", table="3")
        assert r.status_code == 200, r.text
        assert "AMISTOSO-9: no la asignó el hub" in r.json()["message"]


async def test_a_long_list_of_what_apply_annuls_is_a_valid_confirmation(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    """A group correction can annul a whole knockout: the form posts every id it lists (here
    over 300 characters), and that list is read as ids, not refused as a too-long field."""
    make_tournament(web, 12)
    csrf = await login(client)
    listed = ",".join(f"KO-R32-{i}" for i in range(1, 33))
    assert len(listed) > 300
    r = await act(
        client, csrf, "resolve_conflict", conflict_id="C9", resolution="apply", expected=listed
    )
    assert r.status_code != 400 and "expected" not in r.text, r.text
    assert "C9" in r.json()["message"]  # the engine's answer: there is no such conflict
