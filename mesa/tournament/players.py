"""The club's players: ids, names, member cards, category and sanctions.

>>> reg = PlayerRegistry()
>>> alex = reg.add_new("ALEX", card_ids=("04A1B2",))
>>> alex.id, reg.by_card("04a1b2").name
('P0001', 'ALEX')
>>> reg.add_new("alex")
Traceback (most recent call last):
...
mesa.tournament.errors.DuplicatePlayerError: a player named 'ALEX' already exists (P0001)
>>> reg.add_new("JOS\ufffd")
Traceback (most recent call last):
...
mesa.tournament.errors.TournamentError: 'JOS\ufffd' holds lost characters (U+FFFD)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, Literal

from mesa.tournament.errors import DuplicatePlayerError, TournamentError, UnknownPlayerError

Category = Literal["open", "novatos"]
CATEGORIES: tuple[str, ...] = ("open", "novatos")
SanctionKind = Literal["left", "no_show"]
SANCTION_RULE = {"left": "HGV 2.3.5", "no_show": "HGV 2.3.6"}


def normalize_name(name: str) -> str:
    """Key used to detect duplicate names: case, accents and spacing do not count.

    >>> normalize_name("  María  José ") == normalize_name("MARIA JOSE")
    True
    """
    decomposed = unicodedata.normalize("NFKD", name)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"\s+", " ", plain).strip().casefold()


def name_key(name: str) -> tuple[str, str]:
    """Spanish alphabetical order: case and accents do not count, ñ is a letter after n.

    >>> sorted(["Maryori", "María", "Nuñez", "Núñez", "Nuno", "Ñandú", "Oscar", "Álvaro"],
    ...        key=name_key)
    ['Álvaro', 'María', 'Maryori', 'Nuno', 'Nuñez', 'Núñez', 'Ñandú', 'Oscar']
    """
    folded = unicodedata.normalize("NFD", name.casefold())
    # n + combining tilde is ñ: mark it to sort after every n… and before o.
    folded = folded.replace("n\u0303", "n\U0010ffff")
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return re.sub(r"\s+", " ", plain).strip(), unicodedata.normalize("NFC", name)


def normalize_card(card_id: str) -> str:
    """Card ids as a serial reader may send them: spaces, colons and case do not count."""
    return re.sub(r"[\s:\-]", "", card_id).upper()


@dataclass(frozen=True)
class Player:
    """A club member (or guest). ``id`` is stable; the name may change."""

    id: str
    name: str
    card_ids: tuple[str, ...] = ()
    category: Category = "open"
    member: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "card_ids": list(self.card_ids),
                "category": self.category, "member": self.member}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Player:
        return cls(d["id"], d["name"], tuple(d.get("card_ids", ())), d.get("category", "open"),
                   bool(d.get("member", True)))


@dataclass(frozen=True)
class Sanction:
    """A ban from the next tournament (HGV 2.3.5 left mid-tournament, 2.3.6 did not come).

    ``served_in`` is the tournament it was applied to; until then it bars registration.
    """

    id: str
    player_id: str
    kind: SanctionKind
    incurred_in: str
    incurred_on: date
    served_in: str | None = None
    note: str = ""

    @property
    def rule(self) -> str:
        return SANCTION_RULE[self.kind]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "player_id": self.player_id, "kind": self.kind,
                "incurred_in": self.incurred_in, "incurred_on": self.incurred_on.isoformat(),
                "served_in": self.served_in, "note": self.note}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Sanction:
        return cls(d["id"], d["player_id"], d["kind"], d["incurred_in"],
                   date.fromisoformat(d["incurred_on"]), d.get("served_in"), d.get("note", ""))


@dataclass
class PlayerRegistry:
    """All players, with unique ids, names and card ids, and their sanctions."""

    players: dict[str, Player] = field(default_factory=dict)
    sanctions: list[Sanction] = field(default_factory=list)
    _names: dict[str, str] | None = field(default=None, repr=False, compare=False)
    _top: int | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.players)

    def __iter__(self) -> Iterator[Player]:
        return iter(self.players.values())

    def __contains__(self, player_id: object) -> bool:
        return player_id in self.players

    def next_id(self) -> str:
        if self._top is None:
            self._top = max((int(p[1:]) for p in self.players if re.fullmatch(r"P\d+", p)),
                            default=0)
        return f"P{self._top + 1:04d}"

    def get(self, player_id: str) -> Player:
        try:
            return self.players[player_id]
        except KeyError:
            raise UnknownPlayerError(player_id) from None

    def by_card(self, card_id: str) -> Player:
        """The player holding a member card (as read by a table's card reader)."""
        key = normalize_card(card_id)
        for p in self.players.values():
            if key in p.card_ids:
                return p
        raise UnknownPlayerError(key, reason="unknown_card")

    def find_name(self, name: str) -> Player | None:
        if self._names is None:
            self._names = {normalize_name(p.name): p.id for p in self.players.values()}
        pid = self._names.get(normalize_name(name))
        return None if pid is None else self.players.get(pid)

    def _check_unique(self, player: Player, ignore: str | None = None) -> None:
        if not player.name.strip():
            raise TournamentError("a player needs a name", code="bad_player", reason="no_name")
        if "\ufffd" in player.name:
            # U+FFFD: a letter lost by a wrong encoding (an Excel file read as UTF-8); such a
            # name is never the player's.
            raise TournamentError(f"{player.name!r} holds lost characters (U+FFFD)",
                                  code="bad_player", reason="name_lost", name=player.name)
        if player.category not in CATEGORIES:
            raise TournamentError(f"unknown category {player.category!r}", code="bad_player",
                                  reason="unknown_category", category=player.category)
        same = self.find_name(player.name)
        if same is not None and same.id != ignore:
            raise DuplicatePlayerError(
                f"a player named {same.name!r} already exists ({same.id})",
                reason="name_taken", name=same.name, player=same.id)
        for card in player.card_ids:
            for other in self.players.values():
                if other.id != ignore and card in other.card_ids:
                    raise DuplicatePlayerError(
                        f"card {card} already belongs to {other.name} ({other.id})",
                        reason="card_taken", card=card, name=other.name)

    def add(self, player: Player) -> Player:
        if player.id in self.players:
            raise DuplicatePlayerError(f"player id {player.id!r} already exists", reason="id_taken",
                                       player=player.id)
        player = replace(player, card_ids=tuple(normalize_card(c) for c in player.card_ids))
        self._check_unique(player)
        self.players[player.id] = player
        if self._names is not None:
            self._names[normalize_name(player.name)] = player.id
        if re.fullmatch(r"P\d+", player.id) and self._top is not None:
            self._top = max(self._top, int(player.id[1:]))
        return player

    def add_new(self, name: str, *, card_ids: tuple[str, ...] = (), category: Category = "open",
                member: bool = True) -> Player:
        return self.add(Player(self.next_id(), name.strip(), card_ids, category, member))

    def update(self, player_id: str, **changes: Any) -> Player:
        """Rename, recategorize or change cards: ``reg.update("P0001", name="ALEX R.")``."""
        old = self.get(player_id)
        if "card_ids" in changes:
            changes["card_ids"] = tuple(normalize_card(c) for c in changes["card_ids"])
        new = replace(old, **changes)
        if new.id != old.id:
            raise TournamentError("a player's id cannot change", code="bad_player",
                                  reason="id_fixed")
        self._check_unique(new, ignore=player_id)
        self.players[player_id] = new
        self._names = None
        return new

    def remove(self, player_id: str) -> Player:
        """Take a player out (his cards with him); what else names him is the caller's
        concern (:mod:`mesa.tournament.registry_upkeep` checks it first)."""
        player = self.get(player_id)
        del self.players[player_id]
        self._names = None
        return player

    def add_card(self, player_id: str, card_id: str) -> Player:
        p = self.get(player_id)
        return self.update(player_id, card_ids=(*p.card_ids, card_id))

    # -- sanctions -------------------------------------------------------------------------

    def add_sanction(self, sanction: Sanction) -> Sanction:
        self.get(sanction.player_id)
        if any(s.id == sanction.id for s in self.sanctions):
            return sanction  # the same sanction arriving twice (a re-closed tournament)
        self.sanctions.append(sanction)
        return sanction

    def pending_sanctions(self, player_id: str, tournament_id: str) -> list[Sanction]:
        """Sanctions that bar ``player_id`` from ``tournament_id`` (the next tournament)."""
        return [s for s in self.sanctions
                if s.player_id == player_id and s.incurred_in != tournament_id
                and s.served_in in (None, tournament_id)]

    def serve_sanctions(self, tournament_id: str, held_on: date) -> list[Sanction]:
        """Mark every sanction incurred before ``held_on`` as served by this tournament.

        A ban covers exactly one tournament, the next one held, whether or not the player
        tried to register for it.
        """
        served: list[Sanction] = []
        for i, s in enumerate(self.sanctions):
            if s.served_in is None and s.incurred_in != tournament_id and s.incurred_on < held_on:
                self.sanctions[i] = replace(s, served_in=tournament_id)
                served.append(self.sanctions[i])
        return served

    def to_dict(self) -> dict[str, Any]:
        return {"players": [p.to_dict() for p in self.players.values()],
                "sanctions": [s.to_dict() for s in self.sanctions]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PlayerRegistry:
        reg = cls()
        for p in d.get("players", []):
            reg.players[p["id"]] = Player.from_dict(p)
        reg.sanctions = [Sanction.from_dict(s) for s in d.get("sanctions", [])]
        return reg
