"""The director's login: hashes, throttling, sessions, CSRF; bad input changes nothing."""

from __future__ import annotations

import httpx
import pytest

from mesa.hub.web.app import WebApp
from mesa.hub.web.http.auth import LoginThrottle, csrf_ok, hash_password, verify_password
from mesa.hub.web.http.store import WebStore
from support.hubkit import PASSWORD, act, login, make_tournament

pytestmark = pytest.mark.anyio


def test_passwords_are_stored_as_salted_scrypt_hashes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    a, b = hash_password("x", cost=2**10), hash_password("x", cost=2**10)
    assert a != b and a.startswith("scrypt$1024$")
    assert verify_password("x", a) and not verify_password("y", a)
    assert not verify_password("x", "garbage") and not verify_password("x", "md5$1$2$3$4$5")
    store = WebStore(tmp_path / "w.sqlite3")
    store.set_password("ana", "secreto", cost=2**10)
    row = store._db.execute("SELECT password FROM web_directors").fetchone()[0]
    assert "secreto" not in row
    assert store.check_password("ana", "secreto") and not store.check_password("bea", "secreto")
    store.close()


def test_the_throttle_doubles_the_wait_after_the_free_attempts() -> None:
    clock = [0.0]
    th = LoginThrottle(free_attempts=3, max_wait=60, now=lambda: clock[0])
    waits = []
    for _ in range(8):
        if th.attempt("ana", "1.2.3.4") == 0:  # counted, then the password fails
            waits.append(th.wait_seconds("ana", "1.2.3.4"))
        clock[0] += waits[-1] if waits and waits[-1] else 0
    assert waits[:7] == [0, 0, 0, 1, 2, 4, 8]
    clock[0] += 16
    assert th.wait_seconds("ana", "9.9.9.9") == 0  # no lock on the user from elsewhere
    th.succeeded("ana", "1.2.3.4")
    assert th.wait_seconds("ana", "1.2.3.4") == 0


def test_attempts_are_counted_before_the_check_and_per_address() -> None:
    clock = [0.0]
    th = LoginThrottle(free_attempts=3, free_per_address=10, now=lambda: clock[0])
    # a burst from one address: only the free attempts and one more are let through
    assert sum(th.attempt("director", "10.0.0.66") == 0 for _ in range(40)) == 4
    # the same machine trying other names is held by its address's own count
    assert sum(th.attempt(f"user{i}", "10.0.0.66") == 0 for i in range(40)) <= 10
    # the director, from another address, is not held up at all
    assert th.attempt("director", "10.0.0.5") == 0


def test_a_flood_from_many_addresses_never_blocks_a_known_address() -> None:
    clock = [0.0]
    th = LoginThrottle(global_budget=20, window=60, now=lambda: clock[0])
    assert th.attempt("director", "10.0.0.5") == 0
    th.succeeded("director", "10.0.0.5")  # the director's usual address
    for i in range(100):
        th.attempt("director", f"10.1.{i // 250}.{i % 250}")
    assert th.wait_seconds("director", "10.9.9.9") > 0  # the global budget: unknown addresses
    assert th.attempt("director", "10.0.0.5") == 0  # the known address is never held up


def test_csrf_tokens_compare_exactly() -> None:
    assert csrf_ok("abc", "abc")
    assert not csrf_ok("abc", "abd") and not csrf_ok("abc", "") and not csrf_ok(None, None)


async def test_login_sets_a_strict_http_only_session_and_logs_it(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    r = await client.post(
        "/login", data={"user": "director", "password": PASSWORD, "next": "/director/audit"}
    )
    assert r.status_code == 303 and r.headers["location"] == "/director/audit"
    cookie = next(h for h in r.headers.get_list("set-cookie") if h.startswith("mesa_session="))
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert (await client.get("/director/audit")).status_code == 200
    assert [e.action for e in web.store.audit_log()] == ["login"]


async def test_a_wrong_password_is_refused_then_throttled(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    for _ in range(3):
        r = await client.post("/login", data={"user": "director", "password": "nope"})
        assert r.status_code == 401
        assert "Usuario o contraseña incorrectos" in r.text
    r = await client.post("/login", data={"user": "director", "password": "nope"})
    assert r.status_code == 401
    # Now even the right password waits: the answer says how long, in Spanish.
    r = await client.post("/login", data={"user": "director", "password": PASSWORD})
    assert r.status_code == 429
    assert "Demasiados intentos fallidos" in r.text
    r = await client.post(
        "/login?lang=en",
        data={"user": "director", "password": PASSWORD},
        headers={"Accept": "application/json"},
    )
    assert r.status_code == 429 and "Too many failed attempts" in r.json()["message"]
    assert (await client.get("/login.json")).json()["user"] is None
    assert not any(e.action == "login" for e in web.store.audit_log())


async def test_open_redirects_are_not_followed_after_login(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/login", data={"user": "director", "password": PASSWORD, "next": "//evil.example/x"}
    )
    assert r.headers["location"] == "/director"


async def test_actions_without_or_with_a_forged_csrf_token_change_nothing(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    make_tournament(web, 6, start=False)
    csrf = await login(client)
    before = web.desk.version
    for token in (None, "forged-token", csrf[:-1] + ("x" if csrf[-1] != "x" else "y")):
        r = await act(client, token, "start_groups", seed=1)
        assert r.status_code == 403, r.text
        assert "CSRF" in r.json()["message"]
    # A plain form post (no script) without the hidden field is refused the same way.
    r = await client.post(
        "/director/actions/start_groups",
        data={"seed": "1"},
        headers={"referer": "http://mesa.test/director/tournament"},
    )
    assert r.status_code == 303 and r.headers["location"] == "/director/tournament"
    assert "CSRF" in (await client.get("/director/tournament")).text
    # A cross-site post carries the victim's cookie but another Origin: refused too.
    r = await client.post(
        "/director/actions/start_groups",
        data={"seed": "1", "csrf": csrf},
        headers={"Origin": "http://evil.example", "Accept": "application/json"},
    )
    assert r.status_code == 403
    assert web.desk.version == before
    assert web.desk.read(lambda club: club.tournament("2025-03").phase) == "registration"
    assert web.store.audit_log(action="start_groups") == []
    r = await act(client, csrf, "start_groups", seed=1)
    assert r.status_code == 200 and r.json()["ok"]


async def test_logout_needs_the_token_and_ends_the_session(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    csrf = await login(client)
    r = await client.post("/logout", data={"csrf": "wrong"}, headers={"Accept": "application/json"})
    assert r.status_code == 403
    assert (await client.get("/login.json")).json()["user"] == "director"
    r = await client.post("/logout", data={"csrf": csrf})
    assert r.status_code == 303
    client.cookies.delete("mesa_session")
    assert (await client.get("/director.json")).status_code == 401
    assert [e.action for e in web.store.audit_log()] == ["logout", "login"]


async def test_a_stolen_cookie_from_a_closed_session_is_useless(
    client: httpx.AsyncClient, web: WebApp
) -> None:
    csrf = await login(client)
    token = client.cookies["mesa_session"]
    web.store.close_session(token)
    r = await act(client, csrf, "start_groups", seed=1)
    assert r.status_code == 403 and r.json()["error"] == "login_required"
