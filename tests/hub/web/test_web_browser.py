"""Real-browser tests: headless Chromium (Playwright) against the dashboard served by uvicorn,
with the hub on a real Mosquitto and a real table runtime publishing over MQTT.

Screenshots of the main pages go to ``docs/screenshots/`` (linked from ``docs/dashboard.md``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from mesa.controller.sim import SimTable
from mesa.engine.inputs import Input
from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from mesa.hub.web.http.server import BackgroundServer
from support.harness import linked_sim, served_hub, wait_until
from support.hubkit import TODAY
from support.mosquitto import have_mosquitto
from support.shots import SHOTS, shot

pytestmark = [pytest.mark.browser, pytest.mark.broker]

ROOT = Path(__file__).resolve().parents[3]
PASSWORD = "clave-del-director"


@dataclass
class Stack:
    hub: Hub
    web: WebApp
    server: BackgroundServer
    table: SimTable

    @property
    def url(self) -> str:
        return self.server.url.rstrip("/")

    def submit(self, name: str, **args: Any) -> None:
        rt = self.table.runtime
        rt.submit(Input(name, args), rt.now())


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    tmp = tmp_path_factory.mktemp("browser")
    with served_hub(tmp, ("w1",), director_password=PASSWORD, command_wait=5.0) as h:
        sim = linked_sim(tmp / "w1.sqlite3", table="w1", port=h.broker.port)
        try:
            cards = h.web.poller.cards
            assert wait_until(
                lambda: any(c["id"] == "w1" and c["link"] == "online" for c in cards.values()),
                10,
            )
            yield Stack(h.hub, h.web, h.server, sim)
        finally:
            sim.stop()


def log_in(page: Any, stack: Stack) -> None:
    page.goto(stack.url + "/login")
    page.fill("input[name=user]", "director")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-form button[type=submit]")
    page.wait_for_url("**/director")


def submit(page: Any, selector: str) -> None:
    """Click a form's button and wait for the answer page (a POST, then its redirect)."""
    with page.expect_navigation():
        page.click(selector)
    flashes = page.locator(".flash").all_inner_texts()
    assert any(f.startswith("Hecho") or "afecta" in f for f in flashes), flashes


def state_is(table: str, state: str) -> str:
    return (
        f"() => {{ const c = document.getElementById('table-{table}');"
        f" return c !== null && c.dataset.state === '{state}'; }}"
    )


def test_the_director_logs_in_and_a_wrong_password_is_refused(browser: Any, stack: Stack) -> None:
    page = browser.new_page()
    page.goto(stack.url + "/director")
    page.wait_for_url("**/login?next=%2Fdirector")
    assert "Entrada del director" in page.inner_text("h1")
    page.fill("input[name=user]", "director")
    page.fill("input[name=password]", "mal")
    page.click("#login-form button[type=submit]")
    assert "Usuario o contraseña incorrectos" in page.inner_text("#login-error")
    shot(page, "login")
    page.fill("input[name=user]", "director")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-form button[type=submit]")
    page.wait_for_url("**/director")
    assert "Director: director" in page.inner_text(".director-bar")
    assert "Bienvenido, director." in page.inner_text("main")
    page.click("#logout")
    page.wait_for_url("**/live")
    assert page.locator("#login-link").count() == 1
    page.close()


def test_a_table_event_over_mqtt_reaches_the_grid_within_a_second(
    browser: Any, stack: Stack
) -> None:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(stack.url + "/live")
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'live'")
    assert page.locator("#table-w1").count() == 1
    assign = {
        "match_id": "X-1",
        "players": {"a": "ALBA", "b": "BRUNO"},
        "length": 3,
        "clock": {"preset": "singles"},
    }
    latencies = []
    steps: list[tuple[str, dict[str, Any], str]] = [
        ("assign", assign, "assigned"),
        ("press", {"side": "a"}, "checking_in"),
        ("press", {"side": "b"}, "between_games"),
        ("press", {"side": "b"}, "running"),
    ]
    for name, args, state in steps:
        t0 = time.monotonic()
        stack.submit(name, **args)
        page.wait_for_function(state_is("w1", state), timeout=1000)
        latencies.append(time.monotonic() - t0)
    print("latencies", [round(x, 3) for x in latencies])
    assert max(latencies) < 1.0, latencies
    card = page.locator("#table-w1")
    assert "ALBA" in card.inner_text() and "BRUNO" in card.inner_text()
    # The clock ticks in the browser from the last snapshot, with no new event.
    clock = card.locator("[data-clock][data-side=a] .delay")
    first = clock.inner_text()
    page.wait_for_function(
        "(t) => document.querySelector('#table-w1 [data-clock][data-side=a] .delay')"
        ".textContent !== t",
        arg=first,
        timeout=3000,
    )
    assert card.locator(".pname.on-move").inner_text().startswith("ALBA")
    # A pause shows its reason; the players' call for the director flashes until cleared.
    stack.submit("pause", reason="director")
    page.wait_for_function(
        "() => document.querySelector('#table-w1')?.dataset.call === '1'", timeout=1000
    )
    assert "calling" in (card.get_attribute("class") or "")
    assert "En pausa: llamada al director" in card.inner_text()
    assert "¡Llaman al director!" in card.inner_text()
    shot(page, "live-grid")
    assert errors == []
    page.close()


