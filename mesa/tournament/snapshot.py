"""What the hub persists of a tournament: its state as one plain, JSON-able dict, and back.

The key order and every value's form are the format of the saved tournaments (the store keeps
them as JSON): a snapshot loads and saves again byte for byte (``tests/tournament/test_snapshot``
holds it to files written before the engine was split into parts). Only the persisted fields
are here; the caches of :class:`~mesa.tournament.state.TournamentState` are rebuilt on demand.

>>> from datetime import date
>>> d = dump_state(TournamentState("T", "Enero", date(2014, 1, 31)))
>>> d["version"], d["phase"], dump_state(load_state(d)) == d
(1, 'registration', True)
"""

from __future__ import annotations

import copy
from datetime import date
from typing import Any

from mesa.tournament.errors import TournamentError
from mesa.tournament.matches import Match
from mesa.tournament.players import Sanction
from mesa.tournament.records import (
    AuditEntry,
    BracketState,
    Conflict,
    Entrant,
    KnockoutForfeit,
    Withdrawal,
)
from mesa.tournament.seeding import SeedingDraw
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.state import TournamentState

STATE_VERSION = 1


def dump_state(s: TournamentState) -> dict[str, Any]:
    return {
        "version": STATE_VERSION,
        "id": s.id, "name": s.name, "held_on": s.held_on.isoformat(),
        "category": s.category, "official": s.official,
        "settings": s.settings.to_dict(), "phase": s.phase,
        "entrants": [e.to_dict() for e in s.entrants.values()],
        "seed": s.seed,
        "seeding": None if s.seeding is None else s.seeding.to_dict(),
        "groups": [list(g) for g in s.groups],
        "matches": [m.to_dict() for m in s.matches.values()],
        "knockout": None if s.knockout is None else s.knockout.to_dict(),
        "consolation": None if s.consolation is None else s.consolation.to_dict(),
        "substitutions": copy.deepcopy(s.substitutions),
        "knockout_forfeits": [f.to_dict() for f in s.knockout_forfeits],
        "withdrawals": [w.to_dict() for w in s.withdrawals.values()],
        "dice_entered": copy.deepcopy(s.dice_entered),
        "sanctions": [x.to_dict() for x in s.sanctions],
        "conflicts": [c.to_dict() for c in s.conflicts],
        "audit": [a.to_dict() for a in s.audit],
        "left_out": [e.to_dict() for e in s.left_out],
    }


def load_state(d: dict[str, Any]) -> TournamentState:
    if d.get("version") != STATE_VERSION:
        raise TournamentError(f"unknown tournament state version {d.get('version')!r}",
                              code="bad_state", reason="bad_state",
                              version=str(d.get("version")))
    return TournamentState(
        d["id"], d["name"], date.fromisoformat(d["held_on"]), category=d["category"],
        official=bool(d["official"]), settings=TournamentSettings.from_dict(d["settings"]),
        phase=d["phase"],
        entrants={e["player_id"]: Entrant.from_dict(e) for e in d["entrants"]},
        seed=d["seed"],
        seeding=None if d["seeding"] is None else SeedingDraw.from_dict(d["seeding"]),
        groups=[list(g) for g in d["groups"]],
        matches={m["id"]: Match.from_dict(m) for m in d["matches"]},
        knockout=None if d["knockout"] is None else BracketState.from_dict(d["knockout"]),
        consolation=(None if d["consolation"] is None
                     else BracketState.from_dict(d["consolation"])),
        substitutions=copy.deepcopy(d["substitutions"]),
        knockout_forfeits=[KnockoutForfeit.from_dict(f) for f in d["knockout_forfeits"]],
        withdrawals={w["player_id"]: Withdrawal.from_dict(w) for w in d["withdrawals"]},
        dice_entered=copy.deepcopy(d["dice_entered"]),
        sanctions=[Sanction.from_dict(x) for x in d["sanctions"]],
        conflicts=[Conflict.from_dict(c) for c in d["conflicts"]],
        audit=[AuditEntry.from_dict(a) for a in d["audit"]],
        left_out=[Entrant.from_dict(e) for e in d.get("left_out", [])],
    )
