"""A club evening of several events, as the director runs it in a real Chromium: the open and
the novatos categories on the same backgammon tables (BEA plays in both) and the domino room
beside them (ANA plays in the open and in the domino event), from the door to both final lists.

Headless Chromium (Playwright) against the dashboard served by uvicorn; the hub on a real
Mosquitto; three robot backgammon tables and one robot domino table (the real table runtimes
and hub links, :mod:`support.evening_tables`, :mod:`support.evening_domino`) in accelerated
time. The director's clicks are counted (a page opened from the address bar counts as one) and
printed. Screenshots of the director's grid at a phone's width (390 px) go to
``test-artifacts/screenshots/evening-phone-*.png`` (``docs/screenshots`` with
``MESA_SCREENSHOTS=1``).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from mesa.hub.broker.mosquitto import free_port
from mesa.hub.process import HubProcess
from mesa.hub.web.app import WebApp
from support.evening_domino import DominoTables
from support.evening_tables import RobotTable
from support.harness import hub_settings, wait_until
from support.mosquitto import have_mosquitto, start_broker
from support.shots import SHOTS, shot

pytestmark = [pytest.mark.browser, pytest.mark.broker]

PASSWORD = "clave-del-director"
SPEED = 120.0  # table seconds per wall second (slow enough to see both categories play)
TABLES = ("t1", "t2", "t3")
DOMINO = ("d1",)
OPEN, NOVATOS = "dic", "dic-novatos"
OPEN_PLAYERS = ["ANA", "BEA", "CARLOS", "DIANA", "ELOY", "FELI"]
NOVATOS_PLAYERS = ["GIL", "HUGO", "IRENE", "JUAN"]  # and BEA, of the open category
DOMINO_ONLY = ["LOLA", "MARIO", "NURIA"]  # and ANA
# The director's clicks for the whole evening, at most (the count is printed).
MAX_CLICKS = 60


@dataclass
class Evening:
    web: WebApp
    url: str
    tables: list[RobotTable] = field(default_factory=list)


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Evening]:
    """The hub as ``mesa hub`` runs it (:class:`HubProcess`: the desks, the dashboard, the
    desk's tick) on a real Mosquitto, and the robot tables."""
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    tmp = tmp_path_factory.mktemp("evening-browser")
    broker = start_broker(tmp / "broker", tables=TABLES + DOMINO)
    settings = hub_settings(
        tmp / "hub.sqlite3", broker, director_password=PASSWORD, auto_assign=True,
        time_scale=SPEED, command_wait=2.0, host="127.0.0.1", port=free_port(),
    )  # fmt: skip
    proc = HubProcess(settings).start()
    tables: list[RobotTable] = []
    domino = DominoTables(broker.port, tmp / "domino", SPEED, 5, tables=DOMINO)
    try:
        tables = [RobotTable(tid, broker.port, tmp / tid, SPEED, seed=5) for tid in TABLES]
        for t in tables:
            t.start()
        domino.start()
        web = proc.web
        assert web is not None
        cards = web.poller.cards
        assert wait_until(lambda: sum(c.get("link") == "online" for c in cards.values()) == 4, 20)
        yield Evening(web, proc.url.rstrip("/"), tables)
    finally:
        domino.stop()
        for t in tables:
            t.stop()
        proc.stop()
        broker.stop()


class Director:
    """The director's browser: every click counted (a page opened counts as one)."""

    def __init__(self, page: Any, url: str) -> None:
        self.page = page
        self.url = url
        self.clicks = 0
        self.dialogs: list[str] = []
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.accept()))
        self.navigations: list[str] = []
        page.on(
            "framenavigated",
            lambda f: self.navigations.append(f"{time.monotonic():.2f} {f.url}")
            if f == page.main_frame
            else None,
        )

    def open(self, path: str) -> None:
        self.clicks += 1
        self.page.goto(self.url + path)
        self.settle()

    def settle(self) -> None:
        """The page's live link up and its first refresh done (typing into a form the page is
        about to replace would be lost: the director waits for the page too)."""
        if self.page.locator("#conn").count():
            self.page.wait_for_function(
                "() => document.getElementById('conn').dataset.state === 'live'"
            )
        self.page.wait_for_timeout(300)

    def click(self, selector: str, navigates: bool = False) -> None:
        self.clicks += 1
        if navigates:
            try:
                with self.page.expect_navigation():
                    self.page.click(selector)
            except Exception:
                shot(self.page, "evening-failed")
                (SHOTS / "evening-failed.html").write_text(self.page.content())
                print("navigations:", *self.navigations[-8:], sep="\n  ")
                print("dialogs:", self.dialogs[-6:])
                print("content replaced:", self.page.evaluate("() => window.__log || []"))
                print("now", self.page.evaluate("() => Date.now() % 100000"))
                raise
        else:
            self.page.click(selector)

    def type(self, selector: str, text: str) -> None:
        """Typing into a field is not a click (choosing in a list is: :meth:`choose`)."""
        self.page.fill(selector, text)

    def choose(self, selector: str, value: str) -> None:
        self.clicks += 1
        self.page.select_option(selector, value)


