"""The stand-in deck: the published composition with invented patterns, made from a fixed seed.

The real motif patterns and leprechaun cards are not published (RULES.md DT10). This module writes
``data/sample-deck.json``, which has the right counts (63 motif cards, 7 background colours x (4 worth 1,
3 worth 2, 2 worth 3); 21 bonus cards including the two examples the rulebook prints) so that the engine,
the simulator and the tests have something to play with. Owners replace it with a file of their own cards.

Run ``python -m engine.dicetreasure.sample`` to rewrite the file; a test checks the file matches this code.
"""

from __future__ import annotations

import json
import random
import sys

from engine.dicetreasure.cards import (
    BACKGROUNDS,
    CARDS_PER_BACKGROUND,
    DEFAULT_DICE_COLOURS,
    SAMPLE_DECK_PATH,
    BonusCard,
    Deck,
    MotifCard,
    Space,
    can_fill,
    deck_to_data,
)

SEED = 20251129
NOTE = (
    "STAND-IN DECK: the real Dice Treasure card list is not published. This file has the published composition "
    "(63 motif cards, 21 leprechaun cards) but invented patterns and bonus cards, except the two bonus cards the "
    "rulebook prints (blue-1, yellow-1). Replace it with a file describing your own cards (docs/dicetreasure.md)."
)

Shape = tuple[tuple[int, int], ...]
SHAPES: dict[int, tuple[Shape, ...]] = {
    3: (
        ((0, 0), (1, 0), (2, 0)),
        ((0, 0), (0, 1), (0, 2)),
        ((0, 0), (1, 0), (0, 1)),
        ((0, 0), (1, 1), (2, 0)),
    ),
    4: (
        ((0, 0), (1, 0), (0, 1), (1, 1)),
        ((0, 0), (1, 0), (2, 0), (1, 1)),
        ((0, 0), (1, 0), (1, 1), (2, 1)),
        ((0, 0), (0, 1), (0, 2), (1, 2)),
    ),
    5: (
        ((1, 0), (0, 1), (1, 1), (2, 1), (1, 2)),
        ((0, 0), (2, 0), (0, 1), (1, 1), (2, 1)),
        ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0)),
        ((0, 0), (0, 1), (1, 1), (1, 2), (2, 2)),
    ),
}
SPACES_FOR_COINS = {1: 3, 2: 4, 3: 5}


def _card(rng: random.Random, card_id: str, background: str, coins: int, shape: Shape) -> MotifCard:
    while True:
        spaces = tuple(
            Space(
                pos,
                rng.choice(DEFAULT_DICE_COLOURS) if rng.random() < 0.35 else None,
                rng.randint(1, 6) if rng.random() < 0.35 else None,
            )
            for pos in shape
        )
        card = MotifCard(card_id, background, coins, spaces)
        if can_fill(card, DEFAULT_DICE_COLOURS):
            return card


def _bonus_cards(rng: random.Random) -> tuple[BonusCard, ...]:
    known = {
        "blue-1": BonusCard("blue-1", ("red", "blue", None), 2),
        "yellow-1": BonusCard("yellow-1", ("yellow", "yellow", "orange", "green"), 4),
    }
    cards = []
    for bg in BACKGROUNDS:
        for k in (1, 2, 3):
            card_id = f"{bg}-{k}"
            if card_id in known:
                cards.append(known[card_id])
                continue
            size = 3 if k < 3 else 4
            others = [rng.choice(BACKGROUNDS) for _ in range(size - 2)]
            requires: tuple[str | None, ...] = (bg, *others, None) if k != 2 else (bg, bg, *others)
            cards.append(BonusCard(card_id, requires, 2 if size == 3 else 4))
    return tuple(cards)


def make_sample_deck() -> Deck:
    """The stand-in deck, the same every time."""
    rng = random.Random(SEED)
    cards = []
    for bg in BACKGROUNDS:
        n = 0
        for coins, count in CARDS_PER_BACKGROUND.items():
            shapes = SHAPES[SPACES_FOR_COINS[coins]]
            for k in range(count):
                n += 1
                cards.append(_card(rng, f"{bg}-{n}", bg, coins, shapes[k % len(shapes)]))
    return Deck("stand-in sample deck", DEFAULT_DICE_COLOURS, tuple(cards), _bonus_cards(rng), stand_in=True)


def sample_text() -> str:
    """The file text: one card per line, so that owners can edit it by hand."""
    data = deck_to_data(make_sample_deck(), NOTE)
    lines = ["{"]
    for key, value in data.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            items = ",\n".join("  " + json.dumps(v, ensure_ascii=False) for v in value)
            lines.append(f" {json.dumps(key)}: [\n{items}\n ],")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},")
    lines[-1] = lines[-1].rstrip(",")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    SAMPLE_DECK_PATH.parent.mkdir(parents=True, exist_ok=True)
    SAMPLE_DECK_PATH.write_text(sample_text(), encoding="utf-8")
    sys.stdout.write(f"wrote {SAMPLE_DECK_PATH}\n")
