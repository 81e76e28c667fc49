"""A new table's Pi waits to be adopted: it announces itself and takes the link file it is given.

The Pi carries the venue's enrolment bundle (``/etc/mesa/enrol.json``, the same on every SD
card: the hub's address, the venue CA, the shared enrolment account). On first boot ``mesa
enrol`` makes the Pi's key pair (``enrol.key`` beside the link file, :func:`load_or_make_key`);
its screen shows the pairing code derived from the public key ("Mesa nueva · código 4F7-2K9",
:mod:`~mesa.controller.enrol_screen`). It calls the hub every few seconds: publishes
``mesa/v1/enrol/<id>/hello`` (retained: its serial, public key and hardware check; ``<id>`` is
named by the key) and reads ``.../answer``. The director adopts it on the hub by number and
code; the answer is the table's link file sealed to this Pi's key (:mod:`mesa.pairing`), which
is opened, checked and saved atomically; then ``mesa-table.service`` starts with it.

>>> from mesa.pairing import public_key
>>> json.loads(hello_payload("abc1", public_key(bytes(32)), {"display": "ok"}))["serial"]
'abc1'
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from mesa.controller.link import tls_context
from mesa.errors import ConfigError
from mesa.pairing import (
    MAX_SEALED_BYTES,
    PairingError,
    b64,
    enrolment_id,
    new_private_key,
    open_sealed,
    pairing_code,
    public_key,
)
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


def hello_payload(serial: str, public: bytes, hwcheck: dict[str, str]) -> bytes:
    return json.dumps({"serial": serial, "key": b64(public), "hwcheck": hwcheck}).encode()


def load_or_make_key(path: Path) -> bytes:
    """This Pi's enrolment key: made on first boot (0600, written atomically), the same ever
    after, so its pairing code does not change between reboots."""
    try:
        raw = bytes.fromhex(path.read_text(encoding="ascii").strip())
        if len(raw) == 32:
            return raw
        raise ValueError("not 32 bytes")
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as e:
        raise ConfigError(f"{path}: not an enrolment key ({e})") from None
    key = new_private_key()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(key.hex() + "\n")
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)
    return key


def check_answer(payload: bytes | bytearray) -> dict[str, Any]:
    """The link file in an (opened) answer, checked before it replaces anything on the Pi."""
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


def open_answer(private: bytes, topic: str, payload: bytes | bytearray) -> dict[str, Any]:
    """The link file sealed to this Pi's key; :class:`ConfigError` if it is not for this key."""
    if len(payload) > MAX_SEALED_BYTES:
        raise ConfigError("the hub's answer is too large")
    try:
        plain = open_sealed(private, json.loads(payload), aad=topic.encode())
    except (ValueError, PairingError) as e:
        raise ConfigError(f"the answer does not open with this table's key ({e})") from None
    return check_answer(plain)


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


# A waiting Pi calls every few seconds: it connects, announces itself (which keeps it on the
# hub's list), reads its answer if there is one (retained: delivered at once), and hangs up.
# Every Pi on the enrolment listener has the same client id (the shared account's), so a call
# is short, and one cut short by another Pi's call is simply made again.
POLL_SECONDS = 6.0
CALL_SECONDS = 1.5


