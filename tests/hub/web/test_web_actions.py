"""The director's actions over HTTP: each one does what it says, or nothing and says why."""

from __future__ import annotations

import asyncio
import contextlib
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from mesa.hub.web.app import WebApp
from mesa.tournament.settings import TournamentSettings
from support.hubkit import NOW, TODAY, FakeTable, act, login, make_tournament, serving

pytestmark = pytest.mark.anyio


def _t(web: WebApp, fn: Any) -> Any:
    return web.desk.read(lambda club: fn(club.tournament("2025-03")))


async def test_from_creation_to_the_first_result(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    csrf = await login(client)
    r = await act(
        client,
        csrf,
        "create_tournament",
        name="Marzo",
        date="2025-03-07",
        id="2025-03",
        official=True,
        consolation=True,
    )
    assert r.status_code == 200, r.text
    bad = "nombre;puntos\nALBA;2,30\nBRUNO;x\n"
    r = await act(client, csrf, "import_ranking", csv=bad, year=2024, create_missing=True)
    assert r.status_code == 409 and "línea 3" in r.json()["message"]
    assert web.desk.read(lambda club: len(club.registry)) == 0  # nothing imported
    good = "nombre;puntos\nALBA;2,30\nBRUNO;1,34\nCARMEN;0,50\n"
    r = await act(client, csrf, "import_ranking", csv=good, year=2024, create_missing=True)
    assert r.status_code == 200
    ids = web.desk.read(lambda club: {p.name: p.id for p in club.registry})
    for name in ("ALBA", "BRUNO", "CARMEN"):
        assert (await act(client, csrf, "register_player", player_id=ids[name])).status_code == 200
    for name in ("DIEGO", "ELENA", "FÉLIX"):
        r = await act(client, csrf, "register_player", new_name=name)
        assert r.status_code == 200, r.text
    r = await act(client, csrf, "register_player", player_id=ids["ALBA"])
    assert r.status_code == 409 and "jugador repetido" in r.json()["message"]
    r = await act(client, csrf, "check_in", player_id=ids["ALBA"], present=True)
    assert r.status_code == 200
    page = (await client.get("/director/tournament")).text
    assert f'data-player="{ids["ALBA"]}" data-present="1"' in page
    assert "1 de 6 presentes" in page
    # Five are not here: the draw refuses until they are left out knowingly (or arrive).
    r = await act(client, csrf, "start_groups", seed=11, groups=2)
    assert r.status_code == 409 and r.json()["error"] == "preview_stale"
    assert (await act(client, csrf, "check_in_many", all=1)).status_code == 200
    r = await act(client, csrf, "start_groups", seed=11, groups=2)
    assert r.status_code == 200
    # The ranking seeded the draw: ALBA (2,30) and BRUNO (1,34) head the two groups.
    groups = _t(web, lambda t: [list(g) for g in t.groups])
    assert groups[0][0] == ids["ALBA"] and groups[1][0] == ids["BRUNO"]
    ready = _t(web, lambda t: [m.id for m in t.ready_matches()])
    async with serving(fake_table):
        r = await act(client, csrf, "assign", match_id=ready[0], table="3")
        assert r.status_code == 200, r.text
        for _ in range(100):
            if fake_table.table.state == "assigned":
                break
            await asyncio.sleep(0.02)
    assert fake_table.table.s.match_id == ready[0]
    names = tuple(fake_table.table.s.players[s] for s in ("a", "b"))
    # The match is played at the table: the result reaches the standings by itself.
    fake_table.apply("press", {"side": "a"})
    fake_table.apply("press", {"side": "b"})
    for _ in range(3):
        fake_table.apply("press", {"side": "b"})  # b rolled lower: a is on move
        fake_table.apply("claim", {"side": "a", "winner": "a", "kind": 1})
        fake_table.apply("confirm", {"side": "b"})
    assert fake_table.table.state == "match_over"
    await asyncio.to_thread(web.desk.sync)
    m = _t(web, lambda t: t.match(ready[0]))
    assert (m.result.score_a, m.result.score_b, m.result.source) == (3, 0, "table")
    groups_json = (await client.get("/groups.json")).json()["groups"]
    row = next(r for g in groups_json for r in g["rows"] if r["name"] == names[0])
    assert row["wins"] == 1 and row["diff"] == 3
    actions = [e.action for e in reversed(web.store.audit_log())]
    assert actions[:3] == ["login", "create_tournament", "import_ranking"]
    assert "assign" in actions


async def test_a_correction_flows_into_the_standings_and_is_audited(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    make_tournament(web, 6)
    csrf = await login(client)
    a = _t(web, lambda t: t.match("G1-1").a)
    assert (
        await act(client, csrf, "record_result", match_id="G1-1", score_a=3, score_b=1)
    ).status_code == 200
    r = await act(
        client, csrf, "correct_result", match_id="G1-1", score_a=1, score_b=3, expected="3-1"
    )
    assert r.status_code == 400 and "motivo" in r.json()["message"]
    r = await act(
        client,
        csrf,
        "correct_result",
        match_id="G1-1",
        score_a=1,
        score_b=3,
        expected="3-1",
        reason="acta mal rellenada",
    )
    assert r.status_code == 200, r.text
    rows = (await client.get("/groups.json")).json()["groups"][0]["rows"]
    assert next(x for x in rows if x["player_id"] == a)["wins"] == 0
    entry = web.store.audit_log(action="correct_result")[0]
    assert (entry.user, entry.reason, entry.outcome, entry.target) == (
        "director",
        "acta mal rellenada",
        "ok",
        "G1-1",
    )
    assert entry.detail == "3-1 → 1-3"
    page = (await client.get("/director/audit")).text
    assert "acta mal rellenada" in page and "corregir resultado" in page


async def test_two_directors_editing_the_same_result(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    make_tournament(web, 6)
    csrf1 = await login(client)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(web.asgi()), base_url="http://mesa.test"
    ) as other:
        web.store.set_password("ayudante", "otra-clave", cost=2**10)
        csrf2 = await login(other, "ayudante", "otra-clave")
        await act(client, csrf1, "record_result", match_id="G1-1", score_a=3, score_b=1)
        # Both open the correction form while the result reads 3-1 …
        for c in (client, other):
            assert 'name="expected" value="3-1"' in (await c.get("/director/matches/G1-1")).text
        r1 = await act(
            client,
            csrf1,
            "correct_result",
            match_id="G1-1",
            score_a=3,
            score_b=2,
            expected="3-1",
            reason="puntos mal sumados",
        )
        assert r1.status_code == 200
        # … the second one submits a form showing a result that is no longer there.
        r2 = await act(
            other,
            csrf2,
            "correct_result",
            match_id="G1-1",
            score_a=1,
            score_b=3,
            expected="3-1",
            reason="ganó el otro",
        )
        assert r2.status_code == 409
        assert "Otro director" in r2.json()["message"] and "3-2" in r2.json()["message"]
    r = _t(web, lambda t: t.match("G1-1").result)
    assert (r.score_a, r.score_b) == (3, 2)
    refused = web.store.audit_log(action="correct_result")[0]
    assert (refused.user, refused.outcome) == ("ayudante", "refused")


async def test_actions_on_a_finished_match_are_refused(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    make_tournament(web, 6)
    csrf = await login(client)
    await act(client, csrf, "record_result", match_id="G1-1", score_a=3, score_b=0)
    before = web.desk.version
    r = await act(client, csrf, "record_result", match_id="G1-1", score_a=0, score_b=3)
    assert r.status_code == 409 and "ya tiene resultado" in r.json()["message"]
    r = await act(client, csrf, "forfeit", match_id="G1-1", winner="b", reason="no vino")
    assert r.status_code == 409
    r = await act(client, csrf, "assign", match_id="G1-1", table="3")
    assert r.status_code == 409
    r = await act(client, csrf, "record_result", match_id="G1-2", score_a=2, score_b=2)
    assert r.status_code == 409 and "imposible" in r.json()["message"]
    assert web.desk.version == before
    # A table whose match is over takes no more clock commands: refused here, nothing sent.
    fake_table.play_to_running()
    fake_table.apply("director_forfeit", {"winner": "a"})
    web.poller.poll()
    sent = len(web.hub.store.commands("3"))
    r = await act(client, csrf, "pause", table="3")
    assert r.status_code == 409 and "ya terminó" in r.json()["message"]
    assert len(web.hub.store.commands("3")) == sent


async def test_table_commands_wait_for_the_tables_answer(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    fake_table.play_to_running()
    csrf = await login(client)
    async with serving(fake_table):
        r = await act(client, csrf, "pause", table="3", why="dispute")
        assert r.status_code == 200, r.text
        assert fake_table.table.state == "paused"
        card = (await client.get("/live.json")).json()["tables"][0]
        assert [b["kind"] for b in card["badges"]] == ["paused"]
        assert card["badges"][0]["why"] == "dispute"
        r = await act(client, csrf, "adjust_clock", table="3", side="a", seconds="-30")
        assert r.status_code == 400  # no reason given
        r = await act(
            client,
            csrf,
            "adjust_clock",
            table="3",
            side="a",
            seconds="-30",
            reason="reloj mal puesto",
        )
        assert r.status_code == 200
        assert fake_table.table.s.clock.reserve["a"] == pytest.approx(330.0)
        r = await act(
            client, csrf, "adjust_clock", table="3", side="a", seconds="-9999", reason="error"
        )
        assert r.status_code == 409 and "ajuste de reloj imposible" in r.json()["message"]
        r = await act(client, csrf, "resume", table="3")
        assert r.status_code == 200 and fake_table.table.state == "running"
        # The players call the director: the card raises the alarm until it is cleared.
        fake_table.apply("pause", {"reason": "director"})
        fake_table.apply("pause_button")  # (already paused: refused, changes nothing)
        fake_table.table.s.director_call = None
        fake_table.apply("resume")
        fake_table.apply("claim", {"side": "a", "winner": "a", "kind": 1})
        fake_table.apply("reject", {"side": "b"})
        web.poller.poll()
        card = (await client.get("/live.json")).json()["tables"][0]
        assert card["director_call"] == "disputed_result"
        assert card["badges"][0]["kind"] == "director"
        page = (await client.get("/director")).text
        assert 'data-call="1"' in page and "¡Llaman al director!" in page
        r = await act(client, csrf, "clear_call", table="3")
        assert r.status_code == 200
        web.poller.poll()
        card = (await client.get("/live.json")).json()["tables"][0]
        assert card["director_call"] is None
    log = [(e.action, e.outcome) for e in reversed(web.store.audit_log())][1:]
    assert log == [
        ("pause", "ok"),
        ("adjust_clock", "ok"),
        ("adjust_clock", "refused"),
        ("resume", "ok"),
        ("clear_call", "ok"),
    ]


async def test_a_table_that_does_not_answer(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    fake_table.play_to_running()
    web.command_wait = 0.3
    csrf = await login(client)
    r = await act(client, csrf, "pause", table="3")
    assert r.status_code == 202 and "aún no ha confirmado" in r.json()["message"]
    r = await act(client, csrf, "pause", table="77")
    assert r.status_code == 404 and "no existe" in r.json()["message"]
    fake_table.online("lost")
    web.poller.poll()
    r = await act(client, csrf, "pause", table="3")
    assert r.status_code == 409 and "no está conectada" in r.json()["message"]


async def test_bad_values_are_named(client: httpx.AsyncClient, web: WebApp) -> None:
    make_tournament(web, 6)
    csrf = await login(client)
    r = await act(client, csrf, "record_result", match_id="G1-1", score_a="tres", score_b=0)
    assert r.status_code == 400 and "«Puntos blancas»" in r.json()["message"]
    r = await act(client, csrf, "nonsense")
    assert r.status_code == 404
    r = await act(client, csrf, "create_tournament", name="X", date="31/12/2025")
    assert r.status_code == 400 and "«Fecha»" in r.json()["message"]


async def test_the_tie_break_dice(client: httpx.AsyncClient, web: WebApp) -> None:
    def setup(club: Any, now: Any) -> None:
        t = club.create_tournament(
            "2025-03", "Marzo", TODAY, settings=TournamentSettings(dice_by="director")
        )
        for name in ("ALBA", "BRUNO", "CARMEN"):
            club.register(t.id, club.registry.add_new(name).id, now=now)
        club.start(t.id, seed=3, now=now)
        for m in t.matches.values():  # a perfect circle: every criterion ties
            t.record_result(m.id, 3, 1, source="director", now=now)

    web.desk.call(setup)
    csrf = await login(client)
    page = (await client.get("/director")).text
    assert "Empates que se deciden a los dados" in page
    ties = (await client.get("/director.json")).json()["pending_dice"]
    assert len(ties) == 1 and len(ties[0]["players"]) == 3
    r = await act(
        client, csrf, "roll_dice", group=1, players=",".join(ties[0]["players"]), values="4,4"
    )
    assert r.status_code == 400
    r = await act(client, csrf, "roll_dice", group=1)  # the hub rolls, and records it
    assert r.status_code == 200, r.text
    groups = (await client.get("/groups.json")).json()["groups"]
    assert [row["decided_by"] for row in groups[0]["rows"]].count("dice") >= 2
    assert (await client.get("/draw.json")).json()["bracket"] is not None


async def test_sanction_move_unassign_and_close(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable, tmp_path: Path
) -> None:
    ids = make_tournament(web, 6)
    other = FakeTable(web.hub, "4")
    web.hub.register_table("4")
    other.online()
    csrf = await login(client)
    async with serving(fake_table, other):
        assert (await act(client, csrf, "assign", match_id="G1-1", table="3")).status_code == 200
        r = await act(client, csrf, "move", match_id="G1-1", table="4")
        assert r.status_code == 400  # a move needs a reason
        r = await act(client, csrf, "move", match_id="G1-1", table="4", reason="mesa rota")
        assert r.status_code == 200, r.text
        for _ in range(100):
            if other.table.state == "assigned" and fake_table.table.state == "idle":
                break
            await asyncio.sleep(0.02)
        assert other.table.s.match_id == "G1-1" and fake_table.table.state == "idle"
        # The move form offers only the other tables; a forged move to where it is says so.
        page = (await client.get("/director/matches/G1-1")).text
        move_form = page[page.index("/director/actions/move") :].split("</form>")[0]
        assert '<option value="3">3 ✓</option>' in move_form and 'value="4"' not in move_form
        r = await act(client, csrf, "move", match_id="G1-1", table="4", reason="otra vez")
        assert r.status_code == 409 and "ya está en la mesa 4" in r.text, r.text
        assert (await act(client, csrf, "unassign", match_id="G1-1")).status_code == 200
        for _ in range(100):
            if other.table.state == "idle":
                break
            await asyncio.sleep(0.02)
        assert other.table.state == "idle"
    victim = _t(web, lambda t: t.match("G2-1").a)
    r = await act(client, csrf, "sanction", player_id=victim, kind="left", reason="se marchó")
    assert r.status_code == 200
    assert _t(web, lambda t: t.withdrawals[victim].kind) == "left"
    r = await act(client, csrf, "close")
    assert r.status_code == 409  # not finished yet
    web.settings = type(web.settings)(**{**web.settings.__dict__, "publish_dir": tmp_path})
    web.desk.call(lambda club, now: _finish(club))
    r = await act(client, csrf, "close")
    assert r.status_code == 200, r.text
    assert (tmp_path / "2025-03" / "index.html").exists()
    assert "ASÍ QUEDÓ EL TORNEO" in (tmp_path / "2025-03" / "index.html").read_text()
    final = (await client.get("/final.json")).json()
    assert final["tournament"]["phase"] == "closed" and len(final["rows"]) == 6
    assert ids[0] in {r["player_id"] for r in final["rows"]}


def _finish(club: Any) -> None:
    from mesa.tournament.errors import TournamentError

    t = club.tournament("2025-03")
    rng = random.Random(4)
    for _ in range(200):
        if t.is_finished():
            return
        if t.knockout is not None and t.consolation is None:
            with contextlib.suppress(TournamentError):
                t.start_consolation(actor="test", now=NOW)
        for m in t.ready_matches():
            lo = rng.randint(0, m.length - 1)
            t.record_result(m.id, m.length, lo, source="director", now=NOW)


async def test_a_clock_adjustment_out_of_range_is_refused_at_the_hub(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    """A day at most, as the table itself allows: refused before anything is sent, the field
    named in the director's language."""
    fake_table.play_to_running()
    csrf = await login(client)
    sent = len(web.hub.store.commands("3"))
    r = await act(client, csrf, "adjust_clock", table="3", side="a", seconds="1e308", reason="r")
    assert r.status_code == 400 and "Segundos" in r.json()["message"]
    assert len(web.hub.store.commands("3")) == sent


# ── imposing the clock (HGV 2.4, 9.1.1, 7.6.2) ───────────────────────────────
async def _until(check: Any) -> None:
    for _ in range(150):
        if check():
            return
        await asyncio.sleep(0.02)
    assert check()


def _untimed_game(table: FakeTable) -> None:
    """An untimed 3-point match at the table, its first game under way (a on move)."""
    table.apply("assign", {"match_id": "G1-1", "players": {"a": "ALBA", "b": "BRUNO"},
                           "length": 3, "clock": None})
    table.play_to_running()


async def test_on_the_table_page_the_clock_imposed_during_a_game_starts_with_the_next(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    _untimed_game(fake_table)
    csrf = await login(client)
    page = (await client.get("/director/tables/3")).text
    assert "imponer reloj" in page and "vale desde el próximo juego" in page
    async with serving(fake_table):
        r = await act(client, csrf, "set_clock", table="3", preset="singles")
    assert r.status_code == 200, r.text
    said = r.json()
    assert said["note"] == "clock_next_game"
    assert "el reloj empieza con el próximo juego" in said["message"]
    assert fake_table.table.state == "running" and not fake_table.table.s.timed
    web.poller.poll()
    card = (await client.get("/live.json")).json()["tables"][0]
    assert card["clock_next"] == "on" and card["badges"][-1]["kind"] == "clock_next"
    assert "Reloj desde el próximo juego" in (await client.get("/director")).text
    fake_table.apply("claim", {"side": "a", "winner": "a", "kind": 1})
    fake_table.apply("confirm", {"side": "b"})  # 1-0: the clock starts, 6 − 1 min
    assert fake_table.table.s.timed and fake_table.table.s.clock.reserve == {"a": 300, "b": 300}
    web.poller.poll()
    page = (await client.get("/director/tables/3")).text
    assert "Mesa 3: imponer reloj · confirmado · desde el próximo juego" in page
    assert "Reloj desde el próximo juego" not in page  # applied: the badge is gone
    fake_table.apply("press", {"side": "b"})  # game 2, timed; the clock taken off waits too
    async with serving(fake_table):
        r = await act(client, csrf, "set_clock", table="3", preset="none")
    assert r.status_code == 200 and "se quita al terminar este juego" in r.json()["message"]
    assert fake_table.table.s.timed
    log = [(e.action, e.outcome) for e in reversed(web.store.audit_log())][1:]
    assert log == [("set_clock", "ok"), ("set_clock", "ok")]


async def test_on_the_match_page_the_clock_is_made_mandatory_and_the_table_told(
    hub: Any, fake_table: FakeTable
) -> None:
    """Under ``timed_matches = mandatory``: a ready match's clock becomes mandatory (its
    assignment carries it); a match at its table without a clock gets it from the next game;
    an assignment sent without one and not yet taken is sent again with it; a decided match
    is refused."""
    web = WebApp(hub, hub.settings.replace(director_password="tablero-verde", command_wait=2.0,
                                           auto_assign=False, timed_matches="mandatory"),
                 now=lambda: NOW)
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(web.asgi()),
                                     base_url="http://mesa.test") as client:
            make_tournament(web, 9)  # three groups: one match of each at once
            csrf = await login(client)
            async with serving(fake_table):
                # Playing at its table, untimed: pending from the next game, recorded too.
                assert (await act(client, csrf, "assign", match_id="G1-1",
                                  table="3")).status_code == 200
                await _until(lambda: fake_table.table.state == "assigned")
                assert fake_table.table.s.timed is False  # not a mandatory clock
                fake_table.play_to_running()
                await asyncio.to_thread(web.desk.sync)
                assert _t(web, lambda t: t.match("G1-1").status) == "playing"
                web.poller.poll()
                page = (await client.get("/director/matches/G1-1")).text
                assert "imponer reloj (" in page and "data-act=\"impose_clock\"" in page
                r = await act(client, csrf, "impose_clock", match_id="G1-1")
                assert r.status_code == 200, r.text
                assert "el reloj empieza con el próximo juego" in r.json()["message"]
                assert fake_table.table.state == "running" and not fake_table.table.s.timed
                assert fake_table.table.s.clock_order is not None
            clock = _t(web, lambda t: t.match("G1-1").clock)
            assert clock.mandatory and clock.reserve_s == 3 * 120
            page = (await client.get("/director/matches/G1-1")).text
            assert "Reloj obligatorio: 6:00 + 10 s" in page and 'data-act="impose_clock"' not in page
            # Ready: the clock is mandatory before the match goes out, so it goes out with it.
            ready = _t(web, lambda t: [m.id for m in t.ready_matches() if m.group == 2])[0]
            r = await act(client, csrf, "impose_clock", match_id=ready)
            assert r.status_code == 200 and r.json()["detail"] == "6:00 + 10 s"
            hub.register_table("4")
            r = await act(client, csrf, "assign", match_id=ready, table="4", confirm_table=True)
            assert r.status_code == 200, r.text
            given = next(a for a in hub.store.assignments() if a["table"] == "4")
            assert given["args"]["clock"] == {"reserve": 360.0, "delay": 10.0}
            # Assigned without a clock to a table that has not taken it: sent again with it.
            third = _t(web, lambda t: [m.id for m in t.ready_matches() if m.group == 3])[0]
            hub.register_table("5")
            assert (await act(client, csrf, "assign", match_id=third, table="5",
                              confirm_table=True)).status_code == 200
            first = next(a for a in hub.store.assignments() if a["table"] == "5")
            assert first["args"]["clock"] is None
            assert (await act(client, csrf, "impose_clock", match_id=third)).status_code == 200
            again = next(a for a in hub.store.assignments() if a["table"] == "5")
            assert again["txn"] != first["txn"] and again["args"]["clock"] is not None
            # Decided: refused, nothing changes.
            web.desk.call(lambda club, now: club.tournament("2025-03").record_result(
                third, 3, 0, source="director", now=now))
            r = await act(client, csrf, "impose_clock", match_id=third)
            assert r.status_code == 409 and r.json()["error"] == "already_decided"
            log = [(e.action, e.outcome) for e in reversed(web.store.audit_log())]
            assert [x for x in log if x[0] == "impose_clock"] == [
                ("impose_clock", "ok"), ("impose_clock", "ok"), ("impose_clock", "ok"),
                ("impose_clock", "refused")]
    finally:
        web.close()


async def test_a_move_onto_a_table_another_event_holds_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    # Two events on the evening's tables: the open's G1-1 at table 3, the novatos' at 4.
    make_tournament(web, 4)

    def novatos(club: Any, now: Any) -> None:
        club.create_tournament("nov", "Novatos", TODAY, category="novatos")
        for name in ("NOA", "NIL", "NUR", "NEL"):
            club.register("nov", club.registry.add_new(name, category="novatos").id, now=now)
        club.start("nov", seed=3, now=now)

    web.desk.call(novatos)
    other = FakeTable(web.hub, "4")
    web.hub.register_table("4")
    other.online()
    csrf = await login(client)
    async with serving(fake_table, other):
        r = await act(client, csrf, "assign", t="2025-03", match_id="G1-1", table="3")
        assert r.status_code == 200, r.text
        r = await act(client, csrf, "assign", t="nov", match_id="G1-1", table="4")
        assert r.status_code == 200, r.text
        r = await act(client, csrf, "move", t="2025-03", match_id="G1-1", table="4", reason="x")
        assert r.status_code == 409 and "ocupada" in r.text, r.text
        await asyncio.sleep(0.3)
        # Nothing moved, nothing withdrawn: table 3 still holds the open's G1-1.
        assert _t(web, lambda t: (t.match("G1-1").table, t.match("G1-1").status)) == (
            "3", "assigned",
        )  # fmt: skip
        assert fake_table.table.s.match_id == "G1-1" and fake_table.table.state != "idle"
        held = {a["table"]: a["args"] for a in web.hub.store.assignments()}
        assert held["3"] is not None and held["3"]["match_id"] == "G1-1"


async def test_the_clock_imposed_on_the_table_page_is_the_matchs_too(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    """Both "Imponer reloj" do the same: the table's one also records the match's clock as
    mandatory, so its pace, its flag and its page know it runs on the clock."""
    make_tournament(web, 6)

    def assign(club: Any, now: Any) -> str:
        t = club.tournament("2025-03")
        mid = sorted(m.id for m in t.ready_matches())[0]
        web.desk.publish_assignment(t, web.desk.assign_match(t, mid, "3", now, "d"), now)
        return mid

    mid = web.desk.call(assign)
    fake_table.serve()
    csrf = await login(client)
    async with serving(fake_table):
        r = await act(client, csrf, "set_clock", table="3", preset="singles")
    assert r.status_code == 200, r.text
    assert web.desk.read(lambda club: club.tournament("2025-03").match(mid).clock.mandatory)


async def test_a_move_whose_score_is_not_known_is_refused_unless_started_afresh(
    client: httpx.AsyncClient, web: WebApp, fake_table: FakeTable
) -> None:
    """A match under way at a table the hub cannot read: the move says so, changes nothing,
    and goes through only when the director chooses to start it again from 0–0."""
    make_tournament(web, 6)
    other = FakeTable(web.hub, "4")
    web.hub.register_table("4")
    other.online()
    csrf = await login(client)
    async with serving(fake_table, other):
        assert (await act(client, csrf, "assign", match_id="G1-1", table="3")).status_code == 200
        for _ in range(100):
            if fake_table.table.state == "assigned":
                break
            await asyncio.sleep(0.02)
    fake_table.apply("press", {"side": "a"})
    fake_table.apply("press", {"side": "b"})
    web.hub.store.clear_snapshot("3")  # the table's state is gone (a Pi replaced, say)
    web.desk.sync()
    assert _t(web, lambda t: t.match("G1-1").status) == "playing"
    async with serving(other):
        r = await act(client, csrf, "move", match_id="G1-1", table="4", reason="mesa rota")
        assert r.status_code == 409, r.text
        assert "no se sabe cómo va G1-1 en la mesa 3" in r.json()["message"]
        assert _t(web, lambda t: t.match("G1-1").table) == "3"  # nothing moved
        r = await act(client, csrf, "move", match_id="G1-1", table="4", reason="mesa rota",
                      from_zero=True)  # fmt: skip
        assert r.status_code == 200, r.text
        assert "3 → 4, empieza de 0–0" in r.json()["message"]
        for _ in range(100):
            if other.table.state == "assigned":
                break
            await asyncio.sleep(0.02)
    assert other.table.s.match_id == "G1-1" and other.table.s.resumed_game is None
