"""Paša-řada-pyramida: six dice, nine categories, up to three rolls a turn (RULES.md section 4).

:mod:`engine.pasa.rules` scores dice and computes the valid sheet entries, :mod:`engine.pasa.game` is the
game under the engine contract (registered as ``"pasa"``), :mod:`engine.pasa.advisor` the exact optimal
advisor, :mod:`engine.pasa.cli` the ``companion pasa`` commands and :mod:`engine.pasa.bench` the benchmark.
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
    Reroll,
    Roll,
    Stop,
    parse_action,
    sub_multisets,
)
from engine.pasa.rules import (
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
