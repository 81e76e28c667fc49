"""The evening as the director lives it, in a real Chromium: the door (ranking file, a pasted
list, check-in by ticks and by card), the draw seen before it counts, a redraw, an offline
table, and the first run of a fresh hub. Screenshots go to ``docs/screenshots/door-*.png``.

The door of a 31-player evening is counted (clicks and page loads) and printed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.settings import HubSettings
from mesa.hub.web.app import WebApp
from mesa.hub.web.http.server import BackgroundServer
from support.harness import linked_sim, served_hub, wait_until
from support.hubkit import TODAY
from support.mosquitto import have_mosquitto
from support.shots import shot

pytestmark = [pytest.mark.browser, pytest.mark.broker]

ROOT = Path(__file__).resolve().parents[3]
PASSWORD = "clave-del-director"
RANKING_CSV = "nombre;puntos\n" + "".join(
    f"{n};{p}\n"
    for n, p in [
        ("MARÍA JOSÉ", "2,30"),
        ("ÁLVARO", "1,95"),
        ("BEGOÑA", "1,80"),
        ("CÉSAR", "1,62"),
        ("DOLORES", "1,40"),
        ("EUGENIO", "1,22"),
        ("FÁTIMA", "1,05"),
        ("GONZALO", "0,90"),
        ("HÉCTOR", "0,75"),
        ("IÑAKI", "0,60"),
    ]
)
DOOR_LIST = [
    "maria jose", "Alvaro", "begoña", "cesar", "Dolores", "EUGENIO", "fatima", "Gonzalo",
    "hector", "Iñaki", "Julia", "Kiko", "Lola", "Manolo", "Nuria", "Óscar", "Paco", "Quique",
    "Rocío", "Sara", "Tomás", "Úrsula", "Vicente", "Wences", "Ximena", "Yago", "Zoe",
    "Adela", "Bruno", "Carla", "Dámaso",
]  # fmt: skip
CARD = "04A1B2C3"


@dataclass
class Stack:
    hub: Hub
    web: WebApp
    server: BackgroundServer

    @property
    def url(self) -> str:
        return self.server.url.rstrip("/")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """A hub on a real Mosquitto with one table online (w1) and one known but offline (4)."""
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    tmp = tmp_path_factory.mktemp("door")
    with served_hub(tmp, ("w1",), director_password=PASSWORD) as h:
        sim = linked_sim(tmp / "w1.sqlite3", table="w1", port=h.broker.port)
        try:
            h.hub.register_table("4")
            cards = h.web.poller.cards
            assert wait_until(
                lambda: any(c["id"] == "w1" and c["link"] == "online" for c in cards.values()),
                10,
            )
            yield Stack(h.hub, h.web, h.server)
        finally:
            sim.stop()


class Counter:
    """The director's clicks and the page loads they cost."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.clicks = 0
        self.loads = 0
        page.on("load", self._loaded)

    def _loaded(self, _page: Any) -> None:
        self.loads += 1

    def click(self, selector: str, navigates: bool = False) -> None:
        self.clicks += 1
        if navigates:
            with self.page.expect_navigation():
                self.page.click(selector)
        else:
            self.page.click(selector)


def log_in(page: Any, stack: Stack) -> None:
    page.goto(stack.url + "/login")
    page.fill("input[name=user]", "director")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-form button[type=submit]")
    page.wait_for_url("**/director")


