"""What every answer of the dashboard may carry: the cookies' names, the one-shot flash message,
the language cookie, a refused POST (JSON for scripts, else back with a flash), JSON-safe data.

>>> jsonable({"at": __import__("datetime").date(2025, 3, 7)})
{'at': '2025-03-07'}
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from mesa.hub.web.http.paths import path_for
from mesa.hub.web.http.request import safe_next, wants_json

SESSION_COOKIE = "mesa_session"
LANG_COOKIE = "mesa_lang"
FLASH_COOKIE = "mesa_flash"


def jsonable(data: Any) -> Any:
    return json.loads(json.dumps(data, default=str))


def set_flash(resp: Response, level: str, text: str) -> None:
    payload = urllib.parse.quote(json.dumps({"level": level, "text": text}))
    resp.set_cookie(FLASH_COOKIE, payload, max_age=60, path="/", samesite="strict", httponly=True)


def read_flash(request: Request) -> list[dict[str, str]]:
    raw = request.cookies.get(FLASH_COOKIE)
    if not raw:
        return []
    try:
        data = json.loads(urllib.parse.unquote(raw))
        return [{"level": str(data["level"]), "text": str(data["text"])[:1000]}]
    except (ValueError, KeyError, TypeError):
        return []


def set_lang_cookie(resp: Response, lang: str, *, secure: bool) -> None:
    resp.set_cookie(
        LANG_COOKIE, lang, max_age=365 * 24 * 3600, path="/", samesite="lax", secure=secure
    )


def refuse(request: Request, lang: str, code: str, message: str, status: int) -> Response:
    """A refused POST: JSON for scripts, else back where it came from with a flash message."""
    if wants_json(request) or request.headers.get("x-csrf-token") is not None:
        return JSONResponse({"ok": False, "error": code, "message": message}, status_code=status)
    back = safe_next(request.headers.get("referer"), request.headers.get("host")) or path_for(
        "director"
    )
    if code == "login_required":
        back = path_for("login", next=back)
    resp = RedirectResponse(back, status_code=303)
    set_flash(resp, "error", message)
    return resp
