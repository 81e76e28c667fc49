"""Where things are: the dashboard's URL paths, the static site's file names, the exports on
offer, and the package's template and static folders.

>>> path_for("player", id="P0001"), path_for("rankings", kind="annual")
('/players/P0001', '/rankings?kind=annual')
>>> [e["name"] for e in export_list("es")][:3]
['final.csv', 'final.txt', 'standings.csv']
"""

from __future__ import annotations

import urllib.parse
from pathlib import Path
from typing import Any

from mesa.hub.web.i18n import Translator

# The templates and the static files stay beside app.py (hub/web/), where Jinja and the routes
# have always found them.
HERE = Path(__file__).parent.parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"

ROUTE_PATHS: dict[str, str] = {
    "home": "/",
    "live": "/live",
    "groups": "/groups",
    "draw": "/draw",
    "draw_print": "/draw/print",
    "consolation": "/consolation",
    "rankings": "/rankings",
    "players": "/players",
    "player": "/players/{id}",
    "calls": "/llamadas",
    "players_qr": "/players/qr",
    "player_qr": "/players/{id}/qr.svg",
    "player_next": "/players/{id}/next",
    "final": "/final",
    "exports": "/exports",
    "login": "/login",
    "logout": "/logout",
    "director": "/director",
    "director_tournament": "/director/tournament",
    "director_audit": "/director/audit",
    "director_players": "/director/players",
    "director_preview": "/director/draw-preview",
    "first_run": "/first-run",
    "director_enrolments": "/director/enrolments",
    "director_table": "/director/tables/{id}",
    "director_match": "/director/matches/{id}",
    "action": "/director/actions/{name}",
    "events": "/events",
    # the domino pairs tournament (mesa.hub.web.games.domino)
    "domino": "/domino",
    "director_domino": "/director/domino",
    "domino_action": "/director/domino/actions/{name}",
    "domino_final_csv": "/domino/final.csv",
    "domino_final_json": "/domino/final.json",
    "domino_final_print": "/domino/final/print",
}

# Pages of the static snapshot for the club's website: page → file name.
STATIC_PAGES = {
    "final": "index.html",
    "groups": "groups.html",
    "draw": "draw.html",
    "consolation": "consolation.html",
    "rankings": "rankings.html",
    "players": "players.html",
}

EXPORTS: tuple[tuple[str, str, str], ...] = (
    # file name, label key, media type
    ("final.csv", "exp.final", "text/csv"),
    ("final.txt", "exp.final", "text/plain"),
    ("standings.csv", "exp.standings", "text/csv"),
    ("matches.csv", "exp.matches", "text/csv"),
    ("ranking.csv", "exp.rankings", "text/csv"),
    ("tournament.json", "exp.json", "application/json"),
    ("site.zip", "exp.static", "application/zip"),
)


def path_for(route: str, /, **params: Any) -> str:
    """``path_for("player", id="P0001")`` → ``/players/P0001``; extra params become the query."""
    template = ROUTE_PATHS[route]
    path_params = {k: v for k, v in params.items() if "{" + k + "}" in template}
    query = {k: v for k, v in params.items() if k not in path_params and v is not None}
    path = template.format(
        **{k: urllib.parse.quote(str(v), safe="") for k, v in path_params.items()}
    )
    if query:
        path += "?" + urllib.parse.urlencode(query)
    return path


def export_list(lang: str) -> list[dict[str, str]]:
    """What the exports page offers (and its JSON twin lists)."""
    tr = Translator(lang)
    return [
        {
            "name": name,
            "label": tr(label),
            "href": f"/exports/{name}?lang={lang}",
            "media_type": media,
        }
        for name, label, media in EXPORTS
    ]
