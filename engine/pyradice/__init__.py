"""Pyradice (André Silva): build a 21-die pyramid from a shared three-layer quarry of coloured dice.

The rules engine for 2 to 4 players, following ``../shared/rules/RULES.md`` section 1:

- :mod:`.quarry` the quarry geometry and which dice are available; :class:`Quarry`.
- :mod:`.pyramid` the 21-slot pyramid board and where a die may go.
- :mod:`.objectives` the 14 objective tokens; :func:`objective_met`.
- :mod:`.cards` the objective cards as plug-ins; :func:`card_score`.
- :mod:`.skills` the ten skills.
- :mod:`.state` states and actions; :mod:`.game` the game (registered as ``"pyradice"``).
- :mod:`.observe` which legal turn explains what the camera saw.
- :mod:`.perft` move counts from fixed positions; :mod:`.cli` and :mod:`.bench` the commands.
"""

from engine.pyradice.cards import CARDS, ObjectiveCard, card_score, register_card
from engine.pyradice.game import PyradiceGame, level_results, setup
from engine.pyradice.objectives import TOKENS, objective_met
from engine.pyradice.observe import Observation, explain_turn
from engine.pyradice.quarry import Quarry
from engine.pyradice.state import (
    Action,
    Board,
    Card,
    Pass,
    Phase,
    Place,
    PlayerState,
    PyradiceState,
    Reveal,
    Roll,
    RollOff,
    Skill,
    Take,
    UseReserve,
)

__all__ = [
    "CARDS",
    "TOKENS",
    "Action",
    "Board",
    "Card",
    "ObjectiveCard",
    "Observation",
    "Pass",
    "Phase",
    "Place",
    "PlayerState",
    "PyradiceGame",
    "PyradiceState",
    "Quarry",
    "Reveal",
    "Roll",
    "RollOff",
    "Skill",
    "Take",
    "UseReserve",
    "card_score",
    "explain_turn",
    "level_results",
    "objective_met",
    "register_card",
    "setup",
]
