"""Paša-řada-pyramida: six dice, nine categories, up to three rolls a turn (RULES.md section 4).

The package has the shape of every game package: :mod:`engine.pasa.state` the state and actions,
:mod:`engine.pasa.game` the game under the engine contract (registered as ``"pasa"``), :mod:`engine.pasa.observe`
which action explains the dice seen, :mod:`engine.pasa.words` the actions in words and :mod:`engine.pasa.advice`
the exact optimal advisor. Its own parts: :mod:`engine.pasa.scoring` (the points of six dice in a category and
the valid sheet entries), :mod:`engine.pasa.cli` (the ``companion pasa`` extras) and :mod:`engine.pasa.bench`.
``engine.pasa.rules`` and ``engine.pasa.advisor`` are the old module names, kept as aliases.
"""

from engine.pasa.game import (
    ACTION_FORMS,
    MAX_ROLLS,
    RULE_OPTION,
    Choose,
    Enter,
    PasaAction,
    PasaGame,
    PasaState,
    Phase,
    Reroll,
    Roll,
    Stop,
    parse_action,
    sub_multisets,
)
from engine.pasa.scoring import (
    CATEGORIES,
    DEFAULT_RULE,
    RULES,
    TITLES,
    check_category,
    check_dice,
    check_entry,
    check_rule,
    max_total,
    score,
    valid_scores,
)

__all__ = [
    "ACTION_FORMS",
    "CATEGORIES",
    "DEFAULT_RULE",
    "MAX_ROLLS",
    "RULES",
    "RULE_OPTION",
    "TITLES",
    "Choose",
    "Enter",
    "PasaAction",
    "PasaGame",
    "PasaState",
    "Phase",
    "Reroll",
    "Roll",
    "Stop",
    "check_category",
    "check_dice",
    "check_entry",
    "check_rule",
    "max_total",
    "parse_action",
    "score",
    "sub_multisets",
    "valid_scores",
]