def _event(d: Director, tid: str, name: str, category: str, names: list[str]) -> None:
    """Create an event, register its players from a pasted list, check them all in, see the
    draw, start the groups."""
    d.open("/director/tournament")
    page = d.page
    page.evaluate("""() => { window.__log = []; const c = document.getElementById('content');
      new MutationObserver(() => { const f = document.getElementById('create-form');
        window.__log.push([Date.now() % 100000, f && f.dataset.dirty, f && f.querySelector('input[name=name]').value,
          document.getElementById('conn').dataset.state]); }).observe(c, {childList: true}); }""")
    d.type("#create-form input[name=name]", name)
    d.type("#create-form input[name=id]", tid)
    if category != "open":
        d.choose("#create-form select[name=category]", category)
    d.click("#create-form input[name=consolation]")  # no Último Chance tonight
    # The page refreshes itself all evening long: what the director typed stays (a form with
    # a field named "id" once lost it at every refresh).
    page.wait_for_timeout(1000)
    assert page.input_value("#create-form input[name=name]") == name
    assert page.input_value("#create-form input[name=id]") == tid
    d.click("#create-form button[type=submit]", navigates=True)
    if page.locator("#register-paste").count() == 0:  # a hub that stays on the old event
        d.open(f"/director/tournament?t={tid}")
    d.type("#register-paste textarea[name=names]", "\n".join(names))
    if category != "open":
        d.click("#register-paste input[name=override]")  # BEA plays in the open category
    d.click("#register-paste button[type=submit]")
    page.wait_for_function(
        f"() => document.querySelectorAll('#entrants tbody tr').length === {len(names)}"
    )
    d.click("#all-present")
    page.wait_for_function(
        "(n) => document.getElementById('count-present').textContent.includes(n + ' de ' + n)",
        arg=len(names),
    )
    d.click("#see-draw", navigates=True)
    d.click("#start-groups button[type=submit]", navigates=True)


def _finished(web: WebApp, tid: str) -> bool:
    return bool(web.desk.read(lambda club: club.tournament(tid).is_finished()))


