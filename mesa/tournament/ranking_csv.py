"""Ranking CSV import (all or nothing, every bad row reported) and export.

>>> from mesa.tournament.players import PlayerRegistry
>>> reg = PlayerRegistry()
>>> _ = reg.add_new("ALEX"); _ = reg.add_new("EL MANU")
>>> r = import_ranking("nombre;puntos\\nALEX;2,30\\nEL MANU;1,34\\n", reg).ranking
>>> [(e.name, e.points) for e in r.entries]
[('ALEX', 230), ('EL MANU', 134)]
>>> import_ranking("name,points\\nALEX,x\\nNOBODY,1\\n", reg)
Traceback (most recent call last):
...
mesa.tournament.errors.RankingCSVError: ranking CSV has 2 bad row(s), nothing imported:
  line 2: points: 'x' is not a number
  line 3: unknown player 'NOBODY' (register them first, or import with create_missing=True)
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from mesa.tournament.csv_cells import csv_writer
from mesa.tournament.errors import RankingCSVError, RowError, UnknownPlayerError
from mesa.tournament.i18n import check_lang
from mesa.tournament.players import Category, Player, PlayerRegistry, normalize_name
from mesa.tournament.points import parse_points
from mesa.tournament.season import Ranking, order_ranking
from mesa.tournament.text_files import check_text
from mesa.words import format_points

EXPORT_HEADERS = {
    "es": ["posicion", "jugador", "nombre", "puntos", "torneos", "ganados", "finales",
           "premio"],
    "en": ["position", "player_id", "name", "points", "tournaments", "won", "finals",
           "eligible"],
}
# Column names accepted on import (compared without case or accents).
ALIASES = {
    "position": ("posicion", "position", "pos", "puesto"),
    "player_id": ("jugador", "player_id", "id", "player"),
    "name": ("nombre", "name"),
    "points": ("puntos", "points", "pts"),
    "tournaments": ("torneos", "tournaments", "jugados", "played"),
    "won": ("ganados", "won", "torneos_ganados", "titles"),
    "finals": ("finales", "finals", "finales_jugadas"),
    "card_id": ("tarjeta", "card", "card_id"),
}


def export_ranking(ranking: Ranking, lang: str = "es") -> str:
    """A ranking as CSV: ``;`` and decimal comma in Spanish, ``,`` and point in English."""
    lang = check_lang(lang)
    buf = io.StringIO()
    w = csv_writer(buf, ";" if lang == "es" else ",")  # formulas neutralised
    w.writerow(EXPORT_HEADERS[lang])
    yes, no = ("sí", "no") if lang == "es" else ("yes", "no")
    for e in ranking.entries:
        w.writerow([e.position, e.player_id, e.name,
                    format_points(e.points, lang, grouping=False),  # read back
                    e.tournaments, e.won, e.finals, yes if e.eligible else no])
    return buf.getvalue()


@dataclass(frozen=True)
class ImportedRanking:
    ranking: Ranking
    new_players: tuple[Player, ...]


def _delimiter(header_line: str) -> str:
    counts = {d: header_line.count(d) for d in (";", ",", "\t")}
    return max(counts, key=lambda d: counts[d]) if any(counts.values()) else ","


Problem = tuple[str, str, tuple[tuple[str, object], ...]]


def _p(message: str, reason: str, **params: object) -> Problem:
    """One problem of a row: English for logs, a reason and its values for translation."""
    return message, reason, tuple(params.items())


def _column_map(header: list[str]) -> tuple[dict[str, int], list[Problem]]:
    cols: dict[str, int] = {}
    problems: list[Problem] = []
    for i, raw in enumerate(header):
        key = normalize_name(raw).replace(" ", "_")
        for field, names in ALIASES.items():
            if key in names:
                if field in cols:
                    problems.append(_p(f"column {raw!r} repeats {field}", "csv_repeats",
                                       column=raw, field=field))
                cols[field] = i
    if "points" not in cols:
        problems.append(_p("no points column (puntos/points)", "csv_no_points",
                           columns="puntos/points"))
    if "name" not in cols and "player_id" not in cols:
        problems.append(_p("no name or player id column (nombre/name, jugador/player_id)",
                           "csv_no_name", columns="nombre/name, jugador/player_id"))
    return cols, problems


def _count(value: str, what: str, errors: list[Problem]) -> int:
    v = value.strip()
    if not v:
        return 0
    if not v.isdigit():
        errors.append(_p(f"{what}: {value!r} is not a whole number ≥ 0", "csv_count",
                         field=what, value=value))
        return 0
    return int(v)


def import_ranking(
    text: str,
    registry: PlayerRegistry,
    *,
    category: Category = "open",
    title: str = "imported",
    create_missing: bool = False,
) -> ImportedRanking:
    """Read a ranking CSV; raise :class:`RankingCSVError` listing every bad row.

    Columns (Spanish or English names, ``;`` ``,`` or tab separated): ``points`` and either
    ``name`` or ``player_id`` are required; ``position``, ``tournaments``, ``won``,
    ``finals`` and ``card_id`` are optional; other columns are ignored. Points take a decimal
    comma or point. Players are matched by id, card, then name; unknown names are an error
    unless ``create_missing``, which registers them, but only when the whole file is valid.
    """
    rows = _read(text, registry, create_missing)
    return _ranking([r for _, r in rows], registry, category, title)


@dataclass(frozen=True)
class PreviewRow:
    """One row as it will be imported: its line, name, points (hundredths) and player id
    (None: a new player would be registered)."""

    line: int
    name: str
    points: int
    player_id: str | None


@dataclass(frozen=True)
class RankingPreview:
    """What importing a ranking would do, before anything is created: the first rows, how
    many rows, and the names it would register for the first time."""

    rows: tuple[PreviewRow, ...]
    total: int
    new_names: tuple[str, ...]

    @property
    def matched(self) -> int:
        return self.total - len(self.new_names)


def preview_ranking(text: str, registry: PlayerRegistry, *, create_missing: bool = False,
                    first: int = 10) -> RankingPreview:
    """:func:`import_ranking` without its effects: the same checks (the same
    :class:`RankingCSVError`), nothing registered.

    >>> from mesa.tournament.players import PlayerRegistry
    >>> reg = PlayerRegistry(); _ = reg.add_new("ALEX")
    >>> p = preview_ranking("nombre;puntos\\nALEX;2,30\\nJOSÉ;1\\n", reg, create_missing=True)
    >>> [(r.line, r.name, r.points, r.player_id) for r in p.rows], p.new_names, len(reg)
    ([(2, 'ALEX', 230, 'P0001'), (3, 'JOSÉ', 100, None)], ('JOSÉ',), 1)
    """
    rows = _read(text, registry, create_missing)
    return RankingPreview(
        tuple(PreviewRow(line, r[1], r[2], r[0]) for line, r in rows[:first]), len(rows),
        tuple(r[1] for _, r in rows if r[0] is None))


def _read(text: str, registry: PlayerRegistry,
          create_missing: bool) -> list[tuple[int, _Line]]:
    """Every valid row with its line; :class:`RankingCSVError` listing every bad one."""
    text = check_text(text)  # a character already lost (U+FFFD) would make a broken name
    reader = csv.reader(io.StringIO(text), delimiter=_delimiter(_header_line(text)))
    header = next(reader)
    cols, problems = _column_map(header)
    if problems:
        raise RankingCSVError([RowError(1, *p) for p in problems])
    errors: list[RowError] = []
    seen: dict[str, int] = {}
    rows: list[tuple[int, _Line]] = []
    for row in reader:
        line = reader.line_num
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            errors.append(RowError(line, f"expected {len(header)} fields, found {len(row)}",
                                   "csv_fields", (("want", len(header)), ("got", len(row)))))
            continue
        problems = []
        parsed = _read_row(_Cells(row, cols), line, registry, create_missing, seen, problems)
        if problems:
            errors.extend(RowError(line, *p) for p in problems)
            continue
        rows.append((line, parsed))
    if errors:
        raise RankingCSVError(errors)
    return rows


# One valid row: the known player's id (None: to be created), name, points, tournaments played,
# won and finals.
_Line = tuple[str | None, str, int, int, int, int]


def _header_line(text: str) -> str:
    first = text.splitlines()[0] if text.strip() else ""
    if not first.strip():
        raise RankingCSVError([RowError(1, "the file is empty: it needs a header line",
                                        "csv_empty")])
    return first


@dataclass(frozen=True)
class _Cells:
    """A row's cells by field name ("" for a column the file does not have)."""

    row: list[str]
    cols: dict[str, int]

    def get(self, field: str) -> str:
        return self.row[self.cols[field]].strip() if field in self.cols else ""

    def has(self, field: str) -> bool:
        return field in self.cols


