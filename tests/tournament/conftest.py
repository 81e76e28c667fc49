"""Helpers for the tournament engine tests: build tournaments and play them out."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import date, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from mesa.tournament.matches import Match
from mesa.tournament.players import PlayerRegistry
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.tournament import Tournament

NOW = datetime(2014, 1, 31, 19, 30)
DAY = date(2014, 1, 31)

# The 30 players who scored in the seed's "ASÍ QUEDÓ EL TORNEO" (January 2014), in order.
SEED_NAMES = [
    "ALEX", "EL MANU", "JUAN CARLOS", "IGLESIAS", "ROCIO", "JORGE P.", "LA VERO",
    "JJ CISTERNA", "MAMUT", "JULIA", "ISABEL", "MARIELA", "RICARDO", "FERNANDA", "XIOMARA",
    "JOSELO", "KARINA", "JOSEITO", "BOTANA", "YONY T.", "EL PINCHO", "JULIO P.", "COMESAÑA",
    "BETTY", "JOSE DAVID", "MARÍA JOSÉ", "LA TUQUI", "AMALIA", "CHICHO", "RICKY",
]
SEED_POINTS = [230, 134, 72, 68, 49, 47, 47, 45, 43, 43, 37, 37, 37, 33, 33, 30, 30, 29, 29,
               29, 26, 26, 26, 22, 22, 22, 18, 18, 18, 18]


class Clock:
    """A fake clock: every call is one minute later."""

    def __init__(self, start: datetime = NOW) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


def build(
    n: int,
    *,
    ranking: Mapping[int, int] | None = None,
    seed: int | str = 7,
    settings: TournamentSettings | None = None,
    n_groups: int | None = None,
    names: list[str] | None = None,
    start: bool = True,
    official: bool = True,
) -> tuple[Tournament, PlayerRegistry]:
    """``n`` players named J01… (or ``names``); by default ranked so that J01 is seed 1."""
    reg = PlayerRegistry()
    ids = [reg.add_new(names[i] if names else f"J{i + 1:02d}").id for i in range(n)]
    t = Tournament("T", "Enero", DAY, settings=settings, official=official)
    for pid in ids:
        t.register(reg, pid, now=NOW)
    if start:
        pts = ({ids[i]: v for i, v in ranking.items()} if ranking is not None
               else {pid: 10 * (n - i) for i, pid in enumerate(ids)})
        t.start_groups(ranking=pts, seed=seed, now=NOW, n_groups=n_groups)
    return t, reg


Chooser = Callable[[Match, random.Random], tuple[int, int]]


def random_score(m: Match, rng: random.Random) -> tuple[int, int]:
    loser = rng.randint(0, m.length - 1)
    winner = m.length + (rng.random() < 0.2)
    return (winner, loser) if rng.random() < 0.5 else (loser, winner)


def favourite_score(m: Match, rng: random.Random) -> tuple[int, int]:
    """The first-named player always wins."""
    return (m.length, rng.randint(0, m.length - 1))


def play(
    t: Tournament,
    rng: random.Random | None = None,
    *,
    score: Chooser = random_score,
    consolation: bool = True,
    clock: Clock | None = None,
    until: Callable[[Tournament], bool] | None = None,
) -> None:
    """Record results for ready matches until nothing is left (drawing Último Chance once the
    first knockout matches are over)."""
    rng = rng or random.Random(0)
    clock = clock or Clock()
    uc_tried = False
    while until is None or not until(t):
        ready = sorted(t.ready_matches(), key=lambda m: (m.phase != "group", m.round_no,
                                                        m.group or 0, m.number))
        if not ready:
            if (consolation and not uc_tried and t.knockout is not None
                    and t.consolation is None and t.first_knockout_round_done()):
                uc_tried = True
                if len(t.consolation_eligible()) >= 2:
                    t.start_consolation(now=clock())
                    continue
            break
        m = ready[0]
        a, b = score(m, rng)
        t.record_result(m.id, a, b, now=clock())


def state(t: Tournament) -> dict[str, Any]:
    return t.to_dict()


def pid(i: int) -> str:
    """The id of the i-th player ``build`` registered (J01 is P0001)."""
    return f"P{i:04d}"


def play_groups(t: Tournament, score: Chooser | None = None) -> None:
    """Play the groups out (the first-named wins by default) until the knockout is drawn."""
    play(t, score=score or favourite_score, until=lambda t: t.knockout is not None)


def band_counts(t: Tournament) -> Counter[int]:
    """How many players earned each place-points band."""
    return Counter(b.place_points for b in t.points().values())


def formula_total(t: Tournament) -> int:
    """HGV 7.5 summed over everyone: places + 0.10 each + 0.15 per UC finalist + 0.04 a win."""
    pts = t.points()
    scale = t.settings.points
    wins = sum(b.wins for b in pts.values())
    return (sum(b.place_points for b in pts.values())
            + sum(b.participation for b in pts.values())
            + scale.consolation_finalist * len(t.consolation_finalists())
            + scale.per_win * wins)


# Test modules reach the helpers through this fixture, which works whatever pytest's import
# mode (no test module imports conftest).
HELPERS = SimpleNamespace(
    NOW=NOW, DAY=DAY, SEED_NAMES=SEED_NAMES, SEED_POINTS=SEED_POINTS, Clock=Clock, build=build,
    play=play, random_score=random_score, favourite_score=favourite_score, state=state, pid=pid,
    play_groups=play_groups, band_counts=band_counts, formula_total=formula_total)


@pytest.fixture(scope="session")
def h() -> SimpleNamespace:
    return HELPERS


@pytest.fixture
def clock() -> Clock:
    return Clock()
