"""The venue's certificate authority and the certificates it signs (broker, dashboard).

The club's Wi-Fi is shared with members' phones, so the tables and the director's phone talk to
the hub over TLS. There is no public name to get a public certificate for: ``mesa provision-hub``
makes a certificate authority of the venue's own (``ca.pem``; its key never leaves the hub) and
signs the hub's certificate with it. The tables carry ``ca.pem`` in their link file and trust
nothing else; a director's phone trusts the dashboard once ``ca.pem`` is installed on it.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> files = ensure_venue_tls(d, hosts=["hub.local", "192.168.1.10"])
>>> files.ca.read_text().startswith("-----BEGIN CERTIFICATE-----")
True
>>> sorted(server_names(files.cert))
['127.0.0.1', '192.168.1.10', 'hub.local', 'localhost']
>>> ensure_venue_tls(d, hosts=["hub.local", "192.168.1.10"]).cert == files.cert  # idempotent
True

The server certificate lives :data:`CERT_DAYS`; the hub renews it (and the dashboard's copy)
when fewer than :data:`RENEW_DAYS` remain, at its start and daily (:class:`CertificateKeeper`).
The CA stays: the tables trust the CA, not a certificate, so a renewed one needs no visit.

>>> later = _now() + dt.timedelta(days=CERT_DAYS - RENEW_DAYS + 1)
>>> renewal_due(files, now=later), renewal_due(files)
(True, False)
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from mesa.errors import MesaError

log = logging.getLogger("mesa.hub.tls")

DEFAULT_TLS_DIR = Path("/etc/mesa/tls")
# The loopback names are always in the certificate: the hub's own tools and the tests use them.
LOOPBACK_NAMES: tuple[str, ...] = ("localhost", "127.0.0.1")
CA_YEARS = 20  # a venue's CA outlives its hardware; replacing it means touching every table
CERT_DAYS = 825  # the longest validity Apple devices accept for a server certificate
# Renewed this long before it ends: months of daily retries if the hub cannot write the files.
RENEW_DAYS = 90
# The director is told of the CA's own end this long before (a new CA means visiting every table).
CA_NOTICE_DAYS = 365


class TlsError(MesaError):
    """The venue's certificates cannot be made or read."""


@dataclass(frozen=True)
class TlsFiles:
    """The files of a venue: the CA certificate (public), the server certificate and its key."""

    dir: Path
    ca: Path
    ca_key: Path
    cert: Path
    key: Path

    @classmethod
    def in_dir(cls, directory: str | Path) -> TlsFiles:
        d = Path(directory)
        return cls(d, d / "ca.pem", d / "ca.key", d / "server.pem", d / "server.key")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _write(path: Path, data: bytes, mode: int) -> None:
    """Write atomically with ``mode`` from the start (a key is never readable by others)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(tmp, mode)
    tmp.replace(path)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _load_key(path: Path) -> ec.EllipticCurvePrivateKey:
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise TlsError(f"{path}: not an EC private key")
    return key


def create_ca(
    files: TlsFiles, venue: str = "Mesa venue", *, now: dt.datetime | None = None
) -> None:
    """A new CA certificate (``ca.pem``, 0644) and key (``ca.key``, 0600)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{venue} CA")])
    now = now or _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=365 * CA_YEARS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    _write(files.ca_key, _key_pem(key), 0o600)
    _write(files.ca, cert.public_bytes(serialization.Encoding.PEM), 0o644)


def _san(hosts: Iterable[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = []
    seen: set[str] = set()
    for host in [*hosts, *LOOPBACK_NAMES]:
        host = host.strip()
        if not host or host in seen:
            continue
        seen.add(host)
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return names


def issue_server_cert(
    files: TlsFiles, hosts: Iterable[str], *, now: dt.datetime | None = None
) -> None:
    """Sign a server certificate for ``hosts`` (names or addresses, loopback added) with the CA.
    The key is written before the certificate: a reader never pairs the new certificate with
    the old key (Mosquitto reads both on a reload)."""
    try:
        ca_cert = x509.load_pem_x509_certificate(files.ca.read_bytes())
        ca_key = _load_key(files.ca_key)
    except (OSError, ValueError) as e:
        raise TlsError(f"the venue CA in {files.dir} cannot be read ({e})") from None
    key = ec.generate_private_key(ec.SECP256R1())
    sans = _san(hosts)
    common = next((str(n.value) for n in sans if isinstance(n, x509.DNSName)), str(sans[0].value))
    now = now or _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=CERT_DAYS))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    # 0640: Mosquitto reads the key through its group (see chgrp_for).
    _write(files.key, _key_pem(key), 0o640)
    _write(files.cert, cert.public_bytes(serialization.Encoding.PEM), 0o644)