def _read_row(cells: _Cells, line: int, registry: PlayerRegistry, create_missing: bool,
              seen: dict[str, int], problems: list[Problem]) -> _Line:
    name = cells.get("name")
    player = _who(cells, registry, create_missing, problems)
    points, played, won, finals = _numbers(cells, problems)
    key = player.id if player else normalize_name(name)
    if key and key in seen:
        problems.append(_p(f"player already listed on line {seen[key]}", "csv_twice",
                           line=seen[key]))
    elif key:
        seen[key] = line
    return (player.id if player else None, name or (player.name if player else ""),
            points, played, won, finals)


def _who(cells: _Cells, registry: PlayerRegistry, create_missing: bool,
         problems: list[Problem]) -> Player | None:
    """The row's player: by id (its name must agree), by card, then by name."""
    name, pid, card = cells.get("name"), cells.get("player_id"), cells.get("card_id")
    if pid:
        if pid not in registry:
            problems.append(_p(f"unknown player id {pid!r}", "csv_unknown_id", player=pid))
            return None
        player = registry.get(pid)
        if name and normalize_name(name) != normalize_name(player.name):
            problems.append(_p(f"name {name!r} does not match {pid} ({player.name})",
                               "csv_name_mismatch", name=name, player=pid, known=player.name))
        return player
    if card:
        try:
            return registry.by_card(card)
        except UnknownPlayerError:
            problems.append(_p(f"unknown card {card!r}", "csv_unknown_card", card=card))
            return None
    if name:
        found = registry.find_name(name)
        if found is None and not create_missing:
            problems.append(_p(f"unknown player {name!r} (register them first, or import "
                               "with create_missing=True)", "csv_unknown_name", name=name))
        return found
    problems.append(_p("a row needs a name or a player id", "csv_no_who"))
    return None


