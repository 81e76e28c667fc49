"""The dashboard's domino strings, Spanish and English, merged into :data:`mesa.hub.web.i18n.STRINGS`.

The table's own words (states, how a game ended, the penalty reasons) are taken from
:mod:`mesa.games.domino.words`, so the grid and the OLED say the same thing.

>>> DOMINO_STRINGS["dom.reason.chivo"]["es"], DOMINO_STRINGS["dom.tiempo"]["en"]
('Chivo', 'Call TIEMPO')
"""

from __future__ import annotations

from mesa.games.domino.words import STRINGS as TABLE_STRINGS
from mesa.words import Entry, Plural

_OWN: dict[str, dict[str, Entry]] = {
    "nav.domino": {"es": "Dominó", "en": "Domino"},
    "dom.domino": {"es": "Dominó", "en": "Domino"},
    "dom.title": {"es": "Torneo de dominó", "en": "Domino tournament"},
    "dom.director_title": {"es": "Dominó: dirección", "en": "Domino: direction"},
    "dom.none": {"es": "No hay torneo de dominó.", "en": "No domino tournament."},
    "dom.hand": {"es": "mano {n}", "en": "hand {n}"},
    "dom.last_hand": {"es": "Última mano", "en": "Last hand"},
    "dom.warned": {"es": "amonestado", "en": "warned"},
    "dom.reach": {"es": "Llegar a la mesa:", "en": "Reach the table:"},
    "dom.time_left": {"es": "Tiempo:", "en": "Time:"},
    "dom.wait_tiempo": {"es": "Esperando TIEMPO", "en": "Waiting for TIEMPO"},
    "dom.play_timer": {"es": "Juega {who}:", "en": "{who} to play:"},
    "dom.winner": {"es": "Gana {pair}", "en": "{pair} wins"},
    "dom.how.": {"es": "—", "en": "—"},
    "dom.how.None": {"es": "—", "en": "—"},
    "dom.pairs": {"es": "Parejas", "en": "Pairs"},
    "dom.pair": {"es": "Pareja", "en": "Pair"},
    "dom.round": {"es": "Ronda {n}", "en": "Round {n}"},
    # The pairs tournament's phase (mesa.games.domino.pairs.Phase), as the director reads it.
    "dom.phase.registration": {"es": "inscripción", "en": "registration"},
    "dom.phase.playing": {"es": "en juego", "en": "playing"},
    "dom.phase.closed": {"es": "cerrado", "en": "closed"},
    "dom.rounds": {"es": "Rondas", "en": "Rounds"},
    "dom.table": {"es": "Mesa", "en": "Table"},
    "dom.free_tables": {"es": Plural("{n} mesa", "{n} mesas"),
                        "en": Plural("{n} table", "{n} tables")},
    "dom.game": {"es": "Partida", "en": "Game"},
    "dom.status.assigned": {"es": "asignada", "en": "assigned"},
    "dom.status.playing": {"es": "en juego", "en": "playing"},
    "dom.status.ended": {"es": "terminada", "en": "ended"},
    "dom.bye": {"es": "Descansa: {pair}", "en": "Bye: {pair}"},
    "dom.standings": {"es": "Clasificación", "en": "Standings"},
    "dom.rank": {"es": "Puesto", "en": "Rank"},
    "dom.played": {"es": "Jugadas", "en": "Played"},
    "dom.won": {"es": "Ganadas", "en": "Won"},
    "dom.points": {"es": "Tantos", "en": "Points"},
    "dom.penalties": {"es": "Penalizaciones", "en": "Penalties"},
    "dom.create": {"es": "Crear torneo de dominó", "en": "Create a domino tournament"},
    "dom.name": {"es": "Nombre", "en": "Name"},
    "dom.register_pair": {"es": "Inscribir pareja", "en": "Register a pair"},
    "dom.player_a": {"es": "Jugador 1", "en": "Player 1"},
    "dom.player_b": {"es": "Jugador 2", "en": "Player 2"},
    "dom.start_round": {"es": "Empezar la ronda siguiente", "en": "Start the next round"},
    "dom.tiempo": {"es": "Cantar TIEMPO", "en": "Call TIEMPO"},
    "dom.tiempo_confirm": {
        "es": "¿Cantar TIEMPO en todas las mesas de dominó? Empiezan los 35 minutos.",
        "en": "Call TIEMPO at every domino table? The 35 minutes start.",
    },
    "dom.tiempo_called": {"es": "TIEMPO cantado a las {when}", "en": "TIEMPO called at {when}"},
    "dom.penalty": {"es": "Penalización del juez", "en": "Judge's penalty"},
    "dom.player": {"es": "Jugador", "en": "Player"},
    "dom.reason": {"es": "Motivo", "en": "Reason"},
    "dom.points_override": {
        "es": "Tantos (vacío: los del reglamento)", "en": "Points (empty: the regulation's)"
    },
    "dom.close": {"es": "Cerrar el torneo", "en": "Close the tournament"},
    "dom.close_confirm": {
        "es": "¿Cerrar el torneo «{name}»? No se podrán jugar más rondas ni cambiar resultados.",
        "en": "Close the tournament «{name}»? No more rounds can be played nor results changed.",
    },
    "dom.audit": {"es": "Historial de cambios", "en": "History of changes"},
    "dom.final": {"es": "Lista final de dominó", "en": "Domino final list"},
    "dom.export_csv": {"es": "CSV", "en": "CSV"},
    "dom.export_json": {"es": "JSON", "en": "JSON"},
    "dom.print": {"es": "Imprimir", "en": "Print"},
    "dom.at_table": {"es": "en la mesa", "en": "at the table"},
    "dom.on_hub": {"es": "en el hub", "en": "on the hub"},
    "act.domino_create": {"es": "Crear torneo de dominó", "en": "Create domino tournament"},
    "act.domino_register_pair": {"es": "Inscribir pareja", "en": "Register pair"},
    "act.domino_start_round": {"es": "Empezar ronda de dominó", "en": "Start domino round"},
    "act.domino_tiempo": {"es": "TIEMPO (dominó)", "en": "TIEMPO (domino)"},
    "act.domino_penalty": {"es": "Penalización de dominó", "en": "Domino penalty"},
    "act.domino_absence": {"es": "Ausencia (dominó)", "en": "Absence (domino)"},
    "dom.absence": {"es": "Ausentes al empezar", "en": "Absent at the start"},
    "act.domino_close": {"es": "Cerrar torneo de dominó", "en": "Close domino tournament"},
    # Several domino events at once: the switcher, who sits elsewhere, the refusals said.
    "dom.events": {"es": "Eventos de dominó", "en": "Domino events"},
    "dom.all_open": {"es": "Todos los abiertos", "en": "All open"},
    "dom.event_open": {"es": "abierto", "en": "open"},
    "dom.elsewhere": {"es": "{name} juega en la mesa {table} ({event})",
                      "en": "{name} plays at table {table} ({event})"},
    "dom.busy_now": {"es": "Ocupados en otra mesa ahora:", "en": "At another table now:"},
    "dom.late": {"es": "llegarán tarde: {who}", "en": "they will be late: {who}"},
    "dom.late_now": {"es": "Llegarán tarde (juegan en otra mesa):",
                     "en": "Will be late (playing at another table):"},
    "dom.confirm_late": {
        "es": "Empezar igualmente: quien llegue tarde será penalizado",
        "en": "Start anyway: whoever arrives late is fined",
    },
    "dom.err.players_busy": {
        "es": "{who}. Para empezar la ronda igualmente, marque «Empezar igualmente».",
        "en": "{who}. To start the round anyway, tick «Start anyway».",
    },
    "dom.err.unknown_tournament": {"es": "no hay ningún torneo de dominó «{t}»",
                                   "en": "there is no domino tournament «{t}»"},
    "dom.err.closed": {"es": "el torneo de dominó {t} está cerrado",
                       "en": "the domino tournament {t} is closed"},
    "dom.err.which_tournament": {
        "es": "hay varios torneos de dominó abiertos: elija uno",
        "en": "several domino tournaments are open: choose one",
    },
    # The two formats (RULES §5), chosen when the event is created.
    "dom.format": {"es": "Formato", "en": "Format"},
    "dom.format.pairs": {"es": "parejas fijas", "en": "fixed pairs"},
    "dom.format.individual": {"es": "individual", "en": "individual"},
    # Registering from the registry: several pairs or players in one form.
    "dom.register_pairs": {"es": "Inscribir parejas", "en": "Register pairs"},
    "dom.register_one_pair": {"es": "Una pareja", "en": "One pair"},
    "dom.pick_pairs_hint": {
        "es": "Marque a los jugadores en orden: el 1.º con el 2.º, el 3.º con el 4.º…",
        "en": "Tick the players in order: the 1st with the 2nd, the 3rd with the 4th…",
    },
    "dom.register_ticked_pairs": {"es": "Inscribir estas parejas", "en": "Register these pairs"},
    "dom.register_players": {"es": "Inscribir jugadores", "en": "Register players"},
    "dom.register_ticked": {"es": "Inscribir a los marcados", "en": "Register the ticked"},
    "dom.search": {"es": "Buscar", "en": "Search"},
    "dom.search_placeholder": {"es": "nombre…", "en": "name…"},
    "dom.registry_empty": {"es": "No queda nadie del registro por inscribir.",
                           "en": "Nobody of the registry is left to register."},
    "dom.registered": {"es": Plural("{n} inscrito", "{n} inscritos"),
                       "en": Plural("{n} registered", "{n} registered")},
    "dom.remove": {"es": "Quitar", "en": "Remove"},
    "dom.forming": {"es": "Parejas que se inscribirán:", "en": "Pairs to register:"},
    "dom.players": {"es": "Jugadores", "en": "Players"},
    # The round: who sits where, who rests.
    "dom.seats": {"es": "Asientos", "en": "Seats"},
    "dom.sitout": {"es": "Descansan: {who}", "en": "Sitting out: {who}"},
    # The judge's fine and what the hub's escalation made of it.
    "dom.fine": {"es": "Multa del juez", "en": "Judge's fine"},
    "dom.fine_button": {"es": "Multar", "en": "Fine"},
    "dom.fine_annul": {"es": "Multar y anular la mano", "en": "Fine and annul the hand"},
    "dom.fine_hint": {
        "es": "Hablar y llegar tarde se escalan solos según el registro del jugador.",
        "en": "Talking and late arrivals escalate by themselves from the player's record.",
    },
    "dom.late_title": {"es": "Llegó tarde (mesas sin mano en juego)",
                       "en": "Arrived late (tables with no hand in play)"},
    "dom.late_button": {"es": "llegó tarde", "en": "arrived late"},
    "dom.records": {"es": "Multas y premios", "en": "Fines and awards"},
    "dom.step.talking_first": {"es": "primera vez", "en": "first time"},
    "dom.step.talking_second": {"es": "segunda vez", "en": "second time"},
    "dom.step.talking_third": {"es": "tercera vez", "en": "third time"},
    "dom.step.late_first": {"es": "primera llegada tarde", "en": "first late arrival"},
    "dom.step.late_repeat": {"es": "otra llegada tarde", "en": "late again"},
    "dom.step.absence": {"es": "ausencia", "en": "absence"},
    "dom.step.abandoned": {"es": "abandono", "en": "abandonment"},
    "dom.step.sheet_unsigned": {"es": "hoja sin firmar", "en": "sheet not signed"},
    "dom.step.migrated": {"es": "anotado antes", "en": "recorded before"},
    "dom.said.won_too": {"es": "{points} y una partida ganada", "en": "{points} and a game won"},
    "dom.said.noted": {"es": "anotada a {who}, sin tantos", "en": "noted for {who}, no points"},
    "dom.said.expelled": {"es": "expulsión de {name}", "en": "{name} expelled"},
    "dom.said.annulled": {"es": "mano anulada", "en": "hand annulled"},
    "dom.said.winner": {"es": "gana {side}", "en": "{side} wins"},
    "dom.said.table_warning": {"es": "Aviso: {why}", "en": "Warning: {why}"},
    "dom.reason.late_arrival": {"es": "Llegó tarde", "en": "Arrived late"},
    "dom.reason.absence_award": {"es": "Premio por ausencia", "en": "Award: absence"},
    "dom.reason.abandon_award": {"es": "Premio por abandono", "en": "Award: abandonment"},
    "dom.reason.forfeit_award": {"es": "Premio por expulsión", "en": "Award: expulsion"},
    # The standings' columns (a player's record: RULES §5).
    "dom.hand_points": {"es": "Tantos de mano", "en": "Hand points"},
    "dom.hand_points_short": {"es": "Mano", "en": "Hand"},
    "dom.fines": {"es": "Multas", "en": "Fines"},
    "dom.awards": {"es": "Premios", "en": "Awards"},
    "dom.total": {"es": "Total", "en": "Total"},
    "dom.played_short": {"es": "PJ", "en": "P"},
    "dom.won_short": {"es": "PG", "en": "W"},
    "dom.expelled": {"es": "expulsado", "en": "expelled"},
    # The audit, in words.
    "dom.audit.create": {"es": "Torneo creado: «{name}»", "en": "Tournament created: «{name}»"},
    "dom.audit.register_pair": {"es": "Pareja {pair} inscrita: {who}",
                                "en": "Pair {pair} registered: {who}"},
    "dom.audit.register_player": {"es": "Inscrito: {who}", "en": "Registered: {who}"},
    "dom.audit.remove_pair": {"es": "Pareja {what} quitada", "en": "Pair {what} removed"},
    "dom.audit.remove_player": {"es": "Quitado: {what}", "en": "Removed: {what}"},
    "dom.audit.game_at": {"es": "{game} en la mesa {table}: {who}",
                          "en": "{game} at table {table}: {who}"},
    "dom.audit.start_round": {"es": "Ronda {n}: {games}", "en": "Round {n}: {games}"},
    "dom.audit.rest": {"es": "descansa {who}", "en": "{who} rests"},
    "dom.audit.tiempo": {"es": "TIEMPO de la ronda {n} a las {when}",
                         "en": "TIEMPO for round {n} at {when}"},
    "dom.audit.record_game": {"es": "{game}: {who} {how}, {ns}–{ew} en {hands} manos",
                              "en": "{game}: {who} {how}, {ns}–{ew} in {hands} hands"},
    "dom.audit.late_round": {"es": "La ronda empieza con jugadores en otra mesa: {who}",
                             "en": "The round starts with players at another table: {who}"},
    "dom.audit.close": {"es": "Torneo cerrado tras {n} rondas",
                        "en": "Tournament closed after {n} rounds"},
    "dom.audit.when": {"es": "Hora", "en": "Time"},
    "dom.audit.who": {"es": "Quién", "en": "Who"},
    "dom.audit.what": {"es": "Qué", "en": "What"},
    "act.domino_register_pairs": {"es": "Inscribir parejas", "en": "Register pairs"},
    "act.domino_register_players": {"es": "Inscribir jugadores", "en": "Register players"},
    "act.domino_remove_pair": {"es": "Quitar pareja", "en": "Remove pair"},
    "act.domino_remove_player": {"es": "Quitar jugador", "en": "Remove player"},
    "act.domino_late": {"es": "Llegada tarde (dominó)", "en": "Late arrival (domino)"},
    "dom.err.odd_players": {"es": "marque un número par de jugadores (dos por pareja)",
                            "en": "tick an even number of players (two per pair)"},
    "dom.err.no_players": {"es": "no ha marcado a nadie", "en": "nobody is ticked"},
    "dom.err.wrong_format": {"es": "el torneo {t} no es de ese formato",
                             "en": "the tournament {t} is not of that format"},
    "dom.err.bad_format": {"es": "formato desconocido", "en": "unknown format"},
    "dom.done": {"es": "Hecho: {what}", "en": "Done: {what}"},
    "dom.refused": {"es": "Rechazado: {why}", "en": "Refused: {why}"},
}


def _from_table() -> dict[str, dict[str, Entry]]:
    out: dict[str, dict[str, Entry]] = {}
    es, en = TABLE_STRINGS["es"], TABLE_STRINGS["en"]
    for key in es:
        head, _, rest = key.partition(".")
        if head in ("state", "reason"):
            out[f"dom.{key}"] = {"es": es[key], "en": en.get(key, es[key])}
        elif head == "end":
            out[f"dom.how.{rest}"] = {"es": es[key], "en": en.get(key, es[key])}
    return out


DOMINO_STRINGS: dict[str, dict[str, Entry]] = {**_from_table(), **_OWN}
