"""What the domino table shows: a plain snapshot of the state for the OLED, derived at ``now``.

Everything a player reads is a code (``prompt``, ``reason``, ``ended_by``…) that
:mod:`mesa.games.domino.words` turns into Spanish or English.

>>> from mesa.games.domino.machine import DominoTable
>>> t = DominoTable()
>>> _ = t.apply("assign", {"game_id": "R1", "players": {"n": "Ana", "e": "Beto", "s": "Carla",
...                        "w": "Dani"}}, now=0.0)
>>> _ = t.apply("tiempo", {"start_wall": 100.0, "wall": 160.0}, now=0.0)   # joined 1 min late
>>> _ = t.apply("press", {"seat": "n"}, now=10.0)
>>> v = domino_view(t, now=22.0)
>>> v.on_turn, v.timer.left, v.game_time_left, v.hand, v.prompt
('w', 3.0, 2018.0, 1, 'prompt.play')
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from mesa.games.domino.machine import DominoTable
from mesa.games.domino.rules import PAIRS, SEATS, members

RECENT_PENALTIES = 4  # the OLED has room for a few lines; the hub keeps the full record
# After "TIEMPO" the players have two minutes to reach their table (shown until the first hand).
REACH_SECONDS = 120.0


@dataclass(frozen=True)
class TimerView:
    """The play timer of the seat on turn: ``left`` counts down the 15 s of a play (negative
    once over); a pass must come within ``pass_limit``."""

    seat: str
    elapsed: float
    limit: float
    pass_limit: float
    left: float
    over: bool
    warned: bool  # this seat's next slow play costs points (its warning is used)


@dataclass(frozen=True)
class PenaltyView:
    seat: str
    points: int
    reason: str  # a code: see mesa.games.domino.words "reason.*"
    offender: str
    hand: int


@dataclass(frozen=True)
class DominoView:
    state: str
    language: str
    game_id: str | None
    players: dict[str, str]
    pairs: dict[str, tuple[str, ...]]
    hand: int
    lead: str | None
    next_lead: str | None
    on_turn: str | None
    timer: TimerView | None
    game_time_left: float | None
    time_called: bool
    final_hand: int | None
    last_hand: bool  # the hand on (or the next one) is the last, time being up
    score: dict[str, int]  # the game's hand points (fines are the players' records)
    games_won: dict[str, int]
    player_points: dict[str, int]  # the fines (and late-pass bonuses) noted per seat here
    warnings: dict[str, int]  # seat → slow plays answered with a warning
    penalties: tuple[PenaltyView, ...]  # the most recent few
    entry: dict[str, Any] | None  # {"pair", "by", "points"} while the points are entered
    claim: dict[str, Any] | None
    hand_how: str | None
    winner: str | None
    ended_by: str | None
    signed: dict[str, str]
    expelled: tuple[str, ...]
    prompt: str | None  # what the table asks for now, as a code
    reach_left: float | None = None  # of the two minutes to reach the table, before hand 1
    late: tuple[str, ...] = ()  # seats noted late since the last hand (or before the first)
    annulled: dict[str, Any] | None = None  # the last hand, if annulled: {"hand", "seat", "reason"}
    unsigned_before: tuple[str, ...] = ()  # pairs that left the previous game's sheet unsigned

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _prompt(table: DominoTable) -> str | None:
    s, g = table.s, table.s.game
    if s.state == "assigned":
        return "prompt.wait_tiempo"
    if g is None:
        return None
    if s.state == "ready":
        return "prompt.lead_any" if g.next_lead is None else "prompt.lead"
    if s.state == "playing":
        return "prompt.play"
    if s.state == "hand_entry":
        return "prompt.pick_pair" if s.entry and s.entry["pair"] is None else "prompt.enter_points"
    if s.state == "hand_confirm":
        return "prompt.confirm_points"
    if s.state == "game_over":
        return None if g.sheet_signed else "prompt.sign_sheet"
    return None


def domino_view(table: DominoTable, now: float) -> DominoView:
    s, g = table.s, table.s.game
    timer = None
    if g is not None and g.on_turn is not None and g.turn_started is not None:
        elapsed = max(0.0, now - g.turn_started)
        limit = g.settings.play_seconds
        timer = TimerView(
            seat=g.on_turn,
            elapsed=elapsed,
            limit=limit,
            pass_limit=g.settings.pass_seconds,
            left=limit - elapsed,
            over=elapsed > limit,
            warned=g.breaches.get(g.on_turn, 0) >= g.settings.play_warnings,
        )
    entry = None
    if s.entry is not None:
        entry = {"pair": s.entry["pair"], "by": s.entry["by"],
                 "points": s.entry["tens"] * 10 + s.entry["units"]}
    recent = tuple(
        PenaltyView(p.seat, p.points, p.reason, p.offender, p.hand)
        for p in (g.penalties[-RECENT_PENALTIES:] if g is not None else [])
    )
    final = g.final_hand if g is not None else None
    last = g.hands[-1] if g is not None and g.hands else None
    annulled = None
    if last is not None and last.how == "annulled" and s.state == "ready":
        annulled = {"hand": last.number, "seat": last.by, "reason": last.reason}
    reach = None
    if g is not None and g.started_at is not None and g.hand == 0 and s.state == "ready":
        left = g.started_at + REACH_SECONDS - now
        reach = left if left > 0 else None
    return DominoView(
        state=s.state,
        language=s.language,
        game_id=s.game_id,
        players=dict(s.players),
        pairs={p: members(p) for p in PAIRS},
        hand=g.hand if g else 0,
        lead=g.lead if g else None,
        next_lead=g.next_lead if g else None,
        on_turn=g.on_turn if g else None,
        timer=timer,
        game_time_left=g.time_left(now) if g else None,
        time_called=g.time_called if g else False,
        final_hand=final,
        last_hand=bool(g and final is not None and not g.over
                       and final == g.hand + (0 if g.phase in ("playing", "counting") else 1)),
        score=g.score if g else {p: 0 for p in PAIRS},
        games_won=dict(g.games_won) if g else {p: 0 for p in PAIRS},
        player_points={seat: g.player_points(seat) if g else 0 for seat in SEATS},
        warnings={seat: min(g.breaches.get(seat, 0), g.settings.play_warnings) if g else 0
                  for seat in SEATS},
        penalties=recent,
        entry=entry,
        claim=dict(s.claim) if s.claim else None,
        hand_how=g.hand_how if g else None,
        winner=g.winner if g else None,
        ended_by=g.ended_by if g else None,
        signed=dict(g.signed) if g else {},
        expelled=tuple(g.expelled) if g else (),
        prompt=_prompt(table),
        reach_left=reach,
        late=tuple(r.seat for r in g.late if r.hand == g.hand) if g else (),
        annulled=annulled,
        unsigned_before=tuple(s.unsigned_before),
    )
