"""The seed's penalties: a reason code, its default points, who receives them, and expulsion.

Points are recorded per player, with their sign: ``-25`` comes off the offender, a late pass
gives ``+25`` to each player of the other pair. Which seats a reason touches is its ``scope``.

>>> rule = PENALTIES["talking_second"]
>>> rule.scope, DEFAULT_PENALTY_POINTS["talking_second"]
('offender_and_partner', -75)
>>> PENALTIES["abandoned"].expels, DEFAULT_PENALTY_POINTS["abandoned"]
(True, -200)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Scope = Literal["offender", "offender_and_partner", "offender_pair", "other_pair", "table"]
SCOPES: tuple[Scope, ...] = ("offender", "offender_and_partner", "offender_pair", "other_pair",
                             "table")


@dataclass(frozen=True)
class PenaltyRule:
    """One line of the seed's penalty list. ``points`` is the default, with its sign."""

    points: int
    scope: Scope
    expels: bool
    source: str  # the seed's words, so a director can check the reason against the regulation


PENALTIES: dict[str, PenaltyRule] = {
    # Applied by the table itself, from the play timer.
    "slow_play": PenaltyRule(-25, "offender", False, "más de 15 segundos: amonestación, luego -25"),
    "late_pass": PenaltyRule(25, "other_pair", False, "más de 5 segundos para decir PASO: +25 a cada jugador de la pareja contraria"),
    "absent": PenaltyRule(-100, "offender", False, "ausente: -100"),
    # Applied by the director from the hub.
    "late_arrival_repeat": PenaltyRule(-50, "offender", False, "llegar tarde en más de una ocasión: -50"),
    "broke_hand": PenaltyRule(-25, "offender", False, "romper la mano antes de contar los puntos"),
    "left_before_sheet": PenaltyRule(-25, "offender", False, "levantarse antes de que el juez verifique la hoja"),
    "adjusted_tiles": PenaltyRule(-25, "offender", False, "ajustar o arreglar las fichas en el atril"),
    "touched_tile": PenaltyRule(-25, "offender", False, "ficha tocada que no cabe, no jugada a la primera oportunidad o mano rota"),
    "gesture_pass": PenaltyRule(25, "other_pair", False, "pasar con un gesto o golpe: +25 a cada jugador de la pareja contraria"),
    "false_pass": PenaltyRule(-25, "offender", False, "decir PASO falsamente"),
    "wrong_lead": PenaltyRule(-25, "offender", False, "salida equivocada"),
    "early_play": PenaltyRule(-25, "offender", False, "jugada adelantada"),
    "pass_with_playable": PenaltyRule(-25, "offender", False, "pasar con ficha jugable"),
    "chivo": PenaltyRule(-25, "offender", False, "chivo"),
    "talking": PenaltyRule(-25, "offender", False, "hablar, gestos o señas: primera vez"),
    "talking_second": PenaltyRule(-75, "offender_and_partner", False, "segunda vez: -75 al violador y -75 a su pareja"),
    "talking_third": PenaltyRule(0, "offender", True, "tercera vez: expulsión del torneo"),
    "asked_score": PenaltyRule(-25, "offender", False, "verificar la hoja o preguntar la puntuación durante la partida"),
    "touched_pips": PenaltyRule(-25, "offender", False, "tocar los puntos de las fichas (segunda vez)"),
    "tile_placement": PenaltyRule(-25, "offender", False, "tirar fichas o dejar espacio (segunda vez)"),
    "false_identification": PenaltyRule(-25, "offender", False, "falsa identificación de una ficha caída"),
    "wrong_seats": PenaltyRule(-100, "table", False, "sentarse con la pareja equivocada: -100 cada uno"),
    "sheet_unsigned": PenaltyRule(-25, "offender_pair", False, "hoja no firmada: -25 a cada uno de la pareja"),
    "marked_tiles": PenaltyRule(0, "offender", True, "marcar fichas: expulsión inmediata"),
    "misconduct": PenaltyRule(0, "offender", True, "discutir, amedrentar o contacto físico: expulsión"),
    "abandoned": PenaltyRule(-200, "offender", True, "abandonar la partida: expulsión, tarjeta roja y -200"),
    "other": PenaltyRule(-25, "offender", False, "otra falta, según el director"),
}

DEFAULT_PENALTY_POINTS: dict[str, int] = {reason: r.points for reason, r in PENALTIES.items()}
REASONS: tuple[str, ...] = tuple(PENALTIES)
# Reasons only the table applies (the timer, the absence input): the director uses the others.
TABLE_REASONS: frozenset[str] = frozenset({"slow_play", "late_pass", "absent"})
DIRECTOR_REASONS: tuple[str, ...] = tuple(r for r in REASONS if r not in TABLE_REASONS)
