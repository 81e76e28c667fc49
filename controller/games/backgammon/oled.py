"""What the OLED shows: a pure function from the table's view (and the runtime's status) to an
image. No device, no thread, no clock: the same arguments always give the same pixels.

>>> from mesa.games.backgammon.machine import Table
>>> from mesa.games.backgammon.view import table_view
>>> from mesa.controller.runtime import TableStatus
>>> t = Table()
>>> _ = t.apply("assign", {"match_id": "G1-1", "players": {"a": "Ana", "b": "Beto"},
...                        "length": 5, "clock": {"preset": "singles"}}, now=0.0)
>>> _ = t.apply("press", {"side": "a"}, now=1.0); _ = t.apply("press", {"side": "b"}, now=2.0)
>>> _ = t.apply("press", {"side": "a"}, now=3.0)             # a rolled lower: b on move
>>> screen = compose(table_view(t, now=10.5), TableStatus(table_id="7"), now=10.5)
>>> screen.names, screen.highlight, screen.clocks, screen.delays, screen.score
(('Ana', 'Beto'), 'b', ('10:00', '10:00'), ('+10', '+3'), '0-0 a 5')
>>> render(table_view(t, now=10.5), TableStatus(), now=10.5).size
(128, 64)

:func:`compose` decides the words (in the match's language), :func:`draw` places them for one of
the supported sizes: 128×64 (SSD1306/SH1106), 128×32 and 256×64 (SSD1322).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from mesa.controller.canvas import CYCLE, SIZES, Canvas, cycle
from mesa.controller.font import draw_seven_segment, seven_segment_width
from mesa.controller.i18n import text
from mesa.controller.runtime import TableStatus
from mesa.games.backgammon.view import View
from mesa.words import format_clock as words_clock

if TYPE_CHECKING:
    from PIL import Image as ImageModule

__all__ = [
    "SIZES",
    "Geometry",
    "Screen",
    "compose",
    "draw",
    "format_clock",
    "format_delay",
    "render",
    "short_name",
]

SHORT_NAME = 12  # longer names are shortened in messages ("Maximiliano F.")


def format_clock(seconds: float) -> str:
    """The main figure: ``M:SS``, ``H:MM:SS`` past an hour, tenths under 10 s, rounded down.

    :func:`mesa.words.format_clock` with tenths: the one clock formatter (its docstring gives
    the rounding rule), so the table and the hub's pages read the same figure.

    >>> format_clock(600.0), format_clock(59.99), format_clock(9.96), format_clock(3725.0)
    ('10:00', '0:59', '9.9', '1:02:05')
    >>> format_clock(-1.0)
    '0.0'
    """
    return words_clock(seconds, tenths=True)


def format_delay(seconds: float) -> str:
    """The delay left, rounded up (a fresh 10 s delay reads ``+10``); empty once spent."""
    return f"+{math.ceil(seconds - 1e-9)}" if seconds > 1e-9 else ""


def _mmss(seconds: float) -> str:
    return words_clock(seconds)  # the one clock rule: rounded down, as the hub shows it


@dataclass(frozen=True)
class Screen:
    """The words on the screen, before any pixel is placed.

    ``pin`` is the line a player must read (a double to answer, a result to confirm, the selected
    menu item): it never takes turns with anything. ``lines`` are the secondary lines, ``info``
    the quiet facts for the bottom third (game and match length, the cube in words).
    """

    layout: str  # idle, checkin, clocks, over
    title: str = ""
    names: tuple[str, str] = ("", "")
    highlight: str | None = None  # the side on move: its name is shown inverted
    clocks: tuple[str, str] | None = None
    delays: tuple[str, str] = ("", "")
    cube: str = ""
    cube_side: str | None = None
    score: str = ""
    tag: str = ""  # CRAWFORD, POST-CRAWFORD, DMP
    banner: str = ""  # the most urgent message, shown inverted
    pin: str = ""
    lines: tuple[str, ...] = ()
    info: tuple[str, ...] = ()
    big: str = ""


def short_name(name: str) -> str:
    """A name short enough for a message: past 12 characters, the first name(s) and an initial.

    >>> short_name("Ana"), short_name("Maximiliano Fernández-Castillo")
    ('Ana', 'Maximiliano F.')
    >>> short_name("Mª José Lozano Díaz"), short_name("Bartolomeo-Maria")
    ('Mª José L.', 'Bartolomeo-M')
    """
    if len(name) <= SHORT_NAME:
        return name
    words = name.split()
    kept: list[str] = []
    for word in words[:-1]:
        if len(" ".join([*kept, word])) > SHORT_NAME - 1:
            break
        kept.append(word)
    if kept:
        return f"{' '.join(kept)} {words[len(kept)][0]}."
    return name[:SHORT_NAME]


def _banner(view: View, status: TableStatus, now: float, lang: str) -> str:
    if status.restored:
        if status.restored_problems:
            return text(lang, "banner.restored_problems", count=len(status.restored_problems))
        return text(lang, "banner.restored")
    if view.state == "paused" and view.pause_reason == "timeout" and view.last_flag:
        name = short_name(view.players.get(view.last_flag, view.last_flag))
        return text(lang, "banner.flag", name=name)
    if view.director_call:
        return text(lang, "banner.director")
    return ""


def _notice(view: View, status: TableStatus, now: float, lang: str) -> str:
    if status.disk_full:  # events wait in memory until there is room: the director must know
        return text(lang, "notice.disk_full")
    if status.notice and now < status.notice_until:
        return text(lang, status.notice, card=status.notice_arg or "?")
    if status.card_reader == "missing" and view.state in ("assigned", "checking_in"):
        return text(lang, "notice.reader_missing")
    if status.hub == "offline" and view.state in ("idle", "match_over"):
        return text(lang, "notice.hub_offline")
    return ""


def _player(view: View, side: str) -> str:
    return short_name(view.players.get(side, side))


def _menu_label(view: View, item: str) -> str:
    lang = view.language
    if len(item) == 2 and item[0] in "ab" and item[1] in "123":
        kind = int(item[1])
        return text(
            lang,
            "menu.result",
            name=_player(view, item[0]),
            kind=text(lang, f"kind.{kind}"),
            points=kind * view.cube_value,
        )
    return text(lang, f"menu.{item}")


def _tag(view: View) -> str | None:
    if view.crawford == "crawford":
        return "crawford.crawford"
    if view.double_match_point:
        return "crawford.dmp"
    if view.crawford == "post":
        return "crawford.post"
    return None


def _cube_words(view: View, lang: str) -> str:
    if view.crawford == "crawford" or view.double_match_point:
        return text(lang, "info.cube_dead")
    if view.cube_owner in ("a", "b"):
        return text(
            lang, "info.cube_owned", value=view.cube_value, name=_player(view, view.cube_owner)
        )
    return text(lang, "info.cube_centre")


def _over(view: View, status: TableStatus, lang: str, banner: str, notice: str) -> Screen:
    names = (_player(view, "a"), _player(view, "b"))
    winner = short_name(view.players.get(view.winner or "", view.winner or ""))
    how = text(lang, f"over.how.{view.ended_by}") if view.ended_by else ""
    return Screen(
        "over",
        title=text(lang, "over.title", match=view.match_id or ""),
        names=names,
        big=text(lang, "over.winner", name=winner),
        score=text(lang, "over.score", a=view.score["a"], b=view.score["b"]),
        banner=banner,
        lines=tuple(x for x in (how, *notice.split("\n")) if x),
    )


def _checkin(view: View, status: TableStatus, lang: str, banner: str, notice: str) -> Screen:
    """Assigned or checking in: who is here, lateness, what to do."""
    title = text(lang, "checkin.match", match=view.match_id or "", length=view.length)
    rows: list[str] = []
    late = view.lateness
    if late is not None and late.next_point_in is not None and len(late.present) == 1:
        who = _player(view, late.present[0])
        rows.append(text(lang, "checkin.late_point", name=who, time=_mmss(late.next_point_in)))
    if late is not None and any(late.points.values()):
        rows.append(text(lang, "checkin.late_score", a=late.points["a"], b=late.points["b"]))
    if notice:
        rows += notice.split("\n")
    rows.append(text(lang, "checkin.prompt"))
    if status.card_reader is not None:
        rows.append(text(lang, "checkin.prompt_card"))
    marks = ("√" if "a" in view.checked_in else "...", "√" if "b" in view.checked_in else "...")
    names = (view.players.get("a", ""), view.players.get("b", ""))
    return Screen(
        "checkin", title=title, names=names, delays=marks, banner=banner, lines=tuple(rows)
    )


# What a state of play asks of the players: (pin, lines, banner), from the banner so far.
Prompt = tuple[str, tuple[str, ...], str]


def _menu_prompt(view: View, lang: str) -> tuple[str, tuple[str, ...]]:
    item = view.menu[view.menu_cursor % len(view.menu)] if view.menu else ""
    if not item:
        return "", ()
    pin = "> " + _menu_label(view, item)
    return pin, (pin, text(lang, "pause.hint"))


def _between_prompt(view: View, lang: str, banner: str, tag: str) -> Prompt:
    first = text(lang, "between.prompt", game=view.game + 1)
    lines = (
        f"{first} · {tag}" if tag else first,
        text(lang, "between.prompt2"),
        text(lang, "between.prompt3"),
    )
    return lines[2], lines, banner


def _cube_prompt(view: View, lang: str, banner: str) -> Prompt:
    who = _player(view, view.cube_offered_by or "")
    pin = text(lang, "cube.offer", name=who, value=view.cube_value * 2)
    return pin, (text(lang, "cube.take"), text(lang, "cube.pass")), banner or pin


def _paused_prompt(view: View, lang: str, banner: str) -> Prompt:
    reason = text(lang, f"reason.{view.pause_reason or 'unspecified'}")
    key = "pause.by_director" if view.paused_by == "director" else "pause.title"
    pin, lines = _menu_prompt(view, lang)
    return pin, lines, banner or text(lang, key, reason=reason)


def _result_prompt(view: View, lang: str, banner: str) -> Prompt:
    claim = view.claim
    if claim:
        opponent = "b" if claim["by"] == "a" else "a"
        winner = _player(view, claim["winner"])
        points = claim["kind"] * view.cube_value
        pin = text(lang, "result.claim", winner=winner, points=points)
        answer = text(lang, "result.answer", name=_player(view, opponent))
        return pin, (answer, text(lang, "result.reject")), banner or pin
    pin, lines = _menu_prompt(view, lang)
    key = "result.title_concession" if view.pause_reason == "concession" else "result.title"
    return pin, lines, banner or text(lang, key)


def _prompt(view: View, lang: str, banner: str, tag: str) -> Prompt:
    st = view.state
    if st == "between_games":
        return _between_prompt(view, lang, banner, tag)
    if st == "cube_offered" and view.cube_offered_by:
        return _cube_prompt(view, lang, banner)
    if st == "paused":
        return _paused_prompt(view, lang, banner)
    if st == "result_entry":
        return _result_prompt(view, lang, banner)
    return "", (), banner


def _clock_faces(view: View) -> tuple[tuple[str, str] | None, tuple[str, str]]:
    """The two clocks' figures and delays (None: an untimed match)."""
    if not (view.timed and view.clocks):
        return None, ("", "")
    a, b = view.clocks["a"], view.clocks["b"]
    delays = (format_delay(a.delay), format_delay(b.delay)) if view.display == "delay" else ("", "")
    return (format_clock(a.shown), format_clock(b.shown)), delays


