"""Players' records in a domino event: every fine and award, and the seed's escalations. Pure.

RULES §5: the table keeps the game (hand points only), the hub keeps the players' records.
Every fine (a negative entry) and every award (a positive one) is a :class:`RecordEntry` on one
player; a player's :class:`PlayerRecord` adds them to the hand points of the games he played
(his pair's hand points of each game) and the games he won.

Games won come from two places and never both for one game: a game's own result (its winning
pair's two players), unless some entry of that game gives games won (``games > 0``: the awards
of an absence or an abandonment, to each present player / the other three); then those
entries alone give the wins (``how == "absence"`` results never give a win).

The escalations the seed names are decided here from the entries already recorded, not picked
by the judge (:func:`decide_fine`):

- talking: the first time −25; the second time *by the player or his partner* (his own
  earlier offences, anywhere in the event, plus his partner's while they partnered) −75 to
  each of the two; the third time expulsion;
- late arrival: the first recorded (0 points), the second and later −50;
- an unsigned sheet −25 to each player of the pair; an absence −100 to each absent player,
  +100 and a game won to each present one; an abandonment −200, expulsion and a red card for
  the one who left, +100 and a game won to each of the other three; any other expulsion +100
  (``forfeit_points``) to each opponent when it ends a game in progress; the wrong partner
  −100 to each of the four; the rest as the seed's list says (its scope and points).

>>> entries = [RecordEntry(1, "ana", -25, 0, "talking", "R1-M1", "escalation", None, "juez", "20:10")]
>>> d = decide_fine("talking", "n", {"n": "ana", "e": "beto", "s": "carla", "w": "dani"},
...                 entries, partnered_games={"R1-M1"})
>>> d.step, [(x.player, x.points) for x in d.lines]
('talking_second', [('ana', -75), ('carla', -75)])
>>> rec = player_records(["ana"], [], entries)["ana"]
>>> rec.fines, rec.talking, rec.points
(-25, 1, -25)
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from mesa.games.domino.penalties import DEFAULT_PENALTY_POINTS, PENALTIES
from mesa.games.domino.rules import SEATS, Seat, members, opponents, pair_of, partner

# Reasons of the seed's list that the hub escalates from the record: the director says the
# offence ("talking", "late_arrival_repeat" or any of the family), the record says which step.
TALKING: tuple[str, ...] = ("talking", "talking_second", "talking_third")
LATE: tuple[str, ...] = ("late_arrival", "late_arrival_repeat")
# The reasons whose offender is expelled.
EXPELLING: frozenset[str] = frozenset(r for r, rule in PENALTIES.items() if rule.expels)
# A fine that may also annul the hand (the director decides; for a chivo the other pair asks).
ANNULLABLE: tuple[str, ...] = ("pass_with_playable", "chivo")
# The table's own timer fines: the only ``domino.penalty`` events the hub records.
TIMER_REASONS: tuple[str, ...] = ("slow_play", "late_pass")
# Award reasons (not in the seed's penalty list: they are what an offence gives the others).
ABSENCE_AWARD, ABANDON_AWARD, FORFEIT_AWARD = "absence_award", "abandon_award", "forfeit_award"
AWARD_REASONS: tuple[str, ...] = (ABSENCE_AWARD, ABANDON_AWARD, FORFEIT_AWARD)

TALKING_FIRST = DEFAULT_PENALTY_POINTS["talking"]  # −25
TALKING_SECOND = DEFAULT_PENALTY_POINTS["talking_second"]  # −75 to each of the two
LATE_REPEAT = DEFAULT_PENALTY_POINTS["late_arrival_repeat"]  # −50
UNSIGNED = DEFAULT_PENALTY_POINTS["sheet_unsigned"]  # −25 to each of the pair
ABSENT = DEFAULT_PENALTY_POINTS["absent"]  # −100
ABANDONED = DEFAULT_PENALTY_POINTS["abandoned"]  # −200
PRESENT_AWARD = 100  # an absence: +100 to each present player
ABANDON_AWARD_POINTS = 100  # an abandonment: +100 to each of the other three
FORFEIT_POINTS = 100  # another expulsion: +100 to each opponent (the table's forfeit_points)
BYE_POINTS = 100  # a bye (a sit-out): a game won by forfeit, +100


@dataclass(frozen=True)
class RecordEntry:
    """One fine (``points`` < 0) or award (> 0, or a 0-point note such as a first late
    arrival) on one player's record. ``offender`` names whose offence it was when that is
    not ``player`` himself (a partner's −75, the others' awards); empty: his own."""

    seq: int  # order within the event
    player: str  # registry id
    points: int
    games: int  # games won it adds (absence/abandonment awards: 1), usually 0
    reason: str  # a penalty reason, or one of AWARD_REASONS
    game_id: str
    source: str  # "table" (a timer fine, from an event), "director", "escalation", "hub"
    key: str | None  # dedupe key ("event:<rowid>" for a table's fine); None otherwise
    actor: str
    at: str
    note: str = ""  # the escalation step (a code: "talking_second"…), for the audit and pages
    offender: str = ""

    @property
    def own(self) -> bool:
        """The entry is for the player's own offence (not his partner's, not an award)."""
        return self.offender in ("", self.player)


@dataclass
class PlayerRecord:
    """A player's record in one event. ``fines`` is the sum of the negative entries (≤ 0),
    ``awards`` of the positive ones and the byes' +100; ``talking`` and ``late`` count his own
    offences."""

    player: str
    played: int = 0
    won: int = 0
    hand_points: int = 0
    fines: int = 0
    awards: int = 0
    talking: int = 0
    late: int = 0
    expelled: bool = False
    red_card: bool = False
    byes: int = 0

    @property
    def points(self) -> int:
        return self.hand_points + self.fines + self.awards


@dataclass(frozen=True)
class PlayedGame:
    """What a record needs of an ended game: who sat where, the winning side (``ns``/``ew``,
    None: nobody), how it ended, and each side's hand points."""

    id: str
    seats: Mapping[str, str]  # seat → player id
    winner: str | None
    how: str | None
    score: Mapping[str, int]  # side → hand points


