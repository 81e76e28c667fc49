"""The dashboard under anonymous load: idle connections held, /healthz under them, memory under
a huge POST, scrypt checks per burst of wrong passwords. Loopback only, every loop bounded.

    .venv/bin/python bench/web_load.py [--idle 1100] [--post-mb 200] [--burst 40]

In one process: a hub (no broker), the dashboard served by uvicorn on its thread with the
production limits (see ``mesa.hub.web.http.conn_guard``), and the load from this thread. Printed:

* idle connections: how many the server accepted, /healthz latency while they are open, how
  many it closed and how long that took (the header timeout);
* a huge POST streamed with chunked encoding: the answer, how much was sent before it, and the
  process's resident memory before and after;
* a burst of concurrent wrong passwords from one address: how many reached scrypt, and whether
  the director then logs in from another loopback address (127.0.0.2).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # support.webload

from mesa.hub.ingest.app import Hub  # noqa: E402
from mesa.hub.settings import HubSettings  # noqa: E402
from mesa.hub.web.app import WebApp  # noqa: E402
from mesa.hub.web.http.conn_guard import HEADER_TIMEOUT  # noqa: E402
from mesa.hub.web.http.server import BackgroundServer  # noqa: E402
from support.webload import (  # noqa: E402
    close_all,
    count_closed,
    get,
    login_burst,
    login_from,
    open_idle,
    rss_kb,
    streamed_post,
)

PASSWORD = "bench-password"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--idle", type=int, default=1100, help="idle connections to open")
    parser.add_argument("--post-mb", type=int, default=200, help="size of the huge POST")
    parser.add_argument("--burst", type=int, default=40, help="concurrent wrong passwords")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2 * args.idle + 100:  # both ends of every connection live in this process
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 2 * args.idle + 200), hard))
    with tempfile.TemporaryDirectory() as tmp:
        hub = Hub(HubSettings(db=Path(tmp) / "hub.sqlite3"))
        web = WebApp(hub, hub.settings.replace(director_password=PASSWORD))
        server = BackgroundServer(web).start()
        parts = urllib.parse.urlsplit(server.url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 0
        try:
            idle(server, host, port, args.idle)
            big_post(host, port, args.post_mb)
            burst(web, server, args.burst)
        finally:
            server.stop()
            web.close()
            hub.close()


def idle(server: BackgroundServer, host: str, port: int, n: int) -> None:
    socks = []
    try:
        socks = open_idle(host, port, n)
        status, seconds = get(server.url + "healthz", timeout=30)
        print(
            f"idle connections: {n} opened; /healthz under them: {status} in "
            f"{seconds * 1000:.0f} ms; shed at the ceiling: {server.protocol.shed}"
        )
        t0 = time.perf_counter()
        closed = count_closed(socks, within=HEADER_TIMEOUT + 10)
        print(
            f"  closed by the server: {closed} of {n} within {time.perf_counter() - t0:.1f} s "
            f"(header timeout {HEADER_TIMEOUT:.0f} s)"
        )
    finally:
        close_all(socks)


def big_post(host: str, port: int, mb: int) -> None:
    before = rss_kb()
    status, sent = streamed_post(host, port, "/login", mb * 1_000_000)
    after = rss_kb()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        f"{mb} MB chunked POST to /login: {status} after {sent / 1e6:.1f} MB sent; RSS "
        f"{before / 1024:.0f} → {after / 1024:.0f} MB (peak {peak / 1024:.0f} MB)"
    )


def burst(web: WebApp, server: BackgroundServer, n: int) -> None:
    statuses = login_burst(server.url, n)
    checks = web.site.metrics.get("web_login_checks")
    status = login_from(server.url, "127.0.0.2", "director", PASSWORD)
    print(
        f"{n} concurrent wrong passwords: {checks} scrypt checks "
        f"({statuses.count(401)} × 401, {statuses.count(429)} × 429); "
        f"the director from 127.0.0.2 right after: {status}"
    )


if __name__ == "__main__":
    main()
