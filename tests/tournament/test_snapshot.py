"""A saved tournament loads and saves again byte for byte, and the same evening played again
saves the same bytes.

The golden files under ``data/`` were written by the single-class ``Tournament`` (before it
became a facade over parts), so these tests hold the facade to that code's snapshots: the
format of what the hub persists, and every decision the evening's actions led to.

Regenerate (only when a change of the format is intended)::

    .venv/bin/python -m tests.tournament.test_snapshot --write
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from mesa.tournament.errors import TournamentError
from mesa.tournament.players import Player, Sanction
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.store import TournamentStore
from mesa.tournament.tournament import Tournament

DATA = Path(__file__).parent / "data"


def dump(t: Tournament) -> str:
    """The snapshot as text (the store's separators, pretty enough to read a diff)."""
    return json.dumps(t.to_dict(), ensure_ascii=False, indent=1, sort_keys=False) + "\n"


def evening(h: SimpleNamespace, *, stop_mid: bool) -> Tournament:
    """Twenty club players through everything a director meets in an evening: an overridden
    sanction, an absent player left out, tables, a move, a changed format, a player who
    leaves, a no-show, a knockout forfeit with its replacement, Último Chance with one who
    drops out, corrections (plain, in conflict, kept and applied) and a table's disputed
    report. ``stop_mid`` stops with conflicts still open; otherwise the evening closes."""
    clock = h.Clock()
    rng = random.Random(17)
    t, reg = h.build(20, names=h.SEED_NAMES[:20], start=False,
                     settings=TournamentSettings(dice_by="hub"))
    extra = reg.add(Player("P0021", "SANCIONADO"))
    reg.add_sanction(Sanction("prev:P0021:left", extra.id, "left", "prev", h.DAY))
    t.register(reg, extra.id, override=True, actor="joselo", now=clock())
    t.leave_out(["P0020"], now=clock())
    ranking = {f"P{i + 1:04d}": v for i, v in enumerate(h.SEED_POINTS[:20])}
    t.start_groups(ranking=ranking, seed="2014-01", now=clock())
    t.assign_tables(["T1", "T2", "T3", "T4"], now=clock())
    first = t.group_matches(1)[0]
    t.move_match(first.id, "T5", actor="joselo", now=clock())
    t.match_started(first.id, now=clock())
    later = t.group_matches(2)[-1]
    t.set_match_format(later.id, length=5, now=clock())
    on_tables = [m for m in t.matches.values() if m.status == "assigned"]
    t.unassign(on_tables[0].id, now=clock())  # a broken table: the match waits for another
    for m in on_tables[1:]:
        t.record_result(m.id, *h.random_score(m, rng), now=clock())
    t.record_result(first.id, 1, first.length, now=clock())
    h.play(t, rng, clock=clock, until=lambda t: sum(
        m.result is not None for m in t.matches.values()) >= 8)
    t.correct_result(next(m.id for m in t.matches.values() if m.result is not None),
                     0, 3, actor="joselo", now=clock(), reason="mal anotado")
    t.withdraw(t.groups[2][0], "left", now=clock(), note="se fue")
    t.withdraw(t.groups[3][1], "no_show", now=clock())
    h.play(t, rng, clock=clock, until=lambda t: t.knockout is not None)
    ko = t.matches_in("knockout")
    for m in [m for m in ko if m.round == "PI"]:
        if m.status == "ready":
            t.record_result(m.id, m.length, 1, now=clock())
    r16 = next((m for m in ko if m.status == "ready" and m.sources
                and m.sources[1].kind == "winner"), None)
    if r16 is not None:
        t.record_result(r16.id, r16.length, 0, forfeit=True, now=clock())
    h.play(t, rng, clock=clock, consolation=False,
           until=lambda t: t.first_knockout_round_done())
    t.start_consolation(now=clock())
    assert t.consolation is not None
    t.leave_consolation(t.consolation.players[-1], now=clock())
    h.play(t, rng, clock=clock, until=lambda t: sum(
        m.result is not None for m in t.matches_in("knockout")) >= 12)
    decided = [m for m in t.matches_in("knockout") if m.result is not None]
    # A result a later decided round already used: applying its correction annuls that round.
    early = next(m for m in decided if any(
        s.kind == "winner" and s.ref == m.id for x in decided for s in x.sources or ()))
    r = early.result
    assert r is not None
    t.correct_result(early.id, r.score_b, r.score_a, now=clock(), reason="firmaron al revés")
    group = next(m for m in t.matches_in("group") if m.result is not None and not m.result.forfeit)
    g = group.result
    assert g is not None
    t.correct_result(group.id, g.score_b, g.score_a, now=clock(), reason="al revés")
    open_ = next((m for m in t.ready_matches()), None)
    if open_ is not None:
        t.table_conflict(open_.id, open_.length, 2, actor="T9", now=clock(),
                         reason="table_no_longer_holds")
    if stop_mid:
        return t
    # The table's report first (it records an undecided match), then the knockout correction
    # is kept and the group one applied: the knockout is drawn again, its results annulled.
    for c in sorted(t.open_conflicts(), key=lambda c: "table" not in c.kinds):
        if "table" in c.kinds:
            t.resolve_conflict(c.id, "apply", now=clock())
        elif c.kinds == ["draw"]:
            t.resolve_conflict(c.id, "apply", expected=t.conflict_annuls(c.id, now=clock()),
                               now=clock())
        else:
            t.resolve_conflict(c.id, "keep", now=clock())
    h.play(t, rng, clock=clock)
    if t.is_finished():
        t.close(now=clock())
    return t


def small_director_dice(h: SimpleNamespace) -> Tournament:
    """Three players tied on wins, the director's dice, then an undone and redrawn draw."""
    clock = h.Clock()
    t, _ = h.build(3, settings=TournamentSettings(dice_by="director", consolation=False),
                   start=False)
    t.start_groups(ranking={}, seed=3, now=clock())
    t.undo_groups(now=clock(), why="redraw")
    t.start_groups(ranking={}, seed=4, now=clock(), n_groups=1)
    assert not t.pending_dice()
    h.play(t, random.Random(2), score=h.favourite_score, clock=clock, consolation=False)
    for group, among in t.pending_dice():
        t.enter_dice(group, {p: i + 1 for i, p in enumerate(among)}, now=clock())
    h.play(t, random.Random(2), clock=clock, consolation=False)
    return t


SCENARIOS: dict[str, Callable[[SimpleNamespace], Tournament]] = {
    "evening_open_conflicts": lambda h: evening(h, stop_mid=True),
    "evening_closed": lambda h: evening(h, stop_mid=False),
    "director_dice": small_director_dice,
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_saved_tournament_loads_and_saves_byte_for_byte(name: str) -> None:
    text = (DATA / f"{name}.json").read_text(encoding="utf-8")
    again = Tournament.from_dict(json.loads(text))
    assert dump(again) == text
    # And once more: a loaded tournament's own snapshot loads to the same bytes.
    assert dump(Tournament.from_dict(json.loads(dump(again)))) == text


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_through_the_store_too(tmp_path: Path, name: str) -> None:
    """What the hub does: the store keeps the state and the audit apart (SQLite); loaded back,
    the tournament saves the same bytes, and saving it again adds no audit row."""
    text = (DATA / f"{name}.json").read_text(encoding="utf-8")
    store = TournamentStore(tmp_path / "t.db")
    try:
        t = Tournament.from_dict(json.loads(text))
        assert store.save_tournament(t) == len(t.audit)
        again = store.load_tournament(t.id)
        assert dump(again) == text
        assert store.save_tournament(again) == 0
    finally:
        store.close()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_same_evening_saves_the_same_bytes(h: SimpleNamespace, name: str) -> None:
    assert dump(SCENARIOS[name](h)) == (DATA / f"{name}.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_loaded_tournament_plays_on_like_the_original(h: SimpleNamespace, name: str) -> None:
    """What is restored is the whole state: the loaded copy and the original take the same
    next steps (derived caches rebuilt, nothing lost with the object)."""
    original = SCENARIOS[name](h)
    loaded = Tournament.from_dict(json.loads(dump(original)))
    for t in (original, loaded):
        h.play(t, random.Random(5), clock=h.Clock(h.NOW.replace(hour=23)),
               consolation=t.settings.consolation)
    assert dump(loaded) == dump(original)


# Moved from test_tournament.py.
def test_state_round_trips_at_every_stage(h, clock) -> None:
    t, _ = h.build(14)
    rng = random.Random(8)
    copies = 0
    while t.ready_matches():
        m = t.ready_matches()[0]
        a, b = h.random_score(m, rng)
        t.record_result(m.id, a, b, now=clock())
        d = json.loads(json.dumps(t.to_dict()))
        t2 = Tournament.from_dict(d)
        assert t2.to_dict() == d
        if copies % 5 == 0:
            t = t2  # carry on with the rebuilt one
        copies += 1
    assert t.champion is not None
    with pytest.raises(TournamentError):
        Tournament.from_dict({**t.to_dict(), "version": 99})


def _write() -> None:  # pragma: no cover - run by hand
    from tests.tournament.conftest import HELPERS

    DATA.mkdir(exist_ok=True)
    for name, scenario in SCENARIOS.items():
        (DATA / f"{name}.json").write_text(dump(scenario(HELPERS)), encoding="utf-8")
        print("wrote", name)


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--write"]:
        _write()
