"""A domino event's final list, either format: CSV (formula-neutralised cells) and JSON.

Fixed pairs: one line per pair (its two players' records added) with each player's own
total; individual: one line per player. The JSON has both the standings and every game and
record entry (the fines and awards, with who gave them and when).

A text cell that a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``, a tab or a
carriage return first) gets a leading apostrophe; numbers are written as numbers.

>>> neutral("=HYPERLINK(1)"), neutral("Ana"), neutral(-25)
("'=HYPERLINK(1)", 'Ana', -25)
"""

from __future__ import annotations

import csv
import io
from typing import Any

from mesa.games.domino.event import DominoEvent
from mesa.games.domino.individual import IndividualTournament
from mesa.games.domino.pairs import PairsGame, PairsTournament
from mesa.games.domino.records import PlayerRecord

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

# The first eleven columns of the pairs' list are the first pairs tournament's.
HEADERS = {
    "es": ["puesto", "pareja", "jugador_1", "jugador_2", "nombre_1", "nombre_2", "jugadas",
           "ganadas", "tantos", "penalizaciones", "descansos", "tantos_mano", "premios",
           "tantos_1", "tantos_2"],
    "en": ["rank", "pair", "player_1", "player_2", "name_1", "name_2", "played", "won",
           "points", "penalties", "byes", "hand_points", "awards", "points_1", "points_2"],
}
INDIVIDUAL_HEADERS = {
    "es": ["puesto", "jugador", "nombre", "jugadas", "ganadas", "tantos_mano", "multas",
           "premios", "tantos", "descansos", "expulsado"],
    "en": ["rank", "player", "name", "played", "won", "hand_points", "fines", "awards",
           "points", "byes", "expelled"],
}


def neutral(value: Any) -> Any:
    """A cell as written: text that could start a formula is made plain text."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _record(rec: PlayerRecord, name: str) -> dict[str, Any]:
    return {"player": rec.player, "name": name, "played": rec.played, "won": rec.won,
            "hand_points": rec.hand_points, "fines": rec.fines, "awards": rec.awards,
            "points": rec.points, "byes": rec.byes, "talking": rec.talking, "late": rec.late,
            "expelled": rec.expelled, "red_card": rec.red_card}


def final_rows(t: DominoEvent) -> list[dict[str, Any]]:
    """The final list, best first (the JSON export and the printable page): a pairs
    tournament's rows by pair (with ``records``: its two players'), an individual one's by
    player."""
    if isinstance(t, IndividualTournament):
        records = t.records()
        return [{**_record(records.get(r.player) or PlayerRecord(r.player), r.name),
                 "rank": r.rank, "withdrawn": t.players[r.player].withdrawn}
                for r in t.standings()]
    assert isinstance(t, PairsTournament)
    records, names = t.records(), t.player_names()
    out = []
    for r in t.standings():
        p = t.pairs[r.pair]
        out.append({
            "rank": r.rank, "pair": r.pair, "players": list(p.players), "names": list(p.names),
            "played": r.played, "won": r.won, "points": r.points, "penalties": r.penalties,
            "byes": r.byes, "withdrawn": p.withdrawn, "hand_points": r.hand_points,
            "awards": r.awards,
            "records": [_record(records.get(x) or PlayerRecord(x), names.get(x, x))
                        for x in p.players],
        })
    return out


def final_csv(t: DominoEvent, lang: str = "es") -> str:
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=";" if lang == "es" else ",", lineterminator="\n")
    key = "es" if lang == "es" else "en"
    if isinstance(t, IndividualTournament):
        w.writerow(INDIVIDUAL_HEADERS[key])
        for r in final_rows(t):
            w.writerow([neutral(x) for x in (
                r["rank"], r["player"], r["name"], r["played"], r["won"], r["hand_points"],
                r["fines"], r["awards"], r["points"], r["byes"], int(r["expelled"]))])
        return buf.getvalue()
    w.writerow(HEADERS[key])
    for r in final_rows(t):
        w.writerow([neutral(x) for x in (
            r["rank"], r["pair"], *r["players"], *r["names"], r["played"], r["won"],
            r["points"], r["penalties"], r["byes"], r["hand_points"], r["awards"],
            *(x["points"] for x in r["records"]),
        )])
    return buf.getvalue()


def _game(g: Any) -> dict[str, Any]:
    out = {"id": g.id, "round": g.round, "table": g.table, "seats": dict(g.seats),
           "status": g.status, "winner_side": g.winner_side, "how": g.how,
           "hand_score": dict(g.hand_score), "hands": g.hands}
    if isinstance(g, PairsGame):  # the first pairs tournament's names, by pair id
        out.update(ns=g.ns, ew=g.ew, winner=g.winner, score=g.score)
    return out


def final_json(t: DominoEvent) -> dict[str, Any]:
    """The event as published: standings, every game, every record entry."""
    out: dict[str, Any] = {
        "id": t.id,
        "name": t.name,
        "format": t.format,
        "phase": t.phase,
        "rounds": t.current_round,
        "standings": final_rows(t),
        "games": [_game(g) for g in t.games.values()],
        "entries": [
            {"seq": e.seq, "game": e.game_id, "player": e.player, "points": e.points,
             "games": e.games, "reason": e.reason, "source": e.source, "step": e.note,
             "offender": e.offender or e.player, "by": e.actor, "at": e.at}
            for e in t.entries
        ],
    }
    if isinstance(t, PairsTournament):
        out["byes"] = t.byes
    if isinstance(t, IndividualTournament):
        out["sitouts"] = t.sitouts
    return out
