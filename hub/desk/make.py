"""The tournament desk the hub process's settings describe, on the hub's database.

desk = make_desk(hub, settings)   # rate, clock policy, auto-assign, language from settings
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

from mesa.hub.desk.games.backgammon import TournamentDesk
from mesa.hub.desk.ports import HubWithSettings
from mesa.hub.settings import HubSettings
from mesa.tournament.chains import critical_priority
from mesa.tournament.scheduler import Priority, calendar_priority

# MESA_WEB_SCHEDULER: how the evening's ready matches are ordered on the shared tables.
POLICIES: dict[str, Priority] = {"critical": critical_priority, "calendar": calendar_priority}


def make_desk(
    hub: HubWithSettings,
    settings: HubSettings,
    *,
    now: Callable[[], datetime] = datetime.now,
    wall: Callable[[], float] = time.time,
) -> TournamentDesk:
    """The tournament desk the settings describe, on ``hub``'s store."""
    return TournamentDesk(
        hub.settings.db,
        hub=hub,
        now=now,
        wall=wall,
        rate=settings.time_scale,
        timed=settings.timed_matches,
        auto_assign=settings.auto_assign,
        language=settings.language,
        priority=POLICIES[settings.scheduler],
    )
