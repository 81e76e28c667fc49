"""A domino director in a real browser, both formats: create the event, register six pairs (or
eight players) from the registry in one form, start a round, call "TIEMPO" (one confirmation),
a late arrival, talking escalated by the records (the partner's second time: −75 to both), a
chivo fined with the hand annulled at the table; the standings with each player's record;
"Cerrar el torneo" asks first; every page fits a 390 px phone. The director's clicks and page
loads are counted and printed.

Headless Chromium (Playwright) against the dashboard served by uvicorn; the hub on a real
Mosquitto; five real domino table runtimes (``SimTable``, no robots: the test presses for the
players) with their real hub links.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from mesa.controller.app import make_link
from mesa.controller.sim import SimTable
from mesa.engine.inputs import Input
from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from mesa.hub.web.http.server import BackgroundServer
from support.harness import hub_settings, wait_until
from support.mosquitto import have_mosquitto, start_broker, table_password
from support.shots import shot

pytestmark = [pytest.mark.browser, pytest.mark.broker]

PASSWORD = "clave-del-director"
TABLES = ("d1", "d2", "d3", "d4", "d5")
# Accented capitals first in the registry (they were sorted after Z): Á with A, Í with I…
PAIRS_NAMES = ["ÓSCAR", "ZOE", "ÁLVARO", "BEATRIZ", "ÍÑIGO", "CARLOS", "ÚRSULA", "MARTA",
               "NURIA", "ÑETE", "DAVID", "ELENA"]
OLD_PAIR = ["OLGA", "PACO"]  # registered the old way first: 3 clicks and a page load per pair
SOLO_NAMES = ["ÁNGELA", "FÉLIX", "GLORIA", "HÉCTOR", "IRENE", "JOSÉ", "LUCÍA", "RAÚL"]
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[tuple[WebApp, str, dict[str, SimTable]]]:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    tmp = tmp_path_factory.mktemp("domino-director")
    broker = start_broker(tmp / "broker", tables=TABLES)
    hub = Hub(hub_settings(tmp / "hub.sqlite3", broker)).start()
    web = WebApp(hub, hub.settings.replace(director_password=PASSWORD, auto_assign=False))
    server = BackgroundServer(web).start()
    sims = {}
    for tid in TABLES:
        def link(runtime: Any, snapshot: dict[str, Any], tid: str = tid) -> Any:
            return make_link(runtime, table_id=tid, host=broker.host, port=broker.port,
                             password=table_password(tid), outbox=tmp / f"{tid}.sqlite3",
                             snapshot=snapshot)

        sim = SimTable(tid, game="domino", robots=(), link=link)
        sim.start()
        sims[tid] = sim
    assert wait_until(lambda: sorted(web.domino.free_tables()) == list(TABLES), 20)

    def players(club: Any, now: datetime) -> None:
        for n in PAIRS_NAMES + OLD_PAIR + SOLO_NAMES:
            club.registry.add_new(n)

    web.desk.call(players)
    yield web, server.url.rstrip("/"), sims
    for sim in sims.values():
        sim.stop()
    server.stop()
    web.close()
    hub.stop()
    broker.stop()


class Director:
    """The director's browser: every click counted (opening a page counts as one), every page
    load counted, every confirmation asked noted (``refuse`` names the ones dismissed)."""

    def __init__(self, page: Any, url: str) -> None:
        self.page = page
        self.url = url
        self.clicks = 0
        self.loads = 0
        self.dialogs: list[str] = []
        self.refuse = ""
        self.registering = (0, 0)  # clicks and page loads of the registration alone
        self.one_pair = (0, 0)  # of one pair registered the old way
        page.on("load", lambda _p: setattr(self, "loads", self.loads + 1))
        page.on("dialog", self._dialog)

    def _dialog(self, d: Any) -> None:
        self.dialogs.append(d.message)
        if self.refuse and d.message.startswith(self.refuse):
            d.dismiss()
        else:
            d.accept()

    def open(self, path: str) -> None:
        self.clicks += 1
        self.page.goto(self.url + path)
        self.settle()

    def settle(self) -> None:
        self.page.wait_for_function(
            "() => document.getElementById('conn').dataset.state === 'live'")
        self.page.wait_for_timeout(200)

    def click(self, selector: str, navigates: bool = False) -> None:
        self.clicks += 1
        if navigates:
            with self.page.expect_navigation():
                self.page.click(selector)
            self.settle()
        else:
            self.page.click(selector)

    def choose(self, selector: str, value: str) -> None:
        self.clicks += 1
        self.page.select_option(selector, value)

    def answer(self, form: str, text: str) -> str:
        """The answer a form posted by script shows under it (the page is not reloaded)."""
        self.page.wait_for_function(
            "([f, t]) => { const r = document.querySelector(f + ' .result');"
            " return r && r.textContent.includes(t); }", arg=[form, text], timeout=15000)
        return str(self.page.inner_text(f"{form} .result"))


def _login(page: Any, url: str) -> None:
    page.goto(url + "/login")
    page.fill("input[name=user]", "director")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-form button[type=submit]")
    page.wait_for_url("**/director")


def _fits(page: Any, url: str) -> dict[str, int]:
    """Each domino page's width on a 390 px phone (the page's, and the standings' own)."""
    out = {}
    for path in (url.replace("/director/domino", "/domino"), url,
                 url.replace("/director/domino", "/domino/final/print")):
        page.goto(path)
        page.wait_for_selector("#domino-standings")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        table = page.evaluate("() => { const t = document.getElementById('domino-standings');"
                              " return t.scrollWidth - t.clientWidth; }")
        out[path.split("?")[0].removeprefix(url.split("/director")[0])] = width
        assert width <= PHONE["width"], (path, width)
        assert table <= 0, (path, "the standings scroll inside themselves", table)
    return out


