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
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from mesa.errors import MesaError

DEFAULT_TLS_DIR = Path("/etc/mesa/tls")
# The loopback names are always in the certificate: the hub's own tools and the tests use them.
LOOPBACK_NAMES: tuple[str, ...] = ("localhost", "127.0.0.1")
CA_YEARS = 20  # a venue's CA outlives its hardware; replacing it means touching every table
CERT_DAYS = 825  # the longest validity Apple devices accept for a server certificate


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


def create_ca(files: TlsFiles, venue: str = "Mesa venue") -> None:
    """A new CA certificate (``ca.pem``, 0644) and key (``ca.key``, 0600)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{venue} CA")])
    now = _now()
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


def issue_server_cert(files: TlsFiles, hosts: Iterable[str]) -> None:
    """Sign a server certificate for ``hosts`` (names or addresses, loopback added) with the CA."""
    try:
        ca_cert = x509.load_pem_x509_certificate(files.ca.read_bytes())
        ca_key = _load_key(files.ca_key)
    except (OSError, ValueError) as e:
        raise TlsError(f"the venue CA in {files.dir} cannot be read ({e})") from None
    key = ec.generate_private_key(ec.SECP256R1())
    sans = _san(hosts)
    common = next((str(n.value) for n in sans if isinstance(n, x509.DNSName)), str(sans[0].value))
    now = _now()
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


def ensure_venue_tls(
    directory: str | Path = DEFAULT_TLS_DIR, *, hosts: Iterable[str] = (), venue: str = "Mesa venue"
) -> TlsFiles:
    """Make whatever is missing: the CA once, the server certificate when it is missing or does
    not cover every one of ``hosts`` (a new address reissues it; the CA stays, so the tables
    keep trusting the hub)."""
    files = TlsFiles.in_dir(directory)
    hosts = list(hosts)
    if not files.ca.exists() or not files.ca_key.exists():
        create_ca(files, venue)
        with contextlib.suppress(FileNotFoundError):
            files.cert.unlink()
    wanted = {str(n.value) for n in _san(hosts)}
    if (
        not files.cert.exists()
        or not files.key.exists()
        or not wanted <= set(server_names(files.cert))
    ):
        issue_server_cert(files, hosts)
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
