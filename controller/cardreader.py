"""The card reader: a USB serial reader that sends one card id per line (pyserial).

>>> from mesa.controller.runtime import ManualClock, TableRuntime
>>> rt = TableRuntime(clock=ManualClock())
>>> reader = CardReader(rt, "loop://")
>>> reader.feed(b"04A1B2C3\\r\\n\\x02junk\\xff\\n")     # what the reader thread does with bytes
>>> [(i.name, i.args) for _, _, i in rt.take_queued()]
[('card', {'card': '04A1B2C3'})]
>>> reader.stats.garbage
1

A card id is 1–64 characters of letters, digits, ``:``, ``-`` and ``_`` (readers frame ids with
STX/ETX or CR, which are stripped). Anything else is garbage: counted, shown briefly, never sent
to the table. The same id read again within ``repeat`` seconds is one swipe. An id that belongs to
neither player is the table's business: it refuses it with ``card.rejected``, which the runtime
shows and the hub link reports. An unplugged reader is retried every ``retry`` seconds; the
clock never waits for it.

Unknown cards are rate-limited at the source: when ``known_cards()`` names the match's cards,
at most one unknown id per ``unknown_interval`` seconds reaches the table; the reads in between
are counted and the next one sent carries their number (``suppressed``), so a burst of 5,000
becomes a handful of ``card.rejected`` events that still account for every read:

>>> reader = CardReader(rt, "loop://", known_cards=lambda: {"ANA1"})
>>> reader.feed(b"".join(b"X%04d\\n" % i for i in range(5000)) + b"ANA1\\n")
>>> [(i.args["card"], i.args.get("suppressed")) for _, _, i in rt.take_queued()]
[('X0000', 0), ('ANA1', None)]
>>> reader.stats.suppressed, reader.pending_suppressed
(4999, 4999)
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from mesa.controller.ports import CardSubmitter
from mesa.engine.inputs import Input

log = logging.getLogger(__name__)

CARD_ID = re.compile(r"[0-9A-Za-z:_\-]{1,64}")
MAX_LINE = 256
FRAMING = b"\r\n\t \x00\x02\x03"


@dataclass
class ReaderStats:
    cards: int = 0
    garbage: int = 0
    repeats: int = 0
    disconnects: int = 0
    opens: int = 0
    suppressed: int = 0  # unknown cards held back by the rate limit (counted in a later one)


class CardReader:
    """Reads ``port`` (a device path or a pyserial URL) in its own thread."""

    def __init__(
        self,
        runtime: CardSubmitter,
        port: str,
        baud: int = 9600,
        *,
        retry: float = 2.0,
        repeat: float = 2.0,
        open_serial: Callable[[], Any] | None = None,
        known_cards: Callable[[], Collection[str]] | None = None,
        unknown_interval: float = 5.0,
    ) -> None:
        self.runtime = runtime
        self.known_cards = known_cards
        self.unknown_interval = unknown_interval
        self._unknown_at: float | None = None  # when the last unknown card was sent
        self._held: str | None = None  # the latest unknown card held back ...
        self._held_count = 0  # ... and how many reads were held back since the last one sent
        self.port = port
        self.baud = baud
        self.retry = retry
        self.repeat = repeat
        self._open_serial = open_serial or self._default_open
        self.stats = ReaderStats()
        self._buffer = b""
        self._discarding = False
        self._last: tuple[str, float] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.serial: Any = None

    def _default_open(self) -> Any:
        import serial

        return serial.serial_for_url(self.port, baudrate=self.baud, timeout=0.2)

    # ── bytes → cards (also used directly by tests) ─────────────────────
    def feed(self, data: bytes) -> None:
        """Take bytes from the reader; every complete line is handled."""
        self._buffer += data
        while True:
            cut = self._buffer.find(b"\n")
            if cut < 0:
                break
            line, self._buffer = self._buffer[:cut], self._buffer[cut + 1 :]
            if self._discarding:
                self._discarding = False  # the end of an over-long line
                continue
            self._line(line)
        if len(self._buffer) > MAX_LINE:
            # No newline in sight: garbage (or a reader at the wrong baud rate). Drop it up to
            # the next newline.
            self._buffer = b""
            self._discarding = True
            self._garbage("line too long")

    def _line(self, raw: bytes) -> None:
        line = raw.strip(FRAMING)
        if not line:
            return
        try:
            card = line.decode("ascii")
        except UnicodeDecodeError:
            self._garbage("not text")
            return
        if not CARD_ID.fullmatch(card):
            self._garbage(f"not a card id: {card[:20]!r}")
            return
        now = self.runtime.now()
        if self._last is not None and self._last[0] == card and now - self._last[1] < self.repeat:
            self.stats.repeats += 1
            return
        self._last = (card, now)
        self.stats.cards += 1
        if self.known_cards is not None and card not in self.known_cards():
            self._unknown(card, now)
            return
        self.runtime.submit(Input("card", {"card": card}), now)

    def _unknown(self, card: str, now: float) -> None:
        if self._unknown_at is not None and now - self._unknown_at < self.unknown_interval:
            self._held = card
            self._held_count += 1
            self.stats.suppressed += 1
            return
        self._send_unknown(card, self._held_count, now)

    def _send_unknown(self, card: str, suppressed: int, now: float) -> None:
        self._held, self._held_count = None, 0
        self._unknown_at = now
        self.runtime.submit(Input("card", {"card": card, "suppressed": suppressed}), now)

    @property
    def pending_suppressed(self) -> int:
        """Reads held back and not yet counted in a ``card.rejected``."""
        return self._held_count

    def flush_suppressed(self) -> None:
        """Once the interval is over, send the last held-back card carrying the count of the
        others: a burst that stops is still summed up (the reader thread calls this)."""
        if self._held is None or self._unknown_at is None:
            return
        now = self.runtime.now()
        if now - self._unknown_at >= self.unknown_interval:
            self._send_unknown(self._held, self._held_count - 1, now)

    def _garbage(self, why: str) -> None:
        self.stats.garbage += 1
        if self.stats.garbage <= 20:
            log.warning("card reader sent garbage (%s)", why)
        self.runtime.notice("notice.card_garbage", seconds=3.0)

    # ── the thread ──────────────────────────────────────────────────────
    def _set(self, state: str) -> None:
        if self.runtime.status.card_reader != state:
            self.runtime.update_status(card_reader=state)

    def run(self) -> None:
        while not self._stop.is_set():
            if self.serial is None:
                try:
                    self.serial = self._open_serial()
                    self.stats.opens += 1
                    self._buffer, self._discarding = b"", False
                    self._set("ok")
                    log.info("card reader open on %s", self.port)
                except Exception as e:  # absent, unplugged, no permission
                    self._set("missing")
                    log.debug("card reader %s not available: %s", self.port, e)
                    self._stop.wait(self.retry)
                    continue
            try:
                waiting = getattr(self.serial, "in_waiting", 0) or 1
                data = self.serial.read(min(waiting, 1024))
            except Exception as e:  # unplugged mid-match
                self.stats.disconnects += 1
                log.warning("card reader lost: %s", e)
                self._close_serial()
                self._set("missing")
                self._stop.wait(self.retry)
                continue
            if data:
                self.feed(data)
            self.flush_suppressed()

    def _close_serial(self) -> None:
        ser, self.serial = self.serial, None
        if ser is not None:
            try:
                ser.close()
            except Exception:
                log.debug("closing the card reader failed", exc_info=True)

    def start(self) -> None:
        self._stop.clear()
        self._set("missing")
        self._thread = threading.Thread(target=self.run, name="mesa-cardreader", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self._close_serial()

    def wait_open(self, timeout: float = 5.0) -> bool:
        """Block until the reader is open (tests, the hardware check)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.serial is not None:
                return True
            time.sleep(0.01)
        return False
