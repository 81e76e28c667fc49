"""Who sits at which table now, across every event of the evening and every game's desk.

A club evening runs several events on shared tables (RULES §4: open, novatos, a friendly, the
domino room), and a player may be in more than one: a player is never called to two tables at
once. Each game's desk owns its own events and publishes here who it has seated (an assigned or
playing match, a domino game not yet recorded); every desk reads the others' seats before it
gives a match to a table, and the waiting match says why ("espera: ANA juega en la mesa 4,
dominó"). A desk whose seats change wakes the other desks (their listeners), so a match waiting
for a player is assigned the moment the player is free.

Seating is check-then-act across two desks' threads: a desk reads the others' seats, seats its
players and publishes them, all inside :meth:`Venue.seating` (one lock for the venue), so two
desks never both seat a player each had seen free.

The venue holds no state of its own worth keeping: each desk publishes again from its store when
it starts, so a restart loses nothing.

>>> v = Venue()
>>> woken = []
>>> v.listen("backgammon", lambda: woken.append("bg"))
>>> v.publish("domino", [Seat("P0001", "d1", "D1", "Dominó de marzo", "domino")])
>>> woken, v.busy(besides="backgammon")["P0001"].table
(['bg'], 'd1')
>>> v.busy(besides="domino")
{}
>>> v.publish("domino", [Seat("P0001", "d1", "D1", "Dominó de marzo", "domino")])  # no change
>>> woken
['bg']
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["Seat", "Venue"]

log = logging.getLogger("mesa.desk.venue")


@dataclass(frozen=True)
class Seat:
    """One player at one table for one event: what a waiting match of another event says."""

    player: str  # the player's id in the club's registry
    table: str
    event: str  # the event's id (a tournament's id, a domino tournament's id)
    event_name: str
    game: str  # the registered game's name


class Venue:
    """See the module docstring. Thread-safe: each desk publishes from its own thread."""

    def __init__(self) -> None:
        # Reentrant: a desk publishes its seats while it holds :meth:`seating`.
        self._lock = threading.RLock()
        self._seats: dict[str, dict[str, Seat]] = {}  # game → player → seat
        self._listeners: dict[str, list[Callable[[], None]]] = {}

    def publish(self, game: str, seats: Iterable[Seat]) -> None:
        """Replace ``game``'s seats; the other games' listeners are told when they changed."""
        new = {s.player: s for s in seats}
        with self._lock:
            if self._seats.get(game) == new:
                return
            self._seats[game] = new
            others = [fn for g, fns in self._listeners.items() if g != game for fn in fns]
        for fn in others:
            try:
                fn()
            except Exception:  # a listener's failure must not undo the publishing desk's step
                log.exception("venue listener failed")

    @contextmanager
    def seating(self) -> Iterator[None]:
        """Hold the venue while a desk reads the seats, seats players and publishes them (on
        that desk's own thread; never wait for another desk inside)."""
        with self._lock:
            yield

    def busy(self, *, besides: str | None = None) -> dict[str, Seat]:
        """Every seated player, by player id; ``besides`` leaves out that game's own seats (a
        desk knows its own better)."""
        with self._lock:
            return {
                p: s for g, seats in self._seats.items() if g != besides for p, s in seats.items()
            }

    def listen(self, game: str, fn: Callable[[], None]) -> None:
        """Call ``fn`` (any thread, keep it short: a desk's wake) when another game's seats
        change."""
        with self._lock:
            self._listeners.setdefault(game, []).append(fn)
