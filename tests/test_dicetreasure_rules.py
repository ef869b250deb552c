"""Dice Treasure rules on hand-made situations (RULES.md section 3), one test per rule where possible."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

import pytest

from engine import IllegalActionError, InvalidActionError, InvalidStateError, find_game
from engine.dice import Die
from engine.dicetreasure import (
    GAME,
    CardInPlay,
    Deck,
    DiceTreasureState,
    EndTurn,
    Exchange,
    FinishSetup,
    MotifCard,
    Phase,
    Place,
    Source,
    Space,
    legal_spaces,
    new_game,
)
from engine.dicetreasure.cards import BonusCard
from engine.dicetreasure.state import Roll, parse_action

COLOURS = ("red", "yellow", "green", "blue", "purple")
ROW = ((0, 0), (1, 0), (2, 0))
SQUARE = ((0, 0), (1, 0), (0, 1), (1, 1))


def card(card_id: str, background: str = "purple", coins: int = 1, spaces: Sequence[Space] | None = None) -> MotifCard:
    if spaces is None:
        shape = {1: ROW, 2: SQUARE, 3: ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0))}[coins]
        spaces = [Space(p) for p in shape]
    return MotifCard(card_id, background, coins, tuple(spaces))


FILLER = tuple(card(f"f{i}") for i in range(1, 41))
BONUS = (
    BonusCard("blue", ("red", "blue", None), 2),
    BonusCard("yellow", ("yellow", "yellow", "orange", "green"), 4),
    *(BonusCard(f"b{i}", ("indigo", "indigo", "indigo", "indigo"), 5) for i in range(1, 7)),
)


def d(text: str) -> Die:
    return Die.parse(text)


def act(state: DiceTreasureState, text: str) -> DiceTreasureState:
    action = parse_action(text)
    assert parse_action(str(action)) == action
    return GAME.apply(state, action)


def table(hands: Sequence[Sequence[MotifCard]], big_bag: bool = True, **options: str) -> DiceTreasureState:
    """A game whose players were dealt ``hands`` (leprechauns off unless asked for).

    With ``big_bag`` the bag holds 30 dice of each colour instead of 9: hand-made situations put chosen dice on
    cards and roll chosen dice, and a real bag would run dry; no rule depends on the bag's size."""
    options.setdefault("leprechauns", "off")
    names = ["Ann", "Bob", "Cid", "Dee"][: len(hands)]
    own = [c for h in hands for c in h]
    deck = Deck("test", COLOURS, (*own, *FILLER), BONUS)
    state = new_game(names, deck, options)
    if big_bag:
        state = dataclasses.replace(state, dice_per_colour=30, bag=(30,) * 5)
    if state.phase is Phase.BONUS:
        state = act(state, "reveal " + " ".join(b.id for b in BONUS[: 2 * len(hands)]))
    for name, hand in zip(names, hands, strict=True):
        state = act(state, f"deal {name}: " + " ".join(c.id for c in hand))
    assert state.phase is Phase.ROLL
    return state


def bag_out(state: DiceTreasureState, dice: Sequence[Die]) -> tuple[int, ...]:
    bag = list(state.bag)
    for die in dice:
        bag[COLOURS.index(die.colour or "")] -= 1
    return tuple(bag)


def fill(state: DiceTreasureState, seat: int, card_id: str, dice: Sequence[Die | None]) -> DiceTreasureState:
    """Hand-made: put ``dice`` on a player's card, taking them out of the bag so the dice stay conserved."""
    p = state.players[seat]
    cards = tuple(CardInPlay(c.card, tuple(dice)) if c.card.id == card_id else c for c in p.cards)
    players = list(state.players)
    players[seat] = dataclasses.replace(p, cards=cards)
    placed = [x for x in dice if x is not None]
    return dataclasses.replace(state, players=tuple(players), bag=bag_out(state, placed))


def at(state: DiceTreasureState, cycle: int, turn: int = 0) -> DiceTreasureState:
    return dataclasses.replace(state, cycle=cycle, turn=turn)


def roll(state: DiceTreasureState, *dice: str) -> DiceTreasureState:
    return act(state, "roll " + " ".join(dice))


def roll_any(state: DiceTreasureState, seed: int = 0) -> DiceTreasureState:
    return GAME.apply(state, GAME.random_chance(state, random.Random(seed)))


def pass_turns(state: DiceTreasureState, turns: int) -> DiceTreasureState:
    for k in range(turns):
        state = act(roll_any(state, k), "end")
    return state


def ok(state: DiceTreasureState) -> DiceTreasureState:
    assert GAME.defects(state) == []
    return state


