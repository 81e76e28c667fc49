"""``mesa install hub`` and ``mesa install table``: a venue's machines set up by one command each.

Each puts its units, system user, directories and config files in place and enables its
services; run again it changes nothing that is already right (passwords, the CA and config
files that exist are kept). ``root`` installs into a folder instead of ``/`` (packaging, tests):
there enabling a unit is creating its ``*.wants`` symlink, and nothing is started.

>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> done = install_table(root, bundle=None)
>>> (root / "etc/systemd/system/multi-user.target.wants/mesa-table.service").is_symlink()
True
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mesa.errors import MesaError

SOURCE = Path(__file__).resolve().parents[1]  # the checkout: systemd/, hardware/
UNIT_DIR = Path("etc/systemd/system")
HUB_UNITS: dict[str, str] = {
    "mesa-hub.service": "multi-user.target",
    "mesa-accounts.path": "paths.target",
    "mesa-accounts.service": "",
    "mesa-backup.service": "",
    "mesa-backup.timer": "timers.target",
}
# Units of earlier versions, removed on an upgrade (the enrolment desk now runs in mesa hub).
RETIRED_HUB_UNITS: tuple[str, ...] = ("mesa-enrolment.service",)
TABLE_UNITS: dict[str, str] = {
    "mesa-enrol.service": "multi-user.target",
    "mesa-table.service": "multi-user.target",
}


class InstallError(MesaError):
    """Something the installation needs is missing."""


@dataclass
class Report:
    """What an installation did: files written (changed) and the ones left as they were."""

    changed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _place(root: Path, rel: str, data: bytes, mode: int, report: Report) -> Path:
    """Write ``root/rel`` if its content differs (atomically); report which it was."""
    path = root / rel
    if path.exists() and path.read_bytes() == data:
        if (path.stat().st_mode & 0o777) != mode:
            os.chmod(path, mode)
        report.kept.append(rel)
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(tmp, mode)
    tmp.replace(path)
    report.changed.append(rel)
    return path


def _enable(root: Path, units: dict[str, str], report: Report) -> None:
    """``systemctl enable`` as files: the ``<target>.wants/<unit>`` symlinks."""
    for unit, target in units.items():
        if not target:
            continue
        link = root / UNIT_DIR / f"{target}.wants" / unit
        dest = Path("/") / UNIT_DIR / unit
        if link.is_symlink() and Path(os.readlink(link)) == dest:
            report.kept.append(str(link.relative_to(root)))
            continue
        link.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            link.unlink()
        link.symlink_to(dest)
        report.changed.append(str(link.relative_to(root)))


def _retire(root: Path, units: Iterable[str], report: Report) -> None:
    """Remove units an earlier version installed (their files and ``*.wants`` links)."""
    for unit in units:
        found = [root / UNIT_DIR / unit, *(d / unit for d in (root / UNIT_DIR).glob("*.wants"))]
        present = [p for p in found if p.is_symlink() or p.exists()]  # links may dangle
        if not present:
            continue
        if _live(root):
            subprocess.run(["systemctl", "disable", "--now", unit], capture_output=True)
        for p in present:
            p.unlink()
            report.notes.append(f"removed {p.relative_to(root)} (retired)")


def _units(root: Path, units: Iterable[str], source: Path, report: Report) -> None:
    for unit in units:
        src = source / "systemd" / unit
        if not src.exists():
            raise InstallError(f"{src} is missing: run mesa install from the Mesa checkout")
        _place(root, str(UNIT_DIR / unit), src.read_bytes(), 0o644, report)


def _dirs(root: Path, dirs: Iterable[tuple[str, int]]) -> None:
    for rel, mode in dirs:
        d = root / rel
        d.mkdir(parents=True, exist_ok=True)
        os.chmod(d, mode)


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


def _chown(path: Path, user: str, group: str) -> None:
    with contextlib.suppress(KeyError, PermissionError, LookupError):
        shutil.chown(path, user, group)


def install_hub(
    root: Path = Path("/"),
    *,
    hub_hosts: Iterable[str] = (),
    source: Path = SOURCE,
    start: bool = True,
) -> Report:
    """The hub: units (hub, table accounts, nightly backup), its user, /var/lib/mesa, the
    broker's Mesa settings, ACLs and accounts, the venue CA and certificate, the hub's
    credentials and the enrolment bundle for new tables (``/etc/mesa/enrol.json``)."""
    from mesa.hub.broker.accounts import DEFAULT_QUEUE
    from mesa.hub.broker.enrolment import provision_enrolment
    from mesa.hub.broker.mosquitto import (
        ENROL_PORT,
        LAN_PORT,
        BrokerPaths,
        acl_text,
        enrol_acl_text,
        production_conf,
    )
    from mesa.hub.broker.provision import DEFAULT_PID_FILE, provision_hub
    from mesa.hub.broker.tls import chgrp_for, ensure_venue_tls

    root = Path(root)
    report = Report()
    hosts = list(hub_hosts) or [f"{socket.gethostname()}.local"]
    _retire(root, RETIRED_HUB_UNITS, report)
    _units(root, HUB_UNITS, source, report)
    _place(
        root,
        "etc/sysusers.d/mesa-hub.conf",
        (source / "systemd" / "mesa-hub.sysusers.conf").read_bytes(),
        0o644,
        report,
    )
    _dirs(
        root,
        [
            ("var/lib/mesa", 0o750),
            ("var/lib/mesa/backups", 0o750),
            ("var/lib/mesa/accounts", 0o750),
            ("etc/mesa", 0o755),
        ],
    )
    real = BrokerPaths()  # the paths as the installed system sees them
    here = BrokerPaths.under(root)
    _place(root, "etc/mosquitto/conf.d/mesa.conf", production_conf(real).encode(), 0o644, report)
    _place(root, "etc/mosquitto/mesa.acl", acl_text().encode(), 0o644, report)
    _place(root, "etc/mosquitto/mesa-enrol.acl", enrol_acl_text().encode(), 0o644, report)
    tls = ensure_venue_tls(here.tls_dir, hosts=hosts)
    credentials = root / "etc/mesa/hub-credentials.json"
    if credentials.exists():
        report.kept.append("etc/mesa/hub-credentials.json")
    else:
        provision_hub(passwd_file=here.passwd, out=credentials)
        report.changed.append("etc/mesa/hub-credentials.json")
    ca = tls.ca.read_text()
    existed = (root / "etc/mesa/enrol.json").exists()
    provision_enrolment(
        passwd_file=here.passwd,
        enrol_passwd_file=here.enrol_passwd,
        bundle=root / "etc/mesa/enrol.json",
        desk_settings=root / "etc/mesa/enrolment.json",
        db=Path("/var/lib/mesa/hub.sqlite3"),
        pid_file=DEFAULT_PID_FILE,
        real_passwd_file=real.passwd,
        accounts_dir=DEFAULT_QUEUE,
        hub_host=hosts[0],
        enrol_port=ENROL_PORT,
        table_port=LAN_PORT,
        tls_ca=ca,
    )
    (report.kept if existed else report.changed).append("etc/mesa/enrol.json")
    for p in (here.passwd, here.enrol_passwd):
        p.touch(exist_ok=True)
    # The dashboard's copy of the certificate: Mosquitto's key is its group's, this one the hub's.
    _place(root, "etc/mesa/tls/web.pem", tls.cert.read_bytes(), 0o644, report)
    web_key = _place(root, "etc/mesa/tls/web.key", tls.key.read_bytes(), 0o600, report)
    _enable(root, HUB_UNITS, report)
    if _live(root):
        _sysusers(report)
        for p in (here.passwd, here.enrol_passwd, tls.key):
            _chown(p, "root", "mosquitto")
        chgrp_for(tls, "mosquitto")
        # The hub runs the enrolment desk: it reads enrolment.json, queues accounts.
        for rel in (
            "etc/mesa/hub-credentials.json",
            "etc/mesa/enrolment.json",
            "var/lib/mesa",
            "var/lib/mesa/backups",
            "var/lib/mesa/accounts",
        ):
            _chown(root / rel, "mesa", "mesa")
        _chown(web_key, "mesa", "mesa")
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
) -> Report:
    """A table's Pi: units (enrolment, table), its user, /var/lib/mesa, ``/etc/mesa/table.toml``
    (the sample, when there is none) and the venue's enrolment bundle."""
    root = Path(root)
    report = Report()
    _units(root, TABLE_UNITS, source, report)
    _place(
        root,
        "etc/sysusers.d/mesa-table.conf",
        (source / "systemd" / "mesa-table.sysusers.conf").read_bytes(),
        0o644,
        report,
    )
    _dirs(root, [("var/lib/mesa", 0o750), ("etc/mesa", 0o750)])
    config = root / "etc/mesa/table.toml"
    if config.exists():
        report.kept.append("etc/mesa/table.toml")
    else:
        _place(
            root,
            "etc/mesa/table.toml",
            (source / "hardware" / "mesa-table.toml").read_bytes(),
            0o644,
            report,
        )
    if bundle is not None:
        _place(root, "etc/mesa/enrol.json", Path(bundle).read_bytes(), 0o600, report)
    elif not (root / "etc/mesa/enrol.json").exists():
        report.notes.append("no enrolment bundle: pass --bundle enrol.json from the hub")
    _enable(root, TABLE_UNITS, report)
    if _live(root):
        _sysusers(report)
        for rel in ("etc/mesa", "etc/mesa/enrol.json", "var/lib/mesa"):
            _chown(root / rel, "mesa", "mesa")
        _systemctl(TABLE_UNITS, start, report)
    return report
