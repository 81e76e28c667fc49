"""Every player-facing string of the engine, in Spanish (default, HGV 1.6) and English.

>>> text("title_final_list"), text("title_final_list", "en")
('ASÍ QUEDÓ EL TORNEO', 'FINAL STANDINGS')
>>> ordinal(1), ordinal(2, "en"), place_label((17, 30), "es")
('1º', '2nd', '17º–30º')
>>> round_name("R16"), round_name("R1", "en", phase="consolation")
('octavos de final', 'Último Chance round 1')
"""

from __future__ import annotations

from typing import Literal

from mesa.tournament.errors import TournamentError
from mesa.tournament.points import format_points

Lang = Literal["es", "en"]
LANGS: tuple[Lang, ...] = ("es", "en")

__all__ = ["LANGS", "Lang", "check_lang", "format_points", "ordinal", "place_label",
           "round_name", "signed", "text"]

STRINGS: dict[str, dict[str, str]] = {
    "conflict_stale_table": {
        "es": "la mesa {table} ya no tenía esta partida (ahora: mesa {holder}) y envió este "
              "resultado; no se ha aplicado",
        "en": "table {table} no longer held this match (now: table {holder}) and sent this "
              "result; it was not applied"},
    "conflict_second_result": {
        "es": "la mesa {table} envió otro resultado para una partida ya decidida; no se ha "
              "aplicado",
        "en": "table {table} sent another result for a match already decided; it was not "
              "applied"},
    "title_final_list": {"es": "ASÍ QUEDÓ EL TORNEO", "en": "FINAL STANDINGS"},
    "points_header": {"es": "{name} — {tournament}: {total} puntos",
                      "en": "{name} — {tournament}: {total} points"},
    "place_line": {"es": "Puesto {place} ({round}): {points}",
                   "en": "Place {place} ({round}): {points}"},
    "place_pending": {"es": "Puesto: aún en juego (0,00 por ahora)",
                      "en": "Place: still playing (0.00 so far)"},
    "place_none": {"es": "Puesto {place} ({round}): sin puntos de puesto",
                   "en": "Place {place} ({round}): no place points"},
    "place_forfeit": {
        "es": "Puesto {place} ({round}): 0,00 — forfait en la eliminatoria, pierde los "
              "puntos de la 2.ª fase (HGV 2.3.8)",
        "en": "Place {place} ({round}): 0.00 — forfeit in the knockout, loses the "
              "knockout points (HGV 2.3.8)"},
    "participation": {"es": "Participación: {points}", "en": "Participation: {points}"},
    "participation_no_show": {
        "es": "Participación: 0,00 (no se presentó, HGV 2.3.6)",
        "en": "Participation: 0.00 (did not come, HGV 2.3.6)"},
    "consolation_line": {"es": "Finalista del Último Chance: {points}",
                         "en": "Último Chance finalist: {points}"},
    "wins_line": {
        "es": "Encuentros ganados: {wins} × {per_win} = {points} "
              "(grupos {g}, eliminatoria {k}, Último Chance {u})",
        "en": "Matches won: {wins} × {per_win} = {points} "
              "(groups {g}, knockout {k}, Último Chance {u})"},
    "removed_line": {"es": "Victoria en {match} sin puntos ({rule})",
                     "en": "Win in {match} earns nothing ({rule})"},
    "total_line": {"es": "Total: {points}", "en": "Total: {points}"},
    "group_header": {"es": "{name} — grupo {group}: {place} puesto{provisional}",
                     "en": "{name} — group {group}: {place} place{provisional}"},
    "provisional": {"es": " (provisional, faltan encuentros)",
                    "en": " (provisional, matches still to play)"},
    "record_line": {
        "es": "{wins} victoria(s), {losses} derrota(s), puntos {pf}–{pa} (diferencia {diff})",
        "en": "{wins} win(s), {losses} loss(es), points {pf}–{pa} (difference {diff})"},
    "step_wins_alone": {"es": "{value} victoria(s): nadie más tiene las mismas",
                        "en": "{value} win(s): nobody else has as many"},
    "step_wins_tied": {"es": "{value} victoria(s), empatado con {others}",
                       "en": "{value} win(s), tied with {others}"},
    "step_forfeit": {
        "es": "Forfait en su actuación: sale del empate y queda por detrás (HGV 2.3.2): {values}",
        "en": "A forfeit in their record: out of the tie and placed below it (HGV 2.3.2): "
              "{values}"},
    "step_criterion": {"es": "{criterion} entre {among}: {values} — {verdict}",
                       "en": "{criterion} among {among}: {values} — {verdict}"},
    "step_dice": {"es": "Criterio 4 (dados{attempt}) entre {among}: {values} — {verdict}",
                  "en": "Criterion 4 (dice{attempt}) among {among}: {values} — {verdict}"},
    "dice_again": {"es": ", tirada {n}", "en": ", roll {n}"},
    "step_pending": {"es": "Empate entre {among} pendiente de los dados (criterio 4)",
                     "en": "Tie among {among} waits for the dice (criterion 4)"},
    "step_void": {
        "es": "Ganó un encuentro y perdió el resto por forfait: sus resultados no cuentan, "
              "como si no hubiera venido (HGV 2.3.3)",
        "en": "Won one match and lost the others by forfeit: none of their results count, "
              "as if absent (HGV 2.3.3)"},
    "step_no_show": {
        "es": "Confirmó y no vino: todos sus encuentros cuentan como perdidos y su plaza pasa "
              "al siguiente del grupo (HGV 2.3.6)",
        "en": "Confirmed and did not come: every match counts as lost and their place goes "
              "to the next player of the group (HGV 2.3.6)"},
    "verdict_split": {"es": "deshace el empate", "en": "breaks the tie"},
    "verdict_tied": {"es": "sigue el empate", "en": "still tied"},
    "decided_by": {"es": "Decidido por: {criterion}", "en": "Decided by: {criterion}"},
    "qualified": {"es": "Clasificado para la eliminatoria", "en": "Qualified for the knockout"},
    "not_qualified": {"es": "No clasificado", "en": "Not qualified"},
    "crit_wins": {"es": "victorias", "en": "matches won"},
    "crit_forfeit": {"es": "forfait (HGV 2.3.2)", "en": "forfeit (HGV 2.3.2)"},
    "crit_h2h_wins": {"es": "Criterio 1 (encuentros ganados entre los empatados)",
                      "en": "Criterion 1 (matches won among the tied players)"},
    "crit_h2h_diff": {"es": "Criterio 2 (diferencia de puntos entre los empatados)",
                      "en": "Criterion 2 (point difference among the tied players)"},
    "crit_diff": {"es": "Criterio 3 (diferencia de puntos en todo el grupo)",
                  "en": "Criterion 3 (point difference over the whole group)"},
    "crit_dice": {"es": "Criterio 4 (dados)", "en": "Criterion 4 (dice)"},
    "crit_pending": {"es": "pendiente de los dados", "en": "waiting for the dice"},
    "crit_void": {"es": "resultados anulados (HGV 2.3.3)", "en": "results removed (HGV 2.3.3)"},
    "crit_no_show": {"es": "confirmó y no vino (HGV 2.3.6)",
                     "en": "confirmed and did not come (HGV 2.3.6)"},
    "champion": {"es": "campeón", "en": "champion"},
    "finalist": {"es": "finalista", "en": "finalist"},
    "group_stage": {"es": "fase de grupos", "en": "group stage"},
    "round_PI": {"es": "repechaje", "en": "play-in"},
    "round_QF": {"es": "cuartos de final", "en": "quarterfinal"},
    "round_SF": {"es": "semifinal", "en": "semifinal"},
    "round_F": {"es": "final", "en": "final"},
    "round_R16": {"es": "octavos de final", "en": "round of 16"},
    "round_R32": {"es": "dieciseisavos de final", "en": "round of 32"},
    "round_R64": {"es": "treintaidosavos de final", "en": "round of 64"},
    "round_of": {"es": "ronda de {n}", "en": "round of {n}"},
    "round_uc": {"es": "Último Chance, ronda {n}", "en": "Último Chance round {n}"},
}


def check_lang(lang: str) -> Lang:
    for known in LANGS:
        if lang == known:
            return known
    raise TournamentError(f"unknown language {lang!r}: use 'es' or 'en'", code="bad_lang")


def text(key: str, lang: str = "es", **kw: object) -> str:
    return STRINGS[key][check_lang(lang)].format(**kw)


def ordinal(n: int, lang: str = "es") -> str:
    if check_lang(lang) == "es":
        return f"{n}º"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def place_label(place: tuple[int, int], lang: str = "es") -> str:
    lo, hi = place
    return ordinal(lo, lang) if lo == hi else f"{ordinal(lo, lang)}–{ordinal(hi, lang)}"


def round_name(label: str, lang: str = "es", *, phase: str = "knockout") -> str:
    """A round label (``PI``, ``R16``, ``QF``…, ``group``) as players say it."""
    if phase == "consolation":
        return text("round_uc", lang, n=label.lstrip("R"))
    if label == "group":
        return text("group_stage", lang)
    key = f"round_{label}"
    if key in STRINGS:
        return text(key, lang)
    return text("round_of", lang, n=label.lstrip("R"))


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)
