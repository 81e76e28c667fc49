"""Every player-facing string of the engine, in Spanish (default, HGV 1.6) and English.

>>> text("es", "title_final_list"), text("en", "title_final_list")
('ASÍ QUEDÓ EL TORNEO', 'FINAL STANDINGS')
>>> ordinal(1), ordinal(2, "en"), place_label((17, 30), "es")
('1º', '2nd', '17º–30º')
>>> round_name("R16"), round_name("R1", "en", phase="consolation")
('octavos de final', 'Último Chance round 1')
>>> refusal("cannot_start", {"match": "G1-3", "status": "done"})
'G1-3 no puede empezar: está terminada'
>>> from mesa.tournament.errors import PhaseError
>>> refusal_of(PhaseError("no UC", reason="no_consolation"), "es")
'este torneo no tiene Último Chance'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, cast

from mesa.tournament.errors import RankingCSVError, TournamentError
from mesa.words import LANGUAGES, Catalog, Entry, Plural

Lang = Literal["es", "en"]

__all__ = ["REFUSALS", "Lang", "check_lang", "ordinal", "place_label", "refusal", "refusal_of",
           "round_name", "signed", "text"]

_STRINGS: dict[str, dict[str, Entry]] = {
    "conflict_stale_table": {
        "es": "la mesa {table} ya no tenía esta partida (ahora: mesa {holder}) y envió este "
              "resultado; no se ha aplicado",
        "en": "table {table} no longer held this match (now: table {holder}) and sent this "
              "result; it was not applied"},
    "conflict_contradictory": {
        "es": "la mesa {table} envió un final que se contradice (gana {winner} con {a}–{b}); "
              "no se ha aplicado: la partida sigue sin resultado",
        "en": "table {table} sent a match end that contradicts itself ({winner} wins with "
              "{a}–{b}); it was not applied: the match has no result yet"},
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
        "es": Plural(
            Plural("{wins} victoria, {losses} derrota, puntos {pf}–{pa} (diferencia {diff})",
                   "{wins} victoria, {losses} derrotas, puntos {pf}–{pa} (diferencia {diff})",
                   "losses"),
            Plural("{wins} victorias, {losses} derrota, puntos {pf}–{pa} (diferencia {diff})",
                   "{wins} victorias, {losses} derrotas, puntos {pf}–{pa} (diferencia {diff})",
                   "losses"), "wins"),
        "en": Plural(
            Plural("{wins} win, {losses} loss, points {pf}–{pa} (difference {diff})",
                   "{wins} win, {losses} losses, points {pf}–{pa} (difference {diff})", "losses"),
            Plural("{wins} wins, {losses} loss, points {pf}–{pa} (difference {diff})",
                   "{wins} wins, {losses} losses, points {pf}–{pa} (difference {diff})",
                   "losses"), "wins")},
    "step_wins_alone": {"es": Plural("{value} victoria: nadie más tiene las mismas",
                                     "{value} victorias: nadie más tiene las mismas", "value"),
                        "en": Plural("{value} win: nobody else has as many",
                                     "{value} wins: nobody else has as many", "value")},
    "step_wins_tied": {"es": Plural("{value} victoria, empatado con {others}",
                                    "{value} victorias, empatado con {others}", "value"),
                       "en": Plural("{value} win, tied with {others}",
                                    "{value} wins, tied with {others}", "value")},
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


STRINGS = Catalog(_STRINGS)  # checked here: a gap fails the import
text = STRINGS.text


def check_lang(lang: str) -> Lang:
    """``lang`` if the engine speaks it; an export asked in another language is refused."""
    if lang in LANGUAGES:
        return cast(Lang, lang)
    raise TournamentError(f"unknown language {lang!r}: use 'es' or 'en'", code="bad_lang",
                          reason="bad_lang", lang=lang)


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
        return text(lang, "round_uc", n=label.lstrip("R"))
    if label == "group":
        return text(lang, "group_stage")
    key = f"round_{label}"
    if key in STRINGS:
        return text(lang, key)
    return text(lang, "round_of", n=label.lstrip("R"))


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


# Why the engine refused, by ``TournamentError.reason`` (and ``RowError.reason`` for a ranking
# CSV's rows); ``{name}`` fields are the error's ``params``. ``status`` and ``phase`` values are
# translated through STATUS below. A test checks that every reason raised has both texts.
_REFUSALS: dict[str, dict[str, Entry]] = {
    "tournament_error": {"es": "el torneo no lo permite", "en": "the tournament does not allow it"},
    "no_time": {"es": "falta la hora actual", "en": "the current time is missing"},
    "unknown_match": {"es": "no existe la partida {match}", "en": "no match {match}"},
    "unknown_player": {"es": "no existe el jugador {player}", "en": "no player {player}"},
    "unknown_card": {"es": "ningún jugador tiene la tarjeta {player}",
                     "en": "no player holds card {player}"},
    "registration_closed": {"es": "la inscripción está cerrada ({phase})",
                            "en": "registration is closed ({phase})"},
    "already_registered": {"es": "{name} ya está inscrito", "en": "{name} is already registered"},
    "entrant_same_name": {"es": "ya hay otro inscrito llamado {name}",
                          "en": "another entrant is already named {name}"},
    "sanctioned": {"es": "{name} tiene vetado este torneo ({rules}, en {tournaments})",
                   "en": "{name} is barred from this tournament ({rules}, in {tournaments})"},
    "wrong_category": {"es": "{name} juega en la categoría {category}; este torneo es {wanted}",
                       "en": "{name} plays in category {category}; this tournament is {wanted}"},
    "not_member": {"es": "{name} no es socio: los torneos oficiales son para socios (HGV 1.4)",
                   "en": "{name} is not a member: official tournaments are for members (HGV 1.4)"},
    "draw_made": {"es": "el sorteo ya está hecho: retire al jugador en su lugar",
                  "en": "the draw is made: withdraw the player instead"},
    "already_started": {"es": "los grupos ya empezaron", "en": "the groups have already started"},
    "unknown_group": {"es": "no existe el grupo {group}", "en": "no group {group}"},
    "dice_too_late": {"es": "la eliminatoria ya está sorteada: los dados del grupo no pueden cambiar",
                      "en": "the knockout is drawn: group dice can no longer change"},
    "dice_players": {"es": "los dados son para dos o más jugadores del grupo",
                     "en": "dice need two or more players of the group"},
    "dice_range": {"es": "cada dado marca de 1 a 6", "en": "each die shows 1 to 6"},
    "dice_equal": {"es": "dados iguales no deshacen nada: tiren otra vez",
                   "en": "equal dice break nothing: roll again"},
    "dice_for_whom": {"es": "los dados del grupo {group} deben ser exactamente de {players}",
                      "en": "dice for group {group} must be given for exactly {players}"},
    "no_consolation": {"es": "este torneo no tiene Último Chance",
                       "en": "this tournament has no Último Chance"},
    "consolation_too_early": {"es": "el Último Chance empieza cuando la eliminatoria está sorteada",
                              "en": "Último Chance starts once the knockout is drawn"},
    "consolation_drawn": {"es": "el Último Chance ya está sorteado",
                          "en": "Último Chance is already drawn"},
    "first_round_open": {
        "es": "quedan partidas de la primera ronda de la eliminatoria: espere, o elija los inscritos",
        "en": "first knockout matches are not all decided: wait, or name the entrants"},
    "entered_twice": {"es": "inscritos dos veces: {players}", "en": "entered twice: {players}"},
    "not_eligible": {"es": "no pueden jugar el Último Chance: {players}",
                     "en": "not eligible for Último Chance: {players}"},
    "consolation_too_few": {"es": "el Último Chance necesita al menos 2 jugadores",
                            "en": "Último Chance needs at least 2 players"},
    "not_in_consolation": {"es": "{player} no está en el Último Chance",
                           "en": "{player} is not in Último Chance"},
    "already_decided": {"es": "{match} ya está decidida ({score}): el director puede corregirla",
                        "en": "{match} is already decided ({score}): a director can correct it"},
    "players_unknown": {"es": "{match} no está lista: aún no se conocen sus jugadores",
                        "en": "{match} is not ready: its players are not known yet"},
    "closed": {"es": "el torneo está cerrado", "en": "the tournament is closed"},
    "cannot_start": {"es": "{match} no puede empezar: está {status}",
                     "en": "{match} cannot start: it is {status}"},
    "withdraw_when": {"es": "la retirada solo cabe mientras se juega el torneo",
                      "en": "withdrawal applies while the tournament is played"},
    "withdrawal_kind": {"es": "tipo de retirada desconocido: {kind}",
                        "en": "unknown withdrawal {kind}"},
    "already_withdrawn": {"es": "{player} ya se retiró", "en": "{player} has already withdrawn"},
    "nothing_to_correct": {"es": "{match} no tiene resultado que corregir: anótelo",
                           "en": "{match} has no result to correct: record it instead"},
    "no_conflict": {"es": "no hay un conflicto abierto {conflict}",
                    "en": "no open conflict {conflict}"},
    "keep_draw_only": {
        "es": "«mantener el cuadro» solo vale para una corrección de grupo que solo afecta al cuadro",
        "en": "keeping the draw is only for a group correction whose sole effect is on the draw"},
    "no_draw_to_undo": {"es": "no hay sorteo de grupos que deshacer (fase: {phase})",
                        "en": "no group draw to take back (phase: {phase})"},
    "draw_locked": {"es": "el sorteo ya cuenta: ya se jugó {matches}",
                    "en": "the draw counts already: {matches} has been played"},
    "draw_locked_withdrawal": {"es": "el sorteo ya cuenta: un jugador se retiró",
                               "en": "the draw counts already: a player withdrew"},
    "conflict_annuls_changed": {
        "es": "aplicar {conflict} ahora anularía {annuls}, no lo que se mostró: revíselo de nuevo",
        "en": "applying {conflict} would now annul {annuls}, not what was shown: look at it again"},
    "conflict_stale": {"es": "{match} cambió desde que se abrió el conflicto",
                       "en": "{match} changed since the conflict was opened"},
    "bad_resolution": {"es": "resolución desconocida: {resolution}",
                       "en": "unknown resolution {resolution}"},
    "assign_not_ready": {
        "es": "{match} está {status}: solo se asigna una partida lista (mueva la ya asignada)",
        "en": "{match} is {status}: only a ready match can be assigned (move an assigned one)"},
    "table_other_game": {"es": "la mesa {table} no es de backgammon",
                         "en": "table {table} is not a backgammon table"},
    "table_busy": {"es": "la mesa {table} está ocupada con {match}",
                   "en": "table {table} is busy with {match}"},
    "players_busy": {"es": "aún no puede empezar: {players} siguen jugando",
                     "en": "it cannot start now: {players} still playing"},
    "no_table": {"es": "{match} no tiene mesa", "en": "{match} has no table"},
    "move_no_table": {"es": "{match} está {status}: solo se mueve una partida con mesa",
                      "en": "{match} is {status}: only a match with a table can move"},
    "move_same_table": {"es": "{match} ya está en la mesa {table}: elija otra mesa",
                        "en": "{match} is already at table {table}: choose another table"},
    "left_out_no_show": {"es": "{player} no entró en el sorteo: solo cabe «confirmó y no vino»",
                         "en": "{player} was left out of the draw: only “confirmed and did not "
                               "come” applies"},
    "move_decided": {"es": "{match} ya ha terminado en la mesa {table} ({score}): su resultado "
                           "está en camino, no se mueve",
                     "en": "{match} has already ended at table {table} ({score}): its result "
                           "is on its way, it does not move"},
    "move_score_unknown": {
        "es": "no se sabe cómo va {match} en la mesa {table} (no ha informado de su estado): "
              "marque «empezar de 0–0» para moverla y corrija luego el marcador en la mesa nueva",
        "en": "the score of {match} at table {table} is not known (it has not reported its "
              "state): tick “start from 0–0” to move it, then correct the score at the new table"},
    "unassign_not_assigned": {"es": "{match} está {status}: solo se quita una partida asignada",
                              "en": "{match} is {status}: only an assigned match can be unassigned"},
    "format_fixed": {"es": "{match} está {status}: su formato ya no puede cambiar",
                     "en": "{match} is {status}: its format can no longer change"},
    "length_min": {"es": "una partida es al menos a 1 punto", "en": "a match is at least 1 point"},
    "already_closed": {"es": "el torneo ya está cerrado", "en": "the tournament is already closed"},
    "not_finished": {"es": "la eliminatoria o el Último Chance no han terminado",
                     "en": "the knockout or Último Chance is not finished"},
    "bad_state": {"es": "versión de estado desconocida: {version}",
                  "en": "unknown tournament state version {version}"},
    "no_name": {"es": "un jugador necesita un nombre", "en": "a player needs a name"},
    "unknown_category": {"es": "categoría desconocida: {category}",
                         "en": "unknown category {category}"},
    "name_taken": {"es": "ya existe un jugador llamado {name} ({player})",
                   "en": "a player named {name} already exists ({player})"},
    "card_taken": {"es": "la tarjeta {card} ya es de {name}",
                   "en": "card {card} already belongs to {name}"},
    "id_taken": {"es": "ya existe el jugador {player}", "en": "player id {player} already exists"},
    "id_fixed": {"es": "el identificador de un jugador no cambia",
                 "en": "a player's id cannot change"},
    "too_few_players": {"es": "un torneo necesita al menos 2 jugadores (hay {n})",
                        "en": "a tournament needs at least 2 players, got {n}"},
    "bad_group_count": {
        "es": "{groups} grupos para {n} jugadores: elija de 1 a {most}, con 2 jugadores por grupo "
              "como mínimo",
        "en": "{groups} groups for {n} players: choose 1 to {most} so that every group has at "
              "least 2 players"},
    "bracket_too_few": {"es": "un cuadro necesita al menos 2 jugadores (hay {n})",
                        "en": "a bracket needs at least 2 players, got {n}"},
    "setting_min": {"es": "el ajuste {setting} debe ser al menos 1",
                    "en": "setting {setting} must be at least 1"},
    "tournament_id": {"es": "{tournament} no vale como código de torneo (letras sin acento, "
                            "cifras, «-», «_» o «.», 64 como mucho)",
                      "en": "{tournament} is not a tournament id (letters, digits, '-', '_' or "
                            "'.', 64 at most)"},
    "table_id": {"es": "{table} no es un número de mesa",
                 "en": "{table} is not a table id"},
    "dice_by": {"es": "los dados los tira el hub o el director",
                "en": "dice are rolled by the hub or the director"},
    "score_whole": {"es": "los tantos son números enteros ≥ 0 (llegó {value})",
                    "en": "scores must be whole numbers ≥ 0, got {value}"},
    "score_unfinished": {"es": "{a}–{b} no termina una partida a {length}: alguien debe llegar a "
                               "{length}",
                         "en": "{a}–{b} does not finish a {length}-point match: one player must "
                               "reach {length}"},
    "score_both": {"es": "{a}–{b} no puede darse en una partida a {length}: termina cuando el "
                         "primero llega a {length}",
                   "en": "{a}–{b} cannot happen in a {length}-point match: it ends when the first "
                         "player reaches {length}"},
    "score_too_high": {"es": "{a}–{b} es imposible a {length}: ningún juego vale más de {most}",
                       "en": "{a}–{b} is impossible in a {length}-point match: no game scores "
                             "more than {most}"},
    "tournament_exists": {"es": "el torneo {tournament} ya existe",
                          "en": "tournament {tournament} already exists"},
    "unknown_tournament": {"es": "no existe el torneo {tournament}",
                           "en": "no tournament {tournament}"},
    "not_closed": {"es": "el torneo {tournament} no está cerrado",
                   "en": "tournament {tournament} is not closed"},
    "bad_schema": {"es": "la base de datos es de otra versión", "en": "the store is of another version"},
    "audit_rewrite": {"es": "se negó a reescribir el registro de auditoría",
                      "en": "refused to rewrite the audit log"},
    "bad_lang": {"es": "idioma desconocido: {lang}", "en": "unknown language {lang}"},
    "bad_ranking_csv": {
        "es": Plural("el CSV tiene {rows} fila con errores; no se importó nada",
                     "el CSV tiene {rows} filas con errores; no se importó nada", "rows"),
        "en": Plural("the CSV has {rows} bad row; nothing was imported",
                     "the CSV has {rows} bad rows; nothing was imported", "rows")},
    # A ranking CSV's rows (RowError.reason).
    "csv_row": {"es": "fila no válida", "en": "invalid row"},
    "csv_line": {"es": "línea {line}: {problem}", "en": "line {line}: {problem}"},
    "csv_empty": {"es": "el archivo está vacío: necesita una línea de cabecera",
                  "en": "the file is empty: it needs a header line"},
    "csv_repeats": {"es": "la columna {column} repite {field}", "en": "column {column} repeats {field}"},
    "csv_no_points": {"es": "falta la columna de puntos ({columns})",
                      "en": "no points column ({columns})"},
    "csv_no_name": {"es": "falta la columna de nombre o de jugador ({columns})",
                    "en": "no name or player id column ({columns})"},
    "csv_count": {"es": "{field}: {value} no es un número entero ≥ 0",
                  "en": "{field}: {value} is not a whole number ≥ 0"},
    "csv_fields": {"es": "se esperaban {want} campos y hay {got}",
                   "en": "expected {want} fields, found {got}"},
    "csv_name_mismatch": {"es": "el nombre {name} no corresponde a {player} ({known})",
                          "en": "name {name} does not match {player} ({known})"},
    "csv_unknown_id": {"es": "jugador desconocido: {player}", "en": "unknown player id {player}"},
    "csv_unknown_card": {"es": "tarjeta desconocida: {card}", "en": "unknown card {card}"},
    "csv_unknown_name": {"es": "jugador desconocido: {name} (inscríbalo antes)",
                         "en": "unknown player {name} (register them first)"},
    "csv_no_who": {"es": "cada fila necesita un nombre o un jugador",
                   "en": "a row needs a name or a player id"},
    "csv_negative": {"es": "puntos: {value} es negativo", "en": "points: {value} is negative"},
    "csv_points": {"es": "puntos: {value} no es un número con hasta dos decimales",
                   "en": "points: {value} is not a number with at most two decimals"},
    "csv_position": {"es": "puesto: {value} no es un número entero",
                     "en": "position: {value} is not a whole number"},
    "csv_won_finals": {
        "es": Plural(Plural("ganó {won} torneo pero jugó solo {finals} final",
                            "ganó {won} torneo pero jugó solo {finals} finales", "finals"),
                     Plural("ganó {won} torneos pero jugó solo {finals} final",
                            "ganó {won} torneos pero jugó solo {finals} finales", "finals"),
                     "won"),
        "en": Plural(Plural("won {won} tournament but played only {finals} final",
                            "won {won} tournament but played only {finals} finals", "finals"),
                     Plural("won {won} tournaments but played only {finals} final",
                            "won {won} tournaments but played only {finals} finals", "finals"),
                     "won")},
    "csv_finals_played": {"es": "más finales o victorias que torneos jugados ({played})",
                          "en": "more finals or wins than tournaments played ({played})"},
    "csv_twice": {"es": "jugador ya listado en la línea {line}",
                  "en": "player already listed on line {line}"},
    # Keeping the registry (mesa.tournament.registry_upkeep).
    "name_lost": {"es": "el nombre {name} tiene caracteres perdidos (�): escríbalo de nuevo",
                  "en": "the name {name} holds lost characters (�): type it again"},
    "player_seated": {"es": "{name} está jugando en una mesa ahora",
                      "en": "{name} is at a table now"},
    "player_in_open_event": {"es": "{name} está inscrito en {tournament}, que sigue abierto: "
                                   "quítelo de ese torneo antes",
                             "en": "{name} is entered in {tournament}, which is still open: "
                                   "take him out of it first"},
    "player_elsewhere": {"es": "{name} juega en {event}", "en": "{name} plays in {event}"},
    "merge_self": {"es": "un jugador no se puede unir consigo mismo ({player})",
                   "en": "a player cannot be merged into himself ({player})"},
    "merge_same_tournament": {"es": "{kept} y {dropped} jugaron los dos {tournament}",
                              "en": "{kept} and {dropped} both played {tournament}"},
    "merge_same_ranking": {"es": "{kept} y {dropped} están los dos en el ranking {ranking}",
                           "en": "{kept} and {dropped} are both in ranking {ranking}"},
    "player_has_results": {"es": "{name} tiene resultados ({where}): únalo con otro jugador "
                                 "en vez de borrarlo",
                           "en": "{name} has results ({where}): merge him into another player "
                                 "instead"},
    # A text file brought from a spreadsheet (mesa.tournament.text_files).
    "text_workbook": {"es": "es un libro de Excel, no un CSV: en Excel, «Guardar como» → "
                            "«CSV UTF-8 (delimitado por comas)»",
                      "en": "this is an Excel workbook, not a CSV: in Excel, Save As → "
                            "CSV UTF-8 (Comma delimited)"},
    "text_binary": {"es": "no es un archivo de texto (línea {line})",
                    "en": "this is not a text file (line {line})"},
    "text_undecodable": {"es": "la línea {line} no se puede leer como {encoding}",
                         "en": "line {line} cannot be read as {encoding}"},
    "text_replacement": {"es": "la línea {line} tiene caracteres perdidos (�): el archivo se "
                               "guardó ya roto; guárdelo de nuevo desde Excel como «CSV UTF-8»",
                         "en": "line {line} holds lost characters (�): the file was saved "
                               "broken; save it again from Excel as CSV UTF-8"},
}

# Values of ``status`` and ``phase`` params, as players say them.
_STATUS: dict[str, dict[str, Entry]] = {
    "waiting": {"es": "en espera", "en": "waiting"},
    "ready": {"es": "lista", "en": "ready"},
    "assigned": {"es": "asignada", "en": "assigned"},
    "playing": {"es": "en juego", "en": "playing"},
    "done": {"es": "terminada", "en": "done"},
    "registration": {"es": "inscripción", "en": "registration"},
    "groups": {"es": "fase de grupos", "en": "group stage"},
    "knockout": {"es": "eliminatoria", "en": "knockout"},
}


REFUSALS = Catalog(_REFUSALS)
STATUS = Catalog(_STATUS)

def refusal(reason: str, params: Mapping[str, object] | None = None, lang: str = "es") -> str:
    """A refusal in ``lang``; an unknown reason falls back to the generic sentence."""
    lang = check_lang(lang)
    values = dict(params or {})
    for name in ("status", "phase"):
        value = values.get(name)
        if isinstance(value, str) and value in STATUS:
            values[name] = STATUS.text(lang, value)
    try:
        return REFUSALS.text(lang, reason if reason in REFUSALS else "tournament_error", **values)
    except (KeyError, IndexError):  # params that do not fit the words: say the general one
        return REFUSALS.text(lang, "tournament_error")


def refusal_of(error: TournamentError, lang: str = "es") -> str:
    """The engine's refusal in ``lang``; a ranking CSV's lists every bad row."""
    head = refusal(error.reason, error.params, lang)
    if isinstance(error, RankingCSVError):
        rows = [refusal("csv_line", {"line": r.line,
                                     "problem": refusal(r.reason, dict(r.params), lang)}, lang)
                for r in error.errors]
        return "; ".join([head, *rows])
    return head
