"""The domino pairs tournament's final list: CSV (formula-neutralised cells) and JSON.

A text cell that a spreadsheet would read as a formula (``=``, ``+``, ``-``, ``@``, a tab or a
carriage return first) gets a leading apostrophe; numbers are written as numbers.

>>> neutral("=HYPERLINK(1)"), neutral("Ana"), neutral(-25)
("'=HYPERLINK(1)", 'Ana', -25)
"""

from __future__ import annotations

import csv
import io
from typing import Any

from mesa.games.domino.pairs import PairsTournament

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

HEADERS = {
    "es": ["puesto", "pareja", "jugador_1", "jugador_2", "nombre_1", "nombre_2", "jugadas",
           "ganadas", "tantos", "penalizaciones", "descansos"],
    "en": ["rank", "pair", "player_1", "player_2", "name_1", "name_2", "played", "won",
           "points", "penalties", "byes"],
}


def neutral(value: Any) -> Any:
    """A cell as written: text that could start a formula is made plain text."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def final_rows(t: PairsTournament) -> list[dict[str, Any]]:
    """The final list, best first (the JSON export and the printable page)."""
    out = []
    for r in t.standings():
        p = t.pairs[r.pair]
        out.append({
            "rank": r.rank, "pair": r.pair, "players": list(p.players), "names": list(p.names),
            "played": r.played, "won": r.won, "points": r.points, "penalties": r.penalties,
            "byes": r.byes, "withdrawn": p.withdrawn,
        })
    return out


def final_csv(t: PairsTournament, lang: str = "es") -> str:
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=";" if lang == "es" else ",", lineterminator="\n")
    w.writerow(HEADERS["es" if lang == "es" else "en"])
    for r in final_rows(t):
        w.writerow([neutral(x) for x in (
            r["rank"], r["pair"], *r["players"], *r["names"], r["played"], r["won"],
            r["points"], r["penalties"], r["byes"],
        )])
    return buf.getvalue()


def final_json(t: PairsTournament) -> dict[str, Any]:
    """The tournament as published: standings, every game, every penalty."""
    return {
        "id": t.id,
        "name": t.name,
        "phase": t.phase,
        "rounds": t.current_round,
        "standings": final_rows(t),
        "games": [
            {"id": g.id, "round": g.round, "table": g.table, "ns": g.ns, "ew": g.ew,
             "status": g.status, "winner": g.winner, "how": g.how, "score": g.score,
             "hands": g.hands}
            for g in t.games.values()
        ],
        "byes": t.byes,
        "penalties": [
            {"game": e.game_id, "player": e.player, "seat": e.seat, "reason": e.reason,
             "points": e.points, "at_table": e.at_table, "by": e.actor, "at": e.at}
            for e in t.penalties
        ],
    }
