"""Dice Treasure at the table: dice rolled in the tray and placed on the players' motif cards.

The observation is :class:`CardsView`: for each card seen, the die on each of its spaces;
:func:`engine.dicetreasure.observe.explain_one` says which legal placements (and exchanges) put them
there. The camera does not read motif cards yet, so games are played on the page; the buttons are the
generic ones (NEXT points at the next legal action, CONFIRM takes it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from device.tables import Explained, TableAdapter, explained_by
from engine.dice import Die
from engine.dicetreasure.observe import explain_one
from engine.dicetreasure.state import Exchange, Place
from engine.errors import GameError


@dataclass(frozen=True)
class CardsView:
    """The cards seen: card id -> the die on each space in the deck file's order (None: empty)."""

    cards: Mapping[str, Sequence[Die | None]]


class DiceTreasureTable(TableAdapter):
    name = "dicetreasure"

    def explain(self, state: Any, seen: Any) -> Explained:
        if not isinstance(seen, CardsView):
            return Explained(problems=("nothing read of the motif cards",))
        try:
            explanation = explain_one(state, seen.cards)
        except GameError as exc:
            return Explained(problems=(str(exc),))
        return explained_by(self.game, state, explanation.actions)

    def is_table_action(self, action: Any) -> bool:
        return isinstance(action, (Place, Exchange))


ADAPTER = DiceTreasureTable
