"""Adopting a table from the dashboard, end to end inside one ``mesa hub`` process: a real
Mosquitto laid out as a venue's (TLS), the real Pi side (:class:`~mesa.controller.enrol.Enrolment`,
calling the dashboard's ``POST /enrol/hello``), the hub process with its enrolment desk and its
dashboard on a real server, the director over HTTP and in headless Chromium.

The browser test's screenshot goes to ``docs/screenshots/enrolment.png`` (``docs/dashboard.md``).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from mesa.controller.enrol import EnrolBundle, Enrolment
from mesa.controller.enrol_screen import show_pairing
from mesa.controller.sim import SimTable
from mesa.hub.broker.mosquitto import PrivateMosquitto, free_port
from mesa.hub.broker.tls import TlsFiles, ensure_venue_tls
from mesa.hub.process import HubProcess
from mesa.pairing import new_private_key
from support.harness import hub_settings, linked_sim, wait_until
from support.mosquitto import DESK_PASSWORD, have_mosquitto, start_venue_broker
from support.oled_text import read_code
from support.shots import SHOTS

pytestmark = pytest.mark.broker

PASSWORD = "clave-del-director"
TOKEN = "venue-enrolment-token"


@dataclass
class Venue:
    broker: PrivateMosquitto
    tls: TlsFiles
    process: HubProcess
    tmp: Path

    @property
    def url(self) -> str:
        return self.process.url.rstrip("/")

    def bundle(self) -> EnrolBundle:
        # The demo's plain HTTP dashboard (no CA): the pairing code protects the answer.
        return EnrolBundle(self.url, TOKEN)


class Pi:
    """A new table's Pi: announces itself (the real enrolment code), then, once adopted, runs
    a simulated table on the link file it was given (the real link, over TLS)."""

    def __init__(self, venue: Venue, serial: str, hwcheck: dict[str, str] | None = None) -> None:
        self.venue = venue
        self.serial = serial
        self.link_file = venue.tmp / serial / "table.json"
        self.enrolment = Enrolment(
            venue.bundle(),
            serial,
            self.link_file,
            new_private_key(),
            hwcheck or {"display": "ok", "card": "ok"},
            poll=0.3,
        )
        self.answer: list[Any] = []
        self.thread = threading.Thread(
            target=lambda: self.answer.append(self.enrolment.wait(60)), daemon=True
        )
        self.thread.start()
        self.table: SimTable | None = None

    @property
    def code(self) -> str:
        """The code as the director reads it: off the table's (simulated) screen."""
        from luma.core.device import dummy

        device = dummy(width=128, height=64, mode="1")
        show_pairing(device, self.enrolment.code, "es")
        return read_code(device.image)

    def adopted(self, timeout: float = 30) -> dict[str, Any]:
        self.thread.join(timeout)
        assert self.answer and self.answer[0] is not None, "the Pi got no answer"
        return dict(self.answer[0])

    def come_online(self) -> str:
        """What ``mesa-table.service`` does after enrolment: the table on its new account."""
        sim = linked_sim(
            self.venue.tmp / f"{self.serial}-outbox.sqlite3", link_file=str(self.link_file)
        )
        self.table = sim
        return sim.table_id

    def stop(self) -> None:
        self.enrolment.stop()
        if self.table is not None:
            self.table.stop()


def start_venue(tmp: Path) -> Venue:
    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    tls = ensure_venue_tls(tmp / "tls", hosts=["hub.local"])
    broker = start_venue_broker(tmp / "broker", tls.dir, tables=())
    desk_file = tmp / "enrolment.json"
    desk_file.write_text(
        json.dumps(
            {
                "db": "/nonexistent/the-hub-uses-its-own.sqlite3",
                "passwd_file": str(broker.passwd),
                "pid_file": str(broker.pid_file),
                "hub_host": "127.0.0.1",
                "hub_port": broker.tls_port,
                "tls_ca": tls.ca.read_text(),
                "broker_port": broker.port,
                "desk_password": DESK_PASSWORD,
                "enrol_token": TOKEN,
            }
        )
    )
    settings = hub_settings(
        tmp / "hub.sqlite3",
        broker,
        port=free_port(),
        director_password=PASSWORD,
        auto_assign=False,
        enrolment_credentials=desk_file,
    )
    try:
        process = HubProcess(settings).start()
    except BaseException:
        broker.stop()
        raise
    venue = Venue(broker, tls, process, tmp)
    assert process.enrolment is not None and process.enrolment.connected.wait(10)
    process.enrolment.every = 0.3  # new Pis call quickly (a test's patience)
    return venue


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[Venue]:
    v = start_venue(tmp_path)
    try:
        yield v
    finally:
        v.process.stop()
        v.broker.stop()


