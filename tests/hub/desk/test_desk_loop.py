"""The one desk loop: the committed events it is handed are folded once each, in commit order,
without re-reading them from SQLite; a gap or a wake without events catches up from the store."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

import pytest

from mesa.hub.desk.loop import CATCH_UP_LIMIT, DeskLoop
from mesa.hub.desk.ports import CommittedEvent


def _event(rowid: int, type_name: str = "match.ended") -> dict[str, Any]:
    return {"rowid": rowid, "table": "1", "type": type_name, "data": {}, "epoch": 1, "fence": None}


class Store:
    """The hub's committed events, counting the catch-up reads."""

    def __init__(self, n: int = 0) -> None:
        self.rows = [_event(i) for i in range(1, n + 1)]
        self.reads: list[tuple[int, int]] = []

    def commit(self, n: int) -> list[dict[str, Any]]:
        start = len(self.rows) + 1
        new = [_event(i) for i in range(start, start + n)]
        self.rows += new
        return new

    def events(
        self, table: str | None = None, *, since: int = 0, limit: int = 1000
    ) -> Sequence[CommittedEvent]:
        self.reads.append((since, limit))
        return [e for e in self.rows if e["rowid"] > since][:limit]


class Game:
    """A game's desk part that records what it folds."""

    log = logging.getLogger("test.desk.loop")
    refusals: tuple[type[Exception], ...] = (ValueError,)

    def __init__(self) -> None:
        self.at = 0
        self.stored = 0  # the cursor as the game last stored it
        self.folded: list[int] = []
        self.settled = 0
        self.reloaded = 0
        self.refuse: set[int] = set()
        self.broken = False  # every event fails (not a refusal)

    def cursor(self) -> int:
        return self.at

    def on_event(self, event: CommittedEvent) -> bool:
        if self.broken:
            raise KeyError("score")
        if event["rowid"] in self.refuse:
            raise ValueError("refused by the rules")
        self.folded.append(event["rowid"])
        return True

    def advance(self, cursor: int) -> None:
        self.at = self.stored = cursor

    def settle(self) -> bool:
        self.settled += 1
        return False

    def reload(self) -> None:
        self.reloaded += 1


@pytest.fixture
def loop_of() -> Any:
    loops: list[DeskLoop] = []

    def make(store: Store) -> tuple[DeskLoop, Game]:
        game = Game()
        loop = DeskLoop(game, store, thread="test-desk")
        loops.append(loop)
        return loop, game

    yield make
    for loop in loops:
        loop.close(lambda: None)


def _wake(loop: DeskLoop, events: Sequence[CommittedEvent] | None = None) -> bool:
    future = loop.wake(events)
    assert future is not None
    return future.result()


def test_handed_events_are_folded_without_reading_the_store(loop_of: Any) -> None:
    store = Store()
    loop, game = loop_of(store)
    assert _wake(loop, store.commit(3)) is True
    assert _wake(loop, store.commit(2)) is True
    assert game.folded == [1, 2, 3, 4, 5] and game.stored == 5
    assert store.reads == []  # every event came with its wake: SQLite was never read


def test_events_handed_twice_or_out_of_order_are_folded_once_in_commit_order(
    loop_of: Any,
) -> None:
    store = Store()
    loop, game = loop_of(store)
    first, second = store.commit(3), store.commit(3)
    assert _wake(loop, first) is True
    assert _wake(loop, first) is False  # the same commit again: nothing new
    assert _wake(loop, list(reversed(second))) is True
    assert _wake(loop, [*second, *first]) is False
    assert game.folded == [1, 2, 3, 4, 5, 6]
    assert store.reads == []


def test_a_later_commit_handed_before_an_earlier_one_waits_for_the_gap(loop_of: Any) -> None:
    """Two commit listeners raced: the second commit's events arrive first. The gap is read
    from the store; the first commit's events, handed afterwards, are not folded again."""
    store = Store()
    loop, game = loop_of(store)
    first, second = store.commit(2), store.commit(2)
    assert _wake(loop, second) is True
    assert _wake(loop, first) is False
    assert game.folded == [1, 2, 3, 4]
    assert store.reads == [(0, CATCH_UP_LIMIT)]


