"""The director's login: scrypt password hashes, throttled attempts, CSRF tokens.

>>> h = hash_password("tablero", cost=2**10)
>>> verify_password("tablero", h), verify_password("Tablero", h)
(True, False)
>>> clock = [0.0]
>>> th = LoginThrottle(free_attempts=2, now=lambda: clock[0])
>>> [th.attempt("ana", "10.0.0.1") for _ in range(5)]   # counted before checking the password
[0, 0, 0, 1, 1]
>>> th.attempt("ana", "10.0.0.9")                     # another machine is not held up
0
>>> clock[0] += 1.0; th.attempt("ana", "10.0.0.1")
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
    """Login attempts slowed down per client address and per (user, address), counted
    *before* the password is checked, so a burst of concurrent guesses cannot all reach scrypt.

    :meth:`attempt` reserves the attempt (counts it) or says how long to wait. The first
    ``free_attempts`` cost nothing; after that each one doubles the wait (1 s, 2 s, 4 s … up to
    ``max_wait``). A success clears the address's count and remembers the address as the user's.

    Nothing keys on the user name alone: guesses from other machines never lock the director out
    of their own. Only a very high rate of attempts from addresses a user never logged in from
    (more than ``global_budget`` per ``window`` seconds, all addresses together) slows those down
    too; an address the user logged in from before is never held up by that.
    """

    def __init__(
        self,
        free_attempts: int = 3,
        max_wait: float = 300.0,
        forget_after: float = 3600.0,
        now: Callable[[], float] = time.monotonic,
        *,
        free_per_address: int = 10,
        global_budget: int = 60,
        window: float = 60.0,
    ) -> None:
        self.free_attempts = free_attempts
        self.free_per_address = free_per_address
        self.max_wait = max_wait
        self.forget_after = forget_after
        self.global_budget = global_budget
        self.window = window
        self._now = now
        self._lock = threading.Lock()
        self._failures: dict[str, _Failures] = {}
        self._known: dict[str, set[str]] = {}  # user → addresses they logged in from
        self._recent: list[float] = []  # attempts from unknown addresses, within ``window``

    @staticmethod
    def _user(user: str) -> str:
        return user.strip().casefold()

    def _limits(self, user: str, address: str) -> list[tuple[str, int]]:
        return [
            (f"pair:{self._user(user)}|{address}", self.free_attempts),
            (f"addr:{address}", self.free_per_address),
        ]

    def _wait(self, f: _Failures, free: int, now: float) -> float:
        over = f.count - free
        if over <= 0:
            return 0.0
        return max(0.0, f.last + min(self.max_wait, 2.0 ** (over - 1)) - now)

    def _known_address(self, user: str, address: str) -> bool:
        return address in self._known.get(self._user(user), set())

    def _wait_locked(self, user: str, address: str, now: float) -> float:
        waits = []
        for key, free in self._limits(user, address):
            f = self._failures.get(key)
            if f is not None and now - f.last > self.forget_after:
                del self._failures[key]
                f = None
            if f is not None:
                waits.append(self._wait(f, free, now))
        if not self._known_address(user, address):
            self._recent = [t for t in self._recent if now - t < self.window]
            if len(self._recent) >= self.global_budget:
                waits.append(self._recent[0] + self.window - now)
        return max(waits, default=0.0)

    def wait_seconds(self, user: str, address: str) -> int:
        """Whole seconds before another attempt is allowed (0: go ahead); counts nothing."""
        with self._lock:
            return math.ceil(self._wait_locked(user, address, self._now()))

    def attempt(self, user: str, address: str) -> int:
        """Reserve one attempt (0: counted, check the password now) or the whole seconds to
        wait (nothing counted). Atomic: of N concurrent callers only the allowed few get 0."""
        now = self._now()
        with self._lock:
            wait = self._wait_locked(user, address, now)
            if wait > 0:
                return math.ceil(wait)
            for key, _free in self._limits(user, address):
                f = self._failures.setdefault(key, _Failures())
                f.count += 1
                f.last = now
            if not self._known_address(user, address):
                self._recent.append(now)
            return 0

    def failed(self, user: str, address: str) -> None:
        """A failed attempt made without :meth:`attempt` (counts it the same way)."""
        now = self._now()
        with self._lock:
            for key, _free in self._limits(user, address):
                f = self._failures.setdefault(key, _Failures())
                f.count += 1
                f.last = now

    def succeeded(self, user: str, address: str) -> None:
        with self._lock:
            for key, _free in self._limits(user, address):
                self._failures.pop(key, None)
            known = self._known.setdefault(self._user(user), set())
            if len(known) >= 32:  # a bound, not a history
                known.pop()
            known.add(address)
