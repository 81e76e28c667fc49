""" "Mesa nueva" on the director's dashboard: the Pis waiting to be adopted, and adopting one.

The list comes from the hub's enrolment desk (:class:`~mesa.hub.broker.enrolment.EnrolmentDesk`,
running inside ``mesa hub`` when ``enrolment_credentials`` is set); adopting goes through the
director's action ``adopt_table`` (:mod:`~mesa.hub.web.actions`: login, CSRF, audit), which
calls :func:`adopt_table` here.

>>> hw_summary({"display": "ok", "buttons": "failed: no press"}, "es")
'botones: failed: no press · pantalla: ok'
>>> pending_view(None, "en")["enabled"]
False
"""

from __future__ import annotations

import asyncio
from typing import Any

from mesa.errors import MesaError
from mesa.hub.web.i18n import Translator, format_datetime
from mesa.hub.web.site import Site
from mesa.protocol import ProtocolError, check_table_id

SETTING_HINT = "MESA_HUB_ENROLMENT_CREDENTIALS=/etc/mesa/enrolment.json"


class AdoptRefused(Exception):
    """An adoption refused; ``message`` is in the director's language, ``code`` for scripts."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def hw_summary(hwcheck: dict[str, str], lang: str) -> str:
    """The Pi's hardware check in one line, parts named in the director's language."""
    tr = Translator(lang)
    parts = []
    for name, result in sorted(hwcheck.items(), key=lambda kv: tr(f"enrol.part.{kv[0]}")):
        key = f"enrol.part.{name}"
        label = tr(key)
        parts.append(f"{name if label == key else label}: {result}")
    return " · ".join(parts) if parts else tr("enrol.no_hwcheck")


def pending_view(desk: Any, lang: str, configured: Any = None) -> dict[str, Any]:
    """What the section and its JSON twin show: is enrolment on, and who is waiting.
    ``configured`` is the enrolment_credentials setting (set while ``desk`` is None: the desk
    could not start, and the hub's log says why)."""
    if desk is None:
        view: dict[str, Any] = {"enabled": False, "pending": [], "how_to_enable": SETTING_HINT}
        if configured is not None:
            view["not_started"] = str(configured)
        return view
    return {
        "enabled": True,
        "connected": desk.connected.is_set(),
        "pending": [
            {
                "serial": p.serial,
                "hwcheck": p.hwcheck,
                "hw_ok": all(v == "ok" for v in p.hwcheck.values()),
                "hw_summary": hw_summary(p.hwcheck, lang),
                "first_seen": p.first_seen,
                "last_seen": p.last_seen,
                "first_seen_text": format_datetime(p.first_seen, lang),
                "last_seen_text": format_datetime(p.last_seen, lang),
            }
            for p in desk.pending()
        ],
    }


async def adopt_table(site: Site, lang: str, serial: str, table: str, replace: bool) -> str:
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
