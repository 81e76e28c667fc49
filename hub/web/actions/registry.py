"""The declared shape of a director's action: its fields (:class:`Field`, checked and converted by
:func:`parse_fields`), the :class:`Action` itself, the :class:`Context` it runs with, and how it
is refused (:class:`BadField`, :class:`Refused`, :func:`refusal_from`).

Every game declares its actions with these (:mod:`mesa.hub.web.games.backgammon`,
:mod:`mesa.hub.web.games.domino`); one endpoint runs them all
(:mod:`mesa.hub.web.actions.endpoint`).

>>> a = Action("pause", (Field("table"), Field("seconds", "float", required=False)), None)
>>> parse_fields(a, {"table": " 3 ", "seconds": "-2,5"})
{'table': '3', 'seconds': -2.5, 'reason': ''}
>>> parse_fields(a, {"seconds": "1"})
Traceback (most recent call last):
  ...
mesa.hub.web.actions.registry.BadField: table
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, KeysView
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from mesa.errors import MesaError
from mesa.hub.web.i18n import STRINGS
from mesa.hub.web.i18n import text as t
from mesa.hub.web.site import Site
from mesa.tournament.errors import TournamentError
from mesa.tournament.i18n import refusal_of


class BadField(MesaError):
    """A form field that is missing or malformed; ``str(e)`` is the field's name."""


class Refused(MesaError):
    """The action was refused; nothing changed. ``message`` is already in the user's language."""

    def __init__(
        self,
        message: str,
        *,
        code: str = "refused",
        status: int = 409,
        detail: str = "",
        said: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.detail = detail
        # What was refused, language-free ({"code", "reason", "params"}), so the audit log can
        # say it again in whichever language its reader chose.
        self.said = said or {"code": code}


@dataclass(frozen=True)
class Field:
    name: str
    kind: str = "str"  # str, text, int, float, bool, side, choice, date, ids (a list of ids)
    required: bool = True
    choices: tuple[str, ...] = ()
    default: Any = None


@dataclass(frozen=True)
class Action:
    name: str
    fields: tuple[Field, ...]
    run: Callable[[Context, dict[str, Any]], Awaitable[str]]
    reason_required: bool = False
    target: Callable[[dict[str, Any]], str] = lambda v: ""


@dataclass
class Context:
    """What an action runs with: the dashboard's shared state, who, in which language, from
    where, how to publish the static results; ``extra`` carries facts back to the answer."""

    web: Site
    user: str
    lang: str
    address: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    publish_static: Callable[[str], Awaitable[str | None]] | None = None
    # The event the form acts on (its ``t``: a tournament's id), None: the default one.
    event: str | None = None


def parse_fields(action: Action, form: dict[str, Any]) -> dict[str, Any]:
    """Check and convert the submitted values; raise :class:`BadField` naming the bad one."""
    out: dict[str, Any] = {}
    for f in (*action.fields, Field("reason", "text", action.reason_required)):
        raw = form.get(f.name)
        if isinstance(raw, str):
            raw = raw.strip()
        if f.kind == "ids" and raw == "":
            # Sent, and empty: "none" is an answer (a confirmation that lists nothing), unlike
            # a field the form did not send at all.
            out[f.name] = []
            continue
        if raw in (None, "") or raw == []:
            if f.kind == "bool":
                out[f.name] = False
                continue
            if f.required:
                raise BadField(f.name)
            out[f.name] = f.default if f.default is not None else ("" if f.kind == "text" else None)
            continue
        try:
            out[f.name] = _convert(f, raw)
        except (ValueError, TypeError):
            raise BadField(f.name) from None
    return out


def _convert(f: Field, raw: Any) -> Any:
    if f.kind == "ids":
        # Repeated form fields (ticked checkboxes) or one comma/newline separated string.
        items = raw if isinstance(raw, list) else str(raw).replace(",", "\n").splitlines()
        ids = [str(x).strip() for x in items if str(x).strip()]
        if len(ids) > 500 or any(len(x) > 64 for x in ids):
            raise ValueError("too many or too long")
        return list(dict.fromkeys(ids))
    if isinstance(raw, list):
        raise ValueError("repeated field")
    if f.kind in ("str", "text"):
        value = str(raw)
        if len(value) > (20000 if f.kind == "text" else 200):
            raise ValueError("too long")
        return value
    if f.kind == "int":
        return int(str(raw))
    if f.kind == "float":
        number = float(str(raw).replace(",", "."))
        if number != number or number in (float("inf"), float("-inf")):
            raise ValueError("not finite")
        return number
    if f.kind == "bool":
        return str(raw).lower() in ("1", "on", "true", "yes", "sí", "si")
    if f.kind == "side":
        if raw not in ("a", "b"):
            raise ValueError(raw)
        return raw
    if f.kind == "choice":
        if raw not in f.choices:
            raise ValueError(raw)
        return raw
    if f.kind == "date":
        return date.fromisoformat(str(raw))
    raise ValueError(f.kind)


# ── turning engine and table errors into the director's language ───────────
def refusal_from(e: Exception, lang: str) -> Refused:
    """An engine or rule refusal said in ``lang``: the kind (``err.<code>``) and, for the
    engine, exactly what (its ``reason`` and ``params``); never the English ``str(e)``."""
    code = str(getattr(e, "code", "other"))
    head = t(lang, f"err.{code}") if f"err.{code}" in known_errors() else t(lang, "err.other")
    detail = refusal_of(e, lang) if isinstance(e, TournamentError) else ""
    why = f"{head} ({detail})" if detail and detail != head else head
    said: dict[str, Any] = {"code": code}
    if isinstance(e, TournamentError):
        said |= {"reason": e.reason, "params": _plain(e.params)}
    return Refused(
        t(lang, "flash.refused", why=why), code=code, status=409, detail=detail, said=said
    )


def _plain(params: dict[str, object]) -> dict[str, Any]:
    """Params as JSON can keep them (numbers and strings)."""
    return {k: v if isinstance(v, (int, float, str)) else str(v) for k, v in params.items()}


# A form field's name as the director reads it in a refusal (the form's own label).
FIELD_LABELS = {"player_id": "form.player", "match_id": "col.match", "group": "col.group",
                "new_name": "form.name", "a": "form.score_a", "b": "form.score_b",
                "preset": "form.clock_preset", "seconds": "form.seconds"}  # fmt: skip


def field_label(field: str, lang: str) -> str:
    """``match_id`` → «Partida»; a field without a label keeps its name."""
    key = FIELD_LABELS.get(field, f"form.{field}")
    return t(lang, key) if key in STRINGS else field


def known_errors() -> KeysView[str]:
    """The keys the dashboard has words for: a code without its ``err.<code>`` reads as
    ``err.other``. The catalog's own keys (a view: nothing is copied per refusal)."""
    return STRINGS.keys()