def test_a_wake_with_events_while_the_cursor_is_behind_catches_up_first(loop_of: Any) -> None:
    """Events committed while the hub was down (or before the listener was attached) come
    from the store, before and together with the ones the wake was handed."""
    store = Store(4)  # committed before the desk listened
    loop, game = loop_of(store)
    assert _wake(loop, store.commit(1)) is True
    assert game.folded == [1, 2, 3, 4, 5] and game.stored == 5
    assert _wake(loop, store.commit(1)) is True  # caught up: the next wake reads nothing
    assert game.folded == [1, 2, 3, 4, 5, 6] and len(store.reads) == 1


def test_a_wake_without_events_catches_up_from_the_cursor(loop_of: Any) -> None:
    store = Store(3)
    loop, game = loop_of(store)
    assert _wake(loop) is True  # the tick, a restart
    assert _wake(loop) is False
    assert game.folded == [1, 2, 3] and game.settled == 2
    assert loop.sync() is False  # sync reads the store too
    assert len(store.reads) == 3


def test_a_long_outage_is_read_page_by_page_and_nothing_handed_is_lost(loop_of: Any) -> None:
    store = Store(CATCH_UP_LIMIT + 5)
    loop, game = loop_of(store)
    tail = store.rows[-3:]
    assert _wake(loop, tail) is True  # behind: one page from the store
    assert game.folded == list(range(1, CATCH_UP_LIMIT + 1))
    assert _wake(loop, []) is True  # the tail kept back does not follow: the next page
    assert game.folded == list(range(1, CATCH_UP_LIMIT + 6))
    assert _wake(loop, tail) is False


def test_a_refused_event_is_logged_and_the_cursor_moves_on(
    loop_of: Any, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store()
    loop, game = loop_of(store)
    game.refuse = {2}
    with caplog.at_level(logging.WARNING, logger="test.desk.loop"):
        assert _wake(loop, store.commit(3)) is True
    assert game.folded == [1, 3] and game.stored == 3
    assert "table 1: match.ended not applied: refused by the rules" in caplog.text


def test_wakes_coalesce_and_keep_every_event_they_carry(loop_of: Any) -> None:
    """Wakes queued behind a busy desk thread become one round with all their events."""
    store = Store()
    loop, game = loop_of(store)
    gate = threading.Event()
    loop.submit(gate.wait)  # the desk's thread is busy
    assert loop.wake(store.commit(1)) is not None
    assert loop.wake(store.commit(1)) is None  # coalesced into the queued wake
    assert loop.wake(store.commit(1)) is None
    gate.set()
    assert loop.call(lambda: list(game.folded)) == [1, 2, 3]
    assert game.settled == 1 and store.reads == []


def test_a_failed_change_is_reloaded_and_a_good_one_bumps_the_version(loop_of: Any) -> None:
    loop, game = loop_of(Store())
    seen: list[int] = []
    loop.on_change.append(lambda: seen.append(loop.version))

    def bad() -> None:
        raise RuntimeError("half an action")

    with pytest.raises(RuntimeError):
        loop.call(lambda: loop.apply(bad))
    assert game.reloaded == 1 and loop.version == 0 and seen == []
    assert loop.call(lambda: loop.apply(lambda: 7)) == 7
    assert loop.version == 1 and seen == [1]


def test_a_desk_without_a_hub_or_closed_never_syncs() -> None:
    game = Game()
    loop = DeskLoop(game, None, thread="test-desk")
    assert loop.wake([_event(1)]) is None and loop.sync() is False
    loop.close(lambda: None)
    store = Store(1)
    loop = DeskLoop(game, store, thread="test-desk")
    loop.close(lambda: None)
    assert loop.wake() is None and loop.sync() is False and loop.closed
    assert game.folded == []


def test_a_failure_while_folding_reads_the_events_again_next_round(loop_of: Any) -> None:
    """Not a refusal but a bug or a lost database: nothing folded is stored, and the next
    wake, even one handed nothing, reads those events again from the store."""
    store = Store()
    loop, game = loop_of(store)
    game.broken = True
    assert _wake(loop, store.commit(2)) is False  # logged, the desk goes on
    assert game.stored == 0
    game.broken = False
    assert _wake(loop, []) is True
    assert game.folded == [1, 2] and game.stored == 2 and len(store.reads) == 1