# --- setup -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "goal", "dealt", "turns", "dice"),
    [(1, 18, 3, 6, 25), (2, 24, 4, 6, 45), (3, 18, 3, 5, 45), (4, 12, 2, 4, 45)],
)
def test_setup_table(players: int, goal: int, dealt: int, turns: int, dice: int) -> None:
    state = GAME.initial_state([f"P{i}" for i in range(players)])
    assert (state.goal, state.cards_per_round, state.turns, sum(state.bag)) == (goal, dealt, turns, dice)
    assert state.phase is Phase.BONUS and GAME.status(state).awaiting == "chance"
    state = roll_any(state)
    assert len(state.bonus_offer) == 2 * players and len(state.bonus_box) == 21 - 2 * players
    for _ in range(players):
        state = roll_any(state)
    assert all(len(p.cards) == dealt for p in state.players)
    assert len(state.draw_pile) == 63 - players * dealt
    assert ok(state).phase is Phase.ROLL
    assert find_game("dice-treasure") is not None and find_game("dicetreasure").name == "dicetreasure"


def test_player_count_and_options_are_checked() -> None:
    with pytest.raises(InvalidActionError, match="1 to 4 players"):
        new_game(["a", "b", "c", "d", "e"])
    with pytest.raises(InvalidActionError, match="chip_tie"):
        new_game(["a"], options={"chip_tie": "coin-toss"})
    no_bonus = Deck("base", COLOURS, FILLER)
    with pytest.raises(InvalidActionError, match="leprechauns=off"):
        new_game(["a", "b"], no_bonus)
    assert new_game(["a", "b"], no_bonus, {"leprechauns": "off"}).phase is Phase.DEAL


def test_dice_per_turn_count_down_and_the_last_roller_starts_the_next_round() -> None:
    state = table([[card("a1"), card("a2"), card("a3"), card("a4")], [card("b1"), card("b2"), card("b3"), card("b4")]])
    rolled = []
    for k in range(12):
        who = GAME.status(state).to_move
        state = roll_any(state, k)
        rolled.append((who, len(state.hand)))
        state = act(state, "end")
    assert rolled == [(n, c) for c in (6, 5, 4, 3, 2, 1) for n in ("Ann", "Bob")]
    assert state.round == 2 and state.start == 1 and state.phase is Phase.DEAL
    assert GAME.status(state).to_move == "Bob"  # Bob rolled the last single die: he starts and is dealt first
    assert sum(state.bag) == 150 and all(not p.cards and not p.reserve for p in state.players) and not state.common
    assert len(state.discards) == 8  # incomplete cards of the round are discarded


def test_roll_and_deal_are_checked() -> None:
    state = table([[card("a1"), card("a2"), card("a3"), card("a4")], [card("b1"), card("b2"), card("b3"), card("b4")]])
    with pytest.raises(IllegalActionError, match="Ann draws 6 dice now"):
        roll(state, "red:1")
    with pytest.raises(InvalidActionError, match="'pink' is not a dice colour"):
        roll(state, "pink:1", "red:2", "red:3", "red:4", "red:5", "red:6")
    state = dataclasses.replace(state, bag=(0, 30, 30, 30, 30))  # hand-made: the reds are elsewhere
    with pytest.raises(IllegalActionError, match="only 0 red dice"):
        roll(state, "red:1", "blue:2", "blue:3", "blue:4", "blue:5", "blue:6")
    fresh = new_game(["Ann", "Bob"], Deck("t", COLOURS, FILLER), {"leprechauns": "off"})
    with pytest.raises(IllegalActionError, match="go to Ann now, not Bob"):
        act(fresh, "deal Bob: f1 f2 f3 f4")
    with pytest.raises(IllegalActionError, match="'zz' is not in the draw pile"):
        act(fresh, "deal Ann: f1 f2 f3 zz")
    with pytest.raises(IllegalActionError, match="deal 4 different"):
        act(fresh, "deal Ann: f1 f1 f2 f3")


# --- placement -------------------------------------------------------------------------------------

REQ = card(
    "req",
    "blue",
    2,
    [Space((0, 0), "red"), Space((1, 0), None, 6), Space((0, 1)), Space((2, 1), "green", 2)],
)


def placement_table() -> DiceTreasureState:
    state = table([[REQ, card("a2"), card("a3"), card("a4")], [card("b1"), card("b2"), card("b3"), card("b4")]])
    return roll(state, "red:6", "red:3", "blue:6", "green:2", "yellow:3", "blue:1")


def test_colour_and_value_requirements() -> None:
    state = placement_table()
    with pytest.raises(IllegalActionError, match=r"card req space 1 \(0,0\) red/any needs a red die"):
        act(state, "place blue:6 req#1")
    with pytest.raises(IllegalActionError, match=r"card req space 2 \(1,0\) any/6 needs a 6"):
        act(state, "place red:3 req#2")
    with pytest.raises(IllegalActionError, match="needs a green die"):
        act(state, "place yellow:3 req#4")
    state = act(state, "place red:3 req#1")
    state = act(state, "place green:2 req#4")  # (2,1) is diagonal to nothing placed
    assert ok(state).players[0].cards[0].dice == (d("red:3"), None, None, d("green:2"))
    with pytest.raises(IllegalActionError, match="already holds red:3"):
        act(state, "place red:6 req#1")


