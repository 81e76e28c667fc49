"""A TCP proxy on loopback whose cable can be pulled: the Wi-Fi dropping, for tests.

>>> proxy = CutProxy("127.0.0.1", 9).start()   # nothing needs to listen on the target yet
>>> proxy.port > 0, proxy.cut_off
(True, False)
>>> proxy.stop()
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading


class CutProxy:
    """Forwards ``127.0.0.1:<port>`` to a target. :meth:`cut` drops every connection and
    refuses new ones until :meth:`restore`."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self.port = int(self._server.getsockname()[1])
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self._cut = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def cut_off(self) -> bool:
        return self._cut.is_set()

    def start(self) -> CutProxy:
        self._server.listen(64)
        self._server.settimeout(0.1)
        self._thread = threading.Thread(target=self._accept, daemon=True, name="cutproxy")
        self._thread.start()
        return self

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if self._cut.is_set():
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=2)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while not self._stop.is_set():
                ready, _, _ = select.select([a, b], [], [], 0.2)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    (b if s is a else a).sendall(data)
        except (OSError, ValueError):
            return
        finally:
            self._close(a, b)

    def _close(self, *socks: socket.socket) -> None:
        with self._lock:
            for s in socks:
                with contextlib.suppress(OSError):
                    s.close()
                if s in self._conns:
                    self._conns.remove(s)

    def cut(self) -> None:
        """Pull the cable: every connection dies, new ones are refused."""
        self._cut.set()
        with self._lock:
            conns = list(self._conns)
        for s in conns:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
        self._close(*conns)

    def restore(self) -> None:
        self._cut.clear()

    def stop(self) -> None:
        self._stop.set()
        self.cut()
        with contextlib.suppress(OSError):
            self._server.close()
        if self._thread is not None:
            self._thread.join(2)
