"""View models: the tournament as plain, JSON-able dicts, the same for a page and its JSON twin.

Every page renders from one of these dicts, and the page's ``.json`` twin returns the very same
dict, so what a script reads is exactly what a person sees. Words that depend on the language
(tie-break explanations, round names) come from the engine's own texts, in the page's language.

>>> from datetime import date, datetime
>>> from mesa.tournament.club import Category, Club
>>> club = Club()
>>> now = datetime(2025, 3, 7, 20, 0)
>>> ids = [club.registry.add_new(n).id for n in ("ANA", "BEA", "EVA")]
>>> t = club.create_tournament("T1", "Marzo", date(2025, 3, 7))
>>> for pid in ids:
...     _ = club.register("T1", pid, now=now)
>>> _ = club.start("T1", seed=1, now=now)
>>> _ = t.record_result("G1-1", 3, 1, now=now)
>>> g = groups_view(t, "es")[0]
>>> g["group"], [r["wins"] for r in g["rows"]], g["matches"][0]["score"]
(1, [1, 0, 0], [3, 1])
>>> match_view(t, t.match("G1-1"), "en")["round_name"]
'Round 1'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mesa.hub.web.i18n import format_number, format_points
from mesa.hub.web.i18n import text as tr
from mesa.tournament.club import Club
from mesa.tournament.explain import group_place_lines, points_lines, step_line
from mesa.tournament.i18n import place_label, round_name
from mesa.tournament.i18n import text as engine_text
from mesa.tournament.matches import Match
from mesa.tournament.players import Category, name_key
from mesa.tournament.rating import START_RATING
from mesa.tournament.tournament import Conflict, Tournament


def tournament_info(t: Tournament | None, lang: str) -> dict[str, Any] | None:
    """The header every page carries: which tournament, in which phase."""
    if t is None:
        return None
    champion = t.champion
    return {
        "id": t.id,
        "name": t.name,
        "held_on": t.held_on.isoformat(),
        "category": t.category,
        "official": t.official,
        "phase": t.phase,
        "phase_name": tr(lang, f"t.status.{_phase_key(t)}"),
        "entrants": len(t.entrants),
        "groups": len(t.groups),
        "knockout_drawn": t.knockout is not None,
        "consolation_drawn": t.consolation is not None,
        "champion": None if champion is None else {"id": champion, "name": t.name_of(champion)},
        "finished": t.is_finished(),
        "reserved_tables": list(t.settings.reserved_tables),
    }


def _phase_key(t: Tournament) -> str:
    if t.phase == "knockout" and t.is_finished():
        return "finished"
    return {
        "registration": "registration",
        "groups": "groups",
        "knockout": "knockout",
        "closed": "closed",
    }.get(t.phase, t.phase)


def _round_name(m: Match, lang: str) -> str:
    if m.phase == "group":
        return tr(lang, "round.group", n=m.round)
    name = round_name(m.round, lang, phase=m.phase)
    return name[:1].upper() + name[1:]


def match_view(t: Tournament, m: Match, lang: str) -> dict[str, Any]:
    """One match: players (white first), score, status, table, clock and its correction trail."""
    r = m.result
    return {
        "id": m.id,
        "phase": m.phase,
        "round": m.round,
        "round_no": m.round_no,
        "round_name": _round_name(m, lang),
        "number": m.number,
        "group": m.group,
        "length": m.length,
        "a": None if m.a is None else {"id": m.a, "name": t.name_of(m.a)},
        "b": None if m.b is None else {"id": m.b, "name": t.name_of(m.b)},
        "score": None if r is None else [r.score_a, r.score_b],
        "winner": None if r is None else r.winner,
        "forfeit": bool(r and r.forfeit),
        "source": None if r is None else r.source,
        "recorded_by": None if r is None else r.actor,
        "status": m.status,
        "status_name": tr(lang, f"match.status.{m.status}"),
        "table": m.table,
        "clock": m.clock.to_dict(),
        "scheduled_start": None if m.scheduled_start is None else m.scheduled_start.isoformat(),
        "planned_start": None if m.planned_start is None else m.planned_start.isoformat(),
        "history": list(m.history),
    }


# The criterion that set a place, in a few words for the table (the details say it in full).
TIE_BREAK_KEYS = {
    "wins": "tiebreak.wins",
    "forfeit": "tiebreak.forfeit",
    "h2h_wins": "tiebreak.matches_won_among",
    "h2h_diff": "tiebreak.points_diff_among",
    "diff": "tiebreak.points_diff_all",
    "dice": "tiebreak.dice",
    "pending": "tiebreak.pending",
    "void": "tiebreak.void",
    "no_show": "tiebreak.no_show",
}


def conflict_view(t: Tournament, c: Conflict) -> dict[str, Any]:
    """A correction conflict; an open one carries ``annuls``: exactly what "apply" would
    annul (or take off its table) if chosen now, the list the director confirms."""
    out = c.to_dict()
    out["annuls"] = t.conflict_annuls(c.id) if c.status == "open" else list(c.affected)
    return out


def groups_view(t: Tournament, lang: str) -> list[dict[str, Any]]:
    """Every group: the table with the criterion that set each place, and the group's matches."""
    out = []
    for st in t.all_standings():
        names = {p: t.name_of(p) for p in t.groups[st.group - 1]}
        rows = []
        for row in st.rows:
            try:
                why = group_place_lines(t, row.player_id, lang)
            except KeyError:
                why = []
            rows.append(
                {
                    "place": row.place,
                    "player_id": row.player_id,
                    "name": names.get(row.player_id, row.player_id),
                    "played": row.played,
                    "wins": row.wins,
                    "losses": row.losses,
                    "points_for": row.points_for,
                    "points_against": row.points_against,
                    "diff": row.diff,
                    "forfeit_losses": row.forfeit_losses,
                    "voided": row.voided,
                    "qualified": row.qualified,
                    "decided_by": row.decided_by,
                    "decided_by_text": engine_text(lang, f"crit_{row.decided_by}"),
                    "decided_by_short": tr(
                        lang, TIE_BREAK_KEYS.get(row.decided_by, "tiebreak.wins")
                    ),
                    "steps": [step_line(s, row.player_id, names, lang) for s in row.steps],
                    "explanation": [line.strip() for line in why],
                }
            )
        out.append(
            {
                "group": st.group,
                "title": tr(lang, "group.title", n=st.group),
                "complete": st.complete,
                "pending_dice": st.pending_dice,
                "rows": rows,
                "matches": [
                    match_view(t, m, lang)
                    for m in sorted(t.group_matches(st.group), key=lambda m: (m.round_no, m.number))
                ],
            }
        )
    return out


