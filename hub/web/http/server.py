"""The dashboard served by uvicorn on its own thread (``mesa hub``, the demo, browser tests)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from mesa.errors import ConfigError
from mesa.hub.web.app import WebApp
from mesa.hub.web.http.conn_guard import HEADER_TIMEOUT, MAX_CONNECTIONS, guarded_protocol


class BackgroundServer:
    """The dashboard served by uvicorn on its own thread (``mesa hub``, the demo, browser tests).

    Signals stay with the caller's main thread, so Ctrl-C is handled once, by the caller.
    ``port=0`` picks a free port; :attr:`url` tells which.
    """

    def __init__(
        self,
        web: WebApp,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        tls: dict[str, str] | None = None,
        header_timeout: float = HEADER_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        """``tls``: uvicorn's ``ssl_certfile``/``ssl_keyfile`` (see
        :func:`mesa.hub.broker.tls.uvicorn_tls_options`); empty or None serves plain HTTP."""
        import uvicorn

        self.web = web
        self.scheme = "https" if tls else "http"
        self.protocol = guarded_protocol(header_timeout, max_connections)
        self.server = uvicorn.Server(
            uvicorn.Config(
                web.asgi(),
                host=host,
                port=port,
                log_level="warning",
                lifespan="on",
                timeout_graceful_shutdown=3,
                # No proxy stands in front of the hub: uvicorn would otherwise trust
                # X-Forwarded-For from loopback, and a local client could pick the address the
                # login throttle, the stream limit and the audit log see.
                proxy_headers=False,
                ssl_certfile=(tls or {}).get("ssl_certfile"),
                ssl_keyfile=(tls or {}).get("ssl_keyfile"),
                # Bounded under anonymous load (see conn_guard): idle connections are closed,
                # a request head may not exceed 16 KiB, and past the ceiling uvicorn answers 503.
                http=self.protocol,
                timeout_keep_alive=5,
                h11_max_incomplete_event_size=16 * 1024,
                limit_concurrency=max_connections + 100,
            )
        )
        self.thread: threading.Thread | None = None
        self.url = ""

    def start(self, timeout: float = 15.0) -> BackgroundServer:
        self.thread = threading.Thread(target=self.server.run, name="mesa-web", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise ConfigError("the dashboard did not start (is the port free?)")
            time.sleep(0.02)
        host, port = self.server.servers[0].sockets[0].getsockname()[:2]
        self.url = f"{self.scheme}://{host}:{port}/"
        return self

    def reload_tls(self, cert: str | Path, key: str | Path, timeout: float = 5.0) -> None:
        """Serve a renewed certificate from the next handshake on, without a restart: the
        listening socket's SSL context loads the new pair (on the server's own loop, where the
        handshakes are made); open connections keep theirs."""
        context = self.server.config.ssl
        if context is None or not self.server.servers:
            return
        loop = self.server.servers[0].get_loop()

        async def load() -> None:
            context.load_cert_chain(str(cert), str(key))

        asyncio.run_coroutine_threadsafe(load(), loop).result(timeout)

    def stop(self) -> None:
        """End the event streams, then the server (open streams would hold it up)."""
        self.web.stopping.set()
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(10)
            self.thread = None