def test_the_director_answers_a_call_from_the_grid(browser: Any, stack: Stack) -> None:
    page = browser.new_page()
    log_in(page, stack)
    if stack.table.runtime.view().director_call is None:
        stack.submit("pause", reason="director")
    page.wait_for_function(
        "() => document.querySelector('#table-w1')?.dataset.call === '1'", timeout=3000
    )
    page.click("#sound")  # browsers play sound only after a click
    assert page.locator("#sound").is_disabled()
    shot(page, "director-call")
    page.click("#table-w1 [data-act=clear_call]")
    page.wait_for_function(
        "() => document.querySelector('#table-w1')?.dataset.call === '0'", timeout=6000
    )
    page.click("#table-w1 [data-act=resume]")
    page.wait_for_function(state_is("w1", "running"), timeout=6000)
    # The grid may show the table running a moment before the action's answer is logged.
    assert wait_until(
        lambda: [e.action for e in stack.web.store.audit_log()][:2] == ["resume", "clear_call"], 5
    )
    page.close()


def test_a_lost_connection_reconnects_and_catches_up(browser: Any, stack: Stack) -> None:
    page = browser.new_page()
    page.goto(stack.url + "/live")
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'live'")
    # The server drops every stream; while the browser is away the table moves on.
    stack.web.loop.call_soon_threadsafe(stack.web.drop_streams)
    stack.submit("pause", reason="fallen_die")
    page.wait_for_function(state_is("w1", "paused"), timeout=5000)
    assert "dado caído" in page.inner_text("#table-w1")
    # The network itself goes away and comes back.
    page.context.set_offline(True)
    stack.submit("resume")
    time.sleep(0.5)
    page.context.set_offline(False)
    page.wait_for_function(state_is("w1", "running"), timeout=20000)
    page.close()


def _tournament(stack: Stack) -> None:
    def run(club: Any, now: datetime) -> None:
        if "2025-03" in club.tournaments:
            return
        t = club.create_tournament("2025-03", "Marzo", TODAY)
        for name in ("ALBA", "BRUNO", "CARMEN", "DIEGO", "ELENA", "FÉLIX"):
            club.register(t.id, club.registry.add_new(name).id, now=now)
        club.start(t.id, seed=7, now=now)
        for m in sorted(t.matches_in("group"), key=lambda m: m.id):
            if m.id != "G1-1":
                t.record_result(m.id, 3, 1, source="director", now=now)

    stack.web.desk.call(run)


def test_a_correction_flows_into_the_standings_and_the_bracket(browser: Any, stack: Stack) -> None:
    _tournament(stack)
    page = browser.new_page()
    log_in(page, stack)
    # Record the last group match, then correct it: the standings follow.
    page.goto(stack.url + "/director/matches/G1-1")
    page.fill("input[name=score_a]", "3")
    page.fill("input[name=score_b]", "0")
    submit(page, "text=anotar resultado")
    g = stack.web.desk.read(lambda club: club.tournament("2025-03").match("G1-1"))
    white = g.a
    names = stack.web.desk.read(lambda club: {p.id: p.name for p in club.registry})
    page.goto(stack.url + "/groups")
    wins_before = int(page.locator(f"#group-1 tr[data-player={white}] td.wins").inner_text())
    assert wins_before >= 1  # the 3-0 just recorded counts
    page.goto(stack.url + "/director/matches/G1-1")
    page.fill("#correct-form input[name=score_a]", "1")
    page.fill("#correct-form input[name=score_b]", "3")
    page.fill("#correct-form input[name=reason]", "acta firmada al revés")
    submit(page, "#correct-form button[type=submit]")
    body = page.inner_text("main")
    if "Correcciones pendientes" in body or "afecta a partidas posteriores" in body:
        # The draw was already made from the old standings: apply and redraw.
        page.goto(stack.url + "/director")
        submit(page, "text=Aplicar y anular lo afectado")
    page.goto(stack.url + "/groups")
    assert int(page.locator(f"#group-1 tr[data-player={white}] td.wins").inner_text()) == (
        wins_before - 1
    )
    assert "1–3" in page.locator("#group-1 tr[data-match=G1-1]").inner_text()
    shot(page, "groups")
    # A knockout result and its correction: the bracket advances the right player.
    ko = stack.web.desk.read(
        lambda club: sorted(
            m.id for m in club.tournament("2025-03").ready_matches() if m.phase == "knockout"
        )
    )[0]
    page.goto(stack.url + f"/director/matches/{ko}")
    page.fill("input[name=score_a]", "5")
    page.fill("input[name=score_b]", "2")
    submit(page, "text=anotar resultado")
    m = stack.web.desk.read(lambda club: club.tournament("2025-03").match(ko))
    page.goto(stack.url + "/draw")
    assert page.locator(f".bmatch[data-match={ko}] .slot.win").inner_text().find(names[m.a]) >= 0
    page.goto(stack.url + f"/director/matches/{ko}")
    page.fill("#correct-form input[name=score_a]", "2")
    page.fill("#correct-form input[name=score_b]", "5")
    page.fill("#correct-form input[name=reason]", "ganó el otro jugador")
    submit(page, "#correct-form button[type=submit]")
    page.goto(stack.url + "/draw")
    winner = page.locator(f".bmatch[data-match={ko}] .slot.win").inner_text()
    assert names[m.b] in winner and names[m.a] not in winner
    nxt = stack.web.desk.read(
        lambda club: next(
            x
            for x in club.tournament("2025-03").matches_in("knockout")
            if x.sources and any(s.ref == ko for s in x.sources)
        )
    )
    assert names[m.b] in page.locator(f".bmatch[data-match={nxt.id}]").inner_text()
    shot(page, "draw")
    page.goto(stack.url + "/director/audit")
    assert "ganó el otro jugador" in page.inner_text("#audit")
    shot(page, "audit")
    page.close()


