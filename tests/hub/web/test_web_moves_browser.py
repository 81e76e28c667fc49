"""What a director met in one real evening, seen in the browser (headless Chromium, the
dashboard served by uvicorn, tables answering through the hub's real ingest path):

- a match moved to another table keeps its score, its cube and its Crawford state, and the move
  form says which tables are busy (issue 22, finding 2);
- after a correction the table shows the result the tournament holds (finding 4);
- a player left out as absent at the draw can be sanctioned as a no-show (HGV 2.3.6, finding 7);
- the director's words are Spanish, never a raw code (finding 8).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.settings import HubSettings
from mesa.hub.web.app import WebApp
from mesa.hub.web.http.server import BackgroundServer
from support.browser import chromium, chromium_path
from support.hubkit import NOW, PASSWORD, FakeTable, make_tournament

pytestmark = [pytest.mark.browser]
TID = "2025-03"


@dataclass
class Served:
    web: WebApp
    server: BackgroundServer
    tables: dict[str, FakeTable]
    lock: threading.Lock

    @property
    def url(self) -> str:
        return self.server.url.rstrip("/")

    def apply(self, table: str, name: str, args: dict[str, Any] | None = None) -> Any:
        """An input at ``table`` (the answering thread serves the tables under the same lock)."""
        with self.lock:
            out = self.tables[table].apply(name, args or {})
        assert out.accepted, (name, args, out.refusal)
        return out

    def state(self, table: str) -> str:
        with self.lock:
            return self.tables[table].table.state

    def give(self, match: str, table: str) -> None:
        web = self.web

        def run(club: Any, now: datetime) -> None:
            t = club.tournament(TID)
            web.desk.publish_assignment(t, web.desk.assign_match(t, match, table, now, "t"), now)

        web.desk.call(run)
        wait_for(lambda: self.state(table) == "assigned")

    def game(self, table: str, winner: str) -> None:
        """One game at ``table`` won by ``winner`` (a single), from between games."""
        loser = "b" if winner == "a" else "a"
        self.apply(table, "press", {"side": loser})  # the loser rolled lower: winner on move
        self.apply(table, "claim", {"side": winner, "winner": winner, "kind": 1})
        self.apply(table, "confirm", {"side": loser})

    def sync(self) -> None:
        self.web.desk.sync()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    if chromium_path() is None:
        pytest.skip("chromium not installed")
    hub = Hub(HubSettings(db=tmp_path / "hub.sqlite3"))
    web = WebApp(
        hub,
        hub.settings.replace(director_password=PASSWORD, command_wait=3.0, auto_assign=False),
        now=lambda: NOW,
    )
    server = BackgroundServer(web).start()
    tables = {}
    for tid in ("3", "4", "5"):
        hub.register_table(tid)
        tables[tid] = FakeTable(hub, tid)
        tables[tid].online()
    lock = threading.Lock()
    stop = threading.Event()

    def answer() -> None:  # the tables take what the hub sends them, as real ones would
        while not stop.is_set():
            with lock:
                for table in tables.values():
                    table.serve()
            stop.wait(0.02)

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    yield Served(web, server, tables, lock)
    stop.set()
    thread.join(5)
    server.stop()
    web.close()
    hub.close()


def wait_for(check: Any) -> None:
    deadline = time.monotonic() + 10
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _login(page: Any, url: str) -> None:
    page.goto(url + "/login")
    page.fill("input[name=user]", "director")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-form button[type=submit]")
    page.wait_for_url("**/director")


def _card(served: Served, table: str) -> dict[str, Any]:
    cards = httpx.get(served.url + "/index.json").json()["tables"]
    return next(c for c in cards if c["id"] == table)


# ── finding 2: a moved match keeps its score ─────────────────────────────────
def test_a_match_moved_mid_game_keeps_its_score_cube_and_crawford_state(served: Served) -> None:
    web = served.web
    make_tournament(web, 6)
    served.give("G1-1", "4")
    served.give("G2-1", "5")  # table 5 is busy with another match
    served.apply("4", "press", {"side": "a"})
    served.apply("4", "press", {"side": "b"})
    served.game("4", "a")
    served.game("4", "a")  # 2-0: a is one away, the next game is Crawford
    served.game("4", "b")  # the Crawford game: 2-1, post-Crawford from now on
    served.apply("4", "press", {"side": "a"})  # game 4: b on move
    served.apply("4", "double", {"side": "b"})
    served.apply("4", "take", {"side": "a"})  # the cube on 2, a owns it
    served.sync()
    assert web.desk.read(lambda club: club.tournament(TID).match("G1-1").status) == "playing"
    with chromium() as browser:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        _login(page, served.url)
        page.goto(served.url + "/director/matches/G1-1")
        form = page.locator("#move-form")
        options = {
            o.get_attribute("value"): (o.inner_text(), o.get_attribute("disabled"))
            for o in form.locator("select[name=table] option").all()
        }
        # Table 5 holds G2-1: marked busy and not offered; table 3 is free.
        assert options["3"][0].strip() == "3 ✓" and options["3"][1] is None, options
        assert "ocupada" in options["5"][0] and options["5"][1] is not None, options
        assert "4" not in options
        form.locator("select[name=table]").select_option("3")
        form.locator("input[name=reason]").fill("mesa rota")
        with page.expect_navigation():
            form.locator("button[type=submit]").click()
        flashes = " ".join(page.locator(".flash").all_inner_texts())
        assert "4 → 3" in flashes and "2–1" in flashes, flashes
        wait_for(lambda: served.state("3") == "assigned" and served.state("4") == "idle")
        with served.lock:
            s = served.tables["3"].table.s
            assert s.match is not None
            assert (s.match.score, s.match.crawford_played) == ({"a": 2, "b": 1}, True)
        # The dashboard shows the score the match has, at its new table.
        wait_for(lambda: _card(served, "3")["score"] == {"a": 2, "b": 1})
        # The players check in at table 3 and game 4 goes on where it was: b on move, the
        # cube on 2 and a's (b may not double), no Crawford game again.
        served.apply("3", "press", {"side": "a"})
        served.apply("3", "press", {"side": "b"})
        served.apply("3", "press", {"side": "a"})
        with served.lock:
            t3 = served.tables["3"].table
            assert t3.state == "running" and t3.s.clock is not None
            assert t3.s.clock.on_move == "b"
            assert t3.s.match is not None
            m = t3.s.match
            assert (m.cube_value, m.cube_owner, m.crawford_state, m.game_number) == (
                2, "a", "post", 4)  # fmt: skip
            assert t3.apply("double", {"side": "b"}, now=t3.s.last_now or 0.0).refusal
        served.sync()
        page.goto(served.url + "/director/matches/G1-1")
        history = page.locator("#history li").all_inner_texts()
        moves = [h for h in history if "4 → 3" in h]
        assert moves and all(" move " not in f" {h} " for h in moves), history
        assert any("cambio de mesa" in h for h in moves), moves
        assert errors == []
    # The game ends at table 3 and the tournament takes its result from there.
    served.apply("3", "claim", {"side": "b", "winner": "b", "kind": 1})
    served.apply("3", "confirm", {"side": "a"})  # 2-3: b wins the match
    served.sync()
    r = web.desk.read(lambda club: club.tournament(TID).match("G1-1").result)
    assert (r.score_a, r.score_b, r.source) == (2, 3, "table")


def test_a_match_moved_between_games_starts_its_next_game_at_the_new_table(
    served: Served,
) -> None:
    web = served.web
    make_tournament(web, 6)
    served.give("G1-1", "4")
    served.apply("4", "press", {"side": "a"})
    served.apply("4", "press", {"side": "b"})
    served.game("4", "a")
    served.game("4", "a")  # 2-0 between games: the Crawford game is next
    served.sync()
    with chromium() as browser:
        page = browser.new_page()
        _login(page, served.url)
        page.goto(served.url + "/director/matches/G1-1")
        form = page.locator("#move-form")
        form.locator("select[name=table]").select_option("3")
        form.locator("input[name=reason]").fill("luz")
        with page.expect_navigation():
            form.locator("button[type=submit]").click()
        assert "2–0" in " ".join(page.locator(".flash").all_inner_texts())
    wait_for(lambda: served.state("3") == "assigned")
    served.apply("3", "press", {"side": "a"})
    served.apply("3", "press", {"side": "b"})
    served.apply("3", "press", {"side": "b"})
    with served.lock:
        m = served.tables["3"].table.s.match
        assert m is not None and (m.score, m.game_number, m.crawford_state) == (
            {"a": 2, "b": 0}, 3, "crawford")  # fmt: skip


# ── finding 4: the table shows the corrected result ──────────────────────────
def test_after_a_correction_the_table_shows_the_result_the_tournament_holds(
    served: Served,
) -> None:
    web = served.web
    make_tournament(web, 6)
    served.give("G1-1", "3")
    served.apply("3", "press", {"side": "a"})
    served.apply("3", "press", {"side": "b"})
    for _ in range(3):
        served.game("3", "b")  # 0-3: b wins at the table
    served.sync()
    assert served.state("3") == "match_over"
    with chromium() as browser:
        page = browser.new_page()
        _login(page, served.url)
        page.goto(served.url + "/director/matches/G1-1")
        form = page.locator("#correct-form")
        form.locator("input[name=score_a]").fill("3")
        form.locator("input[name=score_b]").fill("2")
        form.locator("input[name=reason]").fill("acta mal leída")
        with page.expect_navigation():
            form.locator("button[type=submit]").click()
        r = web.desk.read(lambda club: club.tournament(TID).match("G1-1").result)
        assert (r.score_a, r.score_b) == (3, 2)
        wait_for(lambda: _card(served, "3")["score"] == {"a": 3, "b": 2})
        card = _card(served, "3")
        assert card["winner"] == "a" and card["state"] == "match_over", card
        page.goto(served.url + "/")
        shown = page.locator(".card[data-table='3'] .score, [data-table='3'] .score")
        wait_for(lambda: [x.strip() for x in shown.all_inner_texts()][:2] == ["3", "2"])
    # The table's own answer is no conflict: the tournament already holds 3-2.
    served.sync()
    assert web.desk.read(lambda club: club.tournament(TID).open_conflicts()) == []


# ── finding 7: a no-show left out at the draw can be sanctioned ──────────────
def test_a_player_left_out_as_absent_can_be_sanctioned_as_a_no_show(served: Served) -> None:
    web = served.web
    ids = make_tournament(web, 7, start=False)
    absent = ids[-1]  # GLORIA confirmed and did not come

    def draw(club: Any, now: datetime) -> None:
        club.tournament(TID).leave_out([absent], now=now)
        club.start(TID, seed=7, now=now)

    web.desk.call(draw)
    with chromium() as browser:
        page = browser.new_page()
        _login(page, served.url)
        page.goto(served.url + f"/director/tournament?t={TID}")
        form = page.locator("#sanction form")
        names = form.locator("select[name=player_id] option").all_inner_texts()
        assert any("GLORIA" in n for n in names), names
        form.locator("select[name=player_id]").select_option(absent)
        form.locator("select[name=kind]").select_option("no_show")
        form.locator("input[name=reason]").fill("confirmó por teléfono")
        with page.expect_navigation():
            form.locator("button[type=submit]").click()
        flashes = " ".join(page.locator(".flash").all_inner_texts())
        assert "GLORIA: confirmó y no vino (HGV 2.3.6)" in flashes, flashes
        assert ": no_show" not in flashes
        listed = page.locator("#sanction ul").inner_text()
        assert "GLORIA" in listed and "confirmó y no vino" in listed
    bans = web.desk.read(
        lambda club: [s.kind for s in club.registry.sanctions if s.player_id == absent]
    )
    assert bans == ["no_show"]
    # Only a no-show applies to a player who never played: "left" is refused, clearly.
    r = web.desk.read(lambda club: club.tournament(TID).withdrawals[absent].kind)
    assert r == "no_show"


# ── finding 8: the director's words ──────────────────────────────────────────
def test_the_directors_bar_table_page_and_flashes_speak_spanish(served: Served) -> None:
    web = served.web
    ids = make_tournament(web, 6)
    served.give("G1-1", "3")
    served.apply("3", "press", {"side": "a"})
    served.apply("3", "press", {"side": "b"})
    served.apply("3", "press", {"side": "b"})
    with chromium() as browser:
        page = browser.new_page()
        _login(page, served.url)
        bar = page.locator(".director-bar").inner_text()
        assert "Registro" not in bar.split() and "Auditoría" in bar, bar
        page.goto(served.url + "/director/tables/3")
        form = page.locator("details[data-key=pause] form")
        page.locator("details[data-key=pause] summary").click()
        form.locator("select[name=why]").select_option("dispute")
        with page.expect_navigation():
            form.locator("button[type=submit]").click()
        flashes = " ".join(page.locator(".flash").all_inner_texts())
        assert "(disputa)" in flashes and "dispute" not in flashes, flashes
        # A sanction says its kind in words.
        victim = web.desk.read(lambda club: club.tournament(TID).match("G2-1").a)
        name = web.desk.read(lambda club: club.tournament(TID).name_of(victim))
        page.goto(served.url + f"/director/tournament?t={TID}")
        form = page.locator("#sanction form")
        form.locator("select[name=player_id]").select_option(victim)
        form.locator("input[name=reason]").fill("se fue")
        with page.expect_navigation():
            form.locator("button[type=submit]").click()
        flashes = " ".join(page.locator(".flash").all_inner_texts())
        assert f"{name}: abandonó el torneo (HGV 2.3.5)" in flashes and ": left" not in flashes
        # A table that finished its match takes the next one by itself: no "Libérela".
        served.apply("3", "claim", {"side": "a", "winner": "a", "kind": 1})
        served.apply("3", "confirm", {"side": "b"})
        for _ in range(2):
            served.game("3", "a")
        served.sync()
        assert served.state("3") == "match_over"
        web.settings = web.settings.replace(auto_assign=True)
        web.desk.auto_assign = True
        page.goto(served.url + "/director/tables/3")
        text = page.locator("main").inner_text()
        assert "Libérela" not in text, text
        assert "recibirá la siguiente partida por sí sola" in text, text
    assert ids

