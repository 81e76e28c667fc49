""" "Mesa nueva" on the director's dashboard: the Pis waiting to be adopted.

The list comes from the hub's enrolment desk (:class:`~mesa.hub.broker.enrolment.EnrolmentDesk`,
running inside ``mesa hub`` when ``enrolment_credentials`` is set); adopting one is the
director's action ``adopt_table`` (:mod:`~mesa.hub.web.actions.enrolment`: login, CSRF, audit).

>>> hw_summary({"display": "ok", "buttons": "failed: no press"}, "es")
'botones: failed: no press · pantalla: ok'
>>> pending_view(None, "en")["enabled"]
False
"""

from __future__ import annotations

from typing import Any

from mesa.hub.web.i18n import Translator, format_datetime

SETTING_HINT = "MESA_HUB_ENROLMENT_CREDENTIALS=/etc/mesa/enrolment.json"


def hw_summary(hwcheck: dict[str, str], lang: str) -> str:
    """The Pi's hardware check in one line, parts named in the director's language."""
    tr = Translator(lang)
    parts = []
    for name, result in sorted(hwcheck.items(), key=lambda kv: tr(f"enrol.part.{kv[0]}")):
        key = f"enrol.part.{name}"
        label = tr(key)
        parts.append(f"{name if label == key else label}: {result}")
    return " · ".join(parts) if parts else tr("enrol.no_hwcheck")


def pending_view(
    desk: Any, lang: str, configured: Any = None, known: dict[str, str] | None = None
) -> dict[str, Any]:
    """What the section and its JSON twin show: is enrolment on, who is waiting, what the list
    refused (a flood shows there), and which numbers have a Pi (``occupants``: number → the
    Pi a confirmation names). No pairing codes: the director reads them off the tables.
    ``configured`` is the enrolment_credentials setting (set while ``desk`` is None: the desk
    could not start, and the hub's log says why)."""
    if desk is None:
        view: dict[str, Any] = {"enabled": False, "pending": [], "how_to_enable": SETTING_HINT}
        if configured is not None:
            view["not_started"] = str(configured)
        return view
    kinds = ("full", "source", "serial", "dismissed", "malformed")
    refusals = {k: desk.refusals.get(k, 0) for k in kinds}
    # A call without the venue's token, or too large to be an announcement: malformed too.
    refusals["malformed"] += desk.refusals.get("token", 0) + desk.refusals.get("too_large", 0)
    return {
        "enabled": True,
        "connected": desk.connected.is_set(),
        "refused": sum(refusals.values()),
        "refusals": refusals,
        "occupants": desk.occupants(known),
        "pending": [
            {
                "id": p.eid,
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