def director(venue: Venue) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=venue.url, timeout=30)
    r = client.post("/login", data={"user": "director", "password": PASSWORD})
    assert r.status_code == 303, r.text
    page = client.get("/director").text
    marker = 'data-csrf="'
    start = page.index(marker) + len(marker)
    return client, page[start : page.index('"', start)]


def online(venue: Venue, table: str) -> bool:
    web = venue.process.web
    return any(c["id"] == table and c["link"] == "online" for c in web.poller.current())


def test_the_director_adopts_a_new_pi_as_table_5_from_the_dashboard(venue: Venue) -> None:
    client, csrf = director(venue)
    assert "mesa-nueva" not in client.get("/director").text
    twin = client.get("/director/enrolments.json").json()["enrolment"]
    assert twin["enabled"] and twin["connected"] and twin["pending"] == []
    assert twin["refused"] == 0 and twin["occupants"] == {}
    pi = Pi(venue, "10000000abcdef05")
    try:
        # The announcement reaches the store and the live feed (the page's script refetches).
        web = venue.process.web
        assert wait_until(lambda: (web.feed.get("enrolment", "pending") or {}).get("count"), 15)
        pending = client.get("/director/enrolments.json").json()["enrolment"]["pending"]
        assert [p["serial"] for p in pending] == ["10000000abcdef05"]
        assert pending[0]["hwcheck"] == {"display": "ok", "card": "ok"} and pending[0]["hw_ok"]
        home = client.get("/director").text
        assert "Mesa nueva" in home and "10000000abcdef05" in home
        assert "pantalla: ok" in home and 'name="table"' in home and 'name="code"' in home
        assert pi.enrolment.code not in home  # the director reads it off the table

        # Refusals: no CSRF, a reserved or malformed number, a code no table shows.
        code = pi.code
        r = client.post("/director/actions/adopt_table", data={"code": code, "table": "5"})
        assert r.status_code == 303  # back with "the form expired" (no CSRF token)
        json_headers = {"Accept": "application/json", "X-CSRF-Token": csrf}
        for table, why in (("mesa-hub", "sin empezar"), ("Mesa 5", "no sirve"), ("", "table")):
            r = client.post(
                "/director/actions/adopt_table",
                data={"code": code, "table": table},
                headers=json_headers,
            )
            assert r.status_code == 400, r.text
            assert why in r.json()["message"] or r.json()["error"] == "bad_value", r.text
        wrong = "ZZZ-ZZZ" if code != "ZZZ-ZZZ" else "000-000"
        r = client.post(
            "/director/actions/adopt_table",
            data={"code": wrong, "table": "5"},
            headers=json_headers,
        )
        assert r.status_code == 404 and wrong in r.json()["message"], r.text
        r = client.post(
            "/director/actions/adopt_table",
            data={"code": "4F7", "table": "5"},
            headers=json_headers,
        )
        assert r.status_code == 400 and "seis letras" in r.json()["message"], r.text
        assert len(client.get("/director/enrolments.json").json()["enrolment"]["pending"]) == 1

        # The form, as the browser posts it without a script: a redirect with a flash.
        r = client.post(
            "/director/actions/adopt_table",
            data={"csrf": csrf, "code": code.lower(), "table": "5"},
            headers={"Referer": venue.url + "/director"},
        )
        assert r.status_code == 303, r.text
        answer = pi.adopted()
        assert answer["table"] == "5" and answer["hub"]["port"] == venue.broker.tls_port
        assert client.get("/director/enrolments.json").json()["enrolment"]["pending"] == []
        assert 'id="enrolment-list"' not in client.get("/director").text

        # The Pi switches to its new account and comes online as table 5; the desk then
        # deletes its sealed answer (the password does not linger in the store).
        assert pi.come_online() == "5"
        assert wait_until(lambda: online(venue, "5"), 20)
        desk = venue.process.enrolment
        assert wait_until(lambda: desk.store.adoptions()[0].cleared_at is not None, 10)
        assert desk.store.answer_for(pi.enrolment.eid) is None

        audit = venue.process.web.store.audit_log(action="adopt_table")
        ok = [e for e in audit if e.outcome == "ok"]
        assert len(ok) == 1 and ok[0].target == f"código {code.lower()} → mesa 5"
        assert ok[0].user == "director"
        page = client.get("/director/audit").text
        assert "mesa nueva adoptada" in page and f"código {code.lower()} → mesa 5" in page
        assert [e.outcome for e in audit].count("refused") == 4  # form errors are not actions
        (entry, *_) = desk.store.audit_log()
        assert (entry.by, entry.serial, entry.table_id, entry.outcome) == (
            "director",
            "10000000abcdef05",
            "5",
            "ok",
        )
    finally:
        pi.stop()
        client.close()


