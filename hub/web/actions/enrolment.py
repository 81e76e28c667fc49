""" "Mesa nueva": the director's action ``adopt_table`` gives a Pi waiting in the hub's enrolment
desk (:class:`~mesa.hub.broker.enrolment.EnrolmentDesk`) its table number; the waiting list is
:mod:`mesa.hub.web.pages.enrolment`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mesa.errors import MesaError
from mesa.hub.web.actions.registry import Context, Refused
from mesa.hub.web.i18n import Translator
from mesa.hub.web.i18n import text as t
from mesa.hub.web.site import Site
from mesa.protocol import ProtocolError, check_table_id


class AdoptRefused(Exception):
    """An adoption refused; ``message`` is in the director's language, ``code`` for scripts."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


async def adopt_pi(site: Site, lang: str, serial: str, table: str, replace: bool) -> str:
    """Give the waiting Pi ``serial`` the table ``table``; :class:`AdoptRefused` says why not.

    A table that is online now is another Pi in use: replacing it needs ``replace`` (the
    director confirmed "reemplazar el Pi de la mesa 7"); its old account stops working."""
    tr = Translator(lang)
    desk = site.enrolment
    if desk is None:
        raise AdoptRefused("enrolment_off", tr("enrol.off_refused"), 503)
    try:
        # The protocol's rule also keeps the broker's own accounts (all ``mesa*``) out of reach.
        table = check_table_id(table)
    except ProtocolError:
        raise AdoptRefused("bad_table", tr("enrol.bad_table", table=table[:40]), 400) from None
    if not any(p.serial == serial for p in desk.pending()):
        raise AdoptRefused("not_pending", tr("enrol.not_pending", serial=serial), 404)
    online = any(c["id"] == table and c["link"] == "online" for c in site.poller.current())
    if online and not replace:
        raise AdoptRefused("confirm_replace", tr("enrol.confirm_replace", table=table))
    try:
        await asyncio.to_thread(desk.adopt, serial, table)
    except (MesaError, OSError) as e:  # EnrolmentError: the broker, the accounts helper
        raise AdoptRefused("adopt_failed", tr("enrol.failed", why=e), 502) from None
    return table


async def adopt_table(ctx: Context, v: dict[str, Any]) -> str:
    """ "Mesa nueva": give a waiting Pi its table number (:func:`adopt_pi`)."""
    try:
        table = await adopt_pi(ctx.web, ctx.lang, v["serial"], v["table"], bool(v["replace"]))
    except AdoptRefused as r:
        raise Refused(
            t(ctx.lang, "flash.refused", why=r.message), code=r.code, status=r.status
        ) from None
    ctx.extra["table"] = table
    ctx.extra["serial"] = v["serial"]
    return ""

