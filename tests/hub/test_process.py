"""``mesa hub``'s process: its certificates checked at its start (and daily, on the desk's tick)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from mesa.hub.broker.mosquitto import PrivateMosquitto
from mesa.hub.broker.tls import CERT_DAYS, ensure_venue_tls, not_after
from mesa.hub.process import HubProcess
from support.harness import hub_settings

pytestmark = pytest.mark.broker


def test_the_hub_renews_certificates_near_their_end_at_its_start(
    tmp_path: Path, mosquitto: PrivateMosquitto, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A venue 26 months on: the broker's and the dashboard's certificates have 25 days left.
    The hub renews both before it serves, with the same CA; the dashboard serves the new one;
    the director's page gets the keeper."""
    import ssl

    from mesa.hub.broker import provision

    # No system Mosquitto of this machine is signalled: the venue's pid file is the test's.
    monkeypatch.setattr(provision, "DEFAULT_PID_FILE", tmp_path / "no-mosquitto.pid")
    made = dt.datetime.now(dt.UTC) - dt.timedelta(days=CERT_DAYS - 25)
    files = ensure_venue_tls(tmp_path / "tls", hosts=["localhost"], now=made)
    ca = files.ca.read_bytes()
    web_cert, web_key = files.dir / "web.pem", files.dir / "web.key"
    web_cert.write_bytes(files.cert.read_bytes())
    web_key.write_bytes(files.key.read_bytes())
    old_end = not_after(files.cert)
    settings = hub_settings(
        tmp_path / "hub.sqlite3", mosquitto, tls_dir=files.dir, tls_cert=web_cert,
        tls_key=web_key, port=0, backup_dir=tmp_path / "backups",
    )  # fmt: skip
    process = HubProcess(settings).start()
    try:
        assert process.tls is not None and process.tls.state is not None
        assert process.tls.state.renewed == ("broker", "dashboard")
        assert not_after(files.cert) > old_end and files.ca.read_bytes() == ca
        assert web_cert.read_bytes() == files.cert.read_bytes()
        assert process.web.site.tls is process.tls
        host, port = process.url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
        served = ssl.get_server_certificate((host, int(port)))
        assert served.strip() == web_cert.read_text().strip()
        assert process.tls.tick() is None  # the next check is a day away
    finally:
        process.stop()


def test_the_hub_backs_an_older_store_up_before_it_migrates_it(
    tmp_path: Path, mosquitto: PrivateMosquitto
) -> None:
    """`mesa hub` on a store of an earlier version (here the store version 2 of the fixture,
    taken back to the first release's: no version): a backup in the backup folder first, then
    the store migrated, then the hub serves it."""
    import shutil
    import sqlite3

    from mesa.hub.backup import backups
    from mesa.hub.store_version import STORE_VERSION, file_version

    db = tmp_path / "hub.sqlite3"
    shutil.copyfile(Path(__file__).parents[1] / "fixtures" / "store_v2.sqlite3", db)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 0")
    conn.close()
    settings = hub_settings(db, mosquitto, web=False, backup_dir=tmp_path / "backups")
    process = HubProcess(settings).start()
    try:
        assert process.upgraded is not None and process.upgraded.found == 0
        assert backups(tmp_path / "backups") == [process.upgraded.backup]
        assert file_version(process.upgraded.backup) == 0
        assert file_version(db) == STORE_VERSION
        assert process.hub is not None and process.hub.store.event_count("3") == 8
    finally:
        process.stop()
    again = HubProcess(settings).start()  # current now: no second backup
    try:
        assert again.upgraded is None and len(backups(tmp_path / "backups")) == 1
    finally:
        again.stop()
