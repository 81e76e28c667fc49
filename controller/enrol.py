"""A new table's Pi waits to be adopted: it calls the hub and takes the link file it is given.

The Pi carries the venue's enrolment bundle (``/etc/mesa/enrol.json``, the same on every SD
card: the address of the hub's dashboard, the venue's enrolment token, the venue CA). On first
boot ``mesa enrol`` makes the Pi's key pair (``enrol.key`` beside the link file,
:func:`load_or_make_key`); its screen shows the pairing code derived from the public key ("Mesa
nueva · código 4F7-2K9", :mod:`~mesa.controller.enrol_screen`). Every few seconds it calls the
hub: ``POST /enrol/hello`` over HTTPS (the venue CA alone, the hub's name checked) with its
serial, public key and hardware check. The director adopts it on the hub by number and code; the
next call's answer is the table's link file sealed to this Pi's key (:mod:`mesa.pairing`), which
is opened, checked and saved atomically; then ``mesa-table.service`` starts with it. Only the
standard library (``http.client``, ``ssl``): nothing to install on a table for it.

>>> from mesa.pairing import public_key
>>> json.loads(hello_payload("abc1", public_key(bytes(32)), {"display": "ok"}))["serial"]
'abc1'
"""

from __future__ import annotations

import base64
import binascii
import http.client
import json
import logging
import os
import random
import re
import ssl
import threading
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


HELLO_PATH = "/enrol/hello"
OLD_BUNDLE = (
    "is an enrolment bundle of an earlier release (the broker's enrolment listener, which "
    "the hub no longer has): copy the new /etc/mesa/enrol.json from the hub (`mesa install "
    "hub` writes it) and install it with `mesa install table --bundle enrol.json`"
)


@dataclass(frozen=True)
class EnrolBundle:
    """The venue's enrolment bundle: ``{"hub": {"url", "token", "tls_ca"}}``. ``url`` is the
    hub's dashboard (``https://``; ``http://`` only without a CA, for a demo); ``token`` the
    venue's enrolment token; ``tls_ca`` the venue CA's certificate (PEM).

    >>> EnrolBundle.parse({"hub": {"url": "http://127.0.0.1:8080", "token": "t"}}).port
    8080
    """

    url: str
    token: str
    tls_ca: str | None = None

    @property
    def host(self) -> str:
        return urllib.parse.urlsplit(self.url).hostname or ""

    @property
    def port(self) -> int:
        parts = urllib.parse.urlsplit(self.url)
        return parts.port or (443 if parts.scheme == "https" else 80)

    @property
    def https(self) -> bool:
        return urllib.parse.urlsplit(self.url).scheme == "https"

    @classmethod
    def parse(cls, doc: Any, where: str = "the bundle") -> EnrolBundle:
        hub = doc.get("hub") if isinstance(doc, dict) else None
        if not isinstance(hub, dict):
            raise ConfigError(f'{where}: not an enrolment bundle (no "hub" object)')
        if "url" not in hub and ("username" in hub or "port" in hub):
            raise ConfigError(f"{where} {OLD_BUNDLE}")
        url, token, ca = hub.get("url"), hub.get("token"), hub.get("tls_ca")
        if not isinstance(token, str) or not token or any(c.isspace() for c in token):
            raise ConfigError(f"{where}: hub.token is missing or not a word")
        if ca is not None and not isinstance(ca, str):
            raise ConfigError(f"{where}: hub.tls_ca must be PEM text")
        problem = url_problem(url, ca is not None)
        if problem:
            raise ConfigError(f"{where}: {problem}")
        return cls(str(url).rstrip("/"), token, ca)

    @classmethod
    def from_file(cls, path: str | Path) -> EnrolBundle:
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ConfigError(f"{path}: not an enrolment bundle ({e})") from None
        return cls.parse(doc, str(path))


def url_problem(url: Any, has_ca: bool) -> str | None:
    """Why ``url`` is not the hub's dashboard as a bundle names it (None: it is).

    >>> url_problem("https://hub.local:8080", True) is None
    True
    >>> url_problem("http://hub.local:8080", True)
    'hub.url must be https:// with the venue CA (tls_ca)'
    >>> url_problem("https://hub.local:8080/x?y", False)
    'hub.url must be scheme://host:port, nothing more'
    """
    if not isinstance(url, str) or not url:
        return "hub.url is missing"
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018  (raises on a bad port)
    except ValueError as e:
        return f"hub.url {url[:80]!r} is not a URL ({e})"
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return f"hub.url {url[:80]!r} must be https://host:port"
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        return "hub.url must be scheme://host:port, nothing more"
    if has_ca and parts.scheme != "https":
        return "hub.url must be https:// with the venue CA (tls_ca)"
    if not has_ca and parts.scheme == "https":
        return "hub.url is https:// but the bundle has no venue CA (tls_ca)"
    return None


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


