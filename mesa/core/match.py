"""The match at the table: score, doubling cube, Crawford rule, game results. Pure.

>>> m = Match(length=5)
>>> m.start_game()
>>> m.double("a"); m.take("b")
>>> m.cube_value, m.cube_owner
(2, 'b')
>>> m.finish_game("a", kind=2).points     # a gammon with the cube on 2
4
>>> m.score, m.winner
({'a': 4, 'b': 0}, None)
>>> m.start_game(); m.crawford_state      # a is 1 away: the Crawford game
'crawford'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from mesa.core.sides import SIDES, Side, is_side, other
from mesa.errors import RuleError

MAX_CUBE = 64
KIND_NAMES = {1: "single", 2: "gammon", 3: "backgammon"}
GameHow = Literal["played", "conceded", "pass", "director"]
MatchEnd = Literal["score", "timeout", "lateness", "penalty", "forfeit", "director"]
CrawfordState = Literal["pre", "crawford", "post", "off"]


@dataclass(frozen=True)
class GameRecord:
    """One finished game."""

    number: int
    winner: Side
    kind: int  # 1 single, 2 gammon, 3 backgammon (0 for a pass)
    cube: int
    points: int
    how: GameHow
    score_after: dict[str, int]


@dataclass
class Match:
    """Score, cube and Crawford state of one match.

    ``score`` may start above zero (lateness points, a director's correction).
    ``frozen_until`` maps a side to the last game number in which that side may not double
    (DE 5.2, the frozen cube after penalty points).
    """

    length: int
    score: dict[str, int] = field(default_factory=lambda: {"a": 0, "b": 0})
    crawford: bool = True
    cube_value: int = 1
    cube_owner: Side | None = None
    cube_offered_by: Side | None = None
    game_number: int = 0
    in_game: bool = False
    crawford_game: bool = False
    crawford_played: bool = False
    frozen_until: dict[str, int] = field(default_factory=dict)
    winner: Side | None = None
    ended_by: MatchEnd | None = None
    games: list[GameRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not isinstance(self.length, int) or not 1 <= self.length <= 99:
            raise RuleError("bad_length", f"match length must be 1…99 points, not {self.length!r}")

    # ── state ────────────────────────────────────────────────────────────
    @property
    def over(self) -> bool:
        return self.winner is not None

    def away(self, side: Side) -> int:
        return max(0, self.length - self.score[side])

    @property
    def crawford_state(self) -> CrawfordState:
        if not self.crawford:
            return "off"
        if self.crawford_game:
            return "crawford"
        return "post" if self.crawford_played else "pre"

    @property
    def double_match_point(self) -> bool:
        return self.away("a") == 1 and self.away("b") == 1

    def decides_match(self) -> bool:
        """True when any result of the game in progress ends the match (DE 5.1 grace)."""
        return all(self.score[s] + self.cube_value >= self.length for s in SIDES)

    # ── games ────────────────────────────────────────────────────────────
    def start_game(self) -> None:
        if self.over:
            raise RuleError("match_over", "the match is over")
        if self.in_game:
            raise RuleError("game_in_progress", "a game is already in progress")
        self.game_number += 1
        self.in_game = True
        self.cube_value, self.cube_owner, self.cube_offered_by = 1, None, None
        # The Crawford game is the first game after a player reaches length − 1, exactly once.
        # A 1-point match starts at double match point: it has no Crawford game.
        self.crawford_game = (
            self.crawford
            and self.length > 1
            and not self.crawford_played
            and any(self.away(s) == 1 for s in SIDES)
        )
        if self.crawford_game:
            self.crawford_played = True

    def double_refusal(self, side: Side) -> RuleError | None:
        """Why ``side`` may not double now, or None when the double is legal."""
        if not is_side(side):
            return RuleError("bad_side", f"unknown side {side!r}")
        if self.over:
            return RuleError("match_over", "the match is over")
        if not self.in_game:
            return RuleError("no_game", "no game in progress")
        if self.cube_offered_by is not None:
            return RuleError("cube_pending", "a double is already waiting for an answer")
        if self.crawford_game:
            return RuleError("crawford", "Crawford game: nobody may double")
        if self.double_match_point:
            return RuleError("double_match_point", "double match point: the cube is dead")
        if self.away(side) == 0 or self.away(other(side)) == 0:
            return RuleError("match_over", "the match is decided")
        if self.frozen_until.get(side, 0) >= self.game_number:
            return RuleError("cube_frozen", "frozen cube after penalty points (DE 5.2)")
        if self.cube_owner is not None and self.cube_owner != side:
            return RuleError("not_cube_owner", "only the cube's owner may double")
        if self.cube_value >= MAX_CUBE:
            return RuleError("cube_max", f"the cube is at its maximum of {MAX_CUBE}")
        return None

    def double(self, side: Side) -> None:
        refusal = self.double_refusal(side)
        if refusal:
            raise refusal
        self.cube_offered_by = side

    def _answering(self, side: Side) -> Side:
        if self.cube_offered_by is None:
            raise RuleError("no_double", "no double is waiting for an answer")
        if side != other(self.cube_offered_by):
            raise RuleError("not_responder", "only the doubled player answers a double")
        return self.cube_offered_by

    def take(self, side: Side) -> None:
        self._answering(side)
        self.cube_value *= 2
        self.cube_owner = side
        self.cube_offered_by = None

    def pass_(self, side: Side) -> GameRecord:
        """``side`` declines the double: the doubler wins the cube value before the double."""
        doubler = self._answering(side)
        self.cube_offered_by = None
        return self._record(doubler, kind=0, points=self.cube_value, how="pass")

    def result_refusal(
        self, winner: Side, kind: int, points: int | None = None
    ) -> RuleError | None:
        if not is_side(winner):
            return RuleError("bad_side", f"unknown side {winner!r}")
        if self.over:
            return RuleError("match_over", "the match is over")
        if not self.in_game:
            return RuleError("no_game", "no game in progress")
        if kind not in KIND_NAMES:
            return RuleError("bad_kind", f"a game is won by 1, 2 or 3 (× cube), not {kind!r}")
        if points is not None and points != kind * self.cube_value:
            return RuleError(
                "bad_points",
                f"{KIND_NAMES[kind]} with the cube on {self.cube_value} is "
                f"{kind * self.cube_value} points, not {points}",
            )
        return None

    def finish_game(
        self, winner: Side, kind: int, how: GameHow = "played", points: int | None = None
    ) -> GameRecord:
        """A game won by ``winner`` for ``kind`` (1, 2, 3) × the cube."""
        refusal = self.result_refusal(winner, kind, points)
        if refusal:
            raise refusal
        self.cube_offered_by = None
        return self._record(winner, kind, kind * self.cube_value, how)

    def _record(self, winner: Side, kind: int, points: int, how: GameHow) -> GameRecord:
        self.score[winner] += points
        self.in_game = False
        self.crawford_game = False
        record = GameRecord(
            self.game_number, winner, kind, self.cube_value, points, how, dict(self.score)
        )
        self.games.append(record)
        if self.score[winner] >= self.length:
            self.winner, self.ended_by = winner, "score"
        return record

    # ── other ways points arrive ────────────────────────────────────────
    def award(self, side: Side, points: int, reason: MatchEnd) -> bool:
        """Points outside a game (lateness, penalty points). True when that ends the match."""
        self.score[side] += points
        if self.score[side] >= self.length:
            self.score[side] = max(self.score[side], self.length)
            self.winner, self.ended_by = side, reason
            self.in_game = False
            return True
        return False

    def freeze_cube(self, side: Side, games: int = 2) -> None:
        """DE 5.2: ``side`` may not double in this game and the next."""
        self.frozen_until[side] = self.game_number + games - 1 + (0 if self.in_game else 1)

    def end_by(self, winner: Side, reason: MatchEnd) -> None:
        """The match ends without being played out: the winner is given the match length."""
        self.score[winner] = max(self.score[winner], self.length)
        self.winner, self.ended_by = winner, reason
        self.in_game = False
        self.cube_offered_by = None
        self.crawford_game = False

    def correct(self, score: dict[str, int]) -> None:
        """Director's correction of the score (HGV 4.8). May end or reopen the match."""
        if set(score) != set(SIDES) or any(
            not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in score.values()
        ):
            raise RuleError("bad_score", f"a score is {{'a': n, 'b': n}} with n ≥ 0, not {score!r}")
        if score["a"] >= self.length and score["b"] >= self.length:
            raise RuleError("bad_score", "both players cannot have won the match")
        self.score = dict(score)
        leaders = [s for s in SIDES if score[s] >= self.length]
        if leaders:
            self.winner, self.ended_by = leaders[0], "director"
            self.in_game = False
            self.cube_offered_by = None
        else:
            self.winner, self.ended_by = None, None

    # ── persistence ──────────────────────────────────────────────────────
    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        values = dict(data)
        values["games"] = [GameRecord(**g) for g in values.get("games", [])]
        return cls(**values)