_SIDE = {"n": "ns", "s": "ns", "e": "ew", "w": "ew"}


def win_award_games(entries: Iterable[RecordEntry]) -> set[str]:
    """The games whose wins come from award entries (an absence, an abandonment)."""
    return {e.game_id for e in entries if e.games > 0}


def player_records(
    players: Iterable[str],
    games: Iterable[PlayedGame],
    entries: Iterable[RecordEntry],
    *,
    byes: Iterable[str] = (),
    bye_points: int = BYE_POINTS,
) -> dict[str, PlayerRecord]:
    """Every player's record: ``players`` in their order, then anyone else a game or an entry
    names. ``byes``: one player id per bye (a pair's bye names both its players).

    >>> g = PlayedGame("G1", {"n": "a", "s": "b", "e": "c", "w": "d"}, "ns", "points",
    ...                {"ns": 200, "ew": 120})
    >>> r = player_records("abcd", [g], [], byes=["a"])
    >>> [(p, x.played, x.won, x.points) for p, x in r.items()]
    [('a', 1, 2, 300), ('b', 1, 1, 200), ('c', 1, 0, 120), ('d', 1, 0, 120)]
    """
    out: dict[str, PlayerRecord] = {p: PlayerRecord(p) for p in players}
    entries = list(entries)
    from_awards = win_award_games(entries)

    def rec(p: str) -> PlayerRecord:
        if p not in out:
            out[p] = PlayerRecord(p)
        return out[p]

    for g in games:
        wins = g.winner if g.how != "absence" and g.id not in from_awards else None
        for seat, p in g.seats.items():
            side = _SIDE[seat]
            r = rec(p)
            r.played += 1
            r.hand_points += int(g.score.get(side, 0))
            r.won += int(wins == side)
    for e in entries:
        r = rec(e.player)
        if e.points < 0:
            r.fines += e.points
        else:
            r.awards += e.points
        r.won += e.games
        if e.own and e.reason in TALKING:
            r.talking += 1
        if e.reason in LATE:
            r.late += 1
        if e.own and e.reason in EXPELLING:
            r.expelled = True
            r.red_card = r.red_card or e.reason == "abandoned"
    for p in byes:
        r = rec(p)
        r.byes += 1
        r.won += 1
        r.awards += bye_points
    return out