def server_names(cert_path: Path) -> list[str]:
    """The names and addresses a server certificate is valid for."""
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return [str(n.value) for n in san]


def not_after(cert_path: Path) -> dt.datetime:
    """When a certificate (PEM) stops being valid (UTC)."""
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    except (OSError, ValueError) as e:
        raise TlsError(f"{cert_path} cannot be read ({e})") from None
    return cert.not_valid_after_utc


def _expiring(cert_path: Path, now: dt.datetime) -> bool:
    """Missing, unreadable, or fewer than :data:`RENEW_DAYS` left at ``now``."""
    try:
        return not_after(cert_path) - now < dt.timedelta(days=RENEW_DAYS)
    except TlsError:
        return True


def renewal_due(files: TlsFiles, *, now: dt.datetime | None = None) -> bool:
    """Whether the server certificate must be issued again (missing, or near its end)."""
    return not files.key.exists() or _expiring(files.cert, now or _now())


def ensure_venue_tls(
    directory: str | Path = DEFAULT_TLS_DIR,
    *,
    hosts: Iterable[str] = (),
    venue: str = "Mesa venue",
    now: dt.datetime | None = None,
) -> TlsFiles:
    """Make whatever is missing: the CA once, the server certificate when it is missing, near
    its end (:func:`renewal_due`) or does not cover every one of ``hosts`` (a new address
    reissues it; the CA stays, so the tables keep trusting the hub)."""
    files = TlsFiles.in_dir(directory)
    hosts = list(hosts)
    if not files.ca.exists() or not files.ca_key.exists():
        create_ca(files, venue, now=now)
        with contextlib.suppress(FileNotFoundError):
            files.cert.unlink()
    wanted = {str(n.value) for n in _san(hosts)}
    if renewal_due(files, now=now) or not wanted <= set(server_names(files.cert)):
        issue_server_cert(files, hosts, now=now)
    return files


def chgrp_for(files: TlsFiles, group: str) -> bool:
    """Let ``group`` (the broker's) read the server key; False where that group does not exist."""
    import grp

    try:
        gid = grp.getgrnam(group).gr_gid
        os.chown(files.key, -1, gid)
    except (KeyError, PermissionError):
        return False
    return True


def uvicorn_tls_options(cert: str | Path | None, key: str | Path | None) -> dict[str, str]:
    """uvicorn's ``ssl_certfile``/``ssl_keyfile`` for the dashboard (settings ``tls_cert`` and
    ``tls_key``; the hub's ``server.pem``/``server.key`` serve); empty for plain HTTP.

    >>> uvicorn_tls_options(None, None)
    {}
    """
    if cert is None and key is None:
        return {}
    if cert is None or key is None:
        raise TlsError("HTTPS needs both tls_cert and tls_key")
    return {"ssl_certfile": str(cert), "ssl_keyfile": str(key)}


# ── renewal in the running hub ────────────────────────────────────────────────────────────
CHECK_INTERVAL = 24 * 3600.0  # seconds of the monotonic clock between two checks


@dataclass(frozen=True)
class TlsState:
    """What the last check found (the director's page reads it).

    ``renewed`` names the certificates issued again by that check (``broker``, ``dashboard``);
    ``ca_notice`` is set from :data:`CA_NOTICE_DAYS` before the CA's end; ``error`` says why
    a renewal that was due could not be done (it is tried again at the next check)."""

    checked: dt.datetime
    cert_expires: dt.datetime | None
    ca_expires: dt.datetime | None
    renewed: tuple[str, ...] = ()
    error: str | None = None

    @property
    def ca_notice(self) -> bool:
        return self.ca_expires is not None and self.ca_expires - self.checked < dt.timedelta(
            days=CA_NOTICE_DAYS
        )

    @property
    def ca_days_left(self) -> int | None:
        return None if self.ca_expires is None else (self.ca_expires - self.checked).days


