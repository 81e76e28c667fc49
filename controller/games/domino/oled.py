"""What the domino table's OLED shows: a pure function from a
:class:`~mesa.games.domino.view.DominoView` (and the runtime's status) to an image.

>>> from mesa.games.domino.machine import DominoTable
>>> from mesa.games.domino.view import domino_view
>>> from mesa.controller.runtime import TableStatus
>>> t = DominoTable()
>>> _ = t.apply("assign", {"game_id": "R1-M3", "players": {"n": "Ana", "e": "Beto",
...                        "s": "Carla", "w": "Dani"}}, now=0.0)
>>> _ = t.apply("tiempo", {"start_wall": 0.0, "wall": 0.0}, now=0.0)
>>> _ = t.apply("press", {"seat": "n"}, now=30.0)                 # n leads: w is on turn
>>> screen = compose(domino_view(t, now=34.2), TableStatus(table_id="7"), now=34.2)
>>> screen.big, screen.side, screen.header, screen.info
('10', ('Oeste', 'Dani'), ('Mano 1', '34:25'), ('NS 0', 'a 200', 'EO 0'))
>>> render(domino_view(t, now=34.2), TableStatus(), now=34.2, size=(128, 32)).size
(128, 32)

:func:`compose` decides the words (in the game's language: :mod:`mesa.games.domino.words`), :func:`draw`
places them on 128×64 (SSD1306/SH1106), 128×32 or 256×64 (SSD1322), with the font and the
canvas every game draws on (:mod:`mesa.controller.canvas`).

The screen, top to bottom: the hand and the game's time left (``TIEMPO`` once called); the big
figure (the seconds the player on turn has left to play, counting below zero once over; between
hands the game's time; the points on the entry wheel; the final score), with the seat on turn
and its player beside it; both pairs' points; then the warning or penalty of the hand and what
the table asks for. On 128×32 the last rows take turns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mesa.controller.canvas import SIZES, Canvas, cycle
from mesa.controller.font import draw_seven_segment, seven_segment_width
from mesa.controller.runtime import TableStatus
from mesa.games.domino.view import DominoView
from mesa.games.domino.words import text
from mesa.words import format_clock

if TYPE_CHECKING:
    from PIL import Image as ImageModule

__all__ = ["SIZES", "DominoScreen", "compose", "draw", "format_timer", "mmss", "render"]


def mmss(seconds: float) -> str:
    """The game's time left, ``M:SS``: :func:`mesa.words.format_clock`, rounded down as the hub
    shows it (its docstring gives the rule).

    >>> mmss(2100.0), mmss(59.2), mmss(0.0), mmss(-3.0)
    ('35:00', '0:59', '0:00', '0:00')
    """
    return format_clock(seconds)


def format_timer(left: float) -> str:
    """The play timer: whole seconds left, rounded down like every clock (``mesa.words``);
    once over, the seconds begun over it, with a minus.

    >>> format_timer(15.0), format_timer(14.5), format_timer(0.2), format_timer(-2.5)
    ('15', '14', '0', '-3')
    """
    return str(math.floor(left + 1e-9))


@dataclass(frozen=True)
class DominoScreen:
    """The words on the screen, before any pixel is placed.

    ``layout`` is ``idle`` (a title and lines), ``pairs`` (the game assigned: who sits where) or
    ``main`` (the header, the big figure with its side label, the pairs' points, the lines).
    """

    layout: str
    header: tuple[str, str] = ("", "")  # left, right
    banner: str = ""  # the most urgent message, inverted, instead of the header
    title: str = ""
    big: str = ""  # seven-segment figure
    big_text: str = ""  # words where no figure fits (a tied block, a winner)
    side: tuple[str, str] = ("", "")  # beside the big figure: seat, player
    side_invert: bool = False
    info: tuple[str, str, str] = ("", "", "")  # left, centre, right: the pairs' points
    lines: tuple[str, ...] = ()
    alert: str = ""  # shown inverted in the first line (an over-time play, a penalty)


def _seat(lang: str, seat: str) -> str:
    return text(lang, f"seat.{seat}")


def _seat_short(lang: str, seat: str) -> str:
    return text(lang, f"oled.seat_short.{seat}")


def _pair_short(lang: str, pair: str | None) -> str:
    return text(lang, f"oled.pair_short.{pair}") if pair else "?"


def _banner(status: TableStatus, lang: str) -> str:
    if status.restored:
        return text(lang, "oled.restored")
    return ""


def _header(view: DominoView, lang: str) -> tuple[str, str]:
    left = text(lang, "label.hand", hand=view.hand) if view.hand else ""
    if view.time_called:
        right = text(lang, "label.last_hand") if view.last_hand else text(lang, "label.time_called")
    else:
        right = mmss(view.game_time_left or 0.0)
    return left, right


def _info(view: DominoView, lang: str) -> tuple[str, str, str]:
    ns = text(lang, "oled.score", pair=_pair_short(lang, "ns"), points=view.score["ns"])
    ew = text(lang, "oled.score", pair=_pair_short(lang, "ew"), points=view.score["ew"])
    return ns, "", ew


def _penalty_line(view: DominoView, lang: str) -> str:
    """The latest penalty of the hand on (or, between hands, of the last one)."""
    recent = [p for p in view.penalties if p.hand == view.hand]
    if not recent:
        return ""
    # A penalty that gives points to both opponents is one line: the first of the pair.
    p = recent[-1]
    for q in reversed(recent):
        if q.offender == p.offender and q.reason == p.reason:
            p = q
    points = f"{p.points:+d}"
    return text(
        lang,
        "oled.penalty",
        points=points,
        seat=_seat_short(lang, p.offender),
        reason=text(lang, f"reason.{p.reason}"),
    )


def _prompt(view: DominoView, lang: str) -> str:
    if view.prompt is None:
        return ""
    if view.prompt == "prompt.lead" and view.next_lead:
        return text(lang, "prompt.lead", seat=_seat(lang, view.next_lead))
    if view.prompt == "prompt.lead_any":
        return text(lang, "oled.lead_any")  # the screen's shorter words
    return text(lang, view.prompt)


def _unsigned(view: DominoView, lang: str) -> str:
    """The previous game's sheet, left unsigned by a pair (the hub fines its players)."""
    if not view.unsigned_before:
        return ""
    pairs = " ".join(_pair_short(lang, p) for p in view.unsigned_before)
    return text(lang, "oled.unsigned", pairs=pairs)


def _late(view: DominoView, lang: str) -> str:
    if not view.late:
        return ""
    seats = " ".join(dict.fromkeys(_seat_short(lang, s) for s in view.late))
    return text(lang, "oled.late", seats=seats)


def _fines(view: DominoView, lang: str) -> str:
    """The points noted on each player at this table (the records are the hub's)."""
    noted = [f"{_seat_short(lang, s)} {p:+d}" for s, p in view.player_points.items() if p]
    return text(lang, "oled.fines", list=" ".join(noted)) if noted else ""


def _idle(view: DominoView, status: TableStatus, lang: str, banner: str) -> DominoScreen:
    lang = status.language or lang
    lines = [text(lang, "state.idle")]
    if status.hub == "offline":
        lines.append(text(lang, "oled.hub_offline"))
    unsigned = _unsigned(view, lang)
    if unsigned:
        lines.append(unsigned)
    return DominoScreen(
        "idle",
        banner=banner,
        title=text(lang, "oled.table", table=status.table_id or "-"),
        lines=tuple(lines),
    )


def _assigned(view: DominoView, lang: str, banner: str) -> DominoScreen:
    rows = tuple(
        text(
            lang,
            "oled.pair_players",
            pair=_pair_short(lang, pair),
            a=view.players.get(a, a),
            b=view.players.get(b, b),
        )
        for pair, (a, b) in view.pairs.items()
    )
    return DominoScreen(
        "pairs",
        header=(view.game_id or "", ""),
        banner=banner,
        lines=tuple(x for x in (*rows, _unsigned(view, lang), _late(view, lang),
                                text(lang, "prompt.wait_tiempo")) if x),
    )


@dataclass(frozen=True)
class _Parts:
    """What every screen of a game in play shares: the words are computed once."""

    lang: str
    banner: str
    header: tuple[str, str]
    info: tuple[str, str, str]
    prompt: str
    penalty: str


def _ready(view: DominoView, p: _Parts) -> DominoScreen:
    lang = p.lang
    # The two minutes to reach the table after "TIEMPO", until the first hand starts.
    reach = text(lang, "oled.reach", time=mmss(view.reach_left)) if view.reach_left else ""
    annulled = (text(lang, "oled.annulled", hand=view.annulled["hand"])
                if view.annulled else "")
    lead = view.next_lead
    side = (_seat(lang, lead), view.players.get(lead, "")) if lead else ("", "")
    # Between hands the big figure is the game's time: the header names the next hand.
    header = (
        text(lang, "label.hand", hand=view.hand + 1),
        p.header[1] if view.time_called else "",
    )
    return DominoScreen(
        "main",
        header=header,
        banner=p.banner,
        big=mmss(view.game_time_left or 0.0),
        side=side,
        info=p.info,
        lines=tuple(x for x in (annulled, _late(view, lang), reach, p.penalty, p.prompt) if x),
    )


def _play_lines(view: DominoView, p: _Parts) -> tuple[str, list[str]]:
    """The alert and the lines under the play timer."""
    t = view.timer
    alert, lines = "", [p.penalty, p.prompt]
    if t is None:
        return alert, lines
    if t.over:
        alert = text(p.lang, "oled.over_penalty" if t.warned else "oled.over_warning")
    elif t.elapsed <= t.pass_limit:
        seconds = format_timer(max(0.0, t.pass_limit - t.elapsed))
        lines = [p.penalty, text(p.lang, "oled.pass_window", seconds=seconds), p.prompt]
    if t.warned and not t.over:
        lines.insert(1, text(p.lang, "oled.warned_line"))
    return alert, lines


def _playing(view: DominoView, p: _Parts) -> DominoScreen:
    seat = view.on_turn or ""
    alert, lines = _play_lines(view, p)
    return DominoScreen(
        "main",
        header=p.header,
        banner=p.banner,
        big=format_timer(view.timer.left) if view.timer is not None else "",
        side=(_seat(p.lang, seat), view.players.get(seat, "")),
        side_invert=True,
        info=p.info,
        alert=alert,
        lines=tuple(x for x in lines if x),
    )


def _hand_header(view: DominoView, p: _Parts) -> tuple[str, str]:
    how = view.hand_how or "domino"
    lang = p.lang
    return text(lang, "oled.hand_how", hand=view.hand, how=text(lang, f"how.{how}")), p.header[1]


def _entry(view: DominoView, p: _Parts) -> DominoScreen:
    lang = p.lang
    entry = view.entry or {}
    pair = entry.get("pair")
    lines = [
        text(lang, "prompt.pick_pair")
        if pair is None
        else text(lang, "oled.enters", pair=_pair_short(lang, pair)),
        text(lang, "prompt.enter_points"),
        text(lang, "oled.accept"),
    ]
    return DominoScreen(
        "main",
        header=_hand_header(view, p),
        banner=p.banner,
        big=f"{entry.get('points', 0)}",
        side=(_pair_short(lang, pair), ""),
        info=p.info,
        lines=tuple(x for x in [p.penalty, *lines] if x),
    )


def _confirm(view: DominoView, p: _Parts) -> DominoScreen:
    lang = p.lang
    claim = view.claim or {}
    pair = claim.get("pair")
    if pair is None:
        big, big_text = "", text(lang, "oled.claim_tie")
    else:
        big, big_text = f"{claim.get('points', 0)}", ""
    return DominoScreen(
        "main",
        header=_hand_header(view, p),
        banner=p.banner,
        big=big,
        big_text=big_text,
        side=(_pair_short(lang, pair), "") if pair else ("", ""),
        info=p.info,
        lines=(text(lang, "prompt.confirm_points"), text(lang, "oled.reject")),
    )


def _game_over(view: DominoView, p: _Parts) -> DominoScreen:
    lang = p.lang
    winner = view.winner
    head = (
        text(lang, "end.winner", pair=text(lang, f"pair.{winner}"))
        if winner
        else text(lang, "end.no_winner")
    )
    ended = text(lang, f"end.{view.ended_by}") if view.ended_by else ""
    missing = [_pair_short(lang, q) for q in ("ns", "ew") if q not in view.signed]
    lines = [ended]
    if missing and view.signed:
        lines.append(text(lang, "oled.to_sign", pairs=" ".join(missing)))
    elif missing:
        lines.append(p.prompt)
    else:
        lines.append(text(lang, "label.signed"))
    lines.append(_fines(view, lang))  # takes turns with the signatures on a small screen
    return DominoScreen(
        "main",
        header=(head, ""),
        banner=p.banner,
        # Words, not segments: a seven-segment "1" leaves a gap ("2 15").
        big_text=f"{view.score['ns']} - {view.score['ew']}",
        info=(
            _pair_short(lang, "ns"),
            text(lang, "oled.games_won", ns=view.games_won["ns"], ew=view.games_won["ew"]),
            _pair_short(lang, "ew"),
        ),
        lines=tuple(x for x in lines if x),
    )


# The screens of a game in play, by state (any other state: the final sheet).
_IN_PLAY = {
    "ready": _ready,
    "playing": _playing,
    "hand_entry": _entry,
    "hand_confirm": _confirm,
}


def compose(view: DominoView, status: TableStatus, now: float) -> DominoScreen:
    """The words for ``view`` at ``now`` (see the module example)."""
    lang = view.language
    st = view.state
    banner = _banner(status, lang)
    if st == "idle":
        return _idle(view, status, lang, banner)
    if st == "assigned":
        return _assigned(view, lang, banner)
    ns, _, ew = _info(view, lang)
    target = text(lang, "oled.target", points=200) if st != "game_over" else ""
    parts = _Parts(
        lang=lang,
        banner=banner,
        header=_header(view, lang),
        info=(ns, target, ew),
        prompt=_prompt(view, lang),
        penalty=_penalty_line(view, lang),
    )
    return _IN_PLAY.get(st, _game_over)(view, parts)


# ── pixels ─────────────────────────────────────────────────────────────────
@dataclass(frozen=True)
class _Geometry:
    big_y: int
    big_h: int
    info_y: int | None  # None: the info row takes turns with the lines
    line_ys: tuple[int, ...]
    text_ys: tuple[int, ...]


GEOMETRY: dict[tuple[int, int], _Geometry] = {
    (128, 64): _Geometry(10, 24, 37, (46, 55), (0, 9, 18, 27, 36, 45, 54)),
    (128, 32): _Geometry(9, 14, None, (24,), (0, 8, 16, 24)),
    (256, 64): _Geometry(10, 24, 37, (46, 55), (0, 9, 18, 27, 36, 45, 54)),
}


def _big(c: Canvas, value: str, x0: int, x1: int, y: int, h: int) -> None:
    w = seven_segment_width(value, h * 5 // 8)
    digit_w = h * 5 // 8
    for digit_w in (h * 5 // 8, h // 2, h * 3 // 8):
        w = seven_segment_width(value, digit_w)
        if w <= x1 - x0 - 4:
            break
    draw_seven_segment(c.img, (x0 + (x1 - x0 - w) // 2, y), value, digit_w, h)


def _draw_header(c: Canvas, s: DominoScreen) -> None:
    if s.banner:
        c.text(0, s.banner, invert=True)
        return
    left, right = s.header
    if not right:
        c.text(0, left)
        return
    rw = c.font.width(right) + 2
    c.text(0, c.font.fit(left, c.w - rw - 4), "left", 0, c.w - rw)
    c.text(0, right, "right", c.w - rw - 2, c.w)


def _draw_main(c: Canvas, s: DominoScreen, g: _Geometry) -> None:
    _draw_header(c, s)
    has_side = any(s.side)
    split = c.w // 2 if c.w < 256 else c.w * 3 // 8
    if s.big_text:
        font = c.big if c.h >= 64 and c.big.width(s.big_text) <= c.w - 4 else c.font
        c.text(g.big_y + (g.big_h - font.height * font.scale) // 2, s.big_text, font=font)
    elif s.big:
        x1 = split if has_side else c.w
        _big(c, s.big, 0, x1, g.big_y, g.big_h)
    if has_side and not s.big_text:
        x0 = split + 2
        seat, player = s.side
        rows = (g.big_y + 2, g.big_y + 13) if g.big_h >= 24 else (g.big_y - 1, g.big_y + 7)
        big_font = c.big if c.h >= 64 and not player and c.big.width(seat) <= c.w - x0 else None
        if big_font is not None:
            c.text(g.big_y + (g.big_h - 16) // 2, seat, "center", x0, c.w, font=big_font)
        elif not player:
            c.text(g.big_y + (g.big_h - 8) // 2, seat, "center", x0, c.w)
        else:
            seat = c.font.fit(seat, c.w - x0 - 2)
            # The seat on turn inverted, in a box just wider than its name.
            mid, half_w = (x0 + c.w) // 2, min((c.w - x0) // 2, c.font.width(seat) // 2 + 6)
            c.text(rows[0], seat, "center", mid - half_w, mid + half_w, invert=s.side_invert)
            c.text(rows[1], c.font.fit(player, c.w - x0 - 2), "center", x0, c.w)
    left, centre, right = s.info
    info_row = f"{left}  {right}".strip() if left or right else ""
    lines = list(s.lines)
    if g.info_y is None:
        # 128×32: one row left for the points, the alert and the lines, in turns.
        turns = [x for x in (s.alert, info_row, *lines) if x]
        pick = cycle(turns, c.now) if not s.alert else s.alert
        if pick:
            c.text(g.line_ys[0], pick, invert=pick == s.alert)
        return
    half = c.w // 2
    c.text(g.info_y, left, "left", 0, half)
    c.text(g.info_y, right, "right", half, c.w)
    if centre:
        c.text(g.info_y, centre)
    if s.alert:
        lines = [s.alert, *lines]
    if len(lines) > len(g.line_ys):
        keep, extra = lines[: len(g.line_ys) - 1], lines[len(g.line_ys) - 1 :]
        lines = [*keep, cycle(extra, c.now)]
    for y, line in zip(g.line_ys, lines, strict=False):
        c.text(y, line, invert=bool(s.alert) and line == s.alert)


def _draw_rows(c: Canvas, s: DominoScreen, g: _Geometry) -> None:
    """``idle`` and ``pairs``: a title (big on a tall screen) and text rows."""
    ys = g.text_ys
    tall = c.h >= 64
    if s.layout == "pairs":
        _draw_header(c, s)
        rows = list(s.lines)
        slots = ys[2::2] if tall else ys[1:]
        if len(rows) > len(slots):
            rows = [*rows[: len(slots) - 1], cycle(rows[len(slots) - 1 :], c.now)]
        for y, row in zip(slots, rows, strict=False):
            c.text(y, c.font.fit(row, c.w - 4))
        return
    if s.banner:
        c.text(ys[0], s.banner, invert=True)
    if tall:
        font = c.big if c.big.width(s.title) <= c.w - 4 else c.font
        c.text(ys[1] + 4, s.title, font=font)
        for y, line in zip((ys[4], ys[5]), s.lines, strict=False):
            c.text(y, line)
    else:
        c.text(ys[1] if s.banner else ys[0], s.title)
        for y, line in zip(ys[2:], s.lines, strict=False):
            c.text(y, line)


def draw(
    screen: DominoScreen, size: tuple[int, int] = (128, 64), now: float = 0.0
) -> ImageModule.Image:
    """Place ``screen`` on a monochrome image of ``size`` (one of :data:`SIZES`)."""
    if size not in GEOMETRY:
        raise ValueError(f"unsupported display size {size}; supported: {sorted(GEOMETRY)}")
    c = Canvas(size, now)
    g = GEOMETRY[size]
    if screen.layout == "main":
        _draw_main(c, screen, g)
    else:
        _draw_rows(c, screen, g)
    return c.img


def render(
    view: DominoView, status: TableStatus, now: float, size: tuple[int, int] = (128, 64)
) -> ImageModule.Image:
    """The frame for ``view`` at ``now``: :func:`compose` then :func:`draw`."""
    return draw(compose(view, status, now), size, now)

