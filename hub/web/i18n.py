"""Every word the dashboard, the public view and the exports show, in Spanish and English.

Spanish is the default (HGV 1.6); English is selectable with ``?lang=en`` (kept in a cookie).
All user-facing strings live in :data:`STRINGS`, a :class:`mesa.words.Catalog` (checked when it
is built; an unknown key raises); templates call ``_("key")`` and a test checks that every key
a template uses exists. The clock and number formats are :mod:`mesa.words`'s, re-exported.

>>> tr = Translator("es")
>>> tr("nav.groups"), tr.points(230), tr.clock(605.0)
('Grupos', '2,30', '10:05')
>>> en = Translator("en")
>>> en("nav.groups"), en.points(230), en.number(2.5, 1)
('Groups', '2.30', '2.5')
>>> tr("flash.throttled", seconds=8)
'Demasiados intentos fallidos. Espere 8 s antes de volver a intentarlo.'
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from mesa.hub.web.domino_i18n import DOMINO_STRINGS
from mesa.hub.web.strings_door import DOOR_STRINGS
from mesa.hub.web.strings_registry import REGISTRY_STRINGS
from mesa.tournament.i18n import refusal
from mesa.words import (
    DEFAULT_LANGUAGE,
    LANGUAGE_NAMES,
    LANGUAGES,
    Catalog,
    Entry,
    Plural,
    format_clock,
    format_number,
    format_points,
)

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "LANGUAGE_NAMES", "STRINGS", "Translator",
           "format_clock", "format_date", "format_datetime", "format_number", "format_points",
           "pick_language", "text"]

# key → {"es": ..., "en": ...}. Keys are grouped by a dotted prefix: nav., live., state., …
_WEB: dict[str, dict[str, Entry]] = {
    # ── the frame ──
    "nav.live": {"es": "Mesas en vivo", "en": "Live tables"},
    "nav.groups": {"es": "Grupos", "en": "Groups"},
    "nav.draw": {"es": "Cuadro", "en": "Draw"},
    "nav.consolation": {"es": "Último Chance", "en": "Último Chance"},
    "nav.rankings": {"es": "Rankings", "en": "Rankings"},
    "nav.players": {"es": "Jugadores", "en": "Players"},
    "nav.final": {"es": "Así quedó", "en": "Final standings"},
    "nav.calls": {"es": "Llamadas", "en": "Calls"},
    # ── the call board, a player's next match, the QR list ──
    "calls.title": {"es": "Llamadas", "en": "Calls"},
    "calls.none": {"es": "Ninguna llamada ahora mismo.", "en": "No calls right now."},
    "calls.called_at": {"es": "llamada a las {at}", "en": "called at {at}"},
    "calls.playing": {"es": "En juego", "en": "In play"},
    "calls.nobody_playing": {"es": "Nadie juega ahora.", "en": "Nobody is playing now."},
    "calls.next": {"es": "Próximas partidas", "en": "Next matches"},
    "calls.nothing_next": {"es": "No hay partidas esperando.", "en": "No matches waiting."},
    "calls.more": {"es": "y {n} más", "en": "and {n} more"},
    "calls.chime_off": {"es": "Aviso sonoro: no", "en": "Chime: off"},
    "calls.chime_on": {"es": "Aviso sonoro: sí", "en": "Chime: on"},
    "calls.group": {"es": "Grupo {group} · {round}", "en": "Group {group} · {round}"},
    "next.title": {"es": "{name}: mi próxima partida", "en": "{name}: my next match"},
    "next.go": {"es": "Vaya a su mesa: le esperan", "en": "Go to your table: you are expected"},
    "next.playing": {"es": "Jugando ahora", "en": "Playing now"},
    "next.no_table": {"es": "Sin mesa todavía", "en": "No table yet"},
    "next.wait": {"es": "Le llamarán en cuanto quede una mesa libre",
                  "en": "You will be called as soon as a table is free"},
    "next.later": {"es": "Espera a que terminen otras partidas",
                   "en": "Waiting for other matches to finish"},
    "next.opponent": {"es": "Rival", "en": "Opponent"},
    "next.round": {"es": "Ronda", "en": "Round"},
    "next.time": {"es": "Hora", "en": "Time"},
    "next.expected": {"es": "Hora prevista", "en": "Expected at"},
    "next.about": {"es": "hacia las {time}", "en": "at about {time}"},
    # the forecast (docs/schedule.md): an event's final and end, a match's expected end
    "fc.final_at": {"es": "la final, hacia las {time}", "en": "the final at about {time}"},
    "fc.final_playing": {"es": "la final se está jugando", "en": "the final is being played"},
    "fc.finish_at": {"es": "fin hacia las {time}", "en": "ends at about {time}"},
    "fc.title": {"es": "Previsión", "en": "Forecast"},
    # the pace of a match under way (HGV 2.4: about 10 minutes a point)
    "pace.so_far": {"es": "ritmo {mpp} min/punto (norma {norm})",
                    "en": "pace {mpp} min/point (norm {norm})"},
    "pace.no_points": {"es": "{min} min sin puntos (norma {norm} min/punto)",
                       "en": "{min} min without a point (norm {norm} min/point)"},
    "pace.end": {"es": "fin hacia las {time}", "en": "ends at about {time}"},
    "pace.slow": {"es": "va lenta: {min} min tras la norma", "en": "slow: {min} min behind the norm"},
    "pace.slow_hint": {
        "es": "Puede imponer el reloj: empieza con el próximo juego (HGV 2.4, 9.1.1).",
        "en": "You may impose the clock: it starts with the next game (HGV 2.4, 9.1.1).",
    },
    "pace.title": {"es": "Ritmo", "en": "Pace"},
    "pace.start_label": {"es": "Inicio", "en": "Start"},
    "pace.started": {"es": "empezó a las {time}", "en": "started at {time}"},
    "pace.bounded": {"es": "con reloj: como mucho hasta las {time}",
                     "en": "on the clock: at the latest {time}"},
    "next.score": {"es": "Marcador", "en": "Score"},
    "next.out": {"es": "No le quedan partidas en este torneo.",
                 "en": "You have no matches left in this tournament."},
    "next.none": {"es": "Aún no hay partidas sorteadas.", "en": "No matches drawn yet."},
    "next.last": {"es": "Último resultado", "en": "Last result"},
    "next.all_about": {"es": "Todo sobre {name}", "en": "All about {name}"},
    "next.link": {"es": "Mi próxima partida", "en": "My next match"},
    "qr.title": {"es": "Jugadores: su próxima partida (QR)", "en": "Players: their next match (QR)"},
    "qr.hint": {"es": "Imprima esta lista: cada código lleva a la página «mi próxima partida».",
                "en": "Print this list: each code opens that player's “my next match” page."},
    "qr.none": {"es": "Todavía no hay inscritos.", "en": "Nobody has registered yet."},
    "nav.exports": {"es": "Exportar", "en": "Exports"},
    "nav.director": {"es": "Dirección", "en": "Director"},
    "nav.tournament": {"es": "Torneo", "en": "Tournament"},
    "nav.audit": {"es": "Auditoría", "en": "Audit log"},
    "nav.login": {"es": "Entrar", "en": "Log in"},
    "nav.logout": {"es": "Salir", "en": "Log out"},
    "nav.json": {"es": "JSON", "en": "JSON"},
    "nav.language": {"es": "Idioma", "en": "Language"},
    "nav.print": {"es": "Imprimir", "en": "Print"},
    "nav.signed_in_as": {"es": "Director: {user}", "en": "Director: {user}"},
    "app.no_tournament": {
        "es": "Todavía no hay ningún torneo. El director puede crearlo desde «Torneo».",
        "en": "There is no tournament yet. The director can create one under “Tournament”.",
    },
    "app.footer": {
        "es": "Mesa · datos en vivo; esta página se actualiza sola.",
        "en": "Mesa · live data; this page updates itself.",
    },
    "app.not_found": {"es": "No encontrado", "en": "Not found"},
    "app.not_found_text": {
        "es": "Esa página o ese dato no existe.",
        "en": "That page or record does not exist.",
    },
    "app.back": {"es": "Volver", "en": "Back"},
    # ── the connection ──
    "conn.live": {"es": "En vivo", "en": "Live"},
    "conn.reconnecting": {"es": "Reconectando…", "en": "Reconnecting…"},
    "conn.offline": {
        "es": "Sin conexión con el hub; se reintentará sola.",
        "en": "No connection to the hub; retrying by itself.",
    },
    # ── live tables ──
    "live.title": {"es": "Mesas en vivo", "en": "Live tables"},
    "live.table": {"es": "Mesa {id}", "en": "Table {id}"},
    "live.no_tables": {
        "es": "Ninguna mesa se ha conectado todavía.",
        "en": "No table has connected yet.",
    },
    "live.free": {"es": "Libre", "en": "Free"},
    "live.match": {"es": "Partido {id}", "en": "Match {id}"},
    "live.to_points": {"es": "a {n}", "en": "to {n}"},
    "live.cube": {"es": "Cubo", "en": "Cube"},
    "live.cube_centre": {"es": "centrado", "en": "centred"},
    "live.cube_offered": {"es": "ofrecido por {who}", "en": "offered by {who}"},
    "live.game": {"es": "Juego {n}", "en": "Game {n}"},
    "live.crawford": {"es": "CRAWFORD", "en": "CRAWFORD"},
    "live.post_crawford": {"es": "post-Crawford", "en": "post-Crawford"},
    "live.untimed": {"es": "sin reloj", "en": "no clock"},
    "live.silent_for": {"es": "sin datos desde hace", "en": "silent for"},
    "live.winner": {"es": "Ganó {who}", "en": "{who} won"},
    "live.checked_in": {"es": "presente", "en": "present"},
    "live.absent": {"es": "ausente", "en": "absent"},
    "live.counts": {
        "es": Plural("{playing} jugando · {alerts} aviso · {offline} sin conexión",
                     "{playing} jugando · {alerts} avisos · {offline} sin conexión", "alerts"),
        "en": Plural("{playing} playing · {alerts} alert · {offline} offline",
                     "{playing} playing · {alerts} alerts · {offline} offline", "alerts"),
    },
    "live.sound_on": {"es": "Activar sonido", "en": "Enable sound"},
    "live.sound_enabled": {"es": "Sonido activado", "en": "Sound on"},
    # ── badges ──
    "badge.paused": {"es": "En pausa: {why}", "en": "Paused: {why}"},
    "badge.director": {"es": "¡Llaman al director! {why}", "en": "Director called! {why}"},
    "badge.refused": {
        "es": "Resultado imposible rechazado: gana {who} con {a}–{b}. Sin resultado: decide el director",
        "en": "Impossible result refused: {who} wins with {a}–{b}. No result: the director decides",
    },
    "badge.outbox_rebuilt": {
        "es": "La mesa empezó un registro nuevo (el suyo estaba dañado): compruebe su marcador",
        "en": "The table started a new record (its own was damaged): check its score",
    },
    "badge.low_time": {"es": "Poco tiempo: {who}", "en": "Low time: {who}"},
    "badge.timeout": {"es": "Tiempo agotado: {who}", "en": "Time out: {who}"},
    "badge.late": {
        "es": "Retraso: {who} ausente, próximo punto en {left}",
        "en": "Late: {who} absent, next point in {left}",
    },
    "badge.late_points": {"es": "puntos por retraso {a}–{b}", "en": "lateness points {a}–{b}"},
    "badge.result": {
        "es": "Resultado por confirmar: {who} gana {kind}",
        "en": "Result awaiting confirmation: {who} wins {kind}",
    },
    "badge.offline": {"es": "Desconectada", "en": "Offline"},
    "badge.lost": {"es": "¡Conexión perdida!", "en": "Connection lost!"},
    "badge.too_new": {
        "es": "Mesa más nueva que el hub: actualice el hub",
        "en": "Table newer than the hub: update the hub",
    },
    "badge.over": {"es": "Partido terminado", "en": "Match over"},
    "badge.clock_next_on": {"es": "Reloj desde el próximo juego", "en": "Clock from the next game"},
    "badge.clock_next_off": {"es": "Sin reloj desde el próximo juego",
                             "en": "No clock from the next game"},
    # ── table states ──
    "state.idle": {"es": "libre", "en": "idle"},
    "state.assigned": {
        "es": "asignada, esperando jugadores",
        "en": "assigned, waiting for players",
    },
    "state.checking_in": {"es": "llegando jugadores", "en": "checking in"},
    "state.between_games": {"es": "entre juegos", "en": "between games"},
    "state.running": {"es": "jugando", "en": "playing"},
    "state.cube_offered": {"es": "cubo ofrecido", "en": "cube offered"},
    "state.paused": {"es": "en pausa", "en": "paused"},
    "state.result_entry": {"es": "anotando resultado", "en": "entering the result"},
    "state.match_over": {"es": "partido terminado", "en": "match over"},
    # A match.ended the hub refused (hub/ingest/results.py): the match has no result yet.
    "state.result_refused": {"es": "resultado rechazado", "en": "result refused"},
    "state.unknown": {"es": "desconocido", "en": "unknown"},
    # ── pause reasons (mesa.games.backgammon.inputs.PAUSE_REASONS) ──
    "reason.unspecified": {"es": "sin motivo", "en": "no reason given"},
    "reason.game_over": {"es": "fin del juego", "en": "game over"},
    "reason.concession": {"es": "abandono", "en": "concession"},
    "reason.break": {"es": "descanso", "en": "break"},
    "reason.fallen_die": {"es": "dado caído", "en": "fallen die"},
    "reason.dispute": {"es": "disputa", "en": "dispute"},
    "reason.director": {"es": "llamada al director", "en": "director called"},
    "reason.timeout": {"es": "tiempo agotado", "en": "time out"},
    # ── game kinds and match endings ──
    "kind.0": {"es": "(cubo rechazado)", "en": "(double passed)"},
    "kind.1": {"es": "sencillo", "en": "single"},
    "kind.2": {"es": "gammon", "en": "gammon"},
    "kind.3": {"es": "backgammon", "en": "backgammon"},
    "how.score": {"es": "por puntos", "en": "on points"},
    "how.timeout": {"es": "por tiempo", "en": "on time"},
    "how.lateness": {"es": "por retraso", "en": "by lateness"},
    "how.penalty": {"es": "por penalización", "en": "by penalty"},
    "how.forfeit": {"es": "por incomparecencia", "en": "by forfeit"},
    "how.director": {"es": "por decisión del director", "en": "by the director"},
    # ── tournament ──
    "t.status.registration": {"es": "inscripción", "en": "registration"},
    "t.status.groups": {"es": "fase de grupos", "en": "group stage"},
    "t.status.knockout": {"es": "eliminatorias", "en": "knockout"},
    "t.status.finished": {"es": "terminado", "en": "finished"},
    "t.status.closed": {"es": "cerrado y publicado", "en": "closed and published"},
    "t.players_count": {"es": Plural("{n} jugador", "{n} jugadores"),
                        "en": Plural("{n} player", "{n} players")},
    "t.date": {"es": "Fecha", "en": "Date"},
    "t.name": {"es": "Torneo", "en": "Tournament"},
    "match.status.waiting": {"es": "pendiente", "en": "waiting"},
    "match.status.ready": {"es": "lista", "en": "ready"},
    "match.status.assigned": {"es": "en mesa", "en": "at a table"},
    "match.status.playing": {"es": "jugando", "en": "playing"},
    "match.status.done": {"es": "terminada", "en": "done"},
    "group.title": {"es": "Grupo {n}", "en": "Group {n}"},
    "group.none": {
        "es": "Los grupos aún no se han sorteado.",
        "en": "The groups have not been drawn yet.",
    },
    "col.place": {"es": "Pos.", "en": "Pos."},
    "col.player": {"es": "Jugador", "en": "Player"},
    "col.played": {"es": "PJ", "en": "P"},
    "col.won": {"es": "PG", "en": "W"},
    "col.lost": {"es": "PP", "en": "L"},
    "col.diff": {"es": "Dif.", "en": "Diff."},
    "col.tiebreak": {"es": "Desempate", "en": "Tie-break"},
    "col.qualified": {"es": "Clasif.", "en": "Qual."},
    "col.points": {"es": "Puntos", "en": "Points"},
    "col.rating": {"es": "Rating", "en": "Rating"},
    "col.experience": {"es": "Experiencia", "en": "Experience"},
    "col.tournaments": {"es": "Torneos", "en": "Tournaments"},
    "col.wins": {"es": "Ganados", "en": "Won"},
    "col.finals": {"es": "Finales", "en": "Finals"},
    "col.match": {"es": "Partida", "en": "Match"},
    "col.round": {"es": "Ronda", "en": "Round"},
    "col.table": {"es": "Mesa", "en": "Table"},
    "col.score": {"es": "Resultado", "en": "Score"},
    "col.status": {"es": "Estado", "en": "Status"},
    "col.white": {"es": "Blancas", "en": "White"},
    "col.black": {"es": "Negras", "en": "Black"},
    "col.when": {"es": "Cuándo", "en": "When"},
    "col.who": {"es": "Quién", "en": "Who"},
    "col.action": {"es": "Acción", "en": "Action"},
    "col.target": {"es": "Sobre", "en": "Target"},
    "col.why": {"es": "Motivo", "en": "Reason"},
    "col.outcome": {"es": "Resultado", "en": "Outcome"},
    "col.group": {"es": "Grupo", "en": "Group"},
    "col.checked_in": {"es": "Presente", "en": "Present"},
    "tiebreak.matches_won_among": {
        "es": "1 · duelos entre empatados",
        "en": "1 · head-to-head wins",
    },
    "tiebreak.points_diff_among": {
        "es": "2 · diferencia entre empatados",
        "en": "2 · head-to-head points",
    },
    "tiebreak.points_diff_all": {
        "es": "3 · diferencia en el grupo",
        "en": "3 · group point difference",
    },
    "tiebreak.dice": {"es": "4 · dados", "en": "4 · dice"},
    "tiebreak.void": {"es": "anulado (HGV 2.3.3)", "en": "removed (HGV 2.3.3)"},
    "tiebreak.no_show": {"es": "no vino (HGV 2.3.6)", "en": "did not come (HGV 2.3.6)"},
    "tiebreak.forfeit": {"es": "incomparecencia (va detrás)", "en": "forfeit (placed below)"},
    "tiebreak.wins": {"es": "partidas ganadas", "en": "matches won"},
    "tiebreak.pending": {"es": "pendiente de dados", "en": "dice pending"},
    "draw.title": {"es": "Cuadro final", "en": "Knockout draw"},
    "draw.none": {
        "es": "El cuadro se sortea al terminar los grupos.",
        "en": "The draw is made when the groups finish.",
    },
    "draw.tbd": {"es": "por decidir", "en": "to be decided"},
    "draw.champion": {"es": "Campeón", "en": "Champion"},
    "draw.printable": {"es": "Cuadro para imprimir", "en": "Printable draw"},
    "draw.a4": {"es": "A4 apaisado", "en": "A4 landscape"},
    "draw.a3": {"es": "A3 apaisado", "en": "A3 landscape"},
    "round.group": {"es": "Ronda {n}", "en": "Round {n}"},
    "consolation.title": {"es": "Último Chance", "en": "Último Chance"},
    "consolation.none": {
        "es": "El Último Chance empieza cuando hay perdedores de la primera ronda.",
        "en": "Último Chance starts once the first knockout round has losers.",
    },
    "rank.title": {"es": "Rankings", "en": "Rankings"},
    "rank.tournament": {"es": "Torneo", "en": "Tournament"},
    "rank.annual": {"es": "Anual", "en": "Annual"},
    "rank.historic": {"es": "Histórico", "en": "Historic"},
    "rank.rating": {"es": "Rating", "en": "Rating"},
    "rank.none": {
        "es": "Aún no hay datos para este ranking.",
        "en": "No data for this ranking yet.",
    },
    "rank.eligible": {"es": "opta a premio anual", "en": "eligible for the annual prize"},
    "rank.history": {"es": "Evolución del rating", "en": "Rating history"},
    "rank.season": {"es": "Temporada {year}", "en": "Season {year}"},
    "player.title": {"es": "Ficha de {name}", "en": "{name}"},
    "player.matches": {"es": "Partidas", "en": "Matches"},
    "player.rating": {"es": "Rating {r}", "en": "Rating {r}"},
    "player.none": {"es": "Sin partidas todavía.", "en": "No matches yet."},
    "players.title": {"es": "Jugadores", "en": "Players"},
    "final.title": {"es": "ASÍ QUEDÓ EL TORNEO", "en": "FINAL STANDINGS"},
    "final.none": {
        "es": "La clasificación final se publica al cerrar el torneo.",
        "en": "The final standings are published when the tournament closes.",
    },
    "final.place": {"es": "Puesto", "en": "Place"},
    "final.why": {"es": "Por qué el puesto {place}", "en": "Why place {place}"},
    # ── exports ──
    "exp.title": {"es": "Exportar", "en": "Exports"},
    "exp.json": {"es": "JSON", "en": "JSON"},
    "exp.static": {
        "es": "Resultados en HTML estático para la web del club (.zip)",
        "en": "Static HTML results for the club's website (.zip)",
    },
    "exp.final": {"es": "«ASÍ QUEDÓ EL TORNEO»", "en": "“FINAL STANDINGS” list"},
    "exp.draw": {"es": "Cuadro para imprimir", "en": "Printable draw"},
    "exp.standings": {"es": "Clasificación de grupos", "en": "Group standings"},
    "exp.matches": {"es": "Todas las partidas", "en": "All matches"},
    "exp.rankings": {"es": "Rankings", "en": "Rankings"},
    "exp.generated": {"es": "Generado el {when}", "en": "Generated on {when}"},
    # ── login ──
    "login.title": {"es": "Entrada del director", "en": "Director login"},
    "login.user": {"es": "Usuario", "en": "User"},
    "login.password": {"es": "Contraseña", "en": "Password"},
    "login.submit": {"es": "Entrar", "en": "Log in"},
    "login.needed": {
        "es": "Esta parte es solo para el director. Entre con su usuario.",
        "en": "This part is for the director only. Please log in.",
    },
    # ── messages after an action ──
    "flash.logged_in": {"es": "Bienvenido, {user}.", "en": "Welcome, {user}."},
    "flash.logged_out": {"es": "Sesión cerrada.", "en": "Logged out."},
    "flash.bad_login": {"es": "Usuario o contraseña incorrectos.", "en": "Wrong user or password."},
    "flash.throttled": {
        "es": "Demasiados intentos fallidos. Espere {seconds} s antes de volver a intentarlo.",
        "en": "Too many failed attempts. Wait {seconds} s before trying again.",
    },
    "flash.csrf": {
        "es": "El formulario ha caducado o no es válido (falta el token CSRF). Recargue la página; no se ha cambiado nada.",
        "en": "The form has expired or is not valid (missing CSRF token). Reload the page; nothing was changed.",
    },
    "flash.login_required": {
        "es": "Hace falta entrar como director para hacer esto. No se ha cambiado nada.",
        "en": "You must be logged in as the director to do this. Nothing was changed.",
    },
    "flash.done": {"es": "Hecho: {what}.", "en": "Done: {what}."},
    "flash.refused": {
        "es": "No se pudo: {why}. No se ha cambiado nada.",
        "en": "Refused: {why}. Nothing was changed.",
    },
    "flash.conflict": {
        "es": "Otro director cambió este resultado mientras usted lo editaba (ahora {now}). Revise y vuelva a intentarlo; no se ha cambiado nada.",
        "en": "Another director changed this result while you were editing it (now {now}). Check it and try again; nothing was changed.",
    },
    "flash.finished": {
        "es": "La partida {match} ya terminó; corrija su resultado en lugar de actuar sobre la mesa. No se ha cambiado nada.",
        "en": "Match {match} is already over; correct its result instead of acting on the table. Nothing was changed.",
    },
    "flash.no_table": {
        "es": "La mesa {table} no existe o no está conectada. No se ha cambiado nada.",
        "en": "Table {table} does not exist or is not connected. Nothing was changed.",
    },
    "flash.table_pending": {
        "es": "La mesa {table} aún no ha confirmado la orden (desconectada o lenta): la "
        "aplicará al volver. Compruebe su estado.",
        "en": "Table {table} has not confirmed the command yet (offline or slow): it applies "
        "it when it is back. Check its state.",
    },
    "flash.reason_required": {
        "es": "Indique el motivo; queda en el registro. No se ha cambiado nada.",
        "en": "Please give a reason; it goes into the audit log. Nothing was changed.",
    },
    "flash.bad_value": {
        "es": "Dato no válido en «{field}». No se ha cambiado nada.",
        "en": "Invalid value in “{field}”. Nothing was changed.",
    },
    "flash.unknown_action": {"es": "Acción desconocida: {name}.", "en": "Unknown action: {name}."},
    # ── director actions (names, also used in the audit log) ──
    "act.create_tournament": {"es": "crear torneo", "en": "create tournament"},
    "act.import_ranking": {"es": "importar ranking", "en": "import ranking"},
    "act.register_player": {"es": "inscribir jugador", "en": "register player"},
    "act.unregister_player": {"es": "borrar inscripción", "en": "unregister player"},
    "act.check_in": {"es": "marcar presente", "en": "check in"},
    "act.start_groups": {"es": "empezar los grupos", "en": "start the groups"},
    "act.start_knockout": {"es": "sortear el cuadro", "en": "draw the knockout"},
    "act.assign": {"es": "asignar a mesa", "en": "assign to a table"},
    "act.unassign": {"es": "retirar de la mesa", "en": "take off the table"},
    "act.set_clock": {"es": "imponer reloj", "en": "impose the clock"},
    "act.impose_clock": {"es": "imponer reloj", "en": "impose the clock"},
    "note.clock_next_game": {
        "es": "Hay un juego en marcha: el reloj empieza con el próximo juego (HGV 9.1.1).",
        "en": "A game is in progress: the clock starts with the next game (HGV 9.1.1).",
    },
    "note.clock_off_next_game": {
        "es": "Hay un juego en marcha: el reloj se quita al terminar este juego.",
        "en": "A game is in progress: the clock comes off when this game ends.",
    },
    "note.other": {"es": "La mesa añade: {code}.", "en": "The table adds: {code}."},
    "note.result_not_at_table": {
        "es": "La mesa que jugó la partida no ha aceptado el resultado corregido y sigue mostrando el anterior: corríjalo en la propia mesa.",
        "en": "The table that played the match did not take the corrected result and still shows the old one: correct it at the table itself.",
    },
    "note.result_to_table_pending": {
        "es": "La mesa que jugó la partida mostrará el resultado corregido cuando vuelva a conectarse.",
        "en": "The table that played the match will show the corrected result once it is back online.",
    },
    "dir.reserve_hint": {
        "es": "Las mesas reservadas solo reciben partidas de este torneo; los demás torneos de "
              "la velada comparten el resto. Déjelo vacío para no reservar ninguna.",
        "en": "Reserved tables only get this tournament's matches; the evening's other "
              "tournaments share the rest. Leave it empty to reserve none.",
    },
    "dir.impose_clock_hint": {
        "es": "El reloj pasa a ser obligatorio en esta partida: la mesa lo pone antes de "
              "empezar o, si ya se juega, con el próximo juego (reserva de HGV 7.6.2).",
        "en": "The clock becomes mandatory for this match: the table puts it on before the "
              "start or, if it is being played, with the next game (HGV 7.6.2 reserve).",
    },
    "dir.clock_next_game_hint": {
        "es": "Si hay un juego en marcha, el cambio de reloj vale desde el próximo juego "
              "(HGV 9.1.1).",
        "en": "With a game in progress, the clock change applies from the next game "
              "(HGV 9.1.1).",
    },
    "dir.clock_mandatory": {"es": "Reloj obligatorio: {clock}", "en": "Mandatory clock: {clock}"},
    "act.correct_result": {"es": "corregir resultado", "en": "correct result"},
    "act.record_result": {"es": "anotar resultado", "en": "record result"},
    "act.adjust_clock": {"es": "ajustar reloj", "en": "adjust clock"},
    "act.lose_delay": {"es": "quitar el retardo", "en": "take away the delay"},
    "act.correct_score": {"es": "corregir marcador", "en": "correct the score"},
    "act.pause": {"es": "pausar mesa", "en": "pause table"},
    "act.resume": {"es": "reanudar mesa", "en": "resume table"},
    "act.clear_call": {"es": "atender llamada", "en": "clear the call"},
    "act.forfeit": {"es": "anotar incomparecencia", "en": "record a forfeit"},
    "act.sanction": {"es": "sancionar", "en": "sanction"},
    "act.roll_dice": {"es": "tirar los dados del desempate", "en": "roll the tie-break dice"},
    "act.close": {"es": "cerrar y publicar", "en": "close and publish"},
    "act.release_table": {"es": "Liberar mesa", "en": "Free the table"},
    "act.settle_game": {"es": "anotar el juego en disputa", "en": "settle the disputed game"},
    "flash.released": {
        "es": "La mesa {tables} tenía una partida ya decidida o anulada: se le ha retirado y queda libre.",
        "en": "Table {tables} held a match already decided or annulled: it was withdrawn and the table is free.",
    },
    "hold.decided": {"es": "ya tiene resultado", "en": "already decided"},
    "hold.annulled": {"es": "ha sido anulada", "en": "annulled"},
    "hold.foreign": {"es": "no la asignó el hub", "en": "not assigned by the hub"},
    "hold.elsewhere": {
        "es": "ya no está asignada a esta mesa",
        "en": "no longer assigned to this table",
    },
    "dir.release_hint": {
        "es": "Esta mesa sigue con {match}, que {why}. Libérela para que reciba la siguiente partida.",
        "en": "This table still holds {match}, which is {why}. Free it so it can take the next match.",
    },
    "dir.finished_hint": {
        "es": "Esta mesa terminó {match} y recibirá la siguiente partida por sí sola: no hace falta liberarla.",
        "en": "This table finished {match} and will take the next match by itself: there is no need to free it.",
    },
    "dir.disputed": {
        "es": "Resultado en disputa: anote usted el juego (la mesa lo registra como confirmado).",
        "en": "Disputed result: record the game yourself (the table records it as confirmed).",
    },
    "form.game_kind": {"es": "Resultado del juego", "en": "Game result"},
    "game_kind.1": {"es": "sencillo (×1)", "en": "single (×1)"},
    "game_kind.2": {"es": "gammon (×2)", "en": "gammon (×2)"},
    "game_kind.3": {"es": "backgammon (×3)", "en": "backgammon (×3)"},
    "err.match_live": {
        "es": "la mesa juega una partida que sigue siendo suya: use incomparecencia, cambiar de mesa o retirar",
        "en": "the table plays a match that is still its own: use forfeit, move or take off the table",
    },
    "err.nothing_held": {
        "es": "la mesa no tiene ninguna partida",
        "en": "the table holds no match",
    },
    "act.adopt_table": {"es": "mesa nueva adoptada", "en": "new table adopted"},
    "act.dismiss_enrolment": {
        "es": "anuncio de mesa nueva descartado",
        "en": "new table's announcement dismissed",
    },
    "act.auto_assign": {"es": "asignación automática", "en": "automatic assignment"},
    "act.login": {"es": "entrada", "en": "login"},
    "act.logout": {"es": "salida", "en": "logout"},
    # ── director forms ──
    "form.reason": {"es": "Motivo", "en": "Reason"},
    "form.submit": {"es": "Aplicar", "en": "Apply"},
    "form.name": {"es": "Nombre", "en": "Name"},
    "form.date": {"es": "Fecha", "en": "Date"},
    "form.official": {
        "es": "Oficial (cuenta para el ranking)",
        "en": "Official (counts for the ranking)",
    },
    "form.category": {"es": "Categoría", "en": "Category"},
    "form.seed": {"es": "Semilla del sorteo", "en": "Draw seed"},
    "form.csv": {"es": "Ranking en CSV (nombre;puntos)", "en": "Ranking as CSV (name;points)"},
    "form.csv_file": {"es": "o elija un archivo", "en": "or choose a file"},
    "form.player": {"es": "Jugador", "en": "Player"},
    "form.new_player": {"es": "Nuevo jugador (nombre)", "en": "New player (name)"},
    "form.override": {"es": "Ignorar sanción pendiente", "en": "Override a pending sanction"},
    "form.table": {"es": "Mesa", "en": "Table"},
    "form.tables": {"es": "Mesas", "en": "Tables"},
    "form.score_a": {"es": "Puntos blancas", "en": "White's points"},
    "form.score_b": {"es": "Puntos negras", "en": "Black's points"},
    "form.side": {"es": "Jugador", "en": "Player"},
    "form.seconds": {"es": "Segundos (+/−)", "en": "Seconds (+/−)"},
    "form.winner": {"es": "Gana", "en": "Winner"},
    "form.kind": {"es": "Sanción", "en": "Sanction"},
    "form.clock_preset": {"es": "Reloj", "en": "Clock"},
    "form.groups": {"es": "Número de grupos (vacío: N÷3)", "en": "Number of groups (blank: N÷3)"},
    "form.consolation": {"es": "Con Último Chance", "en": "With Último Chance"},
    "form.confirm_close": {
        "es": "¿Cerrar el torneo y publicar los resultados? Después no se podrá modificar.",
        "en": "Close the tournament and publish the results? It cannot be changed afterwards.",
    },
    "sanction.left": {
        "es": "abandonó el torneo (HGV 2.3.5)",
        "en": "left the tournament (HGV 2.3.5)",
    },
    "sanction.no_show": {
        "es": "confirmó y no vino (HGV 2.3.6)",
        "en": "confirmed and did not come (HGV 2.3.6)",
    },
    "sanction.absent_group": {
        "es": "Ausentes en el sorteo (solo «confirmó y no vino»)",
        "en": "Absent at the draw (only “confirmed and did not come”)",
    },
    "dir.title": {"es": "Dirección del torneo", "en": "Tournament direction"},
    "dir.tables": {"es": "Mesas", "en": "Tables"},
    # The venue's certificates (hub/broker/tls.py): the CA's own end, a renewal that failed.
    "tls.ca_expires": {
        "es": "La autoridad de certificados del local caduca el {date} (en {days} días): "
        "después, ninguna mesa podrá conectarse. Hay que crear una nueva y llevarla a cada mesa.",
        "en": "The venue's certificate authority expires on {date} (in {days} days): after "
        "that no table can connect. A new one must be made and taken to every table.",
    },
    "tls.renew_failed": {
        "es": "No se pudieron renovar los certificados del servidor ({error}); caducan el {date}.",
        "en": "The server certificates could not be renewed ({error}); they expire on {date}.",
    },
    "dir.matches": {"es": "Partidas", "en": "Matches"},
    "dir.registration": {"es": "Inscripción", "en": "Registration"},
    "dir.actions": {"es": "Acciones", "en": "Actions"},
    "dir.audit_title": {"es": "Registro de acciones del director", "en": "Director's audit log"},
    "dir.audit_none": {"es": "Ninguna acción todavía.", "en": "No actions yet."},
    "dir.outcome.ok": {"es": "hecho", "en": "done"},
    "dir.outcome.refused": {"es": "rechazado", "en": "refused"},
    "dir.outcome.pending": {"es": "enviado, sin confirmar", "en": "sent, not confirmed"},
    "dir.ties": {"es": "Empates que se deciden a los dados", "en": "Ties decided by the dice"},
    "dir.no_ties": {"es": "Ningún empate pendiente.", "en": "No tie pending."},
    "dir.tie": {"es": "Grupo {group}: {players}", "en": "Group {group}: {players}"},
    "dir.ready_matches": {"es": "Partidas listas para jugar", "en": "Matches ready to play"},
    "dir.table_actions": {"es": "Acciones sobre la mesa {id}", "en": "Actions on table {id}"},
    # ── why an action was refused (engine and table codes) ──
    "err.already_decided": {
        "es": "la partida ya tiene resultado",
        "en": "the match already has a result",
    },
    "err.match_not_ready": {"es": "la partida no está lista", "en": "the match is not ready"},
    "err.unknown_match": {"es": "esa partida no existe", "en": "no such match"},
    "err.unknown_player": {"es": "ese jugador no existe", "en": "no such player"},
    "err.duplicate_player": {"es": "jugador repetido", "en": "duplicate player"},
    "err.duplicate_tournament": {
        "es": "ya existe un torneo con ese código",
        "en": "a tournament with that id already exists",
    },
    "err.unknown_tournament": {"es": "ese torneo no existe", "en": "no such tournament"},
    "err.not_enough_players": {"es": "no hay jugadores suficientes", "en": "not enough players"},
    "err.sanctioned": {
        "es": "el jugador tiene una sanción pendiente",
        "en": "the player has a pending sanction",
    },
    "err.wrong_category": {"es": "categoría equivocada", "en": "wrong category"},
    "err.wrong_phase": {
        "es": "no corresponde a la fase del torneo",
        "en": "not in this phase of the tournament",
    },
    "err.invalid_result": {
        "es": "resultado imposible para esa partida",
        "en": "impossible result for that match",
    },
    "err.table_unavailable": {
        "es": "la mesa no está disponible",
        "en": "the table is not available",
    },
    "err.players_busy": {
        "es": "algún jugador está jugando otra partida",
        "en": "a player is still playing another match",
    },
    "err.conflict": {
        "es": "conflicto con lo ya jugado",
        "en": "conflicts with what was already played",
    },
    "err.bad_ranking_csv": {
        "es": "el CSV del ranking tiene errores",
        "en": "the ranking CSV has errors",
    },
    "err.bad_group_count": {
        "es": "número de grupos imposible",
        "en": "impossible number of groups",
    },
    "err.bad_dice": {"es": "dados no válidos", "en": "invalid dice"},
    "err.not_eligible": {
        "es": "no puede jugar el Último Chance",
        "en": "not eligible for Último Chance",
    },
    "err.bad_withdrawal": {"es": "retirada no válida", "en": "invalid withdrawal"},
    "err.bad_setting": {"es": "ajuste no válido", "en": "invalid setting"},
    "err.bad_player": {"es": "jugador no válido", "en": "invalid player"},
    "err.unknown_group": {"es": "ese grupo no existe", "en": "no such group"},
    "err.not_now": {
        "es": "la mesa no admite eso en su estado actual",
        "en": "the table cannot do that in its current state",
    },
    "err.not_running": {
        "es": "los relojes ya están parados",
        "en": "the clocks are already stopped",
    },
    "err.bad_adjustment": {"es": "ajuste de reloj imposible", "en": "impossible clock adjustment"},
    "err.bad_score": {"es": "marcador imposible", "en": "impossible score"},
    "err.bad_clock": {"es": "reloj no válido", "en": "invalid clock"},
    "err.stale_epoch": {
        "es": "la mesa ya tiene una asignación más reciente",
        "en": "the table already holds a newer assignment",
    },
    "err.no_call": {"es": "nadie ha llamado al director", "en": "nobody called the director"},
    "err.no_clock": {"es": "la partida no tiene reloj", "en": "the match has no clock"},
    "err.game_in_progress": {"es": "hay un juego en marcha", "en": "a game is in progress"},
    "err.in_game": {"es": "hay un juego en marcha", "en": "a game is in progress"},
    "err.match_over": {"es": "la partida ya terminó", "en": "the match is over"},
    "err.bad_input": {"es": "orden no válida para la mesa", "en": "invalid command for the table"},
    "err.no_table": {"es": "mesa desconocida", "en": "unknown table"},
    "err.offline": {"es": "la mesa no está conectada", "en": "the table is not connected"},
    "err.no_tournament": {"es": "no hay torneo en curso", "en": "no tournament in progress"},
    "err.no_outcome": {
        "es": "la mesa no aplicó la orden",
        "en": "the table did not apply the command",
    },
    "err.tournament_error": {
        "es": "el torneo no lo permite",
        "en": "the tournament does not allow it",
    },
    "err.table_other_game": {"es": "la mesa {table} no es de backgammon",
                             "en": "table {table} is not a backgammon table"},
    "err.reserved_elsewhere": {"es": "la mesa {table} ya está reservada para {event}",
                               "en": "table {table} is already reserved for {event}"},
    "err.closed": {"es": "el torneo está cerrado", "en": "the tournament is closed"},
    "err.other": {"es": "error", "en": "error"},
    "err.already_checked_in": {"es": "ese jugador ya se presentó", "en": "that player already checked in"},
    "err.audit_rewrite": {"es": "el registro no se reescribe", "en": "the audit log cannot be rewritten"},
    "err.bad_cards": {"es": "tarjetas no válidas", "en": "invalid cards"},
    "err.bad_lang": {"es": "idioma desconocido", "en": "unknown language"},
    "err.bad_players": {"es": "faltan los dos jugadores", "en": "both players are needed"},
    "err.bad_schema": {"es": "base de datos de otra versión", "en": "a store of another version"},
    "err.bad_state": {"es": "estado guardado ilegible", "en": "unreadable saved state"},
    "err.bounce": {"es": "pulsación repetida", "en": "repeated press"},
    "err.claim_pending": {"es": "un resultado espera confirmación", "en": "a result awaits confirmation"},
    "err.no_claim": {"es": "ningún resultado espera confirmación", "en": "no result awaits confirmation"},
    "err.no_double": {"es": "nadie ha doblado", "en": "nobody has doubled"},
    "err.no_game": {"es": "ningún juego en marcha", "en": "no game in progress"},
    "err.no_time": {"es": "falta la hora", "en": "the time is missing"},
    "err.not_on_move": {"es": "no le toca", "en": "not on move"},
    "err.resumed_on_move": {
        "es": "en el juego que se trajo de otra mesa le toca a ese jugador: pulsa el otro",
        "en": "that player is on move in the game brought from another table: the other presses",
    },
    "err.bad_resume": {
        "es": "la mesa no acepta el estado de la partida que se le trae",
        "en": "the table does not accept the state of the match brought to it",
    },
    "err.not_responder": {"es": "responde el otro jugador", "en": "the other player answers"},
    "err.own_claim": {"es": "confirma el rival", "en": "the opponent confirms"},
    "err.unknown_card": {"es": "tarjeta desconocida", "en": "unknown card"},
    # ── who called the director ──
    "call.players": {"es": "los jugadores", "en": "the players"},
    "call.timeout": {"es": "tiempo agotado", "en": "time out"},
    "call.disputed_result": {"es": "resultado en disputa", "en": "disputed result"},
    "call.director": {"es": "llamada", "en": "call"},
    "act.reserve_tables": {"es": "reservar mesas", "en": "reserve tables"},
    "act.start_consolation": {"es": "empezar el Último Chance", "en": "start Último Chance"},
    "act.resolve_conflict": {"es": "resolver conflicto", "en": "resolve conflict"},
    "act.move": {"es": "cambiar de mesa", "en": "move to another table"},
    "move.carried": {"es": "sigue con el marcador {score}", "en": "goes on at {score}"},
    "move.from_zero": {"es": "empieza de 0–0", "en": "starts from 0–0"},
    "form.from_zero": {
        "es": "Si no se sabe cómo va, empezar de 0–0",
        "en": "If the score is not known, start from 0–0",
    },
    "dir.move_hint": {
        "es": "La partida sigue en la mesa nueva como estaba: marcador, cubo, Crawford y relojes. Los dos jugadores vuelven a pulsar para presentarse.",
        "en": "The match goes on at the new table as it stood: score, cube, Crawford and clocks. Both players press again to check in.",
    },
    "match.history": {"es": "Historial de la partida", "en": "The match's history"},
    "conflict.title": {
        "es": "Correcciones pendientes de decisión",
        "en": "Corrections waiting for a decision",
    },
    "conflict.text": {
        "es": "Corregir {match} ({old} → {new}) afecta a partidas ya jugadas o en juego: {affected}.",
        "en": "Correcting {match} ({old} → {new}) affects matches already played or in play: {affected}.",
    },
    "conflict.keep": {"es": "Mantener el resultado anotado", "en": "Keep the recorded result"},
    "conflict.apply": {
        "es": "Aplicar y anular lo afectado",
        "en": "Apply and annul what it affects",
    },
    "conflict.apply_keep_draw": {
        "es": "Aplicar y mantener el cuadro",
        "en": "Apply and keep the draw",
    },
    "flash.conflict_opened": {
        "es": "La corrección de {match} afecta a partidas posteriores: decida en «Correcciones pendientes». Todavía no se ha cambiado nada.",
        "en": "The correction of {match} affects later matches: decide under “Corrections waiting”. Nothing has changed yet.",
    },
    "form.present": {"es": "Presente", "en": "Present"},
    "form.absent": {"es": "Ausente", "en": "Absent"},
    "form.values": {"es": "Dados (vacío: los tira el hub)", "en": "Dice (blank: the hub rolls)"},
    "form.roll": {"es": "Tirar", "en": "Roll"},
    "form.id": {"es": "Código (vacío: la fecha)", "en": "ID (blank: the date)"},
    "form.create_missing": {"es": "Dar de alta a los que falten", "en": "Create missing players"},
    "form.year": {"es": "Temporada (año)", "en": "Season (year)"},
    "form.forfeit": {"es": "Por incomparecencia", "en": "By forfeit"},
    "form.preset.singles": {
        "es": "individual (2 min/punto + 10 s)",
        "en": "singles (2 min/point + 10 s)",
    },
    "form.preset.usbgf": {"es": "USBGF (12 s de retardo)", "en": "USBGF (12 s delay)"},
    "form.preset.standard": {"es": "estándar (sin retardo)", "en": "standard (no delay)"},
    "form.preset.none": {"es": "quitar el reloj", "en": "take the clock off"},
    "dir.command_log": {"es": "Órdenes enviadas a la mesa", "en": "Commands sent to the table"},
    # ── a command sent to a table, as a sentence (Translator.command) ──
    "cmd.assign": {"es": "asignar {match} ({a} – {b}, a {length})",
                   "en": "assign {match} ({a} – {b}, to {length})"},
    "cmd.unassign": {"es": "retirar la partida", "en": "withdraw the match"},
    "cmd.director_pause": {"es": "pausar ({reason})", "en": "pause ({reason})"},
    "cmd.director_resume": {"es": "reanudar", "en": "resume"},
    "cmd.director_adjust": {"es": "reloj del jugador {side}: {seconds} s",
                            "en": "player {side}'s clock: {seconds} s"},
    "cmd.director_lose_delay": {"es": "el jugador {side} pierde el retardo",
                                "en": "player {side} loses the delay"},
    "cmd.director_score": {"es": "corregir marcador a {a}–{b}", "en": "correct the score to {a}–{b}"},
    "cmd.director_result": {"es": "anotar el juego al jugador {side} ({kind})",
                            "en": "record the game for player {side} ({kind})"},
    "cmd.director_clock_on": {"es": "imponer reloj", "en": "impose the clock"},
    "cmd.director_clock_off": {"es": "quitar el reloj", "en": "take the clock off"},
    "cmd.director_clear_call": {"es": "atender la llamada", "en": "answer the call"},
    "cmd.director_forfeit": {"es": "el jugador {side} gana por incomparecencia",
                             "en": "player {side} wins by forfeit"},
    "cmd.other": {"es": "orden «{name}»", "en": "command “{name}”"},
    "cmd.line": {"es": "Mesa {table}: {what}", "en": "Table {table}: {what}"},
    "cmd.accepted": {"es": "confirmado", "en": "confirmed"},
    "cmd.from_next_game": {"es": "desde el próximo juego", "en": "from the next game"},
    "cmd.refused": {"es": "rechazado: {why}", "en": "refused: {why}"},
    "cmd.waiting": {"es": "sin respuesta", "en": "no answer"},
    # ── who did something (a match's history, the audit log) ──
    "who.table": {"es": "mesa {id}", "en": "table {id}"},
    "who.director": {"es": "director", "en": "director"},
    "who.auto": {"es": "automático", "en": "automatic"},
    "who.demo": {"es": "demostración", "en": "demo"},
    "hist.correct": {"es": "corrección", "en": "correction"},
    "hist.move": {"es": "cambio de mesa", "en": "moved to another table"},
    "hist.annul": {"es": "anulación", "en": "annulment"},
    "hist.knockout_forfeit": {"es": "forfait en la eliminatoria", "en": "knockout forfeit"},
    "dir.accepted": {"es": "aceptada", "en": "accepted"},
    "dir.refused": {"es": "rechazada", "en": "refused"},
    "dir.waiting": {"es": "sin respuesta", "en": "no answer"},
    "dir.checkin_count": {
        "es": "{present} de {total} presentes",
        "en": "{present} of {total} present",
    },
    "dir.start_hint": {
        "es": "Al empezar se sortean los grupos con el ranking oficial; los ausentes deben borrarse antes.",
        "en": "Starting draws the groups from the official ranking; remove absent players first.",
    },
    "dir.login_hint": {
        "es": "Demo: usuario «{user}», contraseña «{password}».",
        "en": "Demo: user “{user}”, password “{password}”.",
    },
    # ── "Mesa nueva": adopting a new table's Pi (director/_enrolment.html) ──
    "enrol.title": {"es": "Mesa nueva", "en": "New table"},
    "enrol.intro": {
        "es": "Estos Pi se anunciaron en la red del club. Para adoptar uno, escriba el código que"
        " muestra la pantalla de esa mesa y su número de mesa.",
        "en": "These Pis announced themselves on the club's network. To adopt one, type the code"
        " its table's screen shows and its table number.",
    },
    "enrol.serial": {"es": "Número de serie", "en": "Serial"},
    "enrol.hwcheck": {"es": "Comprobación", "en": "Hardware check"},
    "enrol.first_seen": {"es": "Primera vez", "en": "First seen"},
    "enrol.last_seen": {"es": "Última vez", "en": "Last seen"},
    "enrol.adopt": {"es": "Adoptar", "en": "Adopt"},
    "enrol.table_number": {"es": "Mesa", "en": "Table"},
    "enrol.code": {"es": "Código de la pantalla", "en": "Code on its screen"},
    "enrol.replace_field": {
        "es": "reemplaza al Pi (si la mesa ya tiene uno)",
        "en": "replaces the Pi (if the table has one)",
    },
    "enrol.replace_button": {
        "es": "Reemplazar el Pi {pi} de la mesa {table}",
        "en": "Replace table {table}'s Pi {pi}",
    },
    "enrol.dismiss": {"es": "Descartar", "en": "Dismiss"},
    "enrol.dismissed": {"es": "anuncio descartado", "en": "announcement dismissed"},
    "enrol.refused_count": {
        "es": "{n} anuncios rechazados (lista llena: {full}, demasiados desde una dirección:"
        " {source}, número de serie repetido: {serial}, descartados: {dismissed}, mal formados:"
        " {malformed}): ¿alguien inunda la red?",
        "en": "{n} announcements refused (list full: {full}, too many from one address: {source},"
        " serial repeated: {serial}, dismissed: {dismissed}, malformed: {malformed}): is someone"
        " flooding the network?",
    },
    "enrol.none": {"es": "Ninguna mesa nueva espera.", "en": "No new table is waiting."},
    "enrol.no_hwcheck": {"es": "sin comprobación", "en": "no hardware check"},
    "enrol.part.display": {"es": "pantalla", "en": "display"},
    "enrol.part.card": {"es": "tarjeta SD", "en": "SD card"},
    "enrol.part.buttons": {"es": "botones", "en": "buttons"},
    "enrol.part.hwcheck": {"es": "comprobación", "en": "check"},
    "enrol.off": {"es": "desactivada", "en": "off"},
    "enrol.how_to_enable": {
        "es": "Para adoptar mesas nuevas desde aquí, arranque el hub con la configuración "
        "del puesto de alta (la escribe el instalador del hub):",
        "en": "To adopt new tables from here, start the hub with the enrolment desk's "
        "settings (the hub's installer writes them):",
    },
    "enrol.disconnected": {
        "es": "El puesto de alta no está conectado al broker: no sabe qué mesas están en línea "
        "hasta que vuelva.",
        "en": "The enrolment desk is not connected to the broker: it does not know which tables "
        "are online until it is.",
    },
    "enrol.off_refused": {
        "es": "la adopción de mesas nuevas no está activada en este hub",
        "en": "adopting new tables is not enabled on this hub",
    },
    "enrol.not_started": {
        "es": "El puesto de alta no arrancó con {path}: vea el registro del hub.",
        "en": "The enrolment desk did not start with {path}: see the hub's log.",
    },
    "enrol.bad_table": {
        "es": "«{table}» no sirve como número de mesa: use de 1 a 32 cifras, letras minúsculas,"
        " «_» o «-», sin empezar por «mesa»",
        "en": "“{table}” is not a valid table number: use 1 to 32 digits, lowercase letters,"
        " “_” or “-”, not starting with “mesa”",
    },
    "enrol.not_pending": {
        "es": "ninguna mesa nueva con el código {code} está esperando: compruebe el código en la"
        " pantalla de la mesa",
        "en": "no new table showing code {code} is waiting: check the code on the table's screen",
    },
    "enrol.bad_code": {
        "es": "«{code}» no es un código: son seis letras y cifras, como 4F7-2K9",
        "en": "“{code}” is not a code: it is six letters and digits, like 4F7-2K9",
    },
    "enrol.ambiguous": {
        "es": "dos mesas nuevas muestran el código {code}: descarte ambas y espere a que la mesa"
        " se anuncie de nuevo",
        "en": "two new tables show code {code}: dismiss both and wait for the table to announce"
        " itself again",
    },
    "enrol.confirm_replace": {
        "es": "la mesa {table} ya tiene el Pi {pi} ({state}); para poner este en su lugar,"
        " confirme «Reemplazar el Pi {pi} de la mesa {table}»",
        "en": "table {table} already has Pi {pi} ({state}); to put this one in its place,"
        " confirm “Replace table {table}'s Pi {pi}”",
    },
    "enrol.state.online": {"es": "en línea", "en": "online"},
    "enrol.state.offline": {"es": "desconectado", "en": "offline"},
    "enrol.state.adopted": {
        "es": "recién adoptado, aún no en línea",
        "en": "just adopted, not online yet",
    },
    "enrol.not_listed": {
        "es": "ese anuncio ya no está en la lista",
        "en": "that announcement is no longer listed",
    },
    "enrol.failed": {"es": "no se pudo adoptar ({why})", "en": "could not adopt ({why})"},
    "side.a": {"es": "blancas", "en": "white"},
    "side.b": {"es": "negras", "en": "black"},
    # ── several events on one evening ──
    "ev.switch": {"es": "Evento", "en": "Event"},
    "ev.closed": {"es": "cerrado", "en": "closed"},
    "ev.all": {"es": "Todos", "en": "All"},
    "ev.category.open": {"es": "open", "en": "open"},
    "ev.category.novatos": {"es": "novatos", "en": "beginners"},
    "ev.showing": {
        "es": "Primero las mesas de {name}; las demás mesas se comparten.",
        "en": "{name}'s tables first; the other tables are shared.",
    },
    "dir.waits_for": {
        "es": "espera: {name} juega en la mesa {table}, {where}",
        "en": "waiting: {name} is playing at table {table}, {where}",
    },
    "dir.domino": {"es": "dominó", "en": "domino"},
    "next.elsewhere": {"es": "Ahora juega en la mesa {table}, {where}.", "en": "Now playing at table {table}, {where}."},
    "col.event": {"es": "Evento", "en": "Event"},
}
# The dashboard's own words, the door's and the domino pages' (one catalog serves every page).
STRINGS = Catalog(_WEB, DOOR_STRINGS, DOMINO_STRINGS, REGISTRY_STRINGS)  # checked here: a gap fails the import
text = STRINGS.text


def pick_language(*candidates: str | None) -> str:
    """The first supported language among ``candidates`` (query, cookie, header), else Spanish.

    >>> pick_language(None, "fr", "en-GB,en;q=0.8")
    'en'
    >>> pick_language(None, None)
    'es'
    """
    for c in candidates:
        if not c:
            continue
        for part in c.split(","):
            code = part.split(";")[0].strip().lower()[:2]
            if code in LANGUAGES:
                return code
    return DEFAULT_LANGUAGE


def format_datetime(value: datetime | str | None, lang: str) -> str:
    """A date and time as the club writes it: ``31/12/2025 21:05:00`` (``2025-12-31 …`` in en)."""
    if value is None:
        return "—"
    if isinstance(value, int | float):
        value = datetime.fromtimestamp(value)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return str(value)
        if value.tzinfo is not None:
            value = value.astimezone()  # the audit log is kept in UTC; show local time
    return value.strftime("%d/%m/%Y %H:%M:%S" if lang == "es" else "%Y-%m-%d %H:%M:%S")


def format_hour(value: datetime | str | None, lang: str) -> str:
    """A forecast's time of day, to the nearest five minutes (a forecast is no more exact than
    that): ``23:40``; ``—`` when there is none.

    >>> format_hour("2026-12-04T23:38:10", "es"), format_hour(None, "en")
    ('23:40', '—')
    """
    if value is None:
        return "—"
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return str(value)
    rounded = value + timedelta(minutes=2, seconds=30)
    rounded -= timedelta(minutes=rounded.minute % 5, seconds=rounded.second,
                         microseconds=rounded.microsecond)
    return rounded.strftime("%H:%M")


def format_date(value: Any, lang: str) -> str:
    """A date: ``31/12/2025`` in Spanish, ``2025-12-31`` in English."""
    if value is None:
        return "—"
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return value
    return value.strftime("%d/%m/%Y" if lang == "es" else "%Y-%m-%d")


class Translator:
    """The strings and number formats of one language, handed to every template as ``_``."""

    def __init__(self, lang: str = DEFAULT_LANGUAGE) -> None:
        self.lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE

    def __call__(self, key: str, /, **values: Any) -> str:
        return text(self.lang, key, **values)

    def points(self, hundredths: int | float | None) -> str:
        return format_points(hundredths, self.lang)

    def number(self, value: float, decimals: int = 2) -> str:
        return format_number(value, self.lang, decimals)

    def clock(self, seconds: float | None) -> str:
        return format_clock(seconds)

    def datetime(self, value: Any) -> str:
        return format_datetime(value, self.lang)

    def date(self, value: Any) -> str:
        return format_date(value, self.lang)

    def hour(self, value: Any) -> str:
        """A forecast's time (to five minutes)."""
        return format_hour(value, self.lang)

    def hm(self, value: Any) -> str:
        """A time that happened, to the minute: ``21:07``."""
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                return value
        return "—" if value is None else value.strftime("%H:%M")

    def actor(self, who: str | None) -> str:
        """Who did it: ``table 4`` → «mesa 4», the automatic actors by name, a user as is."""
        who = who or ""
        if who.startswith("table "):
            return self("who.table", id=who[6:])
        return self(f"who.{who}") if f"who.{who}" in STRINGS else who

    def history(self, action: str) -> str:
        """One step of a match's history (``correct``, ``annul``…)."""
        return self(f"hist.{action}") if f"hist.{action}" in STRINGS else action

    def command(self, cmd: Mapping[str, Any]) -> str:
        """A command sent to a table as a sentence, with how the table answered.

        >>> Translator("es").command({"table": "4", "input": "director_score",
        ...                          "args": {"a": 3, "b": 2}, "accepted": True})
        'Mesa 4: corregir marcador a 3–2 · confirmado'
        """
        name = str(cmd.get("input") or "")
        args = dict(cmd.get("args") or {})
        side = str(args.get("side") or args.get("winner") or "").upper()
        if name == "assign":
            players = args.get("players") or {}
            what = self("cmd.assign", match=args.get("match_id", ""), a=players.get("a", ""),
                        b=players.get("b", ""), length=args.get("length", ""))
        elif name == "director_pause":
            reason = str(args.get("reason") or "director")
            key = f"reason.{reason}"
            what = self("cmd.director_pause", reason=self(key) if key in STRINGS else reason)
        elif name == "director_adjust":
            seconds = float(args.get("seconds") or 0)
            sign = "+" if seconds > 0 else ""
            what = self("cmd.director_adjust", side=side, seconds=sign + self.number(seconds, 0))
        elif name == "director_result":
            what = self("cmd.director_result", side=side, kind=self(f"kind.{args.get('kind')}")
                        if f"kind.{args.get('kind')}" in STRINGS else str(args.get("kind")))
        elif name == "director_clock":
            what = self("cmd.director_clock_off" if args.get("clock") is None
                        else "cmd.director_clock_on")
        elif name == "director_score":
            what = self("cmd.director_score", a=args.get("a"), b=args.get("b"))
        elif f"cmd.{name}" in STRINGS:
            what = self(f"cmd.{name}", side=side)
        else:
            what = self("cmd.other", name=name)
        line = self("cmd.line", table=cmd.get("table", ""), what=what)
        accepted = cmd.get("accepted")
        if accepted is None:
            return f"{line} · {self('cmd.waiting')}"
        if accepted:
            if cmd.get("code") == "clock_next_game":  # kept for the match's next game
                return f"{line} · {self('cmd.accepted')} · {self('cmd.from_next_game')}"
            return f"{line} · {self('cmd.accepted')}"
        code = str(cmd.get("code") or "other")
        why = self(f"err.{code}") if f"err.{code}" in STRINGS else self("err.other")
        return f"{line} · {self('cmd.refused', why=why)}"

    def refused(self, said: Mapping[str, Any] | None) -> str:
        """A refusal recorded language-free (``Refused.said``), said in this language."""
        said = said or {}
        code = str(said.get("code") or "other")
        head = self(f"err.{code}") if f"err.{code}" in STRINGS else self("err.other")
        if said.get("reason"):
            detail = refusal(str(said["reason"]), dict(said.get("params") or {}), self.lang)
            return head if detail == head else f"{head} ({detail})"
        return head

    def strings(self, prefix: str) -> Mapping[str, str]:
        """Every string under ``prefix`` (for the browser's script), keyed without the prefix."""
        return {k[len(prefix) :]: text(self.lang, k) for k, entry in STRINGS.items()
                if k.startswith(prefix) and not isinstance(entry[self.lang], Plural)}

