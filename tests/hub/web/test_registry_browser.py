"""Finding 1 of the club evening, in a real Chromium: a ranking saved by Spanish Excel
(Windows-1252) picked in the tournament page is read on the hub with its accents, previewed
before anything is created, and imported whole; a file already broken (U+FFFD) is refused with
its line; and the registry page renames, merges and removes players. Screenshots go to
``docs/screenshots/registry-*.png``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.settings import HubSettings
from mesa.hub.web.app import WebApp
from mesa.hub.web.http.server import BackgroundServer
from support.hubkit import TODAY
from support.legacy import add_legacy_player
from support.shots import shot

pytestmark = [pytest.mark.browser]

PASSWORD = "clave-del-director"
# The club's 2025 ranking as the evening's director saved it from Excel: 31 players, 27 of
# them with an accent or an ñ (each one a broken player before).
ACCENTED = [
    "JOSÉ LUIS MARTÍNEZ", "MARÍA JOSÉ", "ÁLVARO", "BEGOÑA", "CÉSAR", "FÁTIMA", "HÉCTOR", "IÑAKI",
    "JESÚS", "LUCÍA", "ÓSCAR", "RAMÓN", "SOFÍA", "TOMÁS", "ÚRSULA", "VÍCTOR", "ÁNGELA", "NÚÑEZ",
    "PEÑA", "CONCEPCIÓN", "ROCÍO", "INÉS", "ADRIÁN", "JOAQUÍN", "MÓNICA", "ELENA MUÑIZ", "RUBÉN",
]  # fmt: skip
PLAIN = ["DOLORES", "EUGENIO", "GONZALO", "PACO"]
NAMES = ACCENTED + PLAIN
EXCEL = (
    "Puesto;Nombre;Puntos\r\n"
    + "".join(f"{i};{n};{(310 - i * 7) / 100:.2f}\r\n".replace(".", ",") for i, n in enumerate(NAMES, 1))
).encode("cp1252")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebApp, str]]:
    """The dashboard on a hub with no tables (none is needed to keep the registry)."""
    tmp = tmp_path_factory.mktemp("registry")
    hub = Hub(HubSettings(db=tmp / "hub.sqlite3"))
    web = WebApp(hub, hub.settings.replace(director_password=PASSWORD, auto_assign=False))
    server = BackgroundServer(web).start()
    try:
        yield web, server.url.rstrip("/")
    finally:
        server.stop()
        web.close()
        hub.close()


def log_in(page: Any, url: str) -> None:
    page.goto(url + "/login")
    page.fill("input[name=user]", "director")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-form button[type=submit]")
    page.wait_for_url("**/director")


def names(web: WebApp) -> list[str]:
    return web.desk.read(lambda club: sorted(p.name for p in club.registry))


def test_an_excel_ranking_is_previewed_with_its_accents_then_imported_whole(
    browser: Any, served: tuple[WebApp, str], tmp_path: Path
) -> None:
    web, url = served
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    log_in(page, url)
    page.goto(url + "/director/tournament")
    page.fill("#create-form input[name=name]", "Torneo de marzo")
    page.fill("#create-form input[name=date]", TODAY.isoformat())
    page.fill("#create-form input[name=id]", "2026-03")
    with page.expect_navigation():
        page.click("#create-form button[type=submit]")
    page.wait_for_function("() => document.getElementById('conn').dataset.state === 'live'")
    page.wait_for_timeout(1500)  # the new event's first refresh has replaced the page

    # ── a file already broken by another program: refused, with its line, nothing filled ──
    broken = tmp_path / "roto.csv"
    broken.write_bytes("Nombre;Puntos\r\nJOS\ufffd LUIS;2,30\r\n".encode())
    page.set_input_files("#ranking-file", str(broken))
    page.wait_for_selector("#import-preview:not([hidden]) .summary.error")
    said = page.inner_text("#import-preview .summary")
    assert "la línea 2 tiene caracteres perdidos (�)" in said, said
    assert page.input_value("#ranking-csv") == ""
    assert names(web) == []

    # ── the Excel file: read on the hub as Windows-1252, every accent in the preview ──
    excel = tmp_path / "ranking-2025.csv"
    excel.write_bytes(EXCEL)
    page.set_input_files("#ranking-file", str(excel))
    page.wait_for_selector("#import-preview:not([hidden]) .summary.info")
    summary = page.inner_text("#import-preview .summary")
    assert "Archivo leído como Windows-1252. 31 filas: 0 en el registro, 31 nuevos." in summary
    first = page.locator("#import-preview tbody tr").all_inner_texts()
    assert len(first) == 10 and "JOSÉ LUIS MARTÍNEZ" in first[0] and "3,03" in first[0]
    assert "ELENA MUÑIZ" in page.inner_text("#import-preview .new-names")
    assert "JOSÉ LUIS MARTÍNEZ;3,03" in page.input_value("#ranking-csv")
    assert names(web) == []  # seen, not created
    page.type("#ranking-csv", "x")  # a preview says what one text does: changed, it goes
    assert page.is_hidden("#import-preview")
    page.keyboard.press("Backspace")
    assert page.input_value("#ranking-csv").endswith("\n")
    page.click("#import-form button[type=submit]")  # typed in: the preview again first
    page.wait_for_selector("#import-preview:not([hidden]) .summary.info")
    assert names(web) == []
    shot(page, "registry-import-preview")
    with page.expect_navigation():
        page.click("#import-form button[type=submit]")
    flashes = page.locator(".flash").all_inner_texts()
    assert any("Hecho" in f and "(31)" in f for f in flashes), flashes
    assert names(web) == sorted(NAMES)
    assert not any("\ufffd" in n or "Ã" in n for n in names(web))
    ranking = web.desk.read(lambda club: [e.name for e in club.season.bases[(date.today().year - 1, "open")].entries])
    assert ranking[:2] == ["JOSÉ LUIS MARTÍNEZ", "MARÍA JOSÉ"]

    # ── a pasted ranking: the first press shows the preview, the second imports ──
    page.fill("#ranking-csv", "nombre;puntos\nLUCÍA;4,00\nZOE NUEVA;0,10\n")
    page.fill("#import-form input[name=year]", str(date.today().year - 2))
    page.click("#import-form button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('#import-preview .summary').textContent.includes('2 filas: 1 en el registro, 1 nuevos.')"
    )
    assert "pulse «importar ranking» otra vez" in page.inner_text("#import-preview .summary")
    assert "ZOE NUEVA" not in names(web)
    with page.expect_navigation():
        page.click("#import-form button[type=submit]")
    assert "ZOE NUEVA" in names(web)
    assert errors == []


def test_the_registry_page_renames_merges_and_removes(
    browser: Any, served: tuple[WebApp, str]
) -> None:
    web, url = served

    def add(club: Any, now: Any) -> dict[str, str]:
        return {n: add_legacy_player(club, n) for n in ("JOS\ufffd ANTONIO", "RA\ufffdL", "Ã‘OÃ‘O")}

    made = web.desk.call(add)
    jose, raul, nono = made["JOS\ufffd ANTONIO"], made["RA\ufffdL"], made["Ã‘OÃ‘O"]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    dialogs: list[str] = []
    page.on("dialog", lambda d: dialogs.append(d.message) or d.accept())
    log_in(page, url)
    with page.expect_navigation():
        page.click("#nav-director-players")
    assert page.inner_text("h1") == "Jugadores del club"
    suspects = page.locator("#registry-rows tr.warn").count()
    assert suspects == 3
    shot(page, "registry-page")

    # rename: the row's own form
    row = f"#registry-rows tr[data-player='{jose}']"
    page.fill(f"{row} input[name=name]", "José Antonio")
    with page.expect_navigation():
        page.click(f"{row} .rename-form button")
    assert any("JOS\ufffd ANTONIO → José Antonio" in f for f in page.locator(".flash").all_inner_texts())
    # a name already taken: refused, with the reason
    page.fill(f"{row} input[name=name]", "jose luis martinez")
    with page.expect_navigation():
        page.click(f"{row} .rename-form button")
    said = " ".join(page.locator(".flash").all_inner_texts())
    assert "ya existe un jugador llamado JOSÉ LUIS MARTÍNEZ" in said, said

    # merge: RA�L into RUBÉN (asked first); the broken record disappears
    page.select_option("#merge-drop", raul)
    page.select_option("#merge-keep", label=next(
        o for o in page.locator("#merge-keep option").all_inner_texts() if o.startswith("RUBÉN")))
    with page.expect_navigation():
        page.click("#merge-form button[type=submit]")
    assert dialogs[-1].startswith("¿Unir este jugador con el elegido?")
    assert "RA\ufffdL" not in names(web)
    # the same player on both sides: refused with the reason
    page.select_option("#merge-drop", nono)
    page.select_option("#merge-keep", nono)
    with page.expect_navigation():
        page.click("#merge-form button[type=submit]")
    said = " ".join(page.locator(".flash").all_inner_texts())
    assert "un jugador no se puede unir consigo mismo" in said, said

    # remove: only a player without results has the button
    row = f"#registry-rows tr[data-player='{nono}']"
    with page.expect_navigation():
        page.click(f"{row} .remove-form button")
    assert "Ã‘OÃ‘O" not in names(web)
    assert dialogs[-1] == "¿Borrar este jugador del registro?"

    audit = [(e.action, e.outcome) for e in web.store.audit_log(limit=20)]
    assert ("merge_players", "ok") in audit and ("remove_player", "ok") in audit

    # English, selectable
    page.goto(url + "/lang/en")
    page.goto(url + "/director/players")
    assert page.inner_text("h1") == "Club players"
    assert page.locator("#merge-form button").inner_text().strip() == "Merge"
    assert errors == []
