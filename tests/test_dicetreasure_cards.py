"""Dice Treasure card data: the deck file format, the validator on broken files, the stand-in deck."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from engine.dice import Die
from engine.dicetreasure import DeckError, load_deck, sample_deck, validate_deck
from engine.dicetreasure.cards import (
    BACKGROUNDS,
    SAMPLE_DECK_PATH,
    BonusCard,
    MotifCard,
    Space,
    can_fill,
    deck_to_data,
    parse_deck,
    with_colours,
)
from engine.dicetreasure.sample import sample_text

DATA = Path(__file__).parent / "data" / "dicetreasure"


def test_sample_deck_has_the_published_composition_and_is_labelled_a_stand_in() -> None:
    deck = sample_deck()
    assert deck.stand_in
    assert "STAND-IN" in json.loads(SAMPLE_DECK_PATH.read_text())["note"]
    assert len(deck.motif_cards) == 63
    per = Counter((c.background, c.coins, len(c.spaces)) for c in deck.motif_cards)
    assert per == {(bg, coins, coins + 2): n for bg in BACKGROUNDS for coins, n in ((1, 4), (2, 3), (3, 2))}
    assert sum(c.coins for c in deck.motif_cards) == 7 * 16
    assert len(deck.bonus_cards) == 21
    assert validate_deck(SAMPLE_DECK_PATH) == []


def test_sample_deck_file_is_what_the_generator_writes() -> None:
    assert SAMPLE_DECK_PATH.read_text(encoding="utf-8") == sample_text()


def test_sample_deck_holds_both_rulebook_leprechaun_cards() -> None:
    bonus = {b.id: b for b in sample_deck().bonus_cards}
    assert bonus["blue-1"] == BonusCard("blue-1", ("red", "blue", None), 2)
    assert bonus["yellow-1"] == BonusCard("yellow-1", ("yellow", "yellow", "orange", "green"), 4)


def test_deck_round_trips_through_its_file_data(tmp_path: Path) -> None:
    deck = sample_deck()
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(deck_to_data(deck)))
    assert load_deck(path) == deck


def test_many_problems_are_all_listed_naming_card_and_field() -> None:
    problems = validate_deck(DATA / "many-problems.json")
    text = "\n".join(problems)
    expected = [
        "unknown top-level field 'colour_names'",
        "motif card 'pink-1' (#2): field 'background' is 'pink'",
        "motif card 'red-coins' (#3): field 'coins' is 4",
        "motif card 'red-short' (#4): has 3 spaces, a card worth 2 coin(s) has 4",
        "motif card 'red-colour' (#5) space 1: field 'colour' is 'white'",
        "motif card 'red-value' (#6) space 2: field 'value' is 7",
        "motif card 'red-place' (#7) space 2: position [0, 0] already used by space 1",
        "motif card 'red-at' (#8) space 1: field 'at' must be [column, row]",
        "motif card 'red-never' (#9): can never be completed",
        "motif card 'ok-1' (#10): id already used by card #1",
        "motif card #11: field 'id' must be non-empty text",
        "the deck has 11 motif cards; the game has 63",
        "background orange: the deck has 0 worth 1, 0 worth 2, 0 worth 3; the game has 4 worth 1, 3 worth 2",
        "bonus card 'b-2' (#2): requirement 'teal' is not 'any'",
        "bonus card 'b-2' (#2): field 'reward' is 0",
        "the deck has 2 bonus cards; the expansion has 21",
    ]
    for needle in expected:
        assert needle in text, needle
    assert not any("'ok-1' (#1)" in p for p in problems)
    with pytest.raises(DeckError) as err:
        load_deck(DATA / "many-problems.json")
    assert err.value.problems == tuple(problems)
    assert "problem(s)" in str(err.value) and isinstance(err.value, ValueError)


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("not-json.json", "not valid JSON"),
        ("not-an-object.json", "must hold an object"),
        ("bad-colours.toml", "field 'dice_colours' must name 5 different colours"),
        ("missing.json", "cannot read"),
    ],
)
def test_broken_files(name: str, needle: str) -> None:
    problems = validate_deck(DATA / name)
    assert problems and needle in problems[0]


def test_toml_deck_problems_name_card_and_field() -> None:
    text = "\n".join(validate_deck(DATA / "bad-colours.toml"))
    assert "motif card 'red-1' (#1) space 3" not in text  # value 6 is fine
    assert "the deck has 1 motif cards" in text


def test_fill_check_sees_neighbours_only() -> None:
    both_blue = (Space((0, 0), "blue"), Space((1, 0), "blue"), Space((2, 0)))
    assert not can_fill(MotifCard("x", "red", 1, both_blue), ("red", "blue"))
    diagonal = (Space((0, 0), "blue", 3), Space((1, 1), "blue", 3), Space((2, 0)))
    assert can_fill(MotifCard("x", "red", 1, diagonal), ("red", "blue"))
    # Two colours cannot fill a row of three when the middle must differ from both ends... but the ends may match.
    row = (Space((0, 0)), Space((1, 0)), Space((2, 0)))
    assert can_fill(MotifCard("x", "red", 1, row), ("red", "blue"))
    square = tuple(Space(p) for p in ((0, 0), (1, 0), (0, 1), (1, 1)))
    assert not can_fill(MotifCard("x", "red", 2, square), ("red",))


def test_neighbours_are_orthogonal_on_the_same_card() -> None:
    card = MotifCard("plus", "red", 3, tuple(Space(p) for p in ((1, 0), (0, 1), (1, 1), (2, 1), (1, 2))))
    assert card.neighbours(2) == (0, 1, 3, 4)
    assert card.neighbours(0) == (2,)  # (0,1) and (2,1) touch (1,0) only diagonally


def test_leprechaun_requirements_use_distinct_cards() -> None:
    blue = BonusCard("blue", ("red", "blue", None), 2)
    assert blue.met_by(["red", "blue", "green"])
    assert blue.met_by(["red", "blue", "red"])
    assert not blue.met_by(["red", "blue"])  # the third (any colour) card must be another card
    assert not blue.met_by(["red", "red", "red"])
    yellow = BonusCard("yellow", ("yellow", "yellow", "orange", "green"), 4)
    assert yellow.met_by(["green", "yellow", "orange", "yellow", "red"])
    assert not yellow.met_by(["yellow", "orange", "green", "green"])


def test_dice_colours_can_be_renamed() -> None:
    deck = with_colours(sample_deck(), {"purple": "white"})
    assert deck.dice_colours == ("red", "yellow", "green", "blue", "white")
    assert all(s.colour != "purple" for c in deck.motif_cards for s in c.spaces)
    assert any(s.colour == "white" for c in deck.motif_cards for s in c.spaces)
    with pytest.raises(DeckError, match="two colours the same"):
        with_colours(sample_deck(), {"purple": "red"})


def test_parse_deck_accepts_any_word_and_rejects_any_as_colour_name() -> None:
    data = deck_to_data(sample_deck())
    data["dice_colours"] = ["any", "b", "c", "d", "e"]
    with pytest.raises(DeckError, match="may not use the word 'any'"):
        parse_deck(data)
    assert Space((0, 0)).accepts(Die(3, "red"))
    assert not Space((0, 0), "blue").accepts(Die(3, "red"))
    assert not Space((0, 0), None, 4).accepts(Die(3, "red"))
