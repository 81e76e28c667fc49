"""A new table's Pi waits to be adopted: it announces itself and takes the link file it is given.

The Pi carries the venue's enrolment bundle (``/etc/mesa/enrol.json``, the same on every SD
card: the hub's address, the venue CA, the shared enrolment account). ``mesa enrol`` connects
with the Pi's serial as client id, publishes ``mesa/v1/enrol/<serial>/hello`` (retained, with
its hardware check) and waits on ``.../answer``. The director adopts it on the hub; the answer is
the table's link file (table number, its own account, the CA), which is saved atomically; then
``mesa-table.service`` starts with it.

>>> hello_payload("abc1", {"display": "ok"})
b'{"serial": "abc1", "hwcheck": {"display": "ok"}}'
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from mesa.controller.link import tls_context
from mesa.errors import ConfigError
from mesa.protocol import NAMESPACE, ProtocolError, check_table_id

log = logging.getLogger(__name__)

SERIAL_RE = re.compile(r"[0-9a-z][0-9a-z_-]{0,63}")


@dataclass(frozen=True)
class EnrolBundle:
    host: str
    port: int
    username: str
    password: str
    tls_ca: str | None

    @classmethod
    def from_file(cls, path: str | Path) -> EnrolBundle:
        try:
            hub = json.loads(Path(path).read_text(encoding="utf-8"))["hub"]
            return cls(
                str(hub["host"]),
                int(hub["port"]),
                str(hub["username"]),
                str(hub["password"]),
                hub.get("tls_ca"),
            )
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ConfigError(f"{path}: not an enrolment bundle ({e})") from None


def pi_serial(
    cpuinfo: Path = Path("/proc/cpuinfo"), machine_id: Path = Path("/etc/machine-id")
) -> str:
    """The Pi's serial from /proc/cpuinfo (elsewhere the machine id), as enrolment uses it."""
    try:
        for line in cpuinfo.read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip().lower() == "serial" and value.strip().strip("0"):
                return value.strip().lower()
    except OSError:
        pass  # no /proc/cpuinfo serial (not a Pi): the machine id below serves
    try:
        return machine_id.read_text().strip().lower()[:32]
    except OSError:
        raise ConfigError("no serial number and no machine id on this machine") from None


def with_link_table(cfg: Any, link_file: str | Path) -> Any:
    """``cfg`` (a TableConfig) with the table id of its link file: the number the director gave
    at adoption wins over the sample's ``[table] id``."""
    import dataclasses

    try:
        table = check_table_id(json.loads(Path(link_file).read_text(encoding="utf-8"))["table"])
    except (OSError, ValueError, KeyError, TypeError, ProtocolError) as e:
        raise ConfigError(f"{link_file}: not a table link file ({e})") from None
    if table == cfg.table.id:
        return cfg
    return dataclasses.replace(cfg, table=dataclasses.replace(cfg.table, id=table))


def hello_payload(serial: str, hwcheck: dict[str, str]) -> bytes:
    return json.dumps({"serial": serial, "hwcheck": hwcheck}).encode()


def check_answer(payload: bytes | bytearray) -> dict[str, Any]:
    """The link file in an answer, checked before it replaces anything on the Pi."""
    try:
        data = json.loads(payload)
        hub = data["hub"]
        check_table_id(data["table"])
        if not (isinstance(hub["host"], str) and isinstance(hub["password"], str)):
            raise TypeError("host and password must be text")
        int(hub["port"])
        if hub.get("tls_ca") is not None and not isinstance(hub["tls_ca"], str):
            raise TypeError("tls_ca must be PEM text")
    except (ValueError, KeyError, TypeError, ProtocolError) as e:
        raise ConfigError(f"the hub's answer is not a link file ({e})") from None
    return dict(data)