def test_replacing_a_tables_pi_needs_a_confirmation_naming_it(venue: Venue) -> None:
    client, csrf = director(venue)
    headers = {"Accept": "application/json", "X-CSRF-Token": csrf}
    first = Pi(venue, "cafe0001")
    second: Pi | None = None
    try:
        desk = venue.process.enrolment
        assert wait_until(lambda: bool(desk.store.with_code(first.code)), 15)
        r = client.post(
            "/director/actions/adopt_table",
            data={"code": first.code, "table": "7"},
            headers=headers,
        )
        assert r.status_code == 200 and r.json()["ok"], r.text
        first.adopted()
        first.come_online()
        assert wait_until(lambda: online(venue, "7"), 20)
        twin = client.get("/director/enrolments.json").json()["enrolment"]
        assert twin["occupants"] == {"7": "cafe0001"}

        second = Pi(venue, "cafe0002")
        assert wait_until(lambda: bool(desk.store.with_code(second.code)), 15)
        data = {"code": second.code, "table": "7"}
        for replace in (None, "1", "cafe0002"):
            r = client.post(
                "/director/actions/adopt_table",
                data={**data, **({"replace": replace} if replace else {})},
                headers=headers,
            )
            assert r.status_code == 409 and r.json()["error"] == "confirm_replace"
            assert "ya tiene el Pi cafe0001 (en línea)" in r.json()["message"]
            assert "«Reemplazar el Pi cafe0001 de la mesa 7»" in r.json()["message"]
        assert desk.store.with_code(second.code)
        client.cookies.set("mesa_lang", "en")
        en = client.post("/director/actions/adopt_table", data=data, headers=headers)
        assert en.status_code == 409 and "“Replace table 7's Pi cafe0001”" in en.json()["message"]
        client.cookies.set("mesa_lang", "es")
        r = client.post(
            "/director/actions/adopt_table", data={**data, "replace": "cafe0001"}, headers=headers
        )
        assert r.status_code == 200 and r.json()["ok"], r.text
        assert second.adopted()["table"] == "7"
        assert not desk.store.with_code(second.code)
        log = [(e.serial, e.replaced, e.outcome[:7]) for e in desk.store.audit_log()]
        assert log[0] == ("cafe0002", "cafe0001", "ok")
        assert log.count(("cafe0002", "cafe0001", "refused")) == 4
    finally:
        first.stop()
        if second is not None:
            second.stop()
        client.close()


