"""A private Mosquitto for tests: loopback, a free port, its own config, passwords and ACL.

Every table id in :data:`TEST_TABLES` and the hub have accounts; :func:`table_password` and
:data:`HUB_PASSWORD` give their passwords. More accounts can be added while it runs
(:meth:`PrivateMosquitto.add_user` reloads the broker).

>>> table_password("t3")
'pw-t3'
"""

from __future__ import annotations

from pathlib import Path

from mesa.hub.broker.mosquitto import (
    ENROL_DESK_USERNAME,
    PrivateMosquitto,
    find_mosquitto,
)
from mesa.protocol import HUB_USERNAME

HUB_PASSWORD = "hub-secret"
DESK_PASSWORD = "desk-secret"  # the hub's enrolment desk
TEST_TABLES: tuple[str, ...] = tuple(f"t{i}" for i in range(1, 13))


def table_password(table: str) -> str:
    return f"pw-{table}"


def have_mosquitto() -> bool:
    return find_mosquitto() is not None


def broker_users(tables: tuple[str, ...] = TEST_TABLES) -> dict[str, str]:
    users = {HUB_USERNAME: HUB_PASSWORD}
    users.update({t: table_password(t) for t in tables})
    return users


def start_broker(
    workdir: str | Path, *, tables: tuple[str, ...] = TEST_TABLES, **kwargs: object
) -> PrivateMosquitto:
    """Start a private Mosquitto with accounts for the hub and ``tables``; the caller stops it
    (``stop()``, or ``kill()`` for a kill -9, then ``restart()``)."""
    return PrivateMosquitto(workdir, users=broker_users(tables), **kwargs).start()  # type: ignore[arg-type]


def start_venue_broker(
    workdir: str | Path, tls_dir: str | Path, *, tables: tuple[str, ...] = TEST_TABLES
) -> PrivateMosquitto:
    """A broker laid out as a venue's: the plain loopback listener (``port``), the TLS listener
    (``tls_port``), the hub's enrolment desk's account; the certificates are those in
    ``tls_dir`` (``ensure_venue_tls``). (New tables call the hub over HTTPS, not the broker.)"""
    users = broker_users(tables)
    users[ENROL_DESK_USERNAME] = DESK_PASSWORD
    return PrivateMosquitto(workdir, users=users, tls_dir=tls_dir).start()
