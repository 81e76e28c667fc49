"""The dashboard's words for the door (registration, check-in), the draw preview, the table
choice and the first run; merged into :data:`mesa.hub.web.i18n.STRINGS`.

>>> DOOR_STRINGS["door.mark_present"]["es"]
'Marcar presentes'
"""

from __future__ import annotations

from mesa.words import Entry, Plural

DOOR_STRINGS: dict[str, dict[str, Entry]] = {
    # ── actions (flash messages and the audit log) ──
    "act.register_many": {"es": "Inscribir jugadores", "en": "Register players"},
    "act.check_in_many": {"es": "Marcar asistencia", "en": "Mark attendance"},
    "act.check_in_card": {"es": "Tarjeta en el lector", "en": "Card at the reader"},
    "act.undo_groups": {"es": "Deshacer el sorteo", "en": "Undo the draw"},
    "act.redraw_groups": {"es": "Volver a sortear", "en": "Draw again"},
    "act.first_run": {"es": "Primer director creado", "en": "First director created"},
    "err.draw_locked": {
        "es": "el sorteo ya cuenta: hay partidas de esta fase empezadas o con resultado",
        "en": "the draw counts already: matches of this phase have started or have a result",
    },
    "err.preview_stale": {
        "es": "la asistencia cambió desde la vista previa",
        "en": "attendance changed since the preview",
    },
    # ── the door ──
    # Four counts in one sentence: each is its own plural, the sentence joins them.
    "door.registered": {
        "es": "{added} ({created}), {already}, {refused}",
        "en": "{added} ({created}), {already}, {refused}",
    },
    "door.n_registered": {"es": Plural("{n} inscrito", "{n} inscritos"),
                          "en": Plural("{n} registered", "{n} registered")},
    "door.n_new": {"es": Plural("{n} nuevo en el registro", "{n} nuevos en el registro"),
                   "en": Plural("{n} new to the registry", "{n} new to the registry")},
    "door.n_already": {"es": Plural("{n} ya estaba", "{n} ya estaban"),
                       "en": Plural("{n} already in", "{n} already in")},
    "door.n_refused": {"es": Plural("{n} rechazado", "{n} rechazados"),
                       "en": Plural("{n} refused", "{n} refused")},
    "door.marked": {"es": Plural("{n} marcado presente", "{n} marcados presentes"),
                    "en": Plural("{n} marked present", "{n} marked present")},
    "door.marked_absent": {"es": Plural("{n} marcado ausente", "{n} marcados ausentes"),
                           "en": Plural("{n} marked absent", "{n} marked absent")},
    "door.unknown_card": {
        "es": "Tarjeta desconocida: {card}. Asígnela a un jugador en el registro.",
        "en": "Unknown card: {card}. Assign it to a player in the registry.",
    },
    "door.card_ok": {"es": "{name}: presente", "en": "{name}: present"},
    "door.preview_stale": {
        "es": "La asistencia cambió desde la vista previa: revise el sorteo otra vez.",
        "en": "Attendance changed since the preview: look at the draw again.",
    },
    "door.confirm_absent_needed": {
        "es": "Confirme que los ausentes quedan fuera del sorteo.",
        "en": "Confirm that the absent players are left out of the draw.",
    },
    "door.started": {
        "es": Plural(Plural("{groups} grupo (semilla {seed}), {out} ausente fuera",
                            "{groups} grupo (semilla {seed}), {out} ausentes fuera", "out"),
                     Plural("{groups} grupos (semilla {seed}), {out} ausente fuera",
                            "{groups} grupos (semilla {seed}), {out} ausentes fuera", "out"),
                     "groups"),
        "en": Plural("{groups} group (seed {seed}), {out} absent left out",
                     "{groups} groups (seed {seed}), {out} absent left out", "groups"),
    },
    "door.undone": {
        "es": "sorteo (semilla {seed}) deshecho: inscripción abierta otra vez",
        "en": "draw (seed {seed}) undone: registration is open again",
    },
    "door.redrawn": {"es": "nuevo sorteo, semilla {seed}", "en": "new draw, seed {seed}"},
    "door.present_n": {"es": "Presentes: {n}", "en": "Present: {n}"},
    "door.absent_n": {"es": "Sin llegar: {n}", "en": "Not here: {n}"},
    "door.total_n": {"es": "Inscritos: {n}", "en": "Registered: {n}"},
    "door.paste_title": {"es": "Pegar una lista", "en": "Paste a list"},
    "door.paste_label": {
        "es": "Un nombre por línea (se buscan en el registro sin mirar acentos ni mayúsculas; "
        "los que no están se crean)",
        "en": "One name a line (matched in the registry ignoring accents and case; "
        "new names are created)",
    },
    "door.paste_placeholder": {"es": "Ana Pérez\nBruno Díaz", "en": "Ana Pérez\nBruno Díaz"},
    "door.register_listed": {"es": "Inscribir la lista", "en": "Register the list"},
    "door.pick_title": {"es": "Elegir del registro", "en": "Pick from the registry"},
    "door.search": {"es": "Buscar", "en": "Search"},
    "door.search_placeholder": {"es": "escriba parte del nombre", "en": "type part of a name"},
    "door.registry_empty": {
        "es": "Todos los jugadores del registro están inscritos.",
        "en": "Every player in the registry is registered.",
    },
    "door.register_ticked": {"es": "Inscribir los marcados", "en": "Register the ticked"},
    "door.all_ranked": {
        "es": "Todos los del ranking ({n})",
        "en": "Everyone in the ranking ({n})",
    },
    "door.card": {"es": "Tarjeta de socio", "en": "Member card"},
    "door.card_placeholder": {"es": "pase la tarjeta por el lector", "en": "swipe the card"},
    "door.card_submit": {"es": "Presente", "en": "Present"},
    "door.mark_present": {"es": "Marcar presentes", "en": "Mark present"},
    "door.mark_absent": {"es": "Marcar ausentes", "en": "Mark absent"},
    "door.all_present": {"es": "Todos presentes", "en": "Everyone present"},
    "door.tick_all": {"es": "Marcar todos", "en": "Tick all"},
    "door.preview_hint": {
        "es": "Primero se ve el sorteo: quién entra, quién queda fuera y los grupos. "
        "Nada cuenta hasta confirmarlo.",
        "en": "You see the draw first: who is in, who is left out and the groups. "
        "Nothing counts until you confirm it.",
    },
    "door.see_draw": {"es": "Ver el sorteo", "en": "See the draw"},
    "door.undo_hint": {
        "es": "Sorteo hecho (semilla {seed}). Se puede repetir o deshacer hasta que empiece "
        "la primera partida.",
        "en": "Draw made (seed {seed}). It can be redrawn or undone until the first match "
        "starts.",
    },
    "door.confirm_redraw": {
        "es": "¿Sortear los grupos otra vez? El sorteo actual queda en el registro.",
        "en": "Draw the groups again? The current draw stays in the log.",
    },
    "door.confirm_undo": {
        "es": "¿Deshacer el sorteo y volver a la inscripción?",
        "en": "Undo the draw and go back to registration?",
    },
    "door.draw_locked": {
        "es": "El sorteo ya cuenta (la partida {match} empezó o tiene resultado).",
        "en": "The draw counts already (match {match} has started or has a result).",
    },
    # ── the draw preview ──
    "preview.title": {"es": "Vista previa del sorteo", "en": "Draw preview"},
    "preview.not_now": {
        "es": "Los grupos ya están sorteados (o no hay torneo en inscripción).",
        "en": "The groups are drawn already (or no tournament is in registration).",
    },
    "preview.in": {"es": Plural("Entra {n} jugador", "Entran {n} jugadores"),
                   "en": Plural("{n} player in", "{n} players in")},
    "preview.groups_n": {"es": Plural("{n} grupo", "{n} grupos"),
                         "en": Plural("{n} group", "{n} groups")},
    "preview.left_out": {
        "es": Plural("Queda fuera {n} (no marcado presente):",
                     "Quedan fuera {n} (no marcados presentes):"),
        "en": Plural("{n} left out (not marked present):", "{n} left out (not marked present):"),
    },
    "preview.no_checkin": {
        "es": "Nadie está marcado presente: entran todos los inscritos.",
        "en": "Nobody is marked present: every registered player is in.",
    },
    "preview.all_present": {"es": "Todos los inscritos están presentes.", "en": "Everyone is here."},
    "preview.confirm_absent": {
        "es": "Sí, dejar fuera a los ausentes ({n})",
        "en": "Yes, leave out the absent ({n})",
    },
    "preview.start": {"es": "Empezar los grupos con este sorteo", "en": "Start the groups"},
    "preview.another": {"es": "Otro sorteo", "en": "Another draw"},
    "preview.back": {"es": "Volver a la puerta", "en": "Back to the door"},
    "preview.knockout_title": {
        "es": "Cuadro final si los grupos acabaran ahora",
        "en": "Knockout if the groups ended now",
    },
    "preview.knockout_final": {
        "es": "Cuadro final que dan los grupos",
        "en": "Knockout the groups give",
    },
    "preview.ko_in": {"es": "Entran", "en": "In"},
    "preview.ko_out": {"es": "Quedan fuera ({n})", "en": "Left out ({n})"},
    # ── choosing a table ──
    "assign.offline": {
        "es": "la mesa {table} está desconectada: ¿asignar igualmente?",
        "en": "table {table} is offline: assign anyway?",
    },
    "assign.busy": {
        "es": "la mesa {table} está ocupada: ¿asignar igualmente?",
        "en": "table {table} is busy: assign anyway?",
    },
    "assign.offline_short": {"es": "desconectada", "en": "offline"},
    "assign.busy_short": {"es": "ocupada", "en": "busy"},
    # ── the first run ──
    "first.title": {"es": "Crear el director", "en": "Create the director"},
    "first.intro": {
        "es": "Este hub aún no tiene cuenta de director. Créela ahora; esta página deja de "
        "funcionar en cuanto exista una.",
        "en": "This hub has no director account yet. Create it now; this page stops working "
        "as soon as one exists.",
    },
    "first.code": {
        "es": "Código de un solo uso (lo muestra la consola del hub)",
        "en": "One-time code (shown on the hub's console)",
    },
    "first.again": {"es": "Repita la contraseña", "en": "Password again"},
    "first.submit": {"es": "Crear el director", "en": "Create the director"},
    "first.cli": {"es": "También desde la consola del hub:", "en": "Or on the hub's console:"},
    "first.closed": {
        "es": "Ya existe un director: esta página no se usa más.",
        "en": "A director exists already: this page is closed.",
    },
    "first.bad_code": {"es": "Código incorrecto.", "en": "Wrong code."},
    "first.short": {
        "es": "La contraseña necesita al menos {n} caracteres.",
        "en": "The password needs at least {n} characters.",
    },
    "first.mismatch": {"es": "Las contraseñas no coinciden.", "en": "The passwords differ."},
    "first.done": {
        "es": "Director {user} creado. Entre con su contraseña.",
        "en": "Director {user} created. Log in with the password.",
    },
    "first.login_note": {
        "es": "Este hub aún no tiene director (o créelo con «mesa director-password»):",
        "en": "This hub has no director yet (or create one with `mesa director-password`):",
    },
}
