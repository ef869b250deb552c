"""Dice Treasure in words a player reads: every action's label and group, and what chance awaits.

Groups (a small fixed vocabulary, :data:`GROUPS`, for the page to lay buttons out by):

- ``place``: put a die on a space of a motif card ("Put the blue 4 on card red-3, space 2"; a die from the
  personal reserve says so, and in the steal phase the cards lie in the middle);
- ``exchange``: swap a die 1:1 with the common reserve ("Swap your blue 4 for the red 2 from the common
  reserve");
- ``bonus``: claim a leprechaun bonus card ("Claim leprechaun card blue-1: +2 gold");
- ``reserve``: solo, before the last turns: move a common-reserve die to the personal reserve;
- ``end``: end the turn keeping up to 2 dice as the personal reserve ("End the turn keeping blue 4;
  2 dice to the common reserve"), or, solo, finish filling the new cards;
- ``chance``: leprechaun cards laid out, motif cards dealt, dice drawn from the bag and rolled, entered by
  the table or the camera.

Dice are named by colour and face (``blue 4``), cards by their id in the deck file and spaces by number
(1-based, the deck file's order). Labels of the actions legal in one state are distinct: each names the
die, its source, the card and space, or the dice kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.dice import Die
from engine.dicetreasure.cards import MotifCard
from engine.dicetreasure.game import SOLO_NEW_CARDS, DiceTreasure, deal_count, dealt_player
from engine.dicetreasure.placement import target_cards
from engine.dicetreasure.state import (
    Action,
    ClaimBonus,
    Deal,
    DiceTreasureState,
    EndTurn,
    Exchange,
    FinishSetup,
    Phase,
    Place,
    Reserve,
    RevealBonus,
    Roll,
    Source,
)
from engine.game import ChancePrompt

GROUPS: tuple[str, ...] = DiceTreasure.action_groups  # named once, on the game


def die_words(die: Die) -> str:
    """``blue 4``."""
    return f"{die.colour} {die.value}" if die.colour else str(die.value)


def dice_words(dice: Sequence[Die]) -> str:
    """``blue 4, red 2 and green 6``."""
    names = [die_words(d) for d in dice]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _place(state: DiceTreasureState, action: Place) -> str:
    die = die_words(action.die)
    what = {
        Source.HAND: f"the {die}",
        Source.RESERVE: f"your reserve {die}",
        Source.COMMON: f"the {die} from the common reserve",
    }[action.source]
    middle = " in the middle" if state.steal and not state.solo else ""
    text = f"Put {what} on card {action.card}{middle}, space {action.space}"
    cip = next((c for c in target_cards(state) if c.card.id == action.card), None)
    fills = cip is not None and 1 <= action.space <= len(cip.dice) and cip.dice[action.space - 1] is None
    if cip is not None and fills and sum(d is None for d in cip.dice) == 1:
        coins = _count(cip.card.coins, "gold coin", "gold coins")
        text += f" (fills it: {coins}{', claimed now' if state.steal else ''})"
    return text


def _end(state: DiceTreasureState, action: EndTurn) -> str:
    p = state.players[state.active]
    loose = len(state.hand) + len(p.reserve)
    to_common = loose - len(action.keep)
    kept = f" keeping {dice_words(action.keep)}" if action.keep else " keeping nothing" if loose else ""
    common = f"; {_count(to_common, 'die', 'dice')} to the common reserve" if to_common > 0 else ""
    return f"End the turn{kept}{common}"


def label(state: DiceTreasureState, action: Action) -> tuple[str, str]:
    """(label, group) of ``action`` in ``state``."""
    if isinstance(action, Place):
        return _place(state, action), "place"
    if isinstance(action, Exchange):
        mine = "your reserve " if action.source is Source.RESERVE else "your "
        give, take = die_words(action.give), die_words(action.take)
        return f"Swap {mine}{give} for the {take} from the common reserve", "exchange"
    if isinstance(action, ClaimBonus):
        card = next((b for b in state.bonus_offer if b.id == action.bonus), None)
        reward = f": +{card.reward} gold" if card is not None else ""
        return f"Claim leprechaun card {action.bonus}{reward}", "bonus"
    if isinstance(action, Reserve):
        return f"Move the {die_words(action.reserve)} from the common reserve to your reserve", "reserve"
    if isinstance(action, EndTurn):
        return _end(state, action), "end"
    if isinstance(action, FinishSetup):
        return "Done filling the new cards: play the last turns", "end"
    if isinstance(action, RevealBonus):
        return f"Leprechaun cards laid out: {', '.join(action.bonus)}", "chance"
    if isinstance(action, Deal):
        return f"Dealt to {action.player}: {', '.join(action.cards)}", "chance"
    if isinstance(action, Roll):
        return f"Rolled {dice_words(action.dice)}", "chance"
    raise TypeError(f"{action!r} is not a Dice Treasure action")


def _example_roll(state: DiceTreasureState) -> tuple[Die, ...]:
    """Dice the bag can give for the pending roll: colours in the deck's order, faces 1, 2, 3, ..."""
    bag = list(state.bag)
    dice = []
    for n in range(state.dice_to_roll()):
        k = next((i for i, left in enumerate(bag) if left), None)
        if k is None:
            break
        bag[k] -= 1
        dice.append(Die(n % 6 + 1, state.dice_colours[k]))
    return tuple(dice)