def _numbers(cells: _Cells, problems: list[Problem]) -> tuple[int, int, int, int]:
    """Points, tournaments played, won and finals, each checked, and checked together."""
    raw = cells.get("points")
    try:
        points = parse_points(raw)
        if points < 0:
            problems.append(_p(f"points: {raw!r} is negative", "csv_negative", value=raw))
    except ValueError as e:
        problems.append(_p(f"points: {e}", "csv_points", value=raw))
        points = 0
    position = cells.get("position")
    if position and not position.isdigit():
        problems.append(_p(f"position: {position!r} is not a whole number",
                           "csv_position", value=position))
    played = _count(cells.get("tournaments"), "tournaments", problems)
    won = _count(cells.get("won"), "won", problems)
    finals = _count(cells.get("finals"), "finals", problems)
    if cells.has("finals") and won > finals:
        problems.append(_p(f"won {won} tournaments but played only {finals} finals",
                           "csv_won_finals", won=won, finals=finals))
    if cells.has("tournaments") and max(won, finals) > played:
        problems.append(_p(f"more finals or wins than tournaments played ({played})",
                           "csv_finals_played", played=played))
    return points, played, won, finals


def _ranking(rows: list[_Line], registry: PlayerRegistry, category: Category,
             title: str) -> ImportedRanking:
    """The ranking of a valid file, registering the players it names for the first time."""
    created: list[Player] = []
    totals: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    for pid_or_none, name, points, played, won, finals in rows:
        if pid_or_none is None:
            p = registry.add_new(name, category=category)
            created.append(p)
            pid_or_none = p.id
        totals[pid_or_none] = [points, played, won, finals]
        names[pid_or_none] = registry.get(pid_or_none).name
    return ImportedRanking(order_ranking(totals, names, title, category), tuple(created))
