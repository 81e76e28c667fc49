"""The hub process: ingest, tournament desk and dashboard together (``mesa hub``).

    process = HubProcess(HubSettings.from_env()).start()   # broker connected, desk, dashboard
    process.url                                             # 'http://127.0.0.1:8080/'
    process.stop()

Three threads meet here and nothing polls: paho's thread commits table messages and calls the
ingest's listeners; the desk's listener only queues a sync on the desk's own thread
(:meth:`~mesa.hub.desk.games.backgammon.TournamentDesk.wake`), and the dashboard's listener only schedules a
refresh of the live feed on the event loop (``call_soon_threadsafe``). A committed result thus
reaches the standings and the browsers without a fixed sleep in between.

With ``enrolment_credentials`` set the process also runs the enrolment desk
(:class:`~mesa.hub.broker.enrolment.EnrolmentDesk`): new tables call the dashboard's ``POST
/enrol/hello`` (:mod:`~mesa.hub.web.http.enrol`), the dashboard lists them ("Mesa nueva") and
the director adopts them; the desk's own broker connection reads the tables' statuses only; the
slow tick carries out the adoptions ``mesa adopt`` left in the store.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from mesa.errors import MesaError
from mesa.hub.backup import backup
from mesa.hub.broker.tls import CertificateKeeper
from mesa.hub.desk.games.backgammon import TournamentDesk
from mesa.hub.desk.make import make_desk
from mesa.hub.ingest.app import Hub
from mesa.hub.ingest.ports import Commit
from mesa.hub.settings import HubSettings
from mesa.hub.store_version import Upgrade, upgrade

log = logging.getLogger(__name__)

# The desk has nothing that changes with time alone today; this slow wake is the safety net for
# scheduled work (a match start planned for a time), never the path of an event.
# It also carries out `mesa adopt`'s requests (the command waits for it).
DESK_TICK_SECONDS = 5.0


class HubProcess:
    """See the module docstring. ``settings.web`` False runs without the dashboard."""

    def __init__(self, settings: HubSettings) -> None:
        self.settings = settings
        self.hub: Hub | None = None
        self.desk: TournamentDesk | None = None
        self.enrolment: Any = None  # mesa.hub.broker.enrolment.EnrolmentDesk when configured
        self.web: Any = None  # mesa.hub.web.app.WebApp when the dashboard runs
        self.server: Any = None  # mesa.hub.web.http.server.BackgroundServer
        self.url = ""
        self.tls: CertificateKeeper | None = None
        self.upgraded: Upgrade | None = None  # what start() did to an older store
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def start(self, *, wait: float | None = 30.0) -> HubProcess:
        # Before anything opens the store: a newer one is refused (StoreTooNew, a MesaError:
        # `mesa hub` says why and exits), an older one backed up and then migrated.
        s = self.settings
        self.upgraded = upgrade(s.db, lambda: backup(s.db, s.backup_dir, keep=s.backup_keep))
        if self.upgraded is not None:
            u = self.upgraded
            log.warning("store upgraded from version %d to %d; the store as it was: %s",
                        u.found, u.reached, u.backup)  # fmt: skip
        # Before anything serves: the broker and the dashboard start with certificates that
        # are not near their end (and the system's Mosquitto is told to reload them).
        self.tls = self._start_tls()
        self.hub = Hub(self.settings).start(wait=wait)
        try:
            self.desk = make_desk(self.hub, self.settings)
            self.enrolment = self._start_enrolment()
            if self.settings.web:
                from mesa.hub.broker.tls import uvicorn_tls_options
                from mesa.hub.web.app import WebApp
                from mesa.hub.web.http.server import BackgroundServer

                self.web = WebApp(
                    self.hub, self.settings, desk=self.desk, enrolment=self.enrolment
                )
                # HTTPS when the venue's certificate is configured (docs/install.md).
                tls = uvicorn_tls_options(self.settings.tls_cert, self.settings.tls_key)
                self.server = BackgroundServer(
                    self.web, self.settings.host, self.settings.port, tls=tls
                ).start()
                self.url = self.server.url
                self.web.site.tls = self.tls  # the director's page shows the CA's end
            # Only now does the desk plan: every game's desk (the dashboard's domino desk) has
            # published its seats to the venue, so a player whose domino game is still on is
            # not called to a backgammon table by a desk that has not heard of it yet.
            self.hub.ingest.listeners.append(self._committed)
            self.desk.wake()  # what was committed while the hub was down
            self._ticker = threading.Thread(target=self._tick, name="mesa-desk-tick", daemon=True)
            self._ticker.start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start_enrolment(self) -> Any:
        """The enrolment desk on the hub's own store, if its credentials are configured. A
        file that cannot be read leaves the hub running without it (a tournament needs no new
        tables); the error is logged and the director's home says the desk did not start."""
        path = self.settings.enrolment_credentials
        if path is None:
            return None
        from mesa.hub.broker.enrolment import EnrolmentDesk, EnrolmentSettings

        try:
            settings = EnrolmentSettings.from_file(path, db=self.settings.db)
        except MesaError as e:
            log.error("no enrolment desk: %s", e)
            return None
        return EnrolmentDesk(settings).start()

    def _start_tls(self) -> CertificateKeeper | None:
        """The keeper of the venue's certificates (setting ``tls_dir``), checked once now."""
        if self.settings.tls_dir is None:
            return None
        keeper = CertificateKeeper(
            self.settings.tls_dir,
            web_cert=self.settings.tls_cert,
            web_key=self.settings.tls_key,
            reload_broker=self._reload_broker,
            reload_web=self._reload_web,
        )
        keeper.check()  # a failure is logged and shown to the director, never fatal
        return keeper

    def _reload_broker(self) -> bool:
        """SIGHUP to the broker: Mosquitto 2 re-reads its listeners' certificates."""
        if self.hub is not None and self.hub.broker is not None:
            self.hub.broker.reload()
            return True
        from mesa.hub.broker.provision import DEFAULT_PID_FILE, reload_broker

        return reload_broker(DEFAULT_PID_FILE)

    def _reload_web(self) -> None:
        s = self.settings
        if self.server is not None and s.tls_cert is not None and s.tls_key is not None:
            self.server.reload_tls(s.tls_cert, s.tls_key)

    def _committed(self, commit: Commit) -> None:
        if self.desk is not None:
            self.desk.wake(commit.rows)  # folded as committed, not read back from SQLite

    def _unlisten(self) -> None:
        if self.hub is not None and self._committed in self.hub.ingest.listeners:
            self.hub.ingest.listeners.remove(self._committed)

    def _tick(self) -> None:
        while not self._stop.wait(DESK_TICK_SECONDS):
            if self.tls is not None:
                try:
                    self.tls.tick()  # a check once a day
                except Exception:  # the tick must keep running
                    log.exception("the certificate check failed")
            if self.desk is not None:
                self.desk.wake()
            enrolment = self.enrolment
            if enrolment is not None:
                try:
                    enrolment.serve_requests()
                except Exception:  # the tick must keep running
                    log.exception("enrolment requests failed")

    def stop(self) -> None:
        """Dashboard first (its streams end), then the desk and the enrolment desk, then the
        hub (commits, says offline, disconnects); each step even if one before it failed."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(5)  # not mid-way through an adoption when the desk stops
        steps = []
        if self.server is not None:
            steps.append(self.server.stop)
        if self.web is not None:
            steps.append(self.web.close)
        if self.hub is not None:
            steps.append(self._unlisten)
        if self.desk is not None:
            steps.append(self.desk.close)
        if self.enrolment is not None:
            steps.append(self.enrolment.stop)
        if self.hub is not None:
            steps.append(self.hub.stop)
        errors: list[BaseException] = []
        for step in steps:
            try:
                step()
            except Exception as e:  # keep stopping the rest
                errors.append(e)
        self.server = self.web = self.desk = self.enrolment = None
        if errors:
            raise errors[0]
