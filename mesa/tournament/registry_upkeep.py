"""Keeping the club's registry: rename a player, merge a duplicate into the player kept, remove
one who never played. Pure: the hub's desk runs these on its club and saves it.

A rename reaches every place the name is printed (each tournament's entrants, the season's
records and imported rankings). A merge moves everything of the player dropped to the player
kept (tournaments, records, imported rankings, cards, sanctions; the ratings are rebuilt from
the closed tournaments) and the dropped one disappears from the registry. Each refusal says why
(its ``reason``): an unknown id, a player merged into himself, one still entered in an open
event, two players who both appear in one tournament or one ranking, a name already taken, a
player with results removed.

>>> from datetime import date, datetime
>>> from mesa.tournament.club import Club
>>> club = Club()
>>> jose = club.registry.add_new("JOSÉ LUIS MARTÍNEZ")
>>> typo = club.registry.add_new("JOSE LUIS MARTINES", card_ids=("04AA",))
>>> rename_player(club, typo.id, "Jose L. Martines").name
'Jose L. Martines'
>>> merge_players(club, keep=jose.id, drop=typo.id).cards
('04AA',)
>>> [p.name for p in club.registry], club.registry.by_card("04aa").id == jose.id
(['JOSÉ LUIS MARTÍNEZ'], True)
>>> merge_players(club, keep=jose.id, drop=jose.id)
Traceback (most recent call last):
...
mesa.tournament.errors.TournamentError: a player cannot be merged into himself (P0001)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from mesa.tournament.club import Club
from mesa.tournament.errors import TournamentError
from mesa.tournament.players import Player
from mesa.tournament.rating import RatingBook
from mesa.tournament.records import AuditEntry
from mesa.tournament.season import Ranking, TournamentRecord
from mesa.tournament.tournament import Tournament


@dataclass(frozen=True)
class PlayerUses:
    """Everything of the club that names a player."""

    tournaments: tuple[str, ...]  # entered (or left out as absent), closed or not
    open_events: tuple[str, ...]  # of those, the ones not closed yet
    records: tuple[str, ...]  # the season's records of closed tournaments
    rankings: tuple[str, ...]  # imported rankings, as "2025 open"
    sanctions: int
    rated: bool

    @property
    def has_results(self) -> bool:
        return bool(self.tournaments or self.records or self.rankings or self.sanctions
                    or self.rated)


def _in(t: Tournament, player_id: str) -> bool:
    return player_id in t.entrants or any(e.player_id == player_id for e in t.left_out)


def uses_of(club: Club, player_id: str) -> PlayerUses:
    """Where ``player_id`` appears (:class:`UnknownPlayerError` for an unknown id).

    >>> from mesa.tournament.club import Club
    >>> club = Club(); p = club.registry.add_new("ANA")
    >>> uses_of(club, p.id).has_results
    False
    """
    club.registry.get(player_id)
    ts = [t for t in club.tournaments.values() if _in(t, player_id)]
    return PlayerUses(
        tuple(t.id for t in ts),
        tuple(t.id for t in ts if t.phase != "closed"),
        tuple(r.tournament_id for r in club.season.records.values()
              if any(x.player_id == player_id for x in r.results)),
        tuple(f"{year} {category}" for (year, category), r in sorted(club.season.bases.items())
              if r.entry(player_id) is not None),
        sum(1 for s in club.registry.sanctions if s.player_id == player_id),
        player_id in club.ratings.players,
    )


def rename_player(club: Club, player_id: str, name: str, *, seated: Iterable[str] = ()) -> Player:
    """Give a player a new name everywhere it is printed. Refused for an empty name, a name
    another player has (accents and case do not count), or a player in ``seated`` (at a table
    now: the table shows the name it was given)."""
    old = club.registry.get(player_id)
    name = " ".join(name.split())
    if player_id in set(seated):
        raise TournamentError(f"{old.name} is at a table now", code="player_busy",
                              reason="player_seated", name=old.name)
    player = club.registry.update(player_id, name=name)  # refuses an empty or taken name
    for t in club.tournaments.values():
        for e in (*t.entrants.values(), *t.left_out):
            if e.player_id == player_id:
                e.name = player.name
    _rewrite_season(club, player_id, player_id, player.name)
    return player


@dataclass(frozen=True)
class Merged:
    """What a merge did: the player kept, the tournaments and rankings that now name him, the
    cards he took over."""

    kept: Player
    dropped: Player
    tournaments: tuple[str, ...]
    rankings: tuple[str, ...]
    cards: tuple[str, ...]


def merge_players(club: Club, *, keep: str, drop: str, actor: str = "director",
                  now: datetime | None = None, elsewhere: Iterable[str] = ()) -> Merged:
    """Move everything of ``drop`` to ``keep`` and take ``drop`` out of the registry.

    Refused (nothing changed) when ``keep`` is ``drop``, either id is unknown, ``drop`` is
    entered in an open event or named in ``elsewhere`` (another game's events, which the
    caller knows), or both appear in one tournament or one imported ranking (two results for
    one player: the director decides which is right first).
    """
    if keep == drop:
        raise TournamentError(f"a player cannot be merged into himself ({keep})",
                              code="bad_merge", reason="merge_self", player=keep)
    kept, dropped = club.registry.get(keep), club.registry.get(drop)
    _check_merge(club, kept, dropped, list(elsewhere))
    uses = uses_of(club, drop)
    for tid in uses.tournaments:
        t = club.tournaments[tid]
        state = t.to_dict()
        audit = state.pop("audit")  # history says what was, with the ids of the time
        state = _swap(state, drop, keep)
        for e in (*state["entrants"], *state["left_out"]):
            if e["player_id"] == keep:
                e["name"] = kept.name
        merged = Tournament.from_dict({**state, "audit": audit})
        at = now or (merged.audit[-1].at if merged.audit else datetime.now())
        merged.audit.append(AuditEntry(len(merged.audit) + 1, at, actor, "player_merged",
                                       {"kept": keep, "dropped": drop,
                                        "dropped_name": dropped.name}))
        club.tournaments[tid] = merged
    _rewrite_season(club, drop, keep, kept.name)
    for i, s in enumerate(club.registry.sanctions):
        if s.player_id == drop:
            club.registry.sanctions[i] = replace(s, player_id=keep)
    cards = dropped.card_ids
    club.registry.remove(drop)
    kept = club.registry.update(keep, card_ids=(*kept.card_ids, *cards))
    if uses.rated or any(club.tournaments[t].phase == "closed" for t in uses.tournaments):
        club.ratings = RatingBook.rebuild(t for t in club.tournaments.values()
                                          if t.phase == "closed")
    return Merged(kept, dropped, uses.tournaments, uses.rankings, cards)


def _check_merge(club: Club, kept: Player, dropped: Player, elsewhere: list[str]) -> None:
    uses = uses_of(club, dropped.id)
    if uses.open_events:
        t = club.tournaments[uses.open_events[0]]
        raise TournamentError(f"{dropped.name} is entered in {t.name}, which is open",
                              code="player_busy", reason="player_in_open_event",
                              name=dropped.name, tournament=t.name)
    if elsewhere:
        raise TournamentError(f"{dropped.name} plays in {elsewhere[0]}", code="player_busy",
                              reason="player_elsewhere", name=dropped.name, event=elsewhere[0])
    keeps = uses_of(club, kept.id)
    both = [t for t in uses.tournaments if t in keeps.tournaments]
    both += [r for r in uses.records if r in keeps.records and r not in both]
    if both:
        name = club.tournaments[both[0]].name if both[0] in club.tournaments else both[0]
        raise TournamentError(f"{kept.name} and {dropped.name} both played {name}",
                              code="bad_merge", reason="merge_same_tournament",
                              kept=kept.name, dropped=dropped.name, tournament=name)
    ranked = [r for r in uses.rankings if r in keeps.rankings]
    if ranked:
        raise TournamentError(f"{kept.name} and {dropped.name} are both in ranking {ranked[0]}",
                              code="bad_merge", reason="merge_same_ranking",
                              kept=kept.name, dropped=dropped.name, ranking=ranked[0])


def remove_player(club: Club, player_id: str, *, elsewhere: Iterable[str] = ()) -> Player:
    """Take a player who has no results out of the registry (a name created by mistake).
    Refused when anything names him: a tournament (open or closed), a record, an imported
    ranking, a sanction, a rating, or ``elsewhere`` (another game's events)."""
    player = club.registry.get(player_id)
    uses = uses_of(club, player_id)
    where = list(elsewhere)
    if uses.open_events:
        t = club.tournaments[uses.open_events[0]]
        raise TournamentError(f"{player.name} is entered in {t.name}, which is open",
                              code="player_busy", reason="player_in_open_event",
                              name=player.name, tournament=t.name)
    if uses.has_results or where:
        what = (uses.tournaments[:1] or uses.records[:1] or uses.rankings[:1] or where[:1]
                or [""])[0]
        if what in club.tournaments:
            what = club.tournaments[what].name
        raise TournamentError(f"{player.name} has results ({what or 'a sanction or rating'})",
                              code="player_has_results", reason="player_has_results",
                              name=player.name, where=what or "—")
    return club.registry.remove(player_id)


def _rewrite_season(club: Club, old: str, new: str, name: str) -> None:
    """The season's records and imported rankings name ``new`` (printed ``name``) where they
    named ``old``."""
    for tid, record in list(club.season.records.items()):
        if any(x.player_id == old for x in record.results):
            d = _swap(record.to_dict(), old, new)
            for x in d["results"]:
                if x["player_id"] == new:
                    x["name"] = name
            club.season.records[tid] = TournamentRecord.from_dict(d)
    for key, ranking in list(club.season.bases.items()):
        if ranking.entry(old) is not None:
            d = ranking.to_dict()
            for e in d["entries"]:
                if e["player_id"] == old:
                    e["player_id"], e["name"] = new, name
            club.season.bases[key] = Ranking.from_dict(d)


def _swap(value: Any, old: str, new: str) -> Any:
    """``value`` (a tournament's saved state) with every string ``old`` — a player id, as a
    value or a key, wherever the state keeps one — replaced by ``new``.

    >>> _swap({"a": "P1", "groups": [["P1", "P2"]], "P1": {"x": 1}}, "P1", "P9")
    {'a': 'P9', 'groups': [['P9', 'P2']], 'P9': {'x': 1}}
    """
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, dict):
        return {_swap(k, old, new): _swap(v, old, new) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_swap(v, old, new) for v in value]
    return value
