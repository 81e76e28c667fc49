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
    "dom.title": {"es": "Torneo de dominó por parejas", "en": "Domino pairs tournament"},
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
    "dom.audit": {"es": "Registro", "en": "Audit"},
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
