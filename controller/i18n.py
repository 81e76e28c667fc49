"""Every string the table shows, in Spanish (the default, HGV 1.6) and English.

>>> text("es", "menu.resume"), text("en", "menu.resume")
('Reanudar', 'Resume')
>>> text("es", "cube.offer", name="Ana", value=2)
'Ana dobla a 2'
>>> text("fr", "menu.resume")        # an unknown language falls back to Spanish
'Reanudar'

Keys are grouped by where they appear. A test checks that both languages have the same keys and
the same ``{placeholders}``; nothing else in the controller spells out a user-facing string.
"""

from __future__ import annotations

import string
from typing import Any

DEFAULT_LANGUAGE = "es"
LANGUAGES: tuple[str, ...] = ("es", "en")

STRINGS: dict[str, dict[str, str]] = {
    "es": {
        # ── idle and check-in ──
        "idle.title": "Mesa {table}",
        "idle.no_match": "Sin partido",
        "checkin.match": "{match} · a {length}",
        "checkin.prompt": "Pulsa tu botón",
        "checkin.prompt_card": "o pasa tu tarjeta",
        "checkin.late_point": "{name} +1 en {time}",
        "checkin.late_score": "Retraso {a}-{b}",
        # ── the match ──
        "score.length": "a {length}",
        "score.line": "{a}-{b} a {length}",
        "untimed": "Sin reloj",
        "crawford.crawford": "CRAWFORD",
        "crawford.post": "POST-CRAWFORD",
        "crawford.dmp": "DMP",
        "info.match": "Juego {game} · partido a {length}",
        "info.cube_centre": "Cubo en el centro",
        "info.cube_owned": "Cubo en {value}, de {name}",
        "info.cube_dead": "Nadie puede doblar",
        "between.prompt": "Juego {game}",
        "between.prompt2": "Un dado cada uno",
        "between.prompt3": "Pulsa quien saque menos",
        "cube.offer": "{name} dobla a {value}",
        "cube.take": "pulsa: acepta",
        "cube.pass": "mantén: pasa",
        "over.title": "{match} · terminado",
        "over.winner": "Gana {name}",
        "over.score": "{a}-{b}",
        "over.how.score": "",
        "over.how.timeout": "por tiempo",
        "over.how.lateness": "por retraso",
        "over.how.penalty": "por penalización",
        "over.how.forfeit": "por incomparecencia",
        "over.how.director": "decisión del árbitro",
        "over.next": "Siguiente: {match} · pulsa",
        # ── pause and menus ──
        "pause.title": "PAUSA: {reason}",
        "pause.by_director": "PAUSA (árbitro): {reason}",
        "pause.hint": "pulsa=otra mantén=sí",
        "reason.unspecified": "parado",
        "reason.game_over": "fin del juego",
        "reason.concession": "abandono",
        "reason.break": "descanso",
        "reason.fallen_die": "dado caído",
        "reason.dispute": "disputa",
        "reason.director": "árbitro",
        "reason.timeout": "tiempo agotado",
        "menu.resume": "Reanudar",
        "menu.game_over": "Fin del juego",
        "menu.concession": "Abandono",
        "menu.break": "Descanso",
        "menu.fallen_die": "Dado caído",
        "menu.dispute": "Disputa",
        "menu.director": "Llamar al árbitro",
        "menu.back": "Volver",
        "menu.result": "Gana {name}: {kind} ({points})",
        "kind.1": "sencilla",
        "kind.2": "gammon",
        "kind.3": "backgammon",
        "result.title": "RESULTADO",
        "result.title_concession": "ABANDONO",
        "result.claim": "¿Gana {winner} +{points}?",
        "result.answer": "{name}: mantén=sí",
        "result.reject": "pulsa=no",
        # ── banners and notices ──
        "banner.restored": "RESTAURADO",
        "banner.restored_problems": "RESTAURADO ({count} ERR)",
        "banner.director": "ÁRBITRO LLAMADO",
        "banner.flag": "¡BANDERA! {name}",
        "notice.unknown_card": "Tarjeta desconocida\n{card}",
        "notice.card_garbage": "Lectura ilegible",
        "notice.reader_missing": "Lector desconectado",
        "notice.hub_offline": "Sin conexión al hub",
        "refusal.crawford": "No se puede doblar\nen el Crawford",
        "refusal.double_match_point": "No se puede doblar\nen DMP",
        "notice.disk_full": "Disco lleno",
    },
    "en": {
        "idle.title": "Table {table}",
        "idle.no_match": "No match",
        "checkin.match": "{match} · to {length}",
        "checkin.prompt": "Press your button",
        "checkin.prompt_card": "or swipe your card",
        "checkin.late_point": "{name} +1 in {time}",
        "checkin.late_score": "Lateness {a}-{b}",
        "score.length": "to {length}",
        "score.line": "{a}-{b} to {length}",
        "untimed": "No clock",
        "crawford.crawford": "CRAWFORD",
        "crawford.post": "POST-CRAWFORD",
        "crawford.dmp": "DMP",
        "info.match": "Game {game} · match to {length}",
        "info.cube_centre": "Cube in the centre",
        "info.cube_owned": "Cube on {value}, {name}'s",
        "info.cube_dead": "Nobody may double",
        "between.prompt": "Game {game}",
        "between.prompt2": "One die each",
        "between.prompt3": "The lower roll presses",
        "cube.offer": "{name} doubles to {value}",
        "cube.take": "press: take",
        "cube.pass": "hold: pass",
        "over.title": "{match} · over",
        "over.winner": "{name} wins",
        "over.score": "{a}-{b}",
        "over.how.score": "",
        "over.how.timeout": "on time",
        "over.how.lateness": "by lateness",
        "over.how.penalty": "by penalty points",
        "over.how.forfeit": "by forfeit",
        "over.how.director": "director's decision",
        "over.next": "Next: {match} · press",
        "pause.title": "PAUSED: {reason}",
        "pause.by_director": "PAUSED (director): {reason}",
        "pause.hint": "press=next hold=yes",
        "reason.unspecified": "stopped",
        "reason.game_over": "game over",
        "reason.concession": "concession",
        "reason.break": "break",
        "reason.fallen_die": "fallen die",
        "reason.dispute": "dispute",
        "reason.director": "director",
        "reason.timeout": "time out",
        "menu.resume": "Resume",
        "menu.game_over": "Game over",
        "menu.concession": "Concede",
        "menu.break": "Break",
        "menu.fallen_die": "Fallen die",
        "menu.dispute": "Dispute",
        "menu.director": "Call the director",
        "menu.back": "Back",
        "menu.result": "{name} wins: {kind} ({points})",
        "kind.1": "single",
        "kind.2": "gammon",
        "kind.3": "backgammon",
        "result.title": "RESULT",
        "result.title_concession": "CONCESSION",
        "result.claim": "{winner} wins +{points}?",
        "result.answer": "{name}: hold=yes",
        "result.reject": "press=no",
        "banner.restored": "RESTORED",
        "banner.restored_problems": "RESTORED ({count} ERR)",
        "banner.director": "DIRECTOR CALLED",
        "banner.flag": "FLAG! {name}",
        "notice.unknown_card": "Unknown card\n{card}",
        "notice.card_garbage": "Unreadable card data",
        "notice.reader_missing": "Card reader unplugged",
        "notice.hub_offline": "Hub not reachable",
        "refusal.crawford": "No doubling in\nthe Crawford game",
        "refusal.double_match_point": "No doubling at\ndouble match point",
        "notice.disk_full": "Disk full",
    },
}


def text(language: str | None, key: str, **values: Any) -> str:
    """The string ``key`` in ``language`` (Spanish when unknown), with ``values`` filled in."""
    table = STRINGS.get(language or DEFAULT_LANGUAGE) or STRINGS[DEFAULT_LANGUAGE]
    template = table.get(key)
    if template is None:
        template = STRINGS[DEFAULT_LANGUAGE][key]  # KeyError names the missing key
    return template.format(**values) if values else template


def placeholders(template: str) -> set[str]:
    """The ``{names}`` a template expects (used by the consistency test).

    >>> sorted(placeholders("{a}-{b} a {length}"))
    ['a', 'b', 'length']
    """
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}
