"""The director's login: scrypt password hashes, throttled attempts, CSRF tokens.

>>> h = hash_password("tablero", cost=2**10)
>>> verify_password("tablero", h), verify_password("Tablero", h)
(True, False)
>>> clock = [0.0]
>>> th = LoginThrottle(free_attempts=2, now=lambda: clock[0])
>>> for _ in range(4):
...     th.failed("ana", "10.0.0.1")
>>> th.wait_seconds("ana", "10.0.0.9")        # the user is throttled from any address
2
>>> clock[0] += 2.0; th.wait_seconds("ana", "10.0.0.9")
0
>>> csrf_ok(None, "x"), csrf_ok("abc", "abc")
(False, True)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

# scrypt with N = 2**14, r = 8, p = 1 needs 16 MiB and ~50 ms here: slow enough to make
# guessing expensive, fast enough for a Pi to check one login.
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1


def hash_password(password: str, *, cost: int = SCRYPT_N) -> str:
    """``scrypt$N$r$p$salt$hash`` (base64), a self-describing hash that can be re-tuned later."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(
        password.encode("utf-8"),
        salt=salt,
        n=cost,
        r=SCRYPT_R,
        p=SCRYPT_P,
        dklen=32,
        maxmem=128 * cost * SCRYPT_R * 2,
    )
    b64 = base64.b64encode
    return f"scrypt${cost}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    """True when ``password`` matches ``stored``; constant-time, False for malformed hashes."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        n_i, r_i, p_i = int(n), int(r), int(p)
        expected = base64.b64decode(digest)
        got = hashlib.scrypt(
            password.encode("utf-8"),
            salt=base64.b64decode(salt),
            n=n_i,
            r=r_i,
            p=p_i,
            dklen=len(expected),
            maxmem=128 * n_i * r_i * 2,
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


def new_token() -> str:
    """A random, URL-safe secret (session ids and CSRF tokens)."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What the store keeps of a session id: a leaked database does not leak live sessions."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def csrf_ok(expected: str | None, given: object) -> bool:
    """The form's (or header's) CSRF token equals the session's, compared in constant time
    (a repeated field or a JSON number is not a token)."""
    if not expected or not isinstance(given, str) or not given:
        return False
    return hmac.compare_digest(expected.encode("utf-8"), given.encode("utf-8"))


@dataclass
class _Failures:
    count: int = 0
    last: float = 0.0


class LoginThrottle:
    """Failed logins slow down further attempts, per user name and per client address.

    The first ``free_attempts`` failures cost nothing; after that each failure doubles the wait
    (1 s, 2 s, 4 s … up to ``max_wait``). Keying on the user *and* the address stops both one
    machine guessing many users and many machines guessing one user. A success clears both.
    """

    def __init__(
        self,
        free_attempts: int = 3,
        max_wait: float = 300.0,
        forget_after: float = 3600.0,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free_attempts = free_attempts
        self.max_wait = max_wait
        self.forget_after = forget_after
        self._now = now
        self._lock = threading.Lock()
        self._failures: dict[str, _Failures] = {}

    def _keys(self, user: str, address: str) -> tuple[str, str]:
        return (f"user:{user.strip().casefold()}", f"addr:{address}")

    def _wait(self, f: _Failures, now: float) -> float:
        over = f.count - self.free_attempts
        if over <= 0:
            return 0.0
        return max(0.0, f.last + min(self.max_wait, 2.0 ** (over - 1)) - now)

    def wait_seconds(self, user: str, address: str) -> int:
        """Whole seconds before another attempt is allowed (0: go ahead)."""
        now = self._now()
        with self._lock:
            waits = [
                self._wait(f, now)
                for k in self._keys(user, address)
                if (f := self._failures.get(k)) is not None
            ]
        return math.ceil(max(waits, default=0.0))

    def failed(self, user: str, address: str) -> None:
        now = self._now()
        with self._lock:
            for key in self._keys(user, address):
                f = self._failures.setdefault(key, _Failures())
                if now - f.last > self.forget_after:
                    f.count = 0
                f.count += 1
                f.last = now

    def succeeded(self, user: str, address: str) -> None:
        with self._lock:
            for key in self._keys(user, address):
                self._failures.pop(key, None)