def test_no_orthogonal_neighbour_of_the_same_colour_or_value() -> None:
    state = act(placement_table(), "place red:3 req#1")
    with pytest.raises(IllegalActionError, match=r"next to red:3 in space 1 \(same colour\)"):
        act(state, "place red:6 req#2")
    with pytest.raises(IllegalActionError, match=r"next to red:3 in space 1 \(same value\)"):
        act(state, "place yellow:3 req#3")
    state = act(state, "place blue:6 req#2")  # different colour and value: fine
    # (0,1) touches (0,0) but only touches (1,0) diagonally; (2,1) is no neighbour of (1,0) either.
    state = act(state, "place blue:1 req#3")
    # The same colour and value on another card is no constraint.
    state = act(state, "place red:6 a2#1")
    assert ok(state).players[0].cards[1].dice == (d("red:6"), None, None)


def test_legal_spaces_lists_every_space_for_each_die() -> None:
    state = act(placement_table(), "place red:3 req#1")
    others = [(c, s) for c in ("a2", "a3", "a4") for s in (1, 2, 3)]
    # req: 1 (0,0) red/any holds red:3; 2 (1,0) any/6 and 3 (0,1) any/any touch it; 4 (2,1) green/2 touches none.
    assert legal_spaces(state, d("blue:6")) == [("req", 2), ("req", 3), *others]
    assert legal_spaces(state, d("green:2")) == [("req", 3), ("req", 4), *others]
    assert legal_spaces(state, d("red:6")) == others  # same colour as red:3 next to spaces 2 and 3
    assert legal_spaces(state, d("yellow:3")) == others  # same value as red:3
    # Placing is only offered for the dice the player has, from where they are.
    places = [a for a in GAME.legal_actions(state) if isinstance(a, Place)]
    assert {a.die for a in places} == {d(x) for x in ("red:6", "blue:6", "green:2", "yellow:3", "blue:1")}
    assert all(a.source is Source.HAND for a in places)


def test_legal_spaces_is_empty_when_no_decision_is_awaited() -> None:
    state = table([[card("a1"), card("a2"), card("a3"), card("a4")], [card("b1"), card("b2"), card("b3"), card("b4")]])
    assert legal_spaces(state, d("red:1")) == []


def test_placement_errors_name_card_and_space() -> None:
    state = placement_table()
    with pytest.raises(IllegalActionError, match=r"no card 'b1' in front of the player; legal: req, a2, a3, a4"):
        act(state, "place red:3 b1#1")
    with pytest.raises(IllegalActionError, match=r"card req has spaces 1\.\.4"):
        act(state, "place red:3 req#9")
    with pytest.raises(IllegalActionError, match=r"no purple:4 in the current dice \(red:6 red:3"):
        act(state, "place purple:4 a2#1")
    with pytest.raises(IllegalActionError, match=r"no red:3 in the personal reserve \(empty\)"):
        act(state, "place reserve red:3 a2#1")
    with pytest.raises(InvalidActionError, match="expected 'place"):
        act(state, "place red:3 a2")


# --- reserves --------------------------------------------------------------------------------------


def test_personal_reserve_keeps_up_to_two_and_the_rest_go_to_the_common_reserve() -> None:
    state = placement_table()
    with pytest.raises(IllegalActionError, match="at most 2 dice"):
        act(state, "end keep red:6 red:3 blue:6")
    with pytest.raises(IllegalActionError, match="no purple:1 among"):
        act(state, "end keep purple:1")
    state = act(state, "place red:3 req#1")
    state = ok(act(state, "end keep red:6 blue:1"))
    ann = state.players[0]
    assert ann.reserve == (d("red:6"), d("blue:1"))
    assert sorted(map(str, state.common)) == ["blue:6", "green:2", "yellow:3"]
    # Bob's turn; then Ann again with 5 dice and her 2 reserve dice, which count toward the limit.
    state = act(roll(state, "purple:1", "purple:2", "purple:3", "purple:4", "purple:5", "purple:6"), "end")
    state = roll(state, "yellow:1", "yellow:2", "yellow:4", "yellow:5", "yellow:6")
    assert ("req", 2) not in legal_spaces(state, d("red:6"))
    state = act(state, "place reserve blue:1 req#3")
    assert state.players[0].reserve == (d("red:6"),)
    end_options = [a for a in GAME.legal_actions(state) if isinstance(a, EndTurn)]
    assert max(len(a.keep) for a in end_options) == 2
    assert EndTurn((d("red:6"), d("yellow:6"))) in end_options
    # Keeping two new dice sends the old reserve die to the common reserve (an exchange of reserve dice).
    state = ok(act(state, "end keep yellow:1 yellow:2"))
    assert state.players[0].reserve == (d("yellow:1"), d("yellow:2")) and d("red:6") in state.common


def test_exchange_with_the_common_reserve_is_one_for_one() -> None:
    state = act(placement_table(), "end keep red:6")
    state = roll(state, "purple:1", "purple:2", "purple:3", "purple:4", "purple:5", "purple:6")
    exchange = Exchange(d("purple:1"), d("green:2"))
    assert exchange in GAME.legal_actions(state)
    after = ok(GAME.apply(state, exchange))
    assert d("green:2") in after.hand and d("purple:1") not in after.hand and d("purple:1") in after.common
    assert len(after.hand) == 6 and len(after.common) == len(state.common)
    # Ann's die in the common reserve may be taken by anyone (DT3), and a die just given may be taken back.
    back = ok(act(after, "exchange purple:3 for purple:1"))
    assert sorted(map(str, back.hand)).count("purple:1") == 1
    with pytest.raises(IllegalActionError, match="identical one changes nothing"):
        act(after, "exchange purple:2 for purple:2")
    with pytest.raises(IllegalActionError, match=r"no red:6 in the common reserve"):
        act(after, "exchange purple:2 for red:6")
    with pytest.raises(IllegalActionError, match="no yellow:1 in the current dice"):
        act(after, "exchange yellow:1 for blue:6")


