"""Places, points and the final list (mesa.tournament.closing), through the Tournament facade.

Moved from test_tournament.py.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

import pytest

from mesa.tournament.errors import (
    UnknownPlayerError,
)
from mesa.tournament.explain import group_place_lines, points_lines

# -- points and places ---------------------------------------------------------------------------


class TestPoints:
    def test_30_players_give_the_january_distribution(self, h) -> None:
        t, _ = h.build(30, names=h.SEED_NAMES)
        h.play(t, random.Random(2014))
        assert t.is_finished()
        assert h.band_counts(t) == {200: 1, 100: 1, 50: 2, 25: 4, 15: 8, 8: 14}
        finalists = t.consolation_finalists()
        assert len(finalists) == 2
        assert all(t.points()[p].consolation_finalist == 15 for p in finalists)
        assert sum(b.consolation_finalist for b in t.points().values()) == 30
        assert sum(r.total for r in t.final_list()) == h.formula_total(t)

    def test_the_seed_total_is_what_any_30_player_tournament_gives(self, h) -> None:
        # The seed's table sums to 13,18 = 7,32 places + 3,00 participation + 0,30 for the
        # two Último Chance finalists + 64 wins × 0,04, and 64 = 30 group matches + 29
        # knockout matches + 5 Último Chance matches (6 entrants). Any 30-player tournament
        # with a 6-player Último Chance and no forfeits adds up to the same 13,18.
        assert sum(h.SEED_POINTS) == 1318 == 732 + 300 + 30 + 4 * (30 + 29 + 5)
        for seed in range(3):
            t, _ = h.build(30, names=h.SEED_NAMES)
            h.play(t, random.Random(seed), consolation=False)
            entrants = t.consolation_eligible()[:6]
            t.start_consolation(entrants, now=h.NOW + timedelta(hours=3))
            h.play(t, random.Random(seed))
            assert sum(r.total for r in t.final_list()) == 1318

    def test_39_players_play_in_losers_get_no_place_points(self, h) -> None:
        t, _ = h.build(39)
        h.play(t, random.Random(1))
        assert h.band_counts(t) == {200: 1, 100: 1, 50: 2, 25: 4, 15: 8, 8: 16, 0: 7}
        pi_losers = [m.result.loser for m in t.matches_in("knockout") if m.round == "PI"]
        assert {t.points()[p].place for p in pi_losers} == {(33, 39)}

    def test_places_cover_every_player_once(self, h) -> None:
        t, _ = h.build(20)  # 6 groups (two of 4): 2 non-qualifiers
        h.play(t, random.Random(5))
        places = t.places()
        assert set(places) == set(t.entrants)
        counts = Counter((lo, hi) for lo, hi, _ in places.values())
        assert all(n == hi - lo + 1 for (lo, hi), n in counts.items())
        assert counts[(19, 20)] == 2
        assert all(t.points()[p].place_points == 0 for p, (lo, _, r) in places.items()
                   if r == "group")

    def test_final_list_orders_by_points(self, h) -> None:
        t, _ = h.build(12)
        h.play(t, random.Random(3))
        rows = t.final_list()
        assert [r.position for r in rows] == list(range(1, 13))
        assert [r.total for r in rows] == sorted((r.total for r in rows), reverse=True)
        assert rows[0].points.total >= 210

    def test_explanations(self, h) -> None:
        t, _ = h.build(30, names=h.SEED_NAMES)
        h.play(t, random.Random(2014))
        champ = t.champion
        es = "\n".join(points_lines(t, champ, "es"))
        en = "\n".join(points_lines(t, champ, "en"))
        assert "Puesto 1º (campeón): 2,00" in es and "Participación: 0,10" in es
        assert "Place 1st (champion): 2.00" in en
        total = t.points()[champ].total
        assert es.splitlines()[-1].strip() == f"Total: {total // 100},{total % 100:02d}"
        g = "\n".join(group_place_lines(t, champ, "es"))
        assert "grupo" in g and "Decidido por" in g
        with pytest.raises(UnknownPlayerError):
            points_lines(t, "P9999")
