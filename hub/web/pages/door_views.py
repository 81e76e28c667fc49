"""What the director sees at the door and before a draw counts: who is in, who is present, the
groups a seed would give (on a copy: nothing changes), and the knockout the standings give.

>>> from datetime import date, datetime
>>> from mesa.tournament.club import Club
>>> club, now = Club(), datetime(2025, 3, 7, 20, 0)
>>> t = club.create_tournament("T1", "Marzo", date(2025, 3, 7))
>>> ids = [club.registry.add_new(n).id for n in ("ANA", "BEA", "EVA", "LUZ")]
>>> for pid in ids:
...     _ = club.register("T1", pid, now=now)
>>> p = group_preview(club, t, {ids[0]: True, ids[1]: True, ids[2]: True}, seed=5)
>>> [x["name"] for x in p["left_out"]], len(p["groups"]), p["players"], len(t.matches)
(['LUZ'], 1, 3, 0)
"""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from mesa.tournament.club import Club
from mesa.tournament.errors import TournamentError
from mesa.tournament.tournament import Tournament


def door_counts(t: Tournament, present: dict[str, bool]) -> dict[str, int]:
    """How many are registered, present and not (yet) present."""
    here = sum(1 for p in t.entrants if present.get(p))
    return {"total": len(t.entrants), "present": here, "absent": len(t.entrants) - here}


def absent_players(t: Tournament, present: dict[str, bool]) -> list[str]:
    """The entrants the draw leaves out: not marked present, once anyone is (a club that does
    not use the check-in draws everyone)."""
    if not any(present.get(p) for p in t.entrants):
        return []
    return sorted(p for p in t.entrants if not present.get(p))


def group_preview(
    club: Club,
    t: Tournament,
    present: dict[str, bool],
    *,
    seed: int,
    n_groups: int | None = None,
) -> dict[str, Any]:
    """The groups ``seed`` gives with the absent players left out, computed on a copy."""
    out = absent_players(t, present)
    trial = Tournament.from_dict(t.to_dict())
    for pid in out:
        del trial.entrants[pid]
    ranking = club.season.seeding_points(t.category, t.held_on)
    error = ""
    groups: list[dict[str, Any]] = []
    try:
        trial.start_groups(ranking=ranking, seed=seed, now=_noon(t), n_groups=n_groups)
    except TournamentError as e:
        error = e.code
    else:
        groups = [
            {
                "group": i,
                "players": [
                    {"id": p, "name": trial.name_of(p), "points": ranking.get(p, 0)}
                    for p in members
                ],
            }
            for i, members in enumerate(trial.groups, start=1)
        ]
    return {
        "seed": seed,
        "n_groups": n_groups,
        "players": len(trial.entrants),
        "groups": groups,
        "left_out": [{"id": p, "name": t.name_of(p)} for p in out],
        "checkin_used": any(present.get(p) for p in t.entrants),
        "error": error,
    }


def _noon(t: Tournament) -> datetime:
    return datetime.combine(t.held_on, time(12, 0))


def knockout_preview(t: Tournament) -> dict[str, Any]:
    """Who the knockout takes if the groups ended now, and who it leaves out (by group)."""
    if t.phase != "groups" or not t.groups:
        return {"shown": False, "seeds": [], "left_out": []}
    seeds, _swaps, _plan = t.draw_preview()
    inside = {s.player_id for s in seeds}
    return {
        "shown": True,
        "final": t.groups_complete(),
        "seeds": [
            {"seed": s.seed, "name": t.name_of(s.player_id), "group": s.group, "place": s.place}
            for s in seeds
        ],
        "left_out": [
            {"name": t.name_of(p), "group": t.group_of(p)}
            for g in t.groups
            for p in g
            if p not in inside
        ],
    }


def draw_undo_state(t: Tournament) -> dict[str, Any]:
    """Whether the group draw can still be taken back, and if not, the match that fixed it."""
    if t.phase != "groups" or t.knockout is not None:
        return {"possible": False, "locked_by": None}
    fixed = sorted(m.id for m in t.matches.values() if m.status in ("playing", "done"))
    return {
        "possible": not fixed and not t.withdrawals,
        "locked_by": fixed[0] if fixed else None,
        "seed": t.seed,
    }
