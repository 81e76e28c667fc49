"""Anonymous load against a dashboard on loopback, for the tests and ``bench/web_load.py``:
idle connections, a huge streamed POST, a burst of wrong passwords. Every loop is bounded.

    socks = open_idle("127.0.0.1", port, 300)
    status, seconds = get(f"http://127.0.0.1:{port}/healthz")
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import selectors
import socket
import time
import urllib.parse

import httpx


def rss_kb() -> int:
    """This process's resident memory now (kB), from /proc (the server runs in-process)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def open_idle(host: str, port: int, n: int) -> list[socket.socket]:
    """``n`` TCP connections that never send a byte."""
    socks = []
    for _ in range(n):
        s = socket.create_connection((host, port), timeout=5)
        socks.append(s)
    return socks


def count_closed(socks: list[socket.socket], within: float) -> int:
    """How many of ``socks`` the server closed (EOF or reset) within ``within`` seconds."""
    closed = 0
    deadline = time.monotonic() + within
    with selectors.DefaultSelector() as sel:  # epoll: descriptors past 1024 are fine
        for s in socks:
            sel.register(s, selectors.EVENT_READ, data=s)
        while closed < len(socks) and time.monotonic() < deadline:
            for key, _ in sel.select(0.2):
                s = key.data
                try:
                    data = s.recv(1024)
                except OSError:
                    data = b""
                if not data:
                    closed += 1
                    sel.unregister(s)
    return closed


def close_all(socks: list[socket.socket]) -> None:
    for s in socks:
        s.close()


def get(url: str, timeout: float = 20.0, local_address: str | None = None) -> tuple[int, float]:
    """``(status, seconds)`` of one GET on a fresh connection."""
    t0 = time.perf_counter()
    transport = httpx.HTTPTransport(local_address=local_address)
    with httpx.Client(transport=transport, timeout=timeout) as c:
        r = c.get(url)
    return r.status_code, time.perf_counter() - t0


def readable(s: socket.socket) -> bool:
    with selectors.DefaultSelector() as sel:
        sel.register(s, selectors.EVENT_READ)
        return bool(sel.select(0))


def streamed_post(
    host: str, port: int, path: str, total: int, *, chunk: int = 65536, declare: bool = False
) -> tuple[int, int]:
    """POST ``total`` bytes in chunks (chunked encoding, or a ``Content-Length`` if
    ``declare``), reading the answer as it comes; returns ``(status or 0, bytes sent)``."""
    s = socket.create_connection((host, port), timeout=10)
    head = f"POST {path} HTTP/1.1\r\nHost: {host}\r\n"
    head += f"Content-Length: {total}\r\n" if declare else "Transfer-Encoding: chunked\r\n"
    head += "Content-Type: application/x-www-form-urlencoded\r\n\r\n"
    sent = 0
    answer = b""
    body = b"x" * chunk
    try:
        s.sendall(head.encode())
        while sent < total:
            if readable(s):
                answer += s.recv(65536)
                if answer:
                    break
            piece = body if declare else f"{chunk:x}\r\n".encode() + body + b"\r\n"
            s.sendall(piece)
            sent += chunk
        if not declare and sent >= total:
            s.sendall(b"0\r\n\r\n")
        deadline = time.monotonic() + 10
        while b"\r\n" not in answer and time.monotonic() < deadline:
            data = s.recv(65536)
            if not data:
                break
            answer += data
    except OSError:  # the server answered and closed on us: read what it said, if anything
        with contextlib.suppress(OSError):
            answer += s.recv(65536)
    finally:
        s.close()
    status = 0
    if answer.startswith(b"HTTP/1.1 "):
        status = int(answer.split()[1])
    return status, sent


def login_burst(url: str, n: int, *, user: str = "director", password: str = "wrong") -> list[int]:
    """``n`` concurrent wrong logins from this address; their statuses."""
    body = urllib.parse.urlencode({"user": user, "password": password})

    def one(_: int) -> int:
        with httpx.Client(timeout=30) as c:
            return c.post(
                url.rstrip("/") + "/login",
                content=body,
                headers={
                    "content-type": "application/x-www-form-urlencoded",
                    "accept": "application/json",
                },
            ).status_code

    with concurrent.futures.ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(one, range(n)))


def login_from(url: str, local_address: str, user: str, password: str) -> int:
    """One login from another loopback address (127.0.0.2 …); its status."""
    transport = httpx.HTTPTransport(local_address=local_address)
    with httpx.Client(transport=transport, timeout=30) as c:
        return c.post(
            url.rstrip("/") + "/login",
            data={"user": user, "password": password},
            headers={"accept": "application/json"},
        ).status_code