def test_exchange_paid_with_a_reserve_die_keeps_the_new_die_in_the_reserve() -> None:
    state = act(placement_table(), "end keep red:6")
    state = act(roll(state, "purple:1", "purple:2", "purple:3", "purple:4", "purple:5", "purple:6"), "end")
    state = roll(state, "yellow:1", "yellow:2", "yellow:4", "yellow:5", "yellow:6")
    state = ok(act(state, "exchange reserve red:6 for green:2"))
    assert state.players[0].reserve == (d("green:2"),) and d("red:6") in state.common


# --- steal phase, chips, leprechauns -------------------------------------------------------------

RED2 = card("red2", "red", 2)
RED1 = card("red1", "red", 1)
BLUE1 = card("blue1", "blue", 1)
SQUARE_DICE = [d("red:1"), d("blue:2"), d("blue:3"), d("red:4")]
ROW_DICE = [d("red:1"), d("blue:2"), d("red:3")]


def before_steal(state: DiceTreasureState) -> DiceTreasureState:
    """Play to just before the 2-dice cycle (T - 1), with nothing placed."""
    return pass_turns(state, (state.turns - 2) * len(state.players))


def test_steal_phase_claims_filled_cards_then_moves_incomplete_ones_to_the_middle() -> None:
    state = table([[RED2, RED1, card("a3"), card("a4")], [card("b1"), BLUE1, card("b3"), card("b4")]])
    state = fill(state, 0, "red2", SQUARE_DICE)
    state = fill(state, 0, "red1", [d("red:1"), d("blue:2"), None])
    state = ok(fill(state, 1, "blue1", ROW_DICE))
    assert GAME.status(state).phase == "roll"
    state = ok(before_steal(state))
    ann, bob = state.players
    assert [c.id for c in ann.claimed] == ["red2"] and ann.gold == 2 and not ann.chips
    assert [c.id for c in bob.claimed] == ["blue1"] and bob.gold == 1
    assert [c.card.id for c in state.middle] == ["red1", "a3", "a4", "b1", "b3", "b4"]
    assert not ann.cards and not bob.cards and state.steal
    assert GAME.status(state).phase == "steal-roll" and len(state.on_claimed) == 7
    # In the steal phase anyone places on any card in the middle; completing one claims it at once, for the
    # player who placed its last die (DT5), whose chip check follows at once.
    state = roll(state, "green:3", "green:5")
    assert legal_spaces(state, d("green:3")) == [("red1", 3)] + [
        (c, s) for c in ("a3", "a4", "b1", "b3", "b4") for s in (1, 2, 3)
    ]
    state = ok(act(state, "place green:3 red1#3"))
    ann = state.players[0]
    assert [c.id for c in ann.claimed] == ["red2", "red1"] and ann.chips == ("red",) and ann.gold == 5
    assert "red1" not in [c.card.id for c in state.middle]
    # Bob takes a card Ann has begun: dice have no owner.
    state = act(state, "place green:5 b1#1")
    state = act(act(state, "end"), "roll purple:3 purple:4")
    state = act(state, "place purple:3 b1#2")
    state = ok(act(state, "place purple:4 a3#1"))
    state = act(act(state, "end"), "roll yellow:2")
    state = ok(act(state, "place yellow:2 b1#3"))
    assert [c.id for c in state.players[0].claimed][-1] == "b1" and state.players[0].gold == 6


def test_cards_filled_before_the_steal_phase_are_not_claimed_early() -> None:
    state = table([[RED2, RED1, card("a3"), card("a4")], [card("b1"), card("b2"), card("b3"), card("b4")]])
    state = roll(state, "red:1", "blue:2", "blue:3", "red:4", "yellow:5", "yellow:6")
    for i, die in enumerate(SQUARE_DICE, 1):
        state = act(state, f"place {die} red2#{i}")
    assert state.players[0].cards[0].complete and state.players[0].gold == 0 and not state.players[0].claimed


def chip_tie(option: str) -> DiceTreasureState:
    red3, redb = card("red3", "red", 3), card("redb", "red", 1)
    state = table([[RED2, RED1, card("a3"), card("a4")], [red3, redb, card("b3"), card("b4")]], chip_tie=option)
    state = fill(state, 0, "red2", SQUARE_DICE)  # Ann: 3 red coins
    state = fill(state, 0, "red1", ROW_DICE)
    state = fill(state, 1, "red3", [d("red:1"), d("blue:2"), d("red:3"), d("blue:4"), d("red:5")])  # Bob: 4
    state = fill(state, 1, "redb", ROW_DICE)
    return ok(before_steal(state))


