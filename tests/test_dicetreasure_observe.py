"""Dice Treasure: which legal actions explain the dice the camera saw on the cards after a turn."""

from __future__ import annotations

import dataclasses

import pytest

from engine import AmbiguousActionError, IllegalActionError, InvalidActionError
from engine.dice import Die
from engine.dicetreasure import GAME, CardInPlay, DiceTreasureState, Exchange, Place, Source
from engine.dicetreasure.observe import explain_one, explain_placements
from tests.test_dicetreasure_rules import REQ, act, bag_out, before_steal, card, placement_table, roll, table


def d(text: str) -> Die:
    return Die.parse(text)


def test_new_dice_from_the_hand_are_explained_by_place_actions() -> None:
    state = placement_table()  # Ann holds red:6 red:3 blue:6 green:2 yellow:3 blue:1; req is her first card
    seen = {"req": (d("red:3"), d("blue:6"), None, d("green:2"))}
    [only] = explain_placements(state, seen)
    assert set(only.actions) == {
        Place(d("red:3"), "req", 1),
        Place(d("blue:6"), "req", 2),
        Place(d("green:2"), "req", 4),
    }
    assert explain_one(state, seen).state.players[0].cards[0].dice == seen["req"]
    assert explain_placements(state, {"req": (None, None, None, None)})[0].actions == ()


def test_a_die_in_hand_and_in_reserve_is_ambiguous() -> None:
    state = act(placement_table(), "end keep red:6")
    state = roll(
        act(roll(state, "purple:1", "purple:2", "purple:3", "purple:4", "purple:5", "purple:6"), "end"),
        "red:6",
        "yellow:2",
        "yellow:4",
        "yellow:5",
        "yellow:1",
    )
    seen = {"a2": (d("red:6"), None, None)}
    options = explain_placements(state, seen)
    assert {o.actions[0].source for o in options if isinstance(o.actions[0], Place)} == {Source.HAND, Source.RESERVE}
    with pytest.raises(AmbiguousActionError, match="2 ways explain"):
        explain_one(state, seen)


def test_a_die_only_in_the_common_reserve_needs_an_exchange() -> None:
    state = act(placement_table(), "end")  # all six of Ann's dice go to the common reserve
    state = roll(state, "purple:1", "purple:2", "purple:3", "purple:4", "purple:5", "purple:6")
    options = explain_placements(state, {"b1": (d("green:2"), None, None)})
    assert all(isinstance(o.actions[0], Exchange) and o.actions[0].take == d("green:2") for o in options)
    assert len(options) == 6  # paid with any of the six purple dice


def test_impossible_observations_name_card_space_and_reason() -> None:
    state = act(placement_table(), "place red:3 req#1")
    with pytest.raises(IllegalActionError, match=r"card req space 1: red:3 is gone; dice stay on their card"):
        explain_placements(state, {"req": (None, None, None, None)})
    with pytest.raises(IllegalActionError, match=r"card req space 2: purple:6 is not among the current dice"):
        explain_placements(state, {"req": (d("red:3"), d("purple:6"), None, None)})
    with pytest.raises(IllegalActionError, match=r"next to red:3 in space 1 \(same colour\)"):
        explain_placements(state, {"req": (d("red:3"), d("red:6"), None, None)})
    with pytest.raises(InvalidActionError, match="card 'b1' was seen, but the player may place only on req, a2"):
        explain_placements(state, {"b1": (d("blue:1"), None, None)})
    before = {"req": (d("red:3"), None, None, None)}
    assert explain_placements(state, {"req": (d("red:3"), d("blue:6"), None, None)}, before)[0].actions == (
        Place(d("blue:6"), "req", 2),
    )
    with pytest.raises(InvalidActionError, match="card req space 1: the camera saw red:6 before the turn, the game"):
        explain_placements(state, {}, {"req": (d("red:6"), None, None, None)})
    with pytest.raises(InvalidActionError, match="3 spaces seen, the card has 4"):
        explain_placements(state, {"req": (d("red:3"), None, None)})


def test_explanations_only_during_a_turn() -> None:
    state: DiceTreasureState = table(
        [[REQ, card("a2"), card("a3"), card("a4")], [card("b1"), card("b2"), card("b3"), card("b4")]]
    )
    with pytest.raises(IllegalActionError, match="no placement is possible now"):
        explain_placements(state, {})
    assert GAME.legal_actions(state) == []


def test_a_middle_card_completed_in_the_steal_phase_goes_to_the_placer() -> None:
    state = before_steal(
        table([[card("a1"), card("a2"), card("a3"), card("a4")], [card("b1"), card("b2"), card("b3"), card("b4")]])
    )
    middle = [c if c.card.id != "b2" else CardInPlay(c.card, (d("red:1"), d("blue:2"), None)) for c in state.middle]
    state = dataclasses.replace(state, middle=tuple(middle), bag=bag_out(state, [d("red:1"), d("blue:2")]))
    state = roll(state, "red:3", "green:5")
    only = explain_one(state, {"b2": (d("red:1"), d("blue:2"), d("red:3"))})
    assert only.actions == (Place(d("red:3"), "b2", 3),)
    assert only.state.players[0].claimed[-1].id == "b2" and "b2" not in [c.card.id for c in only.state.middle]
    assert GAME.status(only.state).defects == ()
