"""What the OLED shows: a pure function from the table's view (and the runtime's status) to an
image. No device, no thread, no clock: the same arguments always give the same pixels.

>>> from mesa.table.machine import Table
>>> from mesa.table.view import table_view
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
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mesa.controller.font import TextFont, draw_seven_segment, seven_segment_width
from mesa.controller.i18n import text
from mesa.controller.runtime import TableStatus
from mesa.table.view import View

if TYPE_CHECKING:
    from PIL import Image as ImageModule

SIZES: tuple[tuple[int, int], ...] = ((128, 64), (128, 32), (256, 64))
CYCLE = 2.0  # seconds each alternating line stays on a small screen


def format_clock(seconds: float) -> str:
    """The main figure: ``M:SS``, ``H:MM:SS`` past an hour, tenths under 10 s.

    >>> format_clock(600.0), format_clock(59.99), format_clock(9.96), format_clock(3725.0)
    ('10:00', '0:59', '9.9', '1:02:05')
    >>> format_clock(-1.0)
    '0.0'
    """
    s = max(0.0, seconds)
    if s < 10.0:
        return f"{math.floor(s * 10 + 1e-9) / 10:.1f}"
    total = math.floor(s + 1e-9)
    h, rem = divmod(total, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def format_delay(seconds: float) -> str:
    """The delay left, rounded up (a fresh 10 s delay reads ``+10``); empty once spent."""
    return f"+{math.ceil(seconds - 1e-9)}" if seconds > 1e-9 else ""


def _mmss(seconds: float) -> str:
    s = max(0, math.ceil(seconds - 1e-9))
    return f"{s // 60}:{s % 60:02d}"


@dataclass(frozen=True)
class Screen:
    """The words on the screen, before any pixel is placed."""

    layout: str  # idle, checkin, clocks, over
    title: str = ""
    names: tuple[str, str] = ("", "")
    highlight: str | None = None  # the side on move: its name is shown inverted
    clocks: tuple[str, str] | None = None
    delays: tuple[str, str] = ("", "")
    cube: str = ""
    cube_side: str | None = None
    score: str = ""
    tag: str = ""  # CRAWFORD, POST-CRAWFORD
    banner: str = ""  # the most urgent message, shown inverted
    lines: tuple[str, ...] = ()
    big: str = ""


def _banner(view: View, status: TableStatus, now: float, lang: str) -> str:
    if status.restored:
        if status.restored_problems:
            return text(lang, "banner.restored_problems", count=len(status.restored_problems))
        return text(lang, "banner.restored")
    if view.state == "paused" and view.pause_reason == "timeout" and view.last_flag:
        return text(lang, "banner.flag", name=view.players.get(view.last_flag, view.last_flag))
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


def _menu_label(view: View, item: str) -> str:
    lang = view.language
    if len(item) == 2 and item[0] in "ab" and item[1] in "123":
        kind = int(item[1])
        return text(
            lang,
            "menu.result",
            name=view.players.get(item[0], item[0]),
            kind=text(lang, f"kind.{kind}"),
            points=kind * view.cube_value,
        )
    return text(lang, f"menu.{item}")


def compose(view: View, status: TableStatus, now: float) -> Screen:
    """The words for ``view`` at ``now`` (see the module example)."""
    lang = view.language
    if view.state == "idle" and status.language:
        lang = status.language  # before any match: the table's own setting
    names = (view.players.get("a", ""), view.players.get("b", ""))
    banner = _banner(view, status, now, lang)
    notice = _notice(view, status, now, lang)
    st = view.state
    if st == "idle":
        lines = (text(lang, "idle.no_match"), *(notice.split("\n") if notice else ()))
        return Screen(
            "idle",
            title=text(lang, "idle.title", table=status.table_id or "-"),
            banner=banner,
            lines=lines,
        )
    if st in ("assigned", "checking_in"):
        title = text(lang, "checkin.match", match=view.match_id or "", length=view.length)
        rows: list[str] = []
        late = view.lateness
        if late is not None and late.next_point_in is not None and len(late.present) == 1:
            who = view.players.get(late.present[0], late.present[0])
            rows.append(text(lang, "checkin.late_point", name=who, time=_mmss(late.next_point_in)))
        if late is not None and any(late.points.values()):
            rows.append(text(lang, "checkin.late_score", a=late.points["a"], b=late.points["b"]))
        if notice:
            rows += notice.split("\n")
        rows.append(text(lang, "checkin.prompt"))
        if status.card_reader is not None:
            rows.append(text(lang, "checkin.prompt_card"))
        marks = tuple("√" if side in view.checked_in else "..." for side in ("a", "b"))
        return Screen(
            "checkin", title=title, names=names, delays=marks, banner=banner, lines=tuple(rows)
        )
    score = text(lang, "score.line", a=view.score["a"], b=view.score["b"], length=view.length)
    if st == "match_over":
        winner = view.players.get(view.winner or "", view.winner or "")
        how = text(lang, f"over.how.{view.ended_by}") if view.ended_by else ""
        return Screen(
            "over",
            title=view.match_id or "",
            names=names,
            big=text(lang, "over.winner", name=winner),
            score=text(lang, "over.score", a=view.score["a"], b=view.score["b"]),
            banner=banner,
            lines=tuple(x for x in (how, *notice.split("\n")) if x),
        )
    clocks = None
    delays = ("", "")
    if view.timed and view.clocks:
        clocks = (format_clock(view.clocks["a"].shown), format_clock(view.clocks["b"].shown))
        if view.display == "delay":
            delays = (format_delay(view.clocks["a"].delay), format_delay(view.clocks["b"].delay))
    tag = {"crawford": "crawford.crawford", "post": "crawford.post"}.get(view.crawford)
    lines: tuple[str, ...] = ()
    if st == "between_games":
        lines = (text(lang, "between.prompt", game=view.game + 1), text(lang, "between.prompt2"))
    elif st == "cube_offered" and view.cube_offered_by:
        who = view.players.get(view.cube_offered_by, view.cube_offered_by)
        banner = banner or text(lang, "cube.offer", name=who, value=view.cube_value * 2)
        lines = (text(lang, "cube.take"), text(lang, "cube.pass"))
    elif st == "paused":
        reason = text(lang, f"reason.{view.pause_reason or 'unspecified'}")
        key = "pause.by_director" if view.paused_by == "director" else "pause.title"
        banner = banner or text(lang, key, reason=reason)
        item = view.menu[view.menu_cursor % len(view.menu)] if view.menu else ""
        lines = ("> " + _menu_label(view, item), text(lang, "pause.hint")) if item else ()
    elif st == "result_entry":
        claim = view.claim
        if claim:
            opponent = "b" if claim["by"] == "a" else "a"
            winner = view.players.get(claim["winner"], claim["winner"])
            points = claim["kind"] * view.cube_value
            banner = banner or text(lang, "result.claim", winner=winner, points=points)
            lines = (
                text(lang, "result.answer", name=view.players.get(opponent, opponent)),
                text(lang, "result.reject"),
            )
        else:
            item = view.menu[view.menu_cursor % len(view.menu)] if view.menu else ""
            lines = ("> " + _menu_label(view, item), text(lang, "pause.hint")) if item else ()
            key = "result.title_concession" if view.pause_reason == "concession" else "result.title"
            banner = banner or text(lang, key)
    if notice:
        lines = tuple(notice.split("\n"))[:2]
    if not view.timed:
        clocks = None
    return Screen(
        "clocks",
        names=names,
        highlight=view.on_move,
        clocks=clocks,
        delays=delays,
        cube=str(view.cube_value) if view.cube_owner else "",
        cube_side=view.cube_owner,
        score=score,
        tag=text(lang, tag) if tag else "",
        banner=banner,
        lines=lines,
        title=text(lang, "untimed") if not view.timed else "",
    )


# ── pixels ─────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class Geometry:
    clock_y: int
    clock_h: int
    info_y: int
    tag_y: int | None  # None: tag, banner and lines share the info row, in turn
    line_ys: tuple[int, ...]
    text_ys: tuple[int, ...]  # rows of the text-only layouts


GEOMETRY: dict[tuple[int, int], Geometry] = {
    (128, 64): Geometry(10, 16, 28, 37, (47, 56), (0, 9, 18, 27, 36, 45, 54)),
    (128, 32): Geometry(9, 14, 24, None, (), (0, 8, 16, 24)),
    (256, 64): Geometry(10, 24, 37, 46, (55,), (0, 9, 18, 27, 36, 45, 54)),
}


class _Canvas:
    def __init__(self, size: tuple[int, int], now: float) -> None:
        from PIL import Image

        self.img = Image.new("1", size)
        self.w, self.h = size
        self.font = TextFont()
        self.big = TextFont(scale=2)
        self.now = now

    def text(
        self,
        y: int,
        s: str,
        align: str = "center",
        x0: int = 0,
        x1: int | None = None,
        invert: bool = False,
        font: TextFont | None = None,
    ) -> None:
        font = font or self.font
        x1 = self.w if x1 is None else x1
        width = x1 - x0
        if invert:
            self.img.paste(1, (x0, y, x1, y + font.height * font.scale))
        w = font.width(s)
        fill = 0 if invert else 1
        if w > width - 2:
            self._marquee(y, s, x0, x1, fill, font)
            return
        if align == "left":
            x = x0 + 1
        elif align == "right":
            x = x1 - 1 - w
        else:
            x = x0 + (width - w) // 2
        font.draw(self.img, (x, y), s, fill)

    def _marquee(self, y: int, s: str, x0: int, x1: int, fill: int, font: TextFont) -> None:
        """A line too long for the screen scrolls (a pure function of ``now``)."""
        from PIL import Image

        gap = 24
        w = font.width(s)
        strip = Image.new("1", (x1 - x0, font.height * font.scale), 1 - fill)
        offset = int(self.now * 24) % (w + gap)
        font.draw(strip, (2 - offset, 0), s, fill)
        font.draw(strip, (2 - offset + w + gap, 0), s, fill)
        self.img.paste(strip, (x0, y))


def _cycle(items: list[str], now: float) -> str:
    items = [i for i in items if i]
    if not items:
        return ""
    return items[int(now // CYCLE) % len(items)]


def _draw_clocks(c: _Canvas, s: Screen, g: Geometry) -> None:
    half = c.w // 2
    for i, side in enumerate(("a", "b")):
        x0, x1 = i * half, (i + 1) * half
        name = c.font.fit(s.names[i], half - 4)
        c.text(0, name, "left" if i == 0 else "right", x0, x1, invert=s.highlight == side)
    if s.clocks is not None:
        for i, value in enumerate(s.clocks):
            x0 = i * half
            for digit_w in (g.clock_h * 5 // 8, g.clock_h // 2, g.clock_h * 3 // 8):
                w = seven_segment_width(value, digit_w)
                if w <= half - 4:
                    break
            draw_seven_segment(c.img, (x0 + (half - w) // 2, g.clock_y), value, digit_w, g.clock_h)
    else:
        c.text(g.clock_y + (g.clock_h - 8) // 2, s.title or "")
    if g.tag_y is None:
        # 128×32: one row left. The score row (with the delays) and the messages take turns;
        # a banner comes first.
        turns = [x for x in (s.banner, "\x00", s.tag, *s.lines) if x]
        pick = turns[int(c.now // CYCLE) % len(turns)]
        if pick != "\x00":
            c.text(g.info_y, pick, invert=pick == s.banner)
            return
    c.text(g.info_y, s.delays[0], "left", 0, half)
    c.text(g.info_y, s.delays[1], "right", half, c.w)
    c.text(g.info_y, s.score)
    if s.cube and s.cube_side in ("a", "b"):
        label = f"{s.cube}"
        w = c.font.width(label) + 4
        score_w = c.font.width(s.score)
        x = (c.w - score_w) // 2 - w - 4 if s.cube_side == "a" else (c.w + score_w) // 2 + 4
        c.text(g.info_y, label, "center", x, x + w, invert=True)
    if g.tag_y is None:
        return
    if s.banner:
        c.text(g.tag_y, s.banner, invert=True)
    elif s.tag:
        c.text(g.tag_y, s.tag)
    lines = list(s.lines)
    if len(g.line_ys) == 1 and len(lines) > 1:
        joined = " · ".join(lines)
        lines = [joined] if c.font.width(joined) <= c.w - 2 else [_cycle(lines, c.now)]
    for y, line in zip(g.line_ys, lines, strict=False):
        c.text(y, line)


def _draw_rows(c: _Canvas, rows: list[tuple[str, str, bool]], ys: tuple[int, ...]) -> None:
    """Text rows (text, align, inverted); extra rows take turns in the last slot."""
    if len(rows) > len(ys):
        keep = rows[: len(ys) - 1]
        extra = rows[len(ys) - 1 :]
        pick = extra[int(c.now // CYCLE) % len(extra)]
        rows = [*keep, pick]
    for y, (s, align, inv) in zip(ys, rows, strict=False):
        c.text(y, s, align, invert=inv)


def _draw_checkin(c: _Canvas, s: Screen, g: Geometry) -> None:
    top = (s.banner, "center", True) if s.banner else (s.title, "center", False)
    ys = g.text_ys
    c.text(ys[0], *top[:2], invert=top[2])
    half = c.w // 2
    for i in range(2):
        c.text(ys[1 + i], c.font.fit(s.names[i], half - 4), "left", 0, half)
        c.text(ys[1 + i], s.delays[i], "right", half, c.w)
    rows = [(line, "center", False) for line in s.lines]
    _draw_rows(c, rows, ys[3:])


def _draw_idle(c: _Canvas, s: Screen, g: Geometry) -> None:
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


def _draw_over(c: _Canvas, s: Screen, g: Geometry) -> None:
    ys = g.text_ys
    c.text(ys[0], s.banner or s.title, invert=bool(s.banner))
    if c.h >= 64:
        font = c.big if c.big.width(s.big) <= c.w - 4 else c.font
        c.text(13, s.big, font=font)
        h = 16 if c.w < 256 else 20
        w = seven_segment_width(s.score, h * 5 // 8)
        draw_seven_segment(c.img, ((c.w - w) // 2, 33), s.score, h * 5 // 8, h)
        _draw_rows(c, [(line, "center", False) for line in s.lines], (ys[6],))
    else:
        c.text(ys[1], s.big)
        c.text(ys[2], s.score)
        _draw_rows(c, [(line, "center", False) for line in s.lines], (ys[3],))


def draw(screen: Screen, size: tuple[int, int] = (128, 64), now: float = 0.0) -> ImageModule.Image:
    """Place ``screen`` on a monochrome image of ``size`` (one of :data:`SIZES`)."""
    if size not in GEOMETRY:
        raise ValueError(f"unsupported display size {size}; supported: {sorted(GEOMETRY)}")
    c = _Canvas(size, now)
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
