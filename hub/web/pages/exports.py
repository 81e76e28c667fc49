"""Exports: CSV and JSON, the "ASÍ QUEDÓ EL TORNEO" list, and the static HTML snapshot.

Spanish exports use ``;`` and the decimal comma (what a Spanish spreadsheet opens as is); English
ones ``,`` and the point. The static snapshot is the public pages rendered once, with relative
links and the stylesheet, zipped for the club's website.

>>> matches_csv_rows([], "es")
[['partida', 'fase', 'ronda', 'grupo', 'mesa', 'blancas', 'negras', 'puntos_blancas', 'puntos_negras', 'incomparecencia', 'estado', 'anotado_por']]
"""

from __future__ import annotations

import io
import json
import re
import urllib.parse
import zipfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mesa.hub.web.events import chosen_event, event_param
from mesa.hub.web.http.paths import EXPORTS, STATIC, STATIC_PAGES
from mesa.hub.web.i18n import Translator
from mesa.hub.web.pages.tournament import Pages
from mesa.hub.web.pages.views import match_view
from mesa.hub.web.site import Page, Site
from mesa.tournament.csv_cells import csv_writer
from mesa.tournament.exports import final_list_csv, final_list_text, standings_csv
from mesa.tournament.exports import tournament_summary as engine_summary
from mesa.tournament.ranking_csv import export_ranking
from mesa.tournament.tournament import Tournament

MATCH_HEADERS = {
    "es": [
        "partida",
        "fase",
        "ronda",
        "grupo",
        "mesa",
        "blancas",
        "negras",
        "puntos_blancas",
        "puntos_negras",
        "incomparecencia",
        "estado",
        "anotado_por",
    ],
    "en": [
        "match",
        "phase",
        "round",
        "group",
        "table",
        "white",
        "black",
        "white_points",
        "black_points",
        "forfeit",
        "status",
        "recorded_by",
    ],
}


def matches_csv_rows(matches: list[Any], lang: str) -> list[list[Any]]:
    yes, no = ("sí", "no") if lang == "es" else ("yes", "no")
    rows: list[list[Any]] = [MATCH_HEADERS[lang]]
    for m in matches:
        rows.append(
            [
                m["id"],
                m["phase"],
                m["round"],
                m["group"] or "",
                m["table"] or "",
                (m["a"] or {}).get("name", ""),
                (m["b"] or {}).get("name", ""),
                "" if m["score"] is None else m["score"][0],
                "" if m["score"] is None else m["score"][1],
                yes if m["forfeit"] else no,
                m["status_name"],
                m["recorded_by"] or "",
            ]
        )
    return rows


def _csv(rows: list[list[Any]], lang: str) -> str:
    buf = io.StringIO()
    csv_writer(buf, ";" if lang == "es" else ",").writerows(rows)  # formulas neutralised
    return buf.getvalue()


BOM = "\ufeff"