def test_colour_chip_tie_turn_order_from_the_round_start_player() -> None:
    ann, bob = chip_tie("turn-order").players
    assert ann.chips == ("red",) and ann.gold == 3 + 2 and not bob.chips and bob.gold == 4


def test_colour_chip_tie_most_coins_reading() -> None:
    ann, bob = chip_tie("most-coins").players
    assert not ann.chips and ann.gold == 3 and bob.chips == ("red",) and bob.gold == 4 + 2


def test_colour_chip_is_awarded_once_per_game() -> None:
    state = chip_tie("most-coins")
    bob = state.players[1]
    assert bob.chips == ("red",)
    # Ann completes a red card in the middle: 3 + 1 red coins, but the red chip is gone for good.
    red_mid = card("redm", "red", 1)
    state = dataclasses.replace(state, middle=(*state.middle, CardInPlay.fresh(red_mid)))
    state = roll(state, "red:1", "blue:2")
    state = act(act(state, "place red:1 redm#1"), "place blue:2 redm#2")
    state = act(act(state, "end"), "roll yellow:1 yellow:2")
    state = act(act(state, "end"), "roll red:3")
    state = ok(act(state, "place red:3 redm#3"))
    ann = state.players[0]
    assert ann.claimed[-1] == red_mid and not ann.chips and ann.gold == 4 and state.players[1].chips == ("red",)


def leprechaun_table(claimed: Sequence[MotifCard]) -> DiceTreasureState:
    """Ann, in her first turn, already holding ``claimed`` (hand-made)."""
    state = table(
        [[card("a1"), card("a2"), card("a3"), card("a4")], [card("b1"), card("b2"), card("b3"), card("b4")]],
        leprechauns="on",
    )
    ann = dataclasses.replace(state.players[0], claimed=tuple(claimed), gold=sum(c.coins for c in claimed))
    pile = tuple(c for c in state.draw_pile if c not in claimed)
    state = dataclasses.replace(state, players=(ann, state.players[1]), draw_pile=pile)
    return ok(roll(state, "red:1", "red:2", "red:3", "red:4", "red:5", "red:6"))


def test_leprechaun_blue_example_red_blue_and_any() -> None:
    cards = [card("r", "red"), card("b", "blue", 2)]
    state = leprechaun_table(cards)
    assert not [a for a in GAME.legal_actions(state) if str(a).startswith("claim")]
    with pytest.raises(IllegalActionError, match=r"blue \(red, blue, any -> 2\) needs more than Ann's claimed cards"):
        act(state, "claim blue")
    state = leprechaun_table([*cards, card("g", "green", 3)])
    assert [str(a) for a in GAME.legal_actions(state) if str(a).startswith("claim")] == ["claim blue"]
    state = ok(act(state, "claim blue"))
    ann = state.players[0]
    assert ann.bonus is not None and ann.bonus.id == "blue" and ann.gold == 1 + 2 + 3 + 2
    assert "blue" not in [b.id for b in state.bonus_offer]
    assert GAME.score(state).players["Ann"].breakdown == {"cards": 6, "chips": 0, "bonus": 2}


def test_leprechaun_yellow_example_and_one_per_player() -> None:
    cards = [card(f"y{i}", "yellow") for i in (1, 2)] + [
        card("o", "orange"),
        card("g", "green"),
        card("r", "red"),
        card("b", "blue"),
    ]
    state = leprechaun_table(cards)
    claims = sorted(str(a) for a in GAME.legal_actions(state) if str(a).startswith("claim"))
    assert claims == ["claim blue", "claim yellow"]  # the cards used are not consumed
    state = ok(act(state, "claim yellow"))
    assert state.players[0].gold == 6 + 4
    with pytest.raises(IllegalActionError, match="already has leprechaun card yellow"):
        act(state, "claim blue")
    assert not [a for a in GAME.legal_actions(state) if str(a).startswith("claim")]
    three = leprechaun_table(cards[1:])  # one yellow short
    with pytest.raises(IllegalActionError, match="needs more"):
        act(three, "claim yellow")
    off = dataclasses.replace(three, leprechauns=False)
    with pytest.raises(IllegalActionError, match="without leprechaun cards"):
        act(off, "claim blue")


# --- end of game -----------------------------------------------------------------------------------