def _play(view: View, lang: str, banner: str, notice: str) -> Screen:
    """The clocks' layout: a game on, between games, a double, a pause, a result."""
    clocks, delays = _clock_faces(view)
    tag_key = _tag(view)
    tag = text(lang, tag_key) if tag_key else ""
    game = view.game if view.state != "between_games" else view.game + 1
    info: tuple[str, ...] = (
        text(lang, "info.match", game=max(game, 1), length=view.length),
        _cube_words(view, lang),
        tag,
    )
    coming = (
        text(lang, f"clock.next_{view.clock_next}", game=view.game + 1) if view.clock_next else ""
    )
    if coming and view.timed:
        info = (coming, *info)  # a clock change ordered for the next game (HGV 9.1.1)
    pin, lines, banner = _prompt(view, lang, banner, tag)
    if notice:
        # A notice (a refused double, an unknown card) comes first for its few seconds; on a small
        # screen its lines are pinned as one.
        lines = (notice, pin) if pin else (notice,)
        pin = pin or notice
    return Screen(
        "clocks",
        names=(view.players.get("a", ""), view.players.get("b", "")),
        highlight=view.on_move,
        clocks=clocks,
        delays=delays,
        cube=str(view.cube_value) if view.cube_owner else "",
        cube_side=view.cube_owner,
        score=text(lang, "score.line", a=view.score["a"], b=view.score["b"], length=view.length),
        tag=tag,
        banner=banner,
        pin=pin,
        lines=lines,
        info=tuple(x for x in info if x),
        # An untimed match says where its clocks would be: none, or the one coming next game.
        title=(coming if view.clock_next == "on" else text(lang, "untimed")) if not view.timed
        else "",
    )