def _run_event(browser: Any, room: tuple[WebApp, str, dict[str, SimTable]], fmt: str,
               names: list[str]) -> tuple[Director, str]:
    web, url, sims = room
    page = browser.new_page()
    _login(page, url)
    d = Director(page, url)
    # ── create, choosing the format ──
    d.open("/director/domino")
    page.fill("#domino-create input[name=name]", f"Dominó {fmt}")
    if fmt == "individual":
        d.click("#domino-create input[name=format][value=individual]")
    d.click("#domino-create button[type=submit]", navigates=True)
    tid = page.get_attribute("#domino-event", "data-event")
    assert page.get_attribute("#domino-event", "data-format") == fmt
    # registering on a phone: the registry's list fits too
    phone = browser.new_page(viewport=PHONE)
    _login(phone, url)
    phone.goto(f"{url}/director/domino?t={tid}")
    phone.wait_for_selector("#domino-pick")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    phone.close()
    # ── the registry in Spanish order: Á with A, Í with I, Ñ after N, Ó with O, Ú with U ──
    listed = page.locator("#domino-pick label").all_inner_texts()
    listed = [x.strip() for x in listed]
    mine = [n for n in listed if n in names]
    assert mine == sorted(names, key=lambda n: (n.translate(str.maketrans(
        "ÁÉÍÓÚ", "AEIOU")).replace("Ñ", "N~"), n)), listed
    if fmt == "pairs":
        # the old way, still there for a single pair: two lists and a button, a page load
        ids = web.desk.read(lambda club: {p.name: p.id for p in club.registry})
        clicks, loads = d.clicks, d.loads
        d.choose("#domino-register_pair select[name=a]", ids[OLD_PAIR[0]])
        d.choose("#domino-register_pair select[name=b]", ids[OLD_PAIR[1]])
        d.click("#domino-register_pair button[type=submit]", navigates=True)
        d.one_pair = (d.clicks - clicks, d.loads - loads)
    # ── registered in one form: tick in order, one click, no page load ──
    loads, clicks = d.loads, d.clicks
    for n in names:
        d.click(f"#domino-pick label[data-name='{n}'] input")
    if fmt == "pairs":
        forming = page.locator("#domino-forming li").all_inner_texts()
        assert forming[0] == f"{names[0]} / {names[1]}" and len(forming) == len(names) // 2
    d.click("#domino-register-many button[type=submit]")
    listing = "#domino-pairs li" if fmt == "pairs" else "#domino-players li"
    want = len(names) // 2 + 1 if fmt == "pairs" else len(names)
    page.wait_for_function(f"() => document.querySelectorAll('{listing}').length === {want}")
    assert d.loads == loads, "registering reloaded the page"
    d.registering = (d.clicks - clicks, d.loads - loads)
    registered = web.domino.read(
        lambda t: [p.names for p in t.pairs.values()] if fmt == "pairs"
        else [p.name for p in t.players.values()], tid)
    if fmt == "pairs":
        assert [list(x) for x in registered] == [OLD_PAIR] + [names[i:i + 2]
                                                              for i in range(0, 12, 2)]
    else:
        assert sorted(registered) == sorted(names)
    # ── the round and "TIEMPO": one confirmation ──
    d.click("#domino-start_round button[type=submit]", navigates=True)
    games = web.domino.read(lambda t: [(g.id, g.table, dict(g.seats)) for g in
                                       t.round_games()], tid)
    assert len(games) == (3 if fmt == "pairs" else 2)
    assert wait_until(lambda: all(sims[g[1]].runtime.view().state == "assigned"
                                  for g in games), 20)
    # each seat's player on the round's table: partners by seat (N with S, E with W)
    (gid, table, seats), (gid2, _table2, seats2) = games[0], games[1]
    player_names = web.domino.read(lambda t: t.player_names(), tid)
    row = page.locator(f".domino-round tr[data-game='{gid}']")
    assert player_names[seats["n"]] in row.locator("td[data-side=ns]").inner_text()
    assert player_names[seats["s"]] in row.locator("td[data-side=ns]").inner_text()
    asked = len(d.dialogs)
    d.click("#domino-tiempo button[type=submit]", navigates=True)
    assert len(d.dialogs) == asked + 1 and "TIEMPO" in d.dialogs[-1]  # asked once
    assert wait_until(lambda: all(sims[g[1]].runtime.view().state == "ready" for g in games), 20)
    assert "TIEMPO" in page.inner_text(".domino-round")
    # ── a late arrival at a game not begun: the first one is recorded ──
    late = player_names[seats2["e"]]
    d.click(f"#late-{gid2}-e button")
    said = d.answer(f"#late-{gid2}-e", late)
    assert f"primera llegada tarde: anotada a {late}, sin tantos" in said, said
    # ── talking: the record escalates (the partner's second time: −75 to each of the two) ──
    n, s = player_names[seats["n"]], player_names[seats["s"]]
    d.choose("#penalty-player", f"{gid}|{seats['n']}")
    d.choose("#penalty-reason", "talking")
    d.click("#penalty-fine")
    assert f"primera vez: −25 a {n}" in d.answer("#domino-penalty", "primera vez")
    d.choose("#penalty-player", f"{gid}|{seats['s']}")
    d.choose("#penalty-reason", "talking")
    d.click("#penalty-fine")
    said = d.answer("#domino-penalty", "segunda vez")
    assert f"segunda vez: −75 a {s} y a {n}" in said, said
    # ── a chivo in a hand: fined and the hand annulled at the table ──
    sim = sims[table]
    sim.runtime.submit(Input("press", {"seat": "n"}), sim.runtime.now())  # the hand begins
    assert wait_until(lambda: sim.runtime.view().state == "playing", 10)
    e = player_names[seats["e"]]
    d.choose("#penalty-player", f"{gid}|{seats['e']}")
    d.choose("#penalty-reason", "chivo")
    d.click("#penalty-annul")
    said = d.answer("#domino-penalty", "anulada")
    assert f"Chivo: −25 a {e}; mano anulada" in said, said
    assert wait_until(lambda: sim.runtime.view().state == "ready", 10)
    # ── the standings: each player's record (and each pair's sum) ──
    page.wait_for_function(
        "() => document.querySelector('#domino-penalties tbody tr') !== null")
    rows = {r.get_attribute("data-player"): r.locator("td").all_inner_texts()
            for r in page.locator("#domino-standings tr[data-player]").all()}
    fines = {pid: int(cells[5].replace("−", "-")) for pid, cells in rows.items()}
    assert fines[seats["n"]] == -100 and fines[seats["s"]] == -75 and fines[seats["e"]] == -25
    assert fines[seats2["e"]] == 0  # a first late arrival costs nothing
    if fmt == "pairs":
        pair = page.locator(f"#domino-standings tr.pair-row:has(+ tr[data-player='{seats['n']}'])")
        assert pair.locator("td").nth(5).inner_text() == "-175"
    # ── the audit in words: no JSON, no escaped accents, no ISO times ──
    audit = page.inner_text("#domino-audit")
    assert "segunda vez: −75 a" in audit and "TIEMPO de la ronda 1 a las" in audit
    assert not re.search(r"[{}]|\\u00|\d{4}-\d\d-\d\dT", audit), audit
    # ── "Cerrar el torneo" asks first: dismissed, nothing happens ──
    d.refuse = "¿Cerrar"
    asked, loads = len(d.dialogs), d.loads
    d.click("#domino-close button[type=submit]")
    page.wait_for_timeout(500)
    assert len(d.dialogs) == asked + 1 and d.dialogs[-1].startswith("¿Cerrar el torneo")
    assert d.loads == loads and web.domino.read(lambda t: t.phase, tid) == "playing"
    shot(page, f"domino-director-{fmt}")
    return d, tid