# A waiting Pi calls every few seconds: one HTTPS request, which keeps it on the hub's list
# and brings its answer once the director has adopted it. The hub's reply says how often
# ("every"); jittered, so that Pis switched on together do not call at the same moments.
POLL_SECONDS = 5.0
CALL_SECONDS = 10.0  # the timeout of one call (connect, TLS, answer)
MAX_PAUSE = 600.0  # whatever a reply asks (every, Retry-After), the Pi calls again by then


def answer_label(eid: str) -> str:
    """The associated data an answer is sealed with: the string that names this Pi's answer
    (the hub's ``enrol_topic(eid, "answer")``)."""
    return f"{NAMESPACE}/enrol/{eid}/answer"


@dataclass(frozen=True)
class CallResult:
    """One call's outcome: ``status`` (HTTP; 0: the hub was not reached), ``state`` (``waiting``,
    ``adopted``, or the hub's reason), the link file when adopted, and how long to pause."""

    status: int
    state: str
    link: dict[str, Any] | None = None
    pause: float | None = None


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
        self.refused: str | None = None  # the hub's last reason for refusing a call
        self.calls = 0
        self.last: CallResult | None = None
        self._stop = threading.Event()
        self._context: ssl.SSLContext | None = (
            tls_context(bundle.tls_ca) if bundle.tls_ca is not None else None
        )

    def _connection(self) -> http.client.HTTPConnection:
        source = (self.bind_address, 0) if self.bind_address else None
        if self.bundle.https:
            # The venue CA alone, the hub's name checked (controller/link.py's tls_context).
            return http.client.HTTPSConnection(
                self.bundle.host,
                self.bundle.port,
                timeout=self.call,
                source_address=source,
                context=self._context,
            )
        return http.client.HTTPConnection(
            self.bundle.host, self.bundle.port, timeout=self.call, source_address=source
        )

    def post_hello(self) -> tuple[int, dict[str, Any], dict[str, str]]:
        """One ``POST /enrol/hello``: the status, the JSON body, the headers (lower-case)."""
        body = hello_payload(self.serial, self.public, self.hwcheck)
        conn = self._connection()
        try:
            conn.request(
                "POST",
                HELLO_PATH,
                body=body,
                headers={
                    "Authorization": f"Bearer {self.bundle.token}",
                    "Content-Type": "application/json",
                    "Accept": "application/json",
                    "Connection": "close",
                },
            )
            resp = conn.getresponse()
            raw = resp.read(MAX_SEALED_BYTES * 2 + 4096)
            headers = {k.lower(): v for k, v in resp.getheaders()}
            status = resp.status
        finally:
            conn.close()
        try:
            data = json.loads(raw) if raw else {}
        except ValueError:
            data = {}
        return status, data if isinstance(data, dict) else {}, headers

    def call_once(self) -> dict[str, Any] | None:
        """One call to the hub: announce; if the answer is there, open, check and save it."""
        result = self.call_result()
        return result.link

    def call_result(self) -> CallResult:
        """:meth:`call_once` with what the hub said (for the caller's pause and its log)."""
        self.calls += 1
        try:
            status, data, headers = self.post_hello()
        except (OSError, http.client.HTTPException, ssl.SSLError) as e:
            # Unreachable, a refused handshake (not the venue's hub), a cut connection: the
            # next call may do better.
            log.warning("enrolment: the hub is unreachable (%s)", e)
            self.last = CallResult(0, "unreachable")
            return self.last
        state = str(data.get("state", ""))
        if status == 200 and state == "adopted":
            link = self._open(data.get("answer"))
            if link is not None:
                save_link(self.link_file, link)
                self.last = CallResult(status, "adopted", link)
                return self.last
            self.last = CallResult(status, "unopened")
            return self.last
        if status == 202:
            self.refused = None
            every = data.get("every")
            pause = float(every) if isinstance(every, int | float) and every > 0 else None
            self.last = CallResult(status, "waiting", None, pause)
            return self.last
        reason = str(data.get("error") or status)[:40]
        if reason != self.refused:
            log.error("enrolment: the hub refused the call (%d %s)", status, reason)
        self.refused = reason
        retry = headers.get("retry-after", "")
        pause = float(retry) if retry.isdigit() else None
        if status == 401:
            log.error("enrolment: this bundle's token is not the hub's: copy the hub's enrol.json")
        self.last = CallResult(status, reason, None, pause)
        return self.last

    def _open(self, answer: Any) -> dict[str, Any] | None:
        try:
            sealed = base64.b64decode(str(answer), validate=True)
            return open_answer(self.private, answer_label(self.eid), sealed)
        except (ConfigError, binascii.Error, ValueError) as e:
            log.error("enrolment: the answer is not for this table (%s)", e)
            return None

    def stop(self) -> None:
        self._stop.set()

    def wait(self, timeout: float | None = None) -> dict[str, Any] | None:
        """Call the hub until it answers (None on timeout or :meth:`stop`)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._stop.is_set():
            result = self.call_result()
            if result.link is not None:
                return result.link
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            base = result.pause if result.pause is not None else self.poll
            pause = min(MAX_PAUSE, base) * random.uniform(0.75, 1.25)
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
