"""Groups: the snake fill, Berger round robins, and standings with the four tie-breaks.

>>> snake_fill(39, 13)[0], snake_fill(39, 13)[12]
([1, 26, 27], [13, 14, 39])
>>> berger_rounds(3)          # white first; player 1 rests in round 1
[[(2, 3)], [(1, 2)], [(3, 1)]]
>>> rs = [GroupResult("G1-1", "B", "C", 3, 1), GroupResult("G1-2", "A", "B", 0, 3),
...       GroupResult("G1-3", "C", "A", 3, 2)]
>>> [r.player_id for r in group_standings(1, ["A", "B", "C"], rs).rows]
['B', 'C', 'A']
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from mesa.tournament.errors import NotEnoughPlayersError, TournamentError

Criterion = Literal[
    "wins", "forfeit", "h2h_wins", "h2h_diff", "diff", "dice", "pending", "void", "no_show"
]
# Tie-breaks of HGV 7.2.3 in their strict order; a split restarts from the first (RULES §4).
TIE_BREAKS: tuple[Criterion, ...] = ("h2h_wins", "h2h_diff", "diff")

# (tied players sorted, attempt) -> {player: die} or None while no roll is available.
DiceSource = Callable[[tuple[str, ...], int], "dict[str, int] | None"]


def group_count(n_players: int, requested: int | None = None) -> int:
    """``N // 3`` groups (HGV 7.1), at least one; a director may ask for another number.

    >>> group_count(39), group_count(2), group_count(10, requested=2)
    (13, 1, 2)
    """
    if n_players < 2:
        raise NotEnoughPlayersError(f"a tournament needs at least 2 players, got {n_players}",
                                    reason="too_few_players", n=n_players)
    if requested is None:
        return max(1, n_players // 3)
    if not 1 <= requested <= n_players // 2:
        raise TournamentError(
            f"{requested} groups for {n_players} players: choose 1 to {n_players // 2} "
            "so that every group has at least 2 players", code="bad_group_count",
            reason="bad_group_count", groups=requested, n=n_players, most=n_players // 2)
    return requested


def snake_fill(n_players: int, n_groups: int) -> list[list[int]]:
    """Seeding ranks 1…N placed in groups 1…G forward, then G…1 backward, and so on (HGV 7.2.1).

    >>> snake_fill(7, 2)
    [[1, 4, 5], [2, 3, 6, 7]]
    """
    groups: list[list[int]] = [[] for _ in range(n_groups)]
    for i in range(n_players):
        lap, pos = divmod(i, n_groups)
        groups[pos if lap % 2 == 0 else n_groups - 1 - pos].append(i + 1)
    return groups


def berger_rounds(n: int) -> list[list[tuple[int, int]]]:
    """Round robin of ``n`` group positions by the Berger tables; the first-named plays white.

    With an odd ``n`` a dummy player makes the count even and its pairing is a rest (omitted).

    >>> berger_rounds(4)
    [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    """
    m = n if n % 2 == 0 else n + 1
    rounds: list[list[tuple[int, int]]] = []
    for r in range(1, m):
        p = ((r - 1) * (m // 2)) % (m - 1) + 1
        pairs = [(p, m) if r % 2 == 1 else (m, p)]
        for i in range(1, m // 2):
            pairs.append(((p + i - 1) % (m - 1) + 1, (p - i - 1) % (m - 1) + 1))
        rounds.append([(x, y) for x, y in pairs if x <= n and y <= n])
    return rounds


@dataclass(frozen=True)
class GroupResult:
    """A decided group match as the standings need it."""

    match_id: str
    a: str
    b: str
    score_a: int
    score_b: int
    forfeit: bool = False

    @property
    def winner(self) -> str:
        return self.a if self.score_a > self.score_b else self.b

    @property
    def loser(self) -> str:
        return self.b if self.score_a > self.score_b else self.a

    def diff_for(self, player: str) -> int:
        d = self.score_a - self.score_b
        return d if player == self.a else -d


@dataclass(frozen=True)
class TieStep:
    """One criterion applied to a set of players: their values and whether it separated them."""

    criterion: Criterion
    among: tuple[str, ...]
    values: dict[str, int] = field(default_factory=dict)
    split: bool = False
    attempt: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"criterion": self.criterion, "among": list(self.among),
                "values": dict(self.values), "split": self.split, "attempt": self.attempt}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TieStep:
        return cls(d["criterion"], tuple(d["among"]), {k: int(v) for k, v in d["values"].items()},
                   bool(d["split"]), int(d.get("attempt", 0)))


@dataclass(frozen=True)
class StandingRow:
    """A player's line in the group table and the steps that decided their place."""

    player_id: str
    place: int
    played: int
    wins: int
    losses: int
    points_for: int
    points_against: int
    forfeit_losses: int
    voided: bool
    qualified: bool
    steps: tuple[TieStep, ...]

    @property
    def diff(self) -> int:
        return self.points_for - self.points_against

    @property
    def decided_by(self) -> Criterion:
        """The criterion that finally set this place: the last step that split its tie."""
        if self.voided:
            return "void"
        for step in reversed(self.steps):
            if step.criterion == "pending":
                return "pending"
            if step.split:
                return step.criterion
        return "wins"

    def to_dict(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "place": self.place, "played": self.played,
                "wins": self.wins, "losses": self.losses, "points_for": self.points_for,
                "points_against": self.points_against, "diff": self.diff,
                "forfeit_losses": self.forfeit_losses, "voided": self.voided,
                "qualified": self.qualified, "decided_by": self.decided_by,
                "steps": [s.to_dict() for s in self.steps]}


@dataclass(frozen=True)
class GroupStandings:
    """The table of one group. ``complete`` when every match of the group is decided."""

    group: int
    rows: tuple[StandingRow, ...]
    complete: bool
    voided: tuple[str, ...] = ()
    removed_matches: tuple[str, ...] = ()
    dice: tuple[TieStep, ...] = ()

    def row(self, player_id: str) -> StandingRow:
        for r in self.rows:
            if r.player_id == player_id:
                return r
        raise KeyError(player_id)

    @property
    def qualifiers(self) -> list[str]:
        return [r.player_id for r in self.rows if r.qualified]

    @property
    def pending_dice(self) -> bool:
        return any(r.decided_by == "pending" for r in self.rows)

    def to_dict(self) -> dict[str, Any]:
        return {"group": self.group, "complete": self.complete, "voided": list(self.voided),
                "removed_matches": list(self.removed_matches),
                "rows": [r.to_dict() for r in self.rows]}


def voided_players(players: Sequence[str], results: Sequence[GroupResult]) -> set[str]:
    """HGV 2.3.3: won one match and lost every other one by forfeit, all matches decided.

    >>> rs = [GroupResult("G1-1", "A", "B", 3, 0), GroupResult("G1-2", "C", "A", 3, 0, True)]
    >>> voided_players(["A", "B", "C"], rs)
    {'A'}
    """
    n = len(players)
    out: set[str] = set()
    for p in players:
        mine = [r for r in results if p in (r.a, r.b)]
        if n < 3 or len(mine) < n - 1:
            continue
        losses = [r for r in mine if r.loser == p]
        won = len(mine) - len(losses)
        if won == 1 and losses and all(r.forfeit for r in losses):
            out.add(p)
    return out


def group_standings(
    group: int,
    players: Sequence[str],
    results: Sequence[GroupResult],
    *,
    dice: DiceSource | None = None,
    qualifiers: int = 3,
    no_shows: Collection[str] = (),
) -> GroupStandings:
    """Rank a group (HGV 7.2.2, 7.2.3, 2.3.2, 2.3.3). ``players`` in group seed order.

    1 point per win. Ties: (1) wins among the tied, (2) point difference among the tied,
    (3) point difference over the whole group, (4) dice; every split restarts at (1) for each
    smaller tie. A player with a forfeit loss leaves any tie and goes below it. Dice are only
    asked for once the group is complete; before that a tie needing dice stays ``pending``
    (shown in seed order). ``no_shows`` (HGV 2.3.6: confirmed and did not come) have every
    match counted as lost: they go to the bottom and never qualify, so the next player of the
    group takes their place.

    >>> rs = [GroupResult("G1-1", "A", "B", 3, 0), GroupResult("G1-2", "A", "C", 3, 1),
    ...       GroupResult("G1-3", "B", "C", 3, 2)]
    >>> [(r.player_id, r.qualified) for r in group_standings(1, "ABC", rs, qualifiers=2).rows]
    [('A', True), ('B', True), ('C', False)]
    >>> st = group_standings(1, "ABC", rs, qualifiers=2, no_shows={"A"})
    >>> [(r.player_id, r.qualified, r.decided_by) for r in st.rows]
    [('B', True, 'wins'), ('C', True, 'wins'), ('A', False, 'no_show')]
    """
    complete = len(results) >= len(players) * (len(players) - 1) // 2
    void = voided_players(players, results)
    counted = [r for r in results if r.a not in void and r.b not in void]
    removed = tuple(r.match_id for r in results if r.a in void or r.b in void)
    stats = _tally(players, counted)
    ranker = _Ranker(group, players, counted, stats, dice)
    gone = [p for p in players if p in no_shows and p not in void]
    order = ranker.by_wins([p for p in players if p not in void and p not in gone])
    for p in players:
        if p in void:
            ranker.record(TieStep("void", (p,), {}, True), [p])
            order.append(p)
    for p in gone:
        ranker.record(TieStep("no_show", (p,), {}, True), [p])
        order.append(p)
    rows = []
    for place, p in enumerate(order, start=1):
        st = stats[p]
        rows.append(StandingRow(
            player_id=p, place=place, played=st["played"], wins=st["wins"],
            losses=st["played"] - st["wins"], points_for=st["pf"], points_against=st["pa"],
            forfeit_losses=st["fl"], voided=p in void,
            qualified=place <= qualifiers and p not in void and p not in gone,
            steps=tuple(ranker.steps[p])))
    return GroupStandings(group, tuple(rows), complete, tuple(p for p in players if p in void),
                          removed, tuple(ranker.dice_log))


# A player's tally: played, wins, points for ("pf") and against ("pa"), forfeit losses ("fl").
Tally = dict[str, int]


def _tally(players: Sequence[str], counted: Sequence[GroupResult]) -> dict[str, Tally]:
    stats = {p: {"played": 0, "wins": 0, "pf": 0, "pa": 0, "fl": 0} for p in players}
    for r in counted:
        for p in (r.a, r.b):
            s = stats[p]
            s["played"] += 1
            s["pf"] += r.score_a if p == r.a else r.score_b
            s["pa"] += r.score_b if p == r.a else r.score_a
        stats[r.winner]["wins"] += 1
        if r.forfeit:
            stats[r.loser]["fl"] += 1
    return stats


class _Ranker:
    """Orders a group's players by match points and the tie-breaks of HGV 7.2.3, keeping every
    step it applied to each player (and every roll of the dice)."""

    def __init__(self, group: int, players: Sequence[str], counted: Sequence[GroupResult],
                 stats: dict[str, Tally], dice: DiceSource | None) -> None:
        self.group = group
        self.counted = counted
        self.stats = stats
        self.dice = dice
        self.steps: dict[str, list[TieStep]] = {p: [] for p in players}
        self.dice_log: list[TieStep] = []
        self.seed_pos = {p: i for i, p in enumerate(players)}

    def record(self, step: TieStep, players: Sequence[str]) -> None:
        for p in players:
            self.steps[p].append(step)

    def by_wins(self, active: Sequence[str]) -> list[str]:
        """1 point a win; within equal points a player with a forfeit loss goes below the
        others (HGV 2.3.2), then each tie is broken."""
        stats = self.stats
        order: list[str] = []
        for w in sorted({stats[p]["wins"] for p in active}, reverse=True):
            bucket = [p for p in active if stats[p]["wins"] == w]
            self.record(TieStep("wins", tuple(bucket), {p: w for p in bucket}, False), bucket)
            clean = [p for p in bucket if stats[p]["fl"] == 0]
            dirty = [p for p in bucket if stats[p]["fl"] > 0]
            if clean and dirty:
                self.record(TieStep("forfeit", tuple(bucket),
                                    {p: stats[p]["fl"] for p in bucket}, True), bucket)
            order.extend(self.rank(clean))
            order.extend(self.rank(dirty))
        return order

    def value(self, criterion: Criterion, p: str, tied: set[str]) -> int:
        if criterion == "diff":
            return self.stats[p]["pf"] - self.stats[p]["pa"]
        total = 0
        for r in self.counted:
            if p in (r.a, r.b) and r.a in tied and r.b in tied:
                if criterion == "h2h_wins":
                    total += r.winner == p
                else:
                    total += r.diff_for(p)
        return total

    def split(self, tied: list[str], vals: dict[str, int]) -> list[str]:
        """Best value first; each smaller tie restarts at the first criterion."""
        out: list[str] = []
        for v in sorted(set(vals.values()), reverse=True):
            out.extend(self.rank([p for p in tied if vals[p] == v]))
        return out

    def rank(self, tied: list[str]) -> list[str]:
        if len(tied) <= 1:
            return tied
        tied_set = set(tied)
        for criterion in TIE_BREAKS:
            vals = {p: self.value(criterion, p, tied_set) for p in tied}
            step = TieStep(criterion, tuple(tied), vals, len(set(vals.values())) > 1)
            self.record(step, tied)
            if step.split:
                return self.split(tied, vals)
        return self._by_dice(tied)

    def _by_dice(self, tied: list[str]) -> list[str]:
        """Criterion 4: dice, rolled again while all are equal; ``pending`` (seed order) while
        no roll is available."""
        among, tied_set = tuple(tied), set(tied)
        attempt = 0
        while True:
            rolls = None if self.dice is None else self.dice(tuple(sorted(tied)), attempt)
            if rolls is None:
                self.record(TieStep("pending", among), tied)
                return sorted(tied, key=self.seed_pos.__getitem__)
            if set(rolls) != tied_set:
                raise TournamentError(
                    f"dice for group {self.group} must be given for exactly {sorted(tied)}",
                    code="bad_dice", reason="dice_for_whom", group=self.group,
                    players=", ".join(sorted(tied)))
            step = TieStep("dice", among, dict(rolls), len(set(rolls.values())) > 1, attempt)
            self.dice_log.append(step)
            self.record(step, tied)
            if step.split:
                return self.split(tied, rolls)
            attempt += 1  # everybody rolled the same: roll again
