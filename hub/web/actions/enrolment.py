""" "Mesa nueva": the director's action ``adopt_table`` gives the Pi whose screen shows a code,
waiting in the hub's enrolment desk (:class:`~mesa.hub.broker.enrolment.EnrolmentDesk`), its
table number; ``dismiss_enrolment`` takes an announcement off the list. The waiting list is
:mod:`mesa.hub.web.pages.enrolment`. The rules (the code, the takeover of a number that has a
Pi) are the desk's, the same for ``mesa adopt``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mesa.errors import MesaError
from mesa.hub.web.actions.registry import Context, Refused
from mesa.hub.web.i18n import Translator
from mesa.hub.web.i18n import text as t
from mesa.hub.web.site import Site

# EnrolmentError codes said in the director's words (enrol.<code>), with their HTTP status.
_SAID = {
    "bad_table": 400,
    "bad_code": 400,
    "not_pending": 404,
    "ambiguous": 409,
    "confirm_replace": 409,
}


class AdoptRefused(Exception):
    """An adoption refused; ``message`` is in the director's language, ``code`` for scripts,
    ``params`` the facts it names (``pi``: the Pi a confirmation must name)."""

    def __init__(
        self, code: str, message: str, status: int = 409, params: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.params = params or {}


def _known_tables(site: Site) -> dict[str, str]:
    """The tables the dashboard knows (id → link state): numbers that have a Pi."""
    return {str(c["id"]): str(c.get("link", "")) for c in site.poller.current()}


async def adopt_pi(
    site: Site, lang: str, code: str, table: str, replace: str | None, by: str = ""
) -> dict[str, Any]:
    """Give the waiting Pi whose screen shows ``code`` the table ``table``; returns what was
    done (``serial``, ``table``, ``replaced``); :class:`AdoptRefused` says why not.

    A number that already has a Pi (online, offline, or adopted a moment ago) needs
    ``replace`` naming that Pi: the director confirmed "Reemplazar el Pi … de la mesa 7"."""
    tr = Translator(lang)
    desk = site.enrolment
    if desk is None:
        raise AdoptRefused("enrolment_off", tr("enrol.off_refused"), 503)
    try:
        done = await asyncio.to_thread(
            desk.adopt,
            code,
            table,
            replace=replace or None,
            by=by,
            known=_known_tables(site),
        )
    except MesaError as e:  # the desk's EnrolmentError: its code says which refusal
        kind = getattr(e, "code", "")
        said: dict[str, Any] = dict(getattr(e, "params", {}))
        if kind in _SAID:
            params = {"code": str(code)[:16], "table": str(table)[:40], **said}
            if "state" in params:
                params["state"] = tr(f"enrol.state.{params['state']}")
            raise AdoptRefused(kind, tr(f"enrol.{kind}", **params), _SAID[kind], said) from None
        raise AdoptRefused("adopt_failed", tr("enrol.failed", why=e), 502) from None
    except OSError as e:  # the accounts helper, the store
        raise AdoptRefused("adopt_failed", tr("enrol.failed", why=e), 502) from None
    return {
        "serial": done.serial,
        "table": done.table_id,
        "replaced": done.replaced.token if done.replaced is not None else "",
    }


async def adopt_table(ctx: Context, v: dict[str, Any]) -> str:
    """ "Mesa nueva": give a waiting Pi its table number (:func:`adopt_pi`)."""
    try:
        done = await adopt_pi(
            ctx.web, ctx.lang, v["code"], v["table"], v.get("replace"), by=ctx.user
        )
    except AdoptRefused as r:
        raise Refused(
            t(ctx.lang, "flash.refused", why=r.message),
            code=r.code,
            status=r.status,
            detail=str(r.params.get("pi", "")),
            said={"code": r.code, "params": r.params},
        ) from None
    ctx.extra.update(done)
    return ""


async def dismiss_enrolment(ctx: Context, v: dict[str, Any]) -> str:
    """ "Descartar": take one announcement off the waiting list (its Pi stays off it a day)."""
    desk = ctx.web.enrolment
    if desk is None:
        raise Refused(t(ctx.lang, "enrol.off_refused"), code="enrolment_off", status=503)
    if not await asyncio.to_thread(desk.dismiss, str(v["id"])):
        raise Refused(t(ctx.lang, "enrol.not_listed"), code="not_pending", status=404)
    return ""
