"""Keeping the registry: a rename reaches every printed name, a merge moves a duplicate's whole
history (tournaments, records, rankings, ratings, cards, sanctions) to the player kept, a
removal takes only a player without results; every refusal says why and changes nothing."""

from __future__ import annotations

import json
import random
from datetime import date, datetime

import pytest

from mesa.tournament.club import Club
from mesa.tournament.errors import TournamentError, UnknownPlayerError
from mesa.tournament.i18n import refusal_of
from mesa.tournament.rating import RatingBook
from mesa.tournament.registry_upkeep import merge_players, remove_player, rename_player, uses_of
from mesa.tournament.store import TournamentStore
from support.legacy import add_legacy_player

NAMES = ["ANA", "BEA", "CARLOS", "DAVID", "EVA", "FELIX"]


def closed(h, club: Club, tid: str, day: date, players: list[str], seed: int) -> None:
    t = club.create_tournament(tid, tid, day)
    now = datetime.combine(day, datetime.min.time()).replace(hour=19)
    for p in players:
        club.register(tid, p, now=now)
    club.start(tid, seed=seed, now=now)
    h.play(t, random.Random(seed), clock=h.Clock(now))
    club.close(tid, now=now.replace(hour=23))


@pytest.fixture
def club(h) -> Club:
    """Six players who played January; "JOS� LUIS" (a broken import) played February in
    BEA's place, with a card and a sanction; "JOSÉ LUIS" is the right name, new."""
    club = Club()
    ids = [club.registry.add_new(n).id for n in NAMES]
    closed(h, club, "2014-01", date(2014, 1, 31), ids, seed=1)
    broken = add_legacy_player(club, "JOS\ufffd LUIS", ("04BAD",))
    closed(h, club, "2014-02", date(2014, 2, 28), [broken, *ids[:1], *ids[2:]], seed=2)
    club.tournament("2014-02")  # played; now a sanction from it, kept in the registry
    from mesa.tournament.players import Sanction

    club.registry.add_sanction(Sanction("S1", broken, "no_show", "2014-02", date(2014, 2, 28)))
    club.registry.add_new("JOSÉ LUIS")
    return club


def test_uses_say_where_a_player_appears(club: Club) -> None:
    broken = club.registry.find_name("JOS\ufffd LUIS").id
    uses = uses_of(club, broken)
    assert uses.tournaments == ("2014-02",) and uses.records == ("2014-02",)
    assert uses.open_events == () and uses.sanctions == 1 and uses.rated and uses.has_results
    assert not uses_of(club, club.registry.find_name("JOSÉ LUIS").id).has_results
    with pytest.raises(UnknownPlayerError):
        uses_of(club, "P9999")


def test_a_rename_reaches_every_printed_name(club: Club) -> None:
    broken = club.registry.find_name("JOS\ufffd LUIS").id
    rename_player(club, broken, "José Luis Martín")
    feb = club.tournament("2014-02")
    assert feb.name_of(broken) == "José Luis Martín"
    assert any(r.name == "José Luis Martín" for r in club.season.records["2014-02"].results)
    assert "José Luis Martín" in [e.name for e in club.annual_ranking(2014).entries]
    assert "José Luis Martín" in [r.name for r in feb.final_list()]
    for name, reason in (("  ", "no_name"), ("jose luis", "name_taken"), ("ana", "name_taken"),
                         ("JOS\ufffd L.", "name_lost")):
        with pytest.raises(TournamentError) as e:
            rename_player(club, broken, name)
        assert e.value.reason == reason
    with pytest.raises(TournamentError) as e:
        rename_player(club, broken, "OTRO", seated=[broken])
    assert e.value.reason == "player_seated"
    assert club.registry.get(broken).name == "José Luis Martín"


