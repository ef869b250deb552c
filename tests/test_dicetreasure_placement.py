"""Placement legality against a literal transcription of RULES.md 3.3, on random cards and dice (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import Die
from engine.dicetreasure.cards import MotifCard, Space
from engine.dicetreasure.placement import fits, fitting, why_not
from engine.dicetreasure.state import CardInPlay

COLOURS = ("red", "yellow", "green", "blue", "purple")
dice = st.builds(Die, st.integers(1, 6), st.sampled_from(COLOURS))


@st.composite
def cards_in_play(draw: st.DrawFn) -> CardInPlay:
    positions = draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=3, max_size=5, unique=True))
    spaces = tuple(
        Space(p, draw(st.none() | st.sampled_from(COLOURS)), draw(st.none() | st.integers(1, 6))) for p in positions
    )
    on = tuple(draw(st.none() | dice) for _ in spaces)
    return CardInPlay(MotifCard("x", "red", 1, spaces), on)


def rulebook_allows(cip: CardInPlay, i: int, die: Die) -> bool:
    """RULES.md 3.3, item by item, with neighbours worked out from the positions directly."""
    space = cip.card.spaces[i]
    empty = cip.dice[i] is None
    colour_ok = space.colour is None or space.colour == die.colour
    value_ok = space.value is None or space.value == die.value
    x, y = space.pos
    neighbours_ok = all(
        other is None or (other.colour != die.colour and other.value != die.value)
        for s, other in zip(cip.card.spaces, cip.dice, strict=True)
        if abs(s.pos[0] - x) + abs(s.pos[1] - y) == 1
    )
    return empty and colour_ok and value_ok and neighbours_ok


@settings(max_examples=400, deadline=None)
@given(cards_in_play(), dice)
def test_placement_matches_the_rules_text(cip: CardInPlay, die: Die) -> None:
    expected = [i for i in range(len(cip.dice)) if rulebook_allows(cip, i, die)]
    assert [i for _, i in fitting((cip,), die.colour, die.value)] == expected
    for i in range(len(cip.dice)):
        assert fits(cip, i, die.colour, die.value) == (i in expected)
        assert (why_not(cip, i, die) is None) == (i in expected)