def test_reaching_the_goal_makes_the_round_the_last_and_fewer_cards_win_a_tie() -> None:
    state = table([[RED2, RED1, card("a3"), card("a4")], [card("b1"), card("b2"), card("b3"), card("b4")]])
    big = [card(f"g{i}", "green", 3) for i in range(6)]
    small = [card(f"y{i}", "yellow", 2) for i in range(9)]
    ann = dataclasses.replace(state.players[0], claimed=tuple(big[:5]), chips=("green",), gold=17)
    bob = dataclasses.replace(state.players[1], claimed=tuple(small), chips=("yellow",), gold=20)
    state = ok(dataclasses.replace(state, players=(ann, bob)))
    state = fill(state, 0, "red2", SQUARE_DICE)  # 2 more red coins
    state = fill(state, 0, "red1", ROW_DICE)  # and 1 more: the red chip
    state = before_steal(state)
    assert state.players[0].gold == 17 + 3 + 2 == 22 and not state.last_round
    # Bob completes a middle card worth 1... not enough; Ann completes another.
    state = act(roll(state, "red:1", "blue:2"), "place red:1 a3#1")
    state = act(state, "place blue:2 a3#2")
    state = act(state, "end")
    state = act(roll(state, "red:3", "blue:4"), "place red:3 b1#1")
    state = act(act(state, "place blue:4 b1#2"), "end")
    state = act(roll(state, "green:3"), "place green:3 a3#3")
    assert state.players[0].gold == 23 and not state.last_round
    state = act(state, "end")
    state = act(roll(state, "green:5"), "place green:5 b1#3")
    assert state.players[1].gold == 21
    assert state.round == 1 and not state.last_round
    state = act(state, "end")
    # Round 2: Bob starts (he rolled the last die).
    assert state.start == 1 and state.phase is Phase.DEAL and not GAME.status(state).finished
    # Make the goal in round 2: hand-made gold for both, equal at 24; Ann has fewer cards.
    ann = dataclasses.replace(state.players[0], gold=24, claimed=(*state.players[0].claimed, card("zz", "indigo")))
    bob = dataclasses.replace(
        state.players[1], gold=24, claimed=(*state.players[1].claimed, card("z1", "indigo"), card("z2", "orange", 2))
    )
    state = dataclasses.replace(state, players=(ann, bob), last_round=True)
    assert ok(state).players[0].gold == 24 and len(ann.claimed) < len(bob.claimed)
    for _ in range(2):
        state = roll_any(state)
    state = pass_turns(state, 12)
    status = GAME.status(state)
    assert status.finished and status.winners == ("Ann",) and status.awaiting == "nothing"
    assert state.end_reason == "the last round is over"
    with pytest.raises(IllegalActionError, match="the game is over"):
        act(state, "end")


def test_the_goal_reached_during_a_round_triggers_the_last_round() -> None:
    state = table([[RED2, RED1, card("a3"), card("a4")], [card("b1"), card("b2"), card("b3"), card("b4")]])
    ann = dataclasses.replace(
        state.players[0], claimed=tuple(card(f"g{i}", "green", 3) for i in range(7)), chips=("green",), gold=23
    )
    state = fill(dataclasses.replace(state, players=(ann, state.players[1])), 0, "red1", ROW_DICE)
    state = ok(before_steal(state))
    assert state.players[0].gold == 24 and state.last_round
    state = pass_turns(state, 4)
    assert GAME.status(state).finished and GAME.status(state).winners == ("Ann",)


def test_draw_pile_runs_out_and_the_discards_are_shuffled_in() -> None:
    cards = [card(f"c{i}") for i in range(1, 11)]
    deck = Deck("small", COLOURS, tuple(cards))
    state = new_game(["Ann", "Bob"], deck, {"leprechauns": "off"})
    state = act(state, "deal Ann: c1 c2 c3 c4")
    state = act(state, "deal Bob: c5 c6 c7 c8")
    state = pass_turns(state, 12)
    assert len(state.draw_pile) == 2 and len(state.discards) == 8
    with pytest.raises(IllegalActionError, match=r"the draw pile's last cards \['c9'\] must be dealt first"):
        act(state, "deal Bob: c10 c1 c2 c3")
    state = ok(act(state, "deal Bob: c9 c10 c1 c2"))
    assert len(state.draw_pile) == 6 and not state.discards


# --- solo ------------------------------------------------------------------------------------------


def solo_table() -> DiceTreasureState:
    return table([[RED1, card("a2"), card("a3")]])


def test_solo_game_uses_25_dice_and_forbids_exchanges() -> None:
    assert sum(table([[RED1, card("a2"), card("a3")]], big_bag=False).bag) == 25
    state = solo_table()
    assert state.goal == 18 and state.turns == 6
    state = act(roll(state, "red:1", "red:2", "red:3", "red:4", "red:5", "red:6"), "end")
    state = roll(state, "blue:1", "blue:2", "blue:3", "blue:4", "blue:5")
    assert not [a for a in GAME.legal_actions(state) if isinstance(a, Exchange)]
    with pytest.raises(IllegalActionError, match="solo game does not allow exchanges"):
        act(state, "exchange blue:1 for red:2")


