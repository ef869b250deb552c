"""Dice Treasure (RULES.md section 3): motif cards, placement, reserves, the steal phase, gold, colour chips, solo.

The package has the shape of every game package: the state and actions (:mod:`.state`), the game
(:mod:`.game`: the registered game ``"dicetreasure"``), reading the table from what the camera saw
(:mod:`.observe`: :func:`explain_table`) and the actions in words (:mod:`.words`). Its own parts: the card data
(:mod:`.cards`: the deck file format, :func:`load_deck`, :func:`validate_deck`, the stand-in sample deck),
placement legality (:mod:`.placement`: :func:`legal_spaces`), seeded games (:mod:`.simulate`), the
``companion dicetreasure`` extras (:mod:`.cli`) and the benchmark (:mod:`.bench`). :mod:`.rules` is the game's
old module name, kept as an alias.
"""

from engine.dicetreasure.cards import (
    BonusCard,
    Deck,
    DeckError,
    MotifCard,
    Space,
    load_deck,
    sample_deck,
    validate_deck,
)
from engine.dicetreasure.game import GAME, DiceTreasure, bonus_offers, max_fill, new_game
from engine.dicetreasure.observe import Explanation, TableSeen, explain_one, explain_placements, explain_table
from engine.dicetreasure.placement import legal_spaces, target_cards
from engine.dicetreasure.state import (
    Action,
    CardInPlay,
    ClaimBonus,
    Deal,
    DiceTreasureState,
    EndTurn,
    Exchange,
    FinishSetup,
    Phase,
    Place,
    PlayerState,
    Reserve,
    RevealBonus,
    Roll,
    Source,
)

__all__ = [
    "GAME",
    "Action",
    "BonusCard",
    "CardInPlay",
    "ClaimBonus",
    "Deal",
    "Deck",
    "DeckError",
    "DiceTreasure",
    "DiceTreasureState",
    "EndTurn",
    "Exchange",
    "Explanation",
    "FinishSetup",
    "MotifCard",
    "Phase",
    "Place",
    "PlayerState",
    "Reserve",
    "RevealBonus",
    "Roll",
    "Source",
    "Space",
    "TableSeen",
    "bonus_offers",
    "explain_one",
    "explain_placements",
    "explain_table",
    "legal_spaces",
    "load_deck",
    "max_fill",
    "new_game",
    "sample_deck",
    "target_cards",
    "validate_deck",
]
