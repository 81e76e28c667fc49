"""Exports: the final list as CSV, JSON and "ASÍ QUEDÓ EL TORNEO" text; group tables as CSV.

Spanish CSV uses ``;`` and a decimal comma (what a Spanish spreadsheet opens directly);
English CSV uses ``,`` and a decimal point.

>>> from mesa.tournament.points import PointsBreakdown
>>> row = FinalRowLike(1, "P0001", "ALEX", PointsBreakdown("P0001", (1, 1), 200, 10, 0, 1, 4, 0, 4))
>>> final_list_lines([row])
['ASÍ QUEDÓ EL TORNEO', '1º ALEX 2,30']
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from mesa.tournament.csv_cells import csv_writer
from mesa.tournament.explain import group_place_lines, points_lines
from mesa.tournament.i18n import check_lang, ordinal, place_label, text
from mesa.tournament.points import PointsBreakdown
from mesa.words import format_points

if TYPE_CHECKING:
    from mesa.tournament.tournament import Tournament


class FinalRowLike(NamedTuple):
    position: int
    player_id: str
    name: str
    points: PointsBreakdown


FINAL_HEADERS = {
    "es": ["posicion", "jugador", "nombre", "puntos", "puesto", "puntos_puesto",
           "participacion", "ultimo_chance", "victorias", "puntos_victorias"],
    "en": ["position", "player_id", "name", "points", "place", "place_points",
           "participation", "consolation_finalist", "wins", "win_points"],
}
STANDINGS_HEADERS = {
    "es": ["grupo", "puesto", "jugador", "nombre", "jugados", "ganados", "perdidos",
           "puntos_favor", "puntos_contra", "diferencia", "forfaits", "anulado", "clasificado",
           "decidido_por"],
    "en": ["group", "place", "player_id", "name", "played", "won", "lost", "points_for",
           "points_against", "difference", "forfeits", "voided", "qualified", "decided_by"],
}


def _writer(buf: io.StringIO, lang: str) -> Any:
    return csv_writer(buf, ";" if lang == "es" else ",")  # formulas neutralised


def final_list_lines(rows: Iterable[Any], lang: str = "es",
                     absent: Sequence[str] = ()) -> list[str]:
    """The club's list: position, name, points with two decimals ("1º ALEX 2,30").

    ``absent`` names (club members who did not play) follow with 0,00, as the seed's list does.
    """
    lang = check_lang(lang)
    lines = [text(lang, "title_final_list")]
    n = 0
    for r in rows:
        n = r.position
        lines.append(f"{ordinal(r.position, lang)} {r.name} "
                     f"{format_points(r.points.total, lang)}")
    for name in absent:
        n += 1
        lines.append(f"{ordinal(n, lang)} {name} {format_points(0, lang)}")
    return lines


def final_list_text(t: Tournament, lang: str = "es", absent: Sequence[str] = ()) -> str:
    return "\n".join(final_list_lines(t.final_list(), lang, absent)) + "\n"


def final_list_csv(t: Tournament, lang: str = "es") -> str:
    lang = check_lang(lang)
    buf = io.StringIO()
    w = _writer(buf, lang)
    w.writerow(FINAL_HEADERS[lang])

    def f(x: int) -> str:
        return format_points(x, lang, grouping=False)  # a spreadsheet reads it back

    for r in t.final_list():
        b = r.points
        w.writerow([r.position, r.player_id, r.name, f(b.total),
                    "" if b.place is None else place_label(b.place, lang), f(b.place_points),
                    f(b.participation), f(b.consolation_finalist), b.wins, f(b.win_points)])
    return buf.getvalue()


def standings_csv(t: Tournament, lang: str = "es") -> str:
    lang = check_lang(lang)
    buf = io.StringIO()
    w = _writer(buf, lang)
    w.writerow(STANDINGS_HEADERS[lang])
    yes, no = ("sí", "no") if lang == "es" else ("yes", "no")
    for st in t.all_standings():
        for row in st.rows:
            w.writerow([st.group, row.place, row.player_id, t.name_of(row.player_id),
                        row.played, row.wins, row.losses, row.points_for, row.points_against,
                        row.diff, row.forfeit_losses, yes if row.voided else no,
                        yes if row.qualified else no, text(lang, f"crit_{row.decided_by}")])
    return buf.getvalue()


def tournament_summary(t: Tournament, lang: str = "es") -> dict[str, Any]:
    """Everything a dashboard or an archive needs, JSON-able, with explanations."""
    lang = check_lang(lang)
    pts = t.points()
    return {
        "id": t.id, "name": t.name, "held_on": t.held_on.isoformat(), "category": t.category,
        "official": t.official, "phase": t.phase, "champion": t.champion,
        "seeding": None if t.seeding is None else t.seeding.to_dict(),
        "final_list": [
            {"position": r.position, "player_id": r.player_id, "name": r.name,
             "points": format_points(r.total, lang),
             "points_hundredths": r.total, "breakdown": pts[r.player_id].to_dict(),
             "explanation": points_lines(t, r.player_id, lang)}
            for r in t.final_list()],
        "groups": [
            {**st.to_dict(), "explanations": {
                row.player_id: group_place_lines(t, row.player_id, lang) for row in st.rows}}
            for st in t.all_standings()],
        "knockout": None if t.knockout is None else t.knockout.to_dict(),
        "consolation": None if t.consolation is None else t.consolation.to_dict(),
        "consolation_finalists": list(t.consolation_finalists()),
        "matches": [m.to_dict() for m in t.matches.values()],
        "conflicts": [c.to_dict() for c in t.conflicts],
    }


def to_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)