def test_the_public_view_needs_no_login_and_refuses_every_action(
    browser: Any, stack: Stack
) -> None:
    from mesa.hub.web.games.backgammon import ACTIONS

    _tournament(stack)
    context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
    page = context.new_page()
    for path, text in (
        ("/live", "Mesas en vivo"),
        ("/groups", "Grupo 1"),
        ("/draw", "Cuadro final"),
        ("/rankings", "Rankings"),
        ("/final", "ASÍ QUEDÓ EL TORNEO"),
    ):
        page.goto(stack.url + path)
        assert text in page.inner_text("main"), path
        assert page.locator("main form").count() == 0, path
    page.goto(stack.url + "/live")
    shot(page, "public-phone")
    before = stack.web.desk.read(lambda club: club.to_dict())
    for name in ACTIONS:
        r = page.request.post(
            stack.url + f"/director/actions/{name}",
            form={"table": "w1", "match_id": "G1-1", "reason": "x"},
            headers={"Accept": "application/json"},
        )
        assert r.status == 403, name
    assert stack.web.desk.read(lambda club: club.to_dict()) == before
    page.goto(stack.url + "/director/tournament")
    page.wait_for_url("**/login?next=*")
    context.close()


def test_screenshots_of_the_main_pages(browser: Any, stack: Stack) -> None:
    """The rest of the main pages, from a whole demo tournament in accelerated time."""
    from mesa.hub.demo.run import Demo, DemoConfig

    demo = Demo(DemoConfig(port=0, speed=60.0)).start()
    try:
        assert wait_until(
            lambda: demo.web.desk.read(
                lambda club: (
                    club.tournament(datetime.now().date().isoformat()).consolation is not None
                )
            ),
            60,
        )
        url = demo.url.rstrip("/")
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(url + "/live")
        page.wait_for_function(
            "() => document.querySelectorAll('.card.st-running, .card.st-between_games')"
            ".length > 0",
            timeout=10000,
        )
        shot(page, "demo-live", full=False)
        page.goto(url + "/login")
        page.fill("input[name=user]", "director")
        page.fill("input[name=password]", demo.config.password)
        page.click("#login-form button[type=submit]")
        page.wait_for_url("**/director")
        shot(page, "director", full=False)
        for path, name in (
            ("/groups", "demo-groups"),
            ("/draw", "demo-draw"),
            ("/consolation", "consolation"),
            ("/rankings?kind=rating", "rankings-rating"),
            ("/rankings?kind=annual", "rankings-annual"),
            ("/final", "final"),
            ("/director/tournament", "tournament-admin"),
            ("/live?lang=en", "live-english"),
        ):
            page.goto(url + path)
            shot(page, name, full=name != "live-english")
        page.goto(url + "/lang/es?next=/players")
        pid = page.locator("#players tbody tr").first.get_attribute("data-player")
        page.goto(url + f"/players/{pid}")
        shot(page, "player")
        page.goto(url + "/draw/print?paper=A4")
        page.emulate_media(media="print")
        shot(page, "draw-print-a4")
        # The printable draw: the whole 24-player bracket on one landscape sheet, A4 or A3.
        for paper in ("A4", "A3"):
            page.goto(url + f"/draw/print?paper={paper}")
            pdf = page.pdf(prefer_css_page_size=True, print_background=True)
            (SHOTS / f"draw-{paper}.pdf").write_bytes(pdf)
            pages = re.findall(rb"/Type\s*/Page(?!s)", pdf)
            assert len(pages) == 1, (paper, len(pages))
            box = [float(x) for x in re.search(rb"/MediaBox\s*\[([^\]]+)\]", pdf).group(1).split()]  # type: ignore[union-attr]
            width_mm = (box[2] - box[0]) / 72 * 25.4
            assert abs(width_mm - {"A4": 297, "A3": 420}[paper]) < 2, width_mm
        page.close()
    finally:
        demo.stop()
