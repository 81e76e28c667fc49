"""The dashboard under anonymous load, served by uvicorn on a free loopback port: idle
connections are closed and never starve ``/healthz``, a huge body is refused while it streams,
a burst of wrong passwords reaches scrypt only a few times and never locks the director out.

Figures are printed (``-s``); only loose bounds are asserted."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator

import httpx
import pytest

from mesa.hub.ingest.app import Hub
from mesa.hub.web.app import WebApp
from mesa.hub.web.http.server import BackgroundServer
from support.hubkit import NOW, PASSWORD
from support.webload import (
    close_all,
    count_closed,
    get,
    login_burst,
    login_from,
    open_idle,
    rss_kb,
    streamed_post,
)


@pytest.fixture
def served(hub: Hub) -> Iterator[tuple[WebApp, BackgroundServer]]:
    web = WebApp(hub, hub.settings.replace(director_password=PASSWORD), now=lambda: NOW)
    server = BackgroundServer(web, header_timeout=2.0, max_connections=350).start()
    yield web, server
    server.stop()
    web.close()


def host_port(server: BackgroundServer) -> tuple[str, int]:
    parts = urllib.parse.urlsplit(server.url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


def test_idle_connections_are_closed_and_never_starve_healthz(
    served: tuple[WebApp, BackgroundServer],
) -> None:
    _web, server = served
    host, port = host_port(server)
    socks = open_idle(host, port, 300)
    try:
        status, seconds = get(server.url + "healthz", timeout=20)
        print(f"\n/healthz with 300 idle connections open: {status} in {seconds * 1000:.0f} ms")
        assert status == 200
        closed = count_closed(socks, within=15)
        print(f"idle connections closed by the server: {closed} of 300")
        assert closed == 300
    finally:
        close_all(socks)


def test_past_the_ceiling_the_oldest_idle_connections_make_room(
    served: tuple[WebApp, BackgroundServer],
) -> None:
    _web, server = served
    host, port = host_port(server)
    socks = open_idle(host, port, 500)  # over max_connections=350
    try:
        status, _ = get(server.url + "healthz", timeout=20)
        assert status == 200
        assert server.protocol.shed >= 150
    finally:
        close_all(socks)


def test_a_huge_streamed_post_is_refused_without_growing_the_process(
    served: tuple[WebApp, BackgroundServer],
) -> None:
    web, server = served
    host, port = host_port(server)
    before = rss_kb()
    status, sent = streamed_post(host, port, "/login", 20_000_000)
    after = rss_kb()
    print(
        f"\n20 MB chunked POST: {status} after {sent / 1e6:.1f} MB sent; "
        f"RSS {before / 1024:.0f} → {after / 1024:.0f} MB"
    )
    assert status == 413 and sent < 20_000_000
    assert after - before < 50_000  # loose: the body is never held (it was +400 MB before)
    status, sent = streamed_post(host, port, "/login", 20_000_000, declare=True)
    assert status == 413 and sent < 20_000_000
    assert web.site.metrics.get("web_body_refused") == 2


def test_a_burst_of_wrong_passwords_reaches_scrypt_a_few_times_only(
    served: tuple[WebApp, BackgroundServer],
) -> None:
    web, server = served
    statuses = login_burst(server.url, 40)
    checks = web.site.metrics.get("web_login_checks")
    print(
        f"\n40 concurrent wrong passwords: {checks} scrypt checks, "
        f"{statuses.count(401)} × 401, {statuses.count(429)} × 429"
    )
    # 3 free attempts and a fourth, then one more each time the doubling wait runs out (1 s,
    # 2 s, …): a burst that lasts a few seconds gets 4 to 6 through, never the 40.
    assert checks <= 8 and statuses.count(401) == checks
    assert statuses.count(429) == 40 - checks
    # the real director, from another address, right after
    assert login_from(server.url, "127.0.0.2", "director", PASSWORD) == 200


def test_a_forwarded_for_header_does_not_change_the_client_address(
    served: tuple[WebApp, BackgroundServer],
) -> None:
    """From loopback, uvicorn would believe X-Forwarded-For: the audit, the login throttle
    and the stream limit must see the connection's own address."""
    web, server = served
    with httpx.Client(timeout=30) as c:
        r = c.post(
            server.url + "login",
            data={"user": "director", "password": PASSWORD},
            headers={"accept": "application/json", "x-forwarded-for": "10.1.2.3"},
        )
    assert r.status_code == 200
    assert web.store.audit_log(action="login")[0].address == "127.0.0.1"
