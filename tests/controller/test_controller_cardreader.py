"""The card reader over a pseudo-terminal pair: check-in, unknown cards, garbage, unplugging."""

from __future__ import annotations

import contextlib
import os
import pty
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from controller_helpers import Recorder, assign_input

from mesa.controller.cardreader import CardReader
from mesa.controller.runtime import TableRuntime


def wait_for(cond: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    return bool(cond())


class Pty:
    """A pseudo-terminal whose slave end is the 'USB serial device' (behind a symlink, like
    /dev/serial/by-id/...)."""

    def __init__(self, link: Path) -> None:
        self.link = link
        self.master, self.slave = pty.openpty()
        name = os.ttyname(self.slave)
        if link.is_symlink():
            link.unlink()
        link.symlink_to(name)

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def unplug(self) -> None:
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TableRuntime, Recorder, Path]]:
    rec = Recorder()
    rt = TableRuntime(sinks=[rec])
    rt.submit(assign_input(), rt.now())
    rt.start()
    yield rt, rec, tmp_path / "reader"
    rt.stop()


def test_a_card_checks_its_player_in_and_an_unknown_card_is_shown_and_reported(table) -> None:  # type: ignore[no-untyped-def]
    rt, rec, link = table
    dev = Pty(link)
    reader = CardReader(rt, str(link), retry=0.05)
    reader.start()
    try:
        assert reader.wait_open()
        dev.write(b"\x02CARD-A\x03\r\n")
        assert wait_for(lambda: rt.view().checked_in == ("a",))
        dev.write(b"CARD-A\r\n")  # the same swipe read twice: one check-in
        dev.write(b"04FFEE99\n")
        assert wait_for(lambda: bool(rec.events("card.rejected")))
        assert rec.events("card.rejected")[0].card == "04FFEE99"
        assert wait_for(lambda: rt.status.notice == "notice.unknown_card")
        assert rt.status.notice_arg == "04FFEE99"
        assert rt.view().state == "checking_in"
        assert reader.stats.repeats == 1
    finally:
        reader.stop()
        dev.unplug()


def test_garbage_is_counted_and_shown_never_sent(table) -> None:  # type: ignore[no-untyped-def]
    rt, rec, link = table
    dev = Pty(link)
    reader = CardReader(rt, str(link), retry=0.05)
    reader.start()
    try:
        assert reader.wait_open()
        dev.write(b"\xff\xfe\xfd\n")  # not text
        dev.write(b"DROP TABLE;--\n")  # text, not a card id
        dev.write(b"A" * 600)  # no newline at all: a reader at the wrong baud rate
        dev.write(b"B" * 10 + b"\n")  # the tail of that over-long line
        dev.write(b"CARD-B\n")
        assert wait_for(lambda: rt.view().checked_in == ("b",))
        assert reader.stats.garbage == 3
        assert [o.input.args.get("card") for o in rec.inputs("card")] == ["CARD-B"]
    finally:
        reader.stop()
        dev.unplug()


def test_a_reader_unplugged_mid_match_comes_back(table) -> None:  # type: ignore[no-untyped-def]
    rt, _rec, link = table
    dev = Pty(link)
    reader = CardReader(rt, str(link), retry=0.05)
    reader.start()
    try:
        assert reader.wait_open()
        dev.write(b"CARD-A\n")
        assert wait_for(lambda: rt.view().checked_in == ("a",))
        ticks = rt.stats.ticks
        dev.unplug()
        assert wait_for(lambda: rt.status.card_reader == "missing")
        assert wait_for(lambda: rt.stats.ticks > ticks + 3)  # the loop never waited
        dev = Pty(link)  # plugged in again (a new device node behind the same by-id link)
        assert wait_for(lambda: rt.status.card_reader == "ok")
        dev.write(b"CARD-B\n")
        assert wait_for(lambda: rt.view().state == "between_games")
        assert reader.stats.disconnects == 1 and reader.stats.opens == 2
    finally:
        reader.stop()
        dev.unplug()


def test_a_reader_absent_at_start_is_retried(table) -> None:  # type: ignore[no-untyped-def]
    rt, _rec, link = table
    reader = CardReader(rt, str(link), retry=0.05)
    reader.start()
    try:
        assert wait_for(lambda: rt.status.card_reader == "missing")
        dev = Pty(link)
        assert reader.wait_open()
        dev.write(b"CARD-A\n")
        assert wait_for(lambda: rt.view().checked_in == ("a",))
        dev.unplug()
    finally:
        reader.stop()


def test_a_burst_of_unknown_cards_becomes_a_few_summed_up_events() -> None:
    """5,000 unknown ids in a burst used to become 5,000 ``card.rejected`` events. Now at most
    one per ``unknown_interval`` reaches the table, each counting the reads held back before
    it; every read is accounted for, and the players' own cards are never held back."""
    from mesa.controller.assembly import CoreSpec, TableCore
    from mesa.controller.runtime import ManualClock

    clock = ManualClock()
    rec = Recorder()
    core = TableCore(CoreSpec(table_id="1", clock=clock), sinks=[rec])
    rt = core.runtime
    reader = CardReader(rt, "loop://", known_cards=core.known_cards, unknown_interval=5.0)
    rt.submit(assign_input(), rt.now())
    rt.step()
    reader.feed(b"".join(b"BAD%05d\n" % i for i in range(5000)))
    reader.feed(b"CARD-A\n")  # a player in the middle of the storm checks in at once
    clock.advance(0.1)
    rt.step()
    assert "a" in rt.table.s.checked_in
    reader.flush_suppressed()  # within the interval: nothing yet
    clock.advance(5.0)
    reader.flush_suppressed()  # the burst is over: its summary goes
    clock.advance(0.1)
    rt.step()
    rejected = [e for o in rec.outcomes for e in o.events if e.TYPE == "card.rejected"]
    assert len(rejected) == 2
    assert sum(1 + e.suppressed for e in rejected) == 5000  # type: ignore[attr-defined]
    assert reader.stats.suppressed == 4999 and reader.pending_suppressed == 0
    assert "a" in rt.table.s.checked_in
