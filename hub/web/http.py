"""Small request and response helpers every part of the dashboard uses: the posted form, safe
"next" addresses, the one-shot flash message, the cookies' names.

>>> safe_next("/groups?lang=en"), safe_next("//evil.example/x"), safe_next("https://x/y")
('/groups?lang=en', None, None)
>>> safe_next("http://mesa.local/draw", host="mesa.local")
'/draw'
"""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from mesa.hub.web.paths import path_for

SESSION_COOKIE = "mesa_session"
LANG_COOKIE = "mesa_lang"
FLASH_COOKIE = "mesa_flash"


def wants_json(request: Request) -> bool:
    return request.url.path.endswith(".json") or (
        "application/json" in request.headers.get("accept", "")
        and "text/html" not in request.headers.get("accept", "")
    )


def address(request: Request) -> str:
    return request.client.host if request.client else ""


def jsonable(data: Any) -> Any:
    return json.loads(json.dumps(data, default=str))


async def read_form(request: Request) -> dict[str, Any]:
    """The posted fields, from a urlencoded form or a JSON object (no multipart needed)."""
    body = await request.body()
    if len(body) > 1_000_000:
        return {}
    ctype = request.headers.get("content-type", "")
    if "application/json" in ctype:
        try:
            data = json.loads(body or b"{}")
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}
    try:
        pairs = urllib.parse.parse_qsl(body.decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError:
        return {}
    out: dict[str, Any] = {}
    for key, value in pairs:  # a repeated field (ticked checkboxes) becomes a list
        if key in out:
            before = out[key]
            out[key] = [*before, value] if isinstance(before, list) else [before, value]
        else:
            out[key] = value
    return out


def safe_next(value: Any, host: str | None = None) -> str | None:
    """A local path to go back to; anything pointing elsewhere is dropped (open redirects).

    An absolute URL is accepted only on ``host`` (the Referer of our own pages).
    """
    if not isinstance(value, str) or not value:
        return None
    parts = urllib.parse.urlsplit(value)
    if (parts.scheme or parts.netloc) and (host is None or parts.netloc != host):
        return None
    path = parts.path or "/"
    if not path.startswith("/") or path.startswith("//"):
        return None
    return (
        path
        + ("?" + parts.query if parts.query else "")
        + ("#" + parts.fragment if parts.fragment else "")
    )


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