def save_link(path: Path, data: dict[str, Any]) -> None:
    """Write the link file atomically (0600): a power cut leaves the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


class Enrolment:
    """One Pi waiting for its adoption; :meth:`wait` returns the saved link file's contents."""

    def __init__(
        self,
        bundle: EnrolBundle,
        serial: str,
        link_file: Path,
        hwcheck: dict[str, str] | None = None,
    ) -> None:
        if not SERIAL_RE.fullmatch(serial):
            raise ConfigError(f"serial {serial!r} must be 1-64 of a-z 0-9 _ -")
        self.bundle = bundle
        self.serial = serial
        self.link_file = link_file
        self.hwcheck = hwcheck or {}
        self.refused: Any = None  # the broker's reason, if it refused the enrolment account
        self._done = threading.Event()
        self._result: dict[str, Any] | None = None
        self._unannounce: mqtt.MQTTMessageInfo | None = None
        self.topic = f"{NAMESPACE}/enrol/{serial}"
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=serial, protocol=mqtt.MQTTv5)
        c.username_pw_set(bundle.username, bundle.password)
        if bundle.tls_ca is not None:
            c.tls_set_context(tls_context(bundle.tls_ca))
        c.reconnect_delay_set(1, 30)
        c.on_connect = self._on_connect
        c.on_message = self._on_message
        self._client = c

    def _on_connect(self, client: Any, ud: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.refused = reason
            log.error("enrolment refused by the hub's broker: %s", reason)
            return
        client.subscribe(f"{self.topic}/answer", qos=1)
        client.publish(
            f"{self.topic}/hello", hello_payload(self.serial, self.hwcheck), qos=1, retain=True
        )
        log.info("enrolment: announced as %s; waiting for the director", self.serial)

    def _on_message(self, client: Any, ud: Any, msg: mqtt.MQTTMessage) -> None:
        if not msg.payload or self._done.is_set():
            return  # the hub cleared an answer already used
        try:
            data = check_answer(msg.payload)
        except ConfigError as e:
            log.error("enrolment: %s", e)
            return
        save_link(self.link_file, data)
        # The announcement is of no more use: remove it (our ACL allows writing it).
        self._unannounce = client.publish(f"{self.topic}/hello", b"", qos=1, retain=True)
        self._result = data
        self._done.set()

    def wait(self, timeout: float | None = None) -> dict[str, Any] | None:
        """Announce, wait for the answer (None on timeout), save it, disconnect."""
        self._client.connect_async(self.bundle.host, self.bundle.port, keepalive=30)
        self._client.loop_start()
        try:
            self._done.wait(timeout)
        finally:
            if self._unannounce is not None:
                with contextlib.suppress(RuntimeError, ValueError):
                    self._unannounce.wait_for_publish(timeout=5)
            self._client.disconnect()
            self._client.loop_stop()
        return self._result


# ── mesa enrol ─────────────────────────────────────────────────────────────────
def _hwcheck(config: str | None) -> dict[str, str]:
    """A quick hardware check for the announcement: the parts that need no one at the table."""
    if config is None:
        return {}
    try:
        from mesa.controller.config import load_config
        from mesa.controller.hwcheck import run_checks

        cfg = load_config(config)
        results = run_checks(cfg, only={"display", "card"}, say=log.info, timeout=2.0, pause=0.0)
        return {r.part: ("ok" if r.ok else f"FAILED {r.detail}") for r in results}
    except Exception as e:  # the check informs the director; it must never stop enrolment
        return {"hwcheck": f"not run ({e})"[:200]}


def _enrol(args: Any) -> int:
    import sys

    from mesa.cli_options import log_level

    logging.basicConfig(level=log_level(args.log_level),
                        format="%(asctime)s %(name)s %(message)s")
    try:
        bundle = EnrolBundle.from_file(args.bundle)
        serial = args.serial or pi_serial()
        enrolment = Enrolment(bundle, serial, Path(args.link), _hwcheck(args.config))
    except ConfigError as e:
        print(f"mesa enrol: {e}", file=sys.stderr)
        return 2
    print(
        f"mesa enrol: this table is {serial}; adopt it on the hub's dashboard (Mesa nueva)"
        f" or with mesa adopt {serial} N"
    )
    result = enrolment.wait(args.timeout)
    if result is None:
        print("mesa enrol: not adopted yet", file=sys.stderr)
        return 1
    print(f"mesa enrol: adopted as table {result['table']}; link in {args.link}")
    return 0


def register(sub: Any) -> None:
    from mesa.cli_options import add_command, add_log_level, default_text

    p = add_command(
        sub,
        "enrol",
        summary="A new table announces itself to the hub and waits to be adopted",
        description="What systemd/mesa-enrol.service runs on a table's Pi that has no link "
        "file yet. The venue's enrolment bundle (the same on every SD card) says where the hub "
        "is; the director adopts the table on the dashboard (Mesa nueva) or with `mesa adopt`, "
        "and the table's link file arrives here.",
        examples=["mesa enrol --bundle /etc/mesa/enrol.json --link /etc/mesa/table.json "
                  "--config /etc/mesa/table.toml"],
    )
    p.add_argument("--bundle", default="/etc/mesa/enrol.json", metavar="FILE",
                   help="the venue's enrolment bundle")
    p.add_argument("--link", default="/etc/mesa/table.json", metavar="FILE",
                   help="where the link file goes")
    default_text(p.add_argument("--config", metavar="FILE",
                                help="the table's TOML file, for the hardware check it announces"),
                 "no hardware check")
    default_text(p.add_argument("--serial", help="this table's serial"), "the Pi's")
    default_text(p.add_argument("--timeout", type=float, metavar="SECONDS",
                                help="give up after this many seconds"), "never")
    add_log_level(p, "info")
    p.set_defaults(run=_enrol)
