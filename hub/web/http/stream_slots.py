"""How many live streams (``/events``) may be open: per client address and in all.

An event stream holds a connection for as long as the page is open; without a bound, a few
hundred idle streams from one machine would hold every connection the pages need. A stream over
either bound is refused with 429 (the browser retries on its own a second later).

>>> slots = StreamSlots(per_address=2, total=3)
>>> slots.take("10.0.0.1"), slots.take("10.0.0.1"), slots.take("10.0.0.1")
(True, True, False)
>>> slots.take("10.0.0.2"), slots.take("10.0.0.3")
(True, False)
>>> slots.give_back("10.0.0.1"); slots.take("10.0.0.3"), slots.open
(True, 3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

# A phone or a laptop with a few tabs open; the director's screen, the wall screen.
STREAMS_PER_ADDRESS = 8
# Far under the connection ceiling (conn_guard.MAX_CONNECTIONS), so pages always get through.
STREAMS_TOTAL = 200


@dataclass
class StreamSlots:
    """Open streams by address. Event-loop thread only (no lock)."""

    per_address: int = STREAMS_PER_ADDRESS
    total: int = STREAMS_TOTAL
    by_address: dict[str, int] = field(default_factory=dict)
    refused: int = 0

    @property
    def open(self) -> int:
        return sum(self.by_address.values())

    def take(self, address: str) -> bool:
        """A slot for one more stream from ``address``; False (and counted) when full."""
        mine = self.by_address.get(address, 0)
        if mine >= self.per_address or self.open >= self.total:
            self.refused += 1
            return False
        self.by_address[address] = mine + 1
        return True

    def give_back(self, address: str) -> None:
        left = self.by_address.get(address, 0) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)
