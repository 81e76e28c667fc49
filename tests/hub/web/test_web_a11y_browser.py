"""Every page of the dashboard passes axe-core (vendored in ``tests/support/vendor``) with no
serious or critical violation, in both languages, at a desktop's width and at a phone's, while a
demo evening plays (both rooms: backgammon's two categories and the domino room), the director
logged in so that the director's pages are checked too."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from support.browser import chromium, chromium_path
from support.harness import wait_until
from support.mosquitto import have_mosquitto

pytestmark = [pytest.mark.browser, pytest.mark.broker]

AXE = Path(__file__).parents[2] / "support" / "vendor" / "axe-core" / "axe.min.js"
PASSWORD = "clave-del-director"
SIZES = ((1280, 900), (390, 844))
LANGS = ("es", "en")
# What axe reports, as lines a person reads: the rule, its impact, how many nodes, where.
RUN = """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
    .filter(v => v.impact === "serious" || v.impact === "critical")
    .map(v => `${v.id} (${v.impact}) ×${v.nodes.length}: ` +
         v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | "))"""


def _pages(player: str, match: str | None) -> list[str]:
    public = ["/live", "/llamadas", "/groups", "/draw", "/consolation", "/final", "/rankings",
              "/rankings?kind=annual&category=novatos", "/players", f"/players/{player}",
              f"/players/{player}/next", "/domino", "/exports", "/players/qr"]
    director = ["/director", "/director/tournament", "/director/audit", "/director/domino",
                "/director/players", "/director/enrolments", "/director/tables/1"]
    if match:
        director.append(f"/director/matches/{match}")
    return public + director


def test_every_page_passes_axe_in_both_languages_and_sizes() -> None:
    if chromium_path() is None:
        pytest.skip("chromium not installed")
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    from mesa.hub.demo.run import Demo, DemoConfig

    demo = Demo(DemoConfig(port=0, speed=120.0, game="both", password=PASSWORD, history=False,
                           tables=4, players=12, novatos=4, domino_tables=2)).start()
    try:
        def some_match(club: Any) -> str | None:
            return next((m.id for t in club.tournaments.values() for m in t.matches.values()
                         if m.result is not None), None)

        assert wait_until(lambda: demo.web.desk.read(some_match) is not None, 60)
        player = demo.web.desk.read(lambda club: next(iter(club.registry)).id)
        pages = _pages(player, demo.web.desk.read(some_match))
        url = demo.url.rstrip("/")
        found: list[str] = []
        started = time.monotonic()
        with chromium() as browser:
            for width, height in SIZES:
                # The dashboard's CSP allows only its own scripts: axe is injected past it.
                ctx = browser.new_context(viewport={"width": width, "height": height},
                                          bypass_csp=True)
                page = ctx.new_page()
                page.goto(url + "/login")
                page.fill("input[name=user]", "director")
                page.fill("input[name=password]", PASSWORD)
                page.click("#login-form button[type=submit]")
                page.wait_for_url("**/director")
                for lang in LANGS:
                    for path in pages:
                        sep = "&" if "?" in path else "?"
                        page.goto(f"{url}{path}{sep}lang={lang}")
                        page.wait_for_load_state("domcontentloaded")
                        page.add_script_tag(path=str(AXE))
                        found += [f"{width}px {lang} {path}: {v}" for v in page.evaluate(RUN)]
                ctx.close()
        checked = len(pages) * len(LANGS) * len(SIZES)
        print(f"\naxe-core on {checked} pages in {time.monotonic() - started:.0f} s: "
              f"{len(found)} serious or critical")
        assert not found, "\n".join(found)
    finally:
        demo.stop()