def test_the_door_and_the_draw_as_the_director_does_them(
    browser: Any, stack: Stack, tmp_path: Path
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    dialogs: list[str] = []
    page.on("dialog", lambda d: dialogs.append(d.message) or d.accept())
    log_in(page, stack)
    page.goto(stack.url + "/director/tournament")
    page.fill("#create-form input[name=name]", "Torneo de marzo")
    page.fill("#create-form input[name=date]", TODAY.isoformat())
    page.fill("#create-form input[name=id]", "2025-03")
    with page.expect_navigation():
        page.click("#create-form button[type=submit]")
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'live'")

    # ── the ranking file: the picker still works after the live refresh replaced the page ──
    page.evaluate("() => { document.getElementById('import-form').dataset.probe = 'old'; }")
    stack.web.bump()  # a check-in elsewhere: the page refreshes within a second
    page.wait_for_function(
        "() => document.getElementById('import-form').dataset.probe !== 'old'", timeout=5000
    )
    csv = tmp_path / "ranking.csv"
    csv.write_text(RANKING_CSV, encoding="utf-8")
    page.set_input_files("#import-form input[type=file]", str(csv))
    page.wait_for_function(
        "() => document.getElementById('ranking-csv').value.includes('MARÍA JOSÉ')"
    )
    stack.web.bump()  # another refresh while the form is filled: the form stays as it is
    page.wait_for_timeout(1500)
    assert "IÑAKI" in page.input_value("#ranking-csv")
    shot(page, "door-ranking-file", full=False)
    with page.expect_navigation():
        page.click("#import-form button[type=submit]")
    flashes = page.locator(".flash").all_inner_texts()
    assert any("Hecho" in f for f in flashes), (flashes, page.url)

    # ── the door, counted from here: the tournament page as the evening starts ──
    count = Counter(page)
    page.goto(stack.url + "/director/tournament#registration")
    count.loads = 1
    page.fill("#register-paste textarea[name=names]", "\n".join(DOOR_LIST))
    count.click("#register-paste button[type=submit]")
    page.wait_for_function("() => document.querySelectorAll('#entrants tbody tr').length === 31")
    assert "31 inscritos (21 nuevos en el registro)" in page.inner_text("#register-paste .result")
    shot(page, "door-registered")

    # The registry search filters as one types (accents ignored).
    stack.web.desk.call(lambda club, now: club.registry.add_new("ÑOÑO EXTRA"))
    stack.web.bump()
    page.wait_for_function("() => document.querySelector('#registry-list [data-name=\"ÑOÑO EXTRA\"]')")
    page.fill("#registry-search", "nono")
    visible = page.locator("#registry-list label:not([hidden])").all_inner_texts()
    assert [v.strip() for v in visible] == ["ÑOÑO EXTRA"]
    page.fill("#registry-search", "")

    # ── check-in: a card at the reader, then ticks ──
    pid = stack.web.desk.read(lambda club: club.registry.find_name("Zoe").id)  # type: ignore[union-attr]
    stack.web.desk.call(lambda club, now: club.registry.add_card(pid, CARD))
    page.click("#card-input")
    page.keyboard.type(CARD.lower())  # a USB reader types like a keyboard, then Enter
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('count-present').textContent.includes('1 de 31')")
    assert "Zoe: presente" in page.inner_text("#card-form .result")
    assert page.evaluate("() => document.activeElement.id") == "card-input"  # ready for the next
    page.keyboard.type("FFFF")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#card-form .result').textContent.includes('desconocida')")
    page.locator("#entrants").scroll_into_view_if_needed()
    scrolled = page.evaluate("() => window.scrollY")
    count.click("#entrants thead input[data-check-all]")
    absent = page.locator("#entrants tr", has_text="Dámaso").first
    absent.locator("input[type=checkbox]").click()
    count.clicks += 1
    # Where the page is when the button is pressed (the click itself scrolls to the button).
    page.locator("#mark-present").scroll_into_view_if_needed()
    scrolled = page.evaluate("() => window.scrollY")
    count.click("#mark-present")
    page.wait_for_function("() => document.getElementById('count-present').textContent.includes('30 de 31')")
    # no jump to the top (a line of messages above may move it a little)
    assert abs(page.evaluate("() => window.scrollY") - scrolled) < 100
    assert "Sin llegar: 1" in page.inner_text("#count-absent")
    assert count.loads == 1  # registering and checking in 30 reloaded nothing
    shot(page, "door-checked-in")

    # ── the draw, seen before it counts ──
    count.click("#see-draw", navigates=True)
    assert "Queda fuera 1" in page.inner_text("#left-out")
    assert "DÁMASO" in page.inner_text("#left-out").upper()
    assert "Entran 30 jugadores" in page.inner_text("#preview-summary")
    shot(page, "draw-preview")
    groups_seen = page.locator(".group-preview").count()
    assert groups_seen == 10
    count.click("#confirm-absent")
    count.click("#start-groups button[type=submit]", navigates=True)
    assert any("10 grupos" in f for f in page.locator(".flash").all_inner_texts())
    print(
        f"\nthe door of a 31-player evening: {count.clicks} clicks, {count.loads} page loads "
        "(register 31 from a pasted list, check in 30, preview, start groups)"
    )
    t = stack.web.desk.read(lambda club: club.tournament("2025-03"))
    assert len(t.entrants) == 30 and t.phase == "groups"

    # ── redraw while nothing is played (the question is asked first) ──
    seed_before = t.seed
    with page.expect_navigation():
        page.click("#redraw")
    page.wait_for_selector("#draw-undo")
    assert dialogs and "Sortear los grupos otra vez" in dialogs[-1]
    assert stack.web.desk.read(lambda club: club.tournament("2025-03").seed) != seed_before
    shot(page, "draw-made")

    # ── an offline table is marked, and asks before it is chosen ──
    page.goto(stack.url + "/director")
    row = page.locator("#ready tr[data-match]").first
    options = row.locator("select[name=table] option").all_inner_texts()
    assert any("4" in o and "desconectada" in o for o in options), options
    row.locator("select[name=table]").select_option("4")
    shot(page, "assign-offline", full=False)
    assert not errors, errors
    page.close()


def test_the_offline_table_confirmation_can_be_declined(browser: Any, stack: Stack) -> None:
    page = browser.new_page()
    log_in(page, stack)
    page.goto(stack.url + "/director")
    row = page.locator("#ready tr[data-match]").first
    match = row.get_attribute("data-match")
    row.locator("select[name=table]").select_option("4")
    asked: list[str] = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    row.locator("button[type=submit]").click()
    page.wait_for_timeout(300)
    assert asked == ["la mesa 4 está desconectada: ¿asignar igualmente?"]
    t = stack.web.desk.read(lambda club: club.tournament("2025-03"))
    assert t.match(match).table is None  # declined: nothing assigned
    page.once("dialog", lambda d: d.accept())
    with page.expect_navigation():
        page.locator(f"#ready tr[data-match='{match}'] button[type=submit]").click()
    assert stack.web.desk.read(lambda club: club.tournament("2025-03").match(match).table) == "4"
    page.close()


def test_a_fresh_hub_says_how_to_create_the_director(browser: Any, tmp_path: Path) -> None:
    hub = Hub(HubSettings(db=tmp_path / "fresh.sqlite3"))
    web = WebApp(hub, hub.settings.replace(auto_assign=False))
    server = BackgroundServer(web).start()
    try:
        page = browser.new_page(viewport={"width": 1000, "height": 700})
        page.goto(server.url.rstrip("/") + "/login")
        assert "mesa director-password" in page.inner_text("#no-director")
        page.click("#no-director a")
        page.wait_for_url("**/first-run")
        assert page.locator("input[name=code]").count() == 0  # this machine needs no code
        assert page.locator(".director-bar").count() == 0  # nobody is logged in yet
        shot(page, "first-run", full=False)
        page.fill("input[name=user]", "ana")
        page.fill("input[name=password]", "una-clave-larga")
        page.fill("input[name=again]", "una-clave-larga")
        with page.expect_navigation():
            page.click("#first-run-form button[type=submit]")
        assert "Director ana creado" in page.inner_text("main")
        page.goto(server.url.rstrip("/") + "/first-run")
        assert page.locator("#first-closed").count() == 1
        page.close()
    finally:
        server.stop()
        web.close()
        hub.close()


def _finish_groups_and_draw(stack: Stack, tid: str) -> None:
    """What the tables would report, at once: every ready match played (the director does
    nothing here; the clicks counted are the director's own)."""
    import random
    from datetime import datetime, timedelta

    rng = random.Random(31)

    def play(club: Any, now: datetime) -> None:
        t = club.tournament(tid)
        for _ in range(500):
            ready = [m for m in t.ready_matches() if m.table is None]
            if not ready or t.is_finished():
                break
            for m in ready:
                loser = rng.randint(0, m.length - 1)
                score = (m.length, loser) if rng.random() < 0.5 else (loser, m.length)
                now += timedelta(minutes=1)
                t.record_result(m.id, *score, source="table", actor="table w1", now=now)
            if t.pending_dice():
                g, tie = t.pending_dice()[0]
                t.enter_dice(g, {p: i + 1 for i, p in enumerate(tie)}, actor="d", now=now)

    stack.web.desk.call(play)


def test_a_whole_31_player_evening_counted(browser: Any, stack: Stack, tmp_path: Path) -> None:
    """The evening a new director ran (issue 22), counted in the director's clicks (a select
    picked counts as one) and page loads: the ranking file, the door of 31 (one no-show), the
    draw, four interventions (a no-show sanctioned, a match given its table and moved, a clock
    imposed, a result corrected), the close and the final list's export."""
    tid = "2025-04"
    stack.hub.register_table("5")  # where the moved match goes (known, free)
    # (written on the ingest's thread: known once the store has it)
    assert wait_until(lambda: "5" in {r["table"] for r in stack.hub.store.tables()}, 15)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("dialog", lambda d: d.accept())
    log_in(page, stack)
    count = Counter(page)
    page.goto(stack.url + "/director/tournament")
    page.fill("#create-form input[name=name]", "Torneo de abril")
    page.fill("#create-form input[name=date]", TODAY.isoformat())
    page.fill("#create-form input[name=id]", tid)
    count.click("#create-form button[type=submit]", navigates=True)
    # The new tournament's page refreshes itself once live: pick the file after that (a file
    # picked into the form the refresh replaces would be lost).
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'live'")
    page.evaluate("() => { document.getElementById('import-form').dataset.probe = 'old'; }")
    stack.web.bump()
    page.wait_for_function(
        "() => document.getElementById('import-form').dataset.probe !== 'old'", timeout=10000)
    csv = tmp_path / "ranking.csv"
    csv.write_bytes(RANKING_CSV.encode("cp1252"))  # saved by Excel
    count.clicks += 1  # "o elija un archivo" and the file picked
    page.set_input_files("#import-form input[type=file]", str(csv))
    page.wait_for_function("() => document.getElementById('ranking-csv').value.includes('IÑAKI')")
    count.click("#import-form button[type=submit]", navigates=True)
    page.fill("#register-paste textarea[name=names]", "\n".join(DOOR_LIST))
    count.click("#register-paste button[type=submit]")
    page.wait_for_function("() => document.querySelectorAll('#entrants tbody tr').length === 31")
    count.click("#entrants thead input[data-check-all]")
    page.locator("#entrants tr", has_text="Dámaso").first.locator("input[type=checkbox]").click()
    count.clicks += 1
    count.click("#mark-present")
    page.wait_for_function(
        "() => document.getElementById('count-present').textContent.includes('30 de 31')")
    count.click("#see-draw", navigates=True)
    count.click("#confirm-absent")
    count.click("#start-groups button[type=submit]", navigates=True)
    door = (count.clicks, count.loads)

    # ── 1. the no-show sanctioned (HGV 2.3.6) ──
    absent = stack.web.desk.read(lambda club: club.registry.find_name("Dámaso").id)  # type: ignore[union-attr]
    form = page.locator("#sanction form")
    form.locator("select[name=player_id]").select_option(absent)
    form.locator("select[name=kind]").select_option("no_show")
    count.clicks += 2
    form.locator("input[name=reason]").fill("confirmó y no vino")
    count.click("#sanction form button[type=submit]", navigates=True)
    assert "HGV 2.3.6" in " ".join(page.locator(".flash").all_inner_texts())
    # ── 2. a ready match given a table by hand, then moved (its table's light failed) ──
    page.goto(stack.url + f"/director?t={tid}")
    row = page.locator("#ready tr[data-match]").first
    match = row.get_attribute("data-match")
    row.locator("select[name=table]").select_option("w1")
    count.clicks += 1
    with page.expect_navigation():
        row.locator("button[type=submit]").click()
    count.clicks += 1
    move = page.locator("#move-form")
    offered = move.locator("select[name=table] option:not([disabled])")
    # Any table the form offers (busy ones are listed but cannot be chosen); the other open
    # tournament's ready matches may take a free table meanwhile: then one more is known.
    for spare in ("6", "7", "8"):
        page.goto(stack.url + f"/director/matches/{match}?t={tid}")
        if offered.count():
            break
        stack.hub.register_table(spare)
        assert wait_until(lambda s=spare: s in {r["table"] for r in stack.hub.store.tables()}, 15)
    free = offered.first.get_attribute("value")
    assert free and free != "w1"
    move.locator("select[name=table]").select_option(free)
    count.clicks += 1
    move.locator("input[name=reason]").fill("sin luz")
    count.click("#move-form button[type=submit]", navigates=True)
    assert f"w1 → {free}" in " ".join(page.locator(".flash").all_inner_texts())
    # ── 3. a clock imposed on a slow match ──
    count.click("button[data-act=impose_clock]", navigates=True)
    assert stack.web.desk.read(lambda club: club.tournament(tid).match(match).clock.mandatory)
    # ── 4. a group result corrected after the tables reported it ──
    stack.web.desk.call(lambda club, now: club.tournament(tid).unassign(match, actor="d", now=now))
    _finish_groups_and_draw(stack, tid)
    page.goto(stack.url + f"/director/matches/{match}?t={tid}")
    form = page.locator("#correct-form")
    result = stack.web.desk.read(lambda club: club.tournament(tid).match(match).result)
    form.locator("input[name=score_a]").fill(str(result.score_b))
    form.locator("input[name=score_b]").fill(str(result.score_a))
    form.locator("input[name=reason]").fill("acta mal leída")
    count.click("#correct-form button[type=submit]", navigates=True)
    _finish_groups_and_draw(stack, tid)
    assert stack.web.desk.read(lambda club: club.tournament(tid).is_finished())
    # ── the close and the final list's export ──
    page.goto(stack.url + f"/director/tournament?t={tid}")
    count.click("#close button[type=submit]", navigates=True)
    assert stack.web.desk.read(lambda club: club.tournament(tid).phase) == "closed"
    page.goto(stack.url + f"/exports?t={tid}")
    with page.expect_download() as got:
        page.click("a[href*='final.csv']")
    count.clicks += 1
    assert got.value.path() is not None
    print(f"\nthe 31-player evening: {count.clicks} director clicks, {count.loads} page loads "
          f"(the door and the draw: {door[0]} clicks, {door[1]} loads; four interventions, "
          "the close and the export)")
