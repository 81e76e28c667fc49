"""Time on the pages: a playing match's pace on its card (flagged on the director's grid when
it falls behind the norm), its page's score, pace and expected end, every event's forecast in
the headers ("la final, hacia las 23:40"), the call board and "mi próxima partida"."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from support.hubkit import NOW, PASSWORD, FakeTable, login, make_tournament

pytestmark = pytest.mark.anyio


@pytest.fixture
def clock() -> dict[str, datetime]:
    return {"now": NOW}


@pytest.fixture
def timed_web(hub: Hub, clock: dict[str, datetime]) -> Iterator[WebApp]:
    # Untimed matches (only the mandatory clocks): a slow match can be flagged.
    w = WebApp(
        hub,
        hub.settings.replace(director_password=PASSWORD, command_wait=2.0, auto_assign=True,
                             timed_matches="mandatory"),
        now=lambda: clock["now"],
    )  # fmt: skip
    yield w
    w.close()


@pytest.fixture
async def timed_client(timed_web: WebApp) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(timed_web.asgi()), base_url="http://mesa.test"
    ) as c:
        yield c


def _playing(web: WebApp, hub: Hub) -> tuple[FakeTable, str]:
    """Six players, two tables: the desk gives both a match; table 1's starts."""
    make_tournament(web, 6)
    tables = []
    for tid in ("1", "2"):
        hub.register_table(tid)
        t = FakeTable(hub, tid)
        t.online()
        tables.append(t)
    web.desk.sync()
    for t in tables:
        t.serve()
    first = tables[0]
    first.apply("press", {"side": "a"})
    first.apply("press", {"side": "b"})
    web.desk.sync()
    mid = web.desk.read(lambda club: next(
        m.id for t in club.tournaments.values() for m in t.matches.values()
        if m.status == "playing"))  # fmt: skip
    return first, mid


async def test_a_slow_match_is_flagged_and_its_page_says_so(
    timed_client: httpx.AsyncClient, timed_web: WebApp, hub: Hub, clock: dict[str, datetime]
) -> None:
    _, mid = _playing(timed_web, hub)
    await login(timed_client)
    grid = (await timed_client.get("/director.json")).json()
    card = next(c for c in grid["tables"] if c["id"] == "1")
    assert card["event"]["pace"]["flagged"] is False
    assert card["event"]["pace"]["norm"] == "10"
    # 45 minutes later, still 0-0 in a 3-point match: a whole point behind the norm.
    clock["now"] = NOW + timedelta(minutes=45)
    grid = (await timed_client.get("/director.json")).json()
    pace = next(c for c in grid["tables"] if c["id"] == "1")["event"]["pace"]
    assert pace["flagged"] is True and pace["behind_min"] >= 10, pace
    html = (await timed_client.get("/director")).text
    assert 'class="card st-' in html and " slow\" id=\"table-1\"" in html
    assert "va lenta" in html and "imponer reloj" in html
    page = (await timed_client.get(f"/director/matches/{mid}.json")).json()
    assert page["time"]["live"] == {"a": 0, "b": 0}
    assert page["time"]["pace"]["flagged"] is True
    html = (await timed_client.get(f"/director/matches/{mid}")).text
    assert 'id="slow-hint"' in html and "empieza con el próximo juego" in html
    # The public card shows the pace, never the flag.
    public = (await timed_client.get("/")).text
    assert "min sin puntos" in public and "va lenta" not in public and "fin hacia las" in public


async def test_every_header_and_the_call_board_carry_the_forecast(
    timed_client: httpx.AsyncClient, timed_web: WebApp, hub: Hub
) -> None:
    _playing(timed_web, hub)
    groups = (await timed_client.get("/groups.json")).json()
    fc = groups["tournament"]["forecast"]
    assert fc["final_start"] and fc["finish"] and fc["final_start"] < fc["finish"]
    assert fc["final_start"] > NOW.isoformat() and fc["final_playing"] is False
    html = (await timed_client.get("/groups")).text
    assert "la final, hacia las" in html and "fin hacia las" in html
    calls = (await timed_client.get("/llamadas")).text
    assert 'id="forecast"' in calls and "la final, hacia las" in calls
    board = (await timed_client.get("/llamadas.json")).json()
    assert board["next"] and all(c["expected"] >= NOW.isoformat() for c in board["next"])
    await timed_client.get("/lang/en?next=/groups")
    en = (await timed_client.get("/groups")).text
    assert "the final at about" in en and "ends at about" in en


async def test_a_players_next_match_says_when_it_should_start(
    timed_client: httpx.AsyncClient, timed_web: WebApp, hub: Hub
) -> None:
    _playing(timed_web, hub)

    def waiting(club: Any) -> str:
        t = next(iter(club.tournaments.values()))
        busy = {p for m in t.matches.values() if m.status in ("assigned", "playing")
                for p in m.players}  # fmt: skip
        return next(p for p in t.entrants if p not in busy)

    pid = timed_web.desk.read(waiting)
    page = (await timed_client.get(f"/players/{pid}/next.json")).json()
    assert page["expected"]["start"] >= NOW.isoformat(), page
    html = (await timed_client.get(f"/players/{pid}/next")).text
    assert 'id="expected"' in html and "hacia las" in html