def chance_prompt(state: DiceTreasureState) -> ChancePrompt | None:
    """What the table enters now: leprechaun cards laid out, motif cards dealt, or the dice rolled."""
    if state.phase is Phase.BONUS:
        n = 2 * len(state.players)
        ids = [b.id for b in state.bonus_box[:n]]
        what = f"Lay out {n} leprechaun bonus cards face up and enter their ids"
        return ChancePrompt(what, "reveal " + " ".join(ids))
    if state.phase in (Phase.DEAL, Phase.SOLO_DEAL):
        name = state.players[dealt_player(state)].name
        count = deal_count(state)
        ids = [c.id for c in state.draw_pile[:count]]
        ids += [c.id for c in state.discards[: count - len(ids)]]
        short = " (the draw pile runs out: deal its last cards, then shuffle the discards)" if (
            len(state.draw_pile) < count
        ) else ""
        if state.phase is Phase.SOLO_DEAL:
            what = (
                f"Before the second-to-last turn: deal {SOLO_NEW_CARDS} new motif cards face up to {name} and "
                f"enter their ids{short}"
            )
        else:
            what = f"Deal {_count(count, 'motif card', 'motif cards')} face up to {name} and enter their ids{short}"
        return ChancePrompt(what, f"deal {name}: {' '.join(ids)}")
    if state.phase is Phase.ROLL:
        name = state.players[state.active].name
        k = state.dice_to_roll()
        steal = " (steal phase)" if state.steal and not state.solo else ""
        what = f"{name} draws {_count(k, 'die', 'dice')} from the bag and rolls them{steal}; "
        what += "enter each die's colour and face"
        return ChancePrompt(what, "roll " + " ".join(str(d) for d in _example_roll(state)))
    return None



# --- the table as text ----------------------------------------------------------------------------


def _card_text(dice: Sequence[Die | None], card: MotifCard) -> str:
    spaces = " ".join(f"{i}={s.colour or '*'}/{'*' if s.value is None else s.value}"
                      f"[{'' if d is None else d}]" for i, (s, d) in enumerate(zip(card.spaces, dice, strict=True), 1))
    return f"{card.id} ({card.background}, {card.coins} coin{'s' if card.coins != 1 else ''}): {spaces}"


def board_text(state: DiceTreasureState) -> str:
    """The round, the bag, the dice in hand and in the common reserve, the leprechaun cards laid out, and each
    player's motif cards (every space as ``N=COLOUR/VALUE[die on it]``, ``*`` = any), reserve, chips and gold."""
    bag = " ".join(f"{c} {n}" for c, n in zip(state.dice_colours, state.bag, strict=True)) or "empty"
    lines = [f"round {state.round}, turn-cycle {state.cycle} of {state.turns}"
             f"{', steal phase' if state.steal else ''}{', last round' if state.last_round else ''}; "
             f"gold to reach {state.goal}; bag: {bag}"]
    lines.append(f"in hand: {' '.join(map(str, state.hand)) or '-'}; "
                 f"common reserve: {' '.join(map(str, state.common)) or '-'}")
    if state.bonus_offer:
        lines.append("leprechaun cards: " + ", ".join(map(str, state.bonus_offer)))
    if state.middle:
        lines.append("in the middle (steal phase):")
        lines.extend(f"  {_card_text(c.dice, c.card)}" for c in state.middle)
    for seat, player in enumerate(state.players):
        mark = "  (to move)" if seat == state.active and state.phase in (Phase.TURN, Phase.SOLO_FILL) else ""
        lines.append(f"{player.name}: {player.gold} gold, {len(player.claimed)} cards claimed, "
                     f"chips {' '.join(player.chips) or '-'}, reserve {' '.join(map(str, player.reserve)) or '-'}"
                     f"{', bonus ' + str(player.bonus) if player.bonus else ''}{mark}")
        lines.extend(f"  {_card_text(c.dice, c.card)}" for c in player.cards)
    return "\n".join(lines)


__all__ = ["GROUPS", "board_text", "chance_prompt", "dice_words", "die_words", "label"]
