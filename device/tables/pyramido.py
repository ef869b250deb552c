"""Pyramido: Forgotten Treasures at the table: each player's domino pyramid and the exploration area.

The observation is :class:`PyramidView`: a pyramid's top view (quarter cell -> block colour and whether a
gem icon shows) before and after the domino in hand was laid; :func:`engine.pyramido.explain_placement`
says which legal placement it was. The camera does not read dominoes yet, so games are played on the page;
the buttons are the generic ones (NEXT points at the next legal action, CONFIRM takes it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from device.tables import Explained, TableAdapter, explained_by
from engine.errors import GameError
from engine.pyramido import explain_placement
from engine.pyramido.dominoes import Colour
from engine.pyramido.game import Place
from engine.pyramido.observe import observed

Cell = tuple[int, int]


@dataclass(frozen=True)
class PyramidView:
    """One player's pyramid as seen after the turn (and before it, if seen; else the recorded one)."""

    seat: int
    after: Mapping[Cell, tuple[Colour, bool]]
    before: Mapping[Cell, tuple[Colour, bool]] | None = None


class PyramidoTable(TableAdapter):
    name = "pyramido"

    def explain(self, state: Any, seen: Any) -> Explained:
        if not isinstance(seen, PyramidView):
            return Explained(problems=("nothing read of the pyramids",))
        if state.holding is None:
            return Explained(problems=("no domino is in hand: take one from the exploration area first",))
        if not 0 <= seen.seat < len(state.explorers):
            return Explained(problems=(f"there is no player {seen.seat + 1} at this table",))
        pyramid = state.explorers[seen.seat].pyramid
        before = seen.before if seen.before is not None else observed(pyramid)
        try:
            placement = explain_placement(pyramid, state.holding, before, seen.after)
        except GameError as exc:
            return Explained(problems=(str(exc),))
        return explained_by(self.game, state, [Place(placement)])

    def is_table_action(self, action: Any) -> bool:
        return isinstance(action, Place)


ADAPTER = PyramidoTable