class Enrolment:
    """One Pi waiting for its adoption; :meth:`wait` returns the saved link file's contents.
    ``private`` is its key (:func:`load_or_make_key`); :attr:`code` is what its screen shows."""

    def __init__(
        self,
        bundle: EnrolBundle,
        serial: str,
        link_file: Path,
        private: bytes,
        hwcheck: dict[str, str] | None = None,
        *,
        poll: float = POLL_SECONDS,
        call: float = CALL_SECONDS,
        bind_address: str = "",
    ) -> None:
        if not SERIAL_RE.fullmatch(serial):
            raise ConfigError(f"serial {serial!r} must be 1-64 of a-z 0-9 _ -")
        self.bundle = bundle
        self.serial = serial
        self.link_file = link_file
        self.private = private
        self.public = public_key(private)
        self.code = pairing_code(self.public)
        self.eid = enrolment_id(self.public)
        self.hwcheck = hwcheck or {}
        self.poll, self.call = poll, call
        self.bind_address = bind_address  # the local address to call from ("": any)
        self.refused: Any = None  # the broker's reason, if it refused the enrolment account
        self.calls = 0
        self._stop = threading.Event()
        self.topic = f"{NAMESPACE}/enrol/{self.eid}"

    def _client(self, done: threading.Event, result: list[dict[str, Any]]) -> mqtt.Client:
        # The broker makes the id the account's name whatever is sent (docs/broker.md).
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="", protocol=mqtt.MQTTv5)
        c.username_pw_set(self.bundle.username, self.bundle.password)
        if self.bundle.tls_ca is not None:
            c.tls_set_context(tls_context(self.bundle.tls_ca))

        def on_connect(client: Any, ud: Any, flags: Any, reason: Any, props: Any) -> None:
            if reason.is_failure:
                self.refused = reason
                log.error("enrolment refused by the hub's broker: %s", reason)
                done.set()
                return
            client.subscribe(f"{self.topic}/answer", qos=1)
            client.publish(
                f"{self.topic}/hello",
                hello_payload(self.serial, self.public, self.hwcheck),
                qos=1,
                retain=True,
            )

        def on_message(client: Any, ud: Any, msg: mqtt.MQTTMessage) -> None:
            if not msg.payload or result:
                return  # the hub cleared an answer already used
            try:
                data = open_answer(self.private, msg.topic, msg.payload)
            except ConfigError as e:
                log.error("enrolment: %s", e)
                return
            result.append(data)
            done.set()

        c.on_connect = on_connect
        c.on_message = on_message
        c.on_disconnect = lambda *a: done.set()
        return c

    def call_once(self) -> dict[str, Any] | None:
        """One call to the hub: announce, read the answer if there is one (saved, and the
        announcement withdrawn), hang up."""
        self.calls += 1
        done = threading.Event()
        result: list[dict[str, Any]] = []
        c = self._client(done, result)
        try:
            c.connect(
                self.bundle.host, self.bundle.port, keepalive=30, bind_address=self.bind_address
            )
        except (OSError, ValueError) as e:
            log.warning("enrolment: the hub is unreachable (%s)", e)
            return None
        c.loop_start()
        try:
            done.wait(self.call)
            if result:
                save_link(self.link_file, result[0])
                # The announcement is of no more use: remove it (our ACL allows writing it).
                info = c.publish(f"{self.topic}/hello", b"", qos=1, retain=True)
                with contextlib.suppress(RuntimeError, ValueError):
                    info.wait_for_publish(timeout=5)
        finally:
            c.disconnect()
            c.loop_stop()
        return result[0] if result else None

    def stop(self) -> None:
        self._stop.set()

    def wait(self, timeout: float | None = None) -> dict[str, Any] | None:
        """Call the hub until it answers (None on timeout or :meth:`stop`)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._stop.is_set():
            result = self.call_once()
            if result is not None:
                return result
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            # Jittered, so that Pis switched on together do not call at the same moments.
            pause = self.poll * random.uniform(0.75, 1.25)
            self._stop.wait(pause if left is None else min(pause, left))
        return None


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


def _screen(config: str | None) -> tuple[Any, str]:
    """The table's display and language, for the pairing code (None: no screen, or none
    configured; the code is printed either way)."""
    if config is None:
        return None, "es"
    try:
        from mesa.controller.config import load_config
        from mesa.controller.display import open_device

        cfg = load_config(config)
        return open_device(cfg.display), cfg.table.language
    except Exception as e:  # a missing screen must not stop enrolment: the code is printed
        log.warning("enrolment: no screen for the pairing code (%s)", e)
        return None, "es"


def _enrol(args: Any) -> int:
    import sys

    from mesa.cli_options import log_level
    from mesa.controller.enrol_screen import show_pairing

    logging.basicConfig(level=log_level(args.log_level),
                        format="%(asctime)s %(name)s %(message)s")
    link = Path(args.link)
    try:
        bundle = EnrolBundle.from_file(args.bundle)
        serial = args.serial or pi_serial()
        key = load_or_make_key(link.with_name("enrol.key"))
        enrolment = Enrolment(bundle, serial, link, key, _hwcheck(args.config))
    except ConfigError as e:
        print(f"mesa enrol: {e}", file=sys.stderr)
        return 2
    device, lang = _screen(args.config)
    try:
        show_pairing(device, enrolment.code, lang)
    except Exception as e:  # the screen informs; the printed code below serves too
        log.warning("enrolment: the screen failed (%s)", e)
    print(
        f"mesa enrol: this table is {serial}, code {enrolment.code}; adopt it on the hub's"
        f" dashboard (Mesa nueva) or with mesa adopt {enrolment.code} N"
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
