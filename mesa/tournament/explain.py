"""Plain-language explanations of every number: a player's points and their group place.

>>> from mesa.tournament.groups import TieStep
>>> names = {"A": "ANA", "B": "BEA", "C": "EVA"}
>>> step_line(TieStep("h2h_diff", ("A", "B", "C"), {"A": 2, "B": -1, "C": -1}, True),
...           "A", names, "en")
'Criterion 2 (point difference among the tied players) among ANA, BEA, EVA: ANA +2, BEA -1, EVA -1 — breaks the tie'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from mesa.tournament.errors import UnknownPlayerError
from mesa.tournament.groups import TieStep
from mesa.tournament.i18n import (
    check_lang,
    format_points,
    ordinal,
    place_label,
    round_name,
    signed,
    text,
)

if TYPE_CHECKING:
    from mesa.tournament.tournament import Tournament


def _names(ids: tuple[str, ...] | list[str], names: Mapping[str, str]) -> str:
    return ", ".join(names.get(p, p) for p in ids)


def step_line(step: TieStep, player: str, names: Mapping[str, str], lang: str = "es") -> str:
    """One tie-break step as a sentence."""
    fmt = signed if step.criterion in ("h2h_diff", "diff") else str
    values = ", ".join(f"{names.get(p, p)} {fmt(v)}" for p, v in step.values.items())
    verdict = text("verdict_split" if step.split else "verdict_tied", lang)
    if step.criterion == "wins":
        value = step.values.get(player, 0)
        if len(step.among) == 1:
            return text("step_wins_alone", lang, value=value)
        others = [p for p in step.among if p != player]
        return text("step_wins_tied", lang, value=value, others=_names(others, names))
    if step.criterion == "forfeit":
        return text("step_forfeit", lang, values=values)
    if step.criterion == "dice":
        attempt = text("dice_again", lang, n=step.attempt + 1) if step.attempt else ""
        return text("step_dice", lang, attempt=attempt, among=_names(step.among, names),
                    values=values, verdict=verdict)
    if step.criterion == "pending":
        return text("step_pending", lang, among=_names(step.among, names))
    if step.criterion == "void":
        return text("step_void", lang)
    if step.criterion == "no_show":
        return text("step_no_show", lang)
    return text("step_criterion", lang, criterion=text(f"crit_{step.criterion}", lang),
                among=_names(step.among, names), values=values, verdict=verdict)


def _require_entrant(t: Tournament, player_id: str) -> None:
    if player_id not in t.entrants:
        raise UnknownPlayerError(player_id)


def group_place_lines(t: Tournament, player_id: str, lang: str = "es") -> list[str]:
    """Why a player finished where they did in their group (HGV 7.2.3, 2.3.2, 2.3.3)."""
    group = t.group_of(player_id)
    if group is None:
        _require_entrant(t, player_id)
        raise KeyError(f"{player_id} is in no group yet")
    st = t.standings(group)
    row = st.row(player_id)
    names = {p: t.name_of(p) for p in t.groups[group - 1]}
    lines = [text("group_header", lang, name=t.name_of(player_id), group=group,
                  place=ordinal(row.place, lang),
                  provisional="" if st.complete else text("provisional", lang)),
             "  " + text("record_line", lang, wins=row.wins, losses=row.losses,
                         pf=row.points_for, pa=row.points_against, diff=signed(row.diff))]
    lines += ["  " + step_line(s, player_id, names, lang) for s in row.steps]
    lines.append("  " + text("decided_by", lang,
                             criterion=text(f"crit_{row.decided_by}", lang)))
    if st.complete:
        lines.append("  " + text("qualified" if row.qualified else "not_qualified", lang))
    return lines


def place_round_name(place: tuple[int, int], label: str | None, lang: str) -> str:
    if place == (1, 1):
        return text("champion", lang)
    if place == (2, 2):
        return text("finalist", lang)
    return round_name(label or "group", lang)


def points_lines(t: Tournament, player_id: str, lang: str = "es") -> list[str]:
    """A player's tournament points, term by term (HGV 7.5, 2.3.3, 2.3.8)."""
    lang = check_lang(lang)
    _require_entrant(t, player_id)
    b = t.points()[player_id]

    def f(x: int) -> str:
        return format_points(x, lang)

    lines = [text("points_header", lang, name=t.name_of(player_id), tournament=t.name,
                  total=f(b.total))]
    if b.place is None:
        lines.append("  " + text("place_pending", lang))
    else:
        args = {"place": place_label(b.place, lang),
                "round": place_round_name(b.place, b.place_round, lang)}
        if b.knockout_forfeit:
            lines.append("  " + text("place_forfeit", lang, **args))
        elif b.place_points:
            lines.append("  " + text("place_line", lang, points=f(b.place_points), **args))
        else:
            lines.append("  " + text("place_none", lang, **args))
    w = t.withdrawals.get(player_id)
    if w is not None and w.kind == "no_show":
        lines.append("  " + text("participation_no_show", lang))
    else:
        lines.append("  " + text("participation", lang, points=f(b.participation)))
    if b.consolation_finalist:
        lines.append("  " + text("consolation_line", lang, points=f(b.consolation_finalist)))
    lines.append("  " + text("wins_line", lang, wins=b.wins, per_win=f(b.per_win),
                             points=f(b.win_points), g=b.wins_group, k=b.wins_knockout,
                             u=b.wins_consolation))
    lines += ["  " + text("removed_line", lang, match=r.match_id, rule=r.rule)
              for r in b.removed]
    lines.append("  " + text("total_line", lang, points=f(b.total)))
    return lines