def test_a_director_runs_a_pairs_and_an_individual_round_at_a_phone_width(
    browser: Any, room: tuple[WebApp, str, dict[str, SimTable]],
) -> None:
    _web, url, _sims = room
    counts: dict[str, tuple[int, int]] = {}
    registering: dict[str, tuple[int, int]] = {}
    for fmt, names in (("pairs", PAIRS_NAMES), ("individual", SOLO_NAMES)):
        d, tid = _run_event(browser, room, fmt, names)
        counts[fmt] = (d.clicks, d.loads)
        registering[fmt] = d.registering
        if fmt == "pairs":
            assert d.one_pair == (3, 1)  # six pairs so: 18 clicks and 6 page loads
        phone = browser.new_page(viewport=PHONE)
        _login(phone, url)
        widths = _fits(phone, f"{url}/director/domino?t={tid}")
        phone.goto(f"{url}/domino?t={tid}")
        shot(phone, f"domino-standings-{fmt}-390")
        phone.close()
        d.page.close()
        if fmt == "pairs":
            print(f"\ndomino pairs: one pair the old way (two lists and a button): "
                  f"{d.one_pair[0]} clicks, {d.one_pair[1]} page load")
        print(f"\ndomino {fmt}: registering {len(names)} players: {d.registering[0]} clicks, "
              f"{d.registering[1]} page loads; the whole (open, create, register, a round, "
              f"TIEMPO, a late arrival, talking twice, a chivo with its hand annulled): "
              f"{d.clicks} clicks, {d.loads} page loads; at 390 px: {widths}")
    # registering is one form: the ticks and one click, no page load (before: 3 clicks and a
    # page load per pair, 18 and 6 for six pairs)
    assert counts["pairs"][1] <= 5 and counts["individual"][1] <= 5, counts
    assert registering["pairs"] == (13, 0) and registering["individual"] == (9, 0), registering
