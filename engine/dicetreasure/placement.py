"""Placement legality (RULES.md 3.3): which spaces a die may go on, and why not when it may not.

A die D may go on space S of card X when S is empty, S's colour requirement is any (white) or D's colour, S's
value requirement is any (no pips) or D's value, and no die on a space orthogonally next to S on the same card
has D's colour or D's value (DT1). These functions are the hot path of the device ("where can this die go?"),
so they work on plain tuples and avoid building objects.
"""

from __future__ import annotations

from engine.dice import Die
from engine.dicetreasure.state import CardInPlay, DiceTreasureState, Phase


def why_not(cip: CardInPlay, index: int, die: Die) -> str | None:
    """Why ``die`` may not go on space ``index`` (0-based) of ``cip``; ``None`` when it may."""
    card = cip.card
    space = card.spaces[index]
    if cip.dice[index] is not None:
        return f"space {index + 1} {space} already holds {cip.dice[index]}"
    if space.colour is not None and space.colour != die.colour:
        return f"space {index + 1} {space} needs a {space.colour} die"
    if space.value is not None and space.value != die.value:
        return f"space {index + 1} {space} needs a {space.value}"
    for j in card.adjacent[index]:
        other = cip.dice[j]
        if other is None:
            continue
        if other.colour == die.colour:
            return f"space {index + 1} {space} is next to {other} in space {j + 1} (same colour)"
        if other.value == die.value:
            return f"space {index + 1} {space} is next to {other} in space {j + 1} (same value)"
    return None


def fits(cip: CardInPlay, index: int, colour: str | None, value: int) -> bool:
    """Fast form of ``why_not(...) is None``."""
    dice = cip.dice
    if dice[index] is not None:
        return False
    space = cip.card.spaces[index]
    if (space.colour is not None and space.colour != colour) or (space.value is not None and space.value != value):
        return False
    for j in cip.card.adjacent[index]:
        other = dice[j]
        if other is not None and (other.colour == colour or other.value == value):
            return False
    return True


def target_cards(state: DiceTreasureState) -> tuple[CardInPlay, ...]:
    """The cards the active player may place on now: their own, or the middle during the steal phase."""
    if state.phase not in (Phase.TURN, Phase.SOLO_FILL):
        return ()
    if state.steal and not state.solo:
        return state.middle
    return state.players[state.active].cards


def legal_spaces(state: DiceTreasureState, die: Die) -> list[tuple[str, int]]:
    """Every ``(card id, space number)`` (1-based) where the active player may put ``die`` now.

    Whether the player holds such a die is not checked: the device asks this for each die it sees in hand."""
    return [(cip.card.id, i + 1) for cip, i in fitting(target_cards(state), die.colour, die.value)]


def fitting(cards: tuple[CardInPlay, ...], colour: str | None, value: int) -> list[tuple[CardInPlay, int]]:
    """``(card, 0-based space)`` for every space of ``cards`` a die of this colour and value may go on.

    The same test as :func:`fits`, written out inline: this loop is the device's hot path."""
    out = []
    for cip in cards:
        dice = cip.dice
        card = cip.card
        for i, space in enumerate(card.spaces):
            if dice[i] is not None:
                continue
            if (space.colour is not None and space.colour != colour) or (
                space.value is not None and space.value != value
            ):
                continue
            for j in card.adjacent[i]:
                other = dice[j]
                if other is not None and (other.colour == colour or other.value == value):
                    break
            else:
                out.append((cip, i))
    return out


def card_defects(cip: CardInPlay, where: str) -> list[str]:
    """What is wrong with the dice on a card read from JSON or the camera (requirements, neighbours)."""
    problems = []
    card = cip.card
    if len(cip.dice) != len(card.spaces):
        return [f"{where} card {card.id}: {len(cip.dice)} dice entries for {len(card.spaces)} spaces"]
    for i, die in enumerate(cip.dice):
        if die is None:
            continue
        space = card.spaces[i]
        if not space.accepts(die):
            problems.append(f"{where} card {card.id} space {i + 1} {space}: {die} does not meet the requirement")
        for j in card.adjacent[i]:
            other = cip.dice[j]
            if j > i and other is not None and (other.colour == die.colour or other.value == die.value):
                same = "colour" if other.colour == die.colour else "value"
                problems.append(
                    f"{where} card {card.id} space {i + 1} {space}: {die} is next to {other} in space {j + 1} "
                    f"(same {same})"
                )
    return problems
