"""A game's lifecycle as data: for every (state, input) it accepts, the states that may follow.

Every game declares one such table; the apply loop (:mod:`mesa.engine.machine`) refuses a pair
that is not listed and rolls back a handler that ends in a state not listed for its pair, and
``mesa docs`` renders the table as Markdown (:func:`markdown`).

>>> table: TransitionTable = {}
>>> declare(table, "idle", {"assign": transition("assigned", note="a match is assigned"),
...                         "tick": transition("=", note="nothing to settle")})
>>> table[("idle", "tick")].targets          # "=" is the state itself
('idle',)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mesa.engine.inputs import InputSpec

__all__ = ["Transition", "TransitionTable", "declare", "markdown", "transition"]


@dataclass(frozen=True)
class Transition:
    targets: tuple[str, ...]
    note: str


# (state, input name) → what may follow; a pair not in it is refused and changes nothing.
TransitionTable = dict[tuple[str, str], Transition]


def transition(*targets: str, note: str) -> Transition:
    """A transition to any of ``targets`` (``"="``: the state it starts from)."""
    return Transition(tuple(targets), note)


def declare(table: TransitionTable, state: str, moves: Mapping[str, Transition]) -> None:
    """Enter ``state``'s moves into ``table``, with ``"="`` replaced by ``state``."""
    for name, tr in moves.items():
        targets = tuple(state if t == "=" else t for t in tr.targets)
        table[(state, name)] = Transition(targets, tr.note)


def markdown(
    intro: Sequence[str],
    states: Sequence[str],
    state_docs: Mapping[str, str],
    specs: Mapping[str, InputSpec],
    table: Mapping[tuple[str, str], Transition],
) -> str:
    """A game's states, inputs and transitions as Markdown, after its ``intro`` lines."""
    lines = [*intro, "", "## States", "", "| state | meaning |", "|---|---|"]
    lines += [f"| `{s}` | {state_docs[s]} |" for s in states]
    lines += ["", "## Inputs", "", "| input | source | arguments | meaning |", "|---|---|---|---|"]
    for name, spec in specs.items():
        args = [f"`{k}`" for k in spec.args] + [f"`{k}`?" for k in spec.optional]
        lines.append(f"| `{name}` | {spec.source} | {', '.join(args) or '–'} | {spec.doc} |")
    lines += ["", "## Transitions", ""]
    for state in states:
        lines += [f"### `{state}`", "", "| input | next state | what happens |", "|---|---|---|"]
        for name in specs:
            tr = table.get((state, name))
            if tr:
                targets = ", ".join(f"`{t}`" for t in tr.targets)
                lines.append(f"| `{name}` | {targets} | {tr.note} |")
        refused = [f"`{n}`" for n in specs if (state, n) not in table]
        lines += ["", f"Refused here: {', '.join(refused) or 'nothing'}.", ""]
    return "\n".join(lines)