def test_the_director_dismisses_an_announcement_and_sees_a_flood_counted(venue: Venue) -> None:
    client, csrf = director(venue)
    headers = {"Accept": "application/json", "X-CSRF-Token": csrf}
    pi = Pi(venue, "dead0001")
    try:
        desk = venue.process.enrolment
        assert wait_until(lambda: bool(desk.store.pending()), 15)
        (listed,) = client.get("/director/enrolments.json").json()["enrolment"]["pending"]
        r = client.post(
            "/director/actions/dismiss_enrolment", data={"id": listed["id"]}, headers=headers
        )
        assert r.status_code == 200 and r.json()["ok"], r.text
        assert client.get("/director/enrolments.json").json()["enrolment"]["pending"] == []
        # Its next call is refused and told to wait long (429, Retry-After); it stays off the
        # list, and the refusal is counted and shown.
        assert wait_until(lambda: desk.refusals["dismissed"] >= 1, 10)
        e = pi.enrolment
        assert wait_until(lambda: e.last is not None and e.last.status == 429, 5)
        assert e.last is not None and e.last.pause is not None and e.last.pause >= 60
        home = client.get("/director").text
        assert 'id="enrolment-refused"' in home and "descartados: " in home
        r = client.post(
            "/director/actions/dismiss_enrolment", data={"id": listed["id"]}, headers=headers
        )
        assert r.status_code == 404
    finally:
        pi.stop()
        client.close()