def test_solo_last_turns_discard_set_aside_deal_two_and_fill_from_the_common_reserve() -> None:
    state = solo_table()
    state = fill(state, 0, "red1", ROW_DICE)  # completed: claimed at the steal point
    state = fill(state, 0, "a2", [d("green:5"), None, None])  # incomplete: discarded, its die set aside
    state = roll(state, "yellow:1", "yellow:2", "purple:3", "purple:4", "purple:5", "purple:6")
    state = act(state, "end")
    for dice in (
        ("blue:1", "blue:2", "blue:3", "blue:4", "blue:5"),
        ("yellow:3", "yellow:4", "yellow:5", "green:1"),
        ("green:2", "green:3", "green:4"),
    ):
        state = act(roll(state, *dice), "end")
    assert ok(state).phase is Phase.SOLO_DEAL and GAME.status(state).awaiting == "chance"
    solo = state.players[0]
    assert [c.id for c in solo.claimed] == ["red1"] and solo.gold == 1 and not solo.cards
    assert state.set_aside == (d("green:5"),) and [c.id for c in state.discards] == ["a2", "a3"]
    state = act(state, "deal Ann: f1 f2")
    assert state.phase is Phase.SOLO_FILL and len(state.common) == 18
    with pytest.raises(IllegalActionError, match="fill the new cards from the common reserve as far as is legal"):
        act(state, "continue")
    with pytest.raises(IllegalActionError, match="dice come from common now, not hand"):
        act(state, "place blue:1 f1#1")
    # "As far as possible" first: no die goes to the personal reserve before the fill is done (that would dodge it).
    with pytest.raises(IllegalActionError, match=r"fill the new cards from the common reserve first \(0 of 6"):
        act(state, "reserve purple:6")
    # Fill greedily: the first legal place each time, until nothing fits; a filled card is claimed at once.
    while FinishSetup() not in GAME.legal_actions(state):
        place = next(a for a in GAME.legal_actions(state) if isinstance(a, Place))
        assert place.source is Source.COMMON
        state = ok(GAME.apply(state, place))
    assert [c.id for c in state.players[0].claimed] == ["red1", "f1", "f2"] and state.players[0].gold == 3
    state = act(state, "reserve purple:6")
    state = act(state, "reserve blue:5")
    with pytest.raises(IllegalActionError, match="already holds 2 dice"):
        act(state, "reserve blue:4")
    state = act(state, "continue")
    assert GAME.status(state).phase == "last-roll" and state.dice_to_roll() == 2
    state = ok(pass_turns(state, 2))
    assert state.round == 2 and state.phase is Phase.DEAL and sum(state.bag) == 150 and not state.set_aside


def test_solo_game_ends_when_the_goal_is_reached_or_after_four_rounds() -> None:
    state = solo_table()
    big = tuple(card(f"g{i}", "green", 3) for i in range(5))
    solo = dataclasses.replace(state.players[0], claimed=big, chips=("green",), gold=17)
    state = fill(dataclasses.replace(state, players=(solo,)), 0, "red1", ROW_DICE)
    state = ok(pass_turns(state, 4))
    status = GAME.status(state)
    assert status.finished and status.winners == ("Ann",) and state.end_reason == "reached 18 gold"
    state = solo_table()
    for k in range(4):
        assert state.round == k + 1
        state = roll_any(pass_turns(state, 4))  # the 2 new cards
        while state.phase is Phase.SOLO_FILL:  # fill, take 2 reserve dice, continue
            state = GAME.apply(state, GAME.legal_actions(state)[0])
        state = pass_turns(state, 2)
        if state.phase is Phase.DEAL:
            state = roll_any(state)
    assert GAME.status(state).finished and state.end_reason == "4 rounds played"
    assert state.players[0].gold < 18 and GAME.status(state).winners == ()


# --- states from outside ---------------------------------------------------------------------------


def test_state_json_round_trip_and_inconsistent_state_is_reported() -> None:
    state = act(placement_table(), "place red:3 req#1")
    text = GAME.state_to_json(state)
    assert GAME.state_from_json(text) == state
    broken = state
    # Put a die next to one of the same colour: named by card, space and reason.
    cip = broken.players[0].cards[0]
    broken = dataclasses.replace(
        broken,
        players=(
            dataclasses.replace(
                broken.players[0],
                cards=(CardInPlay(cip.card, (d("red:6"), d("red:3"), None, None)), *broken.players[0].cards[1:]),
            ),
            broken.players[1],
        ),
    )
    defects = GAME.status(broken).defects
    assert "Ann's card req space 1 (0,0) red/any: red:6 is next to red:3 in space 2 (same colour)" in defects
    assert "Ann's card req space 2 (1,0) any/6: red:3 does not meet the requirement" in defects
    assert "31 red dice in the game, there are 30" in defects  # the big test bag
    with pytest.raises(InvalidStateError, match="state is inconsistent"):
        GAME.check_state(broken)
    fake_gold = dataclasses.replace(state, players=(dataclasses.replace(state.players[0], gold=3), state.players[1]))
    assert "Ann has 3 gold but cards + chips + bonus make 0" in GAME.status(fake_gold).defects
    with pytest.raises(InvalidStateError, match=r"\$.phase"):
        GAME.state_from_json(text.replace('"phase":"turn"', '"phase":"lunch"'))