def bracket_view(t: Tournament, kind: str, lang: str) -> dict[str, Any] | None:
    """A bracket by rounds (play-in first, final last), for the draw and Último Chance."""
    bracket = t.knockout if kind == "knockout" else t.consolation
    if bracket is None:
        return None
    rounds: list[dict[str, Any]] = []
    by_round: dict[tuple[int, str], list[Match]] = {}
    for mid in bracket.match_ids:
        m = t.matches[mid]
        by_round.setdefault((m.round_no, m.round), []).append(m)
    for (_, label), ms in sorted(by_round.items()):
        first = ms[0]
        rounds.append(
            {
                "label": label,
                "name": _round_name(first, lang),
                "matches": [match_view(t, m, lang) for m in sorted(ms, key=lambda m: m.number)],
            }
        )
    if kind == "knockout":
        top = t.champion
        finalists = [] if top is None else [top]
    else:
        final = t.matches.get(bracket.final_id or "")
        top = final.result.winner if final is not None and final.result else None
        finalists = list(t.consolation_finalists())
    seed_of = {s.player_id: s.seed for s in bracket.seeds}
    for rnd in rounds:
        for mv in rnd["matches"]:
            for side in ("a", "b"):
                if mv[side] is not None:
                    mv[side]["seed"] = seed_of.get(mv[side]["id"])
    return {
        "kind": kind,
        "size": bracket.size,
        "rounds": rounds,
        "seeds": [
            {
                "seed": s.seed,
                "player_id": s.player_id,
                "name": t.name_of(s.player_id),
                "place": s.place,
                "group": s.group,
            }
            for s in bracket.seeds
        ],
        "winner": None if top is None else {"id": top, "name": t.name_of(top)},
        "finalists": [{"id": p, "name": t.name_of(p)} for p in finalists],
    }


