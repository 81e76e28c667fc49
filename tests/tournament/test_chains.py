"""The chains each match holds up, and the critical policy built on them."""

from __future__ import annotations

from datetime import date, datetime

from mesa.tournament.chains import cached_chains, chains_of, critical_priority
from mesa.tournament.players import PlayerRegistry
from mesa.tournament.scheduler import plan_evening
from mesa.tournament.settings import TournamentSettings
from mesa.tournament.tournament import Tournament

NOW = datetime(2026, 12, 4, 20, 0)


def event(tid: str, n: int, reg: PlayerRegistry, settings: TournamentSettings | None = None,
          **kw: object) -> Tournament:
    t = Tournament(tid, tid, date(2026, 12, 4), settings=settings)
    for i in range(n):
        t.register(reg, reg.add_new(f"{tid} {i}").id, now=NOW)
    t.start_groups(ranking={}, seed=3, now=NOW, **kw)  # type: ignore[arg-type]
    return t


def play_groups(t: Tournament) -> None:
    for m in list(t.matches.values()):
        if m.phase == "group":
            t.record_result(m.id, 3, 1, now=NOW)


def test_before_the_draw_the_knockout_is_modelled_from_the_qualifiers() -> None:
    t = event("T", 9, PlayerRegistry())          # 3 groups of 3: 9 qualifiers
    c = chains_of(t)
    # groups 3 × 30, a play-in 50, QF 50, SF 70, F 70
    assert c.minutes("G1-1") == 90 + 50 + 50 + 70 + 70
    assert c.minutes("G1-3") == 30 + 50 + 50 + 70 + 70
    assert {"KO-PI-1", "KO-F-1"} <= c.phantom and "KO-PI-2" not in c.phantom
    assert any(mid.startswith("UC-") for mid in c.phantom)


def test_after_the_draw_the_real_bracket_and_the_consolation_model() -> None:
    t = event("T", 9, PlayerRegistry())
    play_groups(t)
    assert t.knockout is not None
    c = chains_of(t)
    assert not any(mid.startswith("KO-") for mid in c.phantom)
    assert c.minutes("KO-PI-1") == 50 + 50 + 70 + 70
    assert c.minutes("KO-F-1") == 70
    # A quarterfinal's chain: the final's road, or Último Chance after it, the longer
    assert c.minutes("KO-QF-1") >= 50 + 70 + 70


def test_the_evening_as_played_gives_a_lower_bound() -> None:
    t = event("T", 6, PlayerRegistry())
    play_groups(t)
    while t.ready_matches():
        for m in t.ready_matches():
            t.record_result(m.id, m.length, 0, now=NOW)
        if t.consolation is None and t.first_knockout_round_done():
            t.start_consolation(now=NOW)
    c = chains_of(t, lambda m: 60.0, include_done=True)
    # 3 group matches, the play-in, the semifinal and the final in a row
    assert c.longest_s == 6 * 60.0


def test_calendar_order_within_a_group_and_the_longest_chain_first() -> None:
    reg = PlayerRegistry()
    open_ = event("open", 9, reg)
    # One group of 4 (3 rounds), 2 qualifiers: 90 + a final of 70 + Último Chance's final
    nov = event("novatos", 4, reg, TournamentSettings(qualifiers_per_group=2), n_groups=1)
    play_groups(open_)                            # open is at its knockout
    keys = {(t.id, m.id): critical_priority(t, m) for t in (open_, nov)
            for m in t.ready_matches()}
    g = [k for (tid, _), k in keys.items() if tid == "novatos"]
    assert len(set(k[0] for k in g)) == 1          # one chain for the whole group
    ordered = sorted(keys, key=keys.__getitem__)
    assert ordered[0] == ("open", "KO-PI-1")       # its chain is the longest of the evening
    nov_order = [mid for tid, mid in ordered if tid == "novatos"]
    assert nov_order == sorted(nov_order, key=lambda mid: int(mid.split("-")[1]))
    plan = plan_evening([open_, nov], ["1", "2"], NOW, priority=critical_priority)
    assert [a.match_id for a in plan["open"]] == ["KO-PI-1"]


def test_the_chains_are_computed_once_per_state() -> None:
    t = event("T", 6, PlayerRegistry())
    assert cached_chains(t) is cached_chains(t)
    before = cached_chains(t)
    t.record_result("G1-1", 3, 0, now=NOW)
    assert cached_chains(t) is not before
