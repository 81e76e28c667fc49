"""The hub's beat bookkeeping (protocol revision 3) on a fake clock: who is watched, when a
table is found silent, what brings it back, and what only confirms the loss."""

from __future__ import annotations

from mesa.hub.ingest.beats import Heartbeats
from mesa.protocol import BEATS_MISSED


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_table_is_silent_after_the_beats_it_said_and_reported_once() -> None:
    clock = Clock()
    hb = Heartbeats(clock=clock)
    hb.beat("1", 5.0)
    hb.beat("2", 1.0)
    clock.now += 3.5
    assert hb.expired() == ["2"]  # more than 3 of its 1-second beats missed
    assert hb.silent("2") and not hb.silent("1")
    clock.now += 1.5
    hb.beat("1", 5.0)  # still beating
    clock.now += BEATS_MISSED * 5.0
    assert hb.expired() == []  # exactly 3 beats: not more than that
    clock.now += 0.01
    assert hb.expired() == ["1"]
    assert hb.expired() == [] and hb.watched() == {}  # each is reported once


def test_a_beat_brings_back_a_silent_table_and_only_that() -> None:
    clock = Clock()
    hb = Heartbeats(clock=clock)
    assert hb.beat("1", 5.0) is False  # the first: watched from now
    clock.now += 16
    assert hb.expired() == ["1"]
    assert hb.beat("1", 5.0) is True  # back
    assert hb.beat("1", 5.0) is False
    assert not hb.silent("1") and hb.watched() == {"1": 0.0}


def test_a_will_after_the_silence_only_confirms_it() -> None:
    clock = Clock()
    hb = Heartbeats(clock=clock)
    hb.beat("1", 5.0)
    clock.now += 16
    assert hb.expired() == ["1"]
    assert hb.status("1", "lost", 3) is True  # already lost on the grid: not news
    assert hb.status("1", "lost", 3) is False  # nor a second time
    clock.now += 100
    assert hb.expired() == [] and not hb.silent("1")
    # Its next connection: online (revision 1 until it hears the hub), then beats again.
    assert hb.status("1", "online", 1) is False
    assert hb.beat("1", 5.0) is False  # a watch again, not a return


def test_an_offline_or_a_will_ends_the_watch_without_finding_anything() -> None:
    clock = Clock()
    hb = Heartbeats(clock=clock)
    hb.beat("1", 5.0)
    hb.beat("2", 5.0)
    assert hb.status("1", "offline", 3) is False  # a clean stop
    assert hb.status("2", "lost", 3) is False  # the broker's will came first
    clock.now += 1000
    assert hb.expired() == []


def test_a_revision_3_online_status_counts_as_a_beat_and_a_lower_one_ends_the_watch() -> None:
    clock = Clock()
    hb = Heartbeats(clock=clock)
    hb.beat("1", 5.0)
    hb.beat("2", 5.0)
    clock.now += 10
    hb.status("1", "online", 3)  # e.g. the retained status again
    hb.status("2", "online", 2)  # a table that now speaks revision 2: the will alone
    clock.now += 10
    assert hb.expired() == []
    assert hb.watched() == {"1": 10.0}
    clock.now += 5.1
    assert hb.expired() == ["1"]


def test_an_online_status_brings_back_a_silent_table_too() -> None:
    clock = Clock()
    hb = Heartbeats(clock=clock)
    hb.beat("1", 5.0)
    clock.now += 16
    assert hb.expired() == ["1"]
    assert hb.status("1", "online", 1) is False and not hb.silent("1")


def test_a_table_that_never_beats_is_never_watched() -> None:
    clock = Clock()
    hb = Heartbeats(clock=clock)
    hb.status("1", "online", 1)
    hb.status("1", "online", 3)
    clock.now += 10_000
    assert hb.expired() == [] and hb.watched() == {}


def test_clear_forgets_every_beat() -> None:
    clock = Clock()
    hb = Heartbeats(clock=clock)
    hb.beat("1", 5.0)
    hb.beat("2", 5.0)
    clock.now += 16
    assert hb.expired() == ["1", "2"]
    hb.beat("2", 5.0)
    hb.clear()
    clock.now += 100
    assert hb.expired() == [] and not hb.silent("1") and hb.beat("1", 5.0) is False
