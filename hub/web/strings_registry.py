"""The dashboard's words for the club's registry page (rename, merge, remove a player) and the
ranking file's preview; merged into :data:`mesa.hub.web.i18n.STRINGS`.

>>> REGISTRY_STRINGS["reg.merge"]["es"]
'Unir'
"""

from __future__ import annotations

from mesa.words import Entry, Plural

REGISTRY_STRINGS: dict[str, dict[str, Entry]] = {
    # ── actions (flash messages and the audit log) ──
    "act.preview_ranking": {"es": "Vista previa del ranking", "en": "Ranking preview"},
    "act.rename_player": {"es": "Cambiar el nombre", "en": "Rename"},
    "act.merge_players": {"es": "Unir jugadores", "en": "Merge players"},
    "act.remove_player": {"es": "Borrar del registro", "en": "Remove from the registry"},
    "err.bad_text_file": {"es": "el archivo no se puede importar", "en": "the file cannot be imported"},
    "err.player_busy": {"es": "ese jugador no se puede cambiar ahora",
                        "en": "that player cannot be changed now"},
    "err.bad_merge": {"es": "no se pueden unir", "en": "they cannot be merged"},
    "err.player_has_results": {"es": "el jugador tiene resultados", "en": "the player has results"},
    # A refused field, named as the form shows it.
    "form.file": {"es": "archivo (de hasta 15 KB)", "en": "file (up to 15 KB)"},
    "form.drop": {"es": "Ficha que desaparece", "en": "Record that disappears"},
    "form.keep": {"es": "Unir con", "en": "Merge into"},
    # ── the ranking file's preview (tournament page) ──
    "import.preview_title": {"es": "Vista previa: nada se ha creado todavía",
                             "en": "Preview: nothing has been created yet"},
    "import.read_as": {"es": "Archivo leído como {encoding}.", "en": "File read as {encoding}."},
    "import.summary": {
        "es": Plural("{rows} fila: {known} en el registro, {new} nuevos.",
                     "{rows} filas: {known} en el registro, {new} nuevos.", "rows"),
        "en": Plural("{rows} row: {known} in the registry, {new} new.",
                     "{rows} rows: {known} in the registry, {new} new.", "rows"),
    },
    "import.first_rows": {"es": "Primeras filas", "en": "First rows"},
    "import.new_names": {"es": "Se crearán en el registro", "en": "To be created in the registry"},
    "import.col_line": {"es": "Línea", "en": "Line"},
    "import.col_points": {"es": "Puntos", "en": "Points"},
    "import.col_who": {"es": "Jugador", "en": "Player"},
    "import.known": {"es": "en el registro", "en": "in the registry"},
    "import.new": {"es": "nuevo", "en": "new"},
    "import.confirm": {
        "es": "Revise la vista previa y pulse «importar ranking» otra vez para importarlo.",
        "en": "Check the preview and press «import ranking» again to import it.",
    },
    "import.file_hint": {
        "es": "Un CSV de Excel, en UTF-8 o en Windows-1252 (el «CSV delimitado por comas» de "
              "Excel en español): se ve antes de importar.",
        "en": "A CSV from Excel, UTF-8 or Windows-1252 (Spanish Excel's “CSV comma delimited”): "
              "shown before it is imported.",
    },
    # ── the registry page ──
    "nav.registry": {"es": "Jugadores del club", "en": "Club players"},
    "reg.title": {"es": "Jugadores del club", "en": "Club players"},
    "reg.hint": {
        "es": "Cambie un nombre mal escrito, una dos fichas de la misma persona (su historial, "
              "puntos, ranking y tarjetas pasan al que se queda) o borre una ficha sin "
              "resultados. Todo queda en el registro de acciones.",
        "en": "Fix a misspelt name, merge two records of one person (history, points, ranking "
              "and cards go to the one kept) or remove a record with no results. Everything "
              "goes to the audit log.",
    },
    "reg.count": {
        "es": Plural("{n} jugador", "{n} jugadores", "n"),
        "en": Plural("{n} player", "{n} players", "n"),
    },
    "reg.search": {"es": "Buscar", "en": "Search"},
    "reg.col_id": {"es": "Ficha", "en": "Id"},
    "reg.col_cards": {"es": "Tarjetas", "en": "Cards"},
    "reg.col_played": {"es": "Torneos", "en": "Tournaments"},
    "reg.col_ranked": {"es": "Rankings", "en": "Rankings"},
    "reg.new_name": {"es": "Nombre nuevo", "en": "New name"},
    "reg.rename": {"es": "Cambiar", "en": "Rename"},
    "reg.drop": {"es": "Ficha que desaparece", "en": "Record that disappears"},
    "reg.merge_into": {"es": "Unir con", "en": "Merge into"},
    "reg.merge": {"es": "Unir", "en": "Merge"},
    "reg.pick": {"es": "— elija el jugador que se queda —", "en": "— pick the player kept —"},
    "reg.remove": {"es": "Borrar", "en": "Remove"},
    "reg.confirm_merge": {
        "es": "¿Unir este jugador con el elegido? Su historial pasa al elegido y esta ficha "
              "desaparece.",
        "en": "Merge this player into the one picked? His history goes to that one and this "
              "record disappears.",
    },
    "reg.confirm_remove": {"es": "¿Borrar este jugador del registro?",
                           "en": "Remove this player from the registry?"},
    "reg.suspect": {"es": "nombre con caracteres perdidos (�)",
                    "en": "name with lost characters (�)"},
    "reg.empty": {"es": "El registro está vacío.", "en": "The registry is empty."},
}