def test_every_legal_action_prints_as_text_that_parses_back_and_round_trips_through_json() -> None:
    state = act(placement_table(), "end keep red:6")
    state = roll(state, "purple:1", "purple:2", "purple:3", "purple:4", "purple:5", "purple:6")
    actions = GAME.legal_actions(state)
    assert {type(a).__name__ for a in actions} == {"Place", "Exchange", "EndTurn"}
    for action in actions:
        assert GAME.parse_action(GAME.action_text(action)) == action
        assert GAME.action_from_json(GAME.action_to_json(action)) == action
    for text in ("reveal a b", "deal Ann Lee: x y", "roll red:1", "claim blue", "reserve red:2", "continue", "end"):
        action = GAME.parse_action(text)
        assert GAME.action_from_json(GAME.action_to_json(action)) == action
    assert GAME.parse_action("deal Ann Lee: x y").player == "Ann Lee"
    for bad in ("", "jump", "roll red", "place red:3", "exchange red:3 blue:4", "end red:3", "roll red:9"):
        with pytest.raises(InvalidActionError, match=repr(bad) if bad else "empty action"):
            GAME.parse_action(bad)
    assert Roll((d("red:1"),)) == GAME.parse_action("roll red:1")


def test_decisions_are_refused_while_chance_is_awaited() -> None:
    state = table([[card("a1"), card("a2"), card("a3"), card("a4")], [card("b1"), card("b2"), card("b3"), card("b4")]])
    assert GAME.legal_actions(state) == [] and GAME.status(state).awaiting == "chance"
    with pytest.raises(IllegalActionError, match="Ann's roll of 6 dice is awaited"):
        act(state, "end")
    state = roll_any(state)
    with pytest.raises(IllegalActionError, match="it is Ann's turn"):
        act(state, "roll red:1")
    with pytest.raises(IllegalActionError, match="no chance is awaited"):
        GAME.random_chance(state, random.Random(1))


# --- what the camera needs of the rules --------------------------------------------------------------


def solo_fill_table(new: Sequence[MotifCard], common: Sequence[str]) -> DiceTreasureState:
    """Hand-made: the solo game's new cards ``new`` dealt before the last turns, the common reserve ``common``."""
    from engine.dicetreasure.game import max_fill

    state = solo_table()
    cards = tuple(CardInPlay.fresh(c) for c in new)
    dice = tuple(d(t) for t in common)
    ann = dataclasses.replace(state.players[0], cards=cards)
    return dataclasses.replace(state, players=(ann,), phase=Phase.SOLO_FILL, steal=True, cycle=5, common=dice,
                               fill_target=max_fill(cards, dice), fill_placed=0)


def test_solo_fill_as_far_as_possible_cannot_be_dodged_by_order_or_by_the_reserve() -> None:
    # Space 1 takes any die, space 2 (next to it) only a red one. From red:2 red:3 blue:2 both can be filled
    # (red:3 on 2, blue:2 on 1), but red:2 on space 1 first would leave space 2 unfillable.
    two = card("two", spaces=[Space((0, 0)), Space((1, 0), "red")])
    state = solo_fill_table([two], ["red:2", "red:3", "blue:2"])
    assert state.fill_target == 2
    with pytest.raises(IllegalActionError, match=r"could then hold only 1 dice .* but 2 fit: fill them as far"):
        act(state, "place common red:2 two#1")
    assert Place(d("red:2"), "two", 1, Source.COMMON) not in GAME.legal_actions(state)
    # The reserve may not take a die first, nor may the fill stop short.
    with pytest.raises(IllegalActionError, match=r"fill the new cards from the common reserve first \(0 of 2"):
        act(state, "reserve red:3")
    with pytest.raises(IllegalActionError, match=r"as far as is legal first \(0 of 2 dice placed\)"):
        act(state, "continue")
    assert not [a for a in GAME.legal_actions(state) if str(a).startswith(("reserve", "continue"))]
    state = act(act(state, "place common red:3 two#2"), "place common blue:2 two#1")
    assert state.players[0].claimed[-1].id == "two" and state.fill_placed == 2
    assert {str(a) for a in GAME.legal_actions(state)} == {"reserve red:2", "continue"}
    state = act(act(state, "reserve red:2"), "continue")
    assert state.phase is Phase.ROLL and state.players[0].reserve == (d("red:2"),) and state.fill_target == 0


def test_max_fill_counts_what_any_order_can_place() -> None:
    from engine.dicetreasure.game import max_fill

    need3 = card("need3", spaces=[Space((0, 0), value=3), Space((1, 0), value=3), Space((2, 0))])
    # Two 3s cannot lie side by side; the third space takes any die not next to a same colour or value.
    assert max_fill((CardInPlay.fresh(need3),), [d("red:3"), d("blue:3"), d("green:5")]) == 2
    assert max_fill((CardInPlay.fresh(need3),), [d("red:3"), d("blue:4")]) == 2  # 3 on 1, 4 on 3
    assert max_fill((CardInPlay.fresh(need3),), []) == 0
    assert max_fill((CardInPlay.fresh(card("x")), CardInPlay.fresh(card("y"))),
                    [d(f"{c}:{v}") for c in ("red", "blue") for v in (1, 2, 3)]) == 6


def test_a_qualifying_player_is_offered_the_leprechaun_card() -> None:
    from engine.dicetreasure.game import bonus_offers

    cards = [card("r", "red"), card("b", "blue", 2)]
    assert bonus_offers(leprechaun_table(cards)) == ()
    state = leprechaun_table([*cards, card("g", "green", 3)])
    assert [b.id for b in bonus_offers(state)] == ["blue"]
    assert bonus_offers(act(state, "claim blue")) == ()  # one per player per game