def final_view(t: Tournament, lang: str) -> list[dict[str, Any]]:
    """ "ASÍ QUEDÓ EL TORNEO": everyone by points, with how the points were earned."""
    out = []
    for r in t.final_list():
        b = r.points
        out.append(
            {
                "position": r.position,
                "player_id": r.player_id,
                "name": r.name,
                "points": format_points(b.total, lang),
                "points_hundredths": b.total,
                "place": None if b.place is None else place_label(b.place, lang),
                "breakdown": b.to_dict(),
                "explanation": [line.strip() for line in points_lines(t, r.player_id, lang)],
            }
        )
    return out


RANKING_KINDS: tuple[str, ...] = ("tournament", "annual", "historic", "rating")


def ranking_view(
    club: Club, t: Tournament | None, kind: str, lang: str, *, year: int, category: str = "open"
) -> dict[str, Any]:
    """One of the four rankings; ``entries`` share one shape so one template shows them all."""
    entries: list[dict[str, Any]] = []
    if kind == "tournament" and t is not None:
        for r in final_view(t, lang):
            entries.append(
                {
                    "position": r["position"],
                    "player_id": r["player_id"],
                    "name": r["name"],
                    "points": r["points"],
                    "points_hundredths": r["points_hundredths"],
                }
            )
    elif kind in ("annual", "historic"):
        cat: Category = "novatos" if category == "novatos" else "open"
        ranking = club.annual_ranking(year, cat) if kind == "annual" else club.historic_ranking(cat)
        for e in ranking.entries:
            entries.append(
                {
                    "position": e.position,
                    "player_id": e.player_id,
                    "name": e.name,
                    "points": format_points(e.points, lang),
                    "points_hundredths": e.points,
                    "tournaments": e.tournaments,
                    "won": e.won,
                    "finals": e.finals,
                    "eligible": e.eligible,
                }
            )
    elif kind == "rating":
        names = club.names()
        rated = sorted(club.ratings.players.items(), key=lambda kv: (-kv[1].rating, kv[0]))
        for i, (pid, pr) in enumerate(rated, start=1):
            entries.append(
                {
                    "position": i,
                    "player_id": pid,
                    "name": names.get(pid, pid),
                    "rating": round(pr.rating, 2),
                    "rating_text": format_number(pr.rating, lang, 2),
                    "experience": pr.experience,
                    "history": [round(h.after, 2) for h in pr.history],
                }
            )
    return {"kind": kind, "year": year, "category": category, "entries": entries}


def rating_history(club: Club, player_id: str) -> list[dict[str, Any]]:
    pr = club.ratings.players.get(player_id)
    if pr is None:
        return []
    return [h.to_dict() for h in pr.history]


