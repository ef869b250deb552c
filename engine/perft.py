"""Move counts ("perft", as in chess) of any game under the contract of :mod:`engine.game`.

``perft(game, state, depth)`` counts the sequences of ``depth`` steps from ``state``: a decision step is one
of :meth:`Game.legal_actions`, a chance step one of :meth:`Game.chance_outcomes` (every outcome of the roll or
draw awaited). A finished game ends a sequence early and counts nothing. Where a game cannot list the
outcomes of a chance step (``chance_outcomes`` is None: a domino from an unknown deck), the count stops
there and the step counts as one sequence; :func:`steps` says which. Games pin their rules with data files
of such counts (``engine/pyradice/data/perft.json``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.game import Game


def steps(game: Game[Any, Any], state: Any) -> list[Any] | None:
    """Every next step: the legal decisions, every outcome of the chance awaited, or None where the
    game cannot list those outcomes."""
    status = game.status(state)
    if status.finished:
        return []
    if status.awaiting == "chance":
        return game.chance_outcomes(state)
    return game.legal_actions(state)


def perft(game: Game[Any, Any], state: Any, depth: int, *, progress: Callable[[int], None] | None = None) -> int:
    """The number of step sequences of length ``depth`` from ``state`` (1 at depth 0).

    ``progress``, if given, is called with 1 for each first step counted (for a progress bar)."""
    if depth < 0:
        raise ValueError(f"perft depth must be at least 0, got {depth}")
    if depth == 0:
        return 1
    nexts = steps(game, state)
    if nexts is None:
        return 1
    if depth == 1:
        if progress is not None:
            progress(len(nexts))
        return len(nexts)
    total = 0
    for action in nexts:
        total += perft(game, game.apply(state, action), depth - 1)
        if progress is not None:
            progress(1)
    return total


__all__ = ["perft", "steps"]
