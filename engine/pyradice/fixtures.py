"""Consistent Pyradice table states built from a few facts, for tests, demos and the page's examples.

:func:`table` takes the pyramids (and optionally the die in hand and reserves) and makes the rest
consistent: the quarry loses as many dice as the pyramids, hand and reserves hold (always the first
available one, so the quarry is physically possible) and its remaining dice are coloured so that no
colour exceeds the box's twelve.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from engine.dice import Die
from engine.pyradice.game import PyradiceGame
from engine.pyradice.pyramid import SLOTS, Slot
from engine.pyradice.quarry import COLOURS, DICE_PER_COLOUR, Position, Quarry, boxes_for
from engine.pyradice.state import Board, Card, Phase, PlayerState, PyradiceState

DEFAULT_BOARD = Board(("A2", "A3", "A4", "A5", "A6"), ("C6", "D2", "C3", "D4", "C5"))
DEFAULT_CARDS = (Card("Many", "white"), Card("Height", "gray"), Card("Pairs", "maroon"), Card("Big", "orange"))


def filler(count: int, colour: str | None = None, value: int = 1) -> dict[Slot, Die]:
    """A legal pyramid of ``count`` dice, filled level by level from the left; colours cycle unless given."""
    return {s: Die(value, colour or COLOURS[n % 4]) for n, s in enumerate(SLOTS[:count])}


def table(
    pyramids: Sequence[Mapping[Slot, Die]],
    *,
    names: Sequence[str] = ("ana", "ben", "cleo", "dan"),
    board: Board = DEFAULT_BOARD,
    cards: Sequence[Card] = DEFAULT_CARDS,
    phase: Phase = Phase.TAKE,
    turn: int = 0,
    first: int = 0,
    hand: Die | None = None,
    reserves: Mapping[int, Die] | None = None,
    quarry_values: Mapping[Position, Die] | None = None,
    extra_taken: int = 0,
    options: Mapping[str, str] | None = None,
) -> PyradiceState:
    """A state with these pyramids (seat order) whose quarry and dice counts are consistent.

    ``quarry_values`` overrides dice left in the quarry; ``extra_taken`` removes that many more dice.
    The result is checked (InvalidStateError if the facts given are inconsistent).
    """
    players = len(pyramids)
    reserves = dict(reserves or {})
    used = [d for p in pyramids for d in p.values()] + list(reserves.values()) + ([hand] if hand else [])
    quarry = Quarry.full(players)
    for _ in range(len(used) + extra_taken):
        quarry = quarry.remove(quarry.available()[0])
    pool = Counter({c: DICE_PER_COLOUR * boxes_for(players) for c in COLOURS})
    pool.subtract(Counter(d.colour or "" for d in used))
    dice: dict[Position, Die] = {}
    for pos, die in quarry.dice.items():
        if quarry_values and pos in quarry_values:
            dice[pos] = quarry_values[pos]
        else:
            colour = max(COLOURS, key=lambda c: pool[c])
            dice[pos] = Die(die.value, colour)
        pool[dice[pos].colour or ""] -= 1
    state = PyradiceState(
        tuple(PlayerState(n, dict(p), reserves.get(i)) for i, (n, p) in enumerate(zip(names, pyramids, strict=False))),
        Quarry(quarry.boxes, dice),
        board,
        tuple(cards),
        PyradiceGame().resolve_options(options),
        phase,
        turn=turn,
        first=first,
        hand=hand,
    )
    return PyradiceGame().check_state(state)
