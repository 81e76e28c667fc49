"""Corrections and conflicts: a director's correction of a recorded result (HGV 4.8), a
table's report the hub will not apply by itself, and the director's decision on each.

A correction that later rounds already used changes nothing: it opens a :class:`Conflict`,
and so does a disputed table report. What a decision would do is found by playing it on a
copy of the state first (a *trial*), so the real state changes only by what the director
confirmed.

A part of :class:`~mesa.tournament.tournament.Tournament` (the facade documents the actions);
it works on the shared :class:`~mesa.tournament.state.TournamentState`.

Through the facade (which builds the parts and the trial's copy):

>>> from datetime import date, datetime
>>> from mesa.tournament.players import PlayerRegistry
>>> from mesa.tournament.tournament import Tournament
>>> reg, now = PlayerRegistry(), datetime(2014, 1, 31, 19, 30)
>>> t = Tournament("T", "Enero", date(2014, 1, 31))
>>> for n in ("ANA", "BEA", "EVA"):
...     _ = t.register(reg, reg.add_new(n).id, now=now)
>>> _ = t.start_groups(ranking={}, seed=1, now=now)
>>> for m in t.group_matches(1):
...     _ = t.record_result(m.id, 3, 1, now=now)
>>> _ = t.record_result("KO-PI-1", 5, 0, now=now)
>>> _ = t.record_result("KO-F-1", 7, 0, now=now)
>>> c = t.correct_result("KO-PI-1", 0, 5, now=now, reason="al revés").conflict
>>> c.kinds, c.affected, t.match("KO-PI-1").result.score_a    # nothing changed yet
(['downstream'], ['KO-F-1'], 5)
>>> _ = t.resolve_conflict(c.id, "apply", expected=["KO-F-1"], now=now)
>>> t.match("KO-PI-1").result.score_a, t.match("KO-F-1").result    # the final is replayed
(0, None)
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from mesa.tournament.closing import Closing
from mesa.tournament.consolation_stage import ConsolationStage
from mesa.tournament.errors import ConflictError, MatchNotReadyError, TournamentError
from mesa.tournament.flow import Flow
from mesa.tournament.knockout import QualifiedSeed
from mesa.tournament.knockout_stage import KnockoutStage
from mesa.tournament.matches import Match, Result, iso, validate_score
from mesa.tournament.records import Conflict, Outcome, Resolution, Withdrawal
from mesa.tournament.results import Results
from mesa.tournament.state import TournamentState


class Corrections:
    def __init__(self, state: TournamentState, *, knockout: KnockoutStage,
                 consolation: ConsolationStage, flow: Flow, results: Results, closing: Closing,
                 trial: Callable[[TournamentState], Corrections]) -> None:
        self.state = state
        self.knockout = knockout
        self.consolation = consolation
        self.flow = flow
        self.results = results
        self.closing = closing
        # Builds the parts over another state: a trial runs on a deep copy of this one.
        self._trial = trial

    def _copy(self) -> Corrections:
        return self._trial(copy.deepcopy(self.state))

    # -- what a change would disturb ----------------------------------------------------------

    def _used_players(self) -> dict[str, tuple[str | None, str | None]]:
        out: dict[str, tuple[str | None, str | None]] = {}
        for m in self.state.matches.values():
            if m.result is not None:
                out[m.id] = (m.result.a, m.result.b)
            elif m.started_players is not None:
                out[m.id] = m.started_players
        return out

    def _inconsistent(self, skip: str | None = None) -> list[str]:
        matches = self.state.matches
        return [mid for mid, used in self._used_players().items()
                if mid != skip and (matches[mid].a, matches[mid].b) != used]

    def _conflict_kinds(self, trial: Corrections, match_id: str) -> tuple[list[str], list[str]]:
        s = self.state
        kinds: list[str] = []
        affected: list[str] = []
        m = s.matches[match_id]
        if (m.phase == "group" and s.knockout is not None
                and self.knockout.preview_players() != trial.knockout.preview_players()):
            kinds.append("draw")
            affected += [x.id for x in s.matches.values()
                         if x.phase != "group" and x.status in ("assigned", "playing", "done")]
        down = trial._inconsistent(skip=match_id)
        if down:
            kinds.append("downstream")
            affected += [d for d in down if d not in affected]
        if s.consolation is not None:
            eligible = set(trial.consolation.eligible()) | {
                p for p, w in trial.state.withdrawals.items() if w.kind == "consolation"}
            if any(p not in eligible for p in s.consolation.players):
                kinds.append("consolation")
        return kinds, affected

    def _trial_kinds(self, match_id: str, new: Result, now: datetime,
                     actor: str) -> tuple[list[str], list[str]]:
        trial = self._copy()
        trial.apply_correction(match_id, new, now, actor, Outcome("trial"))
        return self._conflict_kinds(trial, match_id)

    # -- a director's correction --------------------------------------------------------------

    def correct(self, match_id: str, score_a: int, score_b: int, *, forfeit: bool, actor: str,
                now: datetime, reason: str) -> Outcome:
        s = self.state
        m = s.match(match_id)
        if m.result is None:
            raise MatchNotReadyError(f"{match_id} has no result to correct: record it instead",
                                     reason="nothing_to_correct", match=match_id)
        validate_score(m.length, score_a, score_b)
        old = m.result
        new = Result(old.a, old.b, score_a, score_b, forfeit, "director", actor, now)
        out = Outcome("correct_result", match_id)
        if (old.score_a, old.score_b, old.forfeit) == (score_a, score_b, forfeit):
            return out
        kinds, affected = self._trial_kinds(match_id, new, now, actor)
        if kinds:
            c = Conflict(f"C{len(s.conflicts) + 1}", match_id, old.to_dict(), new.to_dict(),
                         reason, actor, now, kinds, affected)
            # What the director confirms is exactly what "apply" would annul now.
            # (If apply would be refused anyway, the list stays what the trial saw.)
            with contextlib.suppress(TournamentError):
                c.affected = self._annuls_of(c, now, actor)
            s.conflicts.append(c)
            s.log(now, actor, "correction_conflict", conflict=c.id, match_id=match_id,
                  old=old.to_dict(), new=new.to_dict(), kinds=kinds, affected=affected,
                  reason=reason)
            out.conflict = c
            return out
        s.begin()
        self.apply_correction(match_id, new, now, actor, out)
        s.log(now, actor, "correct_result", match_id=match_id, old=old.to_dict(),
              new=new.to_dict(), reason=reason)
        return s.finish(out)

    def apply_correction(self, match_id: str, new: Result, now: datetime, actor: str,
                         out: Outcome) -> None:
        m = self.state.matches[match_id]
        old = m.result
        m.history.append({"at": iso(now), "actor": actor, "action": "correct",
                          "old": None if old is None else old.to_dict(),
                          "new": new.to_dict()})
        self.state.set_result(m, new)
        self.flow.after_change(now, out)

    # -- a table's disputed report ------------------------------------------------------------

    def table_conflict(self, match_id: str, score_a: int, score_b: int, *, forfeit: bool,
                       actor: str, now: datetime, reason: str) -> Outcome:
        s = self.state
        m = s.match(match_id)
        if m.a is None or m.b is None:
            raise MatchNotReadyError(f"{match_id} is not ready: its players are not known yet",
                                     reason="players_unknown", match=match_id)
        validate_score(m.length, score_a, score_b)
        out = Outcome("table_conflict", match_id)
        old = m.result
        if old is not None and (old.score_a, old.score_b, old.forfeit) == (
                score_a, score_b, forfeit):
            return out
        new = Result(m.a, m.b, score_a, score_b, forfeit, "table", actor, now)
        again = self._same_report(match_id, actor, (score_a, score_b, forfeit))
        if again is not None:
            out.conflict = again
            return out  # the same report again (a correction then its match.ended)
        kinds: list[str] = ["table"]
        affected: list[str] = []
        if old is not None:
            more, affected = self._trial_kinds(match_id, new, now, actor)
            kinds += more
        c = Conflict(f"C{len(s.conflicts) + 1}", match_id,
                     None if old is None else old.to_dict(), new.to_dict(), reason, actor, now,
                     kinds, affected)
        s.conflicts.append(c)
        s.log(now, actor, "table_conflict", conflict=c.id, match_id=match_id,
              old=c.old, new=c.new, kinds=kinds, affected=affected, reason=reason)
        out.conflict = c
        return out

    def _same_report(self, match_id: str, actor: str,
                     score: tuple[int, int, bool]) -> Conflict | None:
        for c in self.open_conflicts():
            if (c.match_id == match_id and c.actor == actor
                    and (c.new["score_a"], c.new["score_b"], c.new["forfeit"]) == score):
                return c
        return None

    # -- the decision -------------------------------------------------------------------------

    def open_conflicts(self) -> list[Conflict]:
        return [c for c in self.state.conflicts if c.status == "open"]

    def _open_conflict(self, conflict_id: str) -> Conflict:
        c = next((c for c in self.state.conflicts if c.id == conflict_id), None)
        if c is None or c.status != "open":
            raise ConflictError(f"no open conflict {conflict_id!r}", reason="no_conflict",
                                conflict=conflict_id)
        return c

    def _annuls_of(self, c: Conflict, now: datetime, actor: str) -> list[str]:
        trial = self._copy()
        tc = copy.deepcopy(c)
        tc.annulled = []
        trial.state.conflicts = [x for x in trial.state.conflicts if x.id != c.id] + [tc]
        trial.resolve(tc.id, "apply", actor=actor, now=now, expected=None)
        return [a["match_id"] for a in tc.annulled if "match_id" in a]

    def conflict_annuls(self, conflict_id: str, *, now: datetime | None) -> list[str]:
        c = self._open_conflict(conflict_id)
        try:
            return self._annuls_of(c, now or c.at, c.actor)
        except TournamentError:
            return list(c.affected)

    def resolve(self, conflict_id: str, resolution: Resolution, *, actor: str, now: datetime,
                expected: Sequence[str] | None) -> Outcome:
        s = self.state
        c = self._open_conflict(conflict_id)
        if resolution == "apply" and expected is not None:
            self._check_expected(c, expected, now, actor)
        out = Outcome("resolve_conflict", c.match_id, conflict=c)
        s.begin()
        if resolution == "keep":
            c.status = "kept"
        elif resolution in ("apply", "apply_keep_draw"):
            recorded = self._apply(c, resolution, actor, now, out)
            if recorded is not None:
                return recorded
        else:
            raise ConflictError(f"unknown resolution {resolution!r}", reason="bad_resolution",
                                resolution=resolution)
        c.resolved_by, c.resolved_at = actor, now
        s.log(now, actor, "resolve_conflict", conflict=c.id, resolution=resolution,
              annulled=list(c.annulled))
        return s.finish(out)

    def _check_expected(self, c: Conflict, expected: Sequence[str], now: datetime,
                        actor: str) -> None:
        """Refuse when ``apply`` would now annul other matches than the director confirmed."""
        would = self._annuls_of(c, now, actor)
        if sorted(would) != sorted(expected):
            raise ConflictError(
                f"applying {c.id} would now annul {', '.join(would) or 'nothing'}, "
                f"not {', '.join(expected) or 'nothing'}: look at it again",
                reason="conflict_annuls_changed", conflict=c.id,
                annuls=", ".join(would) or "—")

    def _apply(self, c: Conflict, resolution: Resolution, actor: str, now: datetime,
               out: Outcome) -> Outcome | None:
        """Apply the conflict's result. A table's result for a still undecided match is
        recorded as the director's: that record's outcome is returned (already reported)."""
        if resolution == "apply_keep_draw" and c.kinds != ["draw"]:
            raise ConflictError("apply_keep_draw is only for a group correction whose "
                                "sole effect is on the draw", reason="keep_draw_only")
        m = self.state.match(c.match_id)
        if "table" in c.kinds and m.result is None:
            return self._record_table_result(c, m, resolution, actor, now)
        self._apply_to_record(c, m, resolution, actor, now, out)
        return None

    def _record_table_result(self, c: Conflict, m: Match, resolution: Resolution, actor: str,
                             now: datetime) -> Outcome:
        if (m.a, m.b) != (c.new["a"], c.new["b"]):
            raise ConflictError(f"{c.match_id} changed since the conflict was opened",
                                reason="conflict_stale", match=c.match_id)
        out = self.results.record(c.match_id, c.new["score_a"], c.new["score_b"],
                                  forfeit=c.new["forfeit"], source="director", actor=actor,
                                  now=now)
        out.conflict = c
        c.status = "applied"
        c.resolved_by, c.resolved_at = actor, now
        self.state.log(now, actor, "resolve_conflict", conflict=c.id, resolution=resolution,
                       annulled=[])
        return out

    def _apply_to_record(self, c: Conflict, m: Match, resolution: Resolution, actor: str,
                         now: datetime, out: Outcome) -> None:
        s = self.state
        players: dict[str, Any] = c.old if c.old is not None else c.new
        if m.result is None or (m.result.a, m.result.b) != (players["a"], players["b"]):
            raise ConflictError(f"{c.match_id} changed since the conflict was opened",
                                reason="conflict_stale", match=c.match_id)
        new = Result.from_dict(c.new)
        new = Result(new.a, new.b, new.score_a, new.score_b, new.forfeit, "director", actor,
                     now) if "table" in c.kinds else new
        eligible_before = self.consolation.eligible()
        draw_before = self.knockout.preview_players() if s.knockout is not None else None
        self.apply_correction(c.match_id, new, now, actor, out)
        if resolution == "apply":
            if draw_before is not None and self.knockout.preview_players() != draw_before:
                self._redraw_knockout(now, actor, c, out)
            if s.consolation is not None:
                self._swap_consolation_entrants(eligible_before, now, actor, c)
            self._annul_inconsistent(now, actor, c, out)
        c.status = "applied" if resolution == "apply" else "applied_keep_draw"
        if s.phase == "closed" and not self.closing.is_finished():
            # A late correction undid part of the knockout: it must be played again.
            s.phase = "knockout"
            s.log(now, actor, "reopen", conflict=c.id)

    # -- what applying undoes -----------------------------------------------------------------

    def _annul(self, m: Match, now: datetime, actor: str, c: Conflict) -> None:
        """Undo a match: result, start and table (a table that held it is told by the desk)."""
        self.state.mark(m)
        c.annulled.append({"match_id": m.id,
                           "result": None if m.result is None else m.result.to_dict(),
                           "started": m.started_players is not None, "table": m.table})
        m.history.append({"at": iso(now), "actor": actor, "action": "annul",
                          "conflict": c.id, "table": m.table,
                          "result": None if m.result is None else m.result.to_dict()})
        m.result = None
        m.started_at = None
        m.started_players = None
        m.table, m.assigned_at, m.scheduled_start = None, None, None

    def _redraw_knockout(self, now: datetime, actor: str, c: Conflict, out: Outcome) -> None:
        s = self.state
        for bracket in (s.knockout, s.consolation):
            if bracket is None:
                continue
            for mid in bracket.match_ids:
                m = s.matches[mid]
                if m.result is not None or m.started_players is not None or m.table:
                    self._annul(m, now, actor, c)
                s.mark(m)
                del s.matches[mid]
        s.feeds = None
        s.knockout = s.consolation = None
        s.substitutions.clear()
        s.knockout_forfeits.clear()
        s.withdrawals = {p: w for p, w in s.withdrawals.items() if w.kind != "consolation"}
        s.phase = "groups"
        self.flow.after_change(now, out)

    def _swap_consolation_entrants(self, eligible_before: list[str], now: datetime,
                                   actor: str, c: Conflict) -> None:
        s = self.state
        assert s.consolation is not None
        eligible = self.consolation.eligible()
        newcomers = [p for p in eligible if p not in eligible_before
                     and p not in s.consolation.players]
        for i, seed in enumerate(s.consolation.seeds):
            if seed.player_id in eligible or s.withdrawals.get(seed.player_id) is not None:
                continue
            if newcomers:
                incoming = newcomers.pop(0)
                s.consolation.seeds[i] = QualifiedSeed(
                    seed.seed, incoming, s.seeding_rank().get(incoming, 0),
                    s.group_of(incoming) or 0)
                c.annulled.append({"consolation_seed": seed.seed, "out": seed.player_id,
                                   "in": incoming})
            else:
                s.withdrawals[seed.player_id] = Withdrawal(seed.player_id, "consolation", now,
                                                           actor)

    def _annul_inconsistent(self, now: datetime, actor: str, c: Conflict,
                            out: Outcome) -> None:
        s = self.state
        while True:
            self.knockout.derive(s.knockout)
            self.knockout.derive(s.consolation)
            bad = self._inconsistent()
            if not bad:
                break
            for mid in bad:
                self._annul(s.matches[mid], now, actor, c)
        # An assigned match whose players changed: its table was told the old names.
        for m in s.matches.values():
            before = s.before.get(m.id)
            if (m.table is not None and m.result is None and m.started_players is None
                    and before is not None and (before[1], before[2]) != (m.a, m.b)):
                self._annul(m, now, actor, c)
        self.flow.after_change(now, out)
