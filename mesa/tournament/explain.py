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
from mesa.tournament.i18n import check_lang, ordinal, place_label, round_name, signed, text
from mesa.words import format_points

if TYPE_CHECKING:
    from mesa.tournament.tournament import Tournament


def _names(ids: tuple[str, ...] | list[str], names: Mapping[str, str]) -> str:
    return ", ".join(names.get(p, p) for p in ids)


def step_line(step: TieStep, player: str, names: Mapping[str, str], lang: str = "es") -> str:
    """One tie-break step as a sentence."""
    fmt = signed if step.criterion in ("h2h_diff", "diff") else str
    values = ", ".join(f"{names.get(p, p)} {fmt(v)}" for p, v in step.values.items())
    verdict = text(lang, "verdict_split" if step.split else "verdict_tied")
    if step.criterion == "wins":
        value = step.values.get(player, 0)
        if len(step.among) == 1:
            return text(lang, "step_wins_alone", value=value)
        others = [p for p in step.among if p != player]
        return text(lang, "step_wins_tied", value=value, others=_names(others, names))
    if step.criterion == "forfeit":
        return text(lang, "step_forfeit", values=values)
    if step.criterion == "dice":
        attempt = text(lang, "dice_again", n=step.attempt + 1) if step.attempt else ""
        return text(lang, "step_dice", attempt=attempt, among=_names(step.among, names),
                    values=values, verdict=verdict)
    if step.criterion == "pending":
        return text(lang, "step_pending", among=_names(step.among, names))
    if step.criterion == "void":
        return text(lang, "step_void")
    if step.criterion == "no_show":
        return text(lang, "step_no_show")
    return text(lang, "step_criterion", criterion=text(lang, f"crit_{step.criterion}"),
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
    lines = [text(lang, "group_header", name=t.name_of(player_id), group=group,
                  place=ordinal(row.place, lang),
                  provisional="" if st.complete else text(lang, "provisional")),
             "  " + text(lang, "record_line", wins=row.wins, losses=row.losses,
                         pf=row.points_for, pa=row.points_against, diff=signed(row.diff))]
    lines += ["  " + step_line(s, player_id, names, lang) for s in row.steps]
    lines.append("  " + text(lang, "decided_by",
                             criterion=text(lang, f"crit_{row.decided_by}")))
    if st.complete:
        lines.append("  " + text(lang, "qualified" if row.qualified else "not_qualified"))
    return lines


def place_round_name(place: tuple[int, int], label: str | None, lang: str) -> str:
    if place == (1, 1):
        return text(lang, "champion")
    if place == (2, 2):
        return text(lang, "finalist")
    return round_name(label or "group", lang)


def points_lines(t: Tournament, player_id: str, lang: str = "es") -> list[str]:
    """A player's tournament points, term by term (HGV 7.5, 2.3.3, 2.3.8)."""
    lang = check_lang(lang)
    _require_entrant(t, player_id)
    b = t.points()[player_id]

    def f(x: int) -> str:
        return format_points(x, lang)

    lines = [text(lang, "points_header", name=t.name_of(player_id), tournament=t.name,
                  total=f(b.total))]
    if b.place is None:
        lines.append("  " + text(lang, "place_pending"))
    else:
        args = {"place": place_label(b.place, lang),
                "round": place_round_name(b.place, b.place_round, lang)}
        if b.knockout_forfeit:
            lines.append("  " + text(lang, "place_forfeit", **args))
        elif b.place_points:
            lines.append("  " + text(lang, "place_line", points=f(b.place_points), **args))
        else:
            lines.append("  " + text(lang, "place_none", **args))
    w = t.withdrawals.get(player_id)
    if w is not None and w.kind == "no_show":
        lines.append("  " + text(lang, "participation_no_show"))
    else:
        lines.append("  " + text(lang, "participation", points=f(b.participation)))
    if b.consolation_finalist:
        lines.append("  " + text(lang, "consolation_line", points=f(b.consolation_finalist)))
    lines.append("  " + text(lang, "wins_line", wins=b.wins, per_win=f(b.per_win),
                             points=f(b.win_points), g=b.wins_group, k=b.wins_knockout,
                             u=b.wins_consolation))
    lines += ["  " + text(lang, "removed_line", match=r.match_id, rule=r.rule)
              for r in b.removed]
    lines.append("  " + text(lang, "total_line", points=f(b.total)))
    return lines
