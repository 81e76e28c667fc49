"""Errors of the tournament engine, all under :class:`mesa.errors.MesaError`.

>>> try:
...     raise UnknownPlayerError("P0099")
... except TournamentError as e:
...     print(e.code, e, e.reason, e.params)
unknown_player unknown player 'P0099' unknown_player {'player': 'P0099'}

Every refusal carries a ``reason`` (a key of :data:`mesa.tournament.i18n.REFUSALS`) and its
``params``, so the dashboard and the tables say it in the reader's language; ``str(e)`` stays
English, for logs.
"""

from __future__ import annotations

from dataclasses import dataclass

from mesa.errors import MesaError


class TournamentError(MesaError):
    """Root of the engine's errors. ``code`` is stable and coarse (the kind of refusal);
    ``reason`` and ``params`` say exactly what, for translation; ``str(e)`` is English."""

    code = "tournament_error"

    def __init__(
        self, message: str, *, code: str | None = None, reason: str | None = None, **params: object
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.reason = reason or self.code
        self.params: dict[str, object] = params


class UnknownPlayerError(TournamentError):
    code = "unknown_player"

    def __init__(self, player: str, *, reason: str = "unknown_player") -> None:
        super().__init__(f"unknown player {player!r}", reason=reason, player=player)
        self.player = player


class DuplicatePlayerError(TournamentError):
    code = "duplicate_player"


class NotEnoughPlayersError(TournamentError):
    code = "not_enough_players"


class SanctionedError(TournamentError):
    """Registration refused because of a sanction (HGV 2.3.5, 2.3.6); a director may override."""

    code = "sanctioned"


class CategoryError(TournamentError):
    code = "wrong_category"


class PhaseError(TournamentError):
    """The action does not fit the tournament's phase (e.g. registering after the draw)."""

    code = "wrong_phase"


class DrawLockedError(TournamentError):
    """The draw counts already (a match of its phase started or has a result): no redraw."""

    code = "draw_locked"


class UnknownMatchError(TournamentError):
    code = "unknown_match"


class MatchNotReadyError(TournamentError):
    code = "match_not_ready"


class AlreadyDecidedError(TournamentError):
    code = "already_decided"


class InvalidResultError(TournamentError):
    """A score that does not fit the match length (HGV 5.3, 7.2.1, 7.3.1)."""

    code = "invalid_result"


class TableError(TournamentError):
    code = "table_unavailable"


class ConflictError(TournamentError):
    code = "conflict"


@dataclass(frozen=True)
class RowError:
    """One bad row of an imported file: its physical line number and what is wrong."""

    line: int
    message: str
    reason: str = "csv_row"
    params: tuple[tuple[str, object], ...] = ()

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class RankingCSVError(TournamentError):
    """Every bad row of a ranking CSV; nothing was imported.

    >>> e = RankingCSVError([RowError(3, "points: 'x' is not a number")])
    >>> print(e)
    ranking CSV has 1 bad row(s), nothing imported:
      line 3: points: 'x' is not a number
    """

    code = "bad_ranking_csv"

    def __init__(self, errors: list[RowError]) -> None:
        lines = "\n".join(f"  {e}" for e in errors)
        super().__init__(
            f"ranking CSV has {len(errors)} bad row(s), nothing imported:\n{lines}",
            reason="bad_ranking_csv",
            rows=len(errors),
        )
        self.errors = errors
