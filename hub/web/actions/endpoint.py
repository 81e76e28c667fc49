"""The one endpoint every director's action goes through, for every game: the director's door
(:func:`~mesa.hub.web.http.guard.director_post`: session, origin, CSRF), the declared fields
(:func:`~mesa.hub.web.actions.registry.parse_fields`), the run, one line in the audit log, and
the answer (JSON for scripts; else back to the page with a flash message).

    ActionEndpoint(site, publish_static, actions={**ACTIONS, **DOOR_ACTIONS})   # backgammon
    ActionEndpoint(site, actions=domino_actions(desk), home="director_domino", prefix="domino_")

An action either does everything it says or nothing: tournament actions run on the desk's thread
and are rolled back from the store if the engine refuses; table actions are commands the table
itself accepts or refuses (its answer is awaited). Either way the audit log records who, what,
on what, why, and how it went. Refused, the answer is always ``{"ok": false, "error": <code>,
"message": <in the director's language>}``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from mesa.errors import RuleError
from mesa.hub.web.actions.registry import (
    Action,
    BadField,
    Context,
    Refused,
    field_label,
    parse_fields,
    refusal_from,
)
from mesa.hub.web.http.guard import director_post
from mesa.hub.web.http.paths import path_for
from mesa.hub.web.http.request import address, safe_next, wants_json
from mesa.hub.web.http.response import refuse, set_flash
from mesa.hub.web.i18n import STRINGS, Translator
from mesa.hub.web.site import Site
from mesa.tournament.errors import TournamentError

# Long texts are counted in the audit log, not copied into it.
COUNTED_TEXTS = ("csv", "names", "file")


class ActionEndpoint:
    """``POST <route>/{name}`` for ``actions``; ``publish_static`` writes the results on
    ``close``. ``home`` is the route a form goes back to when it names no page and sent no
    Referer; ``prefix`` starts the name the audit log and the messages use (``domino_`` makes
    ``tiempo`` the audit's ``domino_tiempo``, said ``act.domino_tiempo``)."""

    def __init__(
        self,
        site: Site,
        publish_static: Callable[[str], Awaitable[str | None]] | None = None,
        actions: Mapping[str, Action] | None = None,
        *,
        home: str = "director",
        prefix: str = "",
    ) -> None:
        self.site = site
        self.publish_static = publish_static
        self.actions: dict[str, Action] = dict(actions or {})
        self.home = home
        self.prefix = prefix

    async def action(self, request: Request) -> Response:
        """POST …/actions/<name>: login, CSRF, fields, run, audit, answer."""
        lang = self.site.lang_of(request)
        tr = Translator(lang)
        name = request.path_params["name"]
        got = await director_post(self.site, request, lang, self.prefix + name)
        if isinstance(got, Response):
            return got
        session, form = got
        spec = self.actions.get(name)
        if spec is None:
            return refuse(
                request, lang, "unknown_action", tr("flash.unknown_action", name=name[:50]), 404
            )
        try:
            values = parse_fields(spec, form)
        except BadField as e:
            field = str(e)
            key = "flash.reason_required" if field == "reason" else "flash.bad_value"
            return refuse(request, lang, "bad_value", tr(key, field=field_label(field, lang)), 400)
        event = form.get("t") or request.query_params.get("t") or None  # the form's event
        ctx = Context(
            self.site, session.user, lang, address(request), publish_static=self.publish_static,
            event=event if isinstance(event, str) else None,
        )  # fmt: skip
        # The audit line names the event too: a match code repeats across events (G1-1).
        audited = values if ctx.event is None else {**values, "t": ctx.event[:40]}
        audit = _Audit(self.site, session.user, self.prefix + name, spec.target(values), audited,
                       ctx.address)  # fmt: skip
        try:
            detail = await spec.run(ctx, values)
        except BadField as e:
            return refuse(
                request, lang, "bad_value",
                tr("flash.bad_value", field=field_label(str(e), lang)), 400,
            )  # fmt: skip
        except (Refused, TournamentError, RuleError) as e:
            # an engine refusal outside on_desk (e.g. a read of an unknown match) is one too
            r = e if isinstance(e, Refused) else refusal_from(e, lang)
            audit.write("refused", r.detail or r.message, refused=r.said)
            return refuse(request, lang, r.code, r.message, r.status)
        pending = ctx.extra.get("pending")
        released = ctx.extra.get("released")
        audit.write(
            "pending" if pending else "ok",
            str(detail or "") + (f" [released: {', '.join(released)}]" if released else ""),
        )
        self.site.refresh_live()  # the grid shows the effect at once
        message = self._done(tr, audit, detail, ctx.extra, values)
        if wants_json(request) or request.headers.get("x-csrf-token") is not None:
            return JSONResponse(
                {
                    "ok": True,
                    "message": message,
                    "detail": detail,
                    **{k: v for k, v in ctx.extra.items() if k != "published"},
                },
                status_code=202 if pending else 200,
            )
        back = (
            ctx.extra.get("goto")  # the action made something to show: its page
            or safe_next(form.get("next"))
            or safe_next(request.headers.get("referer"), request.headers.get("host"))
            or path_for(self.home)
        )
        resp = RedirectResponse(back, status_code=303)
        set_flash(resp, "info" if pending else "ok", message)
        return resp

    @staticmethod
    def _done(
        tr: Translator, audit: _Audit, detail: str, extra: dict[str, Any], values: dict[str, Any]
    ) -> str:
        """What the director reads after the action went through (or was sent to a table)."""
        what = (
            tr(f"act.{audit.action}")
            + (f" · {audit.target}" if audit.target else "")
            + (f" ({detail})" if detail else "")
        )
        message = tr("flash.done", what=what)
        if extra.get("released"):
            message += " " + tr("flash.released", tables=", ".join(extra["released"]))
        note = extra.get("note")
        if note:
            # What the table added to its yes (a key the catalog may lack reads as "other").
            key = f"note.{note}"
            message += " " + (tr(key) if key in STRINGS else tr("note.other", code=note[:64]))
        if extra.get("conflict"):
            message = tr("flash.conflict_opened", match=values.get("match_id", ""))
        if extra.get("pending"):
            message = tr("flash.table_pending", table=extra["pending"])
        return message


class _Audit:
    """One action's line in the audit log: who, what, on what, why, with which values."""

    def __init__(
        self, site: Site, user: str, action: str, target: str, values: dict[str, Any], at: str
    ) -> None:
        self.site, self.user, self.action, self.target, self.at = site, user, action, target, at
        self.reason = values.get("reason", "")
        self.params = {k: v for k, v in values.items() if k != "reason" and k not in COUNTED_TEXTS}
        for text in COUNTED_TEXTS:
            if text in values:
                self.params[f"{text}_lines"] = len(str(values[text] or "").splitlines())

    def write(self, outcome: str, detail: str, *, refused: dict[str, Any] | None = None) -> None:
        params = self.params if refused is None else self.params | {"refused": refused}
        self.site.store.audit(
            self.user, self.action, target=self.target, reason=self.reason, params=params,
            outcome=outcome, detail=detail, address=self.at,
        )  # fmt: skip