class CertificateKeeper:
    """Keeps the hub's server certificates alive: the hub calls :meth:`check` at its start and
    :meth:`tick` from its slow timer (a check once a day).

    A check reissues the broker's certificate (``server.pem``/``server.key`` in ``tls_dir``)
    when :func:`renewal_due`, for the names it already covers, and then asks the broker to
    reload (``reload_broker``: Mosquitto 2 re-reads its listeners' certificates on SIGHUP). The
    dashboard's copy (``web_cert``/``web_key``, where ``mesa install hub`` puts one) is
    replaced by the fresh server certificate when it is near its end too, and the running
    dashboard is told (``reload_web``). The CA is never touched. ``clock`` is the wall clock
    the certificates' dates are read against, ``monotonic`` the one the day between two
    checks is counted on (tests move both).
    """

    def __init__(
        self,
        tls_dir: str | Path,
        *,
        web_cert: Path | None = None,
        web_key: Path | None = None,
        reload_broker: Callable[[], bool] | None = None,
        reload_web: Callable[[], None] | None = None,
        clock: Callable[[], dt.datetime] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.files = TlsFiles.in_dir(tls_dir)
        self.web_cert, self.web_key = web_cert, web_key
        self.reload_broker = reload_broker
        self.reload_web = reload_web
        self._clock = clock or _now
        # The day between checks is counted on the monotonic clock: a Pi without a real-time
        # clock may boot with a wall clock far off, and NTP then moves it either way.
        self._monotonic = monotonic
        self._checked_at: float | None = None
        self.state: TlsState | None = None
        self._lock = threading.Lock()

    def tick(self) -> TlsState | None:
        """:meth:`check` when a day has passed since the last one, else None."""
        last = self._checked_at
        if last is not None and self._monotonic() - last < CHECK_INTERVAL:
            return None
        return self.check()

    def check(self) -> TlsState:
        """Renew what is due, reload what was renewed, and note the CA's end."""
        with self._lock:
            now = self._clock()
            self._checked_at = self._monotonic()
            renewed: list[str] = []
            error = None
            try:
                if renewal_due(self.files, now=now):
                    self._renew_broker(now)
                    renewed.append("broker")
                if self._serves_server_pem():
                    if renewed and self.reload_web is not None:
                        self.reload_web()  # the same files: only the running server to tell
                        renewed.append("dashboard")
                elif self._web_due(now):
                    self._renew_web()
                    renewed.append("dashboard")
            except (TlsError, OSError, ValueError) as e:
                error = f"{type(e).__name__}: {e}"
                log.error("the hub's certificates could not be renewed: %s", error)
            self.state = TlsState(
                checked=now,
                cert_expires=_expiry_or_none(self.files.cert),
                ca_expires=_expiry_or_none(self.files.ca),
                renewed=tuple(renewed),
                error=error,
            )
            return self.state

    def _renew_broker(self, now: dt.datetime) -> None:
        if not self.files.ca.exists() or not self.files.ca_key.exists():
            # Never a new CA from here: every table would refuse the hub until visited.
            raise TlsError(f"no venue CA in {self.files.dir}: run `mesa install hub`")
        try:
            # The names the tables reach the hub by: only the old certificate knows them.
            hosts = server_names(self.files.cert)
        except (OSError, ValueError, x509.ExtensionNotFound) as e:
            raise TlsError(
                f"{self.files.cert} cannot be read ({e}): run `mesa install hub --hub-host ...`"
            ) from None
        group = self.files.key.stat().st_gid if self.files.key.exists() else None
        issue_server_cert(self.files, hosts, now=now)
        if group is not None:
            # Mosquitto reads the key through its group: keep the one the old key had.
            with contextlib.suppress(OSError):
                os.chown(self.files.key, -1, group)
        log.warning(
            "the broker's certificate was renewed (valid to %s)", not_after(self.files.cert)
        )
        if self.reload_broker is not None and not self.reload_broker():
            log.error(
                "the broker's certificate was renewed but Mosquitto could not be told: "
                "reload it (systemctl reload mosquitto)"
            )

    def _serves_server_pem(self) -> bool:
        return self.web_cert is not None and self.web_cert.resolve() == self.files.cert.resolve()

    def _web_due(self, now: dt.datetime) -> bool:
        if self.web_cert is None or self.web_key is None:
            return False
        return not self.web_key.exists() or _expiring(self.web_cert, now)

    def _renew_web(self) -> None:
        assert self.web_cert is not None and self.web_key is not None
        _write(self.web_key, self.files.key.read_bytes(), 0o600)
        _write(self.web_cert, self.files.cert.read_bytes(), 0o644)
        log.warning("the dashboard's certificate was renewed")
        if self.reload_web is not None:
            self.reload_web()


def _expiry_or_none(path: Path) -> dt.datetime | None:
    try:
        return not_after(path)
    except TlsError:
        return None