def test_two_categories_and_the_domino_room_from_the_door_to_the_final_lists(
    browser: Any, evening: Evening
) -> None:
    web = evening.web
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    d = Director(page, evening.url)
    d.open("/login")
    d.type("input[name=user]", "director")
    d.type("input[name=password]", PASSWORD)
    d.click("#login-form button[type=submit]")
    page.wait_for_url("**/director")
    start = time.monotonic()

    # ── the domino room's own players, into the registry from a ranking file ──
    d.open("/director/tournament")
    d.type("#ranking-csv", "nombre;puntos\n" + "".join(f"{n};0,10\n" for n in DOMINO_ONLY))
    d.click("#import-form button[type=submit]")  # the first press shows what it would create
    page.wait_for_selector("#import-preview:not([hidden]) tbody tr")
    d.click("#import-form button[type=submit]", navigates=True)

    # ── the open category: its door, its draw ──
    _event(d, OPEN, "Open de diciembre", "open", OPEN_PLAYERS)

    # ── the domino room: ANA (of the open) and three of its own ──
    ids = web.desk.read(lambda club: {p.name: p.id for p in club.registry})
    d.open("/director/domino")
    d.type("#domino-create input[name=name]", "Dominó de diciembre")
    d.click("#domino-create button[type=submit]", navigates=True)
    for a, b in (("ANA", "LOLA"), ("MARIO", "NURIA")):
        d.choose("#domino-register_pair select[name=a]", ids[a])
        d.choose("#domino-register_pair select[name=b]", ids[b])
        d.click("#domino-register_pair button[type=submit]", navigates=True)
    assert page.locator("#domino-pairs li").count() == 2

    # ── the domino round: refused while ANA plays backgammon, then confirmed; or started ──
    d.open("/director/domino")
    wait_until(lambda: _seated(web, ids["ANA"]), 30)  # ANA at a backgammon table, likely
    d.click("#domino-start_round button[type=submit]", navigates=True)
    refused = page.locator(".flash").all_inner_texts()
    late = False
    if web.domino.read(lambda t: t.current_round if t else 0) == 0:
        assert any("ANA" in f and "mesa" in f for f in refused), refused
        d.click("#domino-start_round input[name=confirm]")
        d.click("#domino-start_round button[type=submit]", navigates=True)
        late = True
    assert web.domino.read(lambda t: t.current_round if t else 0) == 1, page.inner_text("main")
    # While ANA's domino game is on, the backgammon desk calls her to no new match (the one
    # she was playing when the director confirmed the round may go on).
    before = _seats_of(web, ids["ANA"])
    watch = Watch(web, ids["ANA"])
    d.click("#domino-tiempo button[type=submit]", navigates=True)

    # ── the novatos category while the domino game is on: its door (BEA, of the open, too) ──
    _event(d, NOVATOS, "Novatos de diciembre", "novatos", ["BEA", *NOVATOS_PLAYERS])
    both = web.desk.read(
        lambda club: set(club.tournament(OPEN).entrants) & set(club.tournament(NOVATOS).entrants)
    )
    assert both == {ids["BEA"]}, "BEA is in both categories"

    # ── the grid on a phone, both categories playing ──
    assert wait_until(lambda: _playing_events(web) == {OPEN, NOVATOS}, 30), (
        _unfinished(web, OPEN),
        _unfinished(web, NOVATOS),
    )
    # The ready matches go to backgammon tables only: the domino room's is not offered.
    d.open("/director")
    assert page.locator("#ready select[name=table] option").count() > 0
    assert page.locator("#ready select[name=table] option[value=d1]").count() == 0
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    phone.goto(evening.url + "/login")
    phone.fill("input[name=user]", "director")
    phone.fill("input[name=password]", PASSWORD)
    phone.click("#login-form button[type=submit]")
    phone.wait_for_url("**/director")
    phone.wait_for_selector("#grid .card")
    shot(phone, "evening-phone-director")
    shot(phone, "evening-phone-director-top", full=False)
    # How wide the page really is on the phone (printed: the ready matches' table overflows).
    width = phone.evaluate("() => document.documentElement.scrollWidth")

    assert wait_until(watch.recorded, 60), "the domino game is played and recorded"
    seen = watch.stop()
    assert seen <= before, f"ANA called to {seen - before} during her domino game"
    d.open("/director/domino")
    d.click("#domino-close button[type=submit]", navigates=True)

    # ── both categories to the end; each closed from its own page ──
    for tid in (OPEN, NOVATOS):
        assert wait_until(lambda tid=tid: _finished(web, tid), 150), _unfinished(web, tid)
    for tid in (OPEN, NOVATOS):
        d.open(f"/director/tournament?t={tid}")
        d.click("#close button[type=submit]", navigates=True)
        assert web.desk.read(lambda club, tid=tid: club.tournament(tid).phase) == "closed", (
            tid,
            page.locator(".flash").all_inner_texts(),
        )

    # ── both final lists, each its own ──
    finals = {}
    for tid, players in ((OPEN, OPEN_PLAYERS), (NOVATOS, ["BEA", *NOVATOS_PLAYERS])):
        d.open(f"/final?t={tid}")
        text = page.inner_text("main")
        finals[tid] = text
        for name in players:
            assert name in text, (tid, name, text[:500])
    assert "CARLOS" not in finals[NOVATOS] and "GIL" not in finals[OPEN]
    d.open("/domino?t=D1")
    assert "ANA" in page.inner_text("main")
    print(
        f"\nan evening of two categories and the domino room: {d.clicks} director clicks "
        f"(domino round {'confirmed late' if late else 'started free'}), "
        f"{time.monotonic() - start:.0f} s; the director's page {width} px wide at 390 px; "
        f"{len(d.dialogs)} confirmations asked"
    )
    assert d.clicks <= MAX_CLICKS
    assert not errors, errors
    phone.close()
    page.close()


def _playing_events(web: WebApp) -> set[str]:
    """The events with a match at a table now."""
    return set(
        web.desk.read(
            lambda club: [
                t.id
                for t in club.tournaments.values()
                for m in t.matches.values()
                if m.status in ("assigned", "playing")
            ]
        )
    )


class Watch:
    """The backgammon matches ``player`` is seated in, sampled every 50 ms until stopped."""

    def __init__(self, web: WebApp, player: str) -> None:
        self.web = web
        self.player = player
        self.seen: set[tuple[str, str]] = set()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with contextlib.suppress(Exception):  # the hub stopped under it (a failed test)
            self._watch()

    def _watch(self) -> None:
        while not self._done.wait(0.05):
            seats = _seats_of(self.web, self.player)
            # Kept only if the domino game was still on when the seats were read (it ends
            # once; read after them): a match of the moment after it is hers to play.
            if not self.recorded():
                self.seen |= seats

    def recorded(self) -> bool:
        """The domino round's games all recorded."""
        return bool(
            self.web.domino.read(lambda t: all(g.status == "ended" for g in t.round_games()))
        )

    def stop(self) -> set[tuple[str, str]]:
        self._done.set()
        self._thread.join(5)
        return self.seen


def _seats_of(web: WebApp, player: str) -> set[tuple[str, str]]:
    """The backgammon matches (event, match) ``player`` is seated in now."""
    return set(
        web.desk.read(
            lambda club: [
                (t.id, m.id)
                for t in club.tournaments.values()
                for m in t.matches.values()
                if m.status in ("assigned", "playing") and player in m.players
            ]
        )
    )


def _seated(web: WebApp, player: str) -> bool:
    return bool(_seats_of(web, player))


def _unfinished(web: WebApp, tid: str) -> list[str]:
    return web.desk.read(
        lambda club: [
            f"{m.id}:{m.status}@{m.table}"
            for m in club.tournament(tid).matches.values()
            if m.status != "done"
        ]
    )