def test_mesa_adopt_asks_the_running_hub(venue: Venue, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI leaves the adoption (by the code on the table's screen) in the store; the hub's
    desk carries it out on its tick and keeps the sealed answer for the Pi's next call; the
    command reports the outcome."""
    from mesa.cli import main

    pi = Pi(venue, "beef0009")
    try:
        desk = venue.process.enrolment
        assert wait_until(lambda: bool(desk.store.pending()), 15)
        db = str(venue.process.settings.db)
        assert main(["enrolments", "--db", db]) == 0
        assert "beef0009" in capsys.readouterr().out
        code = pi.code
        assert main(["adopt", code, "9", "--db", db, "--wait", "30"]) == 0
        assert "table 9" in capsys.readouterr().out
        assert pi.adopted()["table"] == "9"
        assert main(["adopt", code, "9", "--db", db, "--wait", "1"]) == 1
        assert "is waiting" in capsys.readouterr().err
        assert main(["adopt", code, "mesa-enrolment", "--db", db]) == 1
        assert "not starting 'mesa'" in capsys.readouterr().err
        assert main(["adopt", "beef0009", "9", "--db", db]) == 1  # a serial is not a code
        assert "not a pairing code" in capsys.readouterr().err
    finally:
        pi.stop()


@pytest.mark.anyio
async def test_without_enrolment_credentials_the_dashboard_says_how_to_enable_it(
    client: httpx.AsyncClient,
) -> None:
    from support.hubkit import login

    csrf = await login(client)
    home = (await client.get("/director")).text
    assert "Mesa nueva: desactivada" in home
    assert "MESA_HUB_ENROLMENT_CREDENTIALS=/etc/mesa/enrolment.json" in home
    twin = (await client.get("/director/enrolments.json")).json()["enrolment"]
    assert twin["enabled"] is False and twin["pending"] == []
    r = await client.post(
        "/director/actions/adopt_table",
        data={"code": "4F7-2K9", "table": "3"},
        headers={"Accept": "application/json", "X-CSRF-Token": csrf},
    )
    assert r.status_code == 503 and "no está activada" in r.json()["message"]


# ── the same from the director's browser ───────────────────────────────────────────────
@pytest.mark.browser
def test_the_director_adopts_a_table_in_the_browser(tmp_path: Path) -> None:
    path = os.environ.get("MESA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.skip("chromium not installed")
    from playwright.sync_api import sync_playwright

    venue = start_venue(tmp_path)
    pis: list[Pi] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=path,
                args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
                headless=True,
            )
            page = browser.new_page(viewport={"width": 1100, "height": 760})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on(
                "console",
                lambda m: (
                    errors.append(m.text)
                    if m.type == "error" and not m.text.startswith("Failed to load resource")
                    else None
                ),
            )
            failed: list[tuple[int, str]] = []
            page.on(
                "response",
                lambda r: (
                    failed.append((r.status, r.url.removeprefix(venue.url)))
                    if r.status >= 400
                    else None
                ),
            )
            page.goto(venue.url + "/login")
            page.fill("input[name=user]", "director")
            page.fill("input[name=password]", PASSWORD)
            page.click("#login-form button[type=submit]")
            page.wait_for_url("**/director")
            page.wait_for_function("() => document.getElementById('conn').dataset.state === 'live'")
            assert page.locator("#enrolment.empty").count() == 1
            page.evaluate("() => { window.notReloaded = true; }")

            # Two Pis announce themselves; the list appears without a reload.
            pis.append(Pi(venue, "10000000abcdef05"))
            pis.append(Pi(venue, "10000000abcdef06", {"display": "ok", "card": "FAILED not found"}))
            row = "#enrolment tr[data-serial='{}']"
            page.wait_for_selector(row.format("10000000abcdef05"), timeout=15000)
            page.wait_for_selector(row.format("10000000abcdef06"), timeout=15000)
            assert page.evaluate("() => window.notReloaded === true")
            assert "Mesa nueva" in page.inner_text("#enrolment h2")
            assert "tarjeta SD: FAILED not found" in page.inner_text(row.format("10000000abcdef06"))
            page.fill(row.format("10000000abcdef05") + " input[name=code]", pis[0].code)
            page.fill(row.format("10000000abcdef05") + " input[name=table]", "5")
            shot_path = SHOTS / "enrolment.png"
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.locator("#enrolment").screenshot(path=str(shot_path))

            # Adopt it as table 5: the Pi gets its link file, switches, and is table 5.
            page.click(row.format("10000000abcdef05") + " button[type=submit]")
            page.wait_for_function(
                "() => (document.getElementById('action-result').textContent || '')"
                ".includes('mesa nueva adoptada')"
            )
            assert f"código {pis[0].code} → mesa 5" in page.inner_text("#action-result")
            assert pis[0].adopted()["table"] == "5"
            pis[0].come_online()
            page.wait_for_selector("#table-5", timeout=20000)
            page.wait_for_function(
                "() => !document.querySelector(\"#enrolment tr[data-serial='10000000abcdef05']\")"
            )

            # The second Pi as table 5 too: table 5 has a Pi, so the page asks first.
            second = row.format("10000000abcdef06")
            page.fill(second + " input[name=code]", pis[1].code)
            page.fill(second + " input[name=table]", "5")
            page.click(second + " button[type=submit]")
            confirm = page.wait_for_selector(second + " button[data-confirm-replace='5']")
            assert confirm is not None
            assert confirm.inner_text() == "Reemplazar el Pi 10000000abcdef05 de la mesa 5"
            assert "«Reemplazar el Pi 10000000abcdef05 de la mesa 5»" in page.inner_text(
                second + " .result"
            )
            page.locator("#enrolment").screenshot(path=str(SHOTS / "enrolment-replace.png"))
            confirm.click()
            assert pis[1].adopted()["table"] == "5"
            page.wait_for_selector("#enrolment.empty", state="attached", timeout=10000)
            assert page.evaluate("() => window.notReloaded === true")
            assert errors == [], errors
            # The one refusal is the confirmation asked (a browser's favicon request aside).
            assert [f for f in failed if f[1] != "/favicon.ico"] == [
                (409, "/director/actions/adopt_table")
            ], failed
            browser.close()
        audit = venue.process.web.store.audit_log(action="adopt_table")
        assert [e.target for e in audit if e.outcome == "ok"] == [
            f"código {pis[1].code} → mesa 5",
            f"código {pis[0].code} → mesa 5",
        ]
    finally:
        for pi in pis:
            pi.stop()
        venue.process.stop()
        venue.broker.stop()


def test_an_unreadable_enrolment_file_leaves_the_hub_running_and_says_so(tmp_path: Path) -> None:
    from support.mosquitto import start_broker

    if not have_mosquitto():
        pytest.skip("mosquitto not installed")
    broker = start_broker(tmp_path / "broker", tables=())
    missing = tmp_path / "nowhere" / "enrolment.json"
    settings = hub_settings(
        tmp_path / "hub.sqlite3",
        broker,
        port=free_port(),
        director_password=PASSWORD,
        enrolment_credentials=missing,
    )
    process = HubProcess(settings).start()
    try:
        assert process.enrolment is None
        venue = Venue(broker, None, process, tmp_path)  # type: ignore[arg-type]
        client, _ = director(venue)
        home = client.get("/director").text
        assert f"El puesto de alta no arrancó con {missing}" in home
        twin = client.get("/director/enrolments.json").json()["enrolment"]
        assert twin["enabled"] is False and twin["not_started"] == str(missing)
        client.close()
    finally:
        process.stop()
        broker.stop()