def compose(view: View, status: TableStatus, now: float) -> Screen:
    """The words for ``view`` at ``now`` (see the module example)."""
    lang = view.language
    if view.state == "idle" and status.language:
        lang = status.language  # before any match: the table's own setting
    banner = _banner(view, status, now, lang)
    notice = _notice(view, status, now, lang)
    st = view.state
    if st == "idle":
        return Screen(
            "idle",
            title=text(lang, "idle.title", table=status.table_id or "-"),
            banner=banner,
            lines=(text(lang, "idle.no_match"), *(notice.split("\n") if notice else ())),
        )
    held = status.held_result
    if st == "assigned" and held is not None and held.state == "match_over":
        # The finished match stays on screen until a player presses (or checks in).
        over = _over(held, status, held.language, banner, "")
        nxt = text(held.language, "over.next", match=view.match_id or "")
        return replace(over, lines=(*over.lines, nxt)[-2:])
    if st in ("assigned", "checking_in"):
        return _checkin(view, status, lang, banner, notice)
    if st == "match_over":
        return _over(view, status, lang, banner, notice)
    return _play(view, lang, banner, notice)


# ── pixels ─────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class Geometry:
    clock_y: int
    clock_h: int
    info_y: int
    rows: tuple[int, ...]  # the bottom rows under the score (none on 128×32)
    text_ys: tuple[int, ...]  # rows of the text-only layouts