def test_a_merge_moves_the_whole_history_to_the_player_kept(club: Club, tmp_path) -> None:
    broken = club.registry.find_name("JOS\ufffd LUIS").id
    jose = club.registry.find_name("JOSÉ LUIS").id
    before = club.tournament("2014-02").final_list()
    row = next(r for r in before if r.player_id == broken)
    rating = club.ratings.players[broken].rating
    store = TournamentStore(tmp_path / "club.sqlite3")
    store.save_club(club)  # as the hub's desk holds it: saved before, saved again after
    done = merge_players(club, keep=jose, drop=broken, now=datetime(2014, 3, 1, 10))
    assert done.tournaments == ("2014-02",) and done.cards == ("04BAD",)
    assert broken not in club.registry and club.registry.by_card("04bad").id == jose
    feb = club.tournament("2014-02")
    after = {r.player_id: r for r in feb.final_list()}
    assert after[jose].total == row.total and after[jose].name == "JOSÉ LUIS"
    assert broken not in json.dumps({k: v for k, v in feb.to_dict().items() if k != "audit"})
    assert feb.audit[-1].action == "player_merged"
    assert feb.audit[-1].details == {"kept": jose, "dropped": broken, "dropped_name": "JOS\ufffd LUIS"}
    entry = club.annual_ranking(2014).entry(jose)
    assert entry is not None and entry.points == row.total and entry.name == "JOSÉ LUIS"
    assert club.ratings.players[jose].rating == pytest.approx(rating)
    assert broken not in club.ratings.players
    assert club.ratings.to_dict() == RatingBook.rebuild(club.tournaments.values()).to_dict()
    assert [s.player_id for s in club.registry.sanctions] == [jose]
    # What the hub saves loads back the same (the audit kept as it was, plus the merge line).
    with store:
        store.save_club(club)
        again = store.load_club()
    assert again.to_dict() == club.to_dict()
    assert [a.action for a in store_audit(tmp_path)][-1] == "player_merged"


def store_audit(tmp_path) -> list:
    with TournamentStore(tmp_path / "club.sqlite3") as store:
        return store.audit("2014-02")


def test_merge_refusals_change_nothing(club: Club, h) -> None:
    ids = {p.name: p.id for p in club.registry}
    broken, jose = ids["JOS\ufffd LUIS"], ids["JOSÉ LUIS"]
    t = club.create_tournament("2014-03", "Marzo", date(2014, 3, 28))
    club.register("2014-03", jose, now=datetime(2014, 3, 28, 19))
    club.season.set_base(2013, "open", club.annual_ranking(2014))
    snapshot = json.dumps(club.to_dict(), sort_keys=True)
    cases = [
        (dict(keep=broken, drop=broken), "merge_self"),
        (dict(keep=broken, drop="P9999"), "unknown_player"),
        (dict(keep="P9999", drop=broken), "unknown_player"),
        (dict(keep=broken, drop=jose), "player_in_open_event"),
        (dict(keep=ids["ANA"], drop=broken), "merge_same_tournament"),
        (dict(keep=ids["BEA"], drop=broken), "merge_same_ranking"),
    ]
    for kw, reason in cases:
        with pytest.raises(TournamentError) as e:
            merge_players(club, **kw)
        assert e.value.reason == reason, kw
        assert refusal_of(e.value, "es") and refusal_of(e.value, "en")
    with pytest.raises(TournamentError) as e:
        merge_players(club, keep=jose, drop=ids["EVA"], elsewhere=["Dominó · Marzo"])
    assert e.value.reason == "player_elsewhere"
    assert json.dumps(club.to_dict(), sort_keys=True) == snapshot
    assert t.phase == "registration"


def test_only_a_player_without_results_is_removed(club: Club) -> None:
    ids = {p.name: p.id for p in club.registry}
    jose = ids["JOSÉ LUIS"]
    for pid, reason in ((ids["ANA"], "player_has_results"), ("P9999", "unknown_player")):
        with pytest.raises(TournamentError) as e:
            remove_player(club, pid)
        assert e.value.reason == reason
    with pytest.raises(TournamentError) as e:
        remove_player(club, jose, elsewhere=["Dominó · Marzo"])
    assert e.value.reason == "player_has_results"
    assert "Dominó · Marzo" in refusal_of(e.value, "es")
    club.create_tournament("2014-03", "Marzo", date(2014, 3, 28))
    club.register("2014-03", jose, now=datetime(2014, 3, 28, 19))
    with pytest.raises(TournamentError) as e:
        remove_player(club, jose)
    assert e.value.reason == "player_in_open_event"
    club.tournament("2014-03").unregister(jose, now=datetime(2014, 3, 28, 19))
    assert remove_player(club, jose).name == "JOSÉ LUIS"
    assert jose not in club.registry and club.registry.find_name("jose luis") is None
