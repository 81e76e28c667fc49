"""Reading a request: does it want JSON, who sent it, its posted form, a safe "next" address.

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


def wants_json(request: Request) -> bool:
    return request.url.path.endswith(".json") or (
        "application/json" in request.headers.get("accept", "")
        and "text/html" not in request.headers.get("accept", "")
    )


def address(request: Request) -> str:
    return request.client.host if request.client else ""


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
