"""The domino pages' sentences: a fine and what the hub's escalation made of it, a record entry,
an audit line, all in the reader's language and with players' names (never ids or raw JSON).

The escalations are the hub's (:mod:`mesa.games.domino.records`): the director says the
offence, the answer says the step that applied and who got what.

>>> names = {"ana": "Ana", "beto": "Beto", "carla": "Carla", "dani": "Dani"}
>>> from mesa.games.domino.records import RecordEntry as E
>>> two = [E(1, "ana", -75, 0, "talking_second", "G", "escalation", None, "juez", ""),
...        E(2, "beto", -75, 0, "talking_second", "G", "escalation", None, "juez", "", "", "ana")]
>>> said_fine("es", "talking_second", two, names)
'segunda vez: −75 a Ana y a Beto'
>>> said_fine("es", "talking_third", [E(3, "ana", 0, 0, "talking_third", "G", "escalation",
...           None, "juez", "")], names, expelled="ana")
'tercera vez: expulsión de Ana'
>>> said_fine("en", "talking_first", two[:1], names)
'first time: −75 to Ana'
>>> clock_of("2026-12-02T20:31:05"), clock_of("")
('20:31:05', '')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from mesa.games.domino.records import RecordEntry
from mesa.hub.web.i18n import STRINGS
from mesa.hub.web.i18n import text as t

MINUS = "\u2212"  # a real minus sign: "−25" reads as a fine, not a dash


def signed(points: int) -> str:
    """``-25`` → ``"−25"``, ``100`` → ``"+100"``, ``0`` → ``"0"``.

    >>> signed(-25), signed(100), signed(0)
    ('−25', '+100', '0')
    """
    if points < 0:
        return f"{MINUS}{-points}"
    return f"+{points}" if points > 0 else "0"


def to_names(lang: str, names: Sequence[str]) -> str:
    """«a Ana y a Beto» / «to Ana and Beto» (the Spanish repeats its «a»).

    >>> to_names("es", ["Ana", "Beto", "Carla"]), to_names("en", ["Ana", "Beto"])
    ('a Ana, a Beto y a Carla', 'to Ana and Beto')
    """
    if lang == "es":
        parts = [f"a {n}" for n in names]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " y " + parts[-1]
    body = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"to {body}"


def and_names(lang: str, names: Sequence[str]) -> str:
    """«Ana, Beto y Carla» / «Ana, Beto and Carla»."""
    if not names:
        return ""
    word = " y " if lang == "es" else " and "
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + word + names[-1]


def said_entries(lang: str, entries: Iterable[tuple[str, int, int]],
                 names: Mapping[str, str]) -> str:
    """``(player, points, games)`` lines grouped by what each got: «−75 a Ana y a Beto;
    +100 y una partida ganada a Carla y a Dani»."""
    groups: dict[tuple[int, int], list[str]] = {}
    for player, points, games in entries:
        groups.setdefault((points, games), []).append(names.get(player, player))
    out = []
    for (points, games), who in groups.items():
        if points == 0 and not games:  # a first late arrival: recorded, no points
            out.append(t(lang, "dom.said.noted", who=and_names(lang, who)))
            continue
        what = t(lang, "dom.said.won_too", points=signed(points)) if games else signed(points)
        out.append(f"{what} {to_names(lang, who)}")
    return "; ".join(out)


def said_fine(lang: str, step: str, entries: Sequence[RecordEntry], names: Mapping[str, str],
              *, expelled: str | None = None, annulled: bool = False) -> str:
    """What a fine did, as the director reads it after the click: the step the record chose
    and who got what («segunda vez: −75 a Ana y a Beto», «tercera vez: expulsión de Ana»)."""
    key = f"dom.step.{step}"
    head = t(lang, key) if key in STRINGS else t(lang, f"dom.reason.{step}")
    parts = []
    if expelled:
        parts.append(t(lang, "dom.said.expelled", name=names.get(expelled, expelled)))
    lines = [(e.player, e.points, e.games) for e in entries
             if not (expelled and e.player == expelled and e.points == 0)]
    if lines:
        parts.append(said_entries(lang, lines, names))
    if annulled:
        parts.append(t(lang, "dom.said.annulled"))
    return f"{head}: {'; '.join(parts)}" if parts else head


def clock_of(at: str) -> str:
    """An ISO time as the director reads it: the hour only (the evening is one day)."""
    try:
        return datetime.fromisoformat(at).strftime("%H:%M:%S")
    except (TypeError, ValueError):
        return at[:19]


def _said_game(lang: str, d: Mapping[str, Any]) -> str:
    score = d.get("score") or {}
    winner = d.get("winner")
    who = t(lang, "dom.said.winner", side=str(winner).upper()) if winner \
        else t(lang, "dom.how.no_winner") if "dom.how.no_winner" in STRINGS else "—"
    how = t(lang, f"dom.how.{d.get('how')}")
    return t(lang, "dom.audit.record_game", game=d.get("game", ""), who=who, how=how,
             ns=score.get("ns", 0), ew=score.get("ew", 0), hands=d.get("hands", 0))


def said_audit(lang: str, action: str, d: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """One line of an event's audit in words (the JSON twin keeps the details as data)."""
    who = lambda p: names.get(str(p), str(p))  # noqa: E731
    if action == "create":
        return t(lang, "dom.audit.create", name=d.get("name", ""))
    if action == "register_pair":
        return t(lang, "dom.audit.register_pair", pair=d.get("pair", ""),
                 who=" / ".join(d.get("names") or [who(p) for p in d.get("players", [])]))
    if action == "register_player":
        return t(lang, "dom.audit.register_player", who=d.get("name") or who(d.get("player")))
    if action in ("remove_pair", "remove_player"):
        return t(lang, f"dom.audit.{action}", what=d.get("pair") or who(d.get("player")))
    if action == "start_round":
        games = "; ".join(t(lang, "dom.audit.game_at", game=g[0], table=g[1],
                            who=" / ".join(who(g[2][s]) for s in ("n", "s")) + " – "
                            + " / ".join(who(g[2][s]) for s in ("e", "w")))
                          for g in d.get("games", []))
        out = t(lang, "dom.audit.start_round", n=d.get("round", ""), games=games)
        rest = [who(p) for p in d.get("sitting_out") or []]
        if d.get("bye"):
            rest = [str(d["bye"])]
        if rest:
            out += " · " + t(lang, "dom.audit.rest", who=and_names(lang, rest))
        return out
    if action == "tiempo":
        at = d.get("start_wall")
        when = datetime.fromtimestamp(float(at)).strftime("%H:%M:%S") if at else ""
        return t(lang, "dom.audit.tiempo", n=d.get("round", ""), when=when)
    if action == "record_game":
        return _said_game(lang, d)
    if action == "late" and "game" not in d:  # the round started with players elsewhere
        return t(lang, "dom.audit.late_round", who=and_names(
            lang, [str(p.get("name") or who(p.get("player"))) for p in d.get("players", [])]))
    if action in ("fine", "late", "table_fine", "sheet_unsigned", "absence"):
        entries = [RecordEntry(int(e[0]), str(e[1]), int(e[2]), int(e[3]), str(e[4]),
                               str(d.get("game", "")), "", None, "", "")
                   for e in d.get("entries", [])]
        step = str(d.get("step") or d.get("reason") or action)
        if action == "table_fine" and entries:
            step = entries[0].reason
        words = said_fine(lang, step, entries, names, expelled=d.get("expelled"),
                          annulled=bool(d.get("annul")))
        reason = d.get("reason")
        if action == "fine" and reason and not str(step).startswith(str(reason)):
            words = f"{t(lang, f'dom.reason.{reason}')} — {words}"
        return f"{d.get('game', '')} · {words}"
    if action == "close":
        return t(lang, "dom.audit.close", n=int(d.get("rounds") or 0))
    key = f"dom.audit.{action}"
    if key in STRINGS:
        return t(lang, key)
    plain = ", ".join(f"{k}: {v}" for k, v in d.items() if isinstance(v, str | int | float))
    return f"{action} {plain}".strip()