# ── the escalations ──
@dataclass(frozen=True)
class Line:
    """One entry a decision writes (the event numbers and stamps it)."""

    player: str
    points: int
    reason: str
    games: int = 0
    offender: str = ""


@dataclass(frozen=True)
class Decision:
    """What an offence gives: the entries, whom it expels, and the step (a stable code: the
    audit line and the pages say which rule applied)."""

    step: str
    lines: tuple[Line, ...]
    expel: str | None = None


def talking_offences(entries: Iterable[RecordEntry], player: str,
                     games: Collection[str] | None = None) -> int:
    """``player``'s own talking offences (in ``games`` only, if given)."""
    return sum(1 for e in entries if e.player == player and e.own and e.reason in TALKING
               and (games is None or e.game_id in games))


def late_arrivals(entries: Iterable[RecordEntry], player: str) -> int:
    return sum(1 for e in entries if e.player == player and e.reason in LATE)


def decide_talking(offender: str, mate: str, prior: int, forfeit_to: Sequence[str] = ()
                   ) -> Decision:
    """Talking, with ``prior`` offences already counted for the offender (his own and his
    partner's while partners). The third time expels; ``forfeit_to`` (the opponents of a game
    in progress) get the forfeit's +100.

    >>> [decide_talking("a", "b", n).step for n in range(4)]
    ['talking_first', 'talking_second', 'talking_third', 'talking_third']
    """
    if prior <= 0:
        return Decision("talking_first", (Line(offender, TALKING_FIRST, "talking"),))
    if prior == 1:
        return Decision("talking_second", (
            Line(offender, TALKING_SECOND, "talking_second"),
            Line(mate, TALKING_SECOND, "talking_second", offender=offender)))
    return decide_expulsion(offender, "talking_third", forfeit_to)


def decide_late(player: str, prior: int) -> Decision:
    """The first late arrival is recorded (0 points); the second and later −50.

    >>> decide_late("a", 0).lines, decide_late("a", 1).lines[0].points
    ((Line(player='a', points=0, reason='late_arrival', games=0, offender=''),), -50)
    """
    if prior <= 0:
        return Decision("late_first", (Line(player, 0, "late_arrival"),))
    return Decision("late_repeat", (Line(player, LATE_REPEAT, "late_arrival_repeat"),))


def decide_unsigned(pair_players: Sequence[str]) -> Decision:
    """No player of a pair signed the sheet: −25 to each of them."""
    return Decision("sheet_unsigned", tuple(Line(p, UNSIGNED, "sheet_unsigned")
                                            for p in pair_players))


def decide_absence(absent: Sequence[str], present: Sequence[str]) -> Decision:
    """Each absent player −100; each present one +100 and a game won."""
    return Decision("absence", (
        *(Line(p, ABSENT, "absent") for p in absent),
        *(Line(p, PRESENT_AWARD, ABSENCE_AWARD, games=1) for p in present)))


def decide_abandon(offender: str, others: Sequence[str]) -> Decision:
    """Abandoning the game: −200, expelled, a red card; the other three +100 and a game won."""
    return Decision("abandoned", (
        Line(offender, ABANDONED, "abandoned"),
        *(Line(p, ABANDON_AWARD_POINTS, ABANDON_AWARD, games=1, offender=offender)
          for p in others)), expel=offender)