GEOMETRY: dict[tuple[int, int], Geometry] = {
    (128, 64): Geometry(10, 16, 28, (37, 46, 55), (0, 9, 18, 27, 36, 45, 54)),
    (128, 32): Geometry(9, 14, 24, (), (0, 8, 16, 24)),
    (256, 64): Geometry(10, 24, 37, (46, 55), (0, 9, 18, 27, 36, 45, 54)),
}


def _draw_names(c: Canvas, s: Screen) -> None:
    half = c.w // 2
    for i, side in enumerate(("a", "b")):
        x0, x1 = i * half, (i + 1) * half
        c.text(0, s.names[i], "left" if i == 0 else "right", x0, x1, invert=s.highlight == side)


def _draw_clock_digits(c: Canvas, s: Screen, y: int, h: int) -> None:
    half = c.w // 2
    if s.clocks is None:
        c.text(y + (h - 8) // 2, s.title or "")
        return
    for i, value in enumerate(s.clocks):
        x0 = i * half
        for digit_w in (h * 5 // 8, h // 2, h * 3 // 8):
            w = seven_segment_width(value, digit_w)
            if w <= half - 4:
                break
        draw_seven_segment(c.img, (x0 + (half - w) // 2, y), value, digit_w, h)


def _draw_score_row(c: Canvas, s: Screen, y: int, with_tag: bool = False) -> None:
    half = c.w // 2
    c.text(y, s.delays[0], "left", 0, half)
    c.text(y, s.delays[1], "right", half, c.w)
    margin = max(c.font.width(d) for d in s.delays) + 4
    middle = s.score
    if with_tag and s.tag:
        for joined in (f"{s.score} · {s.tag}", f"{s.score} {s.tag}"):
            if c.small.width(joined) <= c.w - 2 * margin - 2:
                middle = joined
                break
    font = c.pick(middle, c.w - 2 * margin)
    c.text(y, middle, "center", margin, c.w - margin, font=font)
    if s.cube and s.cube_side in ("a", "b"):
        # The cube's box sits on its owner's side of the score (the owner is also in words).
        label = f"{s.cube}"
        w = c.font.width(label) + 4
        score_w = font.width(middle)
        mid = margin + (c.w - 2 * margin) // 2
        if s.cube_side == "a":
            x = max(margin - 2, mid - score_w // 2 - w - 5)
        else:
            x = min(c.w - margin + 2 - w, mid + (score_w + 1) // 2 + 5)
        c.text(y, label, "center", x, x + w, invert=True, font=c.font)


def _draw_clocks(c: Canvas, s: Screen, g: Geometry) -> None:
    _draw_names(c, s)
    if not g.rows:
        _draw_clocks_small(c, s, g)
        return
    _draw_clock_digits(c, s, g.clock_y, g.clock_h)
    _draw_score_row(c, s, g.info_y)
    rows: list[tuple[str, bool]] = []
    if s.banner:
        rows.append((s.banner, True))
    for line in s.lines:
        # A line with "\n" (a notice) is one row where it fits, else one row per part.
        whole = line.replace("\n", " ")
        if c.font.width(whole) <= c.w - 4:
            rows.append((whole, False))
        else:
            rows += [(part, False) for part in line.split("\n")]
    pin = s.pin.replace("\n", " ")
    rows = _pack(c, rows, len(g.rows), pin)
    if len(rows) < len(g.rows):
        # The quiet facts fill what is left.
        rows += _pack(c, [(line, False) for line in s.info], len(g.rows) - len(rows), "")
    for y, (line, inv) in zip(g.rows, rows, strict=False):
        c.text(y, line, invert=inv)


def _pack(c: Canvas, rows: list[tuple[str, bool]], n: int, pin: str) -> list[tuple[str, bool]]:
    """Fit ``rows`` (text, inverted) into ``n`` rows: plain rows that fit side by side share one;
    the banner, the pinned line and the rows that fit stay; what is left over is dropped, except
    on a two-row screen, where the last row takes turns among the rest."""
    if len(rows) <= n:
        return rows
    packed: list[tuple[str, bool]] = []
    for text_, inv in rows:
        if packed and not inv and not packed[-1][1] and pin not in (text_, packed[-1][0]):
            joined = f"{packed[-1][0]} · {text_}"
            if c.font.width(joined) <= c.w - 4:
                packed[-1] = (joined, False)
                continue
        packed.append((text_, inv))
    if len(packed) <= n or n >= 3 or n < 2:
        return packed[:n]
    must = [r for r in packed if r[1] or r[0] == pin]
    if len(must) >= n:
        return must[:n]
    keep = must or packed[: n - 1]
    rest = [r for r in packed if r not in keep]
    turn = rest[int(c.now // CYCLE) % len(rest)]
    return [r for r in packed if r in keep or r == turn]


def _draw_clocks_small(c: Canvas, s: Screen, g: Geometry) -> None:
    """128×32: with nothing to answer, clocks and the score; with a message, smaller clocks,
    the pinned line, and one condensed row where the secondary lines take turns."""
    message = s.pin or s.banner or s.lines
    if not message:
        _draw_clock_digits(c, s, g.clock_y, g.clock_h)
        _draw_score_row(c, s, g.info_y, with_tag=True)
        return
    _draw_clock_digits(c, s, 9, 10)
    pin = (s.pin or s.banner or s.lines[0]).replace("\n", " ")
    secondary = [x.replace("\n", " ") for x in (s.banner, *s.lines) if x and x != s.pin]
    secondary = [x for x in secondary if x != pin]
    secondary.append(f"{s.score} · {s.tag}" if s.tag else s.score)
    c.text(19, pin, invert=pin == s.banner, font=c.pick(pin, c.w), band=7)
    turn = cycle(secondary, c.now)
    x = (c.w - min(c.small.width(turn), c.w - 2)) // 2
    c.small.draw(c.img, (x, 26), c.small.fit(turn, c.w - 2))


def _draw_rows(c: Canvas, rows: list[tuple[str, str, bool]], ys: tuple[int, ...]) -> None:
    """Text rows (text, align, inverted); extra rows take turns in the last slot."""
    if len(rows) > len(ys):
        keep = rows[: len(ys) - 1]
        extra = rows[len(ys) - 1 :]
        pick = extra[int(c.now // CYCLE) % len(extra)]
        rows = [*keep, pick]
    for y, (s, align, inv) in zip(ys, rows, strict=False):
        c.text(y, s, align, invert=inv)


def _draw_checkin(c: Canvas, s: Screen, g: Geometry) -> None:
    top = (s.banner, "center", True) if s.banner else (s.title, "center", False)
    ys = g.text_ys
    c.text(ys[0], *top[:2], invert=top[2])
    mark_w = c.font.width("...") + 4
    for i in range(2):
        c.text(ys[1 + i], s.names[i], "left", 0, c.w - mark_w)
        c.text(ys[1 + i], s.delays[i], "right", c.w - mark_w, c.w)
    rows = [(line, "center", False) for line in s.lines]
    _draw_rows(c, rows, ys[3:])


def _draw_idle(c: Canvas, s: Screen, g: Geometry) -> None:
    ys = g.text_ys
    tall = c.h >= 64
    if s.banner:
        c.text(ys[0], s.banner, invert=True)
    if tall:
        c.text(ys[1] + 4, s.title, font=c.big)
        _draw_rows(c, [(line, "center", False) for line in s.lines], (ys[4], ys[5], ys[6]))
    else:
        c.text(ys[0] if not s.banner else ys[1], s.title)
        _draw_rows(c, [(line, "center", False) for line in s.lines], ys[2:])


def _draw_over(c: Canvas, s: Screen, g: Geometry) -> None:
    ys = g.text_ys
    half = c.w // 2
    c.text(ys[0], s.banner or s.title, invert=bool(s.banner))
    if c.h >= 64:
        font = c.big if c.big.width(s.big) <= c.w - 4 else None
        c.text(10, s.big, font=font)
        h = 14 if c.w < 256 else 16
        w = seven_segment_width(s.score, h * 5 // 8)
        draw_seven_segment(c.img, ((c.w - w) // 2, 28), s.score, h * 5 // 8, h)
        # Each score under its player's side, the names beside it.
        c.text(31, s.names[0], "right", 0, (c.w - w) // 2 - 3)
        c.text(31, s.names[1], "left", (c.w + w) // 2 + 3, c.w)
        _draw_rows(c, [(line, "center", False) for line in s.lines], (46, 55))
    else:
        c.text(ys[1], s.big)
        a, _, b = s.score.partition("-")
        c.text(ys[2], s.names[0], "left", 0, half - 12)
        c.text(ys[2], f"{a}-{b}", "center", half - 12, half + 12)
        c.text(ys[2], s.names[1], "right", half + 12, c.w)
        _draw_rows(c, [(line, "center", False) for line in s.lines], (ys[3],))


def draw(screen: Screen, size: tuple[int, int] = (128, 64), now: float = 0.0) -> ImageModule.Image:
    """Place ``screen`` on a monochrome image of ``size`` (one of :data:`SIZES`)."""
    if size not in GEOMETRY:
        raise ValueError(f"unsupported display size {size}; supported: {sorted(GEOMETRY)}")
    c = Canvas(size, now)
    g = GEOMETRY[size]
    {"clocks": _draw_clocks, "checkin": _draw_checkin, "idle": _draw_idle, "over": _draw_over}[
        screen.layout
    ](c, screen, g)
    return c.img


def render(
    view: View, status: TableStatus, now: float, size: tuple[int, int] = (128, 64)
) -> ImageModule.Image:
    """The frame for ``view`` at ``now``: :func:`compose` then :func:`draw`."""
    return draw(compose(view, status, now), size, now)