def player_view(club: Club, t: Tournament | None, player_id: str, lang: str) -> dict[str, Any]:
    """A player's page: rating and its history, this tournament's matches, points explained."""
    p = club.registry.get(player_id)
    rating = club.ratings.rating(player_id)
    out: dict[str, Any] = {
        "id": p.id,
        "name": p.name,
        "category": p.category,
        "rating": round(rating, 2),
        "rating_text": format_number(rating, lang, 2),
        "rating_history": rating_history(club, player_id),
        "tournaments": [],
        "current": None,
    }
    for rec in sorted(club.season.records.values(), key=lambda r: r.held_on):
        for res in rec.results:
            if res.player_id == player_id:
                out["tournaments"].append(
                    {
                        "id": rec.tournament_id,
                        "name": rec.name,
                        "held_on": rec.held_on.isoformat(),
                        "points": format_points(res.points, lang),
                        "place": None if res.place is None else place_label(res.place, lang),
                    }
                )
    if t is not None and player_id in t.entrants:
        matches = sorted(
            (m for m in t.matches.values() if player_id in m.players),
            key=lambda m: (
                ["group", "knockout", "consolation"].index(m.phase),
                m.round_no,
                m.number,
            ),
        )
        group = t.group_of(player_id)
        place_lines: list[str] = []
        if group is not None:
            try:
                place_lines = [x.strip() for x in group_place_lines(t, player_id, lang)]
            except KeyError:
                place_lines = []
        out["current"] = {
            "tournament": tournament_info(t, lang),
            "group": group,
            "matches": [match_view(t, m, lang) for m in matches],
            "points": [x.strip() for x in points_lines(t, player_id, lang)],
            "group_place": place_lines,
        }
    return out


def players_view(club: Club, t: Tournament | None, lang: str) -> list[dict[str, Any]]:
    return sorted(
        (
            {
                "id": p.id,
                "name": p.name,
                "category": p.category,
                "rating": round(club.ratings.rating(p.id), 2),
                "rating_text": format_number(club.ratings.rating(p.id), lang, 2),
                "entered": t is not None and p.id in t.entrants,
            }
            for p in club.registry
        ),
        key=lambda d: name_key(d["name"]),
    )


# ── the rating chart ─────────────────────────────────────────────────────────
COLOURS = ("#1f5c3f", "#b5651d", "#1565c0", "#c62828", "#6a1b9a", "#00838f", "#795548", "#558b2f")


def rating_chart(
    series: Sequence[tuple[str, Sequence[float]]], lang: str, *, width: int = 720, height: int = 300
) -> dict[str, Any] | None:
    """The geometry of a line chart of rating histories (one line per player, start at 1500),
    drawn as SVG by ``_rating_chart.html`` (the template escapes every name); None: no data.

    >>> chart = rating_chart([("ANA", [1510.0, 1502.5])], "es")
    >>> chart["lines"][0]["name"], [g["text"] for g in chart["grid"]][-1]
    ('ANA', '1.520')
    """
    pad_l, pad_r, pad_t, pad_b = 52, 120, 14, 26
    lines = [(name, [START_RATING, *values]) for name, values in series if values]
    if not lines:
        return None
    lo = min(min(v) for _, v in lines)
    hi = max(max(v) for _, v in lines)
    if hi - lo < 20:
        lo, hi = lo - 10, hi + 10
    n = max(len(v) for _, v in lines)
    plot_w, plot_h = width - pad_l - pad_r, height - pad_t - pad_b

    def x(i: int) -> float:
        return round(pad_l + (plot_w * i / max(1, n - 1)), 1)

    def y(v: float) -> float:
        return round(pad_t + plot_h * (hi - v) / (hi - lo), 1)

    grid = []
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        grid.append({"y": y(v), "text_y": round(y(v) + 4, 1), "text": format_number(v, lang, 0)})
    out_lines = []
    for i, (name, values) in enumerate(lines):
        last = values[-1]
        out_lines.append(
            {
                "name": name,
                "colour": COLOURS[i % len(COLOURS)],
                "points": " ".join(f"{x(j)},{y(v)}" for j, v in enumerate(values)),
                "label_x": round(x(len(values) - 1) + 6, 1),
                "label_y": round(y(last) + 4, 1),
                "last": format_number(last, lang, 0),
            }
        )
    return {
        "width": width,
        "height": height,
        "label": tr(lang, "rank.history"),
        "left": pad_l,
        "right": pad_l + plot_w,
        "top": pad_t,
        "bottom": pad_t + plot_h,
        "grid": grid,
        "lines": out_lines,
    }
