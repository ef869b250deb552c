"""Pyradice at the table: each player's pyramid board, the quarry and the reserve die.

The observation is :class:`engine.pyradice.Observation` (the mover's pyramid, and the quarry and reserve
where they were seen); :func:`engine.pyradice.explain_turn` says which legal take, placement and skill
produce it. The camera does not read Pyradice boards yet, so games are played on the page; the buttons are
the generic ones (NEXT points at the next legal action, CONFIRM takes it).
"""

from __future__ import annotations

from typing import Any

from device.tables import Explained, TableAdapter, explained_by
from engine.errors import GameError
from engine.pyradice import Observation, explain_turn
from engine.pyradice.state import Place, Skill, Take, UseReserve


class PyradiceTable(TableAdapter):
    name = "pyradice"

    def explain(self, state: Any, seen: Any) -> Explained:
        if not isinstance(seen, Observation):
            return Explained(problems=("nothing read of the pyramid boards",))
        try:
            actions = explain_turn(state, seen, partial=True)
        except GameError as exc:
            return Explained(problems=(str(exc),))
        return explained_by(self.game, state, actions)

    def is_table_action(self, action: Any) -> bool:
        return isinstance(action, (Take, UseReserve, Place, Skill))


ADAPTER = PyradiceTable
