"""``mesa install hub`` and ``mesa install table``: a venue's machines set up by one command each.

Each puts its units, system user, directories and config files in place and enables its
services; run again it changes nothing that is already right (passwords, the CA and config
files that exist are kept). ``root`` installs into a folder instead of ``/`` (packaging, tests):
there enabling a unit is creating its ``*.wants`` symlink, and nothing is started.

It writes only inside its root (:mod:`mesa.hub.safe_files`): a root that is or passes through a
symbolic link, or a link anywhere on a path it writes (``etc/`` linked elsewhere, a planted
``var/lib/mesa`` or ``x.tmp``), is refused before anything is written; its own files are made
under unique temporary names (``O_EXCL | O_NOFOLLOW``) and renamed into place, and modes and
owners are set on open files, never through a link. ``mesa install table --bundle`` checks
the enrolment bundle (:func:`check_bundle`: its shape, its CA, its host) before installing.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> done = install_table(root, bundle=None)
>>> (root / "etc/systemd/system/multi-user.target.wants/mesa-table.service").is_symlink()
True
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import ssl
import subprocess
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mesa.errors import MesaError
from mesa.hub.safe_files import SafeTree, UnsafePath, read_regular, real_root

SOURCE = Path(__file__).resolve().parents[1]  # the checkout: systemd/, hardware/
UNIT_DIR = Path("etc/systemd/system")
HUB_UNITS: dict[str, str] = {
    "mesa-hub.service": "multi-user.target",
    "mesa-accounts.path": "paths.target",
    "mesa-accounts.service": "",
    "mesa-backup.service": "",
    "mesa-backup.timer": "timers.target",
    # The hub renews the broker's certificate; this reloads the system's Mosquitto when it does.
    "mesa-tls.path": "paths.target",
    "mesa-tls.service": "",
}
# Units of earlier versions, removed on an upgrade (the enrolment desk now runs in mesa hub).
RETIRED_HUB_UNITS: tuple[str, ...] = ("mesa-enrolment.service",)
# Files of earlier versions, removed on an upgrade: the broker's enrolment listener (port
# 8884) had its own shared account and ACL; new tables now call the dashboard over HTTPS, and
# the conf.d file written here no longer names them.
RETIRED_HUB_FILES: tuple[str, ...] = (
    "etc/mosquitto/mesa-enrol.acl",
    "etc/mosquitto/mesa-enrol.passwd",
)
TABLE_UNITS: dict[str, str] = {
    "mesa-enrol.service": "multi-user.target",
    "mesa-table.service": "multi-user.target",
}
HUB_DIRS: tuple[tuple[str, int], ...] = (
    ("var/lib/mesa", 0o750),
    ("var/lib/mesa/backups", 0o750),
    ("var/lib/mesa/accounts", 0o750),
    ("etc/mesa", 0o755),
)
TABLE_DIRS: tuple[tuple[str, int], ...] = (("var/lib/mesa", 0o750), ("etc/mesa", 0o750))
# Written by the broker's and the TLS code (hub/broker/), each through ``<name>.tmp``: checked
# with that name before the installation starts.
HUB_FOREIGN_FILES: tuple[str, ...] = (
    "etc/mesa/tls/ca.pem",
    "etc/mesa/tls/ca.key",
    "etc/mesa/tls/server.pem",
    "etc/mesa/tls/server.key",
    "etc/mesa/hub-credentials.json",
    "etc/mesa/enrol.json",
    "etc/mesa/enrolment.json",
    "etc/mosquitto/mesa.passwd",
)
HUB_FILES: tuple[str, ...] = (
    "etc/sysusers.d/mesa-hub.conf",
    "etc/mosquitto/conf.d/mesa.conf",
    "etc/mosquitto/mesa.acl",
    "etc/mesa/tls/web.pem",
    "etc/mesa/tls/web.key",
)
TABLE_FILES: tuple[str, ...] = (
    "etc/sysusers.d/mesa-table.conf",
    "etc/mesa/table.toml",
    "etc/mesa/enrol.json",
)
MAX_BUNDLE_BYTES = 64 * 1024
# The dashboard's port when mesa-hub.service does not say (HubSettings' default).
DEFAULT_WEB_PORT = 8080


class InstallError(MesaError):
    """Something the installation needs is missing, or it would write outside its root."""


@dataclass
class Report:
    """What an installation did: files written (changed) and the ones left as they were.
    ``say`` hears each step as it begins (``mesa install`` prints them: a Pi takes a while)."""

    changed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    say: Callable[[str], None] | None = None
    steps: list[str] = field(default_factory=list)

    def step(self, what: str) -> None:
        self.steps.append(what)
        if self.say is not None:
            self.say(f"[{len(self.steps)}] {what}")


def _open_root(root: Path) -> SafeTree:
    try:
        return SafeTree(real_root(root))
    except UnsafePath as e:
        raise InstallError(f"{e}; nothing was written") from None


def _preflight(
    tree: SafeTree,
    units: dict[str, str],
    dirs: Iterable[tuple[str, int]],
    files: Iterable[str],
    foreign: Iterable[str] = (),
) -> None:
    """Every path the installation will write, checked before it writes any: none is, or
    passes through, a symbolic link."""
    paths = [str(UNIT_DIR / u) for u in units] + [d for d, _ in dirs] + list(files)
    paths += [p for f in foreign for p in (f, f + ".tmp")]
    # The folders of the *.wants links (the links themselves are ours to replace).
    paths += sorted({str(UNIT_DIR / f"{t}.wants") for t in units.values() if t})
    try:
        for rel in paths:
            tree.check(rel)
    except UnsafePath as e:
        raise InstallError(f"{e}: mesa install writes only inside its root; nothing was written") from None


def _place(tree: SafeTree, rel: str, data: bytes, mode: int, report: Report) -> Path:
    """Write ``root/rel`` if its content differs (atomically); report which it was."""
    (report.changed if tree.write(rel, data, mode) else report.kept).append(rel)
    return tree.root / rel


def _enable(tree: SafeTree, units: dict[str, str], report: Report) -> None:
    """``systemctl enable`` as files: the ``<target>.wants/<unit>`` symlinks."""
    for unit, target in units.items():
        if not target:
            continue
        rel = str(UNIT_DIR / f"{target}.wants" / unit)
        made = tree.link(rel, str(Path("/") / UNIT_DIR / unit))
        (report.changed if made else report.kept).append(rel)


def _retire(tree: SafeTree, units: Iterable[str], report: Report) -> None:
    """Remove units an earlier version installed (their files and ``*.wants`` links)."""
    unit_dir = tree.root / UNIT_DIR
    wants = [d for d in unit_dir.glob("*.wants") if d.is_dir() and not d.is_symlink()]
    for unit in units:
        found = [UNIT_DIR / unit, *(d.relative_to(tree.root) / unit for d in wants)]
        present = [p for p in found if (tree.root / p).is_symlink() or (tree.root / p).exists()]
        if not present:
            continue
        if _live(tree.root):
            subprocess.run(["systemctl", "disable", "--now", unit], capture_output=True)
        for p in present:
            tree.unlink(p)
            report.notes.append(f"removed {p} (retired)")


def _units(tree: SafeTree, units: Iterable[str], source: Path, report: Report) -> None:
    for unit in units:
        src = source / "systemd" / unit
        if not src.exists():
            raise InstallError(f"{src} is missing: run mesa install from the Mesa checkout")
        _place(tree, str(UNIT_DIR / unit), src.read_bytes(), 0o644, report)


def _dirs(tree: SafeTree, dirs: Iterable[tuple[str, int]]) -> None:
    for rel, mode in dirs:
        with tree.folder(rel, mode):
            pass


def _live(root: Path) -> bool:
    return root.resolve() == Path("/")


def _systemctl(
    units: dict[str, str], start: bool, report: Report, *, extra: Iterable[str] = ()
) -> None:
    """On the real system: users, reload, enable (and start) the units."""
    for cmd in (
        ["systemctl", "daemon-reload"],
        ["systemctl", "enable", *(["--now"] if start else []), *[u for u, t in units.items() if t]],
        *([["systemctl", "restart", *extra]] if start and extra else []),
    ):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise InstallError(f"{' '.join(cmd)} failed: {r.stderr.strip()}")
        report.notes.append(" ".join(cmd))


def _sysusers(report: Report) -> None:
    r = subprocess.run(["systemd-sysusers"], capture_output=True, text=True)
    if r.returncode != 0:
        raise InstallError(f"systemd-sysusers failed: {r.stderr.strip()}")
    report.notes.append("systemd-sysusers")


# ── the enrolment bundle ─────────────────────────────────────────────────────────────────
_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


def valid_host(host: str) -> bool:
    """A host name (DNS labels) or an IP address, as the table connects to it.

    >>> [valid_host(h) for h in ("mesa-hub.local", "192.168.1.10", "fe80::1", "a b", "x/y", "")]
    [True, True, True, False, False, False]
    """
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    name = host.removesuffix(".")
    return 0 < len(name) <= 253 and all(_LABEL.fullmatch(label) for label in name.split("."))


def _ca_problem(pem: object) -> str | None:
    """Why ``pem`` is not the venue CA a table can trust (None: it is). The table loads it the
    same way (``ssl``'s ``cadata``, mesa.controller.link.tls_context)."""
    if not isinstance(pem, str) or not pem.strip():
        return "hub.tls_ca (the venue CA) is missing: the table would enrol without TLS"
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    try:
        context.load_verify_locations(cadata=pem)
    except (ssl.SSLError, ValueError) as e:
        return f"hub.tls_ca is not a certificate ({e})"
    if not context.get_ca_certs():
        return "hub.tls_ca is a certificate but not a CA's"
    return None


def check_bundle(data: bytes) -> list[str]:
    """What is wrong with an enrolment bundle (empty: nothing): the JSON the hub writes to
    ``/etc/mesa/enrol.json``, ``{"hub": {"url", "token", "tls_ca"}}`` (what
    mesa.controller.enrol.EnrolBundle reads): the dashboard's ``https://host:port``, the
    venue's token, the venue CA. A bundle of an earlier release (the broker's enrolment
    listener, its shared account) is refused with what to do.

    >>> check_bundle(bytes(range(256)))
    ['not JSON']
    >>> check_bundle(b'{"hub": {"url": "http://h.local:8080", "token": "t"}}')
    ['hub.url must be https:// (the table calls the hub over TLS)', 'hub.tls_ca (the venue CA) is missing: the table would enrol without TLS']
    >>> check_bundle(b'{"hub": {"host": "h.local", "port": 8884, "username": "u", "password": "p"}}')[0][:40]
    'a bundle of an earlier release (the brok'
    """
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return ["not JSON"]
    if not isinstance(doc, dict) or not isinstance(doc.get("hub"), dict):
        return ['no "hub" object']
    hub = doc["hub"]
    if "url" not in hub and ("username" in hub or "port" in hub):
        return [
            "a bundle of an earlier release (the broker's enrolment listener, which the hub no"
            " longer has): run `mesa install hub` on the hub and copy its new /etc/mesa/enrol.json"
        ]
    problems = []
    token = hub.get("token")
    if not isinstance(token, str) or not token or any(c.isspace() for c in token):
        problems.append("hub.token is missing or not a word")
    problems += _url_problems(hub.get("url"))
    ca = _ca_problem(hub.get("tls_ca"))
    if ca:
        problems.append(ca)
    return problems


def _url_problems(url: object) -> list[str]:
    """What is wrong with the bundle's ``hub.url``: ``https://`` a host name or address, a
    port, nothing else."""
    if not isinstance(url, str) or not url:
        return ["hub.url is missing"]
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as e:  # a bad port, a bad IPv6 literal
        return [f"hub.url {url[:80]!r} is not https://host:port ({e}): not a host and port"]
    problems = []
    if parts.scheme != "https":
        problems.append("hub.url must be https:// (the table calls the hub over TLS)")
    host = parts.hostname or ""
    if not host or not valid_host(host):
        problems.append(f"hub.url {url[:80]!r} names no host name or address")
    if port is not None and not 1 <= port <= 65535:
        problems.append(f"hub.url's port {port} is not a port number")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        problems.append("hub.url must be https://host:port, nothing more")
    return problems


def dashboard_url(host: str, unit: Path) -> str:
    """The dashboard as the tables reach it: ``https://host:port``, the port the hub's unit
    gives the dashboard (``MESA_WEB_PORT``; the installed hub always serves HTTPS).

    >>> import tempfile, pathlib
    >>> unit = pathlib.Path(tempfile.mkdtemp()) / "mesa-hub.service"
    >>> _ = unit.write_text("[Service]\\nEnvironment=MESA_WEB_PORT=8443\\n")
    >>> dashboard_url("mesa-hub.local", unit), dashboard_url("fe80::1", unit)
    ('https://mesa-hub.local:8443', 'https://[fe80::1]:8443')
    """
    port = DEFAULT_WEB_PORT
    try:
        found = re.search(r"^Environment=MESA_WEB_PORT=(\d+)\s*$", unit.read_text(), re.M)
    except OSError:
        found = None
    if found:
        port = int(found.group(1))
    name = f"[{host}]" if ":" in host else host
    return f"https://{name}:{port}"


def read_bundle(path: Path) -> bytes:
    """The bundle's bytes once :func:`check_bundle` finds nothing wrong; refused otherwise."""
    try:
        data = read_regular(path, limit=MAX_BUNDLE_BYTES, follow=True)
    except (UnsafePath, OSError) as e:
        raise InstallError(f"{path} cannot be read as an enrolment bundle: {e}") from None
    problems = check_bundle(data)
    if problems:
        raise InstallError(
            f"{path} is not an enrolment bundle: {'; '.join(problems)}; nothing was installed"
        )
    return data


def install_hub(
    root: Path = Path("/"),
    *,
    hub_hosts: Iterable[str] = (),
    source: Path = SOURCE,
    start: bool = True,
    say: Callable[[str], None] | None = None,
) -> Report:
    """The hub: units (hub, table accounts, nightly backup), its user, /var/lib/mesa, the
    broker's Mesa settings, ACLs and accounts, the venue CA and certificate, the hub's
    credentials and the enrolment bundle for new tables (``/etc/mesa/enrol.json``)."""
    with _open_root(Path(root)) as tree:
        units = {**HUB_UNITS, **dict.fromkeys(RETIRED_HUB_UNITS, "")}
        files = (*HUB_FILES, *RETIRED_HUB_FILES)
        _preflight(tree, units, HUB_DIRS, files, HUB_FOREIGN_FILES)
        return _install_hub(tree, list(hub_hosts), source, start, Report(say=say))


def _install_hub(
    tree: SafeTree, hub_hosts: list[str], source: Path, start: bool, report: Report
) -> Report:
    from mesa.hub.broker.accounts import DEFAULT_QUEUE
    from mesa.hub.broker.enrolment import provision_enrolment
    from mesa.hub.broker.mosquitto import LAN_PORT, BrokerPaths, acl_text, production_conf
    from mesa.hub.broker.provision import DEFAULT_PID_FILE, provision_hub
    from mesa.hub.broker.tls import chgrp_for, ensure_venue_tls

    root = tree.root
    hosts = hub_hosts or [f"{socket.gethostname()}.local"]
    report.step("the hub's services (systemd units) and its user")
    _retire(tree, RETIRED_HUB_UNITS, report)
    _units(tree, HUB_UNITS, source, report)
    sysusers = (source / "systemd" / "mesa-hub.sysusers.conf").read_bytes()
    _place(tree, "etc/sysusers.d/mesa-hub.conf", sysusers, 0o644, report)
    _dirs(tree, HUB_DIRS)
    real = BrokerPaths()  # the paths as the installed system sees them
    here = BrokerPaths.under(root)
    report.step("Mosquitto's Mesa settings and access lists")
    _place(tree, "etc/mosquitto/conf.d/mesa.conf", production_conf(real).encode(), 0o644, report)
    _place(tree, "etc/mosquitto/mesa.acl", acl_text().encode(), 0o644, report)
    for rel in RETIRED_HUB_FILES:  # an earlier release's enrolment listener: gone with it
        if tree.unlink(rel):
            report.notes.append(f"removed {rel} (retired)")
    report.step(f"the venue's CA and the hub's certificate ({', '.join(hosts)})")
    tls = ensure_venue_tls(here.tls_dir, hosts=hosts)
    report.step("the hub's broker account and the enrolment bundle for new tables")
    credentials = root / "etc/mesa/hub-credentials.json"
    if tree.read("etc/mesa/hub-credentials.json") is not None:
        report.kept.append("etc/mesa/hub-credentials.json")
    else:
        provision_hub(passwd_file=here.passwd, out=credentials)
        report.changed.append("etc/mesa/hub-credentials.json")
    ca = tls.ca.read_text()
    written = provision_enrolment(
        passwd_file=here.passwd,
        bundle=root / "etc/mesa/enrol.json",
        desk_settings=root / "etc/mesa/enrolment.json",
        db=Path("/var/lib/mesa/hub.sqlite3"),
        pid_file=DEFAULT_PID_FILE,
        real_passwd_file=real.passwd,
        accounts_dir=DEFAULT_QUEUE,
        hub_host=hosts[0],
        hub_url=dashboard_url(hosts[0], source / "systemd" / "mesa-hub.service"),
        table_port=LAN_PORT,
        tls_ca=ca,
    )
    (report.changed if written else report.kept).append("etc/mesa/enrol.json")
    passwd_files = ("etc/mosquitto/mesa.passwd",)
    for rel in passwd_files:
        tree.touch(rel, 0o640)
    # The dashboard's copy of the certificate: Mosquitto's key is its group's, this one the hub's.
    cert, key = tree.read("etc/mesa/tls/server.pem"), tree.read("etc/mesa/tls/server.key")
    if cert is None or key is None:
        raise InstallError("the venue certificate was not made (etc/mesa/tls/server.pem)")
    _place(tree, "etc/mesa/tls/web.pem", cert, 0o644, report)
    _place(tree, "etc/mesa/tls/web.key", key, 0o600, report)
    report.step("enabling the services")
    _enable(tree, HUB_UNITS, report)
    if _live(root):
        report.step("the users, the files' owners, and starting Mosquitto and the hub")
        _sysusers(report)
        for rel in passwd_files:
            tree.chown(rel, "root", "mosquitto")
        # The hub (user mesa) renews the certificates near their end (CertificateKeeper): the
        # folder is the hub's, its group the broker's and set-group-id, so a renewed key is
        # still Mosquitto's to read; the CA's key is the hub's alone.
        tree.chown("etc/mesa/tls", "mesa", "mosquitto")
        with tree.folder("etc/mesa/tls", 0o2750):
            pass
        tree.chown("etc/mesa/tls/ca.key", "mesa", "mesa")
        for rel in ("etc/mesa/tls/server.key", "etc/mesa/tls/server.pem", "etc/mesa/tls/ca.pem"):
            tree.chown(rel, "mesa", "mosquitto")
        chgrp_for(tls, "mosquitto")
        # The hub runs the enrolment desk: it reads enrolment.json, queues accounts.
        for rel in (
            "etc/mesa/hub-credentials.json",
            "etc/mesa/enrolment.json",
            "var/lib/mesa",
            "var/lib/mesa/backups",
            "var/lib/mesa/accounts",
            "etc/mesa/tls/web.key",
        ):
            tree.chown(rel, "mesa", "mesa")
        _systemctl(HUB_UNITS, start, report, extra=["mosquitto", "mesa-hub"])
    report.notes.append(
        f"copy {root / 'etc/mesa/enrol.json'} to each new table (mesa install table --bundle)"
    )
    return report


def install_table(
    root: Path = Path("/"),
    *,
    bundle: Path | None,
    source: Path = SOURCE,
    start: bool = True,
    say: Callable[[str], None] | None = None,
) -> Report:
    """A table's Pi: units (enrolment, table), its user, /var/lib/mesa, ``/etc/mesa/table.toml``
    (the sample, when there is none) and the venue's enrolment bundle (checked first:
    :func:`check_bundle`)."""
    data = read_bundle(Path(bundle)) if bundle is not None else None
    with _open_root(Path(root)) as tree:
        _preflight(tree, TABLE_UNITS, TABLE_DIRS, TABLE_FILES)
        return _install_table(tree, data, source, start, Report(say=say))


def _install_table(
    tree: SafeTree, bundle: bytes | None, source: Path, start: bool, report: Report
) -> Report:
    report.step("the table's services (systemd units) and its user")
    _units(tree, TABLE_UNITS, source, report)
    sysusers = (source / "systemd" / "mesa-table.sysusers.conf").read_bytes()
    _place(tree, "etc/sysusers.d/mesa-table.conf", sysusers, 0o644, report)
    _dirs(tree, TABLE_DIRS)
    if tree.read("etc/mesa/table.toml") is not None:
        report.kept.append("etc/mesa/table.toml")
    else:
        sample = (source / "hardware" / "mesa-table.toml").read_bytes()
        _place(tree, "etc/mesa/table.toml", sample, 0o644, report)
    report.step("the table's settings and the venue's enrolment bundle")
    if bundle is not None:
        _place(tree, "etc/mesa/enrol.json", bundle, 0o600, report)
    elif tree.read("etc/mesa/enrol.json") is None:
        report.notes.append("no enrolment bundle: pass --bundle enrol.json from the hub")
    report.step("enabling the services")
    _enable(tree, TABLE_UNITS, report)
    if _live(tree.root):
        report.step("the users, the files' owners, and starting the table")
        _sysusers(report)
        for rel in ("etc/mesa", "etc/mesa/enrol.json", "var/lib/mesa"):
            tree.chown(rel, "mesa", "mesa")
        _systemctl(TABLE_UNITS, start, report)
    return report