def _attachment(body: str | bytes, filename: str, media_type: str) -> Response:
    # Excel reads a CSV without a byte-order mark in the machine's code page (Windows-1252 in
    # Spain): "Elena MuÃ±iz". With the mark it reads UTF-8; every other reader skips it.
    if media_type == "text/csv" and isinstance(body, str) and not body.startswith(BOM):
        body = BOM + body
    if media_type.startswith("text/"):
        media_type += "; charset=utf-8"
    return Response(
        body,
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


class Exports:
    """``/exports/<name>``, the static site, and publishing it into ``publish_dir``."""

    def __init__(self, site: Site, pages: Pages) -> None:
        self.site = site
        self.pages = pages

    def routes(self) -> list[Route]:
        return [Route("/exports/{name}", self.export, name="export")]

    async def export(self, request: Request) -> Response:
        web = self.site
        name = request.path_params["name"]
        lang = web.lang_of(request)
        tr = Translator(lang)
        if name not in {e[0] for e in EXPORTS}:
            return JSONResponse({"error": "not_found"}, status_code=404)
        tid = event_param(request)
        if tid is not None and not await web.read(lambda club: tid in club.tournaments):
            return JSONResponse(
                {"error": "not_found", "message": tr("app.not_found_text")}, status_code=404
            )
        if name == "site.zip":
            data = await self.static_site(lang, tid)
            return _attachment(
                data, "resultados.zip" if lang == "es" else "results.zip", "application/zip"
            )
        kind = request.query_params.get("kind", "annual")
        year_text = request.query_params.get("year", "")

        def build(club: Any) -> tuple[str, str, str] | None:
            t: Tournament | None = chosen_event(club, tid)
            if name == "ranking.csv":
                year = (
                    int(year_text)
                    if year_text.isdigit()
                    else (t.held_on.year if t is not None else datetime.now().year)
                )
                # the category asked for, else the event's (the novatos' ranking for theirs)
                category = request.query_params.get("category") or (
                    t.category if t is not None else "open"
                )
                cat = "novatos" if category == "novatos" else "open"
                ranking = (
                    club.historic_ranking(cat) if kind == "historic" else club.annual_ranking(year, cat)
                )
                stem = f"ranking-{kind}-{year}" + ("-novatos" if cat == "novatos" else "")
                return export_ranking(ranking, lang), f"{stem}.csv", "text/csv"
            if t is None:
                return None
            stem = t.id
            if name == "final.csv":
                return final_list_csv(t, lang), f"{stem}-final.csv", "text/csv"
            if name == "final.txt":
                return final_list_text(t, lang), f"{stem}-asi-quedo.txt", "text/plain"
            if name == "standings.csv":
                return standings_csv(t, lang), f"{stem}-grupos.csv", "text/csv"
            if name == "matches.csv":
                ms = [match_view(t, m, lang) for m in t.matches.values()]
                return _csv(matches_csv_rows(ms, lang), lang), f"{stem}-partidas.csv", "text/csv"
            body = json.dumps(engine_summary(t, lang), ensure_ascii=False, indent=2, default=str)
            return body, f"{stem}.json", "application/json"

        got = await web.read(build)
        if got is None:
            return JSONResponse(
                {"error": "no_tournament", "message": tr("app.no_tournament")}, status_code=404
            )
        body, filename, media = got
        return _attachment(body, filename, media)

    async def publish_static(self, tournament_id: str) -> str | None:
        """Write the static results into ``publish_dir`` (if set); returns the folder."""
        folder = self.site.settings.publish_dir
        if folder is None:
            return None
        data = await self.static_site(self.site.settings.language, tournament_id)
        # The folder is named after the id, never led out of publish_dir by it (ids made
        # before ids were checked may hold anything).
        name = re.sub(r"[^A-Za-z0-9._-]", "_", tournament_id).strip(".") or "torneo"
        target = Path(folder) / name
        if Path(folder).resolve() not in target.resolve().parents:
            raise ValueError(f"{tournament_id[:40]!r}: not a folder inside publish_dir")
        target.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            z.extractall(target)
        return str(target)

    async def static_site(self, lang: str, tournament_id: str | None = None) -> bytes:
        """One event's public pages (the default one without an id) as plain HTML files with
        relative links, zipped."""
        return await static_site(self.site, self.pages, lang, tournament_id)


async def static_site(
    web: Site, handlers_of: Pages, lang: str, tournament_id: str | None = None
) -> bytes:
    """One event's public pages as plain HTML files with relative links, zipped: every page
    is asked for that event (``t``), so a second open event never slips into the results."""
    pages: dict[str, bytes] = {}
    if tournament_id is None:
        default = await web.read(lambda club: chosen_event(club, None))
        tournament_id = None if default is None else default.id

    def fake_request(path: str, query: str = "") -> Request:
        if tournament_id is not None:
            query = "&".join(q for q in (query, urllib.parse.urlencode({"t": tournament_id})) if q)
        return Request(
            {
                "type": "http",
                "method": "GET",
                "path": path,
                "query_string": query.encode(),
                "headers": [],
                "path_params": {},
            }
        )

    # The published results: no live tables (a snapshot of them would be stale at once).
    handlers: dict[str, Callable[..., Any]] = {
        "final": handlers_of.page_final,
        "groups": handlers_of.page_groups,
        "draw": handlers_of.page_draw,
        "consolation": handlers_of.page_consolation,
        "players": handlers_of.page_players,
    }
    for name, handler in handlers.items():
        page = await handler(fake_request("/" + name), lang)
        pages[STATIC_PAGES[name]] = _static_page(web, page, lang)
    for kind in ("tournament", "annual", "historic", "rating"):
        page = await handlers_of.page_rankings(fake_request("/rankings", f"kind={kind}"), lang)
        file = "rankings.html" if kind == "tournament" else f"rankings-{kind}.html"
        pages[file] = _static_page(web, page, lang)
    player_ids = await web.read(lambda club: [p.id for p in club.registry])
    for pid in player_ids:
        req = fake_request(f"/players/{pid}")
        req.scope["path_params"] = {"id": pid}
        page = await handlers_of.page_player(req, lang)
        pages[f"player-{pid}.html"] = _static_page(web, page, lang)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for file, body in pages.items():
            z.writestr(file, body)
        z.write(STATIC / "mesa.css", "mesa.css")
    return buf.getvalue()


def _static_page(web: Site, page: Page, lang: str) -> bytes:
    ctx = web.base_context(None, lang, section=page.section, title=page.title, static_site=True)
    ctx.update(page.data)
    ctx["data"] = page.data
    ctx["now_iso"] = datetime.now().isoformat(timespec="minutes")
    return web.render(page.template, ctx).encode("utf-8")