def decide_expulsion(offender: str, reason: str, forfeit_to: Sequence[str] = ()) -> Decision:
    """An expulsion other than abandonment: the reason's points (0 in the seed) and, when it
    ends a game in progress, +100 to each opponent (their game won comes from the result)."""
    return Decision(reason, (
        Line(offender, DEFAULT_PENALTY_POINTS[reason], reason),
        *(Line(p, FORFEIT_POINTS, FORFEIT_AWARD, offender=offender) for p in forfeit_to)),
        expel=offender)


def scope_seats(seat: Seat, reason: str) -> list[Seat]:
    """The seats a reason of the seed's list touches, from the offender's."""
    return {
        "offender": [seat],
        "offender_and_partner": [seat, partner(seat)],
        "offender_pair": list(members(pair_of(seat))),
        "other_pair": list(opponents(pair_of(seat))),
        "table": list(SEATS),
    }[PENALTIES[reason].scope]


def decide_fine(
    reason: str,
    seat: Seat,
    seating: Mapping[str, str],
    entries: Iterable[RecordEntry],
    *,
    partnered_games: Collection[str],
    points: int | None = None,
    in_play: bool = True,
) -> Decision:
    """The director's fine for ``reason`` on the player at ``seat`` (``seating``: seat →
    player), from the entries recorded so far. ``partnered_games``: the games in which the
    offender and his partner of this game sat together (talking's "by the partner").
    ``in_play``: the game is not yet recorded (an expulsion ends it: the forfeit's awards).
    ``points`` overrides the seed's points of a reason that is not escalated.

    >>> seating = {"n": "a", "e": "b", "s": "c", "w": "d"}
    >>> d = decide_fine("wrong_seats", "e", seating, [], partnered_games=())
    >>> d.step, [(x.player, x.points) for x in d.lines]
    ('wrong_seats', [('a', -100), ('b', -100), ('c', -100), ('d', -100)])
    >>> d = decide_fine("marked_tiles", "e", seating, [], partnered_games=())
    >>> d.expel, [(x.player, x.points, x.reason) for x in d.lines]
    ('b', [('b', 0, 'marked_tiles'), ('a', 100, 'forfeit_award'), ('c', 100, 'forfeit_award')])
    """
    entries = list(entries)
    offender, mate = seating[seat], seating[partner(seat)]
    others = [seating[s] for s in opponents(pair_of(seat))]
    if reason in TALKING:
        prior = talking_offences(entries, offender) + talking_offences(entries, mate,
                                                                       partnered_games)
        return decide_talking(offender, mate, prior, others if in_play else ())
    if reason in LATE:
        return decide_late(offender, late_arrivals(entries, offender))
    if reason == "abandoned":
        return decide_abandon(offender, [seating[s] for s in SEATS if s != seat])
    if reason in EXPELLING:
        return decide_expulsion(offender, reason, others if in_play else ())
    pts = DEFAULT_PENALTY_POINTS[reason] if points is None else int(points)
    return Decision(reason, tuple(
        Line(seating[s], pts, reason, offender="" if seating[s] == offender else offender)
        for s in scope_seats(seat, reason)))


def stamp(
    entries: Sequence[RecordEntry],
    decision: Decision,
    *,
    game_id: str,
    source: str,
    actor: str,
    at: str,
    key: str | None = None,
) -> list[RecordEntry]:
    """The entries ``decision`` adds after ``entries`` (numbered on), or none when an entry
    with the same ``key`` is already there (a table's event read twice lands once).

    >>> first = stamp([], decide_late("a", 0), game_id="G", source="table", actor="t",
    ...               at="20:00", key="event:7")
    >>> [(e.seq, e.reason, e.note) for e in first]
    [(1, 'late_arrival', 'late_first')]
    >>> stamp(first, decide_late("a", 1), game_id="G", source="table", actor="t", at="20:01",
    ...       key="event:7")
    []
    """
    if key is not None and any(e.key == key for e in entries):
        return []
    seq = max((e.seq for e in entries), default=0)
    return [
        RecordEntry(seq + i, x.player, x.points, x.games, x.reason, game_id, source, key,
                    actor, at, note=decision.step, offender=x.offender)
        for i, x in enumerate(decision.lines, 1)
    ]
